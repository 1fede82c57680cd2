"""A root package.json dependency whose range changed moves that *npm package* for Nx.

Found by differential testing (``/tmp/dev18/HN/gen4.py`` seed 18, minimised in ``exp5.py``):
nx 24.0.6's ``touchedNpmPackages`` maps a ``dependencies``/``devDependencies`` entry added or
changed in the root package.json to the external node of that name (the lockfile locks it),
whatever ``projectsAffectedByDependencyUpdates`` says. ``nx show projects --affected`` then
marks the projects depending on it (``b``) and their dependents (``c``); ``nx affected -t test``
selects the tasks hashing every npm package (``b``, ``c``: no ``externalDependencies``) or that
one (``d`` pins ``left-pad``; ``a``, the @nx/vitest test, pins ``vitest``). ctxsel matched the
entry against project names only: no project, no test.

Expected answers are nx's; ``test_real_nx_gives_the_same_answers`` asks it again and skips,
saying why, without ``.ci/oracles-nx-plugins.sh``'s install.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli, run_git, write_tree
from nx_plugin_oracles import require_nx_plugins, run_nx
from test_probe16_nxplugins_static import ROOT_PKG, VITEST_CFG, pkg

ROOT = {**ROOT_PKG, "dependencies": {"left-pad": "^1.0.0"}}
LOCK = {"name": "root", "lockfileVersion": 3, "requires": True, "packages": {
    "": {"name": "root", "workspaces": ["packages/*"], "dependencies": {"left-pad": "^1.0.0"},
         "devDependencies": {"vitest": "4.1.9", "jest": "30.5.2"}},
    "node_modules/vitest": {"version": "4.1.9", "resolved": "https://r/vitest-4.1.9.tgz", "integrity": "sha512-a", "dev": True},
    "node_modules/jest": {"version": "30.5.2", "resolved": "https://r/jest-30.5.2.tgz", "integrity": "sha512-b", "dev": True},
    "node_modules/left-pad": {"version": "1.1.0", "resolved": "https://r/left-pad-1.1.0.tgz", "integrity": "sha512-c"},
}}
FILES: dict[str, Any] = {
    "package.json": ROOT, "package-lock.json": LOCK, "nx.json": {"plugins": ["@nx/vitest"]},
    "packages/a/package.json": pkg("a"), "packages/a/vitest.config.ts": VITEST_CFG,
    "packages/b/package.json": {**pkg("b", scripts={"test": "x"}), "dependencies": {"left-pad": "^1.0.0"}},
    "packages/c/package.json": pkg("c", "b", scripts={"test": "x"}),
    "packages/d/package.json": pkg("d"), "packages/d/vitest.config.ts": VITEST_CFG,
    "packages/d/project.json": {"name": "d", "targets": {"test": {
        "inputs": ["default", {"externalDependencies": ["left-pad"]}]}}},
}
#: name -> (the new root package.json, tests selected, projects affected) over HEAD~1..HEAD
CHANGES: dict[str, tuple[dict[str, Any], set[str], set[str]]] = {
    "left-pad range": ({**ROOT, "dependencies": {"left-pad": "^1.1.0"}}, {"b", "c", "d"}, {"b", "c"}),
    "vitest range": ({**ROOT, "devDependencies": {"vitest": "~4.1.9", "jest": "30.5.2"}}, {"a", "b", "c"}, set()),
}


def make(root: Path, change: str) -> Path:
    write_tree(root, {k: v if isinstance(v, str) else json.dumps(v, indent=2) for k, v in FILES.items()})
    run_git(root, "init", "-q", "-b", "main")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", "workspace")
    write_tree(root, {"package.json": json.dumps(CHANGES[change][0], indent=2)})
    run_git(root, "commit", "-qam", change)
    return root


def ctxsel(root: Path, command: str) -> set[str]:
    proc = run_cli("--repo", str(root), "--no-cache", "-q", "--adapter", "nx", "--source", "static", command,
                   "--base", "HEAD~1", "--head", "HEAD", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    return set(out["tests"]) if command == "tests" else {a["id"] for a in out["affected"]}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_tests(tmp_path: Path, change: str) -> None:
    assert ctxsel(make(tmp_path / "ws", change), "tests") == CHANGES[change][1]


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_projects(tmp_path: Path, change: str) -> None:
    assert ctxsel(make(tmp_path / "ws", change), "blast-radius") == CHANGES[change][2]


@pytest.mark.oracle
@pytest.mark.parametrize("change", sorted(CHANGES))
def test_real_nx_gives_the_same_answers(tmp_path: Path, change: str) -> None:
    require_nx_plugins()
    root = make(tmp_path / "ws", change)
    out = tmp_path / "tasks.json"
    proc = run_nx(root, "affected", "-t", "test", "--base=HEAD~1", "--head=HEAD", f"--graph={out}")
    assert proc.returncode == 0 and out.is_file(), (proc.stdout + proc.stderr)[-1500:]
    assert {t["target"]["project"] for t in json.loads(out.read_text())["tasks"]["tasks"].values()} == CHANGES[change][1]
    proc = run_nx(root, "show", "projects", "--affected", "--base=HEAD~1", "--head=HEAD", "--json")
    assert proc.returncode == 0 and set(json.loads(proc.stdout)) == CHANGES[change][2], proc.stdout + proc.stderr


def make_bun(root: Path) -> Path:
    """probe15's a/b/c/d workspace with probe17's bun.lock (a uses left-pad, d is-odd, c depends on a);
    the root package.json then declares left-pad."""
    from test_probe15_nx_auto_lockfile import workspace
    from test_probe17_hn_bun_lockfile import BUN_LOCK

    files = workspace("auto", None, lockfile=False)
    write_tree(root, {**files, "bun.lock": BUN_LOCK})
    run_git(root, "init", "-q", "-b", "main")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", "workspace")
    manifest = json.loads(files["package.json"])
    write_tree(root, {"package.json": json.dumps({**manifest, "dependencies": {"left-pad": "^1.0.1"}}, indent=2)})
    run_git(root, "commit", "-qam", "left-pad declared")
    return root


def test_with_bun_no_project_is_reached(tmp_path: Path) -> None:
    """Nx takes the first external node named left-pad: bun's parser lists the versioned
    ``npm:left-pad@1.0.0`` before the hoisted ``npm:left-pad`` the projects depend on. So no
    project is affected (measured), while every test hashing npm packages still is."""
    root = make_bun(tmp_path / "ws")
    assert ctxsel(root, "blast-radius") == set()
    assert ctxsel(root, "tests") == {"a", "b", "c", "d"}


@pytest.mark.oracle
def test_real_nx_gives_the_same_answers_with_bun(tmp_path: Path) -> None:
    require_nx_plugins()
    root = make_bun(tmp_path / "ws")
    proc = run_nx(root, "show", "projects", "--affected", "--base=HEAD~1", "--head=HEAD", "--json")
    assert proc.returncode == 0 and json.loads(proc.stdout) == [], proc.stdout + proc.stderr
    out = tmp_path / "tasks.json"
    proc = run_nx(root, "affected", "-t", "test", "--base=HEAD~1", "--head=HEAD", f"--graph={out}")
    assert proc.returncode == 0 and out.is_file(), (proc.stdout + proc.stderr)[-1500:]
    assert {t["target"]["project"] for t in json.loads(out.read_text())["tasks"]["tasks"].values()} == {"a", "b", "c", "d"}
