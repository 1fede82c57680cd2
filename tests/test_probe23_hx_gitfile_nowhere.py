"""Session 23 (helper hx): a ``.git`` file or ``GIT_DIR`` that points nowhere is named as such.

A linked worktree or a submodule checkout has a ``.git`` *file* (``gitdir: /path``); when that
path is gone (the main repository moved or was deleted), or ``GIT_DIR`` names a directory that
does not exist, git says which directory it was sent to ("fatal: not a git repository:
/nonexistent/x"). ctxsel answered "ROOT is not inside a git work tree", which is false, the user
can see the ``.git`` right there, and hid the path git named. Now the message says where
the pointer leads and what to fix; exit 2 either way.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_cli, write_tree

NOWHERE = "/nonexistent/ctxsel-probe23/worktree"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "ws", {"package.json": '{"name": "root", "private": true, "workspaces": ["packages/*"]}',
                                        "packages/a/package.json": '{"name": "a", "version": "1.0.0"}'})


def _git_says(cwd: Path, env: dict[str, str]) -> str:
    proc = subprocess.run(["git", "rev-parse", "--is-inside-work-tree"], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "LC_ALL": "C", **env}, timeout=60)
    assert proc.returncode == 128
    return proc.stderr.strip()


def test_a_gitdir_line_pointing_nowhere_is_named(workspace: Path) -> None:
    (workspace / ".git").write_text(f"gitdir: {NOWHERE}\n")
    assert _git_says(workspace, {}) == f"fatal: not a git repository: {NOWHERE}"  # the reference
    proc = run_cli("--repo", str(workspace), "tests", "--staged")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) <= 3
    assert NOWHERE in lines[0] and "gitdir:" in lines[0] and "not inside a git work tree" not in proc.stderr


def test_a_git_dir_variable_pointing_nowhere_is_named(workspace: Path) -> None:
    env = {"GIT_DIR": NOWHERE}
    assert _git_says(workspace, env) == f"fatal: not a git repository: '{NOWHERE}'"
    proc = subprocess.run([sys.executable, "-m", "ctxsel", "--repo", str(workspace), "blast-radius", "--since", "HEAD"],
                          capture_output=True, text=True, env={**os.environ, **env}, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "GIT_DIR" in proc.stderr and NOWHERE in proc.stderr


def test_no_repository_at_all_keeps_its_message(workspace: Path) -> None:
    proc = run_cli("--repo", str(workspace), "tests", "--staged")
    assert proc.returncode == 2
    assert "is not inside a git work tree" in proc.stderr and "--files" in proc.stderr
