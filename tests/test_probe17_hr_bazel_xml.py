"""Bazel tool mode on rules_pkg 0.7.0 (session 17's public-monorepo sweep).

Bazel before 6.4 only has ``--output=xml`` for the graph query, and it writes a string
attribute's control characters as character references: ``&#0;`` for rules_pkg's
``REMOVE_BASE_DIRECTORY = "\\0"`` in ``pkg_files(renames = ...)`` (tests/rpm/tree_artifacts),
``&#27;`` for a genrule ``cmd`` with an ANSI escape. expat (XML 1.0) refuses those, so
ctxsel's tool mode failed the whole graph with "not valid bazel query xml: reference to
invalid character number" (exit 2) on a workspace Bazel loads fine. Labels cannot hold
such characters (Bazel 4.2.3: "target names may not contain non-printable characters").
"""

from __future__ import annotations

import os
import subprocess

import pytest
from conftest import write_tree
from ctxsel.adapters.bazel.query import load_query_output
from oracles import oracle_env, require

#: measured: ``bazel query '//...:*' --output=xml`` (Bazel 4.2.3) of WS below, locations shortened
XML = """<?xml version="1.1" encoding="UTF-8" standalone="no"?>
<query version="2">
    <generated-file generating-rule="//:g" location="/ws/BUILD:1:8" name="//:o.txt"/>
    <rule class="filegroup" location="/ws/BUILD:2:10" name="//:f">
        <string name="name" value="f"/>
        <list name="srcs">
            <label value="//:g"/>
        </list>
        <rule-input name="//:g"/>
    </rule>
    <rule class="genrule" location="/ws/BUILD:1:8" name="//:g">
        <string name="name" value="g"/>
        <list name="srcs">
            <label value="//:a.txt"/>
        </list>
        <list name="outs">
            <output value="//:o.txt"/>
        </list>
        <string name="cmd" value="echo &#0; &#1; &#9; &#27; &#x1f; &gt; $@"/>
        <rule-input name="//:a.txt"/>
        <rule-output name="//:o.txt"/>
    </rule>
    <source-file location="/ws/BUILD:1:8" name="//:a.txt">
        <visibility-label name="//visibility:private"/>
    </source-file>
</query>
"""
WS = {
    "WORKSPACE": 'workspace(name = "w")\n',
    "BUILD": 'genrule(name = "g", srcs = ["a.txt"], outs = ["o.txt"], cmd = "echo \\0 \\1 \\t \\033 > $@")\n'
             'filegroup(name = "f", srcs = [":g"])\n',
    "a.txt": "x\n",
}


def _dependents_of_file(ws, path: str) -> set[str]:
    """The rules ``blast-radius --files PATH`` lists."""
    ids = ws.roots(files=[path])[0]
    return {i for i in ws.blast_radius(roots=ids).ids if ws.adapter.reportable(ws.graph, i)}


def test_control_character_references_in_query_xml_do_not_fail_the_graph():
    graph = load_query_output(XML, "q.xml", "/ws")
    assert {"//:f", "//:g"} <= set(graph)


def test_control_characters_in_query_xml_keep_the_edges(tmp_path):
    """The edges around the genrule survive: a.txt -> g -> f, as Bazel's rdeps says."""
    from ctxsel.workspace import Workspace

    write_tree(tmp_path / "ws", WS)
    (tmp_path / "q.xml").write_text(XML)
    ws = Workspace.open(tmp_path / "ws", adapter="bazel", source="tool", query_file=str(tmp_path / "q.xml"), use_cache=False)
    assert _dependents_of_file(ws, "a.txt") == {"//:g", "//:f"}


@pytest.mark.oracle
def test_tool_mode_reads_bazels_own_xml_with_control_characters(tmp_path):
    """ctxsel's tool mode runs Bazel 4.2.3 itself and answers what static mode answers."""
    from ctxsel.workspace import Workspace

    bazel = require("oracle-bazel4")
    root = write_tree(tmp_path / "ws", WS)
    saved = os.environ.get("CTXSEL_BAZEL")
    os.environ["CTXSEL_BAZEL"] = bazel
    try:
        tool = Workspace.open(root, adapter="bazel", source="tool", use_cache=False)
        static = Workspace.open(root, adapter="bazel", source="static", use_cache=False)
        for ws in (tool, static):
            assert _dependents_of_file(ws, "a.txt") == {"//:g", "//:f"}
    finally:
        if saved is None:
            os.environ.pop("CTXSEL_BAZEL", None)
        else:
            os.environ["CTXSEL_BAZEL"] = saved
        subprocess.run([bazel, "shutdown"], check=False, cwd=root, env=oracle_env(), capture_output=True, timeout=120)
