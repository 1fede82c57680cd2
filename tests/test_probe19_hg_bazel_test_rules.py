"""``@bazel_tools//tools/build_rules:test_rules.bzl`` in static mode.

Its ``rule_test``, ``file_test``, ``successful_test`` and ``failed_test`` are macros: each
makes an ``sh_test`` of the given name and a private, testonly helper rule ``<name>_impl``
(``_rule_test_rule``, ``_file_test_rule``, ``_successful_rule``, ``_failed_rule``) with an
output ``<name>.sh`` (rule_test) or ``<name>_impl.sh`` (the others). Static mode does not read
``@bazel_tools``, so the call was one target of kind ``rule_test``/``file_test``: no test rule
for ``ctxsel tests``, no helper, and a rule depending on the helper's output lost its edge.

The constants are Bazel 4.2.3's answers (``bazel query ... --output=label_kind``) for TREE;
``test_matches_bazel`` asks the installed oracle again.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write_tree
from ctxsel.workspace import Workspace

TREE: dict[str, str] = {
    "WORKSPACE": 'workspace(name = "w")\n',
    "t/BUILD": (
        'load("@bazel_tools//tools/build_rules:test_rules.bzl", "failed_test", "file_test", "rule_test", "successful_test")\n'
        'genrule(name = "gen", outs = ["gen.txt"], cmd = "touch $@")\n'
        'filegroup(name = "fg", srcs = ["a.txt"])\n'
        'rule_test(name = "gen_rule_test", rule = ":gen", generates = ["gen.txt"], size = "small", tags = ["x"])\n'
        'rule_test(name = "fg_rule_test", rule = ":fg", visibility = ["//visibility:public"], args = ["--a"], tags = ["manual"])\n'
        'file_test(name = "ft", file = ":gen.txt", content = "")\n'
        'file_test(name = "ft2", file = "a.txt", regexp = "a", matches = 1)\n'
        'successful_test(name = "ok", msg = "yes")\n'
        'failed_test(name = "bad", msg = "no")\n'
        'filegroup(name = "uses", srcs = [":ft2_impl.sh", ":gen_rule_test.sh"], testonly = 1)\n'
    ),
    "t/a.txt": "a\n",
}
#: measured: bazel query 'kind(rule, //t:all)' --output=label_kind
KINDS = {
    "//t:uses": "filegroup", "//t:gen": "genrule", "//t:fg": "filegroup",
    "//t:ok": "sh_test", "//t:ok_impl": "_successful_rule",
    "//t:bad": "sh_test", "//t:bad_impl": "_failed_rule",
    "//t:gen_rule_test": "sh_test", "//t:gen_rule_test_impl": "_rule_test_rule",
    "//t:fg_rule_test": "sh_test", "//t:fg_rule_test_impl": "_rule_test_rule",
    "//t:ft": "sh_test", "//t:ft_impl": "_file_test_rule",
    "//t:ft2": "sh_test", "//t:ft2_impl": "_file_test_rule",
}
#: measured: kind(rule, rdeps(//t:all, X))
RDEPS = {
    "//t:gen": {"//t:gen", "//t:uses", "//t:gen_rule_test", "//t:gen_rule_test_impl", "//t:ft", "//t:ft_impl"},
    "//t:fg": {"//t:fg", "//t:fg_rule_test", "//t:fg_rule_test_impl"},
    "t/a.txt": {"//t:fg", "//t:fg_rule_test", "//t:fg_rule_test_impl", "//t:ft2", "//t:ft2_impl", "//t:uses"},
}
#: measured: attr(tags, manual, //t:all) -- the helper takes the test's tags
MANUAL = {"//t:fg_rule_test", "//t:fg_rule_test_impl"}


def _static(tmp_path: Path) -> Workspace:
    return Workspace.open(write_tree(tmp_path, TREE), adapter="bazel", source="static", use_cache=False)


def _rules(ws: Workspace) -> set[str]:
    return {i for i in ws.graph.nodes_in_package("t") if ws.adapter.reportable(ws.graph, i)}


def test_test_rules_macros_create_what_bazel_creates(tmp_path: Path) -> None:
    ws = _static(tmp_path)
    graph = ws.graph
    assert {i: graph.node(i).kind for i in _rules(ws)} == KINDS
    assert {i for i in _rules(ws) if "manual" in graph.node(i).tags} == MANUAL
    for start, want in RDEPS.items():
        assert set(ws.blast_radius(roots=ws.resolve([start])).ids) == want, start
    # the sh_tests are tests; the manual one is not run by `bazel test //...`
    assert ws.adapter.test_nodes(graph, sorted(_rules(ws))) == ["//t:bad", "//t:ft", "//t:ft2", "//t:gen_rule_test", "//t:ok"]
    # a change of the genrule re-runs the tests checking it
    assert ws.adapter.test_nodes(graph, ws.blast_radius(roots=["//t:gen"]).ids) == ["//t:ft", "//t:gen_rule_test"]


def test_load_results_makes_the_passing_or_failing_test(tmp_path: Path) -> None:
    tree = {**TREE, "t/BUILD": (
        'load("@bazel_tools//tools/build_rules:test_rules.bzl", "load_results")\n'
        'load_results(name = "same", result = 3, expect = 3)\n'
        'load_results(name = "differ", result = 3, expect = 4)\n'
    )}
    ws = Workspace.open(write_tree(tmp_path, tree), adapter="bazel", source="static", use_cache=False)
    assert {i: ws.graph.node(i).kind for i in _rules(ws)} == {
        "//t:same": "sh_test", "//t:same_impl": "_successful_rule", "//t:differ": "sh_test", "//t:differ_impl": "_failed_rule"}


@pytest.mark.oracle
def test_matches_bazel(tmp_path: Path) -> None:
    from tests.oracles import require
    from tests.test_bazel_oracle import BazelServer

    require("bazel-4")
    ws = _static(tmp_path / "s")
    server = BazelServer(write_tree(tmp_path / "b", TREE))
    try:
        kinds = {}
        for line in server.query("kind(rule, //t:all)", "label_kind"):
            kind, _, label = line.rpartition(" ")
            kinds[label] = kind.removesuffix(" rule")
        assert {i: ws.graph.node(i).kind for i in _rules(ws)} == kinds
        for start in RDEPS:
            rules, _ = server.rdeps(f"//{start.replace('/', ':')}" if not start.startswith("//") else start)
            assert set(ws.blast_radius(roots=ws.resolve([start])).ids) == rules, start
        assert {i for i in _rules(ws) if "manual" in ws.graph.node(i).tags} == set(server.query("attr(tags, manual, //t:all)"))
    finally:
        server.shutdown()
