"""Workspace globs that match nothing: one warning when no glob selects a package, none otherwise.

Real repos keep globs that match nothing in a given checkout (pnpm/pnpm's ``pnpm11/engine/*``,
trpc's ``examples/minimal/*``, dub's ``apps/web/.react-email``) and pnpm, npm, yarn, turbo and
Nx say nothing about them; ctxsel warned on each, in every ``pre-commit`` run. Globs that
together select nothing are still worth a warning: the workspace then has only its root.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsfixtures import open_ws


def workspace(root: Path, adapter: str, globs: list[str]) -> Path:
    manifest: dict = {"name": "root", "private": True}
    if adapter == "pnpm":
        (root / "pnpm-workspace.yaml").write_text("packages:\n" + "".join(f"  - '{g}'\n" for g in globs))
    else:
        manifest["workspaces"] = globs
    if adapter == "yarn":
        manifest["packageManager"] = "yarn@4.18.1"
        (root / "yarn.lock").write_text("__metadata:\n  version: 8\n")
    (root / "package.json").write_text(json.dumps(manifest))
    (root / "packages/a").mkdir(parents=True)
    (root / "packages/a/package.json").write_text(json.dumps({"name": "a", "version": "1.0.0"}))
    return root


@pytest.mark.parametrize("adapter", ["pnpm", "npm", "yarn"])
def test_a_glob_matching_nothing_beside_one_that_matches_is_silent(tmp_path: Path, adapter: str) -> None:
    ws = open_ws(workspace(tmp_path, adapter, ["packages/*", "examples/*"]), adapter)
    assert "a" in ws.graph
    assert not [w for w in ws.warnings if "glob" in w], ws.warnings


@pytest.mark.parametrize("adapter", ["pnpm", "npm", "yarn"])
def test_globs_that_select_no_package_warn_once(tmp_path: Path, adapter: str) -> None:
    ws = open_ws(workspace(tmp_path, adapter, ["pakages/*", "examples/*"]), adapter)
    assert "a" not in ws.graph
    glob_warnings = [w for w in ws.warnings if "glob" in w]
    assert len(glob_warnings) == 1 and "'pakages/*'" in glob_warnings[0] and "'examples/*'" in glob_warnings[0], ws.warnings
