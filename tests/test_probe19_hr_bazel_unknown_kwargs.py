"""``**value`` where the value comes from a .bzl file static mode does not evaluate.

Found on bazel-contrib/rules_oci: ``oci_image = rule(..., attrs = dict(_attrs, **resource_set_attr))``
with ``resource_set_attr`` loaded from ``@aspect_bazel_lib``. ctxsel failed the statement ("** argument
must be a dict"), so ``oci_image`` was undefined and all 43 ``oci_image`` targets of the repository were
missing from the static graph (45 unevaluated statements, 191 edges instead of 388). A value loaded from
another repository may be a dict (it is, for Bazel): its keys are unknown, the rest of the call is not.

Here ``@ext`` is a local_repository (static mode does not evaluate other repositories; Bazel 4.2.3
does); its ``more`` attribute, which only @ext declares, still reaches ``//u:b`` in static mode (a
label-valued attribute the rule does not declare is read as a dependency).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write_tree
from ctxsel.workspace import Workspace
from oracles import require

TREE: dict[str, str] = {
    "WORKSPACE": 'workspace(name = "w")\nlocal_repository(name = "ext", path = "ext_repo")\n',
    "ext_repo/WORKSPACE": 'workspace(name = "ext")\n',
    "ext_repo/BUILD": "",
    "ext_repo/defs.bzl": 'extra = {"more": attr.label_list()}\n',
    "lib/BUILD": "",
    "lib/defs.bzl": (
        'load("@ext//:defs.bzl", "extra")\n'
        "def _impl(ctx):\n    return []\n"
        '_attrs = {"deps": attr.label_list()}\n'
        "r = rule(implementation = _impl, attrs = dict(_attrs, **extra))\n"
        "def m(name, **kwargs):\n    r(name = name, **kwargs)\n"
    ),
    "u/BUILD": (
        'load("//lib:defs.bzl", "m", "r")\n'
        'filegroup(name = "a")\n'
        'filegroup(name = "b")\n'
        'r(name = "x", deps = [":a"], more = [":b"])\n'
        'm(name = "y", deps = [":x"])\n'
    ),
}
#: measured with Bazel 4.2.3: rdeps(//u:all, X)
RDEPS: dict[str, set[str]] = {
    "//u:a": {"//u:a", "//u:x", "//u:y"},
    "//u:b": {"//u:b", "//u:x", "//u:y"},
    "//u:x": {"//u:x", "//u:y"},
}


def _rdeps(ws: Workspace, label: str) -> set[str]:
    return {i for i in ws.blast_radius(roots=[label]).ids if i.startswith("//u:")}


def test_a_rule_whose_attrs_unpack_an_unevaluated_value_is_defined(tmp_path: Path) -> None:
    """Old: ``r`` undefined, ``//u:x`` and ``//u:y`` missing, an "** argument must be a dict" warning."""
    ws = Workspace.open(write_tree(tmp_path, TREE), adapter="bazel", source="static", use_cache=False)
    assert {"//u:x", "//u:y"} <= set(ws.graph)
    for label, want in RDEPS.items():
        assert _rdeps(ws, label) == want, label
    assert not [w for w in ws.warnings if "could not be evaluated" in w], ws.warnings


def test_unpacking_a_known_non_dict_is_still_an_error(tmp_path: Path) -> None:
    tree = {**TREE, "lib/defs.bzl": TREE["lib/defs.bzl"].replace("**extra", '**["x"]')}
    ws = Workspace.open(write_tree(tmp_path, tree), adapter="bazel", source="static", use_cache=False)
    assert [w for w in ws.warnings if "** argument must be a dict" in w], ws.warnings


@pytest.mark.oracle
def test_bazel_reads_the_unpacked_attrs_so(tmp_path: Path) -> None:
    from test_probe12_bazel_differential import _Bazel

    require("bazel-4")
    server = _Bazel(write_tree(tmp_path / "ws", TREE))
    try:
        for label, want in RDEPS.items():
            assert {x for x in server.labels(f"rdeps(//u:all, {label})") if x.startswith("//u:")} == want, label
    finally:
        server.shutdown()
