"""A task with a ``^`` input hashes the npm packages of its project and the projects below it, pins or not.

Found by differential testing (session 18's ``gen4.py``, seeds 240 and 252 of session 19): the root
package.json changed left-pad's range; ``nx affected -t test --explain`` (nx 24.0.6) selected tests
pinning ``externalDependencies: ["jest"]``/``["vitest"]`` with "depends on npm:left-pad, whose version
changes": their inputs had a ``^`` entry, and Nx's hash planner adds each external node a dependency
input meets in the project graph -- the project's own npm dependencies and those of every project
below it. ctxsel counted only the pinned packages for a pinning task, and left them out.

Fixture: ``p0`` uses left-pad; ``p1 -> p0`` tests with ``^default`` and pins vitest; ``p2 -> p0`` pins
vitest without a ``^`` input; ``p3`` (no dependencies) has ``^default`` and pins vitest.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import run_git, write_tree
from nx_plugin_oracles import require_nx_plugins, run_nx
from test_probe16_nxplugins_static import pkg
from test_probe18_hn_root_manifest_npm import LOCK, ROOT, ctxsel

PIN = {"externalDependencies": ["vitest"]}
FILES: dict[str, Any] = {
    "package.json": ROOT, "package-lock.json": LOCK, "nx.json": {},
    "packages/p0/package.json": {**pkg("p0"), "dependencies": {"left-pad": "^1.0.0"}},
    "packages/p1/package.json": {**pkg("p1", "p0", scripts={"test": "x"}),
                                 "nx": {"targets": {"test": {"inputs": ["default", "^default", PIN]}}}},
    "packages/p2/package.json": {**pkg("p2", "p0", scripts={"test": "x"}),
                                 "nx": {"targets": {"test": {"inputs": ["default", PIN]}}}},
    "packages/p3/package.json": {**pkg("p3", scripts={"test": "x"}),
                                 "nx": {"targets": {"test": {"inputs": ["default", "^default", PIN]}}}},
}
TESTS = {"p1"}  # measured: nx affected -t test --base=HEAD~1 --head=HEAD


def make(root: Path) -> Path:
    write_tree(root, {k: json.dumps(v, indent=2) for k, v in FILES.items()})
    run_git(root, "init", "-q", "-b", "main")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", "workspace")
    write_tree(root, {"package.json": json.dumps({**ROOT, "dependencies": {"left-pad": "^1.1.0"}}, indent=2)})
    run_git(root, "commit", "-qam", "left-pad range")
    return root


def test_a_dependency_input_hashes_the_dependencies_npm_packages(tmp_path: Path) -> None:
    """Old: no test (each pins vitest, which did not move)."""
    assert ctxsel(make(tmp_path / "ws"), "tests") == TESTS


@pytest.mark.oracle
def test_real_nx_gives_the_same_answer(tmp_path: Path) -> None:
    require_nx_plugins()
    root = make(tmp_path / "ws")
    out = tmp_path / "tasks.json"
    proc = run_nx(root, "affected", "-t", "test", "--base=HEAD~1", "--head=HEAD", f"--graph={out}")
    assert proc.returncode == 0 and out.is_file(), (proc.stdout + proc.stderr)[-1500:]
    assert {t["target"]["project"] for t in json.loads(out.read_text())["tasks"]["tasks"].values()} == TESTS
