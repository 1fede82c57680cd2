"""nx.json ``extends`` is found where node finds it: parent folders' node_modules and NODE_PATH.

Nx 24 resolves ``extends`` with ``require.resolve(spec, {paths: [<root>/.nx/installation,
<root>]})``, so a bare name is searched in the root's ``node_modules``, then in every parent
folder's, then in ``NODE_PATH`` (nx 24.0.6, measured: each is found and merged). ctxsel looked
in the root's ``node_modules`` alone and stopped with "extends: cannot find module" (exit 2)
on workspaces nx reads. The base here turns off source analysis (as ``nx/presets/npm.json``
does), so a -> b (an import only) exists exactly when the base was read.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import write_tree
from oracles import oracle_env, require
from test_probe25_hn_nx_json_extends import BASE_OFF, make

from ctxsel.adapters.js.nx import node_path_env

BASE_ON: dict = {"pluginsConfig": {"@nx/js": {"analyzeSourceFiles": True}}}


def package(folder: Path, files: dict[str, object], manifest: dict | None = None) -> None:
    """A package ``shared-nx`` in ``folder`` (a node_modules or NODE_PATH folder)."""
    texts = {"shared-nx/package.json": json.dumps({"name": "shared-nx", "version": "1.0.0", **(manifest or {})})}
    texts.update({f"shared-nx/{k}": json.dumps(v) for k, v in files.items()})
    write_tree(folder, texts)


def build(tmp_path: Path, case: str) -> tuple[Path, str | None]:
    """(workspace root, NODE_PATH to run both tools with) for ``case``."""
    parent = tmp_path / "parent"
    root = make(parent / "ws", {"extends": "shared-nx/base.json"}, {})
    node_path = None
    if case == "parent-node-modules":
        package(parent / "node_modules", {"base.json": BASE_OFF})
    elif case == "grandparent-exports-map":
        package(tmp_path / "node_modules", {"dist/base.json": BASE_OFF}, {"exports": {"./base.json": "./dist/base.json"}})
    elif case == "root-shadows-parent":
        package(parent / "node_modules", {"base.json": BASE_OFF})
        package(root / "node_modules", {"base.json": BASE_ON})
    elif case == "node-path":
        package(tmp_path / "global", {"base.json": BASE_OFF})
        node_path = str(tmp_path / "global")
    return root, node_path


def environment(node_path: str | None) -> dict[str, str]:
    env = oracle_env()
    env.pop("NODE_PATH", None)
    if node_path:
        env["NODE_PATH"] = node_path
    return env


def nx_dependents_of_b(tool: str, root: Path, state: Path, node_path: str | None) -> list[str] | None:
    env = {**environment(node_path), "NX_WORKSPACE_DATA_DIRECTORY": str(state / "wd"), "NX_DAEMON": "false",
           "NX_CACHE_DIRECTORY": str(state / "cache"), "NX_WORKSPACE_ROOT_PATH": str(root)}
    env.update(node_path_env(tool, root, node_path))
    out = state / "graph.json"
    proc = subprocess.run([tool, "graph", f"--file={out}"], cwd=root, env=env, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        return None
    deps = json.loads(out.read_text())["graph"]["dependencies"]
    return sorted(src for src, edges in deps.items() if any(e["target"] == "b" for e in edges))


def ctxsel_dependents_of_b(root: Path, node_path: str | None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ctxsel", "--repo", str(root), "--no-cache", "-q", "--adapter", "nx",
                           "--source", "static", "blast-radius", "b", "--format", "json"],
                          env=environment(node_path), capture_output=True, text=True, timeout=300)


CASES = ["parent-node-modules", "grandparent-exports-map", "root-shadows-parent", "node-path"]


@pytest.mark.parametrize("case", CASES)
def test_extends_resolves_as_node_does(case: str, tmp_path: Path) -> None:
    tool = require("nx")
    root, node_path = build(tmp_path, case)
    want = nx_dependents_of_b(tool, root, tmp_path / "state", node_path)
    assert want is not None, "nx reads every case"
    mine = ctxsel_dependents_of_b(root, node_path)
    assert mine.returncode == 0, mine.stderr
    assert sorted(a["id"] for a in json.loads(mine.stdout)["affected"] if a["id"] != "b") == want
    assert want == (["a"] if case == "root-shadows-parent" else []), want


def test_without_node_path_the_base_is_missing(tmp_path: Path) -> None:
    """The NODE_PATH case read without NODE_PATH: nx fails ("Cannot find module"), ctxsel says so."""
    root, _ = build(tmp_path, "node-path")
    mine = ctxsel_dependents_of_b(root, None)
    assert mine.returncode == 2 and "nx.json:1:" in mine.stderr and "cannot find module" in mine.stderr
    if os.environ.get("NODE_PATH") is None and (tool := require("nx")):
        assert nx_dependents_of_b(tool, root, tmp_path / "state", None) is None


def test_a_warm_cache_read_with_another_node_path_is_not_reused(tmp_path: Path) -> None:
    """The graph depends on NODE_PATH, which no file stamp shows: a cache filled with it must not
    answer a run without it (it did: exit 0 warm, exit 2 with --no-cache)."""
    root, node_path = build(tmp_path, "node-path")
    argv = [sys.executable, "-m", "ctxsel", "--repo", str(root), "-q", "--adapter", "nx", "--source", "static",
            "blast-radius", "b", "--format", "json"]
    filled = subprocess.run(argv, env=environment(node_path), capture_output=True, text=True, timeout=300)
    assert filled.returncode == 0, filled.stderr
    warm = subprocess.run(argv, env=environment(None), capture_output=True, text=True, timeout=300)
    cold = ctxsel_dependents_of_b(root, None)
    assert (warm.returncode, warm.stdout) == (cold.returncode, cold.stdout) and warm.returncode == 2
