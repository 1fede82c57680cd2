"""The warm path of ``ctxsel blast-radius``: what it skips must never change an answer.

A warm run imports only the invoked command's module, takes the graph from the cache
after re-checking every input's stamp, and skips modules only a rebuild needs. These
tests pin the two ways that could go wrong: a stale graph (an input changed and the
cache did not notice) and a command that is missing or built differently when only its
own module is loaded.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ctxsel.cache import ABSENT, _all_unchanged, _stamp
from ctxsel.workspace import Workspace

ROOT = Path(__file__).resolve().parent.parent


# ---------------------------------------------------------------- a workspace to edit
def write_json(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")


def bump(path: Path, text: str) -> None:
    """Rewrite ``path`` with a later mtime: two writes within one clock tick can share one."""
    path.write_text(text)
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))


def package(root: Path, rel: str, name: str, deps: dict[str, str] | None = None, test: bool = False) -> None:
    manifest: dict = {"name": name, "version": "1.0.0", "dependencies": deps or {}}
    if test:
        manifest["scripts"] = {"test": "true"}
    write_json(root / rel / "package.json", manifest)


@pytest.fixture
def ws_root(tmp_path: Path) -> Path:
    """pnpm-managed and Turborepo: ``b`` names ``a`` by a plain range (links only with
    link-workspace-packages), ``c`` by ``workspace:*`` (always links)."""
    root = tmp_path / "ws"
    write_json(root / "package.json", {"name": "root", "private": True})
    (root / "pnpm-workspace.yaml").write_text("packages:\n  - 'packages/*'\n")
    write_json(root / "turbo.json", {"tasks": {"build": {}}})
    package(root, "packages/a", "a")
    package(root, "packages/b", "b", {"a": "^1.0.0"}, test=True)
    package(root, "packages/c", "c", {"a": "workspace:*"}, test=True)
    package(root, "tools/t", "t", {"a": "workspace:*"})
    return root


def counting_builds(monkeypatch, adapter: str) -> list[int]:
    """Count graph builds of ``adapter``: a cache hit builds nothing."""
    from ctxsel.adapters import adapter_class

    cls = adapter_class(adapter)
    builds: list[int] = []
    real = cls.load_static
    monkeypatch.setattr(cls, "load_static", lambda self, tracker: builds.append(1) or real(self, tracker))
    return builds


def radius(root: Path, adapter: str) -> set[str]:
    return set(Workspace.open(root, adapter=adapter, source="static").blast_radius(["a"]).ids)


def test_turbo_cache_notices_every_input_and_only_inputs(ws_root: Path, monkeypatch) -> None:
    builds = counting_builds(monkeypatch, "turbo")
    assert radius(ws_root, "turbo") == {"a", "c"} and len(builds) == 1
    assert radius(ws_root, "turbo") == {"a", "c"} and len(builds) == 1  # warm: nothing rebuilt

    # an absent input appearing: a package's own turbo.json (stamped as absent)
    write_json(ws_root / "packages/c/turbo.json", {"extends": ["//"], "tasks": {"test": {}}})
    tests = Workspace.open(ws_root, adapter="turbo", source="static").tests(["a"]).tests
    assert tests == ["c"] and len(builds) == 2

    # .npmrc appearing: turbo then links b's plain range
    (ws_root / ".npmrc").write_text("link-workspace-packages=true\n")
    assert radius(ws_root, "turbo") == {"a", "b", "c"} and len(builds) == 3

    # the root turbo.json changing: every package with a test script now has a test task
    bump(ws_root / "turbo.json", json.dumps({"tasks": {"build": {}, "test": {}}}))
    tests = Workspace.open(ws_root, adapter="turbo", source="static").tests(["a"]).tests
    assert tests == ["b", "c"] and len(builds) == 4

    # pnpm-workspace.yaml changing: tools/* joins the workspace
    bump(ws_root / "pnpm-workspace.yaml", "packages:\n  - 'packages/*'\n  - 'tools/*'\n")
    assert radius(ws_root, "turbo") == {"a", "b", "c", "t"} and len(builds) == 5

    # a new package (a new directory under a glob)
    package(ws_root, "packages/d", "d", {"a": "workspace:*"})
    assert radius(ws_root, "turbo") == {"a", "b", "c", "d", "t"} and len(builds) == 6

    # a package.json edited in place
    bump(ws_root / "packages/c/package.json", json.dumps({"name": "c", "version": "1.0.0"}))
    assert radius(ws_root, "turbo") == {"a", "b", "d", "t"} and len(builds) == 7

    # a package.json deleted
    (ws_root / "packages/d/package.json").unlink()
    assert radius(ws_root, "turbo") == {"a", "b", "t"} and len(builds) == 8

    assert radius(ws_root, "turbo") == {"a", "b", "t"} and len(builds) == 8  # and warm again


def test_pnpm_cache_notices_workspace_settings_and_manifests(ws_root: Path, monkeypatch) -> None:
    builds = counting_builds(monkeypatch, "pnpm")
    assert radius(ws_root, "pnpm") == {"a", "c"} and len(builds) == 1
    assert radius(ws_root, "pnpm") == {"a", "c"} and len(builds) == 1
    bump(ws_root / "pnpm-workspace.yaml", "packages:\n  - 'packages/*'\nlinkWorkspacePackages: true\n")
    assert radius(ws_root, "pnpm") == {"a", "b", "c"} and len(builds) == 2
    (ws_root / "packages/b/package.json").unlink()
    assert radius(ws_root, "pnpm") == {"a", "c"} and len(builds) == 3
    assert radius(ws_root, "pnpm") == {"a", "c"} and len(builds) == 3


def test_all_unchanged_agrees_with_stamping_each_path(tmp_path: Path) -> None:
    """The fast stamp check gives the answer ``_stamp`` gives, path by path."""
    present = tmp_path / "present.json"
    present.write_text("{}")
    absent = str(tmp_path / "absent.json")
    other = tmp_path / "other"
    other.mkdir()
    stamps = {str(present): _stamp(str(present)), absent: ABSENT, str(other): _stamp(str(other)), "nul\0name": ABSENT}
    assert stamps[absent] == ABSENT and stamps[str(present)] != ABSENT
    assert _all_unchanged(stamps)
    Path(absent).write_text("")  # an absent input appears
    assert not _all_unchanged(stamps)
    Path(absent).unlink()
    assert _all_unchanged(stamps)
    bump(present, '{"a": 1}')  # edited
    assert not _all_unchanged(stamps)
    stamps[str(present)] = _stamp(str(present))
    present.unlink()  # deleted
    assert not _all_unchanged(stamps)
    assert not _all_unchanged({"nul\0name": (1, 1)})  # a stamp no such path can match
    (other / "new").write_text("")  # a directory gaining an entry: as ``_stamp`` sees it
    assert _all_unchanged({str(other): stamps[str(other)]}) == (_stamp(str(other)) == stamps[str(other)])


# ---------------------------------------------------------------- the CLI loads one command
def test_command_modules_name_the_module_of_every_command() -> None:
    """``COMMAND_MODULES`` is what lets ``ctxsel X`` import X's module alone; it must match
    where each command is really defined (a stale entry would only slow X down, but
    would do so silently)."""
    from ctxsel import cli

    cli._register()
    where = {name: info.callback.__module__ for name, info in cli._registered().items()}
    assert where == {name: f"ctxsel.commands.{module}" for name, module in cli.COMMAND_MODULES.items()}


def test_help_and_typos_still_see_every_command(cli) -> None:
    from ctxsel.cli import COMMAND_MODULES

    shown = cli("--help")
    assert shown.returncode == 0
    listed = [line.split()[0] for line in shown.stdout.splitlines() if line.startswith("  ") and line.split()]
    assert set(COMMAND_MODULES) <= set(listed)
    typo = cli("blast-radiu")
    assert typo.returncode == 2 and "Did you mean 'blast-radius'?" in typo.stderr


def test_warm_blast_radius_imports_only_what_it_needs(ws_root: Path) -> None:
    """A warm blast-radius neither imports other commands nor what only a rebuild needs."""
    probe = (
        "import sys, typer\n"
        "from ctxsel.cli import main\n"
        "before = set(sys.modules)\n"
        "code = main(sys.argv[1:])\n"
        "print(sorted(set(sys.modules) - before), file=sys.stderr)\n"
        "sys.exit(code)\n"
    )
    argv = [sys.executable, "-c", probe, "--repo", str(ws_root), "--adapter", "turbo", "--source", "static",
            "blast-radius", "a", "--format", "labels"]
    cold = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=ROOT)
    warm = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert cold.returncode == warm.returncode == 0, cold.stderr + warm.stderr
    assert cold.stdout == warm.stdout == "a\nc\n"
    imported = set(ast.literal_eval(warm.stderr.strip().splitlines()[-1]))  # the probe's own list
    assert "ctxsel.commands.graph_queries" in imported and "ctxsel.cache" in imported
    unneeded = {
        "ctxsel.commands.select", "ctxsel.commands.precommit", "ctxsel.commands.graph_export", "ctxsel.commands.mcp",
        "ctxsel.adapters.js.workspace", "ctxsel.adapters.js.semver", "json", "hashlib", "tempfile", "yaml",
    }
    assert not imported & unneeded, imported & unneeded
    assert "ctxsel.adapters.js.workspace" in ast.literal_eval(cold.stderr.strip().splitlines()[-1])  # the cold run parses
