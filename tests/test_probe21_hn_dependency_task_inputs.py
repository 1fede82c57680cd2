"""Inputs Nx cannot read on a task *below* a test (``dependsOn``), not on the test itself.

Found with generated workspaces (session 21, ``/tmp/dev21/hn/gen``, seed 474): a test
``dependsOn: ["build"]``, and targetDefaults give ``build`` the inputs ``["production"]``, a
named input neither nx.json nor the project defines. ``nx affected -t test`` (nx 24.0.6)
plans every task of the test task graph before it selects any, and fails with '"production"
is an invalid fileset' whatever changed. ctxsel only read the test tasks' own inputs and
answered. When no test reaches that ``build``, Nx answers, and so does ctxsel.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli, write_tree
from nx_plugin_oracles import run_nx


def make(root: Path, test_depends_on_build: bool) -> Path:
    test: dict[str, object] = {"command": "echo a"}
    if test_depends_on_build:
        test["dependsOn"] = ["build"]
    files = {
        "nx.json": {"targetDefaults": {"build": {"inputs": ["production"]}}},
        "package.json": {"name": "root", "private": True, "workspaces": ["packages/*"]},
        "packages/a/package.json": {"name": "a", "nx": {"targets": {"test": test, "build": {"command": "echo a"}}}},
        "packages/b/package.json": {"name": "b", "nx": {"targets": {"test": {"command": "echo b"}}}},
    }
    write_tree(root, {k: json.dumps(v, indent=2) for k, v in files.items()})
    return write_tree(root, {"packages/a/src/i.ts": "x", "packages/b/src/i.ts": "x"})


def ctxsel_tests(root: Path):
    return run_cli("--repo", str(root), "--no-cache", "-q", "--adapter", "nx", "--source", "static",
                   "tests", "--files", "packages/b/src/i.ts", "--format", "json")


def test_exit_2_when_a_task_below_a_test_has_unreadable_inputs(tmp_path: Path) -> None:
    """Old: exit 0 selecting b."""
    proc = ctxsel_tests(make(tmp_path / "ws", True))
    assert proc.returncode == 2, proc.stdout
    assert "nx.json:" in proc.stderr and "a:build" in proc.stderr and '"production"' in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) <= 3


def test_a_task_no_test_reaches_is_not_planned(tmp_path: Path) -> None:
    proc = ctxsel_tests(make(tmp_path / "ws", False))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["tests"] == ["b"]


@pytest.mark.oracle
@pytest.mark.parametrize("depends_on_build", [True, False])
def test_real_nx_refuses_the_same(tmp_path: Path, depends_on_build: bool) -> None:
    root = make(tmp_path / "ws", depends_on_build)
    proc = run_nx(root, "affected", "-t", "test", "--files=packages/b/src/i.ts", "--explain")
    assert ("invalid fileset" in proc.stdout + proc.stderr) == depends_on_build, (proc.stdout + proc.stderr)[-1500:]
    assert (ctxsel_tests(root).returncode == 2) == depends_on_build
