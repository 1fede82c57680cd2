"""Starlark that real rule repositories run and ctxsel's static evaluator failed on
(session 20 sweep; statement counts are ctxsel's "could not be evaluated" warnings).

- rules_cc (7 statements, 24 of 1,065 rules missing): ``label_utils.bzl`` dedupes labels as
  dict keys: ``Label`` values were unhashable ("comparison: unhashable type"), and once
  hashable, stored by Label but looked up by text ("key not found"); ``kwargs.pop("visibility",
  default = None)`` took no ``default`` keyword; its test subjects are
  ``struct(**(structs.to_dict(_subjects) | ...))`` over a struct of ``@rules_testing``, which
  ctxsel does not evaluate: ``to_dict`` gave {} and ``subjects.collection`` failed the file.
- flatbuffers (4 statements, 14 of 97 rules missing): ``native.package_relative_label(Label(...))``
  wrapped the Label in a second one whose text was no string.
- rules_java (2 statements): ``"rules_java-%s" % module_version()`` (a BUILD global of Bazel 7:
  MODULE.bazel's ``module(version = ...)``) was unknown, so the release tarball (and the test
  depending on it) were missing; a ``"|".join([...])`` of another repository's values failed
  the whole genrule.
- Generated workspaces: ``"%r" % "x"`` printed Python's ``'x'`` (Starlark: ``"x"``),
  ``str(struct(a = 1))`` the evaluator's own ``Struct(fields=..., open=False)``, and ``%03d``,
  ``%5s``, ``%.2f`` (no Starlark has flags, width or precision: Bazel 4.2.3 fails the package)
  made targets Bazel never has.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write_tree
from ctxsel.workspace import Workspace
from oracles import require

#: @ext and @bazel_skylib are local repositories: Bazel 4.2.3 evaluates them, ctxsel does
#: not (it has its own stand-in for skylib's structs.to_dict), so _subjects is unknown to it
LABEL_KEYS: dict[str, str] = {
    "WORKSPACE": (
        'workspace(name = "w")\nlocal_repository(name = "ext", path = "ext_repo")\n'
        'local_repository(name = "bazel_skylib", path = "skylib")\n'
    ),
    "ext_repo/WORKSPACE": 'workspace(name = "ext")\n',
    "ext_repo/BUILD": "",
    "ext_repo/defs.bzl": 'subjects = struct(collection = "//o:c")\n',
    "skylib/WORKSPACE": 'workspace(name = "bazel_skylib")\n',
    "skylib/BUILD": "",
    "skylib/lib/BUILD": "",
    "skylib/lib/structs.bzl": (
        "def _to_dict(s):\n"
        '    return {k: getattr(s, k) for k in dir(s) if k not in ("to_json", "to_proto")}\n\n'
        "structs = struct(to_dict = _to_dict)\n"
    ),
    "o/BUILD": (
        'load(":defs.bzl", "make")\n'
        'filegroup(name = "m")\nfilegroup(name = "c")\nfilegroup(name = "d")\n'
        'make(name = "t", labels = ["//o:m", "//o:d", "//o:m"])\n'
    ),
    "o/defs.bzl": (
        'load("@ext//:defs.bzl", _subjects = "subjects")\n'
        'load("@bazel_skylib//lib:structs.bzl", "structs")\n\n'
        'subjects = struct(**dict(structs.to_dict(_subjects), mine = "//o:m"))\n\n'
        "def make(name, labels):\n"
        "    seen = {}\n"
        "    for text in labels:\n"
        "        lab = Label(text)\n"
        "        if lab not in seen:\n"
        "            seen[lab] = len(seen)\n"
        "    order = [seen[Label(t)] for t in labels]\n"
        "    native.filegroup(name = name, srcs = [str(k) for k in seen.keys()])\n"
        '    opts = {"x": 1}\n'
        '    n = opts.pop("y", default = 2) + len(order)\n'
        '    native.filegroup(name = "%s_%d" % (name, n), srcs = [subjects.collection, subjects.mine])\n'
    ),
}
#: measured with Bazel 4.2.3: kind(rule, //o:all) and rdeps(//o:all, X)
LABEL_KEYS_RULES = {"//o:m", "//o:c", "//o:d", "//o:t", "//o:t_5"}
LABEL_KEYS_RDEPS = {"//o:d": {"//o:d", "//o:t"}, "//o:m": {"//o:m", "//o:t", "//o:t_5"}}


def _static(root: Path) -> Workspace:
    return Workspace.open(root, adapter="bazel", source="static", use_cache=False)


def _lost(ws: Workspace) -> list[str]:
    return [w for w in ws.warnings if "could not be evaluated" in w or "twice" in w]


def test_labels_as_dict_keys_pop_default_and_an_unknown_struct(tmp_path: Path) -> None:
    """Old: "o/defs.bzl:9: comparison: unhashable type" lost //o:t, "struct has no field
    'collection'" (and no ``default=`` for pop) lost //o:t_5."""
    ws = _static(write_tree(tmp_path, LABEL_KEYS))
    assert {i for i in ws.graph if ws.adapter.reportable(ws.graph, i)} == LABEL_KEYS_RULES
    for label, want in LABEL_KEYS_RDEPS.items():  # subjects.mine is known: dict(<unknown>, mine = ...)
        assert set(ws.blast_radius([label]).ids) == want, label
    assert not _lost(ws), ws.warnings


@pytest.mark.oracle
def test_bazel_evaluates_the_label_keys_tree_so(tmp_path: Path) -> None:
    from test_probe12_bazel_differential import _Bazel

    require("bazel-4")
    server = _Bazel(write_tree(tmp_path / "ws", LABEL_KEYS))
    try:
        assert server.labels("//o:all") == LABEL_KEYS_RULES
        for label, want in LABEL_KEYS_RDEPS.items():
            assert server.labels(f"rdeps(//o:all, {label})") == want, label
        # the part ctxsel cannot know (a value of @ext) is where they differ, never a lost target
        assert server.labels("rdeps(//o:all, //o:c)") == {"//o:c", "//o:t_5"}
    finally:
        server.shutdown()


#: target names built from Starlark's str/repr; ``bad_<n>`` use what Bazel refuses
PRINTING: dict[str, str] = {
    "WORKSPACE": 'workspace(name = "w")\n',
    "s/defs.bzl": (
        "def clean(s):\n"
        '    return "".join([c if c.isalnum() else {"\\"": "Q", "\'": "S", "=": "E"}.get(c, "_") for c in s.elems()])\n\n'
        "def make():\n"
        '    native.filegroup(name = clean("%r" % "x") + "_r")\n'
        '    native.filegroup(name = clean(str(struct(a = 1, b = "x", c = [1, "y"]))))\n'
        '    native.filegroup(name = clean("%r|%s" % (["a", 1], {"k": None})) + "_l")\n'
    ),
    "s/BUILD": 'load(":defs.bzl", "make")\nmake()\n',
    **{f"bad{i}/BUILD": f'filegroup(name = "ok")\nfilegroup(name = "x" + ("{fmt}" % {arg}))\n'
       for i, (fmt, arg) in enumerate([("%03d", 7), ("%5s", '"ab"'), ("%-4s", '"ab"'), ("%.2f", "1.5")])},
}
#: measured with Bazel 4.2.3: kind(rule, //...) (each bad<n> package fails at its second rule)
PRINTING_RULES = {
    "//s:QxQ_r", "//s:struct_a_E_1__b_E_QxQ__c_E__1__QyQ__", "//s:_QaQ__1___QkQ__None__l",
    "//bad0:ok", "//bad1:ok", "//bad2:ok", "//bad3:ok",
}


def test_str_repr_and_percent_format_as_starlark(tmp_path: Path) -> None:
    """Old: //s:SxS_r, //s:Struct_fields_E..., //bad0:x007 and three more Bazel has not."""
    ws = _static(write_tree(tmp_path, PRINTING))
    assert {i for i in ws.graph if ws.adapter.reportable(ws.graph, i)} == PRINTING_RULES


@pytest.mark.oracle
def test_bazel_prints_so(tmp_path: Path) -> None:
    from test_probe12_bazel_differential import _Bazel

    require("bazel-4")
    server = _Bazel(write_tree(tmp_path / "ws", PRINTING))
    try:
        assert server.labels("//...", "--keep_going") == PRINTING_RULES
    finally:
        server.shutdown()


def test_package_relative_label_of_a_label_and_module_version(tmp_path: Path) -> None:
    """Bazel 7 (its documentation; Bazel 4.2.3 has neither): ``native.package_relative_label``
    returns a Label argument unchanged and reads a string in the BUILD file's package;
    ``module_version()``/``module_name()`` are MODULE.bazel's ``module()`` values. Old:
    "cannot evaluate (AttributeError: 'LabelValue' object has no attribute 'startswith')"
    lost //p:gen; ``pkg_tar() needs a string name`` lost the tarball and what used it."""
    root = write_tree(tmp_path, {
        "MODULE.bazel": 'module(\n    name = "my_mod",\n    version = "1.2.3",\n)\nbazel_dep(name = "x", version = "9")\n',
        "tools/BUILD": 'sh_binary(name = "gen", srcs = ["gen.sh"], visibility = ["//visibility:public"])\n',
        "p/defs.bzl": (
            'TOOL = Label("//tools:gen")\n'
            "def gen(name, tool = None):\n"
            "    tool = TOOL if tool == None else native.package_relative_label(tool)\n"
            '    native.genrule(name = name, outs = [name + ".h"], cmd = "$(location %s) > $@" % tool, tools = [tool])\n'
            '    native.filegroup(name = native.module_name() + "_" + name, srcs = [native.package_relative_label(":" + name)])\n'
        ),
        "p/BUILD": (
            'load(":defs.bzl", "gen")\n'
            'gen(name = "g1", tool = Label("//tools:gen"))\n'
            'gen(name = "g2", tool = "local")\n'
            'sh_binary(name = "local", srcs = ["l.sh"])\n'
            'filegroup(name = "rel-%s" % module_version(), srcs = [":g1"])\n'
            'genrule(name = "cfg", outs = ["c"], cmd = "|".join([TOOL_VERSION, "x"]))\n'
        ),
    })
    (root / "p/BUILD").write_text((root / "p/BUILD").read_text().replace(
        'load(":defs.bzl", "gen")\n', 'load(":defs.bzl", "gen")\nload("@other//:v.bzl", "TOOL_VERSION")\n'))
    ws = _static(root)
    assert set(ws.blast_radius(["//tools:gen"]).ids) == {"//tools:gen", "//p:g1", "//p:my_mod_g1", "//p:rel-1.2.3"}
    assert set(ws.blast_radius(["//p:local"]).ids) == {"//p:local", "//p:g2", "//p:my_mod_g2"}
    assert "//p:cfg" in ws.graph
    assert not _lost(ws), ws.warnings
