"""Differential tests: ``--base A --head B`` against the real tools' own "affected" answers.

A git history is built in tmp_path from a copy of each JS fixture: one commit per kind
of change -- a source edit, a file moved between packages, a deletion, a root-level file,
the tool's global file -- and every consecutive range (plus the whole history) is asked
of ctxsel and of the tool:

- Nx: ``nx show projects --affected --base A --head B --json``
- Turborepo: ``turbo ls --filter='...[A...B]' --output=json``
- pnpm: ``pnpm --filter '...[A]' ls --depth -1 --json`` with B checked out (pnpm has no range)

The repository is checked out at B for every tool, so the working tree's graph (which
ctxsel and the tools both use) is B's. Skipped, with the reason, when a tool or an
adapter is missing.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import FIXTURES, run_cli
from oracles import require, run

pytestmark = pytest.mark.oracle

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}


def git(root: Path, *args: str) -> str:
    import os

    env = dict(os.environ, **GIT_ENV)
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True, env=env, timeout=60).stdout


def package_dirs(root: Path) -> dict[str, str]:
    """Package name -> directory, from the package.json files (the fixtures share names)."""
    out = {}
    for pj in sorted(root.rglob("package.json")):
        if "node_modules" in pj.parts:
            continue
        name = json.loads(pj.read_text()).get("name")
        if name:
            out[name] = pj.parent.relative_to(root).as_posix()
    return out


def build_history(tmp: Path, fixture: str, global_file: str | None) -> tuple[Path, list[tuple[str, str]]]:
    """Copy ``fixture`` and commit one change of each kind; returns (root, [(label, sha)])."""
    src = FIXTURES / fixture
    if not src.is_dir():
        pytest.skip(f"fixture {fixture} not written yet")
    root = tmp / fixture
    shutil.copytree(src, root, ignore=shutil.ignore_patterns("node_modules", ".ctxsel", ".nx", ".turbo"))
    dirs = package_dirs(root)
    core, utils, api, cli = (dirs[n] for n in ("@ws/core", "@ws/utils", "@ws/api", "@ws/cli"))
    for rel in (f"{core}/src/changed.js", f"{utils}/src/moved.js", f"{api}/src/gone.js"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("export const x = 1;\n")
    (root / "README.md").write_text("# workspace\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "init")
    commits = [("init", git(root, "rev-parse", "HEAD").strip())]

    def commit(label: str) -> None:
        git(root, "add", "-A")
        git(root, "commit", "-qm", label)
        commits.append((label, git(root, "rev-parse", "HEAD").strip()))

    (root / core / "src/changed.js").write_text("export const x = 2;\n")
    commit("edit core")
    (root / cli / "src").mkdir(parents=True, exist_ok=True)
    git(root, "mv", f"{utils}/src/moved.js", f"{cli}/src/moved.js")
    commit("move utils -> cli")
    git(root, "rm", "-q", f"{api}/src/gone.js")
    commit("delete in api")
    (root / "README.md").write_text("# workspace, edited\n")
    commit("root readme")
    if global_file:
        path = root / global_file
        text = path.read_text()
        if global_file == "nx.json":
            text = json.dumps({**json.loads(text), "defaultBase": "main"}, indent=2) + "\n"
        elif global_file.endswith(".json"):
            text = text.rstrip() + "\n\n"  # whitespace: still a changed file for the tool
        else:
            text += "# edited\n"
        path.write_text(text)
        commit(f"global {global_file}")
    return root, commits


def ranges(commits: list[tuple[str, str]]) -> list[tuple[str, str, str]]:
    out = [(commits[i + 1][0], commits[i][1], commits[i + 1][1]) for i in range(len(commits) - 1)]
    out.append(("whole history", commits[0][1], commits[-1][1]))
    return out


def ctxsel_affected(root: Path, adapter: str, a: str, b: str) -> set[str]:
    proc = run_cli("--repo", str(root), "--adapter", adapter, "--source", "static",
                   "blast-radius", "--base", a, "--head", b, "--format", "labels")
    if proc.returncode != 0 and ("No module named" in proc.stderr or "has no attribute" in proc.stderr):
        pytest.skip(f"{adapter} adapter not available: {proc.stderr.strip().splitlines()[0]}")
    assert proc.returncode == 0, proc.stderr
    return set(proc.stdout.split())


def compare(root: Path, adapter: str, commits, oracle) -> None:
    mismatches = []
    for label, a, b in ranges(commits):
        git(root, "checkout", "-q", b)
        want = oracle(root, a, b)
        got = ctxsel_affected(root, adapter, a, b)
        if got != want:
            mismatches.append(f"{label}: ctxsel-only {sorted(got - want)}, {adapter}-only {sorted(want - got)}")
    assert not mismatches, "\n".join(mismatches)


def test_pnpm_base_head_equals_pnpm_filter_since_ref(tmp_path):
    pnpm = require("pnpm")

    def oracle(root: Path, a: str, b: str) -> set[str]:
        out = run([pnpm, "--filter", f"...[{a}]", "ls", "--depth", "-1", "--json"], cwd=root, timeout=120).stdout
        return {p["name"] for p in json.loads(out or "[]")}

    root, commits = build_history(tmp_path, "js-pnpm", "pnpm-workspace.yaml")
    compare(root, "pnpm", commits, oracle)


def test_nx_base_head_equals_nx_show_projects_affected(tmp_path):
    nx = require("nx")

    try:
        from ctxsel.adapters.js.nx import node_path_env
    except ImportError as exc:
        pytest.skip(f"nx adapter not available: {exc}")

    def oracle(root: Path, a: str, b: str) -> set[str]:
        env = {"NX_WORKSPACE_ROOT_PATH": str(root), "NX_DAEMON": "false",
               "NX_WORKSPACE_DATA_DIRECTORY": str(tmp_path / "nx-state"), **node_path_env(nx, root, None)}
        out = run([nx, "show", "projects", "--affected", f"--base={a}", f"--head={b}", "--json"], cwd=root,
                  timeout=300, env=env).stdout
        return set(json.loads(out[out.index("["):]))

    root, commits = build_history(tmp_path, "js-nx", "nx.json")
    compare(root, "nx", commits, oracle)


def test_turbo_base_head_equals_turbo_ls_filter_range(tmp_path):
    turbo = require("turbo")

    def oracle(root: Path, a: str, b: str) -> set[str]:
        out = run([turbo, "ls", f"--filter=...[{a}...{b}]", "--output=json"], cwd=root, timeout=120).stdout
        return {p["name"] for p in json.loads(out[out.index("{"):])["packages"]["items"]}

    root, commits = build_history(tmp_path, "js-turbo", "turbo.json")
    compare(root, "turbo", commits, oracle)


def test_turbo_since_ref_counts_the_working_tree_and_untracked_files(tmp_path):
    turbo = require("turbo")
    root, commits = build_history(tmp_path, "js-turbo", None)
    dirs = package_dirs(root)
    (root / dirs["@ws/testkit"] / "untracked.js").write_text("new\n")        # untracked
    (root / dirs["@ws/core"] / "src/changed.js").write_text("uncommitted\n")  # unstaged edit
    base = commits[-2][1]  # "delete in api" -> HEAD adds the README commit on top
    out = run([turbo, "ls", f"--filter=...[{base}]", "--output=json"], cwd=root, timeout=120).stdout
    want = {p["name"] for p in json.loads(out[out.index("{"):])["packages"]["items"]}
    proc = run_cli("--repo", str(root), "--adapter", "turbo", "--source", "static",
                   "blast-radius", "--since", base, "--format", "labels")
    assert proc.returncode == 0, proc.stderr
    assert set(proc.stdout.split()) == want and "@ws/testkit" in want
