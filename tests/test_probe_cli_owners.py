"""``ctxsel owners`` on awkward repositories (probe findings, each a former bug)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import run_git, write_tree

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
pytestmark = needs_git


def test_unowned_in_a_subdirectory_workspace_skips_gitignored_files(tmp_path, cli):
    """A Bazel workspace in ``ws/`` with its own CODEOWNERS: ``--unowned`` walked the disk.

    Only ``root/.git`` was taken as "in git", so for a workspace below the git top level
    ignored build output (``ws/dist/``) was listed as unowned; README promises
    ``git ls-files`` in a git repo.
    """
    write_tree(tmp_path, {
        ".gitignore": "dist/\n",
        "ws/WORKSPACE": "",
        "ws/CODEOWNERS": "*.c @c\n",
        "ws/a/BUILD": 'cc_library(name = "a", srcs = ["x.h"])\n',
        "ws/a/x.h": "x\n",
        "ws/b/y.c": "y\n",
        "ws/dist/out.txt": "built\n",
    })
    run_git(tmp_path, "init", "-q")
    run_git(tmp_path, "add", "-A")
    proc = cli("owners", "--unowned", ".", cwd=tmp_path / "ws")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["CODEOWNERS", "WORKSPACE", "a/BUILD", "a/x.h"]


def conflicted_repo(root: Path) -> Path:
    """A merge stopped on a conflict in app/main.c (three index stages for it)."""
    write_tree(root, {"CODEOWNERS": "/core/ @core\n", "app/main.c": "base\n", "app/other.c": "o\n"})
    run_git(root, "init", "-q", "-b", "main")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", "base")
    run_git(root, "checkout", "-qb", "side")
    (root / "app/main.c").write_text("side\n")
    run_git(root, "commit", "-qam", "side")
    run_git(root, "checkout", "-q", "main")
    (root / "app/main.c").write_text("main\n")
    run_git(root, "commit", "-qam", "main")
    try:
        run_git(root, "merge", "-q", "side")
    except Exception:  # the conflict is the point
        pass
    assert "main.c" in run_git(root, "diff", "--name-only", "--diff-filter=U")
    return root


def test_unowned_lists_a_conflicted_file_once(tmp_path, cli):
    """git ls-files prints an unmerged path once per stage; it was listed three times."""
    root = conflicted_repo(tmp_path / "repo")
    proc = cli("owners", "--unowned", "app", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["app/main.c", "app/other.c"]


def test_unowned_directory_with_a_star_in_its_name_is_taken_literally(tmp_path, cli):
    """``--unowned 'a*'`` names the directory ``a*``; as a git pathspec it also matched ``ab/``."""
    write_tree(tmp_path, {"CODEOWNERS": "/owned/ @o\n", "a*/x.txt": "a\n", "ab/y.txt": "b\n"})
    run_git(tmp_path, "init", "-q")
    proc = cli("owners", "--unowned", "a*", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["a*/x.txt"]


def test_a_github_codeowners_over_3_mb_owns_nothing_with_a_warning(tmp_path, cli):
    """GitHub does not load a CODEOWNERS file over 3 MB, so no path has owners there;
    ctxsel answered from the file anyway."""
    filler = ("# " + "x" * 998 + "\n") * 4_000  # the size counts, comments included
    assert len(filler) > 4_000_000
    write_tree(tmp_path, {".github/CODEOWNERS": "* @everyone\n" + filler, "src/a.py": ""})
    proc = cli("owners", "src/a.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "src/a.py\t(unowned)\n"
    assert ".github/CODEOWNERS:" in proc.stderr and "over GitHub's 3 MB limit" in proc.stderr
    # GitLab has no such limit: the same rules with --codeowners-syntax gitlab still apply
    proc = cli("owners", "src/a.py", "--codeowners", ".github/CODEOWNERS", "--codeowners-syntax", "gitlab", cwd=tmp_path)
    assert proc.stdout == "src/a.py\t@everyone\n", proc.stderr


def test_a_relative_path_out_of_the_repository_is_an_error_not_owned_by_star(tmp_path, cli):
    """``ctxsel owners ../other/x`` answered ``@all`` (GitHub's ``*`` matched the raw
    "../other/x"), although the same file spelled absolutely exits 2 as outside."""
    repo = tmp_path / "repo"
    write_tree(tmp_path, {"repo/.github/CODEOWNERS": "* @all\n/docs/ @docs\n", "repo/sub/k.txt": "",
                          "other/x.txt": ""})
    run_git(repo, "init", "-q")
    for cwd, spec in ((repo, "../other/x.txt"), (repo, "../missing.txt"), (repo / "sub", "../../other/x.txt")):
        proc = cli("owners", spec, cwd=cwd)
        assert proc.returncode == 2, (spec, proc.stdout)
        assert f"{spec} is outside the repository" in proc.stderr and "Traceback" not in proc.stderr
    proc = cli("owners", str(tmp_path / "other/x.txt"), cwd=repo)
    assert proc.returncode == 2 and "outside the repository" in proc.stderr


def test_dot_dot_inside_a_repo_relative_path_is_resolved(tmp_path, cli):
    """``sub/../docs/a.md`` is ``docs/a.md``: the ``/docs/`` rule applies (it answered ``@all``)."""
    write_tree(tmp_path, {".github/CODEOWNERS": "* @all\n/docs/ @docs\n"})
    run_git(tmp_path, "init", "-q")
    proc = cli("owners", "sub/../docs/a.md", "./docs/./b.md", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["docs/a.md\t@docs", "docs/b.md\t@docs"]
