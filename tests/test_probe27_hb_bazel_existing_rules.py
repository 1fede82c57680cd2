"""``native.existing_rule(s)()`` give a list attribute as a tuple, as Bazel 4.2.3 does (session 27).

Measured with Bazel 4.2.3 (``bazel query --keep_going 'kind(rule, //...)'``, exit 3) on the
fixture below: ``type(native.existing_rule("a")["srcs"])`` is ``"tuple"`` (also ``tags`` and
``deps``; the rule itself and ``existing_rules()`` are dicts), so a macro's
``r["srcs"] + ["y.cc"]`` stops the file ("unsupported binary operation: tuple + list": no
``//p:b``, no ``//p:after``), while ``r["srcs"] + ("z.cc",)`` works (``//q:c``). Static mode
gave lists: it made ``//p:b`` and ``//p:after``, and lost ``//q:c``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write_tree
from ctxsel.workspace import Workspace
from oracles import require

FILES: dict[str, str] = {
    "WORKSPACE": 'workspace(name = "w")\n',
    "p/defs.bzl": (
        "def m():\n"
        '    r = native.existing_rule("a")\n'
        '    native.cc_library(name = "t_" + type(r["srcs"]) + "_" + type(r["tags"]) + "_" + type(r))\n'
        '    native.cc_library(name = "all_" + type(native.existing_rules()))\n'
        '    native.cc_library(name = "before")\n'
        '    native.cc_library(name = "b", srcs = r["srcs"] + ["y.cc"])\n'
        '    native.cc_library(name = "after")\n'
        "def m2():\n"
        '    r = native.existing_rule("a")\n'
        '    native.cc_library(name = "c", srcs = r["srcs"] + ("z.cc",), tags = list(r["tags"]) + ["x"])\n'
    ),
    "p/BUILD": 'load(":defs.bzl", "m")\ncc_library(name = "a", srcs = ["x.cc"], tags = ["k"])\nm()\n',
    "q/BUILD": 'load("//p:defs.bzl", "m2")\ncc_library(name = "a", srcs = ["x.cc"], tags = ["k"])\nm2()\n',
}

#: Bazel 4.2.3: ``bazel query --keep_going 'kind(rule, //...)'`` (exit 3) on FILES
RULES = {"//p:a", "//p:t_tuple_tuple_dict", "//p:all_dict", "//p:before", "//q:a", "//q:c"}


def _rules(ws: Workspace) -> set[str]:
    return {i for i in ws.graph if ws.adapter.reportable(ws.graph, i)}


def test_list_attributes_come_back_as_tuples(tmp_path: Path) -> None:
    """Old: //p:t_list_list_dict, //p:b and //p:after, no //q:c."""
    ws = Workspace.open(write_tree(tmp_path, FILES), adapter="bazel", source="static", use_cache=False)
    assert _rules(ws) == RULES
    assert any("tuple + list" in w or "unsupported" in w for w in ws.warnings), ws.warnings


@pytest.mark.oracle
def test_bazel_answers_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """RULES as Bazel 4.2.3 answers them (tool mode: one ``bazel query --keep_going``)."""
    monkeypatch.setenv("CTXSEL_BAZEL", require("oracle-bazel4"))
    tool = Workspace.open(write_tree(tmp_path, FILES), adapter="bazel", source="tool", use_cache=False)
    assert _rules(tool) == RULES
