"""A ``[...]`` read as a Python regex class ("regex" rule) is re-written member by member.

Handed to ``re`` as written, a yarn 1 glob such as ``p/[[:alpha:]]`` made Python print
"FutureWarning: Possible nested set" on every load (seen in CI's warnings summary); the
re-written class must keep exactly today's meaning and print nothing.
"""

from __future__ import annotations

import random
import re
import warnings
from pathlib import Path

import pytest

from ctxsel.globs import _python_class, glob_regex

from test_probe21_hg_npm_globs import YARN_CASES, open_ws, yarn_workspace

#: bodies Python reads with a FutureWarning (nested set, set operations) or at the edges of a range
AWKWARD = ["[:alpha:", "a&&b", "a--", "--a", "a~~b", "a||b", "^[", "a-", "-", "\\-a", "z-a", "^", ""]


def python_reading(body: str) -> re.Pattern[str] | None:
    """How ``re`` reads ``[body]`` with every character literal (the meaning to keep)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        try:
            return re.compile("[" + body.replace("\\", "\\\\") + "]")
        except re.error:
            return None


def written(glob: str) -> re.Pattern[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        return re.compile(glob_regex(glob, dot=True, classes="regex", globstar=False))


@pytest.mark.parametrize("seed", [3, 17])
def test_same_members_as_python_reads_them_and_no_warning(seed: int) -> None:
    rng = random.Random(seed)
    alphabet = list("[-^&~|\\!az:. 09") + ["é"]
    bodies = AWKWARD + ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 6))) for _ in range(3000)]
    probes = [chr(c) for c in range(128)] + ["é", "ÿ", "€"]
    for body in bodies:
        body = "^" + body[1:] if body.startswith("!") else body
        expected = python_reading(body)
        matcher = written(f"[{body}]")
        assert (_python_class(body) is None) == (expected is None), body  # None: the ``[`` is literal
        if expected is None:
            continue
        for c in probes:
            assert bool(matcher.fullmatch(c)) == bool(expected.fullmatch(c)), (body, c)


def test_yarn1_posix_class_glob_loads_without_a_warning(tmp_path: Path) -> None:
    case = (1, ("p/[[:alpha:]]",))
    root = yarn_workspace(tmp_path / "ws", *case)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        ws = open_ws(root, "yarn")
    assert {n.package for n in ws.graph.nodes() if n.kind == "package"} == YARN_CASES[case]
