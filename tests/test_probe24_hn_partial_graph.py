"""``--source tool`` refuses the partial graph nx prints when two plugins fail.

Measured with nx 24.0.6 and the official plugins (``.ci/oracles-nx-plugins.sh``) in session
24, first on ngworker/lumberjack offline (``@nx/eslint/plugin`` could not import
``@nx/eslint-plugin``, ``@nx/cypress/plugin`` could not load two cypress.config.ts): ``nx graph
--file`` exits 0 and writes a partial graph after "2 errors occurred while processing the
project graph. Showing partial graph.", while ``nx show projects --affected`` and ``nx affected
-t test`` exit 1 ("Failed to process project graph"). ctxsel looked only for the singular "An
error occurred while processing the project graph", so with two failing plugins it answered
from the partial graph (here ``a``) where nx answers nothing.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import run_git, write_tree
from nx_plugin_oracles import plugin_env, require_nx_plugins, run_nx

MISSING = "no-such-package-xyz"


def make(root: Path) -> Path:
    files = {
        "package.json": {"name": "root", "private": True, "workspaces": ["packages/*"]},
        "nx.json": {"plugins": ["@nx/eslint/plugin", "@nx/jest/plugin"]},
        "packages/a/package.json": {"name": "a", "private": True, "scripts": {"test": "t"}},
        # each config imports a package nobody installed: each plugin fails on its file
        "eslint.config.mjs": f"import x from '{MISSING}';\nexport default [];\n",
        "packages/a/jest.config.js": f"require('{MISSING}');\nmodule.exports = {{}};\n",
    }
    write_tree(root, {k: v if isinstance(v, str) else json.dumps(v) for k, v in files.items()})
    run_git(root, "init", "-q")
    run_git(root, "add", "-A")
    run_git(root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init")
    return root


def test_two_failing_plugins_refused_in_tool_mode(tmp_path: Path) -> None:
    require_nx_plugins()
    root = make(tmp_path / "ws")
    graph = run_nx(root, "graph", f"--file={tmp_path / 'graph.json'}")
    affected = run_nx(root, "show", "projects", "--affected", "--files=packages/a/package.json", "--json")
    # the measurement: a partial graph with exit 0, and the affected query fails
    assert graph.returncode == 0 and "2 errors occurred while processing the project graph" in graph.stdout + graph.stderr
    assert affected.returncode != 0 and "Failed to process project graph" in affected.stdout + affected.stderr
    mine = subprocess.run(
        [sys.executable, "-m", "ctxsel", "--repo", str(root), "--no-cache", "-q", "--adapter", "nx", "--source", "tool",
         "blast-radius", "--files", "packages/a/package.json", "--format", "json"],
        env=plugin_env(root, tmp_path / "state"), capture_output=True, text=True, timeout=300)
    assert mine.returncode == 2, mine.stdout
    assert "nx graph failed" in mine.stderr and MISSING in mine.stderr and "Traceback" not in mine.stderr
    assert len(mine.stderr.strip().splitlines()) <= 3
