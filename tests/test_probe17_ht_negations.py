"""Turborepo 2 workspace negations that name the root, a directory above it, or use ``..``
(turbo 2.11.11, measured; found while checking globs that match the root):

turbo excludes everything below a path a negation matches, so ``!.``, ``!./``, ``!..`` and
``!p/..`` (the root, or above it) drop every package a wildcard found -- as ``!**`` does -- and
``!p/a/..`` drops all of ``p``; a literal glob (``p/a``, ``.``) stays, as for any negation; a
negation naming a path outside the repository (``!../x``) drops nothing. ctxsel matched the
negation's text without resolving ``.``/``..``, so those negations excluded nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ctxsel.adapters.js.turbo import ROOT_ID
from jsfixtures import open_ws, turbo_filter
from oracles import require

ALL = {"p/a", "p/b", "p/c"}
#: workspace globs -> the package dirs turbo lists ("" is the root listed as a package)
CASES = {
    "root-star-star": (["**", "!."], set()),
    "dot": (["p/*", "!."], set()),
    "dot-slash": (["p/*", "!./"], set()),
    "parent": (["p/*", "!.."], set()),
    "parent-of-parent": (["p/*", "!../../"], set()),
    "p-parent": (["p/*", "!p/.."], set()),
    "p-a-parent": (["p/*", "!p/a/.."], set()),
    "p-a-parent-b": (["p/*", "!p/a/../b"], {"p/a", "p/c"}),
    "outside": (["p/*", "!../x"], ALL),
    "literal-kept": (["p/a", "!."], {"p/a"}),
    "literal-root-kept": ([".", "!."], {""}),
}


def workspace(root: Path, globs: list[str]) -> Path:
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps(
        {"name": "root", "private": True, "packageManager": "pnpm@12.4.2", "scripts": {"test": "echo"}}))
    (root / "pnpm-workspace.yaml").write_text("packages:\n" + "".join(f"  - {json.dumps(g)}\n" for g in globs))
    (root / "turbo.json").write_text(json.dumps({"tasks": {"test": {}}}))
    for name in ("a", "b", "c"):
        (root / "p" / name).mkdir(parents=True)
        (root / "p" / name / "package.json").write_text(json.dumps({"name": name, "version": "1.0.0"}))
    return root


@pytest.mark.parametrize("case", sorted(CASES))
def test_ctxsel_resolves_them(tmp_path: Path, case: str) -> None:
    """Old: ``!.``, ``!..``, ``!p/..`` and ``!p/a/..`` excluded nothing."""
    globs, expected = CASES[case]
    ws = open_ws(workspace(tmp_path / "ws", globs), "turbo")
    assert {n.package for n in ws.graph.nodes() if n.id != ROOT_ID} == expected


@pytest.mark.oracle
@pytest.mark.parametrize("case", sorted(CASES))
def test_turbo_lists_them(tmp_path: Path, case: str) -> None:
    require("turbo")
    globs, expected = CASES[case]
    assert turbo_filter(workspace(tmp_path / "ws", globs), "*") == expected
