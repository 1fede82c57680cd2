"""Turborepo links plain version specs as the pnpm that ``packageManager`` names would.

Measured with turbo 2.11.11 (``turbo ls --filter=...{p/a}``; found on blitz-js/blitz, whose
``packageManager`` is pnpm@8.6.6 and whose apps depend on ``"blitz": "3.0.1"``): under pnpm 7
or 8 a plain ``1.0.0`` on a workspace package at 1.0.0 links (pnpm 8's
``link-workspace-packages`` defaulted to true), unless .npmrc says
``link-workspace-packages=false``; ``linkWorkspacePackages: false`` in pnpm-workspace.yaml does
not stop it there. Under pnpm 9 and later it links only when asked, and the YAML setting wins
over .npmrc (``true`` in .npmrc, ``false`` in the YAML: no link). ctxsel linked only when
either file said true.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsfixtures import open_ws, turbo_filter, write_pkg
from oracles import require

#: (packageManager, .npmrc text or None, pnpm-workspace.yaml settings) -> does b link a (turbo's answer)
CASES = {
    ("pnpm@8.6.6", None, ""): True,
    ("pnpm@7.0.0", None, ""): True,
    ("pnpm@8.6.6", None, "linkWorkspacePackages: false\n"): True,
    ("pnpm@8.6.6", "link-workspace-packages=false\n", ""): False,
    ("pnpm@9.0.0", None, ""): False,
    ("pnpm@9.0.0", "link-workspace-packages=true\n", "linkWorkspacePackages: false\n"): False,
    ("pnpm@9.0.0", None, "linkWorkspacePackages: true\n"): True,
}


def workspace(root: Path, package_manager: str, npmrc: str | None, settings: str) -> Path:
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "root", "private": True, "packageManager": package_manager}))
    (root / "pnpm-workspace.yaml").write_text("packages: ['p/*']\n" + settings)
    (root / "turbo.json").write_text('{"tasks": {}}')
    if npmrc is not None:
        (root / ".npmrc").write_text(npmrc)
    write_pkg(root, "p/a", "a")
    write_pkg(root, "p/b", "b", dependencies={"a": "1.0.0"})
    return root


def ctxsel_links(root: Path) -> bool:
    ws = open_ws(root, "turbo")
    a = next(n for n in ws.graph.nodes() if n.package == "p/a")
    return "p/b" in {ws.graph.node(i).package for i in ws.blast_radius([a.id]).ids}


@pytest.mark.parametrize("case", sorted(CASES, key=str), ids=str)
def test_plain_spec_links_as_turbo_does(tmp_path: Path, case: tuple[str, str | None, str]) -> None:
    assert ctxsel_links(workspace(tmp_path / "ws", *case)) is CASES[case]


@pytest.mark.oracle
def test_turbo_agrees(tmp_path: Path) -> None:
    require("turbo")
    for i, case in enumerate(sorted(CASES, key=str)):
        root = workspace(tmp_path / f"w{i}", *case)
        assert ("p/b" in turbo_filter(root, "...{p/a}")) is CASES[case] is ctxsel_links(root), case
