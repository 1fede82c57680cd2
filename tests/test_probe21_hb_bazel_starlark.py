"""Starlark that the session 21 Bazel sweep found ctxsel's static evaluator getting wrong.

- rules_scala (2 statements, its ``dependency_tracking_*_patterns`` toolchains lost):
  ``scala_toolchain`` slices ``str(native.package_relative_label("@//p"))`` at its ``":"``;
  Bazel prints a Label canonically (``//p:p``), ctxsel kept the text as written, so
  ``rindex(":")`` failed ("substring not found") and the statement was dropped.
- ``%`` conversions: Bazel 4.2.3 formats ``%d %s %r %e %f %g %E %F %G`` and refuses ``%i``
  and ``%c`` (so does today's Bazel, ``Printer.formatWithList``); ctxsel used Python's
  ``%``, which makes targets from both.
- rules_kotlin: ``//kotlin/compiler``'s targets come from a loop over another repository's
  ``KOTLINC_ARTIFACTS``; ctxsel warned that the labels naming them are files "its package
  does not declare" which "bazel query fails on", though Bazel loads them fine.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write_tree
from ctxsel.workspace import Workspace
from oracles import require

LABELS: dict[str, str] = {
    "WORKSPACE": 'workspace(name = "w")\n',
    "m/BUILD": "",
    "m/defs.bzl": (
        "def clean(s):\n"
        '    return "".join([c if c.isalnum() else "_" for c in s.elems()])\n\n'
        "def show(name, pattern):\n"
        "    expanded = str(Label(pattern))\n"
        '    if ":" not in pattern:\n'
        '        expanded = expanded[:expanded.rindex(":")]\n'
        "    native.filegroup(name = name + clean(expanded))\n"
        '    native.filegroup(name = name + "_" + clean(str(Label("@//a/b"))) + "_" + Label("//a/b").name)\n'
    ),
    "a/BUILD": 'load("//m:defs.bzl", "show")\nshow(name = "s", pattern = "@//a/b")\nshow(name = "t", pattern = "//a:x")\n',
    "a/b/BUILD": "",
}
#: kind(rule, //a:all), measured with Bazel 4.2.3 (str(Label("@//a/b")) is "//a/b:b" there)
LABELS_RULES = {"//a:s__a_b", "//a:s___a_b_b_b", "//a:t__a_x", "//a:t___a_b_b_b"}

#: one package per conversion: Bazel fails a package at the statement it refuses
PERCENT: dict[str, str] = {
    "WORKSPACE": 'workspace(name = "w")\n',
    **{f"f{c}/BUILD": f'filegroup(name = "ok")\nfilegroup(name = "p_" + ("%{c}" % 65).replace(".", "_").replace("+", "_"))\n'
       for c in "dsreEfFic"},
}
#: kind(rule, //...), measured with Bazel 4.2.3: %i and %c fail their packages after //f?:ok
PERCENT_RULES = {f"//f{c}:ok" for c in "dsreEfFic"} | {
    "//fd:p_65", "//fs:p_65", "//fr:p_65", "//fe:p_6_500000e_01", "//fE:p_6_500000E_01",
    "//ff:p_65_000000", "//fF:p_65_000000",
}


def _static(root: Path) -> Workspace:
    return Workspace.open(root, adapter="bazel", source="static", use_cache=False)


def _rules(ws: Workspace) -> set[str]:
    return {i for i in ws.graph if ws.adapter.reportable(ws.graph, i)}


@pytest.mark.parametrize("make_label", ["Label", "native.package_relative_label"])
def test_labels_print_canonically(tmp_path: Path, make_label: str) -> None:
    """Old: "m/defs.bzl:6: string.rindex(): substring not found" lost //a:s__a_b, and
    ``str(Label("@//a/b"))`` named //a:s___a_b_b (no ":b"). rules_scala calls
    ``native.package_relative_label`` (Bazel 6+), which prints the same way."""
    files = dict(LABELS, **{"m/defs.bzl": LABELS["m/defs.bzl"].replace("str(Label(pattern))", f"str({make_label}(pattern))")})
    ws = _static(write_tree(tmp_path, files))
    assert _rules(ws) == LABELS_RULES
    assert not [w for w in ws.warnings if "could not be evaluated" in w], ws.warnings


def test_percent_conversions_bazel_refuses(tmp_path: Path) -> None:
    """Old: //fi:p_65 and //fc:p_A, which Bazel never has."""
    ws = _static(write_tree(tmp_path, PERCENT))
    assert _rules(ws) == PERCENT_RULES


def test_hex_and_octal_conversions_of_newer_bazel(tmp_path: Path) -> None:
    """``%o %x %X``: refused by Bazel 4.2.3, formatted by Bazel 5+ (``Printer.formatWithList``
    has ``case 'o': case 'x': case 'X':``); a repository using them is written for such a
    Bazel, so ctxsel formats them as it does."""
    ws = _static(write_tree(tmp_path, {
        "WORKSPACE": "",
        "h/BUILD": 'filegroup(name = "n_%o_%x_%X" % (8, 255, 255))\nfilegroup(name = "bad%(k)s" % {"k": 1})\n',
    }))
    assert _rules(ws) == {"//h:n_10_ff_FF"}


@pytest.mark.oracle
def test_bazel_prints_labels_and_formats_so(tmp_path: Path) -> None:
    from test_probe12_bazel_differential import _Bazel

    require("bazel-4")
    server = _Bazel(write_tree(tmp_path / "ws", {**LABELS, **PERCENT}))
    try:
        assert server.labels("//...", "--keep_going") == LABELS_RULES | PERCENT_RULES
    finally:
        server.shutdown()


def test_targets_a_loop_over_another_repositorys_value_creates_are_not_called_undeclared(tmp_path: Path) -> None:
    """rules_kotlin's shape. Bazel creates //c:annotations (the loop runs there); ctxsel
    cannot, and must say why instead of calling the label a file Bazel fails on."""
    ws = _static(write_tree(tmp_path, {
        "WORKSPACE": "",
        "c/defs.bzl": (
            'load("@kotlin//:artifacts.bzl", "ARTIFACTS")\n'
            "def configure():\n"
            "    for label, jar in ARTIFACTS.items():\n"
            "        native.filegroup(name = label, srcs = [jar])\n"
        ),
        "c/BUILD": 'load(":defs.bzl", "configure")\nconfigure()\nfilegroup(name = "known")\n',
        "u/BUILD": 'filegroup(name = "u", srcs = ["//c:annotations", "//c:known"])\n',
        "v/BUILD": 'filegroup(name = "v", srcs = ["//u:missing.txt"])\n',
    }))
    loops = [w for w in ws.warnings if "did not find" in w]
    assert len(loops) == 1, ws.warnings
    assert "a loop over another repository's value (c/defs.bzl:3)" in loops[0] and "//c:annotations (in //u:u)" in loops[0]
    undeclared = [w for w in ws.warnings if "does not declare" in w]
    assert len(undeclared) == 1 and "//u:missing.txt" in undeclared[0] and "//c:annotations" not in undeclared[0]


#: one package per expression (Bazel fails a package at the first statement it refuses);
#: each makes //e/<key>:ok and, unless Bazel refuses the expression, //e/<key>:v=<value>
EXPRESSIONS: dict[str, str] = {
    "hash": 'str(hash("abc")) + "_" + str(hash("hello world long string xyz"))',
    "popitem": 'str({"b": 1, "a": 2}.popitem())',
    "istitle": 'str("Ab Cd".istitle()) + str("ab Cd".istitle())',
    "floats": 'str(int(2.7)) + str(int(-2.7)) + str(-1.5) + str(float(3)) + str(float("2.5"))',
    "split_sep": '"|".join("a,b,,c".split(",")) + "|".join("a.b.c".rsplit(".", 1))',
    "split_nosep": '"|".join(" a  b ".split())',
    "split_empty": '"|".join("ab".split(""))',
    "label_repr": 'repr(Label("@//s")) + str([Label("//s:x")]) + ("%r" % Label("//s"))',
    "struct_str": 'str(struct(b = 1, a = "x"))',
    "depset": 'str(depset(["b", "a", "b"]).to_list()) + str(depset(["c"], transitive = [depset(["a", "c"])]).to_list())',
    "depset_pre": 'str(depset(["c"], order = "preorder", transitive = [depset(["a"])]).to_list()) + str(bool(depset()))',
    "int_underscore": 'str(int("1_000"))',
    "float_str": '"|".join([str(x) for x in [1e16, 1e17, 9.5e16, -2.5e-7, 0.00012, 1e-5, float("-inf"), -0.0]])',
    "float_format": '"|".join(["%g" % 65, "%g" % 123456789, "%G" % 1e-10, "%d" % 3.9, "%e" % 0, "%r" % 1.5])',
}
#: measured with Bazel 4.2.3 (kind(rule, //e/...)); split_nosep and split_empty fail
EXPRESSION_VALUES: dict[str, str | None] = {
    "hash": "96354_1114820562",
    "popitem": "__b___1_",
    "istitle": "TrueFalse",
    "floats": "2-2-1.53.02.5",
    "split_sep": "a_b__ca.b_c",
    "split_nosep": None,
    "split_empty": None,
    "label_repr": "Label____s_s___Label____s_x___Label____s_s__",
    "struct_str": "struct_a____x___b___1_",
    "depset": "__b____a____a____c__",
    "depset_pre": "__c____a__False",
    "int_underscore": None,
    "float_str": "10000000000000000.0_1e_17_95000000000000000.0_-2.5e-07_0.00012_1e-05_-inf_-0.0",
    "float_format": "65.0_123456789.0_1E-10_3_0.000000e_00_1.5",
}


def _expression_tree() -> dict[str, str]:
    files = {
        "WORKSPACE": 'workspace(name = "w")\n',
        "s/BUILD": "",
        "s/defs.bzl": (
            "def clean(s):\n"
            '    return "".join([c if c.isalnum() or c in "_-." else "_" for c in s.elems()])\n\n'
            "def make(key, value):\n"
            '    native.filegroup(name = "ok")\n'
            '    native.filegroup(name = "v=" + clean(value()))\n'
        ),
    }
    for key, expr in EXPRESSIONS.items():
        # a function per package: Bazel 4.2.3 has no struct() or Label() in BUILD files
        files[f"s/{key}.bzl"] = f'load(":defs.bzl", "make")\n\ndef value():\n    return {expr}\n\ndef run():\n    make("{key}", value)\n'
        files[f"e/{key}/BUILD"] = f'load("//s:{key}.bzl", "run")\nrun()\n'
    return files


EXPRESSION_RULES = {f"//e/{k}:ok" for k in EXPRESSIONS} | {f"//e/{k}:v={v}" for k, v in EXPRESSION_VALUES.items() if v is not None}


def test_starlark_builtins_as_bazel_evaluates_them(tmp_path: Path) -> None:
    """Old: hash, popitem, istitle, float() and -1.5, depset (UNKNOWN: named "v=") were
    missing or wrong; ``split()`` without (or with an empty) separator made targets Bazel
    refuses; ``repr(Label)`` printed the bare label text and ``str(struct)`` kept the
    fields in call order; ``int("1_000")`` took Python's digit separator; floats printed
    as Python does (``1e+16``, ``inf``; ``"%g" % 65`` is ``65``), not as Starlark."""
    ws = _static(write_tree(tmp_path, _expression_tree()))
    assert _rules(ws) == EXPRESSION_RULES


@pytest.mark.oracle
def test_bazel_evaluates_the_expressions_so(tmp_path: Path) -> None:
    from test_probe12_bazel_differential import _Bazel

    require("bazel-4")
    server = _Bazel(write_tree(tmp_path / "ws", _expression_tree()))
    try:
        assert server.labels("//e/...", "--keep_going") == EXPRESSION_RULES
    finally:
        server.shutdown()
