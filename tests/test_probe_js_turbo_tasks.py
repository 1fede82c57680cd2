"""Turborepo test tasks at the edges: the root's ``//#test`` and package turbo.json files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsfixtures import open_ws, test_dirs, turbo_test_dirs
from oracles import require, run

from ctxsel.adapters.js.turbo import ROOT_ID

pytestmark = pytest.mark.oracle

TURBO_ENV = {"TURBO_TELEMETRY_DISABLED": "1", "DO_NOT_TRACK": "1", "TURBO_NO_UPDATE_NOTIFIER": "1"}


def workspace(root: Path, tasks: dict, root_script: bool = True) -> Path:
    """The root depends on ``a``; ``z`` depends on nothing (so on ``//``, so on ``a``)."""
    root.mkdir(parents=True)
    manifest = {"name": "root", "version": "0.0.0", "packageManager": "pnpm@12.4.2", "dependencies": {"a": "workspace:*"},
                **({"scripts": {"test": "echo root"}} if root_script else {})}
    (root / "package.json").write_text(json.dumps(manifest))
    (root / "pnpm-workspace.yaml").write_text("packages: ['p/*']\n")
    (root / "turbo.json").write_text(json.dumps({"tasks": tasks}))
    for name, deps in (("a", {}), ("b", {"a": "workspace:*"}), ("z", {})):
        (root / "p" / name).mkdir(parents=True)
        (root / "p" / name / "package.json").write_text(
            json.dumps({"name": name, "version": "1.0.0", "scripts": {"test": "echo " + name}, "dependencies": deps}))
    return root


CASES = {
    "root-task": ({"//#test": {}, "test": {}}, True),
    "root-task-only": ({"//#test": {}}, True),
    "root-task-without-script": ({"//#test": {}, "test": {}}, False),
    "no-root-task": ({"test": {}}, True),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_root_test_task_matches_turbo_run(tmp_path: Path, case: str) -> None:
    require("turbo")
    tasks, script = CASES[case]
    root = workspace(tmp_path / "ws", tasks, script)
    ws = open_ws(root, "turbo")
    for name in ("a", "b", "z"):
        assert test_dirs(ws, name) == turbo_test_dirs(root, f"...{name}"), name


def test_root_test_task_is_selected_and_filtered_as_slash_slash(tmp_path: Path) -> None:
    ws = open_ws(workspace(tmp_path / "ws", {"//#test": {}, "test": {}}), "turbo")
    sel = ws.tests(["a"])
    assert sel.tests == [ROOT_ID, "a", "b", "z"]
    assert sel.argv == ["turbo", "run", "test", "--filter=//", "--filter=a", "--filter=b", "--filter=z"]
    assert ROOT_ID not in ws.blast_radius(["a"]).ids  # turbo ls never lists //
    assert ws.tests(["b"]).tests == ["b"]  # the root does not depend on b


def test_package_turbo_json_without_extends_is_refused(tmp_path: Path, cli) -> None:
    root = workspace(tmp_path / "ws", {"test": {}})
    (root / "p/b/turbo.json").write_text(json.dumps({"tasks": {"test": {}}}))
    for _ in range(2):  # the second run must refuse too (no cached graph hides it)
        proc = cli("--repo", str(root), "--adapter", "turbo", "--source", "static", "tests", "a")
        assert proc.returncode == 2 and "p/b/turbo.json:1" in proc.stderr and "extends" in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr


def test_turbo_refuses_a_package_turbo_json_without_extends(tmp_path: Path) -> None:
    require("turbo")
    root = workspace(tmp_path / "ws", {"test": {}})
    (root / "p/b/turbo.json").write_text(json.dumps({"tasks": {"test": {}}}))
    assert run(["turbo", "run", "test", "--dry=json"], root, env=TURBO_ENV, check=False).returncode != 0


OPT_OUT = {
    "opt-out": ({"test": {}}, {"extends": False}),
    "redefined": ({"test": {}}, {"extends": False, "cache": False}),
    "own-only": ({}, {"extends": False, "cache": False}),
    "extends-true": ({}, {"extends": True}),
}


def opt_out_workspace(root: Path, root_tasks: dict, b_test: dict) -> Path:
    root = workspace(root, root_tasks)
    (root / "p/b/turbo.json").write_text(json.dumps({"extends": ["//"], "tasks": {"test": b_test}}))
    return root


@pytest.mark.parametrize("case", sorted(OPT_OUT))
def test_package_task_extends_false_matches_turbo_run(tmp_path: Path, case: str) -> None:
    require("turbo")
    root = opt_out_workspace(tmp_path / "ws", *OPT_OUT[case])
    ws = open_ws(root, "turbo")
    for name in ("a", "b"):
        assert test_dirs(ws, name) == turbo_test_dirs(root, f"...{name}"), name


def test_extends_false_alone_opts_a_package_out_of_the_test_task(tmp_path: Path) -> None:
    ws = open_ws(opt_out_workspace(tmp_path / "a", {"test": {}}, {"extends": False}), "turbo")
    assert "b" not in ws.tests(["a"]).tests
    ws = open_ws(opt_out_workspace(tmp_path / "b", {"test": {}}, {"extends": False, "cache": False}), "turbo")
    assert "b" in ws.tests(["a"]).tests


def test_v1_pipeline_is_read_but_warned_about(tmp_path: Path, cli) -> None:
    """turbo 2 stops at ``pipeline`` ("renamed to tasks"); ctxsel reads it as turbo 1 did, and says so."""
    root = workspace(tmp_path / "ws", {})
    (root / "turbo.json").write_text(json.dumps({"pipeline": {"test": {}}}))
    proc = cli("--repo", str(root), "--adapter", "turbo", "--source", "static", "tests", "b", "--format", "command")
    assert proc.returncode == 0 and "pipeline" in proc.stderr and "turbo run test --filter=b" in proc.stdout, proc.stderr
    if __import__("oracles").which("turbo"):
        assert run(["turbo", "run", "test", "--dry=json"], root, env=TURBO_ENV, check=False).returncode != 0
