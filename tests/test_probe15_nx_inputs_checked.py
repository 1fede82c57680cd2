"""Nx 24 reads the inputs of every ``test`` task before it selects any.

Found by randomized differential testing against nx 24.0.6 (``nx show projects --affected -t
test``): an input Nx cannot read fails the command whatever changed --

- ``^production`` when a dependency of a test's project has no ``production`` named input
  (and nx.json none): "Input 'production' is not defined", also when the change is in the
  reading project's own files, which decided ctxsel's answer before it looked at ``^`` inputs;
- ``"production"`` as a test's own input, undefined ("is an invalid fileset"), also when a
  deleted project makes every test selected, where ctxsel returned every test unread.

ctxsel answered both; now both are exit code 2 naming the file, as before for other changes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli, run_git, write_tree
from oracles import nx_affected, require


def project(name: str, inputs: list[str] | None = None, implicit: list[str] | None = None) -> str:
    test: dict = {"command": "echo test"}
    if inputs is not None:
        test["inputs"] = inputs
    body: dict = {"name": name, "targets": {"test": test}}
    if implicit:
        body["implicitDependencies"] = implicit
    return json.dumps(body, indent=2)


CASES: dict[str, tuple[dict[str, str], dict[str, str | None], str]] = {
    # b's test reads ^production of a, which no one defines; only b's own file changes
    "caret input undefined for a dependency": (
        {"nx.json": json.dumps({"targetDefaults": {"test": {"inputs": ["default", "^production"]}}}),
         "libs/a/project.json": project("a"), "libs/a/src/i.ts": "export {};\n",
         "libs/b/project.json": project("b", implicit=["a"]), "libs/b/src/i.ts": "export {};\n"},
        {"libs/b/src/i.ts": "export const b = 1;\n"},
        "nx.json",
    ),
    # a's test reads an undefined "production"; project c is deleted (every test selected)
    "own input undefined, a project deleted": (
        {"nx.json": "{}",
         "libs/a/project.json": project("a", ["production"]), "libs/a/src/i.ts": "export {};\n",
         "libs/b/project.json": project("b"), "libs/b/src/i.ts": "export {};\n",
         "libs/c/project.json": project("c"), "libs/c/src/i.ts": "export {};\n"},
        {"libs/c/project.json": None, "libs/c/src/i.ts": None},
        "libs/a/project.json",
    ),
}


def make_repo(root: Path, case: str) -> Path:
    before, after, _ = CASES[case]
    write_tree(root, {"package.json": json.dumps({"name": "root", "private": True}), **before})
    run_git(root, "init", "-q", "-b", "main")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", "workspace")
    for rel, body in after.items():
        if body is None:
            (root / rel).unlink()
        else:
            (root / rel).write_text(body)
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", case)
    return root


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_unreadable_test_input_is_an_error_whatever_changed(tmp_path, case):
    root = make_repo(tmp_path / "ws", case)
    proc = run_cli("--repo", str(root), "--source", "static", "--no-cache", "tests", "--base", "HEAD~1", "--head", "HEAD")
    assert proc.returncode == 2, proc.stdout
    assert "production" in proc.stderr and CASES[case][2] in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) <= 3
    # the blast radius does not hash tasks: Nx answers it, and so does ctxsel
    radius = run_cli("--repo", str(root), "--source", "static", "--no-cache", "-q", "blast-radius",
                     "--base", "HEAD~1", "--head", "HEAD")
    assert radius.returncode == 0, radius.stderr


@pytest.mark.oracle
def test_real_nx_fails_on_the_same_inputs(tmp_path):
    tool = require("nx")

    for n, case in enumerate(sorted(CASES)):
        root = make_repo(tmp_path / f"ws{n}", case)
        assert nx_affected(tool, root, tmp_path / f"state{n}").returncode == 0
        proc = nx_affected(tool, root, tmp_path / f"state{n}", "-t", "test", check=False)
        assert proc.returncode != 0 and "production" in proc.stdout + proc.stderr, case
