"""Aspect dependencies and ``label_flag`` defaults in static mode, as ``bazel query`` sees them.

Session 18's sweep of rules_rust 0.1.0 (WORKSPACE reduced to local skylib 1.1.1,
rules_proto 4.0.0 and a rules_pkg stub; six packages that need other repositories fail in
Bazel too): static mode agreed with ``bazel query '//...:*'`` on 655 of 683 rules'
dependents, 676 of 683 after these fixes (the 7 left: ``//:distro`` reached only through
packages Bazel could not load).

- An aspect's label defaults are deps of every target whose attribute carrying the aspect
  has a value (``--aspect_deps=conservative``, query's default): ``rust_clippy(deps =
  [...])`` depends on ``//:clippy.toml`` through ``rust_clippy_aspect``'s ``_config``, and
  skylib's ``analysistest.make(extra_target_under_test_aspects = [...])`` tests too. ctxsel
  dropped ``aspect()`` (unknown), so 4 rules' dependents lacked 9 clippy targets.
- ``label_flag``/``label_setting``'s ``build_setting_default`` is no edge for query (the
  value reaches users through a late-bound attribute). ctxsel had one, which closed a cycle
  in //util/import and gave 17 rules extra dependents.

The constants are measured with Bazel 4.2.3 on ``TREE``; the oracle test asks it again.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write_tree
from ctxsel.workspace import Workspace
from oracles import require

TREE: dict[str, str] = {
    "WORKSPACE": 'workspace(name = "w")\n',
    "lib/defs.bzl": (
        "def _impl(target, ctx):\n    return []\n\n"
        "A = aspect(\n    implementation = _impl,\n    attr_aspects = [\"deps\"],\n    attrs = {\n"
        '        "_tool": attr.label(default = "//tools:tool"),\n'
        '        "_rel": attr.label(default = ":helper"),\n'
        '        "_lbl": attr.label(default = Label("//tools:conf")),\n'
        '        "_many": attr.label_list(default = ["//tools:l1", "//tools:l2"]),\n'
        "    },\n)\n\n"
        'B = aspect(implementation = _impl, attrs = {"_b": attr.label(default = "//tools:btool")})\n\n'
        "def _rimpl(ctx):\n    return []\n\n"
        'r1 = rule(implementation = _rimpl, attrs = {"deps": attr.label_list(aspects = [A]), "other": attr.label_list()})\n'
        'r2 = rule(implementation = _rimpl, attrs = {"dep": attr.label(aspects = [A, B])})\n'
        'r3 = rule(implementation = _rimpl, attrs = {"dep": attr.label(default = "//tools:dflt", aspects = [B])})\n'
    ),
    "lib/BUILD": 'filegroup(name = "helper", visibility = ["//visibility:public"])\n',
    "tools/BUILD": '[filegroup(name = n, visibility = ["//visibility:public"]) for n in ["tool", "conf", "l1", "l2", "btool", "dflt", "x"]]\n',
    "u/BUILD": (
        'load("//lib:defs.bzl", "r1", "r2", "r3")\n'
        'filegroup(name = "lib")\n'
        'r1(name = "full", deps = [":lib"])\n'
        'r1(name = "empty", deps = [])\n'
        'r1(name = "unset")\n'
        'r1(name = "other_only", other = [":lib"])\n'
        'r2(name = "single", dep = ":lib")\n'
        'r2(name = "single_unset")\n'
        'r3(name = "dflt")\n'
        'r1(name = "sel", deps = select({"//conditions:default": []}))\n'
        'config_setting(name = "cfg", values = {"compilation_mode": "dbg"})\n'
        'r1(name = "sel2", deps = select({":cfg": [":lib"], "//conditions:default": []}))\n'
        'label_flag(name = "lf", build_setting_default = "//tools:x")\n'
        'label_setting(name = "ls", build_setting_default = "//tools:x")\n'
        'filegroup(name = "uses_lf", srcs = [":lf"])\n'
    ),
}
_A = {"//u:full", "//u:single", "//u:sel2"}
#: measured: the //u targets of rdeps(//u:all, X)
RDEPS: dict[str, set[str]] = {
    "//tools:tool": _A,
    "//lib:helper": _A,  # ":helper" in the .bzl's attr.label(): //lib:helper
    "//tools:conf": _A,
    "//tools:l1": _A,
    "//tools:l2": _A,
    "//tools:btool": {"//u:single", "//u:dflt"},  # dflt: the attribute's default is a value too
    "//tools:dflt": {"//u:dflt"},
    "//tools:x": set(),  # label_flag/label_setting defaults: no edge
    "//u:lf": {"//u:lf", "//u:uses_lf"},
}


def _rdeps(ws: Workspace, label: str) -> set[str]:
    return {i for i in ws.blast_radius(roots=[label]).ids if i.startswith("//u:")}


def test_aspect_defaults_are_deps_and_label_flag_defaults_are_not(tmp_path: Path) -> None:
    ws = Workspace.open(write_tree(tmp_path, TREE), adapter="bazel", source="static", use_cache=False)
    for label, want in RDEPS.items():
        assert _rdeps(ws, label) == want, label
    assert not [w for w in ws.warnings if "cycle" in w]


def test_analysistest_extra_target_under_test_aspects_are_deps(tmp_path: Path) -> None:
    tree = {
        **TREE,
        "t/defs.bzl": (
            'load("@bazel_skylib//lib:unittest.bzl", "analysistest")\n'
            'load("//lib:defs.bzl", "B")\n'
            "def _impl(ctx):\n    env = analysistest.begin(ctx)\n    return analysistest.end(env)\n"
            "aspect_test = analysistest.make(_impl, extra_target_under_test_aspects = [B])\n"
        ),
        "t/BUILD": 'load(":defs.bzl", "aspect_test")\nfilegroup(name = "x")\naspect_test(name = "a_test", target_under_test = ":x")\n',
    }
    ws = Workspace.open(write_tree(tmp_path, tree), adapter="bazel", source="static", use_cache=False)
    assert set(ws.blast_radius(roots=["//tools:btool"]).ids) >= {"//t:a_test"}
    assert set(ws.blast_radius(roots=["//t:x"]).ids) == {"//t:x", "//t:a_test"}


@pytest.mark.oracle
def test_aspect_and_label_flag_rdeps_match_bazel(tmp_path: Path) -> None:
    from test_probe12_bazel_differential import _Bazel

    require("bazel-4")
    server = _Bazel(write_tree(tmp_path / "ws", TREE))
    ws = Workspace.open(server.workspace, adapter="bazel", source="static", use_cache=False)
    try:
        for label, want in RDEPS.items():
            bazel = {x for x in server.labels(f"rdeps(//u:all, {label})") if x.startswith("//u:")}
            assert bazel == want == _rdeps(ws, label), label
    finally:
        server.shutdown()
