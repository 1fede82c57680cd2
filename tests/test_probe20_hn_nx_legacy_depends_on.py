"""``dependsOn: [{"target": "build", "projects": "dependencies"}]`` (or ``"self"``): Nx 15's
spelling, which Nx 24 refuses when it builds a task graph.

Found by differential testing with generated workspaces (session 20, ``/tmp/dev20/hn/gen``):
``nx affected -t test`` (nx 24.0.6) fails with "x has a dependsOn entry using projects:
'dependencies', which is no longer supported ... Please run "nx repair"" whatever changed, an
unaffected project's test carrying the entry too; ``nx show projects --affected`` still
answers, and a legacy entry on a target outside the ``test`` task graph (``lint``) is not
read. ctxsel read ``"dependencies"`` as ``^build`` and selected tests Nx never runs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli, write_tree
from nx_plugin_oracles import run_nx

LEGACY = {"target": "build", "projects": "dependencies"}


def make(root: Path, legacy_target: str) -> Path:
    """x (``legacy_target`` carries the legacy entry), y (test, build), z (lint with ``"self"``)."""
    x_targets: dict[str, object] = {"test": {"command": "echo x"}, "lint": {"command": "echo x"}}
    x_targets[legacy_target] = {"command": "echo x", "dependsOn": [LEGACY]}
    files = {
        "nx.json": {},
        "package.json": {"name": "root", "private": True, "workspaces": ["packages/*"]},
        "packages/x/package.json": {"name": "x", "nx": {"targets": x_targets}},
        "packages/y/package.json": {"name": "y", "nx": {"targets": {"test": {"command": "echo y"},
                                                                     "build": {"command": "echo y"}}}},
        "packages/z/package.json": {"name": "z", "nx": {"targets": {"build": {"command": "echo z"}, "lint": {
            "command": "echo z", "dependsOn": [{"target": "build", "projects": "self"}]}}}},
    }
    write_tree(root, {k: json.dumps(v, indent=2) for k, v in files.items()})
    for name in "xyz":
        write_tree(root, {f"packages/{name}/src/i.ts": "x"})
    return root


def ctxsel(root: Path, command: str):
    return run_cli("--repo", str(root), "--no-cache", "-q", "--adapter", "nx", "--source", "static", command,
                   "--files", "packages/y/src/i.ts", "--format", "json")


def test_tests_exit_2_naming_the_entry(tmp_path: Path) -> None:
    """Old: exit 0 selecting y."""
    proc = ctxsel(make(tmp_path / "ws", "test"), "tests")
    assert proc.returncode == 2, proc.stdout
    assert "packages/x/package.json:" in proc.stderr and "'dependencies'" in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) <= 3


def test_projects_are_still_answered(tmp_path: Path) -> None:
    proc = ctxsel(make(tmp_path / "ws", "test"), "blast-radius")
    assert proc.returncode == 0, proc.stderr
    assert {a["id"] for a in json.loads(proc.stdout)["affected"]} == {"y"}


def test_an_entry_outside_the_test_graph_is_not_read(tmp_path: Path) -> None:
    proc = ctxsel(make(tmp_path / "ws", "lint"), "tests")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["tests"] == ["y"]


@pytest.mark.oracle
@pytest.mark.parametrize("legacy_target, fails", [("test", True), ("lint", False)])
def test_real_nx_refuses_the_same(tmp_path: Path, legacy_target: str, fails: bool) -> None:
    root = make(tmp_path / "ws", legacy_target)
    proc = run_nx(root, "affected", "-t", "test", "--files=packages/y/src/i.ts", "--explain")
    assert (proc.returncode != 0) == fails, (proc.stdout + proc.stderr)[-1500:]
    assert ("no longer supported" in proc.stdout + proc.stderr) == fails
    assert run_nx(root, "show", "projects", "--affected", "--files=packages/y/src/i.ts", "--json").returncode == 0
