"""nx.json ``extends``: Nx merges nx.json over the file it names before reading anything else.

Measured with nx 24.0.6 in session 25 on salesforce/lwc (0f3a6d0f25): its nx.json says
``"extends": "nx/presets/npm.json"``, the preset that sets ``pluginsConfig["@nx/js"]
.analyzeSourceFiles: false``, so ``nx graph`` has no import edges there; ctxsel static ignored
``extends``, added 17 import edges and got 7 of 27 dependents sets right. Nx's ``readNxJson``
resolves ``extends`` with ``require.resolve`` from the workspace root and spreads the base under
nx.json (shallow: nx.json's own ``pluginsConfig`` replaces the base's whole). The fixture: ``a``
imports ``b`` without declaring it, so the edge a -> b exists only while source files are read.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli, write_tree
from oracles import require, run

from ctxsel.adapters.js.nx import node_path_env

BASE_OFF = {"pluginsConfig": {"@nx/js": {"analyzeSourceFiles": False}}}
#: name -> (nx.json, extra files); each is measured against nx, never against ctxsel
CASES: dict[str, tuple[dict, dict[str, str]]] = {
    "preset": ({"extends": "nx/presets/npm.json"}, {}),
    "preset-without-json": ({"extends": "nx/presets/npm"}, {}),
    "core-preset": ({"extends": "nx/presets/core.json"}, {}),
    "local-file": ({"extends": "./base"}, {"base.json": json.dumps(BASE_OFF)}),
    "own-plugins-config-wins": ({"extends": "nx/presets/npm.json", "pluginsConfig": {"@nx/js": {}}}, {}),
    "base-extends-not-followed": ({"extends": "./mid.json"}, {"mid.json": json.dumps({"extends": "./base.json"}),
                                                               "base.json": json.dumps(BASE_OFF)}),
    "empty-string": ({"extends": ""}, {}),
    "missing-file": ({"extends": "./missing.json"}, {}),
    "bare-name-of-a-file": ({"extends": "base.json"}, {"base.json": json.dumps(BASE_OFF)}),
    "not-a-string": ({"extends": 5}, {}),
}


def make(root: Path, nx_json: dict, extra: dict[str, str]) -> Path:
    files = {"package.json": {"name": "root", "private": True, "workspaces": ["packages/*"],
                              "devDependencies": {"@nx/js": "24.0.6", "nx": "24.0.6"}},
             "nx.json": nx_json,
             "packages/a/package.json": {"name": "a", "version": "1.0.0", "main": "src/index.ts"},
             "packages/b/package.json": {"name": "b", "version": "1.0.0", "main": "index.js"}}
    texts = {k: json.dumps(v) for k, v in files.items()}
    texts.update({"packages/a/src/index.ts": "import { x } from 'b';\n", "packages/b/index.js": "export const x = 1;\n", **extra})
    return write_tree(root, texts)


def nx_dependents_of_b(tool: str, root: Path, state: Path) -> list[str] | None:
    """What ``nx graph`` says depends on b, or None when nx fails on the workspace."""
    env = {"NX_WORKSPACE_DATA_DIRECTORY": str(state / "wd"), "NX_CACHE_DIRECTORY": str(state / "cache"),
           "NX_WORKSPACE_ROOT_PATH": str(root), "NX_DAEMON": "false", **node_path_env(tool, root, None)}
    out = state / "graph.json"
    proc = run([tool, "graph", f"--file={out}"], root, env=env, check=False)
    if proc.returncode != 0:
        return None
    deps = json.loads(out.read_text())["graph"]["dependencies"]
    return sorted(src for src, edges in deps.items() if any(e["target"] == "b" for e in edges))


@pytest.mark.parametrize("case", sorted(CASES))
def test_nx_json_extends_like_nx(case: str, tmp_path: Path) -> None:
    tool = require("nx")
    nx_json, extra = CASES[case]
    root = make(tmp_path / "ws", nx_json, extra)
    want = nx_dependents_of_b(tool, root, tmp_path / "state")
    mine = run_cli("--repo", str(root), "--no-cache", "-q", "--adapter", "nx", "--source", "static",
                   "blast-radius", "b", "--format", "json")
    if want is None:  # nx refuses the workspace: ctxsel names nx.json in one to three lines
        assert mine.returncode == 2, mine.stdout + mine.stderr
        assert "nx.json:" in mine.stderr and "extends" in mine.stderr and len(mine.stderr.strip().splitlines()) <= 3
        assert "Traceback" not in mine.stderr
        return
    assert mine.returncode == 0, mine.stderr
    assert sorted(a["id"] for a in json.loads(mine.stdout)["affected"] if a["id"] != "b") == want
