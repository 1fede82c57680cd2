"""Graph semantics the session 23 Bazel sweep found wrong (each measured with Bazel 4.2.3).

- rules_groovy (``groovy_and_java_library``: ``deps = depset(deps + [name + "-java"])``): a
  depset given to a list attribute had no edge in static mode; Bazel 4.2.3 takes it as its
  ``to_list()`` (``bazel query`` has ``//lib:x-groovy -> //lib:x-java``).
- snappy (``expand_template(template = "snappy-stubs-public.h.in", ...)``): a rule of another
  repository counts only label-looking strings, so the bare file name was no edge and
  ``blast-radius`` of the template fell back to every rule of the package (12 rules; Bazel: the
  template's expansion and the 7 rules above it). skylib's ``expand_template`` and
  ``run_binary`` (``tool = "tool.sh"``) are now typed as skylib declares them.
- bb-clientd (``pkg_tar(files = {"//cmd/bb_clientd": "/usr/bin/bb_clientd", ...})`` of rules_pkg, not
  evaluated): the dict's values were read as labels because ``files`` is a label attribute of
  native rules, so the statement "could not be evaluated" ("invalid label '/usr/bin/bb_clientd'")
  and every later unknown-target error hinted that the graph may be missing it. rules_pkg
  declares ``files`` a ``label_keyed_string_dict``: only the keys are labels (Bazel 4.2.3 with
  that declaration: ``rdeps(//..., //k:a.conf)`` is ``//k:data``, ``//k:deb``). An untyped
  dict's values now count only when they look like labels.
- bench: a package Bazel 4 loads with errors ("package contains errors") still has the rules it
  could create, with their edges: bazel-common's skipped ``google_java_format`` linked two kept
  rules, a disagreement ctxsel could not have. ``bench.bazel_agreement`` drops those edges too.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write_tree
from ctxsel.workspace import Workspace
from oracles import require

#: a local stand-in for @bazel_skylib with the two rules as skylib declares them (1.2.1 and
#: HEAD have these attributes): Bazel reads it through the WORKSPACE, ctxsel does not need it
SKYLIB: dict[str, str] = {
    "skylib/WORKSPACE": 'workspace(name = "bazel_skylib")\n',
    "skylib/BUILD": "",
    "skylib/rules/BUILD": "",
    "skylib/rules/expand_template.bzl": (
        "def _impl(ctx):\n    pass\n\n"
        "expand_template = rule(implementation = _impl, attrs = {\n"
        '    "template": attr.label(mandatory = True, allow_single_file = True),\n'
        '    "substitutions": attr.string_dict(mandatory = True),\n'
        '    "out": attr.output(mandatory = True),\n})\n'
    ),
    "skylib/rules/run_binary.bzl": (
        "def _impl(ctx):\n    pass\n\n"
        "run_binary = rule(implementation = _impl, attrs = {\n"
        '    "tool": attr.label(executable = True, allow_files = True, mandatory = True, cfg = "exec"),\n'
        '    "env": attr.string_dict(),\n'
        '    "srcs": attr.label_list(allow_files = True),\n'
        '    "outs": attr.output_list(mandatory = True),\n'
        '    "args": attr.string_list(),\n})\n'
    ),
}

WORKSPACE: dict[str, str] = {
    **SKYLIB,
    # rules_pkg's pkg_tar as rules_pkg declares ``files`` (a label_keyed_string_dict)
    "rpkg/WORKSPACE": "", "rpkg/BUILD": "",
    "rpkg/pkg.bzl": (
        "def _impl(ctx):\n    pass\n\n"
        "pkg_tar = rule(implementation = _impl, attrs = {\n"
        '    "srcs": attr.label_list(allow_files = True),\n'
        '    "files": attr.label_keyed_string_dict(allow_files = True),\n'
        '    "modes": attr.string_dict(),\n    "extension": attr.string(),\n})\n'
    ),
    "ws/WORKSPACE": (
        'workspace(name = "w")\nlocal_repository(name = "bazel_skylib", path = "../skylib")\n'
        'local_repository(name = "rules_pkg", path = "../rpkg")\n'
    ),
    # bb-clientd's shape: another repository's rule, a dict from labels to absolute paths
    "ws/k/BUILD": (
        'load("@rules_pkg//:pkg.bzl", "pkg_tar")\n'
        'sh_binary(name = "b", srcs = ["b.sh"])\n'
        'pkg_tar(name = "data", extension = "tar.gz", files = {":b": "/usr/bin/b", ":a.conf": "/etc/a.conf"},\n'
        '        modes = {"/usr/bin/b": "555"})\n'
        'filegroup(name = "deb", srcs = [":data"])\n'
    ),
    "ws/k/a.conf": "", "ws/k/b.sh": "",
    # a macro handing depsets to list attributes (rules_groovy's shape)
    "ws/d/defs.bzl": (
        "def pair(name, deps = []):\n"
        '    native.java_library(name = name + "-a", srcs = ["A.java"])\n'
        '    native.java_library(name = name + "-b", srcs = ["B.java"], deps = depset(deps + [name + "-a"]))\n'
        '    native.filegroup(name = name + "-fg", srcs = depset(["data.txt"]), data = depset([":lone"]))\n'
    ),
    "ws/d/BUILD": (
        'load(":defs.bzl", "pair")\n'
        'java_library(name = "base", srcs = ["A.java"])\n'
        'filegroup(name = "lone", srcs = ["lone.txt"])\n'
        'pair(name = "p", deps = [":base"])\n'
    ),
    "ws/d/A.java": "", "ws/d/B.java": "", "ws/d/data.txt": "", "ws/d/lone.txt": "",
    # skylib's rules with bare file names (snappy's shape)
    "ws/t/BUILD": (
        'load("@bazel_skylib//rules:expand_template.bzl", "expand_template")\n'
        'load("@bazel_skylib//rules:run_binary.bzl", "run_binary")\n'
        'expand_template(name = "x_h", out = "x.h", substitutions = {"@V@": "1"}, template = "x.h.in")\n'
        'cc_library(name = "x", hdrs = [":x.h"])\n'
        'sh_binary(name = "gen", srcs = ["gen.sh"])\n'
        'run_binary(name = "run", tool = "tool.sh", srcs = ["in.txt"], outs = ["o.txt"])\n'
        'run_binary(name = "run2", tool = ":gen", outs = ["o2.txt"])\n'
        'filegroup(name = "uses", srcs = ["o.txt", "o2.txt"])\n'
    ),
    "ws/t/x.h.in": "", "ws/t/tool.sh": "", "ws/t/in.txt": "", "ws/t/gen.sh": "",
}

#: Bazel 4.2.3: the rules of ``rdeps(//..., X)`` (X a label; a file by its label)
RDEPS: dict[str, set[str]] = {
    "//d:base": {"//d:base", "//d:p-b"},
    "//d:p-a": {"//d:p-a", "//d:p-b"},
    "//d:lone": {"//d:lone", "//d:p-fg"},
    "//d:data.txt": {"//d:p-fg"},
    "//t:x.h.in": {"//t:x_h", "//t:x"},
    "//t:tool.sh": {"//t:run", "//t:uses"},
    "//t:in.txt": {"//t:run", "//t:uses"},
    "//t:gen": {"//t:gen", "//t:run2", "//t:uses"},
    "//k:a.conf": {"//k:data", "//k:deb"},
    "//k:b": {"//k:b", "//k:data", "//k:deb"},
}


def _path(label: str) -> str:
    """``//t:x.h.in`` -> ``t/x.h.in`` (a source file is asked for by its path, as a user would)."""
    package, _, name = label[2:].partition(":")
    return f"{package}/{name}"


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tree(tmp_path_factory.mktemp("probe23hb"), WORKSPACE) / "ws"


@pytest.mark.parametrize("label", sorted(RDEPS))
def test_static_blast_radius_matches_bazel(root: Path, label: str) -> None:
    """Old: depset values gave no edge (//d:base had no dependent //d:p-b), and a bare file in
    ``template``/``tool`` was no edge (``t/x.h.in`` answered every rule of //t, with a warning)."""
    ws = Workspace.open(root, adapter="bazel", source="static", use_cache=False)
    spec = _path(label) if "." in label.rsplit(":", 1)[1] else label
    assert set(ws.blast_radius([spec]).ids) == RDEPS[label]
    assert not [w for w in ws.warnings if "no rule lists this file" in w], ws.warnings


def test_an_untyped_dicts_path_values_are_no_labels(root: Path) -> None:
    """Old: "2 statement(s) could not be evaluated; their targets may be missing: //k:data:
    invalid label '/etc/a.conf'" (and on bb-clientd a "the graph may be missing it" hint on
    every unknown target): ``files`` is a label attribute's name, so every string of the
    dict, values too, was read as a label."""
    ws = Workspace.open(root, adapter="bazel", source="static", use_cache=False)
    assert "//k:data" in ws.graph
    assert not [w for w in ws.warnings if "could not be evaluated" in w], ws.warnings


def test_bench_drops_bazels_edges_through_a_skipped_package(tmp_path: Path) -> None:
    """Bazel's answer for a package that "contains errors" keeps its rules' edges: a path
    ``//a:x <- //s:y <- //b:z`` through a skipped ``//s`` must not count against ctxsel."""
    from bench.bazel_agreement import BazelGraph, agreement

    root = write_tree(tmp_path, {
        "WORKSPACE": 'workspace(name = "w")\n',
        "a/BUILD": 'filegroup(name = "x")\n', "b/BUILD": 'filegroup(name = "z", srcs = ["//s:y"])\n',
        "s/BUILD": 'filegroup(name = "y", srcs = ["//a:x"], bad = 1)\n',
    })
    graph = BazelGraph(kinds={"//a:x": "filegroup rule", "//b:z": "filegroup rule", "//s:y": "filegroup rule"})
    graph.rdeps_of["//a:x"].add("//s:y")
    graph.rdeps_of["//s:y"].add("//b:z")
    agree, total, problems = agreement(root, graph, skip=("//s:",))
    assert (agree, total) == (2, 2), problems


@pytest.mark.oracle
def test_bazel_answers_so(root: Path) -> None:
    from test_probe12_bazel_differential import _Bazel

    require("bazel-4")
    server = _Bazel(root)
    try:
        for label, want in RDEPS.items():
            assert server.labels(f"rdeps(//..., {label})", "--keep_going") == want, label
    finally:
        server.shutdown()
