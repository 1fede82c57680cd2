"""``ctxsel tests --target NAME`` on Nx (``nx affected -t NAME``), and on Bazel (refused).

code-pushup/cli names its Nx targets ``unit-test`` and ``int-test``; ``ctxsel tests`` knew only
``test`` and selected nothing. Nx 24 selects each target's tasks by that target's own inputs
(measured here: a spec file outside ``production`` re-runs ``unit-test`` of its project only,
while ``lint``, hashing ``^default``, re-runs the dependents' too), and ``-t a,b`` is the union.
Asserted against ``nx affected -t ... --graph=FILE`` (the tasks Nx would run) on a small
workspace, static and tool mode, including a target a project has through ``project.json``
and ``implicitDependencies``.

Bazel has no named target of this kind: ``--target lint`` exits 2 with one line.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from oracles import oracle_env, require, run

from ctxsel.adapters.js.nx import node_path_env
from ctxsel.workspace import Workspace

GIT = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]


def commit(root: Path, message: str) -> None:
    run(["git", "add", "-A"], root)
    run([*GIT, "commit", "-qm", message], root)


def workspace(root: Path) -> Path:
    """a <- b <- c (package.json projects, targets from their scripts); d (project.json) depends
    on a implicitly. ``unit-test`` reads ``^production`` (no spec files), ``lint`` the defaults."""
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "root", "private": True, "workspaces": ["packages/*"]}))
    (root / "package-lock.json").write_text(json.dumps({"lockfileVersion": 3, "packages": {}}))
    (root / "nx.json").write_text(json.dumps({
        "namedInputs": {"default": ["{projectRoot}/**/*"], "production": ["default", "!{projectRoot}/**/*.spec.js"]},
        "targetDefaults": {"unit-test": {"dependsOn": ["^build"], "inputs": ["default", "^production"]}},
    }))
    packages = {"a": ({}, ("unit-test", "lint", "build")), "b": ({"a": "*"}, ("lint",)), "c": ({"b": "*"}, ("unit-test",))}
    for name, (deps, scripts) in packages.items():
        (root / "packages" / name).mkdir(parents=True)
        (root / "packages" / name / "package.json").write_text(json.dumps(
            {"name": name, "version": "1.0.0", "dependencies": deps, "scripts": {s: "echo" for s in scripts}}))
        (root / "packages" / name / "index.js").write_text("")
    (root / "packages/d").mkdir()
    (root / "packages/d/project.json").write_text(json.dumps({
        "name": "d", "implicitDependencies": ["a"],
        "targets": {"unit-test": {"executor": "nx:run-commands", "options": {"command": "echo"}}}}))
    run(["git", "init", "-q"], root)
    commit(root, "base")
    (root / "packages/a/x.spec.js").write_text("")
    commit(root, "a spec file")
    (root / "packages/a/index.js").write_text("1")
    commit(root, "a source file")
    return root


def nx_tasks(tool: str, root: Path, state: Path, targets: str, base: str, head: str) -> dict[str, list[str]]:
    """target -> projects of the tasks ``nx affected -t TARGETS`` would run (``--graph=FILE``), ``dependsOn`` tasks not counted."""
    out = state / "tasks.json"
    env = {"NX_WORKSPACE_DATA_DIRECTORY": str(state / "wd"), "NX_CACHE_DIRECTORY": str(state / "cache"),
           "NX_WORKSPACE_ROOT_PATH": str(root), "NX_DAEMON": "false", **node_path_env(tool, root, None)}
    run([tool, "affected", "-t", targets, f"--base={base}", f"--head={head}", f"--graph={out}"], root, env=env)
    tasks = json.loads(out.read_text())["tasks"]["tasks"]
    return {target: sorted({t["target"]["project"] for t in tasks.values() if t["target"]["target"] == target})
            for target in targets.split(",")}


@pytest.fixture(scope="module")
def nx_workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return workspace(tmp_path_factory.mktemp("nx") / "ws")


@pytest.mark.parametrize("base,head", [("HEAD~2", "HEAD~1"), ("HEAD~1", "HEAD")])
def test_nx_affected_target_selection(nx_workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      base: str, head: str) -> None:
    tool = require("nx")
    monkeypatch.setenv("PATH", oracle_env()["PATH"])
    for key, value in node_path_env(tool, nx_workspace, None).items():
        monkeypatch.setenv(key, value)
    answers = nx_tasks(tool, nx_workspace, tmp_path, "unit-test,lint", base, head)  # one call: the slow part
    answers["unit-test,lint"] = sorted(set(answers["unit-test"]) | set(answers["lint"]))
    if base == "HEAD~2":  # the spec file: unit-test of a alone, lint of a and its dependents
        assert answers == {"unit-test": ["a"], "lint": ["a", "b"], "unit-test,lint": ["a", "b"]}
    else:
        assert answers["unit-test"] == ["a", "c", "d"]
    for source in ("static", "tool"):
        ws = Workspace.open(nx_workspace, adapter="nx", source=source, use_cache=False)
        for targets, want in answers.items():
            roots, changes = ws.roots(base=base, head=head)
            sel = ws.tests_for_change(ws.tests(roots=roots, target=targets.split(",")), changes)
            assert sel.tests == want, (source, targets)
            assert sel.argv == (["nx", "run-many", "-t", targets, "-p", ",".join(want)] if want else [])


def test_bazel_refuses_a_target_other_than_test(tmp_path: Path) -> None:
    (tmp_path / "WORKSPACE").write_text("")
    (tmp_path / "BUILD").write_text('sh_test(name = "t", srcs = ["t.sh"])\n')
    (tmp_path / "t.sh").write_text("")
    argv = [sys.executable, "-m", "ctxsel", "--repo", str(tmp_path), "--adapter", "bazel", "--source", "static", "tests", "//:t"]
    ok = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0 and "bazel test -- //:t" in ok.stdout
    same = subprocess.run([*argv, "-t", "test"], capture_output=True, text=True, timeout=120)
    assert same.returncode == 0 and same.stdout == ok.stdout
    refused = subprocess.run([*argv, "-t", "lint"], capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert len(refused.stderr.strip().splitlines()) <= 3 and "--target lint" in refused.stderr
