"""Workspace globs at the edges: ctxsel's package set against pnpm 12's and turbo 2's.

One tree of package directories (dot-directories and ``node_modules`` included) and a
list of glob sets; for each set, the directories ``pnpm ls``/``turbo ls`` list must be the
ones ctxsel finds. The static tests pin the measured answers so they fail without the tools.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsfixtures import open_ws, pnpm_filter, turbo_filter
from oracles import require

pytestmark = pytest.mark.oracle

DIRS = ["a", "a/b", "a/b/c", "a/.d", "a/.d/e", ".x/y", "pk", "pk/x", "pk/y/z", "pk/node_modules/q", "apps/web", "apps/web/test"]

PNPM_CASES = [
    ["a/b/c/package.json"], ["pk/*/package.json"], ["**/package.json"],  # package.json is a directory name
    ["a/b/../b"], ["a/../pk"], ["*/../pk"], ["a/b/../../pk/*"], ["pk/x/.."],  # ".." steps up
    ["/a"], ["/pk/*"],  # an absolute pattern selects nothing
    ["a/{b,.d}"], ["{.x,a}/*"], ["a/.{d,z}"], [".{x,q}/*"],  # a dot from a brace alternative does not count
]
TURBO_CASES = [
    ["a/**"], ["*/*"], ["a/*/*"], ["{a,pk}/*"],  # wildcards match dot-directories
    ["a/**", "!a/*"], ["a/**", "!**/b"], ["a/**", "!a/b/*"], ["a/**", "!a", "a/b"], ["pk/**", "!pk"],  # negations drop subtrees
    ["pk/node_modules/q"], ["pk/*", "pk/node_modules/q"],  # a literal path may be in node_modules
    ["a/b/../b"], ["a/*/../b"], ["**/package.json"],
]


def tree(root: Path, globs: list[str], manager: str | None = None) -> Path:
    root.mkdir(parents=True)
    manifest: dict = {"name": "root", "version": "0.0.0"}
    if manager:
        manifest["packageManager"] = manager
        (root / "turbo.json").write_text(json.dumps({"tasks": {}}))
    if manager is None or manager.startswith("pnpm"):
        (root / "pnpm-workspace.yaml").write_text("packages:\n" + "".join(f"  - {json.dumps(g)}\n" for g in globs))
    else:
        manifest["workspaces"] = globs
    (root / "package.json").write_text(json.dumps(manifest))
    for rel in DIRS:
        (root / rel).mkdir(parents=True, exist_ok=True)
        (root / rel / "package.json").write_text(json.dumps({"name": "n-" + rel.replace("/", "-"), "version": "1.0.0"}))
    return root


def pnpm_dirs(root: Path) -> set[str]:
    return {n.package for n in open_ws(root, "pnpm").graph.nodes()}


def turbo_dirs(root: Path) -> set[str]:
    return {n.package for n in open_ws(root, "turbo").graph.nodes() if n.id != "//"}


@pytest.mark.parametrize("globs", PNPM_CASES, ids=["|".join(g) for g in PNPM_CASES])
def test_glob_edges_match_pnpm(tmp_path: Path, globs: list[str]) -> None:
    require("pnpm")
    root = tree(tmp_path / "ws", globs)
    assert pnpm_dirs(root) == pnpm_filter(root, "*")


@pytest.mark.parametrize("manager", ["pnpm@12.4.2", "npm@10.9.0"])
@pytest.mark.parametrize("globs", TURBO_CASES, ids=["|".join(g) for g in TURBO_CASES])
def test_glob_edges_match_turbo(tmp_path: Path, globs: list[str], manager: str) -> None:
    require("turbo")
    root = tree(tmp_path / "ws", globs, manager)
    assert turbo_dirs(root) == turbo_filter(root, "*")


# ---------------------------------------------------------------------- measured answers, no tool needed
def test_pnpm_absolute_patterns_and_dots_from_braces(tmp_path: Path) -> None:
    assert pnpm_dirs(tree(tmp_path / "a", ["/a", "a/{b,.d}", "{.x,pk}/*"])) == {"", "a/b", "pk/x"}
    assert pnpm_dirs(tree(tmp_path / "b", ["a/.{d,z}", ".{x,q}/*"])) == {"", "a/.d", ".x/y"}


def test_package_json_suffix_and_parent_steps(tmp_path: Path) -> None:
    assert pnpm_dirs(tree(tmp_path / "a", ["pk/*/package.json"])) == {""}
    assert pnpm_dirs(tree(tmp_path / "b", ["*/../pk", "a/b/../b"])) == {"", "pk", "a/b"}
    assert pnpm_dirs(tree(tmp_path / "c", ["../c/a"])) == {""}  # never outside the repository


def test_turbo_globbing(tmp_path: Path) -> None:
    assert turbo_dirs(tree(tmp_path / "a", ["a/*"], "npm@10.9.0")) == {"a/b", "a/.d"}
    assert turbo_dirs(tree(tmp_path / "b", ["a/**", "!a", "a/b"], "npm@10.9.0")) == {"a/b"}
    assert turbo_dirs(tree(tmp_path / "c", ["a/**", "!a/*"], "npm@10.9.0")) == set()
    assert turbo_dirs(tree(tmp_path / "d", ["pk/node_modules/q", "pk/*"], "npm@10.9.0")) == {"pk/node_modules/q", "pk/x"}


def symlinked(root: Path, globs: list[str], loop: bool = False) -> Path:
    """``p/x`` links to ``real/x`` and ``p/r`` to ``real2`` (holding ``y``); with ``loop``, ``p/loop`` to ``p``."""
    import os

    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "root", "version": "0.0.0", "packageManager": "npm@10.9.0", "workspaces": globs}))
    (root / "turbo.json").write_text(json.dumps({"tasks": {}}))
    for rel, name in (("real/x", "x"), ("real2/y", "y"), ("p/a", "a")):
        (root / rel).mkdir(parents=True)
        (root / rel / "package.json").write_text(json.dumps({"name": name}))
    os.symlink(root / "real/x", root / "p/x")
    os.symlink(root / "real2", root / "p/r")
    if loop:  # turbo itself fails on a loop ("failed to match directory tree"); ctxsel must just not hang
        os.symlink(root / "p", root / "p/loop")
    return root


@pytest.mark.parametrize("globs", [["p/*"], ["p/*/*"], ["real2/*", "p/a"]], ids=["star", "star-star", "literal"])
def test_turbo_wildcards_follow_symlinked_directories(tmp_path: Path, globs: list[str]) -> None:
    require("turbo")
    root = symlinked(tmp_path / "ws", globs)
    assert turbo_dirs(root) == turbo_filter(root, "*")


def test_turbo_follows_symlinks_and_survives_a_loop(tmp_path: Path) -> None:
    assert turbo_dirs(symlinked(tmp_path / "a", ["p/*"])) == {"p/a", "p/x"}
    assert turbo_dirs(symlinked(tmp_path / "b", ["p/**"])) == {"p/a", "p/x", "p/r/y"}
    assert {"p/a", "p/x", "p/r/y"} <= turbo_dirs(symlinked(tmp_path / "c", ["p/**"], loop=True))


def test_turbo_refuses_duplicate_package_names(tmp_path: Path, cli) -> None:
    root = tree(tmp_path / "ws", ["a", "pk"], "npm@10.9.0")
    (root / "pk/package.json").write_text(json.dumps({"name": "n-a"}))
    proc = cli("--repo", str(root), "--adapter", "turbo", "--source", "static", "blast-radius", "n-a")
    assert proc.returncode == 2 and "a/package.json and pk/package.json" in proc.stderr and "Traceback" not in proc.stderr


def test_turbo_really_refuses_duplicate_package_names(tmp_path: Path) -> None:
    from oracles import run

    require("turbo")
    root = tree(tmp_path / "ws", ["a", "pk"], "npm@10.9.0")
    (root / "pk/package.json").write_text(json.dumps({"name": "n-a"}))
    proc = run(["turbo", "ls", "--output=json"], root, check=False, env={"TURBO_TELEMETRY_DISABLED": "1", "DO_NOT_TRACK": "1"})
    assert proc.returncode != 0 and "already exists" in proc.stderr


def yaml_manifest_workspace(root: Path, turbo: bool = False) -> Path:
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "root", **({"packageManager": "pnpm@12.4.2"} if turbo else {})}))
    (root / "pnpm-workspace.yaml").write_text("packages: ['p/*']\n")
    if turbo:
        (root / "turbo.json").write_text(json.dumps({"tasks": {}}))
    files = {
        "p/a/package.json": json.dumps({"name": "a", "version": "1.0.0"}),
        "p/b/package.yaml": "name: b\nversion: 1.0.0\ndependencies:\n  a: workspace:*\n",  # a pnpm project
        "p/c/package.json5": "{name: 'c', dependencies: {a: 'workspace:*'}}\n",  # not one
        "p/d/package.yaml": "name: d-yaml\n",  # package.json wins
        "p/d/package.json": json.dumps({"name": "d-json", "dependencies": {"a": "workspace:*"}}),
    }
    for rel, body in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(body)
    return root


def test_package_yaml_is_a_pnpm_project(tmp_path: Path) -> None:
    root = yaml_manifest_workspace(tmp_path / "ws")
    ws = open_ws(root, "pnpm")
    assert {n.package for n in ws.graph.nodes()} == {"", "p/a", "p/b", "p/d"}
    assert set(ws.blast_radius(["a"]).ids) == {"a", "b", "d-json"}
    if __import__("oracles").which("pnpm"):
        assert {n.package for n in ws.graph.nodes()} == pnpm_filter(root, "*")
        assert {ws.graph.node(i).package for i in ws.blast_radius(["a"]).ids} == pnpm_filter(root, "...a")


def test_package_yaml_is_not_a_turbo_package(tmp_path: Path) -> None:
    root = yaml_manifest_workspace(tmp_path / "ws", turbo=True)
    assert turbo_dirs(root) == {"p/a", "p/d"}
    if __import__("oracles").which("turbo"):
        assert turbo_dirs(root) == turbo_filter(root, "*")


@pytest.mark.parametrize("glob", [" pk/*", "pk/* ", "pk/x "])
def test_globs_are_not_trimmed(tmp_path: Path, glob: str) -> None:
    """`` pk/*`` names a directory `` pk`` for pnpm, turbo (measured) and npm: no package."""
    assert pnpm_dirs(tree(tmp_path / "pnpm", [glob])) == {""}
    assert turbo_dirs(tree(tmp_path / "turbo", [glob], "pnpm@12.4.2")) == set()
    from oracles import which

    if which("pnpm"):
        assert pnpm_filter(tmp_path / "pnpm", "*") == {""}
    if which("turbo"):
        assert turbo_filter(tmp_path / "turbo", "*") == set()
