"""Nx 24 refuses a target ``inputs`` entry that is no input shape its native code knows.

Found by differential testing against nx 24.0.6: ``{"externalDependencies": null}`` (or a
string instead of a list, ``{"foo": 1}``, ``{}``, ``1``, ``null``) among a test's inputs makes
every ``nx show projects --affected`` fail ("Value is non of these types `InputsInput`,
`String`, `FileSetInput`, ..."), whatever changed. ctxsel answered; now it is exit code 2
naming the file. Unknown keys beside a known one are fine (``{"input": "default", "foo": 1}``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli, run_git, write_tree
from ctxsel.adapters.js.nx_workspace import input_entry_valid
from oracles import nx_affected, require

# inputs entry of a's test -> does Nx 24.0.6 take it (measured)
ENTRIES: list[tuple[Any, bool]] = [
    ({"externalDependencies": None}, False), ({"externalDependencies": "left-pad"}, False), ({"foo": "bar"}, False),
    ({"fileset": 1}, False), ({}, False), (1, False), (None, False), ({"input": "default", "foo": 1}, True),
]


def make_repo(root: Path, entry: Any) -> Path:
    """a's test reads ``entry``; HEAD~1..HEAD changes b only."""
    a = {"name": "a", "scripts": {"test": "echo"}, "nx": {"targets": {"test": {"inputs": ["{projectRoot}/**/*", entry]}}}}
    write_tree(root, {"package.json": json.dumps({"name": "root", "private": True, "workspaces": ["packages/*"]}),
                      "nx.json": "{}", "packages/a/package.json": json.dumps(a, indent=2),
                      "packages/b/package.json": json.dumps({"name": "b", "scripts": {"test": "echo"}})})
    run_git(root, "init", "-q", "-b", "main")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", "workspace")
    write_tree(root, {"packages/b/x.ts": "export {};\n"})
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", "b")
    return root


@pytest.mark.parametrize("entry,taken", ENTRIES, ids=[json.dumps(e) for e, _ in ENTRIES])
def test_an_input_nx_does_not_take_is_an_error(tmp_path, entry, taken):
    root = make_repo(tmp_path / "ws", entry)
    for command in ("blast-radius", "tests"):
        proc = run_cli("--repo", str(root), "--source", "static", "--no-cache", "-q", command, "--base", "HEAD~1", "--head", "HEAD")
        if taken:
            assert proc.returncode == 0 and proc.stdout.split()[:1] == ["b"], proc.stderr
        else:
            assert proc.returncode == 2, proc.stdout
            assert "packages/a/package.json" in proc.stderr and "Traceback" not in proc.stderr


def test_the_input_shapes_nx_takes():
    assert input_entry_valid({"input": "production", "projects": ["a"], "dependencies": True})
    assert input_entry_valid({"dependentTasksOutputFiles": "**/*.d.ts", "transitive": True})
    assert input_entry_valid({"json": "{projectRoot}/x.json", "fields": ["a"]})
    assert not input_entry_valid({"input": "production", "projects": 1})
    assert not input_entry_valid({"env": ["X"]})


@pytest.mark.oracle
def test_real_nx_refuses_the_same_entries(tmp_path):
    tool = require("nx")

    for n, (entry, taken) in enumerate(ENTRIES):
        root = make_repo(tmp_path / f"ws{n}", entry)
        proc = nx_affected(tool, root, tmp_path / f"state{n}", check=False)
        assert (proc.returncode == 0) == taken, entry
