"""``subpackages()`` / ``native.subpackages()`` in static mode (Bazel 6+).

formatjs (pnpm + Bazel 9) builds every package's tsconfig in a macro that excludes its
child packages with ``native.subpackages(include = ["*"], allow_empty = True)``. Static
mode did not know the function: ``native.<unknown>`` is taken as a rule of that kind,
which then failed ("subpackages() needs a string name"), so 41 statements -- each
``ts_project`` macro call with all the targets it creates -- were lost from the graph.

The semantics are Bazel's documented ones (no Bazel 6+ oracle is installed; Bazel 4.2.3
has no such function): the *direct* subpackages -- the nearest packages below the package
at any depth, none below another subpackage -- relative to it, sorted, matched against
the include/exclude globs as directories (``*`` one level, ``**`` any); an empty answer
with ``allow_empty = False`` (the default) is an error, reported as an empty glob is.
"""

from __future__ import annotations

from pathlib import Path

from conftest import write_tree
from ctxsel.workspace import Workspace

TREE: dict[str, str] = {
    "WORKSPACE": 'workspace(name = "w")\n',
    # packages below //a: b, c/d (c is no package), e/f/g and e/f/g/h (below g: not direct)
    **{f"{d}/BUILD": 'filegroup(name = "x")\n' for d in ("a/b", "a/c/d", "a/e/f/g", "a/e/f/g/h")},
    "a/c/readme.txt": "not a package\n",
    "tools/defs.bzl": (
        "def children(name, include):\n"
        '    native.filegroup(name = name, srcs = ["//%s/%s:x" % (native.package_name(), s)'
        " for s in native.subpackages(include = include, allow_empty = True)])\n"
    ),
    "tools/BUILD": "",
    "a/BUILD": (
        'load("//tools:defs.bzl", "children")\n'
        'children(name = "one", include = ["*"])\n'
        'filegroup(name = "all", srcs = ["//a/" + s + ":x" for s in subpackages(include = ["**"], exclude = ["c/**"])])\n'
        'children(name = "none", include = ["zzz*"])\n'
        'filegroup(name = "after")\n'
    ),
}


def _dependents(ws: Workspace, label: str) -> set[str]:
    return set(ws.blast_radius(roots=[label]).ids) - {label}


def test_subpackages_lists_direct_subpackages_matching_the_globs(tmp_path: Path) -> None:
    ws = Workspace.open(write_tree(tmp_path, TREE), adapter="bazel", source="static", use_cache=False)
    assert not [w for w in ws.warnings if "could not be evaluated" in w], ws.warnings
    assert _dependents(ws, "//a/b:x") == {"//a:one", "//a:all"}
    assert _dependents(ws, "//a/c/d:x") == set()  # two levels down for "*"; excluded for "**"
    assert _dependents(ws, "//a/e/f/g:x") == {"//a:all"}
    assert _dependents(ws, "//a/e/f/g/h:x") == set()  # below the subpackage //a/e/f/g
    assert {"//a:none", "//a:after"} <= set(ws.graph.nodes_in_package("a"))


def test_subpackages_matching_nothing_without_allow_empty_is_reported(tmp_path: Path) -> None:
    tree = {**TREE, "a/BUILD": 'filegroup(name = "z", srcs = subpackages(include = ["zzz"]))\n'}
    ws = Workspace.open(write_tree(tmp_path, tree), adapter="bazel", source="static", use_cache=False)
    assert any("a/BUILD:1 (subpackages)" in w for w in ws.warnings), ws.warnings
