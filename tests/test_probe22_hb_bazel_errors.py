"""Packages Bazel stops on an error, read as ``bazel query --keep_going`` reads them (session 22).

ctxsel's tool mode runs ``bazel query --keep_going``; measured with Bazel 4.2.3 there:

- a ``fail()`` or a recursive call while a BUILD file runs stops the file: the targets made
  before it (in the failing macro too) stay, later statements make none;
- ``def`` or ``**kwargs`` in a BUILD file fail the package before it runs: no target;
- a ``load()`` of a .bzl whose top level fails, or that binds a global twice ("cannot
  reassign global"; a BUILD file may), fails every package loading it, wherever the
  ``load()`` stands: no target;
- a load cycle makes even ``--keep_going`` skip the whole ``//...`` pattern (no target at all;
  ctxsel's tool mode exits 2 on it).

Static mode kept evaluating after all of these (so it answered targets Bazel never has), and
took a load cycle as one lost statement. A ``fail()`` that ctxsel reaches only because it
took a value of another repository (which it does not evaluate) as empty or false is no
such stop: Bazel may never get there.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write_tree
from ctxsel.errors import ParseError, UnknownTargetError
from ctxsel.workspace import Workspace
from oracles import require

ERRORS: dict[str, str] = {
    "WORKSPACE": 'workspace(name = "w")\n',
    "fail_after/BUILD": 'cc_library(name = "a", visibility = ["//visibility:public"])\nfail("stop here")\ncc_library(name = "b")\n',
    "fail_in_macro/BUILD": 'load(":m.bzl", "m")\ncc_library(name = "a")\nm(name = "b")\ncc_library(name = "c")\n',
    "fail_in_macro/m.bzl": 'def m(name):\n    native.cc_library(name = name)\n    fail("macro says no")\n',
    "recursion/BUILD": 'load(":m.bzl", "m")\ncc_library(name = "a")\nm(name = "b")\ncc_library(name = "c")\n',
    "recursion/m.bzl": "def m(name, n = 1):\n    if n:\n        return m(name, n - 1)\n    native.cc_library(name = name)\n",
    "def_in_build/BUILD": 'cc_library(name = "a")\ndef f():\n    return "b"\ncc_library(name = f())\n',
    "kwargs_build/BUILD": 'kw = {"name": "b"}\ncc_library(name = "a")\ncc_library(**kw)\n',
    "bzl_fails/BUILD": 'cc_library(name = "a")\nload(":m.bzl", "m")\nm(name = "b")\n',
    "bzl_fails/m.bzl": 'def m(name):\n    native.cc_library(name = name)\n\ndef _check():\n    fail("bzl refuses")\n\n_check()\n',
    "shared/BUILD": 'load("//bzl_fails:m.bzl", "m")\ncc_library(name = "s")\n',
    "rebind_bzl/BUILD": 'load(":d.bzl", "v")\ncc_library(name = v)\n',
    "rebind_bzl/d.bzl": 'v = "a"\nv = "b"\n',
    "rebind_build/BUILD": 'x = "a"\nx += "b"\ncc_library(name = x)\n',
    "ok/BUILD": 'cc_library(name = "c", deps = ["//fail_after:a"])\ncc_library(name = "d", deps = ["//def_in_build:a"])\n',
}
#: Bazel 4.2.3: ``bazel query --keep_going 'kind(rule, //...)'`` (exit 3) and ``rdeps(//..., //fail_after:a)``
RULES = {"//fail_after:a", "//fail_in_macro:a", "//fail_in_macro:b", "//ok:c", "//ok:d", "//recursion:a", "//rebind_build:ab"}
RDEPS = {"//fail_after:a", "//ok:c"}

CYCLE: dict[str, str] = {
    "WORKSPACE": 'workspace(name = "w")\n',
    "cycle/BUILD": 'load(":x.bzl", "x")\ncc_library(name = "a")\n',
    "cycle/x.bzl": 'load(":y.bzl", "y")\nx = 1\n',
    "cycle/y.bzl": 'load(":x.bzl", "x")\ny = 1\n',
    "ok/BUILD": 'cc_library(name = "c")\n',
}

#: @ext is a local repository: Bazel 4.2.3 evaluates it (VERSIONS = ["1"], so no fail()),
#: ctxsel does not, so VERSIONS is unknown to it and the comprehension over it empty
GUESSED: dict[str, str] = {
    "WORKSPACE": 'workspace(name = "w")\nlocal_repository(name = "ext", path = "ext_repo")\n',
    "ext_repo/WORKSPACE": 'workspace(name = "ext")\n',
    "ext_repo/BUILD": "",
    "ext_repo/defs.bzl": 'VERSIONS = ["1"]\n',
    "g/BUILD": (
        'load("@ext//:defs.bzl", "VERSIONS")\nload(":m.bzl", "per_version")\n'
        "MINE = [v for v in VERSIONS]\n"
        'per_version(name = "t", versions = MINE)\n'
        'cc_library(name = "after")\n'
    ),
    "g/m.bzl": (
        "def per_version(name, versions):\n"
        "    if versions == []:\n"
        '        fail("One or more versions must be specified.")\n'
        "    for v in versions:\n"
        '        native.cc_library(name = name + "_" + v)\n'
    ),
}
#: Bazel 4.2.3: ``kind(rule, //...)``; ctxsel cannot know //g:t_1 (a loop over another
#: repository's value), but must keep //g:after
GUESSED_RULES = {"//g:t_1", "//g:after"}


def _static(root: Path) -> Workspace:
    return Workspace.open(root, adapter="bazel", source="static", use_cache=False)


def _rules(ws: Workspace) -> set[str]:
    return {i for i in ws.graph if ws.adapter.reportable(ws.graph, i)}


def test_packages_bazel_stops_keep_only_what_bazel_keeps(tmp_path: Path) -> None:
    """Old: also //fail_after:b, //fail_in_macro:c, //recursion:c, both targets of
    //def_in_build and //kwargs_build, //bzl_fails:a, //shared:s and //rebind_bzl:b."""
    ws = _static(write_tree(tmp_path, ERRORS))
    assert _rules(ws) == RULES
    assert set(ws.blast_radius(["//fail_after:a"]).ids) == RDEPS
    stopped = next(w for w in ws.warnings if "Bazel stops a file on" in w)
    assert "bazel query fails" in stopped and "bzl_fails/BUILD:2: extension 'bzl_fails/m.bzl' has errors" in stopped
    assert "only in .bzl files" in " ".join(ws.warnings)
    # a label into a package that stopped is no "file its package does not declare"
    assert not [w for w in ws.warnings if "does not declare" in w], ws.warnings


@pytest.mark.parametrize("label, where", [
    ("//fail_after:b", "fail_after/BUILD:2: fail(): stop here"),
    ("//def_in_build:a", "def_in_build/BUILD:2: function definitions are not allowed"),
    ("//rebind_bzl:b", "rebind_bzl/BUILD:1: extension 'rebind_bzl/d.bzl' has errors (rebind_bzl/d.bzl:2: cannot reassign global 'v')"),
])
def test_a_target_after_the_error_is_unknown_and_the_error_is_named(tmp_path: Path, label: str, where: str) -> None:
    """Old: both were answered as targets Bazel does not have. (The hint names the first
    such error, as tool mode's names Bazel's first located ERROR line: one package here.)"""
    package = label[2:].partition(":")[0]
    ws = _static(write_tree(tmp_path, {k: v for k, v in ERRORS.items() if k == "WORKSPACE" or k.startswith(package + "/")}))
    with pytest.raises(UnknownTargetError) as err:
        ws.blast_radius([label])
    assert where in str(err.value)


def test_a_load_cycle_is_an_error_naming_the_cycle(tmp_path: Path) -> None:
    """Old: one lost statement, and //cycle:a and //ok:c were answered; Bazel answers
    nothing ("cycles detected during target parsing")."""
    with pytest.raises(ParseError) as err:
        _static(write_tree(tmp_path, CYCLE))
    assert err.value.location is not None and err.value.location.path == "cycle/y.bzl"
    assert "load() cycle: cycle/x.bzl -> cycle/y.bzl -> cycle/x.bzl" in str(err.value)


def test_a_fail_reached_through_a_guess_does_not_stop_the_file(tmp_path: Path) -> None:
    """Guards the stop against over-reach (passes on the old code too): the ``fail()`` is
    ctxsel's artefact of not evaluating @ext, so the statements after it still count, as
    rules_bazel_integration_test's ``bazel_integration_tests`` over ``bazel_binaries.versions``."""
    ws = _static(write_tree(tmp_path, GUESSED))
    assert "//g:after" in _rules(ws)
    assert not [w for w in ws.warnings if "Bazel stops a file on" in w], ws.warnings


@pytest.mark.oracle
def test_bazel_and_tool_mode_keep_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from test_probe12_bazel_differential import _Bazel

    root = write_tree(tmp_path / "ws", ERRORS)
    server = _Bazel(root)
    try:
        assert server.labels("kind(rule, //...)", "--keep_going") == RULES
        assert server.labels("rdeps(//..., //fail_after:a)", "--keep_going") == RDEPS
        guessed = _Bazel(write_tree(tmp_path / "guessed", GUESSED))
        try:
            assert guessed.labels("kind(rule, //...)") == GUESSED_RULES
        finally:
            guessed.shutdown()
        cycle = _Bazel(write_tree(tmp_path / "cycle", CYCLE))
        try:
            assert cycle.labels("//...", "--keep_going") == set()
        finally:
            cycle.shutdown()
    finally:
        server.shutdown()
    monkeypatch.setenv("CTXSEL_BAZEL", require("oracle-bazel4"))
    tool = Workspace.open(root, adapter="bazel", source="tool", use_cache=False)
    assert _rules(tool) == RULES == _rules(_static(root))
