"""skylib's ``build_test``, ``diff_test``, ``write_file`` and ``copy_file`` macros in static mode.

Session 18's sweep of rules_jvm_external 4.2 (WORKSPACE reduced to local skylib 1.1.1 and
rules_proto 4.0.0; //, //tests/unit/kotlin and //tests/integration/override_targets fail
in Bazel too): static mode had 160 of Bazel's 217 rules. Both macros were taken as one
target of kind ``build_test``/``diff_test``: build_test's ``<name>_<i>__deps`` genrules
(one per batch of ``max(1, len(targets) // 100)`` targets) were missing, and diff_test's
``file1``/``file2`` were no label attributes, so ``//tests/unit/manifest_stamp:extract_manifest``
lost its dependent ``diff_manifest_test``. With the stand-ins: 217 of 217 rules, every
rule's dependents, kinds and test set equal Bazel's. ``write_file``/``copy_file`` (rules_rust
0.1.0) gave targets of kind ``write_file``/``copy_file`` where Bazel has ``_write_file``,
``_write_xfile``, ``_copy_file``, ``_copy_xfile``.

The constants are ``bazel query`` answers of Bazel 4.2.3 with bazel-skylib 1.1.1 as a
local_repository (the fixture needs skylib, which the oracle install does not provide).
"""

from __future__ import annotations

from pathlib import Path

from conftest import write_tree
from ctxsel.workspace import Workspace

TREE: dict[str, str] = {
    "WORKSPACE": 'workspace(name = "w")\n',
    "t/BUILD": (
        'load("@bazel_skylib//rules:build_test.bzl", "build_test")\n'
        'load("@bazel_skylib//rules:diff_test.bzl", "diff_test")\n'
        '[filegroup(name = "f%d" % i) for i in range(200)]\n'
        'filegroup(name = "a", srcs = ["a.txt"])\n'
        'genrule(name = "gen", outs = ["gen.txt"], cmd = "touch $@")\n'
        'build_test(name = "small", targets = [":a", ":gen", ":a"], tags = ["manual"])\n'
        'build_test(name = "big", targets = [":f%d" % i for i in range(200)])\n'
        'diff_test(name = "same", file1 = ":gen.txt", file2 = "golden.txt", size = "small")\n'
        'load("@bazel_skylib//rules:write_file.bzl", "write_file")\n'
        'load("@bazel_skylib//rules:copy_file.bzl", "copy_file")\n'
        'write_file(name = "w", out = "w.txt", content = ["a"])\n'
        'write_file(name = "wx", out = "wx.sh", is_executable = True)\n'
        'copy_file(name = "c", src = ":w.txt", out = "c.txt")\n'
        'copy_file(name = "cx", src = "a.txt", out = "cx.sh", is_executable = True)\n'
        'filegroup(name = "uses", srcs = [":c.txt", ":wx.sh"])\n'
    ),
    "t/a.txt": "a\n",
    "t/golden.txt": "g\n",
}
#: measured: bazel query 'kind(rule, //t:all)' --output=label_kind, without //t:f* and //t:big_*__deps
KINDS = {
    "//t:same": "_diff_test", "//t:big": "_empty_test", "//t:small": "_empty_test",
    "//t:a": "filegroup", "//t:gen": "genrule", "//t:small_0__deps": "genrule", "//t:small_1__deps": "genrule",
    "//t:w": "_write_file", "//t:wx": "_write_xfile", "//t:c": "_copy_file", "//t:cx": "_copy_xfile",
    "//t:uses": "filegroup",
}
BIG_BATCHES = 100  # measured: //t:big_0__deps .. //t:big_99__deps, genrules
#: measured: kind(rule, rdeps(//..., X))
RDEPS = {
    "//t:a": {"//t:small", "//t:small_0__deps", "//t:a"},
    "//t:f7": {"//t:big", "//t:big_3__deps", "//t:f7"},
    "//t:gen": {"//t:small", "//t:small_1__deps", "//t:same", "//t:gen"},
    "t/golden.txt": {"//t:same"},
    "t/a.txt": {"//t:a", "//t:cx", "//t:small", "//t:small_0__deps"},
    "//t:w": {"//t:c", "//t:uses", "//t:w"},
    "//t:wx": {"//t:uses", "//t:wx"},
}
#: measured: attr(tags, manual, //t:all) -- build_test passes its tags on to the genrules
MANUAL = {"//t:small", "//t:small_0__deps", "//t:small_1__deps"}


def test_build_test_and_diff_test_create_what_bazel_creates(tmp_path: Path) -> None:
    ws = Workspace.open(write_tree(tmp_path, TREE), adapter="bazel", source="static", use_cache=False)
    graph = ws.graph
    rules = {i for i in graph.nodes_in_package("t") if ws.adapter.reportable(graph, i)}
    batches = {i for i in rules if i.startswith("//t:big_") and i.endswith("__deps")}
    assert batches == {f"//t:big_{i}__deps" for i in range(BIG_BATCHES)}
    assert {i: graph.node(i).kind for i in rules if i in KINDS} == KINDS
    assert rules - batches - set(KINDS) == {f"//t:f{i}" for i in range(200)}
    assert {i for i in rules if "manual" in graph.node(i).tags} == MANUAL
    for start, want in RDEPS.items():
        assert set(ws.blast_radius(roots=ws.resolve([start])).ids) == want, start
    # both tests are test rules; the manual one is not run by `bazel test //...`
    assert ws.adapter.test_nodes(graph, rules) == ["//t:big", "//t:same"]
