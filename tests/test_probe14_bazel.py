"""Bazel: disagreements found by randomized differential testing against Bazel 4.2.3 (session 14).

Random workspaces (nested packages, globs, select(), macros, test suites, aliases, label
spellings, visibility, .bazelignore) were compared with ``bazel query 'rdeps(//..., X)'``
for every rule and every file. Each disagreement is kept here as a fixed input:

- A label from another package to a source file that package does not declare (no
  ``exports_files``, no rule of it lists the file) is no target for Bazel: "no such target
  '//p:plain.txt': target 'plain.txt' not declared in package 'p'; however, a source file of
  this name exists". ``rdeps(//..., p/plain.txt)`` is empty. ctxsel (both modes) counted the
  referencing rule as a user of the file, so a change to it selected rules and tests Bazel
  does not. A file is declared by the BUILD file itself, ``exports_files``, and any label
  attribute of a rule in its package (``srcs``, a ``select()`` branch, a glob's matches, a
  macro's rule, ``tools``, ``test_suite.tests``, ``alias.actual``, even a missing file);
  not by ``visibility`` nor by ``load()``.

- ``glob()`` returns a match whose name starts with ``@`` as ``:@at.txt`` (Bazel 4.2.3,
  ``print(glob(["@x.txt"]))`` shows ``[":@x.txt"]``), so it stays a file of the package, even
  through a list comprehension; only a literal ``"@y.txt"`` names repository ``@y.txt``.
  ctxsel kept ``@at.txt`` and parsed it as that repository: the file had no owner.

- A label-list attribute naming one label twice fails the package in Bazel ("Label '//p:a' is
  duplicated in the 'deps' attribute of rule 'b'"; ``--keep_going`` still answers). ctxsel said
  nothing. Bazel compares resolved labels within a plain list (``[":a", "//p:a"]``,
  ``["x.cc"] + glob(["*.cc"])``), within each branch of a single ``select()`` (not across its
  branches), and across all parts of a concatenation (``[":a"] + select({...: [":a"]})``);
  ``visibility`` and ``tags`` are not checked this way. ctxsel now warns, naming rule,
  attribute and label (the whole-package failure itself stays a known difference).

- ``Label(":helper")`` in a .bzl file resolved against the package of the BUILD file that
  used the macro (``//p:helper``), a target neither Bazel resolves it to: Bazel 4.2.3 refuses
  a relative ``Label()`` ("Illegal absolute label syntax", the loading package fails), and
  Bazel 6+ resolves it in the package of the .bzl file that calls ``Label()`` (``//m:helper``),
  which ctxsel now does. Plain strings in a macro stay relative to the BUILD file's package.

- A bare target name typed in a package directory (``ctxsel blast-radius a`` in ``p/``) is a
  relative target pattern for Bazel: ``bazel query 'rdeps(//..., a)'`` there means ``//p:a``
  (``//p/a:a`` when ``p/a`` is a package; ``p/a`` from the root means the same). ctxsel read it
  as a path from the workspace root: "unknown target 'a'", or the rules of the wrong package.

- Exporting a file twice fails the package in Bazel 4.2.3 ("visibility for exported file
  'x.txt' declared twice") unless both visibilities are the same shared constant (none given =
  public, ``//visibility:public``, ``//visibility:private``); two equal custom lists conflict too.
  ctxsel accepted every second ``exports_files`` silently; it now loses that statement with
  a warning naming file and line (Bazel loses the package: the kept difference).

The unit tests need no Bazel; the ``oracle`` test asks the real one and skips without it.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from conftest import write_tree
from ctxsel.adapters.bazel.query import load_query_output
from ctxsel.workspace import Workspace
from oracles import oracle_env, require

DECLARED = ["in_srcs.cc", "in_select.cc", "globbed/x.txt", "in_macro.txt", "in_tools.sh", "t.sh", "in_suite.sh",
            "in_alias.txt", "exported.txt", "BUILD", "missing_same_pkg.cc"]
UNDECLARED = ["plain.txt", "in_vis.txt", "defs.bzl"]

FILES: dict[str, str] = {
    "WORKSPACE": 'workspace(name = "ws")\n',
    "p/BUILD": '''load(":defs.bzl", "mac")
cc_library(name = "a", srcs = ["in_srcs.cc"] + select({"//conditions:default": ["in_select.cc"]}))
filegroup(name = "g", srcs = glob(["globbed/*"]))
mac(name = "m")
cc_library(name = "v", visibility = ["//p:in_vis.txt"])
genrule(name = "gen", srcs = [], outs = ["o.txt"], cmd = "x", tools = ["in_tools.sh"])
sh_test(name = "t", srcs = ["t.sh"], tags = ["manual"])
test_suite(name = "s", tests = ["in_suite.sh"])
alias(name = "al", actual = "in_alias.txt")
cc_library(name = "nm", deps = ["missing_same_pkg.cc"])
exports_files(["exported.txt"])
filegroup(name = "own", srcs = ["plain_own.txt"])
''',
    "p/defs.bzl": 'def mac(name):\n    native.filegroup(name = name, srcs = ["in_macro.txt"])\n',
    **{f"p/{f}": "" for f in DECLARED + UNDECLARED if f not in ("BUILD", "defs.bzl", "missing_same_pkg.cc")},
    "p/plain_own.txt": "",
    # one rule per file in another package, and a test on each (what `ctxsel tests FILE` selects)
    "q/BUILD": "".join(
        f'filegroup(name = "f{i}", srcs = ["//p:{f}"])\nsh_test(name = "t{i}", srcs = ["t.sh"], data = [":f{i}"])\n'
        for i, f in enumerate(DECLARED + UNDECLARED)
    ) + 'filegroup(name = "same_pkg_plain", srcs = ["never_listed_elsewhere.txt"])\n',
    "q/t.sh": "", "q/never_listed_elsewhere.txt": "",
}


def _index(name: str) -> int:
    return (DECLARED + UNDECLARED).index(name)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "ws", FILES)


def _static(root: Path) -> Workspace:
    return Workspace.open(root, adapter="bazel", source="static", use_cache=False)


@pytest.mark.parametrize("name", DECLARED)
def test_a_file_its_package_declares_is_an_edge_from_another_package(root, name):
    ws = _static(root)
    i = _index(name)
    assert f"p/{name}" in ws.graph.node(f"//q:f{i}").srcs
    assert f"//q:f{i}" in ws.graph.owners_of_file(f"p/{name}")
    if name != "BUILD":  # a changed BUILD file stands for its package's rules
        ids, _ = ws.roots(files=[f"p/{name}"])
        assert {f"//q:f{i}", f"//q:t{i}"} <= set(ws.blast_radius(roots=ids).ids)


@pytest.mark.parametrize("name", UNDECLARED)
def test_a_file_its_package_does_not_declare_is_no_edge_and_a_warning(root, name):
    ws = _static(root)
    i = _index(name)
    assert ws.graph.node(f"//q:f{i}").srcs == ()
    if not name.endswith(".bzl"):  # a changed .bzl stands for the rules of the packages loading it
        assert ws.adapter.nodes_for_changed_file(ws.graph, f"p/{name}") == []
        assert ws.tests(roots=ws.roots(files=[f"p/{name}"])[0]).tests == []
    assert any("does not declare" in w and f"//p:{name} (in //q:f{i})" in w for w in ws.graph.warnings), ws.graph.warnings


def test_same_package_files_need_no_declaration(root):
    ws = _static(root)
    assert ws.graph.node("//q:same_pkg_plain").srcs == ("q/never_listed_elsewhere.txt",)
    assert ws.graph.owners_of_file("p/plain_own.txt") == ["//p:own"]


AT_FILES = {
    "WORKSPACE": 'workspace(name = "ws")\n',
    "p/BUILD": """x = glob(["@x.txt"])
filegroup(name = "g", srcs = glob(["*.txt"], exclude = ["@y.txt", "*b*"]))
filegroup(name = "c", srcs = [f for f in x if f.endswith(".txt")])
filegroup(name = "lit", srcs = ["@y.txt"])
filegroup(name = "sub", srcs = glob(["d/*"]))
""",
    "p/@at.txt": "", "p/@x.txt": "", "p/@y.txt": "", "p/d/@in_dir.txt": "",
}


def test_glob_matches_starting_with_at_stay_files_of_the_package(tmp_path):
    ws = _static(write_tree(tmp_path / "ws", AT_FILES))
    graph = ws.graph
    assert graph.node("//p:g").srcs == ("p/@at.txt", "p/@x.txt")
    assert graph.node("//p:c").srcs == ("p/@x.txt",)
    assert graph.node("//p:sub").srcs == ("p/d/@in_dir.txt",)
    assert graph.node("//p:lit").srcs == () and graph.dependencies("//p:lit") == ["@y.txt//:y.txt"]
    ids, _ = ws.roots(files=["p/@at.txt"])
    assert ids == ["//p:g"]


DUP_BUILD = """cc_library(name = "a")
config_setting(name = "c1", values = {"compilation_mode": "opt"})
cc_library(name = "b", deps = [":a", "//p:a"])
cc_library(name = "c", deps = [":a"] + select({"//conditions:default": [":a"]}))
cc_library(name = "d", deps = select({":c1": [":a"], "//conditions:default": [":a"]}))
cc_library(name = "e", deps = select({"//conditions:default": [":a", "a"]}))
cc_library(name = "f", deps = select({":c1": [":a"], "//conditions:default": []}) + select({":c1": [], "//conditions:default": ["@//p:a"]}))
cc_library(name = "g", visibility = ["//p:__pkg__", "//p:__pkg__"], tags = ["x", "x"])
cc_library(name = "l", srcs = ["x.cc"] + glob(["*.cc"]))
sh_test(name = "st", srcs = ["t.sh"], data = [":a", "@ws//p:a"])
test_suite(name = "ts", tests = [":st", "st"])
"""
#: what Bazel 4.2.3 reports for DUP_BUILD (rule, attribute, label)
DUPLICATED = ["//p:b (deps: //p:a)", "//p:c (deps: //p:a)", "//p:e (deps: //p:a)", "//p:f (deps: //p:a)",
              "//p:l (srcs: //p:x.cc)", "//p:st (data: //p:a)", "//p:ts (tests: //p:st)"]


def _dup_root(base: Path) -> Path:
    return write_tree(base / "ws", {"WORKSPACE": 'workspace(name = "ws")\n', "p/BUILD": DUP_BUILD, "p/x.cc": "", "p/t.sh": ""})


def test_a_label_listed_twice_is_reported_as_bazel_reports_it(tmp_path):
    from ctxsel.adapters.bazel.static import StaticLoader
    from ctxsel.cache import InputTracker

    root = _dup_root(tmp_path)
    loader = StaticLoader(root, InputTracker(root))
    graph = loader.build()
    assert list(loader.report.duplicated_labels) == DUPLICATED
    assert any("7 attribute(s) list a label twice" in w and DUPLICATED[0] in w for w in graph.warnings), graph.warnings
    assert set(graph.rdeps(["//p:a"])) >= {"//p:b", "//p:c", "//p:d", "//p:e", "//p:f", "//p:st", "//p:ts"}  # answers unchanged


def test_a_relative_label_call_resolves_in_the_package_of_its_bzl_file(tmp_path):
    root = write_tree(tmp_path / "ws", {
        "WORKSPACE": "",
        "m/BUILD": 'cc_library(name = "helper")\ncc_library(name = "inner")\n',
        "m/defs.bzl": (
            'HELPER = Label(":helper")\n'
            'def lib(name, deps = []):\n'
            '    native.cc_library(name = name, deps = deps + [HELPER, Label("inner"), "local"])\n'
        ),
        "p/BUILD": 'load("//m:defs.bzl", "lib")\ncc_library(name = "helper")\ncc_library(name = "inner")\n'
                   'cc_library(name = "local")\nlib(name = "a")\n',
    })
    graph = _static(root).graph
    assert graph.dependencies("//p:a") == ["//m:helper", "//m:inner", "//p:local"]
    assert not graph.warnings


def test_the_default_condition_spelled_with_the_main_repository_is_no_label(tmp_path):
    """``"@//conditions:default"`` is Bazel's default branch too (it answered without error);
    ctxsel warned about a package "conditions" with no BUILD file."""
    root = write_tree(tmp_path / "ws", {
        "WORKSPACE": "",
        "p/BUILD": 'cc_library(name = "a")\nconfig_setting(name = "opt", values = {"compilation_mode": "opt"})\n'
                   'cc_library(name = "c", deps = select({":opt": [":a"], "@//conditions:default": []}))\n',
    })
    graph = _static(root).graph
    assert graph.dependencies("//p:c") == ["//p:a", "//p:opt"]
    assert not graph.warnings


REL_FILES = {
    "WORKSPACE": "",
    "BUILD": 'cc_library(name = "top", deps = ["//p:a"])\n',
    "p/BUILD": 'cc_library(name = "a")\ncc_library(name = "b", deps = [":a"])\n'
               'genrule(name = "g", srcs = [], outs = ["g.out"], cmd = "x")\nfilegroup(name = "uses_g", srcs = ["g.out"])\n',
    "p/sub/BUILD": 'cc_library(name = "sub", deps = ["//p:b"])\n',
}


@pytest.mark.parametrize("cwd, spec, first", [
    ("p", "a", "//p:a"), ("p", "b", "//p:b"), ("p", "sub", "//p/sub:sub"), ("p", "g.out", "//p:g"),
    ("", "p/a", "//p:a"), ("p/sub", "../a", "//p:a"),
])
def test_a_relative_target_pattern_resolves_from_the_current_package(tmp_path, cli, cwd, spec, first):
    root = write_tree(tmp_path / "ws", REL_FILES)
    res = cli("--source", "static", "--no-cache", "blast-radius", spec, cwd=root / cwd)
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[0].split("\t")[0] == first


def test_a_name_that_is_no_target_is_still_unknown(tmp_path, cli):
    root = write_tree(tmp_path / "ws", {k: v for k, v in REL_FILES.items() if k != "BUILD"})
    res = cli("--source", "static", "--no-cache", "blast-radius", "nothere", cwd=root / "p")
    assert res.returncode == 2 and "unknown target 'nothere'" in res.stderr


EXPORT_TWICE = {  # package -> (second visibility, first visibility); None = not given
    "p1": (None, None), "p2": (None, '["//visibility:public"]'), "p3": (None, '["//p1:__pkg__"]'),
    "p4": ('["//p1:__pkg__"]', '["//p1:__pkg__"]'), "p5": ('["//visibility:private"]', '["//visibility:private"]'),
    "p6": ('["//visibility:private"]', None),
}
EXPORT_CONFLICTS = {"p3", "p4", "p6"}  # what Bazel 4.2.3 refuses


def _export_root(base: Path) -> Path:
    files = {"WORKSPACE": ""}
    for pkg, visibilities in EXPORT_TWICE.items():
        files[f"{pkg}/x.txt"] = ""
        files[f"{pkg}/BUILD"] = "".join(
            'exports_files(["x.txt"]' + (f", visibility = {v}" if v else "") + ")\n" for v in visibilities
        ) + 'cc_library(name = "after")\n'
    return write_tree(base / "ws", files)


def test_exporting_a_file_twice_with_another_visibility_loses_the_statement(tmp_path):
    from ctxsel.adapters.bazel.static import StaticLoader
    from ctxsel.cache import InputTracker

    root = _export_root(tmp_path)
    loader = StaticLoader(root, InputTracker(root))
    graph = loader.build()
    errors = loader.report.eval_errors
    warned = {pkg for pkg in EXPORT_TWICE if f"{pkg}/BUILD:2: exports_files: visibility for exported file 'x.txt' declared twice" in errors}
    assert warned == EXPORT_CONFLICTS, errors
    assert any("declared twice" in w for w in graph.warnings)


XML = """<?xml version="1.1" encoding="UTF-8" standalone="no"?>
<query version="2">
    <source-file location="/ws/p/BUILD:1:1" name="//p:BUILD"/>
    <source-file location="/ws/p/BUILD:1:1" name="//p:exported.txt"/>
    <rule class="filegroup" location="/ws/q/BUILD:1:10" name="//q:ok">
        <rule-input name="//p:exported.txt"/>
    </rule>
    <rule class="filegroup" location="/ws/q/BUILD:2:10" name="//q:bad">
        <rule-input name="//p:plain.txt"/>
    </rule>
    <rule class="filegroup" location="/ws/q/BUILD:3:10" name="//q:elsewhere">
        <rule-input name="//r:not_in_this_output.txt"/>
    </rule>
</query>
"""


def test_tool_mode_drops_inputs_the_output_lists_as_no_source_file(tmp_path):
    """``//...:*`` lists every source-file target of a package it covers; a rule-input the
    output lists nowhere is an undeclared file. A package the output does not cover keeps
    its inputs (a saved query of part of the workspace)."""
    graph = load_query_output(XML, "x.xml", str(tmp_path))
    assert graph.node("//q:ok").srcs == ("p/exported.txt",)
    assert graph.node("//q:bad").srcs == ()
    assert graph.node("//q:elsewhere").srcs == ("r/not_in_this_output.txt",)


@pytest.mark.oracle
def test_cross_package_file_edges_match_bazel_query(root):
    """Two queries: the files the //q rules reach (their direct inputs), and one undeclared
    file's rdeps, which Bazel answers empty (exit 3: the //q rules naming it are errors)."""
    bazel = require("oracle-bazel4")

    def query(expr: str) -> set[str]:
        proc = subprocess.run([bazel, "query", "--keep_going", "--noshow_progress", expr], cwd=root, env=oracle_env(),
                              capture_output=True, text=True, timeout=600, check=False)
        assert proc.returncode in (0, 3), proc.stderr[-1500:]
        return set(proc.stdout.split())

    want = {label for label in query('kind("source file", deps(//q:all, 1))') if label.startswith("//p:")}
    ws = _static(root)
    mine = {f"//p:{src[2:]}" for n in ws.graph.nodes() if n.package == "q" for src in n.srcs if src.startswith("p/")}
    assert mine == want == {f"//p:{f}" for f in DECLARED}
    assert query("rdeps(//..., p/plain.txt)") == set()


@pytest.mark.oracle
def test_glob_matches_starting_with_at_match_bazel_query(tmp_path):
    bazel = require("oracle-bazel4")
    root = write_tree(tmp_path / "ws", AT_FILES)
    proc = subprocess.run([bazel, "query", "--keep_going", "--noshow_progress", "--output=build", "//p:all"], cwd=root,
                          env=oracle_env(), capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr[-1500:]
    graph = _static(root).graph
    for name in ("g", "c", "sub", "lit"):
        block = proc.stdout.split(f'name = "{name}"', 1)[1].split(")", 1)[0]
        srcs = set(re.findall(r'"([^"]+)"', block))
        mine = {f"//p:{s[2:]}" for s in graph.node(f"//p:{name}").srcs} | set(graph.dependencies(f"//p:{name}"))
        assert mine == srcs, name


@pytest.mark.oracle
def test_duplicated_labels_match_bazel_query_errors(tmp_path):
    bazel = require("oracle-bazel4")
    root = _dup_root(tmp_path)
    proc = subprocess.run([bazel, "query", "--keep_going", "--noshow_progress", "//p:all"], cwd=root, env=oracle_env(),
                          capture_output=True, text=True, timeout=600, check=False)
    found = re.findall(r"Label '([^']+)' is duplicated in the '(\w+)' attribute of rule '(\w+)'", proc.stderr)
    assert [f"//p:{rule} ({attr}: {label})" for label, attr, rule in found] == DUPLICATED


@pytest.mark.oracle
def test_relative_target_patterns_match_bazel_query(tmp_path, cli):
    bazel = require("oracle-bazel4")
    root = write_tree(tmp_path / "ws", REL_FILES)
    for cwd, spec in (("p", "a"), ("p", "sub"), ("", "p/b")):
        proc = subprocess.run([bazel, "query", "--keep_going", "--noshow_progress", f"rdeps(//..., {spec})"], cwd=root / cwd,
                              env=oracle_env(), capture_output=True, text=True, timeout=600, check=False)
        assert proc.returncode == 0, proc.stderr[-1500:]
        res = cli("--source", "static", "--no-cache", "blast-radius", spec, cwd=root / cwd)
        assert {line.split("\t")[0] for line in res.stdout.splitlines()} == set(proc.stdout.split()), (cwd, spec)


@pytest.mark.oracle
def test_exporting_a_file_twice_matches_the_packages_bazel_refuses(tmp_path):
    bazel = require("oracle-bazel4")
    root = _export_root(tmp_path)
    proc = subprocess.run([bazel, "query", "--keep_going", "--noshow_progress", "//..."], cwd=root, env=oracle_env(),
                          capture_output=True, text=True, timeout=600, check=False)
    assert set(re.findall(r"package contains errors: (\w+)", proc.stderr)) == EXPORT_CONFLICTS
