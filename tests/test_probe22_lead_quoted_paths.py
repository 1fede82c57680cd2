"""Session 22 probe: file names with a newline, a tab, ``"`` or ``\\`` in line-based output.

Old: ``select --format paths`` printed such a name raw, so a newline split one file into
two lines (a script reading the list saw two files that do not exist), and the markdown
``### path`` header broke the same way; ``owners`` and ``--explain`` lines likewise. Now
they are quoted as git quotes them with ``core.quotePath=false``; JSON keeps the raw name.
"""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

import pytest

from conftest import run_cli, write_tree
from ctxsel.render import quote_path

NEWLINE = "pkgs/a/two\nlines.py"
TAB = "pkgs/a/tab\tand \"quote\".py"


def _git(repo: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = write_tree(tmp_path, {
        "package.json": json.dumps({"name": "r", "private": True, "workspaces": ["pkgs/*"]}),
        "pkgs/a/package.json": json.dumps({"name": "a", "version": "1.0.0"}),
        NEWLINE: "def alpha_newline():\n    return 1\n",
        TAB: "def alpha_tab():\n    return 2\n",
        "pkgs/a/plain_ü.py": "def alpha_plain():\n    return 3\n",
        "CODEOWNERS": "* @team\n",
    })
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
    return root


def test_quoting_matches_git_on_random_names(tmp_path: Path) -> None:
    rng = random.Random(22)
    alphabet = ["a", '"', "\\", "\t", "\n", "\r", "\x01", "\x1b", "\x7f", "é", " ", "\v", "\f", "\b", "\a"]
    names = [f"n{i}" + "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 8))) for i in range(150)]
    for name in names:
        (tmp_path / name).write_text("x")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", "-A")
    raw = _git(tmp_path, "ls-files", "-z").decode().split("\0")[:-1]
    quoted = _git(tmp_path, "-c", "core.quotePath=false", "ls-files").decode().splitlines()
    assert len(raw) == len(quoted) == len(names)
    assert [quote_path(n) for n in raw] == quoted


def test_select_paths_and_headers_keep_one_line_per_file(repo: Path) -> None:
    out = run_cli("--source", "static", "select", "alpha_newline alpha_tab alpha_plain", "--format", "paths", cwd=repo)
    assert out.returncode == 0, out.stderr
    assert sorted(out.stdout.splitlines()) == sorted([quote_path(NEWLINE), quote_path(TAB), "pkgs/a/plain_ü.py"])
    assert quote_path(NEWLINE) == '"pkgs/a/two\\nlines.py"'
    md = run_cli("--source", "static", "select", "alpha_newline alpha_tab alpha_plain", cwd=repo).stdout
    headers = [line for line in md.splitlines() if line.startswith("### ")]
    assert sorted(h.split(" \u00b7 ")[0][4:] for h in headers) == sorted(out.stdout.splitlines())
    data = json.loads(run_cli("--source", "static", "select", "alpha_newline", "--format", "json", cwd=repo).stdout)
    assert NEWLINE in {c["path"] for c in data["chunks"]}


def test_owners_and_explain_lines_quote_the_name(repo: Path) -> None:
    owners = run_cli("owners", NEWLINE, "--unowned", "pkgs", cwd=repo)
    assert owners.returncode == 0, owners.stderr
    assert owners.stdout.splitlines()[0] == f"{quote_path(NEWLINE)}\t@team"
    (repo / NEWLINE).write_text("def alpha_newline():\n    return 5\n")
    why = run_cli("--source", "static", "blast-radius", "--since", "HEAD", "--explain", cwd=repo)
    assert why.returncode == 0, why.stderr
    assert why.stdout.splitlines() == [f"a   [{quote_path(NEWLINE)}]"]
