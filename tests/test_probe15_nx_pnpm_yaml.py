"""Nx 24 reads pnpm-workspace.yaml with js-yaml's core schema, not as pnpm does.

Found by differential testing against nx 24.0.6: pnpm 12 reads a plain ``y``/``n``/``yes``/``on``
as a boolean (YAML 1.1; ctxsel's pnpm reader follows it, tests/test_probe14_js_pnpm_yaml_bool.py),
so ctxsel's Nx adapter globbed ``true``/``false``. Nx (``getGlobPatternsFromPackageManagerWorkspaces``)
reads them as the directory names ``y``/``n``/``yes``/``on``. And where Nx cannot use the file --
not YAML, a duplicate key, ``packages`` a string, an entry ``true``/``1``/empty -- it warns
"Unable to parse pnpm-workspace.yaml" and takes no project from it, where ctxsel stopped with
an error (or globbed ``true``/``1``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli, run_git, write_tree
from oracles import require, run

DIRS = ["y", "n", "yes", "on", "true", "1", "libs/l"]
# pnpm-workspace.yaml -> the projects Nx 24.0.6 found (every directory holds a package.json)
EXPECTED: dict[str, set[str]] = {
    "packages:\n  - y\n  - 'libs/*'\n": {"p-y", "p-libs-l"},
    "packages: [n, yes, on, 'libs/*']\n": {"p-n", "p-yes", "p-on", "p-libs-l"},
    "packages:\n  - true\n  - 'libs/*'\n": set(),
    "packages:\n  - 1\n  - 'libs/*'\n": set(),
    "packages:\n  -\n  - 'libs/*'\n": set(),
    "packages: 'libs/*'\n": set(),
    "packages: ['libs/*']\npackages: [y]\n": set(),
    "packages:\n  - 'libs/*\n  x: [\n": set(),
    "packages: ['1', 'libs/*']\n": {"p-1", "p-libs-l"},
}


def make_repo(root: Path, yaml: str) -> Path:
    """Every directory of DIRS is a package; HEAD~1..HEAD adds a file to each."""
    files = {"package.json": json.dumps({"name": "root", "private": True}), "nx.json": "{}", "pnpm-workspace.yaml": yaml}
    for d in DIRS:
        files[f"{d}/package.json"] = json.dumps({"name": "p-" + d.replace("/", "-"), "scripts": {"test": "echo"}})
    write_tree(root, files)
    run_git(root, "init", "-q", "-b", "main")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", "workspace")
    write_tree(root, {f"{d}/x.ts": "export {};\n" for d in DIRS})
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", "every directory")
    return root


@pytest.mark.parametrize("yaml", sorted(EXPECTED))
def test_pnpm_workspace_yaml_globs_are_read_as_nx_reads_them(tmp_path, yaml):
    root = make_repo(tmp_path / "ws", yaml)
    proc = run_cli("--repo", str(root), "--source", "static", "--no-cache", "blast-radius",
                   "--base", "HEAD~1", "--head", "HEAD", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert {a["id"] for a in json.loads(proc.stdout)["affected"]} == EXPECTED[yaml]
    # where Nx warns and drops the file, so does ctxsel
    assert ("Unable to parse pnpm-workspace.yaml" in proc.stderr) == (EXPECTED[yaml] == set())


@pytest.mark.oracle
def test_real_nx_finds_the_same_projects(tmp_path):
    tool = require("nx")
    from ctxsel.adapters.js.nx import node_path_env

    for n, yaml in enumerate(sorted(EXPECTED)):
        root = make_repo(tmp_path / f"ws{n}", yaml)
        env = {"NX_WORKSPACE_DATA_DIRECTORY": str(tmp_path / f"state{n}"), "NX_CACHE_DIRECTORY": str(tmp_path / "cache"),
               "NX_WORKSPACE_ROOT_PATH": str(root), "NX_DAEMON": "false", **node_path_env(tool, root, None)}
        out = run([tool, "show", "projects", "--json"], cwd=root, env=env).stdout
        assert set(json.loads(out[out.index("["):])) == EXPECTED[yaml], yaml
