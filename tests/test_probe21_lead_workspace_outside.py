"""Session 21 probe: a workspace glob that climbs above the repository root (``../shared/*``).

pnpm lists the packages it reaches there (pnpm 12.4.2, checked below); ctxsel never reads
outside the repository, so its graph leaves them out. Old: nothing said so, and asking
for such a package answered a bare "unknown package". Now the glob gets a warning naming
the manifest, and an error about a target comes after the warnings that explain it
(CLI and MCP alike).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_cli, write_tree
from oracles import require, run

WARNING = "workspace glob '../outside/*' reaches outside the repository"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    write_tree(tmp_path / "outside", {"shared/package.json": json.dumps({"name": "shared", "version": "1.0.0"})})
    return write_tree(tmp_path / "repo", {
        "package.json": json.dumps({"name": "root", "private": True}),
        "pnpm-workspace.yaml": "packages:\n  - packages/*\n  - ../outside/*\n",
        "packages/a/package.json": json.dumps({"name": "a", "version": "1.0.0", "dependencies": {"shared": "workspace:*"}}),
        "packages/b/package.json": json.dumps({"name": "b", "version": "1.0.0", "dependencies": {"a": "workspace:*"}}),
    })


def test_the_glob_is_named_and_the_inside_graph_still_answers(repo: Path) -> None:
    out = run_cli("--source", "static", "blast-radius", "a", "--format", "labels", cwd=repo)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["a", "b"]
    assert f"ctxsel: warning: pnpm-workspace.yaml: {WARNING}" in out.stderr


def test_an_unknown_package_error_comes_after_the_warning_that_explains_it(repo: Path) -> None:
    out = run_cli("--source", "static", "blast-radius", "shared", cwd=repo)
    assert out.returncode == 2
    lines = out.stderr.splitlines()
    assert WARNING in lines[0] and lines[-1] == "ctxsel: error: unknown package 'shared'"
    quiet = run_cli("-q", "--source", "static", "tests", "shared", cwd=repo)
    assert quiet.returncode == 2 and quiet.stderr.splitlines() == ["ctxsel: error: unknown package 'shared'"]


def test_the_mcp_error_carries_the_warning(repo: Path) -> None:
    pytest.importorskip("mcp")
    from ctxsel.mcp_server import CtxselTools, build_server
    import anyio

    server = build_server(CtxselTools(repo, source="static"))
    result = anyio.run(server.call_tool, "blast_radius", {"targets": ["shared"]})
    texts = [c.text for c in result.content]
    assert result.is_error and texts[0] == "unknown package 'shared'"
    assert any(WARNING in t for t in texts[1:])


@pytest.mark.parametrize("glob, warns", [
    ("../outside/*", True), ("**/../x/*", True), ("packages/../../x", True),
    ("packages/*/../a", False), ("./packages/*", False), ("packages/**", False),
])
def test_only_globs_that_can_climb_out_warn(repo: Path, glob: str, warns: bool) -> None:
    (repo / "pnpm-workspace.yaml").write_text(f"packages:\n  - packages/*\n  - '{glob}'\n")
    out = run_cli("--source", "static", "blast-radius", "a", "--format", "labels", cwd=repo)
    assert out.returncode == 0, out.stderr
    assert ("reaches outside the repository" in out.stderr) == warns


def test_yarn_and_npm_workspaces_warn_too(repo: Path) -> None:
    (repo / "pnpm-workspace.yaml").unlink()
    (repo / "package.json").write_text(json.dumps({"name": "root", "private": True, "workspaces": ["packages/*", "../outside/*"]}))
    for dep in ("packages/a/package.json", "packages/b/package.json"):
        (repo / dep).write_text((repo / dep).read_text().replace("workspace:*", "*"))
    out = run_cli("--source", "static", "blast-radius", "a", "--format", "labels", cwd=repo)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["a", "b"] and f"package.json: {WARNING}" in out.stderr
    (repo / ".yarnrc.yml").write_text("nodeLinker: node-modules\n")
    (repo / "yarn.lock").write_text("__metadata:\n  version: 8\n")
    berry = run_cli("--adapter", "yarn", "--source", "static", "blast-radius", "a", "--format", "labels", cwd=repo)
    assert berry.returncode == 0, berry.stderr
    assert WARNING in berry.stderr


@pytest.mark.oracle
def test_pnpm_does_list_the_package_outside(repo: Path) -> None:
    """Why the warning exists: the real tool's graph has the package ctxsel leaves out."""
    pnpm = require("pnpm")
    listed = json.loads(run([pnpm, "ls", "-r", "--depth", "-1", "--json"], cwd=repo).stdout)
    assert "shared" in {p.get("name") for p in listed}
