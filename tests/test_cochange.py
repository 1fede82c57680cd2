"""``cochange.cochanged_files``: what changed together with a file, and out of how many commits."""

from __future__ import annotations

from pathlib import Path

from conftest import run_git as _git
from conftest import write_tree

from ctxsel.cochange import cochanged_files


def _commit(root: Path, files: dict[str, str], message: str) -> None:
    write_tree(root, files)
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", message)


def test_counts_and_the_number_of_seed_commits_leave_mass_edits_out(tmp_path: Path) -> None:
    root = tmp_path / "r"
    root.mkdir()
    _git(root, "init", "-q")
    _commit(root, {"seed.py": "a = 0\n", "pair.py": "b = 0\n", "other.py": "c = 0\n"}, "create")
    for i in range(1, 4):
        _commit(root, {"seed.py": f"a = {i}\n", "pair.py": f"b = {i}\n"}, f"together {i}")
    _commit(root, {"seed.py": "a = 9\n", "other.py": "c = 9\n"}, "once with other")
    _commit(root, {"other.py": "c = 10\n"}, "other alone")
    mass = {f"gen/f{i}.py": f"x = {i}\n" for i in range(60)}
    _commit(root, {"seed.py": "a = 10\n", "pair.py": "b = 10\n", **mass}, "mass edit")
    history = cochanged_files(root, "seed.py", max_files=50)
    assert history.commits == 5  # create, 3 together, once with other; the 62-file commit is left out
    assert history.files == {"pair.py": 4, "other.py": 2}
    assert cochanged_files(root, "seed.py", max_files=100).commits == 6
    assert cochanged_files(root, "missing.py").commits == 0
