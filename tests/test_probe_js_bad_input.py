"""Workspace files the real tools refuse: ctxsel must refuse them too (exit 2, the file
named, no traceback) instead of answering from a guess.

Each case is checked against the tool when it is installed (it must fail there) and
always against ctxsel's CLI.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from oracles import require, run

pytestmark = pytest.mark.oracle

PNPM_ENV = {"pnpm_config_pm_on_fail": "ignore"}
TURBO_ENV = {"TURBO_TELEMETRY_DISABLED": "1", "DO_NOT_TRACK": "1", "TURBO_NO_UPDATE_NOTIFIER": "1"}

BAD_PNPM_WORKSPACES = {
    "nested-list": ("packages: [['p/*']]\n", "entry 1 is list"),
    "null-entry": ("packages: [null, 'p/*']\n", "entry 1 is null"),
    "duplicate-key": ("packages: ['x/*']\npackages: ['p/*']\n", "duplicate mapping key: packages"),
}
BAD_TURBO_MANIFESTS = {
    "version-number": ({"name": "b", "version": 1}, "'version' to be a string"),
    "version-null": ({"name": "b", "version": None}, "'version' to be a string"),
    "name-number": ({"name": 5}, "'name' to be a string"),
    "name-empty": ({"name": ""}, "non-empty 'name'"),
    "dependencies-list": ({"name": "b", "dependencies": ["a"]}, "'dependencies' to map"),
    "dev-spec-number": ({"name": "b", "devDependencies": {"a": 2}}, "'devDependencies' to map"),
    "peer-list": ({"name": "b", "peerDependencies": ["a"]}, "'peerDependencies' to map"),
    "scripts-list": ({"name": "b", "scripts": ["test"]}, "'scripts' to map"),
}


def workspace(root: Path, yaml_text: str = "packages: ['p/*']\n", b: dict | None = None, turbo: bool = False) -> Path:
    root.mkdir(parents=True)
    manifest = {"name": "root", "version": "0.0.0", **({"packageManager": "pnpm@12.4.2"} if turbo else {})}
    (root / "package.json").write_text(json.dumps(manifest))
    (root / "pnpm-workspace.yaml").write_text(yaml_text)
    if turbo:
        (root / "turbo.json").write_text(json.dumps({"tasks": {"test": {}}}))
    for rel, body in (("p/a", {"name": "a", "version": "1.0.0"}), ("p/b", b or {"name": "b", "dependencies": {"a": "workspace:*"}})):
        (root / rel).mkdir(parents=True)
        (root / rel / "package.json").write_text(json.dumps(body))
    return root


def assert_refused(cli, root: Path, adapter: str, expected: str, where: str) -> None:
    proc = cli("--repo", str(root), "--adapter", adapter, "--source", "static", "blast-radius", "a")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert where in proc.stderr and expected in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


@pytest.mark.parametrize("case", sorted(BAD_PNPM_WORKSPACES))
def test_pnpm_workspace_yaml_pnpm_refuses(tmp_path: Path, cli, case: str) -> None:
    text, expected = BAD_PNPM_WORKSPACES[case]
    root = workspace(tmp_path / "ws", text)
    assert_refused(cli, root, "pnpm", expected, "pnpm-workspace.yaml")


@pytest.mark.parametrize("case", sorted(BAD_PNPM_WORKSPACES))
def test_pnpm_really_refuses_them(tmp_path: Path, case: str) -> None:
    require("pnpm")
    root = workspace(tmp_path / "ws", BAD_PNPM_WORKSPACES[case][0])
    assert run(["pnpm", "ls", "-r", "--json", "--depth", "-1"], root, env=PNPM_ENV, check=False).returncode != 0


def test_yaml_merge_keys_and_scalars_still_read(tmp_path: Path, cli) -> None:
    """``<<: *anchor`` is not a duplicate key, and numbers are globs (pnpm accepts both)."""
    root = workspace(tmp_path / "ws", "base: &b {packages: ['p/*']}\n<<: *b\nother: [1, true]\n")
    proc = cli("--repo", str(root), "--adapter", "pnpm", "--source", "static", "blast-radius", "a", "--format", "labels")
    assert proc.returncode == 0 and proc.stdout.split() == ["a", "b"], proc.stderr


@pytest.mark.parametrize("case", sorted(BAD_TURBO_MANIFESTS))
def test_package_json_turbo_refuses(tmp_path: Path, cli, case: str) -> None:
    body, expected = BAD_TURBO_MANIFESTS[case]
    root = workspace(tmp_path / "ws", b=body, turbo=True)
    assert_refused(cli, root, "turbo", expected, "p/b/package.json")


@pytest.mark.parametrize("case", sorted(BAD_TURBO_MANIFESTS))
def test_turbo_really_refuses_them(tmp_path: Path, case: str) -> None:
    require("turbo")
    root = workspace(tmp_path / "ws", b=BAD_TURBO_MANIFESTS[case][0], turbo=True)
    assert run(["turbo", "ls", "--output=json"], root, env=TURBO_ENV, check=False).returncode != 0


def test_turbo_reads_untyped_fields_and_a_missing_name(tmp_path: Path, cli) -> None:
    root = workspace(tmp_path / "ws", b={"private": "yes", "workspaces": 5, "bundledDependencies": 5}, turbo=True)
    proc = cli("--repo", str(root), "--adapter", "turbo", "--source", "static", "blast-radius", "a", "--format", "labels")
    assert proc.returncode == 0, proc.stderr


LINK_SETTINGS = {"'true'": False, "1": False, "1.0": False, "DEEP": False, "deep": True, "true": True, "null": True, "false": True}


@pytest.mark.parametrize("value", sorted(LINK_SETTINGS))
def test_link_workspace_packages_values_like_pnpm(tmp_path: Path, cli, value: str) -> None:
    """pnpm 12 accepts true, false, "deep" and null; anything else stops it."""
    root = workspace(tmp_path / "ws", f"packages: ['p/*']\nlinkWorkspacePackages: {value}\n")
    proc = cli("--repo", str(root), "--adapter", "pnpm", "--source", "static", "blast-radius", "a")
    accepted = LINK_SETTINGS[value]
    assert (proc.returncode == 0) is accepted and "Traceback" not in proc.stderr, proc.stderr
    if not accepted:
        assert proc.returncode == 2 and "linkWorkspacePackages" in proc.stderr
    from oracles import which

    if which("pnpm"):
        assert (run(["pnpm", "ls", "-r", "--json", "--depth", "-1"], root, env=PNPM_ENV, check=False).returncode == 0) is accepted
