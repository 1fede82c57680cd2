"""Session 21: a package directory that moves, where git sees its files deleted and added.

pnpm 12.4.2 and yarn 4.18.1 map each changed path through today's packages: the deleted
``p/a/*`` paths lie under the root project now (``p/a`` holds no package), the added
``q/a/*`` ones under ``a``. Old: ctxsel credited the deleted paths to ``a`` itself (its
node survives under the new directory), so the root project was missing from the answer.
Now a deleted path whose package directory is gone is credited to what holds the path
today, whether or not its node survived the move (helper hj measured the case, session 21).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from jsfixtures import pnpm_filter
from oracles import require, yarn_since
from test_probe21_hj_change_mapping import _checkout, commit, ctxsel_dirs

#: what both tools list for the move commit (``[HEAD~1]``), measured
EXPECTED = {"", "q/a", "p/b"}


def history(root: Path, manager: str) -> Path:
    """p/a <- p/b; then p/a moves to q/a with its manifest rewritten (no rename for git)."""
    root.mkdir(parents=True)
    manifest = {"name": "root", "private": True, "scripts": {"test": "echo root"}}
    if manager == "pnpm":
        (root / "pnpm-workspace.yaml").write_text("packages: ['p/*', 'q/*']\n")
    else:
        manifest |= {"workspaces": ["p/*", "q/*"], "packageManager": "yarn@4.18.1"}
        (root / "yarn.lock").write_text("")
        (root / ".yarnrc.yml").write_text("nodeLinker: node-modules\n")
    (root / "package.json").write_text(json.dumps(manifest))
    for name, deps in (("a", {}), ("b", {"a": "workspace:*"})):
        (root / "p" / name).mkdir(parents=True)
        (root / "p" / name / "package.json").write_text(
            json.dumps({"name": name, "version": "1.0.0", "scripts": {"test": f"echo {name}"}, "dependencies": deps}))
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    (root / ".git/info/exclude").write_text(".ctxsel/\nnode_modules/\n")
    commit(root, "init")
    (root / "q").mkdir()
    (root / "p/a").rename(root / "q/a")
    (root / "q/a/package.json").write_text(json.dumps(
        {"name": "a", "version": "2.0.0", "description": "moved and rewritten", "license": "MIT",
         "scripts": {"test": "echo a", "build": "echo build a"}, "dependencies": {}}, indent=2))
    commit(root, "move p/a to q/a")
    status = subprocess.run(["git", "diff", "--name-status", "-M", "HEAD~1", "HEAD"], cwd=root, capture_output=True,
                            text=True, check=True).stdout.split()
    assert status[:2] == ["D", "p/a/package.json"] or ["D", "p/a/package.json"] == status[2:4], status  # no rename
    return root


@pytest.mark.parametrize("manager", ["pnpm", "yarn"])
def test_a_moved_package_changes_the_root_where_it_was(tmp_path: Path, manager: str) -> None:
    radius, tests = ctxsel_dirs(history(tmp_path / "ws", manager), manager, "HEAD")
    assert radius == EXPECTED
    assert tests == EXPECTED


@pytest.mark.oracle
def test_pnpm_filter_agrees(tmp_path: Path) -> None:
    require("pnpm")
    root = history(tmp_path / "ws", "pnpm")
    parent = _checkout(root, "HEAD")
    assert pnpm_filter(root, f"...[{parent}]") == EXPECTED


@pytest.mark.oracle
def test_yarn_4_since_agrees(tmp_path: Path) -> None:
    root = history(tmp_path / "ws", "yarn")
    parent = _checkout(root, "HEAD")
    assert yarn_since(root, parent, recursive=True) == EXPECTED
