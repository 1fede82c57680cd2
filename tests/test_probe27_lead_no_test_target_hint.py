"""A workspace whose tests are not named ``test`` gets a hint to ``--target``, not a silent "no tests".

code-pushup/cli names its Nx targets ``unit-test`` and ``int-test``: ``ctxsel tests --since ...``
printed "no tests depend on the change" (exit 0), which a first-time user reads as "nothing to
test". The tools say as little (``nx affected -t test``: "No tasks were run"; pnpm 12.4.2's
``pnpm --filter ...a run test`` runs nothing and exits 0), so the warning is ctxsel's own; it is
given only when no node of the whole workspace has a ``test`` target/script (asserted against the
tools: ``nx show projects --with-target test``, ``pnpm run``), never when the change merely misses them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from oracles import require, run

from ctxsel.adapters.js.nx import node_path_env


def pnpm_workspace(root: Path, scripts: dict[str, tuple[str, ...]]) -> Path:
    """a <- b, each package with the given scripts."""
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "root", "private": True}))
    (root / "pnpm-workspace.yaml").write_text("packages:\n  - 'packages/*'\n")
    deps = {"a": {}, "b": {"a": "workspace:*"}}
    for name, names in scripts.items():
        (root / "packages" / name).mkdir(parents=True)
        (root / "packages" / name / "package.json").write_text(json.dumps(
            {"name": name, "version": "1.0.0", "dependencies": deps[name], "scripts": {s: "echo ran" for s in names}}))
    return root


def nx_workspace(root: Path, target: str) -> Path:
    """Two project.json projects, each with one ``target`` (``nx:run-commands``)."""
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "root", "private": True}))
    (root / "nx.json").write_text("{}")
    for name in ("a", "b"):
        (root / name).mkdir()
        (root / name / "project.json").write_text(json.dumps({
            "name": name, "implicitDependencies": ["a"] if name == "b" else [],
            "targets": {target: {"executor": "nx:run-commands", "options": {"command": "echo"}}}}))
    return root


def ctxsel_tests(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ctxsel", "--repo", str(root), "--source", "static", "--no-cache",
                           "tests", *args], capture_output=True, text=True, timeout=120)


def test_pnpm_without_any_test_script_hints_at_target(tmp_path: Path) -> None:
    root = pnpm_workspace(tmp_path / "ws", {"a": ("unit-test",), "b": ("unit-test", "lint")})
    proc = ctxsel_tests(root, "a")
    assert proc.returncode == 0, proc.stderr
    assert "'test' script" in proc.stderr and "--target" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    named = ctxsel_tests(root, "a", "--target", "unit-test")  # the hint's way out selects both
    assert "--target" not in named.stderr and "a" in named.stdout and "b" in named.stdout
    pnpm = require("pnpm")  # the tool finds no test script either
    assert "ran" not in run([pnpm, "--filter", "...a", "run", "test"], root).stdout  # exit 0, runs nothing
    assert run([pnpm, "--filter", "...a", "run", "unit-test"], root).stdout.count("ran") == 2


def test_no_hint_when_the_workspace_has_tests_elsewhere(tmp_path: Path) -> None:
    root = pnpm_workspace(tmp_path / "ws", {"a": ("test",), "b": ("lint",)})
    proc = ctxsel_tests(root, "b")  # b's radius has no test, but the workspace does
    assert proc.returncode == 0, proc.stderr
    assert "--target" not in proc.stderr, proc.stderr


def test_nx_without_any_test_target_hints_at_target(tmp_path: Path) -> None:
    root = nx_workspace(tmp_path / "ws", "unit-test")
    proc = ctxsel_tests(root, "a")
    assert proc.returncode == 0, proc.stderr
    assert "'test' target" in proc.stderr and "--target" in proc.stderr, proc.stderr
    nx = require("nx")
    env = {"NX_DAEMON": "false", "NX_WORKSPACE_DATA_DIRECTORY": str(tmp_path / "wd"), **node_path_env(nx, root, None)}
    listed = run([nx, "show", "projects", "--with-target", "test", "--json"], root, env=env)
    assert json.loads(listed.stdout[listed.stdout.index("["):]) == []
    other = run([nx, "show", "projects", "--with-target", "unit-test", "--json"], root, env=env)
    assert sorted(json.loads(other.stdout[other.stdout.index("["):])) == ["a", "b"]
