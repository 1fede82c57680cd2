"""Nx 24 drops a package.json script that the project.json beside it runs differently.

Found by randomized differential testing against nx 24.0.6: with package.json ``scripts.test``
+ ``nx.targets.test.inputs: ["default"]`` and project.json ``"test": {"command": "echo test"}``
(or an explicit ``nx:run-commands``), Nx deletes the script before building the package.json
targets (``buildProjectConfigurationFromPackageJson``' sibling project.json check), so
``nx.targets.test`` has no executor and merges into the project.json target: ``nx graph`` shows
executor nx:run-commands with inputs ["default"], and a change to a file ``default`` names
selects the test. ctxsel kept the ``nx:run-script`` target, found it incompatible with the
project.json one and fell back to targetDefaults' inputs: the test was left out.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli, run_git, write_tree
from oracles import nx_affected, nx_projects, require

PROJECT_JSON_TEST = {
    "command": {"command": "echo test"},
    "explicit executor": {"executor": "nx:run-commands", "options": {"command": "echo test"}},
}
# variant -> is s's test selected when global.txt changes (Nx 24.0.6)
EXPECTED = {"command": True, "explicit executor": True}


def make_repo(root: Path, variant: str) -> Path:
    nx_json = {"namedInputs": {"default": ["{projectRoot}/**/*", "{workspaceRoot}/global.txt"]},
               "targetDefaults": {"test": {"inputs": ["{projectRoot}/src/**/*"]}}}
    write_tree(root, {
        "package.json": json.dumps({"name": "root", "private": True, "workspaces": ["libs/*"]}),
        "nx.json": json.dumps(nx_json),
        "global.txt": "g\n",
        "libs/s/package.json": json.dumps({"name": "s", "scripts": {"test": "echo t"},
                                           "nx": {"targets": {"test": {"inputs": ["default"]}}}}),
        "libs/s/project.json": json.dumps({"name": "s", "targets": {"test": PROJECT_JSON_TEST[variant]}}),
        "libs/s/src/i.ts": "export {};\n",
    })
    run_git(root, "init", "-q", "-b", "main")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", "workspace")
    (root / "global.txt").write_text("h\n")
    run_git(root, "commit", "-qam", "global.txt")
    return root


@pytest.mark.parametrize("variant", sorted(EXPECTED))
def test_a_command_target_keeps_the_script_targets_inputs(tmp_path, variant):
    root = make_repo(tmp_path / "ws", variant)
    proc = run_cli("--repo", str(root), "--source", "static", "--no-cache", "-q", "tests",
                   "--base", "HEAD~1", "--head", "HEAD", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert ("s" in json.loads(proc.stdout)["tests"]) == EXPECTED[variant]


@pytest.mark.oracle
def test_real_nx_merges_the_same_way(tmp_path):
    tool = require("nx")

    for n, variant in enumerate(sorted(EXPECTED)):
        root = make_repo(tmp_path / f"ws{n}", variant)
        out = nx_affected(tool, root, tmp_path / f"state{n}", "-t", "test").stdout
        assert ("s" in nx_projects(out)) == EXPECTED[variant], variant
