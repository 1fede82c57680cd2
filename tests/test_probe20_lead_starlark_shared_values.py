"""Starlark values that share their parts: ``x = [x, x]`` forty times is 41 lists but 2**40
elements written out. ``str()``, ``"%s"``, ``==``, ``in``, ``sorted()``, struct comparison and
hashing a tuple walk the written-out form: each hung the static loader for hours (measured: a
60 s timeout on one BUILD statement) where the step budget stops loops. Now each is the
statement's "value too large" warning, and values of real size print and compare as before.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from ctxsel.adapters.bazel.starlark import Interpreter, parse
from ctxsel.adapters.bazel.starlark_values import EvalError

DOUBLING = """
def dag():
    x = [1]
    for i in range(40):
        x = [x, x]
    return x

def tuples():
    t = (1,)
    for i in range(40):
        t = (t, t)
    return t

def structs():
    s = struct(a = 1)
    for i in range(40):
        s = struct(a = s, b = s)
    return s
"""

HOSTILE = [
    "str(dag())",
    "repr(dag())",
    '"%s" % (dag(),)',
    '"{}".format(dag())',
    "dag() == dag()",
    "dag() != [1]",
    "[2] in [dag()]",
    "sorted([dag(), dag()])",
    "max([dag(), dag()])",
    "{tuples(): 1}",
    "structs() == structs()",
    "str(structs())",
]


def run(expr: str) -> dict[str, Any]:
    interp = Interpreter(lambda *a: {}, lambda *a: [], [], lambda *a: None)
    g: dict[str, Any] = {}
    interp.exec_module(parse(DOUBLING + f"x = {expr}\n", "t.bzl"), "t.bzl", g)
    return g


@pytest.mark.parametrize("expr", HOSTILE)
def test_walking_a_doubling_value_is_a_value_too_large_error(expr):
    started = time.monotonic()
    with pytest.raises(EvalError, match="value too large"):
        run(expr)
    assert time.monotonic() - started < 20  # hours before


@pytest.mark.parametrize(("expr", "expected"), [
    ('str([1, [2, "x"], {"a": (1,)}])', '[1, [2, "x"], {"a": (1,)}]'),
    ('repr("a\\"b")', '"a\\"b"'),
    ("str(struct(a = [1], b = None))", "struct(a = [1], b = None)"),
    ("struct(a = [1]) == struct(a = [1])", True),
    ("[[1, 2], [3]] == [[1, 2], [3]]", True),
    ("[1] in [[0], [1]]", True),
    ("sorted([[2], [1, 5], [1]])", [[1], [1, 5], [2]]),
    ("{(1, (2, 3)): 4}[(1, (2, 3))]", 4),
    ("len(str(list(range(1000))))", len(str(list(range(1000))))),
])
def test_values_of_real_size_print_and_compare_as_before(expr, expected):
    assert run(expr)["x"] == expected
