"""Which workspace declaration Turborepo 2 reads (turbo 2.11.11, measured):

- the package manager comes from ``packageManager``: with ``npm@``/``yarn@``/``bun@`` there,
  turbo reads package.json ``workspaces`` even when a pnpm-workspace.yaml lies beside it (a repo
  that moved off pnpm); ctxsel read the yaml whenever it existed, so it listed the yaml's
  packages (``q/b``) instead of turbo's (``p/a``). With ``pnpm@`` and no pnpm-workspace.yaml,
  package.json ``workspaces`` is not read: single-package mode (ctxsel listed ``p/a``), with a
  warning naming package.json;
- an empty glob (``""`` in ``workspaces``, or an empty ``- `` entry in pnpm-workspace.yaml) is
  the root directory: the root package is listed as a package (``test_probe17_ht_root_glob``);
  ctxsel skipped it. A blank ``" "`` matches nothing, for both.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ctxsel.adapters.js.turbo import ROOT_ID
from jsfixtures import open_ws, turbo_filter
from oracles import require


def workspace(root: Path, manager: str, workspaces: list[str] | None, yaml: str | None) -> Path:
    root.mkdir(parents=True)
    manifest: dict = {"name": "root", "private": True, "packageManager": manager, "scripts": {"test": "echo root"}}
    if workspaces is not None:
        manifest["workspaces"] = workspaces
    (root / "package.json").write_text(json.dumps(manifest))
    if yaml is not None:
        (root / "pnpm-workspace.yaml").write_text(yaml)
    (root / "turbo.json").write_text(json.dumps({"tasks": {"test": {}}}))
    for rel, name in (("p/a", "a"), ("q/b", "b")):
        (root / rel).mkdir(parents=True)
        (root / rel / "package.json").write_text(json.dumps({"name": name, "version": "1.0.0", "scripts": {"test": "x"}}))
    return root


#: name -> (manager, workspaces, pnpm-workspace.yaml, package dirs turbo lists) (measured)
CASES = {
    "npm-beside-yaml": ("npm@10.9.0", ["p/*"], "packages: ['q/*']\n", {"p/a"}),
    "yarn-beside-yaml": ("yarn@1.22.22", ["p/*"], "packages: ['q/*']\n", {"p/a"}),
    "bun-beside-yaml": ("bun@1.2.0", ["p/*"], "packages: ['q/*']\n", {"p/a"}),
    "pnpm-beside-workspaces": ("pnpm@12.4.2", ["p/*"], "packages: ['q/*']\n", {"q/b"}),
    # single-package mode: pnpm's workspace is pnpm-workspace.yaml alone
    "pnpm-workspaces-without-yaml": ("pnpm@12.4.2", ["p/*"], None, set()),
    "npm-empty-glob": ("npm@10.9.0", ["", "p/*"], None, {"", "p/a"}),
    "npm-blank-glob": ("npm@10.9.0", [" ", "p/*"], None, {"p/a"}),
    "pnpm-empty-entry": ("pnpm@12.4.2", None, "packages:\n  -\n  - 'q/*'\n", {"", "q/b"}),
}


def listed(ws) -> set[str]:
    return {n.package for n in ws.graph.nodes() if n.id != ROOT_ID}


@pytest.mark.parametrize("case", sorted(CASES))
def test_ctxsel_reads_the_declaration_turbo_reads(tmp_path: Path, case: str) -> None:
    """Old: the yaml's ``q/b`` beside ``npm@``/``yarn@``/``bun@``, and no root for an empty glob."""
    manager, workspaces, yaml, expected = CASES[case]
    ws = open_ws(workspace(tmp_path / "ws", manager, workspaces, yaml), "turbo")
    assert listed(ws) == expected
    assert any(w.startswith("package.json: turbo cannot read it") for w in ws.graph.warnings) == (not expected)


@pytest.mark.oracle
@pytest.mark.parametrize("case", sorted(CASES))
def test_turbo_lists_them(tmp_path: Path, case: str) -> None:
    require("turbo")
    manager, workspaces, yaml, expected = CASES[case]
    assert turbo_filter(workspace(tmp_path / "ws", manager, workspaces, yaml), "*") == expected
