"""Bazel: package groups, visibility, ``.bazelignore``, glob() errors and directory symlinks, against Bazel 4.2.3.

Found by comparing ``bazel query 'rdeps(//..., X)'`` with ctxsel for every target and file
of probe workspaces (session 12):

- ``bazel query`` follows ``visibility`` to ``package_group`` targets, and ``includes``
  from one group to another: a rule whose visibility (its own, or the package's
  ``default_visibility``) names a group is in ``rdeps(//..., group)``, and so is a rule
  listing a source file whose visibility (``exports_files(visibility = ...)``, else the
  package default) names it. ctxsel had no package-group nodes: "unknown target", and a
  change to the BUILD file defining a group missed every rule visible through it.
- Answers stay ``kind(rule, rdeps(//..., X))``: groups are nodes, never answers.
  Quirk measured: ``exports_files(visibility = ["@ws//g"])`` (``ws`` = the main workspace's
  name) keeps ``@ws`` as a repository of its own, while a rule's ``visibility`` maps it.
- ``.bazelignore`` lines are paths: ``./gen/`` ignores ``gen`` (ctxsel compared the text),
  and nothing is trimmed: ``  gen`` ignores nothing (ctxsel stripped the spaces).
- ``glob()`` refuses some include patterns (``"data/"``: "empty segment not permitted") and
  a matched file name with ``\\`` or a control character is no valid label: Bazel fails the
  statement; ctxsel matched nothing silently and kept such files.
- A .bzl the WORKSPACE file loads (``//tools:deps.bzl``, and what it loads) is as global
  as WORKSPACE: ``rbuildfiles`` names every BUILD file; ctxsel found no owner at all.
- A directory named by ``local_repository(path = ...)`` is repository ``@sub``, not part
  of ``//...`` ("crosses into repository @sub"); a nested WORKSPACE nobody names stays in.
- Directory symlinks: Bazel follows them (``linkpkg -> real`` is a package ``//linkpkg``,
  a glob lists ``link/z.c``) except into an output base and in cycles; ctxsel walked none.
  It now walks those inside the workspace (never the whole disk through a link to ``/``).
- ``srcs = ["sub/x.c"]`` where ``sub`` has a BUILD file is an invalid label for Bazel
  ("'p/sub' is a subpackage"); both modes counted the rule as a user of ``p/sub/x.c``.

The unit tests need no Bazel; the ``oracle`` tests ask the real one and skip without it.
"""

from __future__ import annotations

import os
import subprocess
import textwrap
from pathlib import Path

import pytest
from conftest import write_tree

from ctxsel.adapters.base import AdapterOptions
from ctxsel.adapters.bazel import BazelAdapter
from ctxsel.adapters.bazel.query import load_query_output
from ctxsel.adapters.bazel.static import glob_pattern_error
from ctxsel.cache import InputTracker
from ctxsel.workspace import Workspace
from oracles import PREFIX, oracle_env, require

FILES: dict[str, str] = {
    "WORKSPACE": 'workspace(name = "ws")\nload("//tools:deps.bzl", "deps")\ndeps()\nlocal_repository(name = "sub", path = "./nested")\n',
    # a local_repository's directory is no part of the main repository; another nested WORKSPACE is
    "nested/WORKSPACE": 'workspace(name = "sub")\n', "nested/BUILD": 'cc_library(name = "n")\n',
    "nested/lib/BUILD": 'cc_library(name = "l", deps = ["//:n"])\n',
    "other_ws/WORKSPACE": "", "other_ws/BUILD": 'cc_library(name = "o", deps = ["@sub//lib:l"])\n',
    "tools/BUILD": "",
    "tools/deps.bzl": 'load(":more.bzl", "M")\ndef deps():\n    pass\n',
    "tools/more.bzl": "M = 1\n",
    ".bazelignore": "# generated trees\n./ignored/\n  spaced\n",  # Bazel trims nothing: "  spaced" is no directory
    "vis/BUILD": textwrap.dedent('''\
        package_group(name = "internal", packages = ["//..."], includes = ["//vis/sub:friends"])
        package_group(name = "unused", packages = [])
    '''),
    "vis/sub/BUILD": 'package_group(name = "friends", packages = ["//lib"])\n',
    "core/BUILD": textwrap.dedent('''\
        package(default_visibility = ["//vis:internal"])
        exports_files(["public.txt"])
        exports_files(["shared.txt"], visibility = ["//vis/sub:friends"])
        exports_files(["quirk.txt"], visibility = ["@ws//vis/sub:friends"])  # Bazel 4: "@ws" stays a repo here
        cc_library(name = "core", srcs = ["core.cc"])
        cc_library(name = "main_name", visibility = ["@ws//vis/sub:friends"])  # ... but not here
        cc_library(name = "open", visibility = ["//visibility:public"])
        cc_library(name = "pkg_only", visibility = ["//lib:__pkg__"])
        filegroup(name = "own", srcs = ["private.txt"], visibility = ["//visibility:public"])
    '''),
    "core/core.cc": "", "core/public.txt": "", "core/shared.txt": "", "core/private.txt": "", "core/quirk.txt": "",
    "lib/BUILD": textwrap.dedent('''\
        filegroup(name = "pub", srcs = ["//core:public.txt"])
        filegroup(name = "shared", srcs = ["//core:shared.txt"])
        filegroup(name = "quirk", srcs = ["//core:quirk.txt"])
        cc_library(name = "lib", deps = ["//core:open", "//core:pkg_only"], visibility = ["//vis/sub:friends"])
        cc_test(name = "lib_test", deps = [":lib"])
        cc_test(name = "pub_test", data = [":pub"])
        cc_test(name = "shared_test", data = [":shared"])
        cc_test(name = "core_test", deps = ["//core"], tags = ["manual"])
    '''),
    "ignored/BUILD": 'cc_library(name = "i", deps = ["//lib"])\n',
    "spaced/BUILD": 'cc_library(name = "s")\n',
    # Bazel stops evaluating a BUILD file at its first error (ctxsel goes on): bad comes last
    "glob/BUILD": 'filegroup(name = "good", srcs = glob(["data/*"]))\nfilegroup(name = "bad", srcs = glob(["data/"]))\n',
    "glob/data/x.txt": "",
    "real/BUILD": 'cc_library(name = "real", srcs = glob(["**/*.c"]))\n', "real/a.c": "", "real/in/z.c": "",
    "globber/BUILD": 'filegroup(name = "g", srcs = glob(["**/*.c"]))\ncc_test(name = "t", data = [":g"])\n',
    "globber/own.c": "",
    # "sub/x.c" from //cross is '//cross:sub/x.c', invalid ("'cross/sub' is a subpackage"): no edge to //cross/sub:x.c
    "cross/BUILD": 'cc_library(name = "wrong", srcs = ["sub/x.c"])\ncc_library(name = "right", srcs = ["//cross/sub:x.c"])\n',
    "cross/sub/BUILD": 'exports_files(["x.c"])\n', "cross/sub/x.c": "",
}
#: directory symlinks of the workspace (path -> target), inside it: Bazel follows them
LINKS = {"linkpkg": "real", "globber/link": "../real/in"}


def make_workspace(base: Path) -> Path:
    root = write_tree(base / "ws", FILES)
    for path, target in LINKS.items():
        os.symlink(target, root / path)
    return root

#: kind(rule, rdeps(//..., //vis/sub:friends)) of Bazel 4.2.3 for the fixture above
FRIENDS_RDEPS = {
    "//core:core", "//core:own", "//core:main_name",  # default_visibility -> internal -> friends (own: via its private.txt; main_name: own visibility)
    "//lib:lib", "//lib:lib_test",  # visibility
    "//lib:shared", "//lib:shared_test",  # exports_files(visibility) of the file they list
    "//lib:core_test",  # -> //core:core
}


def load(root: Path):
    return BazelAdapter(root, AdapterOptions(source="static")).load(InputTracker(root))


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return make_workspace(tmp_path)


# ---------------------------------------------------------------- static mode, no Bazel needed
def test_package_groups_are_nodes_and_visibility_is_an_edge(root):
    graph = load(root)
    assert graph.node("//vis/sub:friends").kind == "package_group"
    assert set(graph.rdeps(["//vis/sub:friends"])) == FRIENDS_RDEPS | {"//vis/sub:friends", "//vis:internal"}  # includes
    # public, //visibility:*, __pkg__ and exported-without-visibility files name no group
    assert "//core:open" not in graph.rdeps(["//vis:internal"]) and "//lib:pub" not in graph.rdeps(["//vis:internal"])


def test_changing_the_build_file_of_a_group_reaches_the_rules_it_makes_visible(root):
    ws = Workspace.open(root, adapter="bazel", source="static", use_cache=False)
    ids, _ = ws.roots(files=["vis/sub/BUILD"])
    assert set(ws.blast_radius(roots=ids).ids) == FRIENDS_RDEPS
    assert ws.tests(roots=ids).tests == ["//lib:lib_test", "//lib:shared_test"]  # manual core_test left out


def test_package_groups_are_no_answers(root):
    ws = Workspace.open(root, adapter="bazel", source="static", use_cache=False)
    assert ws.blast_radius(["//vis:unused"]).ids == []
    assert set(ws.blast_radius(["//vis:internal"]).ids) == {"//core:core", "//core:own", "//lib:core_test"}


def test_existing_rules_lists_no_package_group(tmp_path):
    root = write_tree(tmp_path, {
        "WORKSPACE": "",
        "p/BUILD": 'load(":m.bzl", "m")\npackage_group(name = "g", packages = [])\ncc_library(name = "a")\nm()\n',
        "p/m.bzl": 'def m():\n    native.cc_library(name = "n%d" % len(native.existing_rules()))\n',
    })
    assert "//p:n1" in load(root)


def test_bazelignore_lines_are_normalised_paths(root):
    graph = load(root)
    assert "//ignored:i" not in graph and "//spaced:s" in graph


@pytest.mark.parametrize("pattern, message", [
    ("data/", "empty segment not permitted"), ("a//b", "empty segment not permitted"), ("", "pattern cannot be empty"),
    ("/abs", "pattern cannot be absolute"), ("./a", "segment '.' not permitted"), ("a/../b", "segment '..' not permitted"),
    ("a**", "recursive wildcard must be its own segment"), ("**/*.txt", None), ("{a,b}", None),
])
def test_glob_patterns_bazel_refuses(pattern, message):
    assert glob_pattern_error(pattern) == message


def test_a_refused_glob_pattern_loses_the_statement_with_a_warning(root):
    graph = load(root)
    assert "//glob:bad" not in graph and graph.node("//glob:good").srcs == ("glob/data/x.txt",)
    assert any("glob/BUILD:2" in w and "empty segment not permitted" in w for w in graph.warnings)


def test_file_names_that_are_no_labels_are_not_sources(tmp_path):
    """Bazel 4.2.3: "target names may not contain '\\'" / "... non-printable characters"."""
    root = write_tree(tmp_path, {
        "WORKSPACE": "", "p/BUILD": 'filegroup(name = "f", srcs = glob(["*.txt"]))\n',
        "p/ok.txt": "", "p/b\\s.txt": "", "p/t\tb.txt": "",
    })
    graph = load(root)
    assert graph.node("//p:f").srcs == ("p/ok.txt",)
    assert any("invalid label" in w and "b\\\\s.txt" in w for w in graph.warnings), graph.warnings


def test_directory_symlinks_inside_the_workspace_are_walked(root):
    graph = load(root)
    assert graph.node("//linkpkg:real").srcs == ("linkpkg/a.c", "linkpkg/in/z.c")
    assert graph.node("//globber:g").srcs == ("globber/link/z.c", "globber/own.c")
    assert not any("symlink" in w for w in graph.warnings)


def test_symlink_cycles_and_links_out_of_the_workspace_are_not_walked(tmp_path):
    outside = write_tree(tmp_path / "elsewhere", {"BUILD": 'cc_library(name = "x")\n'})
    root = write_tree(tmp_path / "ws", {"WORKSPACE": "", "p/BUILD": 'filegroup(name = "f", srcs = glob(["**"]))\n', "p/a.txt": ""})
    os.symlink("..", root / "p" / "up")  # Bazel: "infinite symlink expansion", skipped
    os.symlink(".", root / "p" / "self")
    os.symlink(outside, root / "outside")
    write_tree(root, {"a/x.txt": "", "b/y.txt": ""})
    os.symlink("../b", root / "a" / "l")  # a/l/l is a again: a cycle through two links
    os.symlink("../a", root / "b" / "l")
    graph = load(root)
    assert set(graph) == {"//p:f"} and graph.node("//p:f").srcs == ("p/BUILD", "p/a.txt")
    assert any("outside the workspace" in w and "outside" in w for w in graph.warnings), graph.warnings
    assert not any("not followed" in w for w in graph.warnings)  # no walk until the budget ran out


def test_links_to_links_stop_at_a_budget_instead_of_hanging(tmp_path, monkeypatch):
    """Two links per level to the next: 2**12 paths. Bazel walks them all; ctxsel stops
    following links after MAX_LINKED_DIRS directories and says so."""
    from ctxsel.adapters.bazel import static

    monkeypatch.setattr(static, "MAX_LINKED_DIRS", 100)
    root = write_tree(tmp_path / "ws", {"WORKSPACE": "", **{f"d{i}/f.txt": "" for i in range(13)}})
    for i in range(12):
        for name in ("a", "b"):
            os.symlink(f"../d{i + 1}", root / f"d{i}" / name)
    graph = load(root)
    assert any("not followed" in w for w in graph.warnings), graph.warnings


def test_a_label_crossing_into_a_subpackage_is_no_edge(root):
    graph = load(root)
    assert graph.owners_of_file("cross/sub/x.c") == ["//cross:right"]
    assert any("'cross/sub' is a subpackage" in w for w in graph.warnings), graph.warnings


def test_a_bzl_the_workspace_loads_changes_every_target(root):
    ws = Workspace.open(root, adapter="bazel", source="static", use_cache=False)
    everything = {n.id for n in ws.graph.nodes() if ws.adapter.reportable(ws.graph, n.id)}
    for path in ("tools/deps.bzl", "tools/more.bzl"):
        ids, change = ws.roots(files=[path])
        assert set(ids) == everything and not change.unowned, path
        assert set(ws.blast_radius([path]).ids) == everything


def test_a_local_repository_directory_is_no_package_of_the_main_repository(root):
    graph = load(root)
    assert "//nested:n" not in graph and "//nested/lib:l" not in graph
    assert graph.dependencies("//other_ws:o") == ["@sub//lib:l"]


XML = """<?xml version="1.1" encoding="UTF-8" standalone="no"?>
<query version="2">
    <package-group location="/ws/vis/BUILD:1:14" name="//vis:g">
        <list name="includes"><label value="//vis:h"/></list>
        <list name="packages"/>
    </package-group>
    <package-group location="/ws/vis/BUILD:2:14" name="//vis:h"><list name="includes"/></package-group>
    <package-group location="/ws/vis/BUILD:3:14" name="//vis:unused"><list name="includes"/></package-group>
    <source-file location="/ws/a/BUILD:1:13" name="//a:f.txt"><visibility-label name="//vis:h"/></source-file>
    <rule class="filegroup" location="/ws/a/BUILD:2:10" name="//a:fg">
        <list name="srcs"><label value="//a:f.txt"/></list>
        <rule-input name="//a:f.txt"/>
    </rule>
    <rule class="cc_library" location="/ws/a/BUILD:3:11" name="//a:v">
        <list name="visibility"><label value="//vis:g"/></list>
    </rule>
    <rule class="cc_library" location="/ws/b/BUILD:2:11" name="//b:d"/>
</query>
"""


def test_tool_mode_reads_groups_visibility_and_the_package_default(tmp_path):
    """``bazel query --output=xml`` omits a visibility the rule does not set: the package's
    ``default_visibility`` comes from its BUILD file (``//b:d`` here)."""
    root = write_tree(tmp_path / "ws", {
        "WORKSPACE": "", "vis/BUILD": "", "a/BUILD": "",
        "b/BUILD": 'package(default_visibility = ["//vis:h"])\ncc_library(name = "d")\n',
    })
    saved = tmp_path / "graph.xml"
    saved.write_text(XML)
    ws = Workspace.open(root, adapter="bazel", query_file=str(saved), use_cache=False)
    assert set(ws.blast_radius(["//vis:h"]).ids) == {"//a:v", "//a:fg", "//b:d"}
    assert ws.blast_radius(["//vis:unused"]).ids == []
    plain = load_query_output(XML, "x.xml", str(root))  # without the defaults: only what the XML says
    assert set(plain.rdeps(["//vis:h"])) == {"//vis:h", "//vis:g", "//a:v", "//a:fg"}


# ---------------------------------------------------------------- against the real Bazel
class _Bazel:
    """One Bazel 4.2.3 server for the module's one workspace (one output base), shut down after."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self.startup = [require("bazel-4"), "--nohome_rc", f"--output_user_root={PREFIX / 'state' / 'bazel4-root'}",
                        f"--bazelrc={PREFIX / 'oracle.bazelrc'}", "--max_idle_secs=60"]

    def labels(self, expr: str, *flags: str, groups: bool = False) -> set[str]:
        """Rules (and with ``groups`` package groups) of a query (``--output=label_kind``)."""
        proc = subprocess.run([*self.startup, "query", expr, "--output=label_kind", "--noshow_progress", *flags],
                              cwd=self.workspace, env=oracle_env(), capture_output=True, text=True, timeout=300)
        # exit 3: //glob:bad's package has an error (as intended); the rest is a valid answer
        assert proc.returncode in (0, 3), proc.stderr[-1500:]
        out = set()
        for line in proc.stdout.splitlines():
            kind, _, label = line.partition(" //")
            if kind.endswith(" rule") or (groups and kind == "package group"):
                out.add("//" + label)
        return out

    def shutdown(self) -> None:
        subprocess.run([*self.startup, "shutdown"], cwd=self.workspace, env=oracle_env(), capture_output=True, timeout=120)


@pytest.fixture(scope="module")
def oracle(tmp_path_factory):
    require("bazel-4")
    root = make_workspace(tmp_path_factory.mktemp("probe12"))
    server = _Bazel(root)
    yield server
    server.shutdown()


@pytest.fixture(scope="module")
def both(oracle):
    """ctxsel's static and tool (bazel query --output=xml) graphs of the oracle workspace."""
    env = {"CTXSEL_BAZEL": require("oracle-bazel4")}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        return {s: Workspace.open(oracle.workspace, adapter="bazel", source=s, use_cache=False) for s in ("static", "tool")}
    finally:
        for k, v in saved.items():
            os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)


@pytest.mark.oracle
def test_every_target_and_referenced_file_matches_bazel_rdeps(oracle, both):
    everything = oracle.labels("//...:*", "--keep_going", groups=True)
    assert "//vis/sub:friends" in everything and "//ignored:i" not in everything and "//glob:bad" not in everything
    files = {f"core/{n}": f"//core:{n}" for n in ("shared.txt", "public.txt", "private.txt", "quirk.txt")}
    files["cross/sub/x.c"] = "//cross/sub:x.c"
    specs = {label: label for label in everything} | files
    for source, ws in both.items():
        assert {n.id for n in ws.graph.nodes() if not n.external} == everything, source
        for spec, label in sorted(specs.items()):
            want = oracle.labels(f'rdeps(//..., "{label}")', "--keep_going")
            assert set(ws.blast_radius([spec]).ids) == want, (source, spec)


@pytest.mark.oracle
def test_build_file_of_a_group_matches_rdeps_of_its_package_targets(oracle, both):
    want = oracle.labels('rdeps(//..., //vis/sub:* except kind("source file", //vis/sub:*))', "--keep_going")
    assert want == FRIENDS_RDEPS
    for source, ws in both.items():
        ids, _ = ws.roots(files=["vis/sub/BUILD"])
        assert set(ws.blast_radius(roots=ids).ids) == want, source


@pytest.mark.oracle
def test_bzl_loaded_by_the_workspace_matches_rbuildfiles(oracle, both):
    proc = subprocess.run([*oracle.startup, "query", "--universe_scope=//...", "--order_output=no", "rbuildfiles(tools/more.bzl)",
                           "--noshow_progress", "--keep_going"], cwd=oracle.workspace, env=oracle_env(), capture_output=True, text=True, timeout=300)
    packages = {ln[2:].rsplit(":", 1)[0] for ln in proc.stdout.split() if ln.startswith("//") and ln.rsplit(":", 1)[1].startswith("BUILD")}
    want = {label for label in oracle.labels("//...", "--keep_going") if label[2:].split(":")[0] in packages}
    assert want == oracle.labels("//...", "--keep_going")  # every package: as global as WORKSPACE
    for source, ws in both.items():
        ids, _ = ws.roots(files=["tools/more.bzl"])
        assert set(ws.blast_radius(roots=ids).ids) == want, source
