"""Session 23 (helper hx): ``select``/``index`` given git's own directory instead of a work tree.

``--repo bare.git`` or ``--repo checkout/.git`` found no build workspace, fell back to "the whole
directory", and walked git's internals: ``config`` came out as context, with whatever it holds
(``actions/checkout`` persists ``http.extraheader = AUTHORIZATION: basic <token>`` there; the
lower-case scheme also slipped past the auth-header redaction, see
``test_probe23_hx_auth_scheme.py``), and ``.ctxsel/`` was written inside the git directory.
git itself refuses the listing ctxsel asks of it there (``git ls-files -co``: "this operation
must be run in a work tree"); ctxsel now refuses too: exit 2, naming the directory and the work
tree to pass instead.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conftest import run_cli, run_git, write_tree

TOKEN_HEADER = "AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Z2hzX0FCQ0RFRkdISUpLTE1OT1BRUlNUVVZXWFla"


@pytest.fixture(scope="module")
def repos(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A plain checkout (no build workspace) with a persisted credential, and a bare clone of it."""
    base = tmp_path_factory.mktemp("gitdir")
    work = write_tree(base / "work", {"a.py": "def hello():\n    return 1\n"})
    run_git(work, "init", "-q")
    run_git(work, "add", "-A")
    run_git(work, "commit", "-qm", "init")
    run_git(work, "config", "http.https://github.com/.extraheader", TOKEN_HEADER)
    run_git(base, "clone", "-q", "--bare", str(work), "bare.git")
    run_git(base / "bare.git", "config", "http.https://github.com/.extraheader", TOKEN_HEADER)
    return {"work": work, "dotgit": work / ".git", "hooks": work / ".git" / "hooks", "bare": base / "bare.git"}


@pytest.mark.parametrize("which", ["dotgit", "hooks", "bare"])
def test_git_refuses_to_list_a_git_directory(repos: dict[str, Path], which: str) -> None:
    """The measured reference: the listing ctxsel runs is refused by git in each directory."""
    proc = subprocess.run(["git", "-C", str(repos[which]), "ls-files", "-co", "--exclude-standard"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 128 and "must be run in a work tree" in proc.stderr


@pytest.mark.parametrize("which", ["dotgit", "hooks", "bare"])
@pytest.mark.parametrize("command", [["select", "extraheader authorization config", "--format", "json"], ["index"]])
def test_a_git_directory_is_a_user_error_not_a_source_tree(repos: dict[str, Path], which: str, command: list[str]) -> None:
    """Old: exit 0, ``config`` selected with the token in clear, ``.ctxsel/`` written into the git directory."""
    target = repos[which]
    proc = run_cli("--repo", str(target), *command)
    assert proc.returncode == 2, proc.stdout[-300:] + proc.stderr[-300:]
    lines = proc.stderr.strip().splitlines()
    assert 1 <= len(lines) <= 3 and "Traceback" not in proc.stderr
    assert str(target) in lines[0] and "git directory" in lines[0]
    if which != "bare":  # a .git: the hint names the work tree to pass
        assert f"--repo {repos['work']}" in proc.stderr
    assert "eC1hY2Nlc3MtdG9rZW46" not in proc.stdout + proc.stderr
    assert not (target / ".ctxsel").exists()


def test_the_work_tree_itself_still_selects_and_never_reads_git_internals(repos: dict[str, Path]) -> None:
    proc = run_cli("--repo", str(repos["work"]), "select", "hello extraheader", "--format", "paths")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["a.py"]
