"""``ctxsel pre-commit`` on JS fixtures with staged changes, against the tools themselves.

For each tool the printed test list must equal the tool's own "affected, with a test"
answer for the same staged change, and the printed command must be one the tool
accepts and that selects exactly those tests (pnpm: run it, the fixture's test scripts
only echo; Nx: ``--graph`` task graph; Turborepo: ``--dry=json``; nothing is built).
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import FIXTURES
from oracles import oracle_env, require, run
from test_changes_oracle import git, package_dirs

pytestmark = pytest.mark.oracle

STAGED = ("@ws/utils", "src/precommit.js")  # a new file in utils, staged
UNSTAGED = ("@ws/api", "src/unstaged.js")    # must not count


def staged_workspace(tmp_path: Path, fixture: str) -> tuple[Path, list[str]]:
    src = FIXTURES / fixture
    if not src.is_dir():
        pytest.skip(f"fixture {fixture} not written yet")
    root = tmp_path / fixture
    shutil.copytree(src, root, ignore=shutil.ignore_patterns("node_modules", ".ctxsel", ".nx", ".turbo"))
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "init")
    dirs = package_dirs(root)
    staged = f"{dirs[STAGED[0]]}/{STAGED[1]}"
    for rel in (staged, f"{dirs[UNSTAGED[0]]}/{UNSTAGED[1]}"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("export const y = 1;\n")
    git(root, "add", staged)
    return root, [staged]


# pnpm 12 installs before `pnpm test` unless told not to; the fixture cannot install offline
NO_INSTALL = {"pnpm_config_verify_deps_before_run": "false"}


def precommit(root: Path, adapter: str, *args: str) -> subprocess.CompletedProcess[str]:
    import sys

    proc = subprocess.run([sys.executable, "-m", "ctxsel", "--repo", str(root), "--adapter", adapter,
                           "--source", "static", "pre-commit", *args],
                          cwd=root, env={**oracle_env(), **NO_INSTALL}, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0 and ("No module named" in proc.stderr or "has no attribute" in proc.stderr):
        pytest.skip(f"{adapter} adapter not available")
    return proc


def printed(proc: subprocess.CompletedProcess[str]) -> tuple[list[str], list[str]]:
    assert proc.returncode == 0, proc.stderr
    *tests, blank, command = proc.stdout.splitlines()
    assert blank == ""
    return tests, shlex.split(command)


def test_pnpm_pre_commit_prints_and_runs_the_affected_test_packages(tmp_path):
    pnpm = require("pnpm")
    root, _ = staged_workspace(tmp_path, "js-pnpm")
    # pnpm's [ref] compares with the working tree, tracked files only: staged is what counts
    out = json.loads(run([pnpm, "--filter", "...[HEAD]", "ls", "--depth", "-1", "--json"], cwd=root).stdout)
    want = sorted(p["name"] for p in out
                  if "test" in json.loads((Path(p["path"]) / "package.json").read_text()).get("scripts", {}))
    tests, argv = printed(precommit(root, "pnpm"))
    assert tests == want and want
    assert argv[0] == "pnpm"
    ran = run([pnpm, *argv[1:]], cwd=root, env=NO_INSTALL).stdout
    # each test script echoes "test <name>" (prefixed with "<dir> test: " when not a terminal)
    assert sorted(set(re.findall(r"(?:^|: )test (@\S+)$", ran, re.M))) == want
    # --run does the same through ctxsel and exits with pnpm's status
    proc = precommit(root, "pnpm", "--run")
    assert proc.returncode == 0, proc.stderr
    assert all(f"test {t}" in proc.stdout for t in want)


def test_nx_pre_commit_prints_the_affected_projects_with_a_test_target(tmp_path):
    nx = require("nx")
    try:
        from ctxsel.adapters.js.nx import node_path_env
    except ImportError as exc:
        pytest.skip(f"nx adapter not available: {exc}")
    root, staged = staged_workspace(tmp_path, "js-nx")
    env = {"NX_WORKSPACE_ROOT_PATH": str(root), "NX_DAEMON": "false",
           "NX_WORKSPACE_DATA_DIRECTORY": str(tmp_path / "nx-state"), **node_path_env(nx, root, None)}
    out = run([nx, "show", "projects", "--affected", f"--files={','.join(staged)}", "--with-target", "test", "--json"],
              cwd=root, env=env).stdout
    want = sorted(json.loads(out[out.index("["):]))
    tests, argv = printed(precommit(root, "nx"))
    assert tests == want and want
    assert argv[:2] == ["nx", "run-many"]
    graph_file = tmp_path / "tasks.json"
    run([nx, *argv[1:], f"--graph={graph_file}"], cwd=root, env=env)
    task_ids = json.loads(graph_file.read_text())["tasks"]["tasks"]
    assert sorted(t.rsplit(":", 1)[0] for t in task_ids if t.endswith(":test")) == want


def test_turbo_pre_commit_prints_the_affected_packages_with_a_test_task(tmp_path):
    turbo = require("turbo")
    root, _ = staged_workspace(tmp_path, "js-turbo")

    def dry(*args: str) -> list[str]:
        out = run([turbo, "run", "test", *args, "--dry=json"], cwd=root).stdout
        tasks = json.loads(out[out.index("{"):])["tasks"]
        return sorted(t["package"] for t in tasks if t["task"] == "test" and t["command"] != "<NONEXISTENT>")

    # turbo's [HEAD] would also count the unstaged file: drop it for the oracle's view
    unstaged = next(p for p in (root.rglob("unstaged.js")))
    unstaged.unlink()
    want = dry("--filter=...[HEAD]")
    unstaged.write_text("export const y = 1;\n")
    tests, argv = printed(precommit(root, "turbo"))
    assert tests == want and want
    assert argv[:3] == ["turbo", "run", "test"]
    assert dry(*argv[3:]) == want
