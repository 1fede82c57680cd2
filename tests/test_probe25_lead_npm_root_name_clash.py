"""npm: the root's test and a workspace named like the root cannot run in one command.

npm files the packages ``npm run`` runs a script in by name, so with the root and
``packages/a`` both named ``insomnia`` (Kong/insomnia's layout) ``npm run test
--workspace=./packages/a --include-workspace-root`` runs the workspace's test only (npm 11.19.1,
measured); with another workspace selected instead, the root's test runs too. ctxsel emitted
that command and said nothing: the root's tests were silently skipped. Now the no-op flag is
left out and a warning says to run the root's test as well.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from jsfixtures import open_ws, write_pkg
from oracles import require, run


def workspace(parent: Path) -> Path:
    root = parent / "repo"
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({
        "name": "insomnia", "version": "1.0.0", "private": True, "workspaces": ["packages/*"],
        "scripts": {"test": "echo RAN-root"}}))
    write_pkg(root, "packages/a", "insomnia", scripts={"test": "echo RAN-a"})
    write_pkg(root, "packages/b", "b", scripts={"test": "echo RAN-b"})
    return root


@dataclass
class Command:
    argv: list[str]
    warnings: list[str]


def selection(root: Path, dirs: list[str]) -> Command:
    """The command and warnings ctxsel gives for running the tests of exactly these packages."""
    ws = open_ws(root, "npm")
    ids = [n.id for n in ws.graph.nodes() if n.package in dirs]
    assert len(ids) == len(dirs)
    return Command(ws.adapter.test_command(ids), ws.adapter.test_command_warnings(ws.graph, ids))


def test_a_workspace_named_like_the_root_drops_the_flag_and_warns(tmp_path: Path) -> None:
    sel = selection(workspace(tmp_path), ["", "packages/a"])
    assert sel.argv[:3] == ["npm", "run", "test"] and "--include-workspace-root" not in sel.argv
    assert any("named like the root" in w and "npm run test" in w for w in sel.warnings), sel.warnings


def test_another_workspace_keeps_the_root_in_the_command(tmp_path: Path) -> None:
    sel = selection(workspace(tmp_path), ["", "packages/b"])
    assert "--include-workspace-root" in sel.argv
    assert not any("named like the root" in w for w in sel.warnings), sel.warnings


def ran(root: Path, argv: list[str]) -> set[str]:
    out = run(argv, root).stdout
    return {line.removeprefix("RAN-") for line in out.splitlines() if line.startswith("RAN-")}


@pytest.mark.oracle
def test_npm_runs_what_the_commands_say(tmp_path: Path) -> None:
    require("npm")
    root = workspace(tmp_path)
    # the flag ctxsel leaves out does nothing here: npm runs the workspace only
    assert ran(root, ["npm", "run", "test", "--workspace=./packages/a", "--include-workspace-root"]) == {"a"}
    assert ran(root, selection(root, ["", "packages/a"]).argv) == {"a"}
    assert ran(root, selection(root, ["", "packages/b"]).argv) == {"root", "b"}
