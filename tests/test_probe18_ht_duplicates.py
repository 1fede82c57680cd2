"""Duplicate package names: what each real tool does, and ctxsel the same.

Measured (pnpm 12.4.2, npm 11.19.1, yarn 1.22.22 / 4.18.1, turbo 2.11.11):

- two workspace packages named alike: pnpm goes on without a word (a ``workspace:^2`` spec
  links the package whose version matches); npm (EDUPLICATEWORKSPACE), yarn 1 ("There are
  more than one workspace with name"), yarn 4 ("Duplicate workspace name") and turbo ("Failed
  to add workspace") refuse;
- the root named like a workspace package: pnpm, npm, yarn 1 and turbo go on without a word;
  yarn 4 refuses ("Duplicate workspace name", the root is a workspace there).

ctxsel printed "package name 'dup' is used by more than one package" on every command -- once per
duplicate name (vite: six lines on each run), twice per command in turbo mode for the root's
namesake -- where the tool says nothing. It now prints one line for all the names two workspace
packages share (pnpm: its commands name them by directory), nothing for the root's namesake, and
only the error where the tool refuses.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from jsfixtures import PNPM_ENV, TURBO_ENV, open_ws, pnpm_filter
from oracles import require, run, which, yarn_run

MANAGERS = {"pnpm": "pnpm@12.4.2", "npm": "npm@11.19.1", "yarn1": "yarn@1.22.22", "yarn4": "yarn@4.18.1"}
WARNING = "more than one package"


def workspace(root: Path, manager: str, root_name: str = "root", twins: bool = True, turbo: bool = False) -> Path:
    """``p/a`` (dup 1.0.0), ``p/b`` (dup 2.0.0, with ``twins``), ``p/c`` depending on ``dup``."""
    root.mkdir(parents=True)
    manifest: dict = {"name": root_name, "private": True, "packageManager": MANAGERS[manager]}
    if manager == "pnpm":
        (root / "pnpm-workspace.yaml").write_text("packages:\n  - 'p/*'\n")
    else:
        manifest["workspaces"] = ["p/*"]
    (root / "package.json").write_text(json.dumps(manifest))
    spec = "workspace:^2" if manager == "pnpm" and twins else "workspace:*" if manager == "pnpm" else "*"
    packages = {"a": ("dup", "1.0.0", {}), "c": ("c", "1.0.0", {"dup": spec})}
    if twins:
        packages["b"] = ("dup", "2.0.0", {})
    for letter, (name, version, deps) in packages.items():
        (root / "p" / letter).mkdir(parents=True)
        (root / "p" / letter / "package.json").write_text(json.dumps(
            {"name": name, "version": version, "dependencies": deps, "scripts": {"test": "echo"}}))
    if turbo:
        (root / "turbo.json").write_text(json.dumps({"tasks": {"test": {}}}))
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    return root


def ctxsel(cli, root: Path, adapter: str, *args: str):
    return cli("--repo", str(root), "--adapter", adapter, "--source", "static", "--no-cache", *args)


# ---------------------------------------------------------------------- where the tool goes on: silence
def test_pnpm_twins_resolve_by_version_with_one_line_for_all_names(tmp_path: Path, cli) -> None:
    """Old: one warning line per shared name."""
    root = workspace(tmp_path / "ws", "pnpm")
    for extra in ("x", "y"):  # three shared names
        for letter in "ab":
            (root / "p" / f"{extra}{letter}").mkdir(parents=True)
            (root / "p" / f"{extra}{letter}" / "package.json").write_text(json.dumps({"name": extra, "version": "1.0.0"}))
    proc = ctxsel(cli, root, "pnpm", "tests", "--files", "p/b/src/x.ts")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ctxsel: warning: 3 package names") and "'dup' (p/a, p/b)" in lines[0], lines
    # the same package pnpm links: ``workspace:^2`` is p/b's, and each twin is named by its directory
    assert proc.stdout.split() == ["./p/b", "c", "pnpm", "--filter", "./p/b", "--filter", "c", "test"], proc.stdout
    ws = open_ws(root, "pnpm")
    assert len(ws.graph.warnings) == 1
    assert {ws.graph.node(i).package for i in ws.blast_radius(roots=["./p/a"]).ids} == {"p/a"}


@pytest.mark.parametrize(("manager", "adapter"), [("pnpm", "pnpm"), ("npm", "npm"), ("yarn1", "yarn"), ("pnpm", "turbo")])
def test_a_package_named_like_the_root_is_no_warning(tmp_path: Path, cli, manager: str, adapter: str) -> None:
    """Old: "package name 'dup' is used by more than one package: ., p/a" (twice under turbo)."""
    root = workspace(tmp_path / "ws", manager, root_name="dup", twins=False, turbo=adapter == "turbo")
    proc = ctxsel(cli, root, adapter, "blast-radius", "p/a")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip() == "", proc.stderr


# ---------------------------------------------------------------------- where the tool refuses: the error alone
@pytest.mark.parametrize(("manager", "adapter", "root_name"), [
    ("npm", "npm", "root"), ("yarn1", "yarn", "root"), ("yarn4", "yarn", "root"), ("pnpm", "turbo", "root"),
    ("yarn4", "yarn", "dup"),
])
def test_a_refused_duplicate_is_one_error_and_no_warning(tmp_path: Path, cli, manager: str, adapter: str, root_name: str) -> None:
    """Old: the warning line(s) came before the error."""
    root = workspace(tmp_path / "ws", manager, root_name=root_name, twins=root_name == "root", turbo=adapter == "turbo")
    proc = ctxsel(cli, root, adapter, "blast-radius", "p/a")
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "error" in lines[0] and "package.json" in lines[0], proc.stderr
    assert WARNING not in proc.stderr


# ---------------------------------------------------------------------- the real tools
@pytest.mark.oracle
def test_pnpm_says_nothing_about_twins_and_links_by_version(tmp_path: Path) -> None:
    require("pnpm")
    root = workspace(tmp_path / "ws", "pnpm")
    proc = run(["pnpm", "ls", "-r", "--depth", "-1", "--json"], root, env=PNPM_ENV)
    assert proc.stderr.strip() == ""
    assert pnpm_filter(root, "...{p/b}") == {"p/b", "p/c"}
    assert pnpm_filter(root, "...{p/a}") == {"p/a"}
    ws = open_ws(root, "pnpm")
    assert {ws.graph.node(i).package for i in ws.blast_radius(roots=["./p/b"]).ids} == pnpm_filter(root, "...{p/b}")


@pytest.mark.oracle
@pytest.mark.parametrize("root_name", ["root", "dup"])
def test_turbo_refuses_twins_and_accepts_a_root_namesake(tmp_path: Path, root_name: str) -> None:
    require("turbo")
    root = workspace(tmp_path / "ws", "pnpm", root_name=root_name, twins=root_name == "root", turbo=True)
    proc = run(["turbo", "ls", "--output=json"], root, env=TURBO_ENV, check=False)
    if root_name == "root":
        assert proc.returncode != 0 and "Failed to add workspace" in proc.stderr
    else:
        items = json.loads(proc.stdout[proc.stdout.index("{"):])["packages"]["items"]
        assert {(i["name"], i["path"].strip("/")) for i in items} == {("dup", "p/a"), ("c", "p/c")}


@pytest.mark.oracle
@pytest.mark.parametrize("root_name", ["root", "dup"])
def test_npm_refuses_twins_and_accepts_a_root_namesake(tmp_path: Path, root_name: str) -> None:
    if not which("npm"):
        pytest.skip("npm not installed")
    root = workspace(tmp_path / "ws", "npm", root_name=root_name, twins=root_name == "root")
    env = {"npm_config_cache": str(tmp_path / "npm-cache"), "npm_config_update_notifier": "false"}
    proc = run(["npm", "install", "--package-lock-only", "--offline", "--ignore-scripts", "--no-audit", "--no-fund"],
               root, check=False, env={**env, "HOME": os.environ.get("HOME", str(tmp_path))})
    if root_name == "root":
        assert proc.returncode != 0 and "EDUPLICATEWORKSPACE" in proc.stderr
    else:
        assert proc.returncode == 0, proc.stderr[-600:]


@pytest.mark.oracle
@pytest.mark.parametrize(("berry", "root_name", "refused"), [
    (False, "root", True), (False, "dup", False), (True, "root", True), (True, "dup", True),
])
def test_yarn_refuses_twins_and_only_berry_a_root_namesake(tmp_path: Path, berry: bool, root_name: str, refused: bool) -> None:
    root = workspace(tmp_path / "ws", "yarn4" if berry else "yarn1", root_name=root_name, twins=root_name == "root")
    args = ("workspaces", "list", "--json") if berry else ("--silent", "workspaces", "info")
    proc = yarn_run(berry, root, *args, check=False)
    assert (proc.returncode != 0) == refused, (proc.stdout + proc.stderr)[-600:]
    if refused:
        assert ("Duplicate workspace name" if berry else "more than one workspace with name") in proc.stdout + proc.stderr
