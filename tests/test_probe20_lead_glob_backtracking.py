"""Globs whose regexes backtracked for seconds to minutes, and the translation that stops it.

Two hostile shapes hung a run before this session (measured):
- a chain of globstars, ``**/a/**/a/**/a/**/c``: every way to place the runs in a deep path
  was tried (3.3 s for 11 globstars on a 28-directory path through ``globs.glob_regex``,
  minutes deeper; every tool reading globs goes through it);
- GitHub CODEOWNERS patterns compiled by the ``codeowners`` package: ``**/**/…/b`` took 345 s
  on a 10-directory path, ``***…*b`` a minute.
The answers must not change: git decides gitignore matching, the ``codeowners`` package
decides GitHub's (on inputs small enough for its regexes).
"""

from __future__ import annotations

import random
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from ctxsel.codeowners import github_regex, parse
from ctxsel.files import _walk_files
from ctxsel.globs import BAZEL, GIT, RUBY_FNMATCH, Dialect, glob_regex

DEEP = "/".join(["a"] * 60) + "/f.ts"
HOSTILE = [
    "**/a/" * 12 + "c",
    "a/" + "**/a/" * 12 + "c",
    "/".join(["**"] * 30) + "/b",
    "**/a*/**/*a/**/a/**/?/**/a/**/*/**/c",
]


@pytest.mark.parametrize("dialect", [GIT, RUBY_FNMATCH, BAZEL, Dialect()], ids=["git", "ruby", "bazel", "turbo"])
@pytest.mark.parametrize("pattern", HOSTILE)
def test_globstar_chains_answer_at_once_on_deep_paths(pattern, dialect):
    rx = re.compile(glob_regex(pattern, dialect=dialect))
    started = time.monotonic()
    assert rx.fullmatch(DEEP) is None  # no "c"/"b" at the end
    assert rx.fullmatch(DEEP[: -len("f.ts")] + "c") is not None or not pattern.endswith("c")
    assert time.monotonic() - started < 5  # minutes before


def _ref_match(pattern: str, path: str) -> bool:
    """A segment-by-segment reference for globs of whole ``**`` segments, literal names,
    ``*`` and ``?`` (no classes, no dots at segment starts): memoised, so it cannot explode."""
    pat, segs = pattern.split("/"), path.split("/")
    from functools import lru_cache

    @lru_cache(maxsize=None)
    def go(i: int, j: int) -> bool:
        if i == len(pat):
            return j == len(segs)
        if pat[i] == "**":
            if i + 1 == len(pat):
                return j < len(segs)  # a trailing ** matches something below
            return any(go(i + 1, k) for k in range(j, len(segs)))
        if j == len(segs):
            return False
        one = "".join("[^/]*" if c == "*" else "[^/]" if c == "?" else re.escape(c) for c in pat[i])
        return re.fullmatch(one, segs[j]) is not None and go(i + 1, j + 1)

    return go(0, 0)


def test_first_fit_globstars_match_what_the_reference_matches():
    rng = random.Random(20)
    parts = ["**", "a", "b", "a*", "*b", "?", "*", "ab"]
    names = ["a", "b", "ab", "ba", "aa", "c"]
    checked = 0
    for _ in range(3000):
        pattern = "/".join(rng.choice(parts) for _ in range(rng.randint(1, 7)))
        rx = re.compile(glob_regex(pattern, dialect=GIT))
        for _ in range(10):
            path = "/".join(rng.choice(names) for _ in range(rng.randint(1, 8)))
            assert (rx.fullmatch(path) is not None) == _ref_match(pattern, path), (pattern, path)
            checked += 1
    assert checked == 30000


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_globstar_chains_ignore_what_git_ignores(tmp_path: Path):
    rules = ["**/x/**/y/**/z", "a/**/b/**/b", "**/p*/**/q/**/r?", "/m/**/m/**/m"]
    tree = ["x/y/z", "x/x/y/y/z/z", "k/x/l/y/m/z", "y/x/z", "a/b/b", "a/b/c/b", "a/c/b", "b/a/b/b",
            "p1/q/r1", "p/q/q/r22", "u/pp/v/q/w/rz", "m/m/m", "m/q/m/q/m", "q/m/m/m", "x/y/zz", "a/b/b/c"]
    (tmp_path / ".gitignore").write_text("\n".join(rules) + "\n")
    for rel in tree:
        f = tmp_path / rel / "f.txt"
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text("x\n")
    ours = sorted(p for p in _walk_files(tmp_path) if p != ".gitignore")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    listed = subprocess.run(["git", "-C", str(tmp_path), "ls-files", "-o", "--exclude-standard"],
                            capture_output=True, text=True, check=True).stdout.split()
    assert ours == sorted(p for p in listed if p != ".gitignore")
    assert 0 < len(ours) < len(tree)  # the rules ignore some of the files, not all


def test_github_patterns_compile_as_the_codeowners_package_reads_them():
    from codeowners import path_to_regex

    rng = random.Random(7)
    tokens = ["a", "b", "*", "**", "***", "?", "/", ".", "\\*", "\\ ", "x.js", "-", "a**", "**b"]
    names = ["a", "b", "ab", "x.js", ".a", "a b", "*", "-"]
    for _ in range(4000):
        pattern = "".join(rng.choice(tokens) for _ in range(rng.randint(1, 6)))
        if pattern.endswith("\\"):
            continue  # refused before it is compiled (a lone trailing backslash)
        ours, theirs = re.compile(github_regex(pattern)), path_to_regex(pattern)
        for _ in range(8):
            path = "/".join(rng.choice(names) for _ in range(rng.randint(1, 4)))
            assert (ours.search(path) is None) == (theirs.search(path) is None), (pattern, path)


def test_github_codeowners_with_globstar_chains_answers_at_once():
    text = "/".join(["**"] * 30) + "/b @chain\n" + "**/a/" * 12 + "c @deep\n" + "*" * 200 + "b @stars\n"
    owners = parse(text, "github")
    assert owners.warnings == []
    started = time.monotonic()
    assert owners.owners_of(DEEP) == []
    assert owners.owners_of("x/y/b") == ["@stars"]  # the last matching line wins
    assert owners.owners_of("a/a/a/a/a/a/a/a/a/a/a/a/c") == ["@deep"]
    assert owners.owners_of("q/" * 40 + "b") == ["@stars"]
    assert time.monotonic() - started < 5  # 345 s for the first line alone before
