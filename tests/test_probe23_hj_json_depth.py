"""A package.json nested deeper than pnpm's / turbo's JSON parsers read, against the real tools.

pnpm 12.4.2 (serde_json's recursion limit) fails every command on a package.json 128
objects/arrays deep, turbo 2.11.11 on one 129 deep, whichever package it is (the root's
too). ctxsel read such a file (Python's ``json`` goes to ~990 levels) and answered; now it
exits 2 naming the file and line where the tool stops, and answers where the tool answers.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli
from jsfixtures import PNPM_ENV, write_pkg
from oracles import require, run

pytestmark = pytest.mark.oracle


def _deep(levels: int) -> str:
    """A package.json-shaped object whose deepest value is ``levels`` containers down."""
    inner = levels - 2  # the manifest object and the "x" object are two levels
    return '"x": {"y":\n' + "[" * inner + "]" * inner + "}"


def _workspace(root: Path, deep_dir: str, levels: int) -> Path:
    root.mkdir(parents=True)
    root_fields = '{"name": "root", "private": true, "packageManager": "pnpm@12.4.2", "workspaces": ["p/*"]'
    (root / "package.json").write_text(root_fields + ("," + _deep(levels) if deep_dir == "" else "") + "}")
    (root / "pnpm-workspace.yaml").write_text("packages:\n  - p/*\n")
    (root / "turbo.json").write_text(json.dumps({"tasks": {"test": {}}}))
    write_pkg(root, "p/b", "b", dependencies={"a": "workspace:*"})
    (root / "p/a").mkdir(parents=True)
    a = '{"name": "a", "version": "1.0.0"'
    (root / "p/a/package.json").write_text(a + ("," + _deep(levels) if deep_dir == "p/a" else "") + "}")
    return root


@pytest.mark.parametrize("adapter", ["pnpm", "turbo"])
def test_deep_manifests_fail_where_the_tool_fails(tmp_path: Path, adapter: str) -> None:
    require(adapter)
    tool = {"pnpm": ["pnpm", "--filter", "...a", "ls", "--depth", "-1", "--json"],
            "turbo": ["turbo", "ls", "--filter=...a", "--output=json"]}[adapter]
    outcomes = []
    for deep_dir in ("p/a", ""):
        for levels in (127, 128, 129):
            root = _workspace(tmp_path / f"{adapter}-{deep_dir or 'root'}-{levels}", deep_dir, levels)
            tool_fails = run(tool, root, check=False, env=PNPM_ENV).returncode != 0
            proc = run_cli("--repo", str(root), "--no-cache", "--adapter", adapter, "--source", "static",
                           "blast-radius", "a")
            outcomes.append((deep_dir, levels, tool_fails, proc.returncode))
            if tool_fails:
                rel = f"{deep_dir}/package.json" if deep_dir else "package.json"
                assert proc.returncode == 2 and f"{rel}:2:" in proc.stderr, proc.stderr
                assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) <= 3
            else:
                assert proc.returncode == 0, (deep_dir, levels, proc.stderr)
    # the measured limits: the test must see both sides of each tool's line
    assert {(d, lv) for d, lv, fails, _ in outcomes if fails} == {
        (d, lv) for d in ("p/a", "") for lv in (127, 128, 129) if lv > {"pnpm": 127, "turbo": 128}[adapter]}
