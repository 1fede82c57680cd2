r"""A ``\`` in a pnpm-workspace.yaml glob, as pnpm 12.4.2 and turbo 2.11.11 read it (measured).

``p/\*``, ``p\*`` and ``p/\?`` escape the wildcard: they name a directory ``*`` (or ``p*``), so
they select nothing, where ctxsel read the ``\`` as a path separator and selected ``p/a`` and
``p/b``. Both tools refuse a ``\`` before a character their glob parser does not escape
(``p/\!x``, ``p/\-x``, ``p/[\*a]x``, ``p\\*``; turbo also ``p/\a`` and ``p/\:x``, which pnpm
reads), where ctxsel answered; ``p/[\]a]x`` is read by both, where ctxsel refused it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsfixtures import PNPM_ENV, TURBO_ENV, open_ws, rel_dir, write_pkg
from oracles import require, run

from ctxsel.errors import ParseError

#: globs both tools read; with them ``q/*`` alone selects a package
READ = ["p/\\*", "p\\*", "p/\\?", "p/[\\]a]x", "p/[\\-a]x"]
#: glob -> the tools that refuse it
REFUSED = {
    "p/\\!x": ("pnpm", "turbo"),
    "p/[\\*a]x": ("pnpm", "turbo"),
    "p\\\\*": ("pnpm", "turbo"),
    "p/\\a": ("pnpm", "turbo"),
    "p/\\:x": ("turbo",),
}


def workspace(root: Path, globs: list[str]) -> Path:
    """p/a, p/b and q/c (b and c depend on a); pnpm-workspace.yaml lists ``globs`` and ``q/*``."""
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "root", "private": True, "packageManager": "pnpm@12.4.2"}))
    (root / "pnpm-workspace.yaml").write_text("packages: " + json.dumps([*globs, "q/*"]) + "\n")
    (root / "turbo.json").write_text('{"tasks": {}}')
    write_pkg(root, "p/a", "a")
    write_pkg(root, "p/b", "b", dependencies={"a": "workspace:*"})
    write_pkg(root, "q/c", "c", dependencies={"a": "workspace:*"})
    return root


def ctxsel_dirs(root: Path, adapter: str) -> set[str]:
    return {n.package for n in open_ws(root, adapter).graph.nodes()} - {""}


def tool_dirs(root: Path, tool: str) -> set[str] | None:
    """Package directories the tool lists (the root left out), or None when it refuses the workspace."""
    if tool == "pnpm":
        proc = run(["pnpm", "ls", "-r", "--depth", "-1", "--json"], root, env=PNPM_ENV, check=False)
        return {rel_dir(root, p["path"]) for p in json.loads(proc.stdout)} - {""} if proc.returncode == 0 else None
    proc = run(["turbo", "ls", "--output=json"], root, env=TURBO_ENV, check=False)
    return {p["path"].strip("/") for p in json.loads(proc.stdout)["packages"]["items"]} if proc.returncode == 0 else None


@pytest.mark.parametrize("adapter", ["pnpm", "turbo"])
def test_escaped_wildcards_are_literal(tmp_path: Path, adapter: str) -> None:
    assert ctxsel_dirs(workspace(tmp_path / "ws", READ), adapter) == {"q/c"}


@pytest.mark.parametrize("adapter", ["pnpm", "turbo"])
@pytest.mark.parametrize("glob", sorted(REFUSED))
def test_escapes_the_tools_refuse(tmp_path: Path, adapter: str, glob: str) -> None:
    root = workspace(tmp_path / "ws", [glob])
    if adapter not in REFUSED[glob]:
        assert ctxsel_dirs(root, adapter) == {"q/c"}
        return
    with pytest.raises(ParseError) as err:
        open_ws(root, adapter)
    assert err.value.location is not None and err.value.location.path == "pnpm-workspace.yaml"


@pytest.mark.oracle
def test_the_tools_agree(tmp_path: Path) -> None:
    require("pnpm")
    require("turbo")
    root = workspace(tmp_path / "read", READ)
    for tool in ("pnpm", "turbo"):
        assert tool_dirs(root, tool) == ctxsel_dirs(root, tool) == {"q/c"}, tool
    for i, (glob, refusing) in enumerate(sorted(REFUSED.items())):
        root = workspace(tmp_path / f"g{i}", [glob])
        for tool in ("pnpm", "turbo"):
            assert (tool_dirs(root, tool) is None) == (tool in refusing), (glob, tool)
