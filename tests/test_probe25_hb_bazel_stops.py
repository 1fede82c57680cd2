"""Errors of BUILD-file functions that Bazel stops the file on (session 25, hostile inputs).

Measured with Bazel 4.2.3, ``bazel query --keep_going 'kind(rule, //...)'``: each of these
fails the package ("package contains errors") and keeps only the targets made before the
failing statement, as a ``fail()`` does (``test_probe22_hb_bazel_errors``):

- a rule name Bazel's label validator refuses (``""``, ``"../up"``, ``"x:y"``, ``"/x"``,
  ``"x/"``, ``"./x"``), a ``None``/int name or none at all, also from a macro's
  ``native.cc_library`` (the targets the macro made before stay), and a ``package_group``
  with an empty name; ``"x y"`` is a valid name;
- a second rule of the same name;
- a second ``package()`` (also ``native.package()`` from a macro); one *after* rules is fine;
- ``exports_files`` of an invalid name;
- ``glob(..., allow_empty = False)`` matching nothing, or only excluded files (also in a macro);
- a rule whose output another rule already declared, or that is named like an earlier rule's
  output or names an earlier rule as its output (a genrule naming its own output is fine).

Static mode lost only the failing statement (or, for an empty glob, only warned) and kept
the targets after it: targets ``bazel query`` does not have.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write_tree
from ctxsel.workspace import Workspace
from oracles import require

_BEFORE_AFTER = 'cc_library(name = "a")\n{}\ncc_library(name = "b")\n'

STOPS: dict[str, str] = {
    "WORKSPACE": 'workspace(name = "w")\n',
    **{f"{pkg}/BUILD": _BEFORE_AFTER.format(stmt) for pkg, stmt in {
        "empty": 'cc_library(name = "")',
        "up": 'cc_library(name = "../up")',
        "colon": 'cc_library(name = "x:y")',
        "slash": 'cc_library(name = "/x")',
        "trail": 'cc_library(name = "x/")',
        "dot": 'cc_library(name = "./x")',
        "none": "cc_library(name = None)",
        "int": "cc_library(name = 1)",
        "missing": "cc_library(srcs = [])",
        "space": 'cc_library(name = "x y")',
        "dup": 'cc_library(name = "a")',
        "pg": 'package_group(name = "")',
        "exp": 'exports_files(["../x"])',
        "glob": 'cc_library(name = "g", srcs = glob(["*.none"], allow_empty = False))',
        "excl": 'cc_library(name = "g", srcs = glob(["*.cc"], exclude = ["x.cc"], allow_empty = False))',
        "globok": 'cc_library(name = "g", srcs = glob(["*.cc"], allow_empty = False))',
        "late": 'package(default_visibility = ["//visibility:public"])',
        "twice": 'package(default_visibility = ["//visibility:public"])\npackage(default_testonly = 1)',
        "outdup": 'genrule(name = "g1", outs = ["o"], cmd = "x")\ngenrule(name = "g2", outs = ["o"], cmd = "x")',
        "outrule": 'genrule(name = "g1", outs = ["a"], cmd = "x")',
        "outself": 'genrule(name = "g1", outs = ["g1"], cmd = "x")',
    }.items()},
    "excl/x.cc": "",
    "globok/x.cc": "",
    "macro/BUILD": 'load(":m.bzl", "m")\n' + _BEFORE_AFTER.format('m(name = "")'),
    "macro/m.bzl": 'def m(name):\n    native.cc_library(name = name + "ok")\n    native.cc_library(name = name)\n',
    "mglob/BUILD": 'load(":m.bzl", "m")\n' + _BEFORE_AFTER.format("m()"),
    "mglob/m.bzl": 'def m():\n    native.cc_library(name = "in", srcs = native.glob(["*.none"], allow_empty = False))\n',
    "mpkg/BUILD": 'load(":m.bzl", "m")\npackage(default_visibility = ["//visibility:public"])\n' + _BEFORE_AFTER.format("m()"),
    "mpkg/m.bzl": 'def m():\n    native.package(default_visibility = ["//visibility:private"])\n',
    "use/BUILD": 'cc_library(name = "u", deps = ["//up:a", "//glob:a"])\n',
}

#: Bazel 4.2.3: ``bazel query --keep_going 'kind(rule, //...)'`` (exit 3) on STOPS
RULES = {
    "//empty:a", "//up:a", "//colon:a", "//slash:a", "//trail:a", "//dot:a", "//none:a", "//int:a", "//missing:a",
    "//space:a", "//space:x y", "//space:b", "//dup:a", "//pg:a", "//exp:a", "//glob:a", "//excl:a",
    "//globok:a", "//globok:g", "//globok:b", "//late:a", "//late:b", "//twice:a",
    "//macro:a", "//macro:ok", "//mglob:a", "//mpkg:a", "//use:u",
    "//outdup:a", "//outdup:g1", "//outrule:a", "//outself:a", "//outself:g1", "//outself:b",
}


def _rules(ws: Workspace) -> set[str]:
    return {i for i in ws.graph if ws.adapter.reportable(ws.graph, i)}


def test_a_build_file_stops_where_bazel_stops_it(tmp_path: Path) -> None:
    """Old: also every ``//<pkg>:b`` above, ``//up:../up``, ``//dot:./x``, ``//glob:g``,
    ``//mglob:in``, ``//outdup:g2``, ``//outrule:g1`` and a second ``//dup:a`` reported as a duplicate."""
    ws = Workspace.open(write_tree(tmp_path, STOPS), adapter="bazel", source="static", use_cache=False)
    assert _rules(ws) == RULES
    stopped = next(w for w in ws.warnings if "Bazel stops a file on" in w)
    assert stopped.startswith("static: 18 error(s)") and "colon/BUILD:2: cc_library: illegal name 'x:y'" in stopped
    # the targets before the error keep their dependents
    assert set(ws.blast_radius(["//up:a"]).ids) == {"//up:a", "//use:u"}
    conflicts = next(w for w in ws.warnings if "target name(s) are both" in w)
    assert "//outdup:o (generated file and generated file)" in conflicts and "//outrule:a (generated file and rule)" in conflicts


@pytest.mark.oracle
def test_bazel_stops_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """RULES as Bazel 4.2.3 answers them: tool mode runs ``bazel query --keep_going`` (one
    Bazel server for the whole check, to keep this file fast)."""
    monkeypatch.setenv("CTXSEL_BAZEL", require("oracle-bazel4"))
    tool = Workspace.open(write_tree(tmp_path, STOPS), adapter="bazel", source="tool", use_cache=False)
    assert _rules(tool) == RULES
    assert set(tool.blast_radius(["//up:a"]).ids) == {"//up:a", "//use:u"}
