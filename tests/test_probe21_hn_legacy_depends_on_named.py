"""A legacy ``dependsOn`` entry (``{"projects": "dependencies"|"self"}``) under ``ctxsel tests X``.

Session 20 made a change's selection (``--files``/``--base``/...) exit 2 as ``nx affected -t
test`` fails; the named form kept printing ``nx run-many -t test -p ...``, which Nx 24 refuses
when one of those tests' task graph holds such an entry. Measured with nx 24.0.6: ``nx run-many
-t test -p y`` runs although x's test carries one; ``-p x`` fails, and so does ``-p w``, whose
``^build`` reaches v's build carrying ``"projects": "self"``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli, write_tree
from nx_plugin_oracles import run_nx


def make(root: Path) -> Path:
    """x: test with the legacy entry; y: clean; w: test ^build over v, whose build has ``"self"``."""
    files = {
        "nx.json": {},
        "package.json": {"name": "root", "private": True, "workspaces": ["packages/*"]},
        "packages/x/package.json": {"name": "x", "nx": {"targets": {
            "test": {"command": "echo x", "dependsOn": [{"target": "build", "projects": "dependencies"}]},
            "build": {"command": "echo x"}}}},
        "packages/y/package.json": {"name": "y", "nx": {"targets": {"test": {"command": "echo y"},
                                                                     "build": {"command": "echo y"}}}},
        "packages/w/package.json": {"name": "w", "dependencies": {"v": "*"},
                                    "nx": {"targets": {"test": {"command": "echo w", "dependsOn": ["^build"]}}}},
        "packages/v/package.json": {"name": "v", "nx": {"targets": {"build": {
            "command": "echo v", "dependsOn": [{"target": "build", "projects": "self"}]}}}},
    }
    write_tree(root, {k: json.dumps(v, indent=2) for k, v in files.items()})
    for name in "xywv":
        write_tree(root, {f"packages/{name}/src/i.ts": "x"})
    return root


def ctxsel_tests(root: Path, project: str):
    return run_cli("--repo", str(root), "--no-cache", "-q", "--adapter", "nx", "--source", "static",
                   "tests", project, "--format", "json")


@pytest.mark.parametrize("project, refused, where", [
    ("y", False, ""),
    ("x", True, "packages/x/package.json:"),  # old: exit 0, nx run-many -t test -p x
    ("v", True, "packages/v/package.json:"),  # old: exit 0 with w (v's dependent) selected
])
def test_named_tests_exit_2_as_run_many_fails(tmp_path: Path, project: str, refused: bool, where: str) -> None:
    proc = ctxsel_tests(make(tmp_path / "ws"), project)
    if not refused:
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout)["tests"] == [project]
        return
    assert proc.returncode == 2, proc.stdout
    assert where in proc.stderr and "no longer takes" in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) <= 3


@pytest.mark.oracle
@pytest.mark.parametrize("project, tests", [("y", "y"), ("x", "x"), ("v", "w")])
def test_real_nx_run_many_agrees(tmp_path: Path, project: str, tests: str) -> None:
    """ctxsel exits 2 exactly when ``nx run-many -t test -p <its tests>`` refuses to build the task graph."""
    root = make(tmp_path / "ws")
    proc = run_nx(root, "run-many", "-t", "test", "-p", tests, f"--graph={tmp_path / 'g.json'}")
    refused = "no longer supported" in proc.stdout + proc.stderr
    assert refused == (proc.returncode != 0), (proc.stdout + proc.stderr)[-1500:]
    assert refused == (ctxsel_tests(root, project).returncode == 2)
