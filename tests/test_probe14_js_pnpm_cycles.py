"""pnpm 12 refuses to run a script in selected projects that depend on each other:
``pnpm --filter a --filter b test`` fails with "The tasks form a dependency cycle" when a and b
lie on one cycle -- through any dependency field, and through projects not selected -- unless
``ignoreWorkspaceCycles: true`` (pnpm-workspace.yaml or the environment). ctxsel printed such a
command silently; it now warns where the command is printed (measured with pnpm 12.4.2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import write_tree
from oracles import oracle_env, require, run

#: a -dev-> x -> b -> a: a and b share a cycle through x, which has no test script
THROUGH_UNSELECTED = {
    "a": {"scripts": {"test": "echo a"}, "devDependencies": {"x": "workspace:*"}},
    "b": {"scripts": {"test": "echo b"}, "dependencies": {"a": "workspace:*"}},
    "x": {"dependencies": {"b": "workspace:*"}},
    "c": {"scripts": {"test": "echo c"}, "dependencies": {"a": "workspace:*"}},
}


def workspace(root: Path, packages: dict[str, dict], settings: str = "") -> Path:
    files = {"package.json": json.dumps({"name": "root", "private": True, "packageManager": "pnpm@12.4.2"}),
             "pnpm-workspace.yaml": "packages: ['p/*']\n" + settings}
    for name, body in packages.items():
        files[f"p/{name}/package.json"] = json.dumps({"name": name, "version": "1.0.0", **body})
    return write_tree(root, files)


def cycle_warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "dependency cycle" in line]


def test_tests_on_one_cycle_are_warned_about(tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("pnpm_config_ignore_workspace_cycles", raising=False)
    root = workspace(tmp_path / "ws", THROUGH_UNSELECTED)
    proc = cli("--repo", str(root), "--no-cache", "tests", "c", "--format", "json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["tests"] == ["c"]
    assert cycle_warnings(proc.stderr) == []  # one test: nothing to order
    proc = cli("--repo", str(root), "--no-cache", "tests", "a", "--format", "json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["tests"] == ["a", "b", "c"]
    (warning,) = cycle_warnings(proc.stderr)
    assert "cycle): a and b;" in warning  # c depends on the cycle but is not on it


@pytest.mark.parametrize("how", ["setting", "env"])
def test_ignore_workspace_cycles_silences_it(tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    monkeypatch.delenv("pnpm_config_ignore_workspace_cycles", raising=False)
    root = workspace(tmp_path / "ws", THROUGH_UNSELECTED, "ignoreWorkspaceCycles: true\n" if how == "setting" else "")
    if how == "env":
        monkeypatch.setenv("pnpm_config_ignore_workspace_cycles", "true")
    proc = cli("--repo", str(root), "--no-cache", "tests", "a", "--format", "json")
    assert proc.returncode == 0 and cycle_warnings(proc.stderr) == []


def test_cycle_groups_follow_cycles_through_other_nodes() -> None:
    from ctxsel.graph import BuildGraph, Node

    g = BuildGraph()
    for n in "abcxyz":
        g.add_node(Node(id=n, kind="package", package=n))
    for src, dst in ("ax", "xb", "ba", "ca", "yz", "zy"):
        g.add_edge(src, dst)
    assert g.cycle_groups(["a", "b", "c", "y"]) == [["a", "b"]]
    assert g.cycle_groups(["a", "b", "y", "z"]) == [["a", "b"], ["y", "z"]]
    assert g.cycle_groups(["c", "x"]) == []


@pytest.mark.oracle
@pytest.mark.parametrize("selected", ["a", "c"])
def test_the_warning_matches_pnpms_refusal(tmp_path: Path, cli, selected: str, monkeypatch: pytest.MonkeyPatch) -> None:
    require("pnpm")
    monkeypatch.delenv("pnpm_config_ignore_workspace_cycles", raising=False)
    root = workspace(tmp_path / "ws", THROUGH_UNSELECTED)
    proc = cli("--repo", str(root), "--no-cache", "tests", selected, "--format", "json")
    command = json.loads(proc.stdout)["command"].split()
    env = {k: v for k, v in oracle_env().items() if k != "pnpm_config_ignore_workspace_cycles"}
    ran = run(command, root, check=False, env=env)
    refused = "dependency cycle" in ran.stdout + ran.stderr
    assert refused == bool(cycle_warnings(proc.stderr))
    assert refused == (selected == "a")
