"""nx.json ``extends`` naming a file inside an installed package that has an ``exports`` map.

Measured with nx 24.0.6 in session 26 on Shopify/cli (a0798d198d): its nx.json says
``"extends": "@nx/workspace/presets/npm.json"``, and @nx/workspace maps ``./presets/*.json`` to
``./dist/presets/*.json`` in its package.json ``exports``. With the packages installed, ``nx graph``
loads 14 projects; ctxsel static looked for ``node_modules/@nx/workspace/presets/npm.json``, did
not find it and exited 2. Nx resolves ``extends`` with node's ``require.resolve``, which maps a
package's subpaths through ``exports`` only: a path the map does not name fails even when the file
exists. The fixture: ``a`` imports ``b`` without declaring it, so a -> b exists only while Nx reads
source files, which the preset turns off.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli, write_tree
from oracles import require
from test_probe25_hn_nx_json_extends import nx_dependents_of_b

PRESET_OFF = json.dumps({"pluginsConfig": {"@nx/js": {"analyzeSourceFiles": False}}})
#: @nx/workspace's own shape: a pattern key with a custom condition node does not match first
EXPORTS = {".": "./index.js", "./package.json": "./package.json",
           "./presets/*": {"@nx/nx-source": "./presets/*.json", "default": "./dist/presets/*.json"},
           "./presets/*.json": {"@nx/nx-source": "./presets/*.json", "default": "./dist/presets/*.json"},
           "./strict": {"import": "./dist/presets/none.json", "require": "./dist/presets/npm.json"},
           "./nested": {"node": {"import": "./dist/presets/none.json"}, "default": "./dist/presets/npm.json"},
           "./blocked": {"node": None, "default": "./dist/presets/npm.json"}}
#: name -> nx.json's extends; each answer is measured with nx, never taken from ctxsel
CASES = {
    "pattern-with-json": "@acme/preset/presets/npm.json",
    "pattern-without-json": "@acme/preset/presets/npm",
    "require-condition": "@acme/preset/strict",
    "file-exists-but-not-exported": "@acme/preset/dist/presets/npm.json",
    "not-in-the-map": "@acme/preset/presets/other.json",
    "nested-condition-matching-nothing": "@acme/preset/nested",
    "null-condition": "@acme/preset/blocked",
}


def make(root: Path, extends: str) -> Path:
    texts = {
        "package.json": json.dumps({"name": "root", "private": True, "workspaces": ["packages/*"],
                                    "devDependencies": {"@nx/js": "24.0.6", "nx": "24.0.6"}}),
        "nx.json": json.dumps({"extends": extends}),
        "packages/a/package.json": json.dumps({"name": "a", "version": "1.0.0", "main": "src/index.ts"}),
        "packages/a/src/index.ts": "import { x } from 'b';\n",
        "packages/b/package.json": json.dumps({"name": "b", "version": "1.0.0", "main": "index.js"}),
        "packages/b/index.js": "export const x = 1;\n",
        "node_modules/@acme/preset/package.json": json.dumps({"name": "@acme/preset", "version": "1.0.0",
                                                               "exports": EXPORTS}),
        "node_modules/@acme/preset/dist/presets/npm.json": PRESET_OFF,
        "node_modules/@acme/preset/dist/presets/none.json": "{}",
    }
    return write_tree(root, texts)


@pytest.mark.parametrize("case", sorted(CASES))
def test_extends_through_package_exports_like_nx(case: str, tmp_path: Path) -> None:
    tool = require("nx")
    root = make(tmp_path / "ws", CASES[case])
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
