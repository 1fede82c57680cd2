"""Inputs a hostile or unusual repository can hand ctxsel: each must end quickly, with a clear answer.

Found by probing the CLI (session 10): a regex that backtracked cubically on a line of
repeated keywords, an ignore glob that backtracked exponentially, a FIFO that blocked a
read forever, non-finite ranking weights, and ``--owner`` ignored outside a build workspace.
The pathological inputs run in a child process with a timeout, so a regression fails the
test instead of hanging the suite.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_git, write_tree

from ctxsel.globs import GIT, glob_regex
from ctxsel.secrets import SecretRules


def _finishes(code: str, timeout: float = 60) -> str:
    """Run ``code`` in a fresh interpreter; a hang becomes a failure, not a stuck suite."""
    try:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"did not finish in {timeout} s: {code[:80]}")
    assert proc.returncode == 0, proc.stderr[-800:]
    return proc.stdout


def test_repeated_keywords_do_not_make_the_secret_scan_backtrack() -> None:
    out = _finishes(
        "from ctxsel.secrets import SecretRules\n"
        "text = ('token' * 2400 + '\\n' * 7) * 6 + 'x' * 20000 + ' = \"abc\"'\n"
        "print(len(SecretRules().redact(text)[1]))\n"
    )
    assert out.strip() == "0"


@pytest.mark.parametrize("line, hidden", [
    ('password = "hunter2hunter2"', True),
    ('self.client_secret="Zx8Qm3Lr9Tv2Wp7K"', True),
    ("--api-key=Zx8Qm3Lr9Tv2Wp7K", True),
    ('  "auth_token": "Zx8Qm3Lr9Tv2Wp7KqL"', True),
    ("token = tokens[i]", False),
    ("password = getPassword(user)", False),
    ('username = "Zx8Qm3Lr9Tv2Wp7K"', False),  # not a secret's name
])
def test_secret_assignments_still_found_by_name(line: str, hidden: bool) -> None:
    text, found = SecretRules().redact(line + "\n")
    assert bool(found) == hidden, text
    if hidden:
        assert "Zx8Qm3Lr9Tv2Wp7K" not in text and "hunter2" not in text


def test_many_star_ignore_globs_match_without_backtracking(tmp_path: Path, cli) -> None:
    out = _finishes(
        "from ctxsel.files import IgnoreRules\n"
        "rules = IgnoreRules(['*a*a*a*a*a*a*a*a*a*a*a*b', '*x*y*z*.py'])\n"
        f"print(rules.ignored({'a' * 60 + '.py'!r}), rules.ignored('dir/axbyczd.py'), rules.ignored('keep.py'))\n"
    )
    assert out.split() == ["False", "True", "False"]
    # and end to end: a .ctxselignore line like that does not stall indexing
    write_tree(tmp_path, {"a" * 60 + ".py": "def widget():\n    pass\n", "keep.py": "def widget():\n    pass\n",
                          ".ctxselignore": "*a*a*a*a*a*a*a*a*a*a*a*b\n"})
    proc = cli("--repo", str(tmp_path), "-q", "select", "widget", "--format", "paths")
    assert proc.returncode == 0 and set(proc.stdout.split()) == {"a" * 60 + ".py", "keep.py"}, proc.stderr


@pytest.mark.parametrize("glob, path, matches", [
    ("*.py", "a.py", True), ("*a*b", "xaYb", True), ("*a*b", "xa/b", False), ("a*b*c", "aXbYc", True),
    ("a*b*c", "acb", False), ("*ab*ab", "abab", True), ("*ab*ab", "ab", False), ("*.min.*", "x.min.js", True),
    ("te?t*", "test.py", True), ("**/x*y", "a/b/xzy", True), ("x**y", "x/a/y", False), ("x**y", "xay", True), ("[!a]*z*", "bzz", True),
])
def test_glob_semantics_are_unchanged(glob: str, path: str, matches: bool) -> None:
    """Ignore-file globs read as git reads them (``**`` inside a segment is ``*``: git 2.39
    keeps ``x/a/y`` for ``x**y``, an earlier ctxsel ignored it)."""
    assert bool(re.match("^" + glob_regex(glob, dialect=GIT) + "$", path)) == matches


def test_a_fifo_seed_is_not_read(tmp_path: Path, cli) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this platform")
    run_git(tmp_path, "init", "-q")
    write_tree(tmp_path, {"a.py": "def foo():\n    return 1\n"})
    os.mkfifo(tmp_path / "pipe")
    for args in (["foo", "--seed", "pipe"], ["", "--files", "pipe"]):
        proc = cli("--repo", str(tmp_path), "-q", "select", *args, "--format", "paths")
        assert proc.returncode in (0, 2) and "Traceback" not in proc.stderr, proc.stderr


@pytest.mark.parametrize("weights, where", [
    ('{"bm25": NaN}', "--weights"), ('{"bm25": 1e999}', "--weights"), ('{"rrf_k": -1}', "--weights"),
    ('{"rrf_k": 0}', "--weights"), ('{"max_candidates": -1}', "--weights"),
])
def test_non_finite_or_negative_weights_are_user_errors(tmp_path: Path, cli, weights: str, where: str) -> None:
    write_tree(tmp_path, {"a.py": "def foo():\n    return 1\n"})
    proc = cli("--repo", str(tmp_path), "-q", "select", "foo", "--weights", weights, "--format", "json")
    assert proc.returncode == 2 and where in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


def test_ranking_table_with_inf_names_the_config_file(tmp_path: Path, cli) -> None:
    write_tree(tmp_path, {"a.py": "def foo():\n    return 1\n", ".ctxsel.toml": "[ranking]\nbm25 = inf\n"})
    proc = cli("--repo", str(tmp_path), "-q", "select", "foo", "--format", "json")
    assert proc.returncode == 2 and ".ctxsel.toml" in proc.stderr, proc.stderr


def test_owner_narrows_a_plain_repository_too(tmp_path: Path, cli) -> None:
    run_git(tmp_path, "init", "-q")
    write_tree(tmp_path, {"team/a.py": "def widget_a():\n    pass\n", "other/b.py": "def widget_b():\n    pass\n",
                          "CODEOWNERS": "team/ @team\nother/ @other\n"})
    proc = cli("--repo", str(tmp_path), "-q", "select", "widget", "--owner", "@team", "--format", "paths")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["team/a.py"]


def test_terms_rebuilt_after_loss_are_redacted_with_the_repos_own_patterns(tmp_path: Path, cli) -> None:
    write_tree(tmp_path, {".ctxsel.toml": '[secrets]\npatterns = [{name = "acme", regex = "ACME_[a-z]{20}"}]\n',
                          "a.py": 'X = "ACME_zqxjkvbwplmnrtyhgfds"\n'})
    assert cli("--repo", str(tmp_path), "-q", "index").returncode == 0
    (tmp_path / ".ctxsel" / "index" / "terms.pickle").unlink()  # lost: the next run retokenizes
    write_tree(tmp_path, {"b.py": "def other():\n    pass\n"})
    assert cli("--repo", str(tmp_path), "-q", "index").returncode == 0
    proc = cli("--repo", str(tmp_path), "-q", "select", "zqxjkvbwplmnrtyhgfds", "--format", "paths")
    assert proc.returncode == 0 and "a.py" not in proc.stdout, proc.stdout


def test_a_codeowners_symlink_out_of_the_repository_is_not_read(tmp_path: Path, cli) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("root:x:0:0:administrator,,,:/root:/bin/bash\n")
    repo = tmp_path / "repo"
    write_tree(repo, {"src/a.py": "def a():\n    pass\n"})
    (repo / "CODEOWNERS").symlink_to(outside)
    proc = cli("--repo", str(repo), "owners", "src/a.py")
    assert proc.returncode == 2 and "no CODEOWNERS file" in proc.stderr, proc.stderr
    assert "administrator" not in proc.stdout + proc.stderr
    inside = repo / "docs" / "owners.txt"
    write_tree(repo, {"docs/owners.txt": "src/ @team\n"})
    (repo / "CODEOWNERS").unlink()
    (repo / "CODEOWNERS").symlink_to(inside)  # a link inside the repository still counts
    proc = cli("--repo", str(repo), "owners", "src/a.py")
    assert proc.returncode == 0 and "@team" in proc.stdout, proc.stderr


def test_a_bad_scope_in_the_config_names_the_config(tmp_path: Path, cli) -> None:
    write_tree(tmp_path, {"a.py": "def foo():\n    return 1\n", ".ctxsel.toml": "[select]\nscope = 5\n"})
    proc = cli("--repo", str(tmp_path), "-q", "select", "foo")
    assert proc.returncode == 2 and ".ctxsel.toml" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


@pytest.mark.parametrize("pattern, path, ignored", [
    ("\\!bang.py", "!bang.py", True), ("\\!bang.py", "bang.py", False),
    ("\\#hash.py", "#hash.py", True), ("# a comment", "# a comment", False),
    ("a\\ ", "a ", True), ("a\\ ", "a", False), ("*.log   ", "x.log", True),
    ("weird\\[1\\].py", "weird[1].py", True), ("weird\\[1\\].py", "weird1.py", False),
])
def test_gitignore_escapes_outside_git(pattern: str, path: str, ignored: bool) -> None:
    """Outside a git work tree ctxsel reads .gitignore itself; escapes mean what git says."""
    from ctxsel.files import IgnoreRules

    assert IgnoreRules([pattern]).ignored(path) is ignored
