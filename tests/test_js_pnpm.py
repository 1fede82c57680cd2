"""pnpm workspaces: ctxsel's static graph against pnpm 12's own ``--filter`` answers."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from jsfixtures import copy_fixture, open_ws, pnpm_filter, radius_dirs, spec_workspace, test_dirs, write_pkg
from oracles import oracle_env, require

from ctxsel.adapters.js.pnpm import PnpmAdapter

pytestmark = pytest.mark.oracle


def assert_agrees_with_pnpm(root: Path, prod: bool = False) -> int:
    """Every project's dependents (itself included) as pnpm and ctxsel see them."""
    ws = open_ws(root, "pnpm", extra={"prod": "1"} if prod else None)
    assert {n.package for n in ws.graph.nodes()} == pnpm_filter(root, "*")
    compared = 0
    for node in ws.graph.nodes():
        ours = radius_dirs(ws, node.id)
        theirs = pnpm_filter(root, "...{" + (node.package or ".") + "}", prod=prod)
        assert ours == theirs, f"dependents of {node.id}: ctxsel {sorted(ours)} vs pnpm {sorted(theirs)}"
        compared += 1
    return compared


# ---------------------------------------------------------------------- differential
def test_fixture_dependents_match_pnpm_for_every_package(tmp_path: Path) -> None:
    require("pnpm")
    root = copy_fixture("js-pnpm", tmp_path)
    assert assert_agrees_with_pnpm(root) == 12  # root + 11 packages
    assert not (root / "pnpm-lock.yaml").exists()


def test_fixture_filter_prod_matches_pnpm(tmp_path: Path) -> None:
    require("pnpm")
    root = copy_fixture("js-pnpm", tmp_path)
    assert_agrees_with_pnpm(root, prod=True)
    ws = open_ws(root, "pnpm", extra={"prod": "1"})
    radius = set(ws.blast_radius(["@ws/core"]).ids)
    assert "@ws/app-e2e" not in radius and "@ws/cli" in radius  # cli reaches core through utils


@pytest.mark.parametrize("settings", ["", "linkWorkspacePackages: true\n"], ids=["default", "link-workspace-packages"])
def test_every_version_spec_matches_pnpm(tmp_path: Path, settings: str) -> None:
    require("pnpm")
    root = spec_workspace(tmp_path / "ws", settings)
    assert_agrees_with_pnpm(root)


def test_npmrc_link_workspace_packages_is_ignored_like_pnpm_12(tmp_path: Path) -> None:
    require("pnpm")
    root = spec_workspace(tmp_path / "ws")
    (root / ".npmrc").write_text("link-workspace-packages=true\n")
    assert_agrees_with_pnpm(root)
    assert "@p/f" not in open_ws(root, "pnpm").blast_radius(["@p/a"]).ids


def test_duplicate_names_link_to_highest_satisfying_version(tmp_path: Path) -> None:
    require("pnpm")
    root = tmp_path / "ws"
    root.mkdir()
    (root / "package.json").write_text(json.dumps({"name": "root", "version": "0.0.0"}))
    (root / "pnpm-workspace.yaml").write_text("packages: ['p/*', 'q/*']\n")
    write_pkg(root, "p/a", "@p/a")
    write_pkg(root, "q/a", "@p/a", version="2.0.0")
    write_pkg(root, "p/b", "@p/b", dependencies={"@p/a": "workspace:*"})
    write_pkg(root, "p/c", "@p/c", dependencies={"@p/a": "workspace:^2.0.0"})
    write_pkg(root, "p/d", "@p/d", dependencies={"@p/a": "workspace:^1.0.0"})
    assert_agrees_with_pnpm(root)
    ws = open_ws(root, "pnpm")
    assert sorted(ws.resolve(["@p/a"])) == ["./p/a", "./q/a"]  # the name selects both, as in pnpm
    assert {ws.graph.node(i).package for i in ws.blast_radius(["@p/a"]).ids} == pnpm_filter(root, "...@p/a")
    assert any("p/a, q/a" in w for w in ws.warnings)


def test_unversioned_duplicate_matches_a_range_only_without_a_versioned_sibling(tmp_path: Path) -> None:
    require("pnpm")
    root = tmp_path / "ws"
    root.mkdir()
    (root / "package.json").write_text(json.dumps({"name": "root", "version": "0.0.0"}))
    (root / "pnpm-workspace.yaml").write_text("packages: ['p/*', 'q/*']\n")
    write_pkg(root, "p/a", "a", version="1.0.0")
    write_pkg(root, "q/a", "a", version=None)
    write_pkg(root, "p/b", "b", dependencies={"a": "workspace:^2.0.0"})  # 1.0.0 fails; q/a has no version
    write_pkg(root, "p/c", "c", dependencies={"a": "workspace:^1.0.0"})  # 1.0.0 satisfies
    assert_agrees_with_pnpm(root)
    ws = open_ws(root, "pnpm")
    assert {ws.graph.node(i).package for i in ws.blast_radius(["./q/a"]).ids} == {"q/a"}
    assert {ws.graph.node(i).package for i in ws.blast_radius(["./p/a"]).ids} == {"p/a", "p/c"}


def test_glob_negation_and_double_star_match_pnpm(tmp_path: Path) -> None:
    require("pnpm")
    root = tmp_path / "ws"
    root.mkdir()
    (root / "package.json").write_text(json.dumps({"name": "root"}))
    (root / "pnpm-workspace.yaml").write_text(
        "packages:\n  - 'libs/**'\n  - 'apps/{web,api}'\n  - '!libs/internal/**'\n  - '!**/fixtures/**'\n  - ./tools/\n"
    )
    for rel in ["libs/a", "libs/deep/b", "libs/internal/c", "libs/internal", "libs/x/fixtures/f",
                "apps/web", "apps/api", "apps/other", "tools", "libs/.cache/h", "libs/node_modules/n"]:
        write_pkg(root, rel, rel.replace("/", "-"))
    ws = open_ws(root, "pnpm")
    assert {n.package for n in ws.graph.nodes()} == pnpm_filter(root, "*")


def test_test_selection_is_pnpm_selection_with_a_test_script(tmp_path: Path) -> None:
    """``pnpm --filter ...X test`` runs the ``test`` script of each selected project that has one.

    (Running it here is no oracle: ``pnpm run`` installs first and needs the registry.)
    """
    require("pnpm")
    root = copy_fixture("js-pnpm", tmp_path)
    ws = open_ws(root, "pnpm")
    for node in ws.graph.nodes():
        selected = pnpm_filter(root, "...{" + (node.package or ".") + "}")
        with_script = {d for d in selected if "test" in json.loads((root / d / "package.json").read_text()).get("scripts", {})}
        assert test_dirs(ws, node.id) == with_script, node.id


def test_workspace_without_root_manifest_has_no_root_project(tmp_path: Path) -> None:
    require("pnpm")
    root = tmp_path / "ws"
    write_pkg(root, "p/a", "@p/a")
    write_pkg(root, "p/b", "@p/b", dependencies={"@p/a": "workspace:*"})
    (root / "pnpm-workspace.yaml").write_text("packages: ['p/*']\n")
    assert assert_agrees_with_pnpm(root) == 2


# ---------------------------------------------------------------------- tool mode
def test_tool_mode_equals_static_mode_and_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require("pnpm")
    root = copy_fixture("js-pnpm", tmp_path)
    monkeypatch.setenv("PATH", oracle_env()["PATH"])
    monkeypatch.delenv("pnpm_config_pm_on_fail", raising=False)  # the adapter must set it itself
    before = sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))
    tool = open_ws(root, "pnpm", source="tool")
    static = open_ws(root, "pnpm", source="static")
    assert sorted(tool.graph.edges()) == sorted(static.graph.edges())
    assert {n.id: n.is_test for n in tool.graph.nodes()} == {n.id: n.is_test for n in static.graph.nodes()}
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*")) == before


def test_tool_failure_is_a_user_error(tmp_path: Path) -> None:
    root = copy_fixture("js-pnpm", tmp_path)
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "pnpm").write_text("#!/bin/sh\necho 'ERR_PNPM_BROKEN boom' >&2\nexit 1\n")
    os.chmod(fake / "pnpm", 0o755)
    adapter = PnpmAdapter(root)
    from ctxsel.errors import ToolError

    with pytest.raises(ToolError, match="boom"):
        adapter.run_tool([str(fake / "pnpm"), "ls"], {})
    (fake / "slow").write_text("#!/bin/sh\nsleep 5\n")
    os.chmod(fake / "slow", 0o755)
    with pytest.raises(ToolError, match="did not finish within"):
        adapter.run_tool([str(fake / "slow")], {}, timeout=0.3)


# ---------------------------------------------------------------------- static answers
def test_reference_semantics_without_the_tool(tmp_path: Path) -> None:
    root = copy_fixture("js-pnpm", tmp_path)
    ws = open_ws(root, "pnpm")
    radius = set(ws.blast_radius(["@ws/core"]).ids)
    assert radius == {"@ws/core", "@ws/api", "@ws/app", "@ws/app-e2e", "@ws/cli", "@ws/plugin", "@ws/testkit", "@ws/utils"}
    assert set(ws.blast_radius(["@ws/docs"]).ids) == {"@ws/docs", "ws-root"}  # root depends on docs
    sel = ws.tests(["@ws/app"])
    assert sel.tests == ["@ws/app", "@ws/app-e2e"]
    assert sel.argv == ["pnpm", "--filter", "@ws/app", "--filter", "@ws/app-e2e", "test"]
    assert "@ws/standalone" not in ws.tests(["@ws/standalone"]).tests  # no test script


def test_file_maps_to_longest_package_prefix(tmp_path: Path) -> None:
    root = copy_fixture("js-pnpm", tmp_path)
    (root / "packages/core-lib/src").mkdir()
    (root / "packages/core-lib/src/index.ts").write_text("")
    (root / "README.md").write_text("")
    ws = open_ws(root, "pnpm")
    assert ws.resolve([str(root / "packages/core-lib/src/index.ts")]) == ["@ws/core"]
    assert ws.resolve([str(root / "README.md")]) == ["ws-root"]
    assert ws.adapter.global_files() == ()


# ---------------------------------------------------------------------- bad input (CLI)
def test_invalid_package_json_names_file_and_line(tmp_path: Path, cli) -> None:
    root = copy_fixture("js-pnpm", tmp_path)
    (root / "packages/api/package.json").write_text('{\n  "name": "@ws/api",\n  "version": 1.0.0\n}\n')
    proc = cli("--repo", str(root), "--adapter", "pnpm", "blast-radius", "@ws/core")
    assert proc.returncode == 2
    assert "packages/api/package.json:3" in proc.stderr and "Traceback" not in proc.stderr


def test_workspace_yaml_that_is_not_yaml(tmp_path: Path, cli) -> None:
    root = copy_fixture("js-pnpm", tmp_path)
    (root / "pnpm-workspace.yaml").write_text("packages:\n  - 'packages/*'\n   - [unclosed\n")
    proc = cli("--repo", str(root), "blast-radius", "@ws/core")
    assert proc.returncode == 2
    assert "pnpm-workspace.yaml" in proc.stderr and "Traceback" not in proc.stderr


def test_globs_matching_nothing_warn(tmp_path: Path, cli) -> None:
    """One warning when no glob selects a package (one unmatched glob beside others is silent:
    tests/test_probe16_lead_glob_warnings.py); it survives a cache hit and goes with the cache."""
    root = copy_fixture("js-pnpm", tmp_path)
    (root / "pnpm-workspace.yaml").write_text("packages:\n  - 'libz/*'\n  - 'libx/*'\n")
    proc = cli("--repo", str(root), "--adapter", "pnpm", "blast-radius", "ws-root", "--format", "labels")
    assert proc.returncode == 0
    assert "'libz/*'" in proc.stderr and "'libx/*'" in proc.stderr and "ws-root" in proc.stdout
    again = cli("--repo", str(root), "--adapter", "pnpm", "blast-radius", "ws-root", "--format", "labels")
    assert "libz/*" in again.stderr  # a cache hit still warns
    write_pkg(root, "libz/new", "@ws/new")
    third = cli("--repo", str(root), "--adapter", "pnpm", "blast-radius", "@ws/new", "--format", "labels")
    assert "@ws/new" in third.stdout and "libz/*" not in third.stderr  # the new directory invalidated it


def test_duplicate_name_warns_with_both_dirs(tmp_path: Path, cli) -> None:
    root = copy_fixture("js-pnpm", tmp_path)
    write_pkg(root, "apps/core-copy", "@ws/core")
    proc = cli("--repo", str(root), "--adapter", "pnpm", "blast-radius", "@ws/utils", "--format", "labels")
    assert proc.returncode == 0
    assert "apps/core-copy, packages/core-lib" in proc.stderr


def test_unknown_package_suggests_close_names(tmp_path: Path, cli) -> None:
    root = copy_fixture("js-pnpm", tmp_path)
    proc = cli("--repo", str(root), "--adapter", "pnpm", "tests", "@ws/utlis")
    assert proc.returncode == 2
    assert "@ws/utils" in proc.stderr and "Traceback" not in proc.stderr


def test_detected_as_pnpm(tmp_path: Path) -> None:
    root = copy_fixture("js-pnpm", tmp_path)
    assert PnpmAdapter.detect(root)
    from ctxsel.adapters import detect

    assert detect(root) == "pnpm"
