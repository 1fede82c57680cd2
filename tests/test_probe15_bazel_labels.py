"""Bazel: which label a file gets, against Bazel 4.2.3 (session 15).

- A rule named like a source file of its package takes the file's label: with
  ``filegroup(name = "a.txt", srcs = ["a.txt"])`` next to a file ``a.txt``, ``//p1:a.txt``
  is the rule (``srcs`` names the rule itself) and ``rdeps(//..., p1/a.txt)`` is the rdeps
  of the rule; the same for ``genrule(name = "x")`` next to a source ``x`` and for a rule
  named ``sub/a.c``. No rule lists such a file as a source, so ctxsel found no owner:
  a change to it selected nothing (``--files``), and ``blast-radius p2/x`` fell back to
  every rule of the package with a warning.
- Bazel 4.2.3 accepts only printable 7-bit ASCII (no ``\\``) in a package name, while a
  target name may hold any non-ASCII character. ``café/BUILD`` or ``中文/BUILD`` therefore
  makes no package: ``//...`` skips the directory (and everything below it), its BUILD file
  and sources are files of the enclosing package (``//:café/é.txt`` is a valid label),
  though that package's ``glob(["**"])`` still stops at the directory's BUILD file. ctxsel
  made them packages, so a change to ``café/é.txt`` selected ``//café:c`` (a target Bazel
  does not have) instead of the root package's ``//:lit``, which it missed.
- A ``BUILD`` file next to a ``BUILD.bazel`` is no BUILD file for Bazel (it reads only
  ``BUILD.bazel``), just a source file: a change to it reaches the rules listing it, none
  if no rule does. ctxsel changed every rule of the package.
- ``glob(["a?txt"])``: Bazel 4.2.3 refuses ``?`` in an include pattern ("Error in glob:
  wildcard ? forbidden", the package fails); ctxsel matched it as a one-character wildcard,
  silently. It now loses the statement with that message (the package failure itself is the
  kept difference); ``[a].txt`` stays a literal name in both.
- Label spellings Bazel refuses ("invalid label ... in attribute 'srcs'", the package
  fails): ``./a.txt``, ``d/../a.txt``, ``a.txt/``, ``d//b.txt``, ``//p/:a.txt`` and a
  trailing ``\\r`` (a CRLF file). ctxsel stripped slashes and whitespace, so ``//p/:a.txt``
  and ``"a.txt\\r"`` were edges to ``p/a.txt``; and ``" a.txt"`` / ``"a.txt "``, which Bazel
  keeps as other (missing) files, were edges to ``p/a.txt`` too. Refused labels now lose
  their statement with a warning; spaces are kept.
- Two targets of one name: a rule and an exported file (either order), a rule and another
  rule's output, an output and an exported file, two rules' outputs. Bazel 4.2.3 fails the
  package ("... conflicts with existing ..."); ctxsel kept them all silently and now warns
  (a genrule whose output has its own name is allowed, measured).
- ``bazel query --output=xml`` writes non-ASCII labels as mojibake (it reads names as
  latin-1 and writes those characters as UTF-8: ``//cafe:Ã©.txt``); ``--output=label``
  writes the real bytes. Tool mode printed the mojibake and matched no changed file
  ``cafe/é.txt``; it now undoes the double encoding. Where Bazel itself prints mojibake
  (xml, proto), ctxsel prints the real text.

The unit tests need no Bazel; the ``oracle`` tests ask the real one and skip without it.
"""

from __future__ import annotations

import os
import re
import subprocess

import pytest
from conftest import write_tree
from ctxsel.adapters.bazel.labels import LabelError, parse_label, valid_package_name
from ctxsel.adapters.bazel.query import load_query_output, undo_latin1
from ctxsel.adapters.bazel.static import glob_pattern_error
from ctxsel.workspace import Workspace
from oracles import oracle_env, require

SHADOW: dict[str, str] = {
    "WORKSPACE": 'workspace(name = "ws")\n',
    "p1/a.txt": "x", "p2/x": "x", "p4/sub/a.c": "x", "p4/b.c": "x", "p5/plain.txt": "x",
    "p1/BUILD": 'filegroup(name = "a.txt", srcs = ["a.txt"])\nfilegroup(name = "u", data = [":a.txt"])\n',
    "p2/BUILD": 'genrule(name = "x", srcs = [], outs = ["x.h"], cmd = "touch $@")\n'
                'filegroup(name = "fx", srcs = ["x"])\nfilegroup(name = "fxh", srcs = ["x.h"])\n',
    "p4/BUILD": 'filegroup(name = "sub/a.c", srcs = glob(["**/*.c"]))\n'
                'filegroup(name = "b.c", srcs = ["b.c", "sub/a.c"])\ncc_library(name = "lib", srcs = ["b.c"])\n',
    "p5/BUILD": 'filegroup(name = "plain", srcs = ["plain.txt"])\n',
    "q/BUILD": 'filegroup(name = "q1", srcs = ["//p1:a.txt", "//p2:x"])\nfilegroup(name = "q2", srcs = ["//p4:b.c"])\n',
}
#: measured: bazel query 'kind(rule, rdeps(//..., <path>))' with Bazel 4.2.3
SHADOW_RDEPS = {
    "p1/a.txt": {"//p1:a.txt", "//p1:u", "//q:q1"},
    "p2/x": {"//p2:x", "//p2:fx", "//p2:fxh", "//q:q1"},
    "p4/sub/a.c": {"//p4:sub/a.c", "//p4:b.c", "//p4:lib", "//q:q2"},
    "p4/b.c": {"//p4:sub/a.c", "//p4:b.c", "//p4:lib", "//q:q2"},
    "p5/plain.txt": {"//p5:plain"},
}

NON_ASCII: dict[str, str] = {
    "WORKSPACE": 'workspace(name = "ws")\n',
    # the glob stops at café/ and 中文/ (they hold a BUILD file) though neither is a package
    "BUILD": 'filegroup(name = "root", srcs = glob(["**"]))\nfilegroup(name = "lit", srcs = ["café/é.txt", "café/sub/s.txt"])\n'
             'filegroup(name = "zh", srcs = ["中文/d.txt", "中文/BUILD"])\n',
    "café/é.txt": "x", "café/sub/s.txt": "x", "中文/d.txt": "x", "misc/é.txt": "x", "ok/o.txt": "x", "ok/数据.txt": "x",
    "café/BUILD": 'filegroup(name = "c", srcs = ["é.txt"])\n',
    "café/sub/BUILD": 'filegroup(name = "s", srcs = ["s.txt"])\n',
    "中文/BUILD": 'filegroup(name = "z", srcs = ["d.txt"])\n',
    "ok/BUILD": 'filegroup(name = "o", srcs = ["o.txt"])\nfilegroup(name = "库", srcs = glob(["*.txt"], exclude = ["o.txt"]))\n'
                'filegroup(name = "top", srcs = [":库"])\n',
}
#: measured: rdeps(//..., "<label>") with Bazel 4.2.3 (a path "café/é.txt" is a bad target pattern there)
NON_ASCII_RDEPS = {
    "café/é.txt": {"//:lit"},
    "café/sub/s.txt": {"//:lit"},
    "中文/d.txt": {"//:zh"},
    "中文/BUILD": {"//:zh"},
    "misc/é.txt": {"//:root"},
    "ok/数据.txt": {"//ok:库", "//ok:top"},
}


#: a BUILD file next to a BUILD.bazel is a plain source file (Bazel reads only BUILD.bazel)
BOTH_BUILD: dict[str, str] = {
    "WORKSPACE": 'workspace(name = "ws")\n',
    "b1/BUILD.bazel": 'filegroup(name = "all", srcs = ["a.txt"])\n', "b1/BUILD": 'filegroup(name = "ignored")\n',
    "b3/BUILD.bazel": 'filegroup(name = "x", srcs = ["a.txt", "BUILD"])\nfilegroup(name = "y")\n',
    "b3/BUILD": 'filegroup(name = "ignored")\n', "b1/a.txt": "x", "b3/a.txt": "x",
}
#: measured: rdeps(//..., <path>) with Bazel 4.2.3 (b1/BUILD: "not declared", no target);
#: a change to the package's own BUILD.bazel stands for all its rules (rbuildfiles)
BOTH_BUILD_RDEPS = {"b1/BUILD": set(), "b3/BUILD": {"//b3:x"}, "b1/BUILD.bazel": {"//b1:all"}, "b3/BUILD.bazel": {"//b3:x", "//b3:y"}}


def _static(root) -> Workspace:
    return Workspace.open(root, adapter="bazel", source="static", use_cache=False)


def _changed(ws: Workspace, path: str) -> set[str]:
    ids, _ = ws.roots(files=[path])
    return set(ws.blast_radius(roots=ids).ids) if ids else set()


# ---------------------------------------------------------------- a rule named like a file
@pytest.mark.parametrize("path", sorted(SHADOW_RDEPS))
def test_a_changed_file_named_like_a_rule_changes_that_rule(tmp_path, path):
    ws = _static(write_tree(tmp_path / "ws", SHADOW))
    assert _changed(ws, path) == SHADOW_RDEPS[path]


def test_a_file_path_named_like_a_rule_resolves_to_the_rule_without_a_fallback_warning(tmp_path):
    ws = _static(write_tree(tmp_path / "ws", SHADOW))
    before = len(ws.adapter.warnings)
    assert ws.resolve([str(tmp_path / "ws" / "p2" / "x")]) == ["//p2:x"]
    assert ws.adapter.warnings[before:] == []  # was: every rule of //p2, "no rule lists this file"


@pytest.mark.parametrize("path", sorted(BOTH_BUILD_RDEPS))
def test_a_build_file_bazel_does_not_read_is_a_plain_source_file(tmp_path, path):
    ws = _static(write_tree(tmp_path / "ws", BOTH_BUILD))
    assert _changed(ws, path) == BOTH_BUILD_RDEPS[path]


# ---------------------------------------------------------------- glob("?")
GLOB_Q: dict[str, str] = {
    "WORKSPACE": 'workspace(name = "ws")\n', "p/a.txt": "x", "p/b.txt": "x", "p/[a].txt": "x",
    "p/BUILD": 'filegroup(name = "ok", srcs = glob(["*.txt"], exclude = ["?.txt"]))\n'
               'filegroup(name = "bad", srcs = glob(["a?txt"]))\nfilegroup(name = "br", srcs = glob(["[a].txt"]))\n',
}


def test_a_question_mark_in_a_glob_is_refused_as_bazel_refuses_it(tmp_path):
    assert glob_pattern_error("a?txt") == "wildcard ? forbidden"
    ws = _static(write_tree(tmp_path / "ws", GLOB_Q))
    assert "//p:bad" not in ws.graph
    assert any("wildcard ? forbidden" in w and "p/BUILD:2" in w for w in ws.warnings)
    # measured: "?" is a wildcard in an exclude pattern, "[a]" is literal
    assert ws.graph.node("//p:ok").srcs == ws.graph.node("//p:br").srcs == ("p/[a].txt",)


# ---------------------------------------------------------------- name conflicts
CONFLICTS: dict[str, str] = {
    "WORKSPACE": 'workspace(name = "ws")\n',
    "pA/BUILD": 'filegroup(name = "x")\nexports_files(["x"])\n',
    "pB/BUILD": 'exports_files(["y"])\nfilegroup(name = "y")\n',
    "pC/BUILD": 'genrule(name = "g", outs = ["o.txt"], cmd = "x")\nexports_files(["o.txt"])\n',
    "pD/BUILD": 'exports_files(["o2.txt"])\ngenrule(name = "g2", outs = ["o2.txt"], cmd = "x")\n',
    "pE/BUILD": 'genrule(name = "g3", outs = ["g3x"], cmd = "x")\nfilegroup(name = "g3x")\n',
    "pF/BUILD": 'genrule(name = "a", outs = ["same.txt"], cmd = "x")\ngenrule(name = "b", outs = ["same.txt"], cmd = "x")\n',
    "pG/BUILD": 'genrule(name = "self", outs = ["self"], cmd = "x")\n',
}
CONFLICTING = ["//pA:x", "//pB:y", "//pC:o.txt", "//pD:o2.txt", "//pE:g3x", "//pF:same.txt"]


def test_two_targets_of_one_name_are_reported(tmp_path):
    ws = _static(write_tree(tmp_path / "ws", CONFLICTS))
    report = [w for w in ws.warnings if "target name(s) are both" in w]
    assert len(report) == 1 and "6 target name(s)" in report[0], ws.warnings
    assert all(label in report[0] for label in CONFLICTING[:3]) and "//pG" not in report[0]


# ---------------------------------------------------------------- label spellings
#: measured with Bazel 4.2.3 (``--output=build`` of //p:all): None = refused, else the srcs label
SPELLINGS: dict[str, str | None] = {
    "./a.txt": None, "d/../a.txt": None, "a.txt/": None, "d//b.txt": None, "//p/:a.txt": None, "//p:./a.txt": None,
    "d/./b.txt": None, "//p:d/b.txt/": None, "//p:a.txt:x": None, "//p/d/../:a.txt": None, "d/b.txt\r": None,
    ":d/b.txt": "//p:d/b.txt", "a.txt ": "//p:a.txt ", " a.txt": "//p: a.txt", "@ws//p:a.txt": "//p:a.txt",
    "@//p:d/b.txt": "//p:d/b.txt",
}


@pytest.mark.parametrize("text", sorted(SPELLINGS))
def test_label_spellings_parse_as_bazel_parses_them(text):
    want = SPELLINGS[text]
    if want is None:
        with pytest.raises(LabelError):
            parse_label(text, "p", "ws")
    else:
        assert str(parse_label(text, "p", "ws")) == want


SPELLING_FILES = {"WORKSPACE": 'workspace(name = "ws")\n', "p/a.txt": "x", "p/d/b.txt": "x",
                  "p/BUILD": "".join(f"filegroup(name = 'r{i}', srcs = [{t!r}])\n" for i, t in enumerate(SPELLINGS))}


def test_a_refused_label_is_no_edge_to_the_file_it_resembles(tmp_path):
    ws = _static(write_tree(tmp_path / "ws", SPELLING_FILES))
    assert _changed(ws, "p/a.txt") == {"//p:r14"}  # only @ws//p:a.txt
    assert _changed(ws, "p/d/b.txt") == {"//p:r11", "//p:r15"}  # :d/b.txt, @//p:d/b.txt
    assert any("invalid label './a.txt'" in w for w in ws.warnings)


# ---------------------------------------------------------------- non-ASCII directories
@pytest.mark.parametrize("name, ok", [
    ("", True), ("a/b-c_d.e", True), ("x y/@at/+plus", True), ("café", False), ("中文/sub", False),
    ("a\\b", False), ("tab\there", False), ("a/.../b", False), ("a/.hidden", True), ("a/..b", True),
])
def test_valid_package_names(name, ok):
    assert valid_package_name(name) is ok


def test_a_directory_with_a_non_ascii_name_is_no_package(tmp_path):
    ws = _static(write_tree(tmp_path / "ws", NON_ASCII))
    assert ws.graph.packages() == {"", "ok"}
    assert ws.graph.node("//:root").srcs == ("BUILD", "WORKSPACE", "misc/é.txt")


@pytest.mark.parametrize("path", sorted(NON_ASCII_RDEPS))
def test_a_changed_non_ascii_file_maps_to_the_targets_bazel_gives_it(tmp_path, path):
    ws = _static(write_tree(tmp_path / "ws", NON_ASCII))
    assert _changed(ws, path) == NON_ASCII_RDEPS[path]


def test_cli_prints_the_real_non_ascii_label(tmp_path, cli):
    root = write_tree(tmp_path / "ws", NON_ASCII)
    res = cli("--source", "static", "--no-cache", "-q", "blast-radius", "--files", "ok/数据.txt", "--format", "labels", cwd=root)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["//ok:库", "//ok:top"]


# ---------------------------------------------------------------- tool mode: xml mojibake
MOJIBAKE_XML = """<?xml version="1.1" encoding="UTF-8" standalone="no"?>
<query version="2">
    <rule class="filegroup" location="/ws/cafe/BUILD:1:10" name="//cafe:f\u00c3\u00a9">
        <string name="name" value="f\u00c3\u00a9"/>
        <list name="srcs">
            <label value="//cafe:\u00c3\u00a9.txt"/>
        </list>
        <rule-input name="//cafe:\u00c3\u00a9.txt"/>
    </rule>
    <source-file location="/ws/cafe/\u00c3\u00a9.txt:1:1" name="//cafe:\u00c3\u00a9.txt">
        <visibility-label name="//visibility:private"/>
    </source-file>
    <rule class="filegroup" location="/ws/zh/BUILD:1:10" name="//zh:\u00e5\u00ba\u0093">
        <rule-input name="//cafe:f\u00c3\u00a9"/>
    </rule>
</query>
"""


def test_tool_mode_reads_xml_mojibake_as_the_real_labels(tmp_path):
    graph = load_query_output(MOJIBAKE_XML, "q.xml", str(tmp_path))
    assert {n.id for n in graph.nodes()} >= {"//cafe:fé", "//zh:库"}
    assert graph.owners_of_file("cafe/é.txt") == ["//cafe:fé"]
    assert set(graph.rdeps(["//cafe:fé"])) == {"//cafe:fé", "//zh:库"}


@pytest.mark.parametrize("text", ["//cafe:é.txt", "//zh:库", "plain ascii", "//cafe:\u00e9\u4e2d"])
def test_real_text_is_kept(text):
    assert undo_latin1(text) == text


# ---------------------------------------------------------------- against the real Bazel
@pytest.fixture(scope="module")
def bazel_ws(tmp_path_factory):
    from test_probe12_bazel_differential import (
        _Bazel,  # the module-scoped server helper
    )

    require("bazel-4")
    servers = {}
    for name, files in (("shadow", SHADOW), ("non_ascii", NON_ASCII), ("both_build", BOTH_BUILD), ("glob_q", GLOB_Q), ("spellings", SPELLING_FILES), ("conflicts", CONFLICTS)):
        servers[name] = _Bazel(write_tree(tmp_path_factory.mktemp(name), files))
    yield servers
    for server in servers.values():
        server.shutdown()


@pytest.mark.oracle
def test_rules_named_like_files_match_bazel_rdeps(bazel_ws):
    oracle = bazel_ws["shadow"]
    ws = _static(oracle.workspace)
    for path in sorted(SHADOW_RDEPS):
        want = oracle.labels(f"rdeps(//..., {path})")
        assert want == SHADOW_RDEPS[path] == _changed(ws, path), path


@pytest.mark.oracle
def test_non_ascii_directories_and_files_match_bazel_rdeps(bazel_ws):
    oracle = bazel_ws["non_ascii"]
    env = {"CTXSEL_BAZEL": require("oracle-bazel4")}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        both = {s: Workspace.open(oracle.workspace, adapter="bazel", source=s, use_cache=False) for s in ("static", "tool")}
    finally:
        for k, v in saved.items():
            os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
    everything = oracle.labels("//...")
    for path in sorted(NON_ASCII_RDEPS):
        package = "ok" if path.startswith("ok/") else ""
        label = f"//{package}:{path[len(package):].lstrip('/')}"
        want = oracle.labels(f'rdeps(//..., "{label}")')
        assert want == NON_ASCII_RDEPS[path], path
        for source, ws in both.items():
            assert {i for i in ws.graph if ws.adapter.reportable(ws.graph, i)} == everything, source
            assert _changed(ws, path) == want, (source, path)


@pytest.mark.oracle
def test_a_build_file_beside_build_bazel_matches_bazel_rdeps(bazel_ws):
    oracle = bazel_ws["both_build"]
    ws = _static(oracle.workspace)
    assert oracle.labels("rdeps(//..., b1/BUILD)", "--keep_going") == set() == _changed(ws, "b1/BUILD")
    assert oracle.labels("rdeps(//..., b3/BUILD)") == {"//b3:x"} == _changed(ws, "b3/BUILD")
    assert oracle.labels("//...") == {"//b1:all", "//b3:x", "//b3:y"}  # no //b1:ignored


@pytest.mark.oracle
def test_a_question_mark_in_a_glob_matches_bazel_query(bazel_ws):
    oracle = bazel_ws["glob_q"]
    proc = subprocess.run([*oracle.startup, "query", "labels(srcs, //p:ok + //p:br)", "--keep_going", "--noshow_progress"],
                          cwd=oracle.workspace, env=oracle_env(), capture_output=True, text=True, timeout=300, check=False)
    assert "Error in glob: wildcard ? forbidden" in proc.stderr
    assert set(proc.stdout.split()) == {"//p:[a].txt"}


@pytest.mark.oracle
def test_label_spellings_match_bazel_query(bazel_ws):
    oracle = bazel_ws["spellings"]
    proc = subprocess.run([*oracle.startup, "query", "//p:all", "--output=build", "--keep_going", "--noshow_progress"],
                          cwd=oracle.workspace, env=oracle_env(), capture_output=True, text=True, timeout=300, check=False)
    refused = {int(i) for i in re.findall(r"//p:r(\d+): invalid label", proc.stderr)}
    srcs = {int(i): label for i, label in re.findall(r'name = "r(\d+)",\n\s*srcs = \["([^"]*)"\]', proc.stdout)}
    for i, text in enumerate(SPELLINGS):
        assert (None if i in refused else srcs.get(i)) == SPELLINGS[text], text


@pytest.mark.oracle
def test_name_conflicts_are_the_packages_bazel_refuses(bazel_ws):
    oracle = bazel_ws["conflicts"]
    proc = subprocess.run([*oracle.startup, "query", "//...", "--keep_going", "--noshow_progress"],
                          cwd=oracle.workspace, env=oracle_env(), capture_output=True, text=True, timeout=300, check=False)
    assert set(re.findall(r"package contains errors: (\w+)", proc.stderr)) == {label[2:].split(":")[0] for label in CONFLICTING}
