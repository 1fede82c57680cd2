"""npm workspaces at the edges, against npm 11 itself (``npm install --offline`` links
workspace packages without a registry, ``npm query`` lists what it found; a dependency
npm does not link makes the offline install fail with ENOTCACHED)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from jsfixtures import open_ws
from oracles import run

pytestmark = pytest.mark.oracle

NPM_OFFLINE = ["--offline", "--ignore-scripts", "--no-audit", "--no-fund"]
DIRS = ["a", "a/b", "a/b/c", "a/.d", "pk", "pk/x"]


def require_npm() -> None:
    if not shutil.which("npm"):
        pytest.skip("npm not installed")


def workspace(root: Path, globs: list[str], packages: dict[str, dict]) -> Path:
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "root", "version": "0.0.0", "workspaces": globs}))
    for rel, manifest in packages.items():
        (root / rel).mkdir(parents=True, exist_ok=True)
        (root / rel / "package.json").write_text(json.dumps(manifest))
    return root


def tree(root: Path, globs: list[str]) -> Path:
    return workspace(root, globs, {d: {"name": "n-" + d.replace("/", "-").replace(".", "_"), "version": "1.0.0"} for d in DIRS})


def npm_workspaces(root: Path) -> set[str]:
    run(["npm", "install", *NPM_OFFLINE], root, timeout=120)
    return {p["location"] for p in json.loads(run(["npm", "query", ".workspace", "--json"], root).stdout)}


def our_workspaces(root: Path) -> set[str]:
    return {n.package for n in open_ws(root, "npm").graph.nodes() if n.package}


GLOBS = [["a/**", "!a/*"], ["a/**", "!a/b"], ["pk/*", "a/*", "!pk/*"], ["!!a/b"], ["a/*", "!!!a/b"], ["a/*", "!!!a/b", "!!a/b"],
         ["a/b/c/package.json"], ["*/../pk"]]


@pytest.mark.parametrize("globs", GLOBS, ids=["|".join(g) for g in GLOBS])
def test_npm_globs_match_npm(tmp_path: Path, globs: list[str]) -> None:
    require_npm()
    root = tree(tmp_path / "ws", globs)
    assert our_workspaces(root) == npm_workspaces(root)


def test_npm_drops_a_pattern_whose_text_a_negation_matches(tmp_path: Path) -> None:
    assert our_workspaces(tree(tmp_path / "a", ["a/**", "!a/*"])) == set()  # "a/**" itself matches "a/*"
    assert our_workspaces(tree(tmp_path / "b", ["a/**", "!a/b"])) == {"a", "a/b/c"}
    assert our_workspaces(tree(tmp_path / "c", ["a/*", "!!!a/b", "!!a/b"])) == {"a/b"}  # ! parity; a later positive wins


SPECS = {"x": ("1.0", False), " *": (None, True), " ^1.0.0": ("1.0.0", True), "X": ("", False)}


@pytest.mark.parametrize("spec", sorted(SPECS))
def test_npm_spec_links_like_npm(tmp_path: Path, spec: str) -> None:
    version, links = SPECS[spec]
    t = {"name": "t", **({"version": version} if version is not None else {})}
    root = workspace(tmp_path / "ws", ["p/*"], {"p/t": t, "p/d": {"name": "d", "dependencies": {"t": spec}}})
    assert bool(open_ws(root, "npm").graph.dependencies("d")) is links
    if shutil.which("npm"):
        assert (run(["npm", "install", *NPM_OFFLINE], root, timeout=120, check=False).returncode == 0) is links


def test_duplicate_workspace_names_are_refused(tmp_path: Path, cli) -> None:
    root = workspace(tmp_path / "ws", ["p/*"], {"p/a": {"name": "same"}, "p/b": {"name": "same"}, "p/c": {"name": "c"}})
    proc = cli("--repo", str(root), "--adapter", "npm", "--source", "static", "blast-radius", "c")
    assert proc.returncode == 2 and "p/a/package.json and p/b/package.json" in proc.stderr and "Traceback" not in proc.stderr
    if shutil.which("npm"):
        npm = run(["npm", "install", *NPM_OFFLINE], root, timeout=120, check=False)
        assert npm.returncode != 0 and "must not have multiple workspaces with the same name" in npm.stderr
