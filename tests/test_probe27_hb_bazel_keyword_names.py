"""A keyword argument named like ctxsel's own parameter of a method (session 27).

Found on envoyproxy/toolshed: ``bazel/sysroot/fs.bzl`` names 8 genrules with
``"sysroot_glibc{v}{s}_{a}".format(v = ..., s = ..., a = ...)``. ctxsel's ``str.format``
took the string itself as a parameter ``s``, so the call failed ("got multiple values for
argument 's'"), the statement was lost and the 8 genrules with it; Bazel 4.2.3 makes them
(``bazel query --keep_going 'kind(rule, //...)'`` on the fixture below, which also
calls ``dict.update(d = ...)``, the other method with the same flaw).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write_tree
from ctxsel.workspace import Workspace
from oracles import require

FILES: dict[str, str] = {
    "WORKSPACE": 'workspace(name = "w")\n',
    "p/defs.bzl": (
        "def m(arches):\n"
        "    for a in arches:\n"
        '        native.genrule(name = "g{s}_{a}".format(s = "x", a = a), outs = ["{s}{a}.out".format(s = "o", a = a)], cmd = "")\n'
        "    d = {}\n"
        '    d.update(d = "upd", s = "z")\n'
        '    native.filegroup(name = d["d"] + "_" + d["s"])\n'
    ),
    "p/BUILD": 'load(":defs.bzl", "m")\nm(["a1", "a2"])\nfilegroup(name = "all", srcs = [":gx_a1", ":oa2.out"])\n',
}

#: Bazel 4.2.3: ``bazel query --keep_going 'kind(rule, //...)'`` on FILES
RULES = {"//p:gx_a1", "//p:gx_a2", "//p:upd_z", "//p:all"}


def _rules(ws: Workspace) -> set[str]:
    return {i for i in ws.graph if ws.adapter.reportable(ws.graph, i)}


def test_a_keyword_named_s_or_d_reaches_the_template(tmp_path: Path) -> None:
    """Old: none of //p:gx_a1, //p:gx_a2, //p:upd_z (two statements failed)."""
    ws = Workspace.open(write_tree(tmp_path, FILES), adapter="bazel", source="static", use_cache=False)
    assert _rules(ws) == RULES
    assert set(ws.blast_radius(["//p:gx_a2"]).ids) == {"//p:gx_a2", "//p:all"}
    assert not [w for w in ws.warnings if "could not be evaluated" in w]


@pytest.mark.oracle
def test_bazel_answers_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """RULES as Bazel 4.2.3 answers them (tool mode: one ``bazel query``)."""
    monkeypatch.setenv("CTXSEL_BAZEL", require("oracle-bazel4"))
    tool = Workspace.open(write_tree(tmp_path, FILES), adapter="bazel", source="tool", use_cache=False)
    assert _rules(tool) == RULES
    assert set(tool.blast_radius(["//p:gx_a2"]).ids) == {"//p:gx_a2", "//p:all"}
