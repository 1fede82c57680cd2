"""Co-change history for many seeds at once (``cochange.*_many``): the very answers of one ``git log`` per seed.

One ``git log`` over all seeds is exact only on a linear history (simplification prunes at
merges, differently for different pathspecs) and for seeds that name only themselves; the
``-n`` window of each seed is replayed by counting. Each case here compares the batched
answers with the per-seed ones computed in a fresh copy of the repository (no shared cache).
"""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import run_git
from ctxsel import cochange


def commit_files(root: Path, files: list[str], message: str) -> None:
    for rel in files:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text((path.read_text() if path.exists() else "") + f"line {message} {rel} with words\n")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-q", "-m", message)


def history(root: Path, merges: bool, seed: int) -> list[str]:
    """A repository whose commits change random groups of files (some mass edits); returns the files."""
    rng = random.Random(seed)
    files = [f"pkg{i}/src/f{i}.ts" for i in range(12)] + ["pkg0/src/é.ts", "dir/a.ts", "dir/b.ts", "top.md"]
    root.mkdir()
    run_git(root, "init", "-q", "-b", "main")
    commit_files(root, files, "init")
    for c in range(40):
        if merges and c % 10 == 5:
            run_git(root, "checkout", "-q", "-b", f"side{c}")
            commit_files(root, rng.sample(files[:8], 3), f"side {c}")  # disjoint from main's: no conflict
            run_git(root, "checkout", "-q", "main")
            commit_files(root, rng.sample(files[8:], 2), f"main {c}")
            run_git(root, "merge", "-q", "--no-ff", "-m", f"merge {c}", f"side{c}")
            continue
        commit_files(root, rng.sample(files, rng.choice([1, 2, 3, 9])), f"c{c}")
    return files


def per_seed(root: Path, seeds: list[str], commits: int, max_files: int) -> dict:
    return {s: cochange.cochanged_files(root, s, commits, max_files) for s in seeds}


@pytest.mark.parametrize("merges", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_many_seeds_get_the_answers_of_one_log_each(tmp_path, merges, seed):
    files = history(tmp_path / "a", merges, seed)
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    # a directory, a missing file, a repeat, a glob (git matches it as a pattern: its own log)
    seeds = files[:6] + ["pkg0/src/é.ts", "dir", "no/such.ts", files[0], "pkg1/src/*.ts"]
    for commits, max_files in ((300, 50), (3, 50), (5, 4)):
        cochange._HISTORY.clear()
        want = per_seed(tmp_path / "a", seeds, commits, max_files)
        cochange._HISTORY.clear()
        got = cochange.cochanged_files_many(tmp_path / "b", seeds, commits, max_files)
        assert got == want, (commits, max_files)
        for f in (tmp_path / "a" / ".ctxsel" / "index").glob("cochange-*"):
            f.unlink()
        for f in (tmp_path / "b" / ".ctxsel" / "index").glob("cochange-*"):
            f.unlink()


def test_a_linear_history_costs_one_git_log_for_all_seeds(tmp_path, monkeypatch):
    files = history(tmp_path / "a", False, 0)
    logs: list[list[str]] = []
    real = subprocess.run

    def spy(argv, *args, **kwargs):
        if "log" in argv:
            logs.append(argv)
        return real(argv, *args, **kwargs)

    monkeypatch.setattr(subprocess, "run", spy)
    cochange._HISTORY.clear()
    answers = cochange.cochanged_files_many(tmp_path / "a", files, 300, 50)
    lines = cochange.cochanged_lines_many(tmp_path / "a", files, files[:3], 300, 50)
    assert len(logs) == 1 and any(a.commits for a in answers.values()) and any(lines.values())


def test_merges_keep_one_log_per_seed(tmp_path, monkeypatch):
    files = history(tmp_path / "a", True, 1)
    assert cochange._linear(tmp_path / "a") is False
    cochange._HISTORY.clear()
    logs: list[list[str]] = []
    real = subprocess.run
    monkeypatch.setattr(subprocess, "run", lambda argv, *a, **k: (logs.append(argv) if "log" in argv else None) or real(argv, *a, **k))
    cochange.cochanged_files_many(tmp_path / "a", files[:4], 300, 50)
    assert len(logs) == 4
