"""Two task-input shapes Nx 24's hash planner reads otherwise than ctxsel did.

Found by differential testing with generated workspaces (session 20, ``/tmp/dev20/hn/gen``),
then narrowed to one workspace per rule; every expectation was measured with
``nx affected -t test --files=...`` (nx 24.0.6):

- A test whose project filesets are all ``!`` patterns (``["!{projectRoot}/docs/**"]``,
  ``[{"fileset": "!..."}]``, ``["^default", "!..."]``, a named input of negations) reads none of
  its project's files: Nx puts them in one glob set, which matches nothing without a positive
  pattern. ctxsel read "no positive pattern" as "every file".
- ``{"input": x, "projects": P}`` always names projects by pattern: the Nx 15 spellings
  ``"self"`` and ``"dependencies"`` are patterns like any other (naming no project here),
  ``[]`` names none, a leading ``!`` starts from nothing (not from every project, as
  ``-p`` does) and a plain word does not match names containing it; with
  ``"dependencies": true`` beside ``projects`` the entry hashes nothing. ctxsel read
  ``"self"`` as the project's own files and ``"dependencies"`` as ``^x``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli, write_tree
from nx_plugin_oracles import nx_affected_tests, require_nx_plugins

NEGATIONS_ONLY = {  # project -> its test's inputs
    "n-object": [{"fileset": "!{projectRoot}/docs/**"}],
    "n-string": ["!{projectRoot}/docs/**"],
    "n-caret": ["^default", "!{projectRoot}/docs/**"],
    "n-named": ["neg"],
    "n-md": ["!{projectRoot}/**/*.md"],
    "n-workspace": ["{workspaceRoot}/x.txt", "!{projectRoot}/docs/**"],
    "positive": ["default", "!{projectRoot}/docs/**"],
}
PROJECT_INPUTS = {
    "as-self": [{"input": "production", "projects": "self"}],  # no project is named "self"
    "as-self-list": [{"input": "production", "projects": ["self"]}],
    "legacy-deps": [{"input": "production", "projects": "dependencies"}],
    "legacy-deps-list": [{"input": "production", "projects": ["dependencies"]}],
    "none": [{"input": "production", "projects": []}],
    "named-deps": [{"input": "production", "projects": ["dep"], "dependencies": True}],
    "by-name": [{"input": "production", "projects": "dep"}],
    "by-glob": [{"input": "production", "projects": ["d*"]}],
    "by-tag": [{"input": "production", "projects": ["tag:tx"]}],
    "by-dir": [{"input": "production", "projects": ["directory:packages/dep"]}],
    "all-but": [{"input": "production", "projects": ["!other"]}],
    "own": [{"input": "production"}],
}
#: (inputs, changed files) -> tests nx 24.0.6 selects
CASES = {
    "negations-own-src": (NEGATIONS_ONLY, "src/i.ts", {"positive"}),
    "negations-own-readme": (NEGATIONS_ONLY, "README.md", {"positive"}),
    "projects-own-src": (PROJECT_INPUTS, "src/i.ts", {"own"}),
    "projects-dep-src": (PROJECT_INPUTS, "dep", {"by-name", "by-glob", "by-tag", "by-dir"}),
    "projects-dependencies-src": (PROJECT_INPUTS, "dependencies", set()),
}


def make(root: Path, inputs: dict[str, list[object]]) -> Path:
    """``dep`` (tagged tx), ``other`` and ``@x/dependencies``; every project in ``inputs`` depends
    on dep and has a test with those inputs."""
    files: dict[str, object] = {
        "nx.json": {"namedInputs": {"production": ["{projectRoot}/**/*"], "neg": ["!{projectRoot}/docs/**"]}},
        "package.json": {"name": "root", "private": True, "workspaces": ["packages/*"]},
        "x.txt": "x",
        "packages/dep/package.json": {"name": "dep", "nx": {"tags": ["tx"]}},
        "packages/other/package.json": {"name": "other"},
        "packages/dependencies/package.json": {"name": "@x/dependencies"},
    }
    for name, test_inputs in inputs.items():
        files[f"packages/{name}/package.json"] = {
            "name": name, "dependencies": {"dep": "*"},
            "nx": {"targets": {"test": {"command": "echo test", "inputs": test_inputs}}}}
    for directory in [*inputs, "dep", "other", "dependencies"]:
        files[f"packages/{directory}/src/i.ts"] = "x"
        files[f"packages/{directory}/README.md"] = "x"
    return write_tree(root, {k: v if isinstance(v, str) else json.dumps(v) for k, v in files.items()})


def changed(inputs: dict[str, list[object]], change: str) -> list[str]:
    """``src/i.ts``/``README.md`` of every test project, or one project's ``src/i.ts``."""
    if "/" in change or "." in change:
        return [f"packages/{name}/{change}" for name in inputs]
    return [f"packages/{change}/src/i.ts"]


def ctxsel_tests(root: Path, files: list[str]) -> set[str]:
    proc = run_cli("--repo", str(root), "--no-cache", "-q", "--adapter", "nx", "--source", "static",
                   "tests", "--files", ",".join(files), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(proc.stdout)["tests"])


@pytest.mark.parametrize("case", sorted(CASES))
def test_tests_follow_nx_inputs(tmp_path: Path, case: str) -> None:
    inputs, change, want = CASES[case]
    assert ctxsel_tests(make(tmp_path / "ws", inputs), changed(inputs, change)) == want


@pytest.mark.oracle
@pytest.mark.parametrize("case", sorted(CASES))
def test_real_nx_selects_the_same(tmp_path: Path, case: str) -> None:
    require_nx_plugins()
    inputs, change, want = CASES[case]
    assert nx_affected_tests(make(tmp_path / "ws", inputs), changed(inputs, change)) == want
