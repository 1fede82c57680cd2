"""Bazel 4 semantics static mode missed, found on a sweep of googletest, re2, abseil-cpp and
rules_pkg and on generated workspaces (session 20), each checked against Bazel 4.2.3.

- A ``.bzl`` file that a rule lists (a ``bzl_library``, a stardoc input, a ``filegroup``) and
  BUILD files load: a change to it reaches both the rules listing it (``rdeps`` of the file)
  and every rule of the packages loading it (``rbuildfiles``). ctxsel answered only the
  former for the path (rules_pkg's ``pkg/private/tar/tar.bzl``: the 20 doc rules, none of
  the 177 rules of the packages loading it) and only the latter for ``--files``.
- ``load(":x.bzl", y = "a", "b")``, a symbol after an alias, is valid Starlark (Bazel loads
  it); Python refuses a positional argument after a keyword, so ctxsel refused the whole
  workspace with a syntax error.
- ``.bazelignore``: an absolute line (``/abs``) is a prefix of no package path, Bazel ignores
  nothing for it; ctxsel dropped ``abs/`` and its targets.
- ``environment_group`` is a native BUILD function whose target is no rule and no dependent
  of its environments; ctxsel took it as an unknown rule kind, answered it for
  ``rdeps(//env:e1)`` and warned about an undefined name.
- ``cc_toolchain_suite(toolchains = {"k8": ":cc"})`` maps strings to labels: query follows
  the values, ctxsel read the keys (no edge). ``attr.string_keyed_label_dict`` (Bazel 7,
  absent from 4.2.3) is the same shape by its documentation, and was read by its keys too.
- Native rules of Bazel 4 that ctxsel did not know (``config_feature_flag``,
  ``action_listener``/``extra_action``, ``j2objc_library``, ...) were unknown kinds with a
  warning about undefined names; ``xcode_config``'s ``versions``/``default`` were no edges.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write_tree
from ctxsel.workspace import Workspace
from oracles import require

TREE: dict[str, str] = {
    "WORKSPACE": 'workspace(name = "w")\n',
    ".bazelignore": "/abs\n",
    "abs/BUILD": 'filegroup(name = "x", visibility = ["//visibility:public"])\n',
    # defs.bzl: listed by //m:bzl (which //d:docs uses) and loaded by p/BUILD
    "m/BUILD": 'filegroup(name = "bzl", srcs = ["defs.bzl"], visibility = ["//visibility:public"])\n',
    "m/defs.bzl": "def mac(name, **kwargs):\n    native.filegroup(name = name, **kwargs)\n",
    "d/BUILD": 'filegroup(name = "docs", srcs = ["//m:bzl"])\n',
    "p/BUILD": (
        'load("//m:defs.bzl", "mac")\n'
        'package(default_visibility = ["//visibility:public"])\n'
        'mac(name = "made")\nfilegroup(name = "plain")\n'
    ),
    "u/BUILD": 'filegroup(name = "uses_p", srcs = ["//p:made"])\n',
    "q/BUILD": 'load(":x.bzl", "b", y = "a")\nfilegroup(name = "q", srcs = [y, b])\n',
    "q/x.bzl": 'a = "//abs:x"\nb = "//p:plain"\n',
    "env/BUILD": (
        'environment(name = "e1")\n'
        'environment_group(name = "grp", environments = [":e1"], defaults = [":e1"])\n'
    ),
    "tc/BUILD": (
        'cc_toolchain_suite(name = "suite", toolchains = {"k8": ":cc"})\n'
        'filegroup(name = "cc")\n'
        'config_feature_flag(name = "ff", allowed_values = ["a", "b"], default_value = "a")\n'
        'config_setting(name = "is_a", flag_values = {":ff": "a"})\n'
        'filegroup(name = "sel", srcs = select({":is_a": [":cc"], "//conditions:default": []}))\n'
    ),
    "ex/BUILD": (
        'filegroup(name = "t1")\nfilegroup(name = "t2")\nfilegroup(name = "t3")\n'
        'extra_action(name = "ea", cmd = "true", tools = [":t1"])\n'
        'action_listener(name = "al", mnemonics = ["Javac"], extra_actions = [":ea"])\n'
        'j2objc_library(name = "j2", deps = [":t2"], jre_deps = [":t3"])\n'
        'xcode_version(name = "xv", version = "1")\n'
        'xcode_config(name = "xc", versions = [":xv"], default = ":xv")\n'
    ),
}
#: measured with Bazel 4.2.3: kind(rule, rdeps(//..., X))
RDEPS: dict[str, set[str]] = {
    "//abs:x": {"//abs:x", "//q:q"},
    "//p:plain": {"//p:plain", "//q:q"},
    "//env:e1": {"//env:e1"},
    "//tc:cc": {"//tc:cc", "//tc:suite", "//tc:sel"},
    "//tc:ff": {"//tc:ff", "//tc:is_a", "//tc:sel"},
    "//ex:t1": {"//ex:t1", "//ex:ea", "//ex:al"},
    "//ex:t3": {"//ex:t3", "//ex:j2"},
    "//ex:xv": {"//ex:xv", "//ex:xc"},
    "//m:defs.bzl": {"//m:bzl", "//d:docs"},
    "//p:all": {"//p:made", "//p:plain", "//u:uses_p", "//q:q"},
}
#: measured with Bazel 4.2.3: kind(rule, //...)
RULES = {
    "//abs:x", "//m:bzl", "//d:docs", "//p:made", "//p:plain", "//u:uses_p", "//q:q", "//env:e1",
    "//tc:suite", "//tc:cc", "//tc:ff", "//tc:is_a", "//tc:sel",
    "//ex:t1", "//ex:t2", "//ex:t3", "//ex:ea", "//ex:al", "//ex:j2", "//ex:xv", "//ex:xc",
}
#: a symbol after an alias: the same load for Bazel 4.2.3 (it answers the same)
MIXED_LOAD = {**TREE, "q/BUILD": 'load(\n    ":x.bzl",\n    y = "a",\n    "b",\n)\nfilegroup(name = "q", srcs = [y, b])\n'}


@pytest.fixture(scope="module")
def ws(tmp_path_factory) -> Workspace:
    return Workspace.open(write_tree(tmp_path_factory.mktemp("hb") / "ws", TREE), adapter="bazel", source="static", use_cache=False)


def _rules(ws: Workspace) -> set[str]:
    return {i for i in ws.graph if ws.adapter.reportable(ws.graph, i)}


def test_rules_match_bazel_query(ws: Workspace) -> None:
    """Old: //abs:x missing, //env:grp a rule, undefined names config_feature_flag, ...."""
    assert _rules(ws) == RULES
    assert not [w for w in ws.warnings if "undefined name" in w or "could not be evaluated" in w], ws.warnings


@pytest.mark.parametrize("label", sorted(k for k in RDEPS if not k.endswith((".bzl", ":all"))))
def test_rdeps_match_bazel_query(ws: Workspace, label: str) -> None:
    """Old: //abs:x missing; //env:e1 also had //env:grp; //tc:cc lacked //tc:suite, //ex:xv //ex:xc."""
    assert set(ws.blast_radius([label]).ids) == RDEPS[label]


def test_a_listed_and_loaded_bzl_reaches_both_sets(ws: Workspace) -> None:
    """Old: the path gave only //m:bzl and //d:docs, the changed file only the //p rules."""
    both = RDEPS["//m:defs.bzl"] | RDEPS["//p:all"]
    assert set(ws.blast_radius(["m/defs.bzl"]).ids) == both
    changed = ws.adapter.nodes_for_changed_file(ws.graph, "m/defs.bzl")
    assert set(ws.blast_radius(roots=changed).ids) == both
    # the label is the file target: bazel query's rdeps of it, nothing more
    assert set(ws.blast_radius(["//m:defs.bzl"]).ids) == RDEPS["//m:defs.bzl"]


def test_a_symbol_after_an_alias_in_load_is_loaded(tmp_path: Path) -> None:
    """Old: "q/BUILD:4: syntax error: positional argument follows keyword argument", exit 2.
    Errors after the rewritten load() still name their own line."""
    tree = {**MIXED_LOAD, "q/BUILD": MIXED_LOAD["q/BUILD"] + 'fail("line 7")\n'}
    ws = Workspace.open(write_tree(tmp_path, tree), adapter="bazel", source="static", use_cache=False)
    assert set(ws.blast_radius(["//p:plain"]).ids) == RDEPS["//p:plain"]
    assert [w for w in ws.warnings if "q/BUILD:7: fail(): line 7" in w], ws.warnings


def test_a_keyword_after_a_positional_outside_load_is_still_a_syntax_error(tmp_path: Path) -> None:
    from ctxsel.errors import CtxselError

    tree = {**TREE, "q/BUILD": 'filegroup(name = "q", srcs = [], "x")\n'}
    with pytest.raises(CtxselError, match="positional argument"):
        Workspace.open(write_tree(tmp_path, tree), adapter="bazel", source="static", use_cache=False)


def test_string_keyed_label_dict_values_are_the_labels(tmp_path: Path) -> None:
    """Bazel 7's ``attr.string_keyed_label_dict``: "keys are strings and values are labels"
    (its documentation; Bazel 4.2.3 has no such attribute). Old: the key "k" was read as
    the label //r:k (no edge to //r:v, a warning about an undeclared file)."""
    tree = {
        "WORKSPACE": "",
        "r/BUILD": 'load(":r.bzl", "r")\nfilegroup(name = "v")\nfilegroup(name = "d")\nr(name = "x", m = {"k": ":v"})\nr(name = "y")\n',
        "r/r.bzl": (
            "def _impl(ctx):\n    return []\n"
            'r = rule(implementation = _impl, attrs = {"m": attr.string_keyed_label_dict(default = {"z": ":d"})})\n'
        ),
    }
    ws = Workspace.open(write_tree(tmp_path, tree), adapter="bazel", source="static", use_cache=False)
    assert set(ws.blast_radius(["//r:v"]).ids) == {"//r:v", "//r:x"}
    assert set(ws.blast_radius(["//r:d"]).ids) == {"//r:d", "//r:y"}
    assert not [w for w in ws.warnings if "//r:k" in w], ws.warnings


@pytest.mark.oracle
def test_bazel_answers_so(tmp_path: Path) -> None:
    from test_probe12_bazel_differential import _Bazel

    require("bazel-4")
    server = _Bazel(write_tree(tmp_path / "ws", MIXED_LOAD))
    try:
        assert server.labels("//...") == RULES
        for label, want in RDEPS.items():
            assert server.labels(f"rdeps(//..., {label})") == want, label
    finally:
        server.shutdown()
