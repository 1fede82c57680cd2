"""A tiny adapter and git workspace for change-aware tests (no real build system needed).

``ToyAdapter`` reads one ``toy.json`` (nodes, their srcs, deps, which are tests), so
git handling, deleted/renamed-file mapping, global files, ``--explain``, pre-commit
and graph export can be tested before, and independently of, the real adapters.
Registered in-process with ``register(monkeypatch)`` for CLI tests run via ``main()``.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from ctxsel.adapters.base import Adapter
from ctxsel.cache import InputTracker
from ctxsel.errors import Location, ParseError
from ctxsel.graph import BuildGraph, Node
from ctxsel.workspace import Workspace


class ToyAdapter(Adapter):
    name = "toy"
    loads = 0  # how many times load_static ran (revision graphs are cached)

    @classmethod
    def detect(cls, root: Path) -> bool:
        return (root / "toy.json").is_file()

    def load_static(self, tracker: InputTracker) -> BuildGraph:
        type(self).loads += 1
        try:
            spec = json.loads(tracker.read_text(self.root / "toy.json"))
        except ValueError as exc:
            raise ParseError(f"not JSON: {exc}", Location("toy.json")) from None
        g = BuildGraph("toy", str(self.root))
        for nid, n in spec["nodes"].items():
            g.add_node(Node(nid, "test" if n.get("test") else "lib", package=n["dir"],
                            srcs=tuple(n.get("srcs", ())), is_test=bool(n.get("test"))))
        for nid, n in spec["nodes"].items():
            for d in n.get("deps", ()):
                g.add_edge(nid, d)
        return g

    def load_tool(self, tracker: InputTracker) -> BuildGraph:
        return self.load_static(tracker)

    def test_command(self, tests: list[str]) -> list[str]:
        return ["toy", "test", *tests]

    def global_files(self) -> tuple[str, ...]:
        return ("toy.json", "config/*.cfg")

    def manifest_patterns(self) -> tuple[str, ...]:
        return ("toy.json",)


class PnpmLikeToy(ToyAdapter):
    rename_counts_old_path = False


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True,
                          env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                               "GIT_COMMITTER_EMAIL": "t@t", "HOME": str(root), "PATH": "/usr/bin:/bin"}).stdout


def write(root: Path, rel: str, text: str = "x\n") -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)


SPEC = {
    "nodes": {
        "core": {"dir": "core", "srcs": ["core/core.c"]},
        "lib_a": {"dir": "lib", "srcs": ["lib/a.c"], "deps": ["core"]},
        "lib_b": {"dir": "lib", "srcs": ["lib/b.c"]},
        "app": {"dir": "app", "srcs": ["app/main.c"], "deps": ["lib_a"]},
        "app_test": {"dir": "app", "srcs": ["app/test.c"], "deps": ["app"], "test": True},
        "b_test": {"dir": "lib", "srcs": ["lib/b_test.c"], "deps": ["lib_b"], "test": True},
        "lone": {"dir": "lone", "srcs": ["lone/x.c"]},
    }
}


def make_repo(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    write(root, "toy.json", json.dumps(SPEC))
    for n in SPEC["nodes"].values():
        for s in n["srcs"]:
            write(root, s)
    write(root, "README.md")
    write(root, "config/build.cfg")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "init")
    return root


def open_ws(root: Path, cls: type[ToyAdapter] = ToyAdapter) -> Workspace:
    adapter = cls(root)
    ws = Workspace(root, adapter, adapter.load(InputTracker(root)))
    ws.use_cache = True
    return ws


def register(monkeypatch) -> None:
    """Make ``--adapter toy`` work for in-process ``ctxsel.cli.main`` calls."""
    from ctxsel import adapters

    monkeypatch.setitem(adapters.REGISTRY, "toy", f"{__name__}:ToyAdapter")


class RunnableToy(ToyAdapter):
    """Its test command is a real process: prints the tests it was given, exits 3 if any name fails."""

    def test_command(self, tests: list[str]) -> list[str]:
        import sys

        script = "import sys; print('ran', *sys.argv[1:]); sys.exit(3 if any('fail' in a for a in sys.argv) else 0)"
        return [sys.executable, "-c", script, *tests]


def register_runnable(monkeypatch) -> None:
    from ctxsel import adapters

    monkeypatch.setitem(adapters.REGISTRY, "toy", f"{__name__}:RunnableToy")
