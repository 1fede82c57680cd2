"""A change of the root .gitignore or .nxignore selects every test task in ``nx affected -t test``.

Found on rx-angular/rx-angular (range a2528fbe7..2a2e314ca, session 22): the commit adds
``!libs/rebundle/README.md`` to .nxignore; nx 24.0.6 selected all 9 test tasks, ctxsel none.
Measured with nx 24.0.6 on the workspace below: with ``--files`` and over git ranges (a comment
line added to .gitignore, a blank line added to .nxignore) every test is selected, a test whose
inputs name only its own ``src/`` too, while ``nx show projects --affected`` marks no project.
A nested ignore file (``libs/.nxignore``, ``tools/.gitignore``) selects nothing, and a
project's own ``.gitignore`` selects that project's test only; .env and .npmrc select nothing.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import run_cli, write_tree
from nx_plugin_oracles import run_nx

GIT = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]


def make(root: Path) -> Path:
    files: dict[str, object] = {
        "nx.json": {},
        "package.json": {"name": "root", "private": True},
        "libs/a/project.json": {"name": "a", "targets": {"test": {"command": "echo a"}}},
        "libs/b/project.json": {"name": "b", "implicitDependencies": ["a"],
                                "targets": {"test": {"command": "echo b", "inputs": ["{projectRoot}/src/**/*"]}}},
    }
    write_tree(root, {k: json.dumps(v) for k, v in files.items()})
    return write_tree(root, {"libs/a/src/i.ts": "x", "libs/b/src/i.ts": "x", ".gitignore": "dist\n",
                             ".nxignore": "tmp\n", "libs/.nxignore": "", "tools/.gitignore": "", "libs/a/.gitignore": "",
                             ".env": "", ".npmrc": ""})


def ctxsel(root: Path, command: str, *change: str) -> list[str]:
    proc = run_cli("--repo", str(root), "--no-cache", "-q", "--adapter", "nx", "--source", "static",
                   command, *change, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    return sorted(data["tests"]) if command == "tests" else sorted(a["id"] for a in data["affected"])


#: changed file -> the test tasks nx 24.0.6 selected (``nx affected -t test --files``)
EXPECTED = {".nxignore": ["a", "b"], ".gitignore": ["a", "b"], "libs/.nxignore": [], "tools/.gitignore": [],
            "libs/a/.gitignore": ["a"], ".env": [], ".npmrc": []}


@pytest.mark.parametrize("path", sorted(EXPECTED))
def test_root_ignore_files_select_every_test(tmp_path: Path, path: str) -> None:
    """Old: .nxignore and .gitignore selected no test."""
    root = make(tmp_path / "ws")
    assert ctxsel(root, "tests", "--files", path) == EXPECTED[path]


def test_no_project_is_affected_by_them(tmp_path: Path) -> None:
    root = make(tmp_path / "ws")
    assert ctxsel(root, "blast-radius", "--files", ".nxignore,.gitignore") == []


def commit_ranges(root: Path) -> Path:
    """Three commits: the workspace, a comment added to .gitignore, a blank line added to .nxignore."""
    def git(*args: str) -> None:
        subprocess.run([*GIT, *args], cwd=root, check=True, capture_output=True)
    git("init", "-q")
    git("add", "-A")
    git("commit", "-qm", "init")
    with open(root / ".gitignore", "a") as f:
        f.write("# a comment\n")
    git("commit", "-qam", "comment")
    with open(root / ".nxignore", "a") as f:
        f.write("\n")
    git("commit", "-qam", "blank")
    return root


@pytest.mark.parametrize("base,head", [("HEAD~2", "HEAD~1"), ("HEAD~1", "HEAD")])
def test_git_ranges_count_any_edit(tmp_path: Path, base: str, head: str) -> None:
    root = commit_ranges(make(tmp_path / "ws"))
    assert ctxsel(root, "tests", "--base", base, "--head", head) == ["a", "b"]


@pytest.mark.oracle
@pytest.mark.parametrize("path", sorted(EXPECTED))
def test_real_nx_agrees(tmp_path: Path, path: str) -> None:
    root = make(tmp_path / "ws")
    graph = tmp_path / "tasks.json"
    proc = run_nx(root, "affected", "-t", "test", f"--files={path}", f"--graph={graph}")
    assert graph.is_file(), (proc.stdout + proc.stderr)[-1500:]
    tasks = json.loads(graph.read_text())["tasks"]["tasks"].values()
    nx = sorted(t["target"]["project"] for t in tasks if t["target"]["target"] == "test")
    assert nx == EXPECTED[path] == ctxsel(root, "tests", "--files", path)
