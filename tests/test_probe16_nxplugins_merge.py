"""Nx target merging and root-manifest rules found while modelling plugins (no plugin needed).

Expected values are what nx 24.0.6 answered; ``test_real_nx_agrees`` asks it again (skips
with the reason when it is not installed).
- A package.json ``nx.targets`` test and a project.json test running *different commands*
  are incompatible (``isCompatibleTarget`` compares run-commands commands): project.json's
  replaces package.json's, inputs and all. ctxsel merged them (inputs kept).
- ``"..."`` in a project.json ``dependsOn`` spreads package.json's (Nx spreads any array);
  ctxsel spread only targetDefaults' there.
- ``--files package.json`` (no git range): the whole root manifest changed, which touches
  every npm node -- tests hashing npm packages are selected when the lockfile locks any.
  ctxsel selected nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli, write_tree
from oracles import require, run
from test_probe16_nxplugins_static import static

ROOT = {"name": "root", "workspaces": ["packages/*"]}
LOCK = {"name": "root", "lockfileVersion": 3, "requires": True, "packages": {
    "": {"name": "root"},
    "node_modules/vitest": {"version": "4.1.9", "resolved": "https://r/v.tgz", "integrity": "sha512-a", "dev": True}}}
FILES = {
    "nx.json": {"targetDefaults": {"test": {"dependsOn": ["^lint"]}}},
    "package.json": ROOT,
    "packages/a/package.json": {"name": "a", "nx": {"targets": {
        "test": {"command": "echo a", "inputs": ["{projectRoot}/src/**/*"]},
        "build": {"command": "echo x", "dependsOn": ["^build"]}}}},
    "packages/a/project.json": {"name": "a", "targets": {"test": {"command": "echo b"}, "build": {"dependsOn": ["...", "lint"]}}},
    "packages/b/package.json": {"name": "b", "scripts": {"test": "echo b"}},
}


def make(tmp_path: Path, lock: bool) -> Path:
    files = {**FILES, **({"package-lock.json": LOCK} if lock else {})}
    return write_tree(tmp_path / "ws", {k: json.dumps(v) for k, v in files.items()})


def test_a_different_command_replaces_the_manifest_target_and_spread_depends_on(tmp_path: Path) -> None:
    _, graph = static(make(tmp_path, lock=False))
    meta = graph.node("a").meta
    assert meta["inputs"].get("test") is None
    assert meta["depends_on"]["build"] == ["^build", "lint"]


def selected_by_root_manifest(root: Path) -> set[str]:
    proc = run_cli("--repo", str(root), "--no-cache", "-q", "--adapter", "nx", "--source", "static",
                   "tests", "--format", "json", "--files", "package.json")
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(proc.stdout)["tests"])


def test_a_whole_root_manifest_change_touches_the_npm_nodes(tmp_path: Path) -> None:
    assert selected_by_root_manifest(make(tmp_path, lock=True)) == {"a", "b"}
    assert selected_by_root_manifest(make(tmp_path / "nolock", lock=False)) == set()


def test_real_nx_agrees(tmp_path: Path) -> None:
    tool = require("nx")
    from ctxsel.adapters.js.nx import node_path_env

    for lock in (True, False):
        root = make(tmp_path / str(lock), lock)
        env = {"NX_WORKSPACE_DATA_DIRECTORY": str(root.parent / "wd"), "NX_WORKSPACE_ROOT_PATH": str(root),
               "NX_DAEMON": "false", **node_path_env(tool, root, None)}
        shown = json.loads(run([tool, "show", "project", "a", "--json"], cwd=root, env=env).stdout)
        assert shown["targets"]["test"].get("inputs") is None
        assert shown["targets"]["build"]["dependsOn"] == ["^build", "lint"]
        out = root.parent / "tasks.json"
        run([tool, "affected", "-t", "test", "--files=package.json", f"--graph={out}"], cwd=root, env=env)
        tasks = json.loads(out.read_text())["tasks"]["tasks"]
        assert {t["target"]["project"] for t in tasks.values()} == selected_by_root_manifest(root)
