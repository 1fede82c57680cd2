"""Graph semantics the session 22 Bazel sweep and probes found wrong (each measured with Bazel 4.2.3).

- bazel-watcher (Gazelle's shape ``deps = [...] + select({os1: ["@x//unix"], os2: ["@x//unix"]})``):
  ctxsel warned that the label is listed twice and ``bazel query`` fails on the package; Bazel
  counts a label once per ``select()`` however many branches name it, and only then compares
  across the parts of a concatenation (``AggregatingAttributeMapper.checkForDuplicateLabels``).
- rules_nixpkgs (``nixpkgs/BUILD.pkg -> ../core/BUILD.bazel.tpl``): a path naming a symlink was
  resolved to its target, so ``blast-radius nixpkgs/BUILD.pkg`` answered ``//core``'s rules;
  Bazel names the link by its own path (``//nixpkgs:BUILD.pkg``, globbed by ``//nixpkgs:srcs``).
- rules_fuzzing (5 statements, 30 rules of ``//examples/java`` lost): ``_RUNTIME_BY_NAME[
  native_library_sanitizer]``, a dict of its own indexed by a symbol loaded from another
  repository (``@rules_fuzzing_oss_fuzz//:instrum.bzl``, not evaluated), failed "key ... not
  found" instead of being unknown like any other value of that repository. (Bazel 4.2.3 cannot
  load that package: ``select()`` with ``Label`` keys came in Bazel 5.)
- rules_bazel_integration_test (3 rules Bazel never has): ``_P = doc_providers.create(name =
  "api", ...)`` (a function of ``@cgrindel_bazel_starlib`` returning a struct) was taken as a
  rule of kind ``create``: any call of another repository's symbol with ``name`` was. A rule
  returns None, so a call whose value a statement assigns is no rule (one whose value is passed
  on stays one: rules_testing's ``util.empty_file`` makes a target and returns its label).
- probes: a chain of 300 .bzl files each loading the next ran out of Python stack 244 files
  down ("nesting too deep", the value lost); Bazel 4.2.3 evaluates a 3,000-deep chain.
- probes: a ``select()`` inside a ``select()`` branch is an attribute no Bazel accepts ("expected
  value of type 'list(label)' for each branch"); ``bazel query --keep_going`` keeps the rule and
  its other attributes but follows nothing of that one (not even the select keys). ctxsel
  followed every branch.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from conftest import write_tree
from ctxsel.workspace import Workspace
from oracles import oracle_env, require

NESTED: dict[str, str] = {
    "WORKSPACE": 'workspace(name = "w")\n',
    "n/s.cc": "",
    "n/BUILD": (
        'config_setting(name = "c", values = {"cpu": "k8"})\n'
        'cc_library(name = "x")\ncc_library(name = "y")\ncc_library(name = "z")\n'
        'cc_library(name = "a", srcs = ["s.cc"], data = [":z"], deps = select({":c": select({":c": [":x"], '
        '"//conditions:default": []}), "//conditions:default": [":y"]}))\n'
        'cc_library(name = "b", deps = [":z"])\n'
        'cc_library(name = "d", deps = select({":c": [":x"]}) + [":y"])\n'
    ),
}
#: Bazel 4.2.3: ``rdeps(//..., X)`` with --keep_going (rules only)
NESTED_RDEPS = {
    "//n:x": {"//n:d", "//n:x"}, "//n:y": {"//n:d", "//n:y"}, "//n:z": {"//n:a", "//n:b", "//n:z"},
    "//n:c": {"//n:c", "//n:d"},
}

DUPLICATES: dict[str, str] = {
    "WORKSPACE": 'workspace(name = "w")\n',
    "d/BUILD": (
        'config_setting(name = "c", values = {"cpu": "k8"})\nconfig_setting(name = "e", values = {"cpu": "arm"})\n'
        'cc_library(name = "x")\ncc_library(name = "y")\n'
        'cc_library(name = "a", deps = select({":c": [":x"], ":e": [":x"], "//conditions:default": []}))\n'
        'cc_library(name = "b", deps = [":y"] + select({":c": [":x"], ":e": [":x"], "//conditions:default": []}))\n'
        'cc_library(name = "h", deps = [":y"] + select({":c": [":x", ":x"], "//conditions:default": []}))\n'
        'cc_library(name = "i", deps = select({":c": [":x"], "//conditions:default": []}) + select({":e": [":x"], "//conditions:default": []}))\n'
        'cc_library(name = "j", deps = select({":c": [":x"], "//conditions:default": [":y"]}) + select({":e": [":y"], "//conditions:default": []}))\n'
        'cc_library(name = "k", deps = [":y"] + select({":c": [":x"], ":e": [":x"], "//conditions:default": []}) + [":x"])\n'
        'cc_library(name = "l", deps = [":x", ":y", ":x"])\n'
    ),
}
#: Bazel 4.2.3: the rules of its "Label '//d:_' is duplicated in the 'deps' attribute of rule '_'" errors
DUPLICATED = {"//d:h", "//d:i", "//d:j", "//d:k", "//d:l"}

SYMLINKED: dict[str, str] = {
    "WORKSPACE": 'workspace(name = "w")\n',
    "core/BUILD": 'filegroup(name = "srcs", srcs = glob(["**"]))\n',
    "core/BUILD.tpl": "# a template\n",
    "nix/BUILD": 'filegroup(name = "srcs", srcs = glob(["**"]))\nfilegroup(name = "pkg", srcs = ["BUILD.pkg"])\n',
}
#: Bazel 4.2.3: rdeps(//..., //nix:BUILD.pkg) and rdeps(//..., //core:BUILD.tpl), rules only
SYMLINKED_RDEPS = {"nix/BUILD.pkg": {"//nix:srcs", "//nix:pkg"}, "core/BUILD.tpl": {"//core:srcs"}}


def _static(root: Path) -> Workspace:
    return Workspace.open(root, adapter="bazel", source="static", use_cache=False)


def _symlinked(root: Path) -> Path:
    write_tree(root, SYMLINKED)
    os.symlink("../core/BUILD.tpl", root / "nix" / "BUILD.pkg")
    return root


@pytest.mark.parametrize("label", sorted(NESTED_RDEPS))
def test_a_select_inside_a_select_gives_its_attribute_no_edge(tmp_path: Path, label: str) -> None:
    """Old: //n:a was a dependent of //n:x, //n:y and //n:c."""
    ws = _static(write_tree(tmp_path, NESTED))
    assert set(ws.blast_radius([label]).ids) == NESTED_RDEPS[label]
    assert any("select() inside a select()" in w and "//n:a (deps)" in w for w in ws.warnings), ws.warnings


def test_a_label_in_several_branches_of_one_select_is_no_duplicate(tmp_path: Path) -> None:
    """Old: //d:b was also reported ("bazel query fails on their packages")."""
    ws = _static(write_tree(tmp_path, DUPLICATES))
    warning = next(w for w in ws.warnings if "list a label twice" in w)
    assert warning.startswith(f"static: {len(DUPLICATED)} attribute(s)"), warning
    assert "//d:b" not in warning and "//d:a " not in warning


def test_a_symlinked_file_is_named_by_its_own_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Old: nix/BUILD.pkg was read as core/BUILD.tpl (//core:srcs), from the root and from nix/."""
    root = _symlinked(tmp_path)
    ws = _static(root)
    for path, want in SYMLINKED_RDEPS.items():
        assert set(ws.blast_radius([path]).ids) == want
    monkeypatch.chdir(root / "nix")
    assert set(ws.blast_radius(["BUILD.pkg"]).ids) == SYMLINKED_RDEPS["nix/BUILD.pkg"]


def _chain(depth: int) -> dict[str, str]:
    """``c/l0.bzl`` loads ``l1.bzl`` ... ``l<depth-1>.bzl``, each adding one to the next's value."""
    files = {"WORKSPACE": 'workspace(name = "w")\n', "c/BUILD": 'load(":l0.bzl", "v")\ncc_library(name = "a%d" % v)\n'}
    for i in range(depth - 1):
        files[f"c/l{i}.bzl"] = f'load(":l{i + 1}.bzl", _w = "v")\nv = _w + 1\n'
    files[f"c/l{depth - 1}.bzl"] = "v = 0\n"
    return files


def test_a_deep_load_chain_is_evaluated(tmp_path: Path) -> None:
    """Old: "c/l244.bzl:1: nesting too deep" and no //c:a2999 (Bazel 4.2.3 makes it; measured)."""
    ws = _static(write_tree(tmp_path, _chain(3000)))
    assert "//c:a2999" in ws.graph
    assert not ws.warnings, ws.warnings


def test_a_long_load_cycle_names_the_cycle(tmp_path: Path) -> None:
    """A cycle through the whole chain is found before any evaluation, not 244 files down."""
    files = _chain(1000)
    files["c/l999.bzl"] = 'load(":l0.bzl", _w = "v")\nv = 0\n'
    from ctxsel.errors import ParseError

    with pytest.raises(ParseError) as err:
        _static(write_tree(tmp_path, files))
    assert err.value.location.path == "c/l999.bzl" and "load() cycle: c/l0.bzl -> c/l1.bzl" in str(err.value)


def test_a_dict_indexed_by_another_repositorys_symbol_is_unknown_not_an_error(tmp_path: Path) -> None:
    """Old: "key UnknownCallable(symbol='san', ...) not found": the whole macro call was lost."""
    ws = _static(write_tree(tmp_path, {
        "WORKSPACE": 'workspace(name = "w")\n',
        "f/BUILD": 'load(":defs.bzl", "fuzz")\nfuzz(name = "t")\n',
        "f/defs.bzl": (
            'load("@oss//:instrum.bzl", "san")\n_BY_NAME = {"none": None, "asan": "//f:asan_rt"}\n'
            "def fuzz(name):\n"
            '    native.filegroup(name = name + "_rt", srcs = [_BY_NAME[san]])\n'
            '    native.cc_test(name = name, data = [":" + name + "_rt"])\n'
        ),
    }))
    assert {"//f:t", "//f:t_rt"} <= set(ws.graph)
    assert not [w for w in ws.warnings if "could not be evaluated" in w], ws.warnings


def test_a_call_whose_value_is_used_is_no_rule(tmp_path: Path) -> None:
    """Old: //d:api, //d:x and //d:y were rules of kind ``create`` (the right side of an
    assignment, lexically: a comprehension in it too)."""
    ws = _static(write_tree(tmp_path, {
        "WORKSPACE": 'workspace(name = "w")\n',
        "d/wrap.bzl": 'load("@ext//:defs.bzl", "ext_rule")\ndef wrap(name):\n    return ext_rule(name = name)\n',
        "d/BUILD": (
            'load("@ext//:defs.bzl", "providers", "write_header", "ext_rule")\nload(":wrap.bzl", "wrap")\n'
            '_P = providers.create(name = "api")\n'
            '_ALL = [providers.create(name = n) for n in ["x", "y"]]\n'
            '[write_header(name = n + "_h") for n in ["x", "y"]]\n'
            'ext_rule(name = "r")\nwrap(name = "w")\n'
            # a value passed on may be a helper's label (rules_testing's util.empty_file), and
            # the assignment is the caller's, not the wrapper's: both stay rules
            'write_header(name = "h", srcs = [ext_rule(name = "e")])\n_W = wrap(name = "w2")\n'
        ),
    }))
    rules = {i for i in ws.graph if ws.adapter.reportable(ws.graph, i)}
    assert rules == {"//d:h", "//d:x_h", "//d:y_h", "//d:r", "//d:w", "//d:e", "//d:w2"}


@pytest.mark.oracle
def test_bazel_answers_so(tmp_path: Path) -> None:
    from test_probe12_bazel_differential import _Bazel

    require("bazel-4")
    for name, root, expected in (
        ("nested", write_tree(tmp_path / "nested", NESTED), NESTED_RDEPS),
        ("symlinked", _symlinked(tmp_path / "symlinked"), {f"//{p.replace('/', ':', 1)}": v for p, v in SYMLINKED_RDEPS.items()}),
    ):
        server = _Bazel(root)
        try:
            for label, want in expected.items():
                assert server.labels(f"rdeps(//..., {label})", "--keep_going") == want, (name, label)
        finally:
            server.shutdown()
    root = write_tree(tmp_path / "dup", DUPLICATES)
    proc = subprocess.run([require("oracle-bazel4"), "query", "//d:all", "--keep_going", "--noshow_progress"],
                          cwd=root, env=oracle_env(), capture_output=True, text=True, timeout=300)
    rules = {f"//d:{m}" for m in re.findall(r"is duplicated in the 'deps' attribute of rule '(\w+)'", proc.stderr)}
    assert rules == DUPLICATED, proc.stderr[-2000:]
