"""A macro called with an argument too many or too few stops the BUILD file (session 26).

Found on tensorflow/lingvo: ``lingvo/core/ops/BUILD`` calls ``gen_op_cclib(..., features =
select(...))``, a macro with no ``features`` parameter and no ``**kwargs``. Bazel 4.2.3 stops
the file there ("gen_op_cclib() got unexpected keyword argument: features"): ``bazel query
--keep_going`` keeps only ``//lingvo/core/ops:x_ops_helper``, made before it; static mode lost
the one statement and kept the 57 targets after it. Measured on the minimal fixture below: an
unexpected keyword, a positional argument too many, a parameter given twice and a missing one
all stop the file, also inside a function a macro calls (the targets the macro made before stay).
A rule's unknown attribute does not stop anything (``//ok:x`` and ``//ok:after`` exist). A
missing argument a ``**`` of a value ctxsel could not compute may hold stops nothing in static
mode, nor does a call of ctxsel's stand-ins for bazel_skylib (they may lack a newer parameter).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write_tree
from ctxsel.workspace import Workspace
from oracles import require

_BEFORE_AFTER = 'load("//m:m.bzl", "m", "n")\ncc_library(name = "before")\n{}\ncc_library(name = "after")\n'

FILES: dict[str, str] = {
    "WORKSPACE": 'workspace(name = "w")\n',
    "m/BUILD": "",
    "m/m.bzl": ("def m(name, deps = []):\n    native.cc_library(name = name, deps = deps)\n"
                "def n(name, **kwargs):\n    native.cc_library(name = name, **kwargs)\n"),
    **{f"{pkg}/BUILD": _BEFORE_AFTER.format(stmt) for pkg, stmt in {
        "kw": 'm(name = "x", bogus = 1)',
        "pos": 'm("a", [], "c")',
        "multi": 'm("x", name = "y")',
        "missing": "m(deps = [])",
        "ok": 'n(name = "x", bogus_tags = [])',
    }.items()},
    "inner/BUILD": 'load(":i.bzl", "outer")\ncc_library(name = "before")\nouter()\ncc_library(name = "after")\n',
    "inner/i.bzl": 'def inner(a):\n    pass\ndef outer():\n    native.cc_library(name = "made")\n    inner(a = 1, b = 2)\n',
    "use/BUILD": 'cc_library(name = "u", deps = ["//kw:before"])\n',
}

#: Bazel 4.2.3: ``bazel query --keep_going 'kind(rule, //...)'`` (exit 3) on FILES
RULES = {
    "//kw:before", "//pos:before", "//multi:before", "//missing:before", "//ok:before", "//ok:x", "//ok:after",
    "//inner:before", "//inner:made", "//use:u",
}


def _rules(ws: Workspace) -> set[str]:
    return {i for i in ws.graph if ws.adapter.reportable(ws.graph, i)}


def test_a_call_with_wrong_arguments_stops_the_file(tmp_path: Path) -> None:
    """Old: also //kw:after, //pos:after, //multi:after, //missing:after and //inner:after."""
    ws = Workspace.open(write_tree(tmp_path, FILES), adapter="bazel", source="static", use_cache=False)
    assert _rules(ws) == RULES
    assert set(ws.blast_radius(["//kw:before"]).ids) == {"//kw:before", "//use:u"}
    stopped = next(w for w in ws.warnings if "Bazel stops a file on" in w)
    assert stopped.startswith("static: 5 error(s)"), stopped


def test_an_unknown_double_star_argument_stops_nothing(tmp_path: Path) -> None:
    """``**`` of another repository's value may hold the missing ``name``: nothing is cut."""
    files = {**FILES,
             "ext/e.bzl": 'load("@other//:defs.bzl", "ARGS")\nload("//m:m.bzl", "m")\ndef e():\n    m(**ARGS)\n',
             "ext/BUILD": 'load(":e.bzl", "e")\ncc_library(name = "before")\ne()\ncc_library(name = "after")\n'}
    ws = Workspace.open(write_tree(tmp_path, files), adapter="bazel", source="static", use_cache=False)
    assert {"//ext:before", "//ext:after"} <= _rules(ws)


@pytest.mark.oracle
def test_bazel_stops_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """RULES as Bazel 4.2.3 answers them (tool mode: one ``bazel query --keep_going``)."""
    monkeypatch.setenv("CTXSEL_BAZEL", require("oracle-bazel4"))
    tool = Workspace.open(write_tree(tmp_path, FILES), adapter="bazel", source="tool", use_cache=False)
    assert _rules(tool) == RULES
