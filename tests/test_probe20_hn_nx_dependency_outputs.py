"""A ``dependentTasksOutputFiles`` input reads only dependency tasks that have outputs.

Found by differential testing with generated workspaces (session 20, ``/tmp/dev20/hn/gen``, seed
232). Nx caches a task's outputs from its ``outputs`` (an entry whose ``{options.x}`` no option
fills is dropped), else ``options.outputPath``, else the default folders of a ``build`` or
``prepare`` target, else none (``getOutputsForTargetAndConfiguration``). Measured with ``nx
affected -t test --files=<dep>/src/i.ts`` (nx 24.0.6): a test that ``dependsOn: ["^build"]``
and reads ``{"dependentTasksOutputFiles": "**/*"}`` is selected through a build with outputs
(declared, or the build defaults, whatever the glob), and not through a ``^test`` or ``^lint``
task without outputs. ctxsel carried a change through every task below.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli, write_tree
from nx_plugin_oracles import nx_affected_tests, require_nx_plugins

from ctxsel.adapters.js.nx_workspace import has_outputs

DEPS = {  # dependency project -> (its package.json fields, the target the reader dependsOn)
    "declared": ({"nx": {"targets": {"build": {"command": "echo", "outputs": ["{projectRoot}/dist"]}}}}, "build"),
    "build-default": ({"nx": {"targets": {"build": {"command": "echo"}}}}, "build"),
    "script-build": ({"scripts": {"build": "tsc"}}, "build"),
    "unfilled-option": ({"nx": {"targets": {"pack": {"command": "echo", "outputs": ["{options.outputPath}"]}}}}, "pack"),
    "output-path": ({"nx": {"targets": {"pack": {"command": "echo", "options": {"outputPath": "out"}}}}}, "pack"),
    "test-script": ({"scripts": {"test": "vitest"}}, "test"),
    "lint-command": ({"nx": {"targets": {"lint": {"command": "echo"}}}}, "lint"),
}
#: the readers nx 24.0.6 selects when the dependency's src/i.ts changes
SELECTED = {"declared": True, "build-default": True, "script-build": True, "unfilled-option": False,
            "output-path": True, "test-script": False, "lint-command": False}


def make(root: Path) -> Path:
    files: dict[str, object] = {
        "nx.json": {},
        "package.json": {"name": "root", "private": True, "workspaces": ["packages/*"]},
    }
    for dep, (fields, target) in DEPS.items():
        files[f"packages/{dep}/package.json"] = {"name": dep, **fields}
        files[f"packages/reads-{dep}/package.json"] = {
            "name": f"reads-{dep}", "dependencies": {dep: "*"},
            "nx": {"targets": {"test": {"command": "echo", "dependsOn": [f"^{target}"],
                                        "inputs": [{"dependentTasksOutputFiles": "**/*"}]}}}}
    write_tree(root, {k: json.dumps(v) for k, v in files.items()})
    return write_tree(root, {f"packages/{d}/src/i.ts": "x" for d in [*DEPS, *(f"reads-{d}" for d in DEPS)]})


def expected(dep: str) -> set[str]:
    own_test = {dep} if "test" in json.dumps(DEPS[dep][0].get("scripts", {})) else set()
    return own_test | ({f"reads-{dep}"} if SELECTED[dep] else set())


@pytest.mark.parametrize("dep", sorted(DEPS))
def test_reader_is_selected_only_through_outputs(tmp_path: Path, dep: str) -> None:
    proc = run_cli("--repo", str(make(tmp_path / "ws")), "--no-cache", "-q", "--adapter", "nx", "--source", "static",
                   "tests", "--files", f"packages/{dep}/src/i.ts", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert set(json.loads(proc.stdout)["tests"]) == expected(dep)


def test_has_outputs() -> None:
    assert has_outputs("build", {}) and has_outputs("prepare", {}) and not has_outputs("test", {})
    assert not has_outputs("build", {"outputs": []})  # an empty list is the outputs
    assert has_outputs("pack", {"outputs": ["{options.out}/x"], "options": {"out": "d"}})
    assert not has_outputs("pack", {"outputs": ["{options.out}/x"]})


@pytest.mark.oracle
@pytest.mark.parametrize("dep", sorted(DEPS))
def test_real_nx_selects_the_same(tmp_path: Path, dep: str) -> None:
    require_nx_plugins()
    assert nx_affected_tests(make(tmp_path / "ws"), [f"packages/{dep}/src/i.ts"]) == expected(dep)
