"""Session 23 (helper hx): run from a directory that was deleted under the shell.

Switching branches or ``git worktree remove`` can delete the directory a terminal sits in.
Workspace discovery (``Path.cwd()``), ``--files`` (relative to the current directory) and a
``GIT_DIR`` check all read it, and each died with "internal error: FileNotFoundError" (exit 1).
git refuses the same situation as a user problem ("fatal: Unable to read current working
directory", exit 128); ctxsel now does too: exit 2, one message, a hint.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_git, write_tree

# chdir into a directory, delete it, then become the command: the command starts in a deleted cwd
IN_DELETED_DIR = "import os, sys; d = sys.argv[1]; os.chdir(d); os.rmdir(d); os.execv(sys.argv[2], sys.argv[2:])"


def _from_deleted_directory(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    gone = tmp_path / "gone"
    gone.mkdir()
    return subprocess.run([sys.executable, "-c", IN_DELETED_DIR, str(gone), *argv], capture_output=True, text=True,
                          timeout=120)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = write_tree(tmp_path / "ws", {"package.json": '{"name": "root", "private": true, "workspaces": ["packages/*"]}',
                                        "packages/a/package.json": '{"name": "a", "version": "1.0.0"}',
                                        "packages/a/index.js": "module.exports = 1;\n"})
    run_git(root, "init", "-q")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", "init")
    return root


def test_git_refuses_a_deleted_working_directory(tmp_path: Path) -> None:
    """The reference: git's own answer in the same situation."""
    git = shutil.which("git")
    assert git
    proc = _from_deleted_directory(tmp_path, git, "status")
    assert proc.returncode == 128 and "Unable to read current working directory" in proc.stderr


@pytest.mark.parametrize("args", [
    ["tests", "--files", "packages/a/index.js"],
    ["--repo", "{repo}", "tests", "--files", "packages/a/index.js"],
    ["select", "index"],
])
def test_a_deleted_working_directory_is_a_user_error(tmp_path: Path, repo: Path, args: list[str]) -> None:
    argv = [a.replace("{repo}", str(repo)) for a in args]
    proc = _from_deleted_directory(tmp_path, sys.executable, "-m", "ctxsel", *argv)
    assert proc.returncode == 2, proc.stderr
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert 1 <= len(lines) <= 3 and "current directory no longer exists" in lines[0]
