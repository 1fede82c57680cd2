"""Session 23 (helper hx): ``select``'s co-change history for seeds whose names are not ASCII.

``cochange.py`` ran ``git log --name-only`` with git's default ``core.quotePath``, under which git
prints a non-ASCII name C-quoted (``"\\303\\274n\\303\\257.py"`` for ``ünï.py``). The seed then
matched none of its own commits (0 commits of history) and, seen from a partner file, the quoted
string came back as a co-changed "file" that does not exist. A seed whose name is not UTF-8 at
all crashed ``select`` ("internal error: UnicodeEncodeError") when its cache key was hashed.
git is now asked with ``core.quotepath=off`` and names keep their bytes (``surrogateescape``).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from conftest import run_cli, run_git
from ctxsel.cochange import cochanged_files_many

UNICODE = "ünï.py"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "r"
    root.mkdir()
    run_git(root, "init", "-q")
    for i in range(3):
        (root / UNICODE).write_text(f"value = {i}\n")
        (root / "partner.py").write_text(f"other = {i}\n")
        with open(os.fsencode(root) + b"/caf\xe9.py", "w") as fh:
            fh.write(f"latin = {i}\n")
        run_git(root, "add", "-A")
        run_git(root, "commit", "-qm", f"c{i}")
    return root


def test_git_quotes_the_name_unless_asked_not_to(repo: Path) -> None:
    """The measured reference: what git prints for the same history, both ways."""
    quoted = subprocess.run(["git", "log", "--name-only", "--format=", "-1"], cwd=repo, capture_output=True,
                            timeout=60).stdout.decode()
    plain = subprocess.run(["git", "-c", "core.quotepath=off", "log", "--name-only", "--format=", "-1"], cwd=repo,
                           capture_output=True, timeout=60).stdout.decode("utf-8", "surrogateescape")
    assert '"\\303\\274n\\303\\257.py"' in quoted.split()
    assert UNICODE in plain.split() and "caf\udce9.py" in plain.split()


def test_a_non_ascii_seed_has_its_history_and_partners_name_real_files(repo: Path) -> None:
    found = cochanged_files_many(repo, [UNICODE, "partner.py"], 50, 200, [])
    assert found[UNICODE].commits == 3
    assert found[UNICODE].files == {"partner.py": 3, "caf\udce9.py": 3}
    assert set(found["partner.py"].files) == {UNICODE, "caf\udce9.py"}
    assert all((repo / name).exists() for name in found["partner.py"].files)


def test_a_seed_whose_name_is_not_utf8_selects_instead_of_crashing(repo: Path) -> None:
    proc = run_cli("--repo", str(repo), "select", "other", "--seed", "caf\udce9.py", "--format", "paths")
    assert proc.returncode == 0, proc.stderr[-600:]
    assert "internal error" not in proc.stderr
    assert "partner.py" in proc.stdout.split()
