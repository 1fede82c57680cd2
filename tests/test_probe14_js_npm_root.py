"""npm 11: the root package's dependency on a workspace's name always resolves to that workspace.

Found by random differential testing: the root declared ``"a": "file:./packages/b"`` and
npm linked it to the workspace named ``a``; with a 1.0.0 workspace ``a``, a root
dependency ``^5.0.0``, ``latest``, ``file:./other`` (another folder holding an ``a``) or
``npm:zz@^1`` installs offline as the link ``node_modules/a -> p/a`` (npm 11.19.1), because
npm links every workspace at ``node_modules/<name>`` and the root's edge resolves there.
ctxsel linked the root only when the spec was satisfied (or a path into the workspace).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from jsfixtures import open_ws
from oracles import run

pytestmark = pytest.mark.oracle

NPM_OFFLINE = ["--offline", "--ignore-scripts", "--no-audit", "--no-fund"]
SPECS = ["^5.0.0", "latest", "file:./other", "./other", "npm:zz@^1.0.0", "^1.0.0"]


@pytest.mark.parametrize("spec", SPECS)
def test_the_root_dependency_on_a_workspace_name_links_whatever_the_spec(tmp_path: Path, spec: str) -> None:
    root = tmp_path / "ws"
    (root / "p/a").mkdir(parents=True)
    (root / "other").mkdir()
    (root / "package.json").write_text(json.dumps({"name": "root", "version": "0.0.0", "workspaces": ["p/*"], "dependencies": {"a": spec}}))
    (root / "p/a/package.json").write_text(json.dumps({"name": "a", "version": "1.0.0"}))
    (root / "other/package.json").write_text(json.dumps({"name": "a", "version": "1.0.0"}))
    ws = open_ws(root, "npm")
    assert ws.graph.dependencies("root") == ["a"]
    if shutil.which("npm"):
        run(["npm", "install", *NPM_OFFLINE], root, timeout=120)
        assert os.path.realpath(root / "node_modules/a") == os.path.realpath(root / "p/a")
        query = json.loads(run(["npm", "query", ":root", "--json"], root).stdout)
        assert "node_modules/a" in query[0]["to"]
