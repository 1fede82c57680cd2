"""A BUILD file that reads an undefined name fails whole, as in Bazel (session 27).

Found on tensorflow/probability: a BUILD file calls ``fun_mc(...)``, which it never loads.
Bazel 4.2.3 resolves a BUILD file's names before running it, so the file fails ("name
'fun_mc' is not defined") and ``bazel query --keep_going`` has no target of it; static mode
took ``fun_mc`` as a rule kind and kept all 19. Measured on the fixture below: a call of an
undefined name and a mere read of one (``z = not_defined``) both leave the package empty,
even when the name comes after the targets; loaded symbols, comprehension variables and the
BUILD-only globals (``json``, ``proto``, ``depset``, ``distribs``, ...) are defined. In a
macro, ``native.no_such_rule`` stops the file there ("no native function or rule"), and
``hasattr(native, "cc_library")`` is True (static mode said False and skipped the branch).

The names Bazel 4.2.3 defines are ``BAZEL_4_BUILD_GLOBALS``; the oracle tests below measure
it both ways: every one of them loads, and Bazel's own list of native rules and functions
(its error for ``native.no_such_rule``) holds nothing else.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from ctxsel.adapters.bazel.starlark_builtins import BAZEL_4_BUILD_GLOBALS
from conftest import write_tree
from ctxsel.workspace import Workspace
from oracles import require, run

FILES: dict[str, str] = {
    "WORKSPACE": 'workspace(name = "w")\n',
    "call/BUILD": 'cc_library(name = "x")\nfun_mc(name = "y")\n',
    "read/BUILD": 'cc_library(name = "x")\nz = not_defined_anywhere\n',
    "late/BUILD": 'cc_library(name = "x", deps = ["//ok:a"])\ncc_library(name = "y", srcs = [f for f in undefined_files])\n',
    "ok/defs.bzl": 'def mac(name):\n    native.cc_library(name = name)\n',
    "ok/BUILD": (
        'load(":defs.bzl", renamed = "mac")\n'
        'renamed(name = "a")\n'
        'NAMES = [n + "_c" for n in ["b"]]\n'
        'licenses(["notice"])\n'
        'distribs(["x"])\n'
        '_modules = [json, proto, depset([1])]\n'
        'cc_library(name = "d", srcs = select({"//conditions:default": []}), deps = [":a"], tags = NAMES)\n'
    ),
    "use/BUILD": 'cc_library(name = "u", deps = ["//ok:a"])\n',
    "nat/defs.bzl": (
        "def m():\n"
        '    if hasattr(native, "cc_library"):\n'
        '        native.cc_library(name = "has_cc")\n'
        '    if hasattr(native, "no_such_rule"):\n'
        '        native.cc_library(name = "has_no_such_rule")\n'
        '    if getattr(native, "no_such_rule", None) == None:\n'
        '        getattr(native, "cc_library")(name = "by_getattr")\n'
        '    native.cc_library(name = "before")\n'
        '    native.no_such_rule(name = "x")\n'
        '    native.cc_library(name = "after")\n'
    ),
    "nat/BUILD": 'load(":defs.bzl", "m")\nm()\n',
}

#: Bazel 4.2.3: ``bazel query --keep_going 'kind(rule, //...)'`` (exit 3) on FILES
RULES = {"//ok:a", "//ok:d", "//use:u", "//nat:has_cc", "//nat:by_getattr", "//nat:before"}


def _rules(ws: Workspace) -> set[str]:
    return {i for i in ws.graph if ws.adapter.reportable(ws.graph, i)}


def test_an_undefined_name_fails_the_whole_build_file(tmp_path: Path) -> None:
    """Old: also //call:x, //call:y (kind fun_mc), //read:x, //late:x, //nat:x (kind
    no_such_rule) and //nat:after, but not //nat:has_cc (``hasattr(native, "cc_library")``
    was False) nor //nat:by_getattr."""
    ws = Workspace.open(write_tree(tmp_path, FILES), adapter="bazel", source="static", use_cache=False)
    assert _rules(ws) == RULES
    warning = next(w for w in ws.warnings if "is not defined" in w)
    assert warning.startswith("static: 3 BUILD file(s)"), warning
    assert "call/BUILD:2: name 'fun_mc' is not defined" in warning


def test_a_name_of_another_bazel_build_keeps_the_file(tmp_path: Path) -> None:
    """Upstream Bazel 4.2.3 defines ``android_device`` (the Debian build measured here does
    not): the file keeps its targets, the call is a rule of that kind, with a warning."""
    files = {"WORKSPACE": 'workspace(name = "w")\n',
             "dev/BUILD": 'cc_library(name = "x")\nandroid_device(name = "d", system_image = ":x")\n'}
    ws = Workspace.open(write_tree(tmp_path, files), adapter="bazel", source="static", use_cache=False)
    assert _rules(ws) == {"//dev:x", "//dev:d"}
    assert not any("is not defined" in w for w in ws.warnings)
    assert any("android_device" in w for w in ws.warnings)


def test_the_cli_warns_and_answers(tmp_path: Path, cli) -> None:
    """A warning on stderr naming the file and line, exit 0, the answer without the file."""
    root = write_tree(tmp_path, FILES)
    result = cli("--repo", str(root), "--source", "static", "--no-cache", "blast-radius", "//ok:a")
    assert result.returncode == 0, result.stderr
    assert "call/BUILD:2: name 'fun_mc' is not defined" in result.stderr
    assert "//use:u" in result.stdout and "//late:" not in result.stdout


@pytest.mark.oracle
def test_bazel_answers_so_and_the_bazel_4_list_is_exact(tmp_path: Path) -> None:
    """One ``bazel query --keep_going`` (Bazel 4.2.3): RULES on FILES; each name of
    BAZEL_4_BUILD_GLOBALS loads in a BUILD file (one package each); and Bazel's list of the
    ``native`` module's members (its error for an unknown one) is in it, so the rules and
    functions are all there and the rest is the Starlark universe."""
    bazel = require("oracle-bazel4")
    files = {**FILES,
             "bad/defs.bzl": "def bad():\n    native.no_such_rule()\n",
             "bad/BUILD": 'load(":defs.bzl", "bad")\nbad()\n'}
    files.update({f"n_{name}/BUILD": f'_v = {name}\nfilegroup(name = "ok")\n' for name in BAZEL_4_BUILD_GLOBALS})
    root = write_tree(tmp_path, files)
    proc = run([bazel, "query", "kind(rule, //...)", "--keep_going", "--noshow_progress"], root, check=False)
    assert proc.returncode == 3, proc.stderr[-2000:]
    labels = set(proc.stdout.split())
    assert {x for x in labels if not x.startswith("//n_")} == RULES
    assert {x[len("//n_"):-len(":ok")] for x in labels if x.startswith("//n_")} == set(BAZEL_4_BUILD_GLOBALS)
    native = re.search(r"Available attributes: (.*)", proc.stderr)
    assert native is not None, proc.stderr[-2000:]
    assert set(native.group(1).split(", ")) <= BAZEL_4_BUILD_GLOBALS
