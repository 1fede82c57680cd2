"""One glob translator (``globs.glob_regex``), one ``Dialect`` per tool.

The secret-file and manifest globs must read exactly as ``fnmatch.fnmatchcase`` (checked
against the stdlib on random patterns); the other dialects have their own differential
tests against the real tools (git: test_probe13_globs_git.py; Bazel:
test_probe12_bazel_differential.py; GitLab: test_codeowners*.py). Here: the places where
the dialects differ, and that no second translator is left behind.
"""

from __future__ import annotations

import fnmatch
import random
import re
from pathlib import Path

import pytest

from ctxsel import globs
from ctxsel.globs import BAZEL, BAZEL_DIRS, FNMATCH, GIT, RUBY_FNMATCH, glob_regex

ROOT = Path(__file__).resolve().parent.parent


def full(pattern: str, path: str, dialect: globs.Dialect) -> bool:
    return re.fullmatch(glob_regex(pattern, dialect=dialect), path) is not None


@pytest.mark.parametrize("seed", range(2))
def test_fnmatch_dialect_is_fnmatchcase(seed: int) -> None:
    rnd = random.Random(seed)
    for _ in range(2000):
        pattern = "".join(rnd.choice("ab.*?/[]!^-\\{},z") for _ in range(rnd.randint(1, 9)))
        for _ in range(4):
            path = "".join(rnd.choice("ab./z-![]\\{},*\n") for _ in range(rnd.randint(0, 8)))
            assert full(pattern, path, FNMATCH) == fnmatch.fnmatchcase(path, pattern), (pattern, path)


@pytest.mark.parametrize("pattern, path, expected", [
    # git: "**" spans directories only as a whole segment or right after the literal start
    ("x/a**b", "x/ac/db", {GIT: False}),
    ("a**/b", "ax/y/b", {GIT: True}),
    ("q/***/f", "q/f", {GIT: True, RUBY_FNMATCH: False}),
    # Ruby: only a leading "**/" spans; a trailing "**" is "*"
    ("docs/**", "docs/a/b", {GIT: True, RUBY_FNMATCH: False, BAZEL: True}),
    ("**/b", "a/c/b", {GIT: True, RUBY_FNMATCH: True, BAZEL: True, FNMATCH: True}),
    # reversed ranges: git matches the first end, Ruby both ends
    ("[z-a]", "z", {GIT: True, RUBY_FNMATCH: True}),
    ("[z-a]", "a", {GIT: False, RUBY_FNMATCH: True}),
    # an unclosed "[": literal for fnmatch and Bazel, nothing for git and Ruby
    ("a[b", "a[b", {GIT: False, RUBY_FNMATCH: False, FNMATCH: True, BAZEL: True}),
    # "*" crosses "/" for fnmatch only
    ("a*b", "a/b", {GIT: False, RUBY_FNMATCH: False, FNMATCH: True, BAZEL: False}),
    # Bazel: wildcards skip dot-names except a lone "*"; the others match them
    ("*.txt", ".x.txt", {BAZEL: False, GIT: True, FNMATCH: True}),
    ("d/*", "d/.x", {BAZEL: True}),
    # Bazel directories: "d/**" lists "d" itself
    ("d/**", "d", {BAZEL_DIRS: True, BAZEL: False}),
    # a trailing "\": nothing (git), dropped (Ruby), literal (Bazel, fnmatch)
    ("tb\\", "tb", {GIT: False, RUBY_FNMATCH: True, BAZEL: False}),
    ("tb\\", "tb\\", {GIT: False, RUBY_FNMATCH: False, BAZEL: True, FNMATCH: True}),
])
def test_dialects_differ_where_the_tools_do(pattern: str, path: str, expected: dict[globs.Dialect, bool]) -> None:
    for dialect, answer in expected.items():
        assert full(pattern, path, dialect) == answer, (pattern, path, dialect)


def test_first_fit_stars_do_not_backtrack_exponentially() -> None:
    """``*a*a*a*a*a*b`` on a long name of ``a``s took exponential time without the
    first-fit lookahead; every dialect with stars gets it."""
    name = "a" * 60 + "c"
    for dialect in (GIT, RUBY_FNMATCH, BAZEL, FNMATCH, globs.Dialect()):
        assert not full("*a*a*a*a*a*a*a*a*b", name, dialect)


def test_joined_first_fit_globs_compile() -> None:
    """First-fit group names are unique, so several globs (the same one twice too) join into one regex."""
    source = "|".join(glob_regex("*a*b", dialect=GIT) for _ in range(3))
    assert re.fullmatch(source, "xaxb")


def test_no_second_translator_left() -> None:
    """The glob dialects are spelled once, in globs.py: no fnmatch.translate/fnmatchcase or
    own bracket parser in the modules that used to have them."""
    for rel in ("selector/files.py", "selector/secrets.py", "selector/codeowners_gitlab.py",
                "selector/revision.py", "adapters/bazel/static.py"):
        text = (ROOT / rel).read_text()
        assert "import fnmatch" not in text and not re.search(r"fnmatch\.\w+\(", text), rel
        assert "def _bracket" not in text and "_POSIX_CLASSES" not in text, rel
