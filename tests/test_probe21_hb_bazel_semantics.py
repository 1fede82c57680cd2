"""Graph semantics the session 21 Bazel sweep found wrong (rules_android, angular-cli).

- rules_android (13 statements lost): ``string_flag(build_setting_default = "rules_android/")``
  was read as a label ("invalid label"), as ``build_setting_default`` was a label attribute
  for every kind; only ``label_flag``/``label_setting`` hold a label there, and query follows
  no edge from it. And ``test/utils/unittest.bzl`` forwards skylib's ``unittest.begin`` in a
  struct at load time: ctxsel's skylib stand-in had no ``begin``, which failed that file and
  the 11 statements loading it.
- angular-cli (81 labels): ``npm_link_all_packages()`` (rules_js, no ``name``) makes
  ``//:node_modules/<package>``; ctxsel called every label to one "a file its package does
  not declare", which "bazel query fails on".
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write_tree
from ctxsel.workspace import Workspace
from oracles import require

#: @bazel_skylib is a local repository Bazel 4.2.3 evaluates (a minimal common_settings);
#: ctxsel does not, so string_flag/bool_flag are rules of an unknown kind to it
FLAGS: dict[str, str] = {
    "WORKSPACE": 'workspace(name = "w")\nlocal_repository(name = "bazel_skylib", path = "skylib")\n',
    "skylib/WORKSPACE": 'workspace(name = "bazel_skylib")\n',
    "skylib/BUILD": "",
    "skylib/rules/BUILD": "",
    "skylib/rules/common_settings.bzl": (
        "def _impl(ctx):\n    return []\n\n"
        "string_flag = rule(implementation = _impl, build_setting = config.string(flag = True))\n"
        "bool_flag = rule(implementation = _impl, build_setting = config.bool(flag = True))\n"
    ),
    "f/BUILD": (
        'load("@bazel_skylib//rules:common_settings.bzl", "bool_flag", "string_flag")\n'
        'string_flag(name = "prefix", build_setting_default = "rules_android/")\n'
        'string_flag(name = "labelish", build_setting_default = "//t:x")\n'
        'bool_flag(name = "on", build_setting_default = True)\n'
        'label_flag(name = "lf", build_setting_default = "//t:x")\n'
    ),
    "t/BUILD": 'filegroup(name = "x", visibility = ["//visibility:public"])\n',
}
#: measured with Bazel 4.2.3: kind(rule, //...) and rdeps(//..., //t:x)
FLAGS_RULES = {"//f:prefix", "//f:labelish", "//f:on", "//f:lf", "//t:x"}
FLAGS_RDEPS = {"//t:x"}


def _static(root: Path) -> Workspace:
    return Workspace.open(root, adapter="bazel", source="static", use_cache=False)


def _rules(ws: Workspace) -> set[str]:
    return {i for i in ws.graph if ws.adapter.reportable(ws.graph, i)}


def test_build_setting_defaults_are_values_not_labels(tmp_path: Path) -> None:
    """Old: "//f:prefix: invalid label 'rules_android/'" and an edge //f:labelish -> //t:x."""
    ws = _static(write_tree(tmp_path, FLAGS))
    assert _rules(ws) == FLAGS_RULES
    assert set(ws.blast_radius(["//t:x"]).ids) == FLAGS_RDEPS
    assert not [w for w in ws.warnings if "could not be evaluated" in w], ws.warnings


@pytest.mark.oracle
def test_bazel_reads_build_setting_defaults_so(tmp_path: Path) -> None:
    from test_probe12_bazel_differential import _Bazel

    require("bazel-4")
    server = _Bazel(write_tree(tmp_path / "ws", FLAGS))
    try:
        assert server.labels("//...") == FLAGS_RULES
        assert server.labels("rdeps(//..., //t:x)") == FLAGS_RDEPS
    finally:
        server.shutdown()


def test_a_bzl_forwarding_skylib_unittest_functions_loads(tmp_path: Path) -> None:
    """rules_android's shape: its own ``unittest`` struct forwards skylib's analysis-time
    functions; the test rule made from it and the suite's targets must exist."""
    ws = _static(write_tree(tmp_path, {
        "WORKSPACE": "",
        "u/BUILD": "",
        "u/lib.bzl": (
            'load("@bazel_skylib//lib:unittest.bzl", "asserts", _analysistest = "analysistest", _unittest = "unittest")\n'
            "unittest = struct(begin = _unittest.begin, end = _unittest.end, make = _unittest.make, suite = _unittest.suite)\n"
            "analysistest = struct(make = _analysistest.make, begin = _analysistest.begin, target = _analysistest.target_under_test)\n"
            "checks = asserts\n"
        ),
        "t/test.bzl": (
            'load("//u:lib.bzl", "analysistest", "checks", "unittest")\n'
            "def _impl(ctx):\n"
            "    env = unittest.begin(ctx)\n"
            "    checks.true(env, True)\n"
            "    return unittest.end(env)\n\n"
            "lib_test = analysistest.make(_impl)\n"
            "plain_test = unittest.make(_impl)\n"
        ),
        "t/BUILD": (
            'load(":test.bzl", "lib_test", "plain_test")\n'
            'filegroup(name = "lib")\n'
            'lib_test(name = "lib_test", target_under_test = ":lib")\n'
            'plain_test(name = "plain_test")\n'
        ),
    }))
    assert _rules(ws) == {"//t:lib", "//t:lib_test", "//t:plain_test"}
    assert set(ws.blast_radius(["//t:lib"]).ids) == {"//t:lib", "//t:lib_test"}
    assert not [w for w in ws.warnings if "could not be evaluated" in w], ws.warnings


def test_targets_another_repositorys_macro_may_create_are_not_called_undeclared(tmp_path: Path) -> None:
    """rules_js's ``npm_link_all_packages()`` (no name) may create any target of its
    package; ``ts_project(name = "x")`` may create ``x_types``/``x/...`` but not ``y``."""
    ws = _static(write_tree(tmp_path, {
        "WORKSPACE": "",
        "BUILD": 'load("@npm//:defs.bzl", "npm_link_all_packages")\nnpm_link_all_packages()\n',
        "p/BUILD": 'load("@ts//:defs.bzl", "ts_project")\nts_project(name = "x", srcs = [])\n',
        "q/BUILD": (
            'filegroup(name = "q", srcs = ["//:node_modules/@types/node", "//p:x_types", "//p:x/sub", "//p:y.js"])\n'
        ),
    }))
    unseen = [w for w in ws.warnings if "did not find" in w]
    assert len(unseen) == 1, ws.warnings
    assert "npm_link_all_packages (BUILD:2)" in unseen[0] and "ts_project (p/BUILD:2)" in unseen[0]
    assert "3 label(s)" in unseen[0]
    undeclared = [w for w in ws.warnings if "does not declare" in w]
    assert len(undeclared) == 1 and "1 label(s)" in undeclared[0] and "//p:y.js" in undeclared[0]


def test_environment_and_arguments_of_an_unknown_rule_are_no_labels(tmp_path: Path) -> None:
    """rules_lint's ``format_multirun`` calls rules_multirun's ``command`` with
    ``environment = {"FIX_TARGET": "//p:<the command itself>"}`` (a string dict for Bazel):
    old, a self-edge and a "dependency cycle" warning."""
    ws = _static(write_tree(tmp_path, {
        "WORKSPACE": "",
        "p/BUILD": (
            'load("@rules_multirun//:defs.bzl", "command")\n'
            'sh_binary(name = "tool", srcs = ["t.sh"])\n'
            'command(name = "fmt", command = ":tool", environment = {"FIX_TARGET": "//p:fmt"}, arguments = ["//p:fmt"])\n'
        ),
    }))
    assert set(ws.blast_radius(["//p:tool"]).ids) == {"//p:tool", "//p:fmt"}
    assert ws.graph.dependencies("//p:fmt") == ["//p:tool"]
    assert not [w for w in ws.warnings if "cycle" in w], ws.warnings
