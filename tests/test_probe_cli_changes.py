"""Change selectors on awkward git states, end to end (probe findings, each a former bug).

The toy adapter (in-process ``main``) stands in for a build tool where a graph is
needed; a subprocess with the pnpm adapter where only the exit code and stderr matter.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from ctxsel.changes import DELETED, ChangedFile, changed_files
from ctxsel.cli import main
from ctxsel.errors import GitError
from toy_workspace import git, make_repo, register, write

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
pytestmark = needs_git


def run(root: Path, *args: str) -> int:
    return main(["--repo", str(root), "--adapter", "toy", *args])


def branch_history(root: Path) -> tuple[str, str]:
    """main gets lib/b.c, branch feat gets core/core.c: (main sha, feat sha)."""
    git(root, "checkout", "-qb", "feat")
    write(root, "core/core.c", "feat\n")
    git(root, "commit", "-qam", "feat")
    git(root, "checkout", "-q", "main")
    write(root, "lib/b.c", "main\n")
    git(root, "commit", "-qam", "main")
    git(root, "checkout", "-q", "feat")
    return git(root, "rev-parse", "main").strip(), git(root, "rev-parse", "feat").strip()


def test_base_three_dot_range_is_the_merge_base_range(tmp_path, monkeypatch, capsys):
    """``--base main...feat`` = ``--base main --head feat`` (Turborepo's ``[A...B]``).

    It used to go to rev-parse whole and exit 2 with "unknown git revision 'main...feat'"
    although both refs exist.
    """
    register(monkeypatch)
    root = make_repo(tmp_path / "ws")
    branch_history(root)
    assert run(root, "tests", "--base", "main", "--head", "feat", "--format", "json") == 0
    expected = json.loads(capsys.readouterr().out)
    assert expected["tests"] == ["app_test"]
    assert run(root, "tests", "--base", "main...feat", "--format", "json") == 0
    body = json.loads(capsys.readouterr().out)
    assert body["tests"] == expected["tests"]
    assert body["changes"]["files"] == [{"path": "core/core.c", "status": "M"}]
    # an empty side is HEAD, as in git (feat is checked out)
    found = changed_files(root, base="main...")
    assert [f.path for f in found.files] == ["core/core.c"]


def test_two_dot_range_and_range_in_since_are_explained_errors(tmp_path, monkeypatch, capsys):
    register(monkeypatch)
    root = make_repo(tmp_path / "ws")
    branch_history(root)
    assert run(root, "tests", "--base", "main..feat") == 2
    err = capsys.readouterr().err
    assert "two-dot range is ambiguous" in err and "--base main...feat" in err
    assert "unknown git revision" not in err
    assert run(root, "tests", "--since", "main...feat") == 2
    err = capsys.readouterr().err
    assert "--since takes one ref" in err and "--base A...B" in err
    with pytest.raises(GitError, match="already names the head"):
        changed_files(root, base="main...feat", head="HEAD")


def test_since_before_the_first_commit_says_so_not_unknown_ref(tmp_path):
    """No commit yet: every ref is unknown, so the reason is the missing HEAD (old: "unknown git revision 'main'")."""
    root = tmp_path / "fresh"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write(root, "a.c")
    with pytest.raises(GitError, match="needs at least one commit") as exc:
        changed_files(root, since="main")
    assert "--staged" in exc.value.render()


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give the repository to another user (dubious ownership)")
def test_untrusted_repository_reports_gits_reason_not_no_git(tmp_path, cli):
    """A checkout owned by another user (a CI container): git refuses with "dubious ownership".

    ctxsel said "is not inside a git work tree ... use --files", which sends the user
    the wrong way; it now passes git's reason on with the safe.directory hint, exit 2.
    """
    trusted = subprocess.run(["git", "config", "--get-all", "safe.directory"], capture_output=True, text=True).stdout
    if "*" in trusted.split():
        pytest.skip("git is configured with safe.directory=* here, so no repository is untrusted")
    root = make_repo(tmp_path / "ws")
    (root / "pnpm-workspace.yaml").write_text("packages: []\n")
    (root / "package.json").write_text('{"name": "r"}\n')
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [dirpath, *(os.path.join(dirpath, n) for n in dirnames + filenames)]:
            os.lchown(name, 65534, 65534)
    proc = cli("--repo", str(root), "--adapter", "pnpm", "--source", "static", "tests", "--since", "HEAD")
    assert proc.returncode == 2, proc.stderr
    assert "dubious ownership" in proc.stderr and "safe.directory" in proc.stderr
    assert "not inside a git work tree" not in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) <= 3


def test_files_through_a_symlinked_path_to_a_deleted_file_counts_as_deleted(tmp_path):
    """``--files /link/to/ws/core/core.c`` after ``rm``: the workspace spelled through a symlink.

    The file no longer exists, so it was compared unresolved with the resolved root and
    dropped as "outside the workspace" (macOS /tmp, linked checkouts). Its directory is
    resolved now.
    """
    root = make_repo(tmp_path / "ws")
    link = tmp_path / "link"
    link.symlink_to(root)
    (root / "core/core.c").unlink()
    found = changed_files(root, files=[str(link / "core/core.c")])
    assert found.files == [ChangedFile("core/core.c", DELETED)]
    assert found.warnings == []


def test_files_names_a_changed_symlink_not_its_target(tmp_path):
    """A symlink is the change git reports; ``--files`` used to follow it to its target."""
    root = make_repo(tmp_path / "ws")
    (root / "core/alias.c").symlink_to("../lib/b.c")
    found = changed_files(root, files=[str(root / "core/alias.c")])
    assert [f.path for f in found.files] == ["core/alias.c"]
    (root / "core/dangling.c").symlink_to("no-such-target.c")  # present, though its target is not
    found = changed_files(root, files=["core/dangling.c"])
    assert [(f.path, f.status) for f in found.files] == [("core/dangling.c", "M")]


@pytest.mark.parametrize("value", ["30s", "0", "-5", "nan", "inf"])
def test_a_malformed_git_timeout_is_a_user_error_not_a_crash(tmp_path, value):
    """``CTXSEL_GIT_TIMEOUT=30s`` was parsed at import: every command, ``owners`` too,
    died with "internal error: ValueError" (exit 1); ``nan`` crashed inside subprocess."""
    import subprocess as sp
    import sys

    root = make_repo(tmp_path / "ws")
    (root / "CODEOWNERS").write_text("* @all\n")
    (root / "pnpm-workspace.yaml").write_text("packages: []\n")
    (root / "package.json").write_text('{"name": "r"}\n')
    env = dict(os.environ, CTXSEL_GIT_TIMEOUT=value)
    for args in (["tests", "--since", "HEAD"], ["owners", "core/core.c"]):
        proc = sp.run([sys.executable, "-m", "ctxsel", "--repo", str(root), "--adapter", "pnpm", "--source", "static", *args],
                      cwd=root, capture_output=True, text=True, timeout=120, env=env)
        assert proc.returncode == 2, (args, proc.stderr)
        assert f"CTXSEL_GIT_TIMEOUT={value!r} is not a positive number of seconds" in proc.stderr
        assert "internal error" not in proc.stderr and len(proc.stderr.strip().splitlines()) <= 3


def test_a_valid_git_timeout_is_used(tmp_path, monkeypatch):
    from ctxsel.changes import Git

    monkeypatch.setenv("CTXSEL_GIT_TIMEOUT", "45.5")
    assert Git(tmp_path).timeout == 45.5
    monkeypatch.delenv("CTXSEL_GIT_TIMEOUT")
    assert Git(tmp_path).timeout == 30.0


def test_base_on_an_unborn_branch_names_the_missing_head(tmp_path):
    """``git checkout --orphan``: --base main said "unknown git revision 'HEAD'", as if HEAD were a typo."""
    root = make_repo(tmp_path / "ws")
    git(root, "checkout", "-q", "--orphan", "fresh")
    with pytest.raises(GitError, match="HEAD, which does not exist yet") as exc:
        changed_files(root, base="main")
    assert "--head B" in exc.value.render()
    found = changed_files(root, base="main", head="main")  # an explicit head still works
    assert found.files == []


def subdir_workspace_with_worktree(tmp_path: Path) -> tuple[Path, Path]:
    """A repo whose toy workspace is ``ws/``, and a linked worktree of it: (worktree ws, its git dir)."""
    outer = tmp_path / "mono"
    make_repo(outer / "ws")  # its own repo, then folded into the outer one
    shutil.rmtree(outer / "ws" / ".git")
    git(outer, "init", "-q", "-b", "main")
    git(outer, "add", "-A")
    git(outer, "commit", "-qm", "init")
    wt = tmp_path / "wt"
    git(outer, "worktree", "add", "-q", str(wt), "-b", "side")
    gitdir = git(wt, "rev-parse", "--absolute-git-dir").strip()
    return wt / "ws", Path(gitdir)


def test_staged_in_a_linked_worktree_hook_keeps_paths_workspace_relative(tmp_path, monkeypatch):
    """git runs a linked worktree's hooks with GIT_DIR (and GIT_INDEX_FILE) exported.

    GIT_DIR without GIT_WORK_TREE makes git treat its cwd -- ctxsel runs it in the
    workspace root ``ws/`` -- as the top of the work tree: ``--relative`` did nothing,
    the staged ``ws/core/core.c`` stayed ``ws/core/core.c``, no node owned it and the
    hook printed "nothing to test" (found with a real hook: ``cd ws && ctxsel pre-commit``).
    """
    ws, gitdir = subdir_workspace_with_worktree(tmp_path)
    write(ws, "core/core.c", "staged\n")
    git(ws, "add", "core/core.c")
    monkeypatch.chdir(ws)
    monkeypatch.setenv("GIT_DIR", str(gitdir))
    monkeypatch.setenv("GIT_INDEX_FILE", str(gitdir / "index"))
    monkeypatch.delenv("GIT_WORK_TREE", raising=False)
    found = changed_files(ws, staged=True)
    assert [f.path for f in found.files] == ["core/core.c"]
    from toy_workspace import open_ws

    assert open_ws(ws).changes(staged=True).nodes == ["core"]


def test_an_explicit_git_dir_of_another_repository_is_respected(tmp_path, monkeypatch):
    """Only a GIT_DIR that discovery would find anyway is dropped; a deliberate one stays."""
    from ctxsel.changes import Git

    ws = make_repo(tmp_path / "ws")
    other = make_repo(tmp_path / "other")
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.delenv("GIT_WORK_TREE", raising=False)
    assert Git(ws).environment()["GIT_DIR"] == str(other / ".git")
    monkeypatch.setenv("GIT_DIR", str(ws / ".git"))
    assert "GIT_DIR" not in Git(ws).environment()


def test_real_pre_commit_hook_in_a_linked_worktree_selects_the_tests(tmp_path):
    """End to end: ``git commit`` in a linked worktree runs a hook that cds into the
    pnpm workspace ``ws/`` and asks ``ctxsel pre-commit``; it said "nothing to test"."""
    import sys

    from conftest import FIXTURES, run_git

    outer = tmp_path / "mono"
    shutil.copytree(FIXTURES / "js-pnpm", outer / "ws", ignore=shutil.ignore_patterns("node_modules", ".ctxsel"))
    run_git(outer, "init", "-q", "-b", "main")
    run_git(outer, "add", "-A")
    run_git(outer, "commit", "-qm", "init")
    wt = tmp_path / "wt"
    run_git(outer, "worktree", "add", "-q", str(wt), "-b", "side")
    report = tmp_path / "hook.json"
    hook = outer / ".git" / "hooks" / "pre-commit"
    hook.write_text(f"#!/bin/sh\ncd ws && exec {sys.executable} -m ctxsel --adapter pnpm --source static "
                    f"pre-commit --format json > {report}\n")
    hook.chmod(0o755)
    target = next((wt / "ws").glob("packages/*/package.json"))
    body = json.loads(target.read_text())
    body["description"] = "staged edit"
    target.write_text(json.dumps(body, indent=2) + "\n")
    run_git(wt, "add", "-A")
    run_git(wt, "commit", "-qm", "edit")
    answer = json.loads(report.read_text())
    assert answer["changes"]["files"] == [{"path": target.relative_to(wt / "ws").as_posix(), "status": "M"}]
    assert body["name"] in answer["changes"]["changed_nodes"]
