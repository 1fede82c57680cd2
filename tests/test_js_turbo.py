"""Turborepo: ctxsel's static graph against turbo 2's ``ls --filter`` and ``run --dry=json``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from jsfixtures import (
    copy_fixture,
    open_ws,
    radius_dirs,
    spec_workspace,
    test_dirs,
    turbo_filter,
    turbo_dependents_all,
    turbo_test_dirs,
    write_pkg,
)
from oracles import oracle_env, require, run

from ctxsel.adapters.js.turbo import QUERY, ROOT_ID, TurboAdapter, turbo_env
from ctxsel.workspace import Workspace

pytestmark = pytest.mark.oracle


def turbo_json(root: Path, tasks: dict, key: str = "tasks", **extra) -> None:
    (root / "turbo.json").write_text(json.dumps({key: tasks, **extra}))


def as_turbo_repo(root: Path, manager: str = "pnpm@12.4.2") -> Path:
    """Turn a workspace into a Turborepo (turbo refuses to run without ``packageManager``)."""
    manifest = json.loads((root / "package.json").read_text())
    manifest["packageManager"] = manager
    if not manager.startswith("pnpm"):
        manifest["workspaces"] = ["p/**"]
        (root / "pnpm-workspace.yaml").unlink(missing_ok=True)
    (root / "package.json").write_text(json.dumps(manifest))
    turbo_json(root, {"build": {"dependsOn": ["^build"]}, "test": {"dependsOn": ["^build"]}})
    return root


def assert_agrees_with_turbo(root: Path, tests: bool = False) -> int:
    """Every package's dependents as ``turbo ls --filter=...{dir}`` sees them (and, with
    ``tests``, its test tasks per ``turbo run test --dry=json``): one call per package."""
    ws = open_ws(root, "turbo")
    listed = turbo_filter(root, "*")
    assert {n.package for n in ws.graph.nodes() if n.id != ROOT_ID} == listed
    compared = 0
    for node in ws.graph.nodes():
        if node.id == ROOT_ID:
            continue
        selector = "...{" + node.package + "}"
        ours, theirs = radius_dirs(ws, node.id), turbo_filter(root, selector)
        assert ours == theirs, f"dependents of {node.id}: ctxsel {sorted(ours)} vs turbo {sorted(theirs)}"
        if tests:
            ours_t, theirs_t = test_dirs(ws, node.id), turbo_test_dirs(root, selector)
            assert ours_t == theirs_t, f"tests for {node.id}: ctxsel {sorted(ours_t)} vs turbo {sorted(theirs_t)}"
        compared += 1
    return compared


# ---------------------------------------------------------------------- differential
def test_fixture_dependents_and_tests_match_turbo_for_every_package(tmp_path: Path) -> None:
    require("turbo")
    root = copy_fixture("js-turbo", tmp_path)
    assert assert_agrees_with_turbo(root, tests=True) == 12


def test_root_dependency_makes_every_package_a_dependent(tmp_path: Path) -> None:
    """The root depends on @ws/tsconfig, and every package depends on ``//``."""
    root = copy_fixture("js-turbo", tmp_path)
    ws = open_ws(root, "turbo")
    everything = {n.id for n in ws.graph.nodes()} - {ROOT_ID}
    assert set(ws.blast_radius(["@ws/tsconfig"]).ids) == everything
    assert ws.blast_radius([ROOT_ID]).ids == []  # turbo ls --filter=...// selects nothing
    assert "@ws/plugin" not in ws.blast_radius(["@ws/core"]).ids  # peer deps are not edges


@pytest.mark.parametrize(
    "manager,settings,npmrc",
    [
        ("pnpm@12.4.2", "", ""),
        ("pnpm@12.4.2", "linkWorkspacePackages: true\n", ""),
        ("pnpm@12.4.2", "", "link-workspace-packages=true\n"),
        ("npm@10.9.0", "", ""),
        ("yarn@4.5.0", "", ""),
    ],
    ids=["pnpm", "pnpm-lwp-yaml", "pnpm-lwp-npmrc", "npm", "yarn"],
)
def test_every_version_spec_matches_turbo(tmp_path: Path, manager: str, settings: str, npmrc: str) -> None:
    require("turbo")
    root = spec_workspace(tmp_path / "ws", settings)
    for hidden in ("p/.hidden", "p/x"):  # glob corner cases are tested elsewhere
        shutil.rmtree(root / hidden)
    if npmrc:
        (root / ".npmrc").write_text(npmrc)
    as_turbo_repo(root, manager)
    ws = open_ws(root, "turbo")
    theirs = turbo_dependents_all(root)  # one call for all packages: 5 workspaces stay fast
    assert set(theirs) == {n.package for n in ws.graph.nodes() if n.id != ROOT_ID}
    for node in ws.graph.nodes():
        if node.id != ROOT_ID:
            assert radius_dirs(ws, node.id) == theirs[node.package], node.id


def test_test_task_needs_script_and_turbo_json_entry(tmp_path: Path) -> None:
    require("turbo")
    root = copy_fixture("js-turbo", tmp_path)
    # only @ws/api defines test for itself; apps/docs adds it in its own turbo.json
    turbo_json(root, {"build": {"dependsOn": ["^build"]}, "@ws/api#test": {}})
    (root / "apps/docs/turbo.json").write_text(json.dumps({"extends": ["//"], "tasks": {"test": {}}}))
    ws = open_ws(root, "turbo")
    assert set(ws.tests(["@ws/core"]).tests) == {"@ws/api"}
    for name in ("@ws/core", "@ws/tsconfig"):  # tsconfig: every package is a dependent
        assert test_dirs(ws, name) == turbo_test_dirs(root, f"...{name}")


def test_a_package_without_a_name_is_not_a_turbo_package(tmp_path: Path) -> None:
    require("turbo")
    root = tmp_path / "ws"
    root.mkdir()
    (root / "package.json").write_text(json.dumps({"name": "root", "version": "0.0.0", "packageManager": "pnpm@12.4.2"}))
    (root / "pnpm-workspace.yaml").write_text("packages: ['packages/*']\n")
    turbo_json(root, {"test": {}})
    write_pkg(root, "packages/x", "x", scripts={"test": "echo x"})
    (root / "packages/noname").mkdir(parents=True)
    (root / "packages/noname/package.json").write_text(json.dumps(
        {"version": "1.0.0", "scripts": {"test": "echo n"}, "dependencies": {"x": "workspace:*"}}))
    assert_agrees_with_turbo(root, tests=True)
    ws = open_ws(root, "turbo")
    assert ws.tests(["x"]).tests == ["x"]
    assert any("packages/noname" in w for w in ws.warnings)


@pytest.mark.parametrize("manager", ["pnpm@12.4.2", "npm@11.0.0"])
def test_a_literal_workspace_path_beats_a_negation_in_turbo(tmp_path: Path, manager: str) -> None:
    require("turbo")
    root = tmp_path / "ws"
    root.mkdir()
    globs = ["packages/**", "!packages/legacy/**", "packages/legacy/keep"]
    manifest = {"name": "root", "version": "0.0.0", "packageManager": manager}
    if manager.startswith("pnpm"):
        (root / "pnpm-workspace.yaml").write_text("packages:\n" + "".join(f"  - '{g}'\n" for g in globs))
    else:
        manifest["workspaces"] = globs
    (root / "package.json").write_text(json.dumps(manifest))
    turbo_json(root, {"test": {}})
    write_pkg(root, "packages/core", "core")
    for name in ("keep", "drop"):  # only the literal path comes back; drop stays excluded
        spec = "workspace:*" if manager.startswith("pnpm") else "*"
        write_pkg(root, f"packages/legacy/{name}", name, scripts={"test": "t"}, dependencies={"core": spec})
    assert assert_agrees_with_turbo(root, tests=True) == 2
    assert open_ws(root, "turbo").tests(["core"]).tests == ["keep"]


def test_v1_pipeline_defines_tasks(tmp_path: Path) -> None:
    """A repository still on turbo 1 keeps its answers (with a warning: turbo 2 refuses it)."""
    root = copy_fixture("js-turbo", tmp_path)
    turbo_json(root, {"test": {}}, key="pipeline")
    ws = open_ws(root, "turbo")
    assert "@ws/core" in ws.tests(["@ws/core"]).tests
    assert any("pipeline" in w and "turbo 1" in w for w in ws.warnings)


def test_no_test_task_means_no_tests(tmp_path: Path) -> None:
    """create-t3-turbo and documenso: scripts.test everywhere, no ``test`` task in turbo.json."""
    root = copy_fixture("js-turbo", tmp_path)
    turbo_json(root, {"build": {}})
    assert open_ws(root, "turbo").tests(["@ws/core"]).tests == []


# ---------------------------------------------------------------------- tool mode
def test_tool_mode_equals_static_mode_and_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require("turbo")
    root = copy_fixture("js-turbo", tmp_path)
    monkeypatch.setenv("PATH", oracle_env()["PATH"])
    before = sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))
    tool = open_ws(root, "turbo", source="tool")
    static = open_ws(root, "turbo", source="static")
    assert {(a, b) for a, b, _ in tool.graph.edges()} == {(a, b) for a, b, _ in static.graph.edges()}
    assert {n.id: n.is_test for n in tool.graph.nodes()} == {n.id: n.is_test for n in static.graph.nodes()}
    for node in static.graph.nodes():
        assert tool.blast_radius(roots=[node.id]).ids == static.blast_radius(roots=[node.id]).ids
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*")) == before  # no .turbo/


def test_saved_turbo_query_output_is_read_without_turbo(tmp_path: Path) -> None:
    require("turbo")
    root = copy_fixture("js-turbo", tmp_path)
    saved = tmp_path / "query.json"
    saved.write_text(run(["turbo", "query", QUERY], root, env=turbo_env()).stdout)
    replay = Workspace.open(root, adapter="turbo", source="tool", query_file=str(saved), use_cache=False)
    static = open_ws(root, "turbo")
    assert {(a, b) for a, b, _ in replay.graph.edges()} == {(a, b) for a, b, _ in static.graph.edges()}


# ---------------------------------------------------------------------- static answers
def test_commands_and_global_files(tmp_path: Path) -> None:
    root = copy_fixture("js-turbo", tmp_path)
    ws = open_ws(root, "turbo")
    sel = ws.tests(["@ws/app"])
    assert sel.argv == ["turbo", "run", "test", "--filter=@ws/app", "--filter=@ws/app-e2e"]
    assert ws.adapter.global_files() == ("turbo.json", ".env", "tsconfig.base.json")
    (root / "README.md").write_text("")
    assert ws.adapter.nodes_for_changed_file(ws.graph, "README.md") == []
    assert ws.adapter.nodes_for_changed_file(ws.graph, "packages/api/src/x.ts") == ["@ws/api"]


def test_turbo_json_with_comments(tmp_path: Path) -> None:
    root = copy_fixture("js-turbo", tmp_path)
    (root / "turbo.json").write_text('{\n  // tasks\n  "tasks": {"test": {}, /* x */ "build": {},},\n}\n')
    assert "@ws/core" in open_ws(root, "turbo").tests(["@ws/core"]).tests


def test_detection_prefers_turbo_over_pnpm(tmp_path: Path) -> None:
    root = copy_fixture("js-turbo", tmp_path)
    assert TurboAdapter.detect(root)
    from ctxsel.adapters import detect

    assert detect(root) == "turbo"


def test_invalid_turbo_json_names_the_line(tmp_path: Path, cli) -> None:
    root = copy_fixture("js-turbo", tmp_path)
    (root / "turbo.json").write_text('{\n  "tasks": {\n    "test": {"cache" false}\n  }\n}\n')
    proc = cli("--repo", str(root), "--adapter", "turbo", "blast-radius", "@ws/core")
    assert proc.returncode == 2 and "turbo.json:3" in proc.stderr
