"""Turborepo 2: which package a ``workspace:<alias>@<range>`` spec links, and blank ranges.

Session 20, random differential testing against turbo 2.11.11 (``turbo query``), then one
case per rule. turbo finds the package of a ``workspace:`` spec first and then links it
whatever the range:

- ``workspace:<name>@*`` / ``@^`` / ``@~`` name ``<name>``;
- any other spec holding a ``/`` (not leading) is a path: ``workspace:@p/z@^1`` names the
  directory ``@p/z@^1``, which does not exist -- no edge even on a 1.0.0 ``@p/z`` (ctxsel linked
  it when the range was satisfied);
- the rest names the dependency itself: ``"a": "workspace:a@^1"`` links a 2.0.0 ``a`` (or one with
  no version), ``"a": "workspace:zz@1.0.0"`` and ``"a": "workspace:@"`` link ``a``, and
  ``"x": "workspace:a@^1"`` links nothing (ctxsel read ``a@^1`` as an alias checked against the
  range).

With linkWorkspacePackages, a plain range made only of blanks and ``||`` (``""``, ``" || "``)
links a prerelease too (turbo's semver cannot read it, which counts as a link); ctxsel read it
as ``*``, which excludes prereleases.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsfixtures import open_ws, turbo_dependents_all
from oracles import require

pytestmark = pytest.mark.oracle

#: (dependency name, spec, version of a and @p/z, pnpm-workspace.yaml extra) -> the package p/b links
#: to, or None (turbo 2.11.11, measured)
LINK = "linkWorkspacePackages: true\n"
CASES: dict[tuple[str, str, str | None, str], str | None] = {
    ("a", "workspace:a@^1", "1.0.0", ""): "p/a",
    ("a", "workspace:a@^1", "2.0.0", ""): "p/a",
    ("a", "workspace:a@^1", None, ""): "p/a",
    ("x", "workspace:a@^1", "1.0.0", ""): None,
    ("a", "workspace:zz@1.0.0", "1.0.0", ""): "p/a",
    ("a", "workspace:a@", "1.0.0", ""): "p/a",
    ("a", "workspace:@", "1.0.0", ""): "p/a",
    ("x", "workspace:@", "1.0.0", ""): None,
    ("x", "workspace:a@^", None, ""): "p/a",
    ("x", "workspace:a@*", None, ""): "p/a",
    ("x", "workspace:@p/z@~", None, ""): "p/z",
    ("@p/z", "workspace:@p/z@^1", "1.0.0", ""): None,
    ("@p/z", "workspace:@p/z", "1.0.0", ""): None,
    ("a", "workspace:../a@^1", "1.0.0", ""): None,
    ("a", "workspace:../a", "1.0.0", ""): "p/a",
    ("a", "", "1.2.3-beta.1", LINK): "p/a",
    ("a", " || ", "1.2.3-beta.1", LINK): "p/a",
    ("a", "", None, LINK): None,
    ("a", "x", "1.2.3-beta.1", LINK): None,
    ("a", "*||", "1.2.3-beta.1", LINK): None,
}
KEYS = sorted(CASES, key=repr)


def workspace(root: Path, dep: str, spec: str, version: str | None, settings: str) -> Path:
    """``p/a`` (``a``) and ``p/z`` (``@p/z``) at ``version``; ``p/b`` depends on ``{dep: spec}``."""
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "root", "private": True, "packageManager": "pnpm@12.4.2"}))
    (root / "turbo.json").write_text(json.dumps({"tasks": {"test": {}}}))
    (root / "pnpm-workspace.yaml").write_text("packages: ['p/*']\n" + settings)
    manifests = {"p/a": {"name": "a"}, "p/z": {"name": "@p/z"}, "p/b": {"name": "b", "version": "1.0.0", "dependencies": {dep: spec}}}
    for rel, manifest in manifests.items():
        if version and rel != "p/b":
            manifest["version"] = version
        (root / rel).mkdir(parents=True)
        (root / rel / "package.json").write_text(json.dumps(manifest))
    return root


def expected(key: tuple[str, str, str | None, str]) -> dict[str, set[str]]:
    """Each package dir -> itself and its dependents, when p/b links only ``CASES[key]``."""
    out = {d: {d} for d in ("p/a", "p/b", "p/z")}
    if CASES[key]:
        out[CASES[key]].add("p/b")
    return out


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_static_turbo_links_workspace_specs_as_turbo_does(tmp_path: Path, key: tuple[str, str, str | None, str]) -> None:
    ws = open_ws(workspace(tmp_path / "ws", *key), "turbo")
    ours = {n.package: {ws.graph.node(i).package for i in ws.blast_radius(roots=[n.id]).ids}
            for n in ws.graph.nodes() if n.package}
    assert ours == expected(key)


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_turbo_gives_the_measured_answer(tmp_path: Path, key: tuple[str, str, str | None, str]) -> None:
    require("turbo")
    assert turbo_dependents_all(workspace(tmp_path / "ws", *key)) == expected(key)
