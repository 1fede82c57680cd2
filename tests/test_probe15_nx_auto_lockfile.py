"""Nx 24 and npm packages: ``projectsAffectedByDependencyUpdates: "auto"`` and ``externalDependencies``.

Found by differential testing against the real nx 24.0.6 (``nx show projects --affected
[-t test] --base HEAD~1 --head HEAD``):

- With ``pluginsConfig["@nx/js"].projectsAffectedByDependencyUpdates: "auto"`` Nx diffs the two
  lockfile versions by package (each name's versions and integrity hashes) and walks back from
  the packages that moved, through the packages depending on them, to the projects using them
  (and their dependents). A lockfile change that moves no package (its ``version`` field,
  whitespace) touches nothing; a package no longer locked makes it give up: every project.
  Every test task hashes every npm package unless it pins ``externalDependencies``, so any
  moved package selects all of those. ctxsel treated every lockfile change as global.
- A test pinning ``externalDependencies: ["left-pad"]`` (or ``["is-odd"]``, which depends on
  left-pad) is selected when left-pad moves -- also with the default ``"all"``, where
  ctxsel left every pinned task out.
- A pinned package that no lockfile locks (or any, without a lockfile) makes
  ``nx affected -t test`` fail: "The externalDependency 'nope' for 'b:test' could not be
  found", whatever changed. ctxsel answers and says so on stderr.

The expected sets are what Nx 24.0.6 answered; ``test_real_nx_gives_the_same_answers`` asks the
real nx again and skips, saying why, when it is not installed.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli, run_git, write_tree
from oracles import nx_affected, nx_projects, require


def pkg(name: str, deps: dict[str, str] | None = None, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"name": name, "version": "1.0.0", "scripts": {"test": "echo"}}
    if deps:
        body["dependencies"] = deps
    return {**body, **extra}


LOCK: dict[str, Any] = {"name": "root", "lockfileVersion": 3, "requires": True, "packages": {
    "": {"name": "root", "workspaces": ["packages/*"], "devDependencies": {"@nx/js": "24.0.6"}},
    "node_modules/left-pad": {"version": "1.0.0", "resolved": "https://r/left-pad-1.0.0.tgz", "integrity": "sha512-aaa"},
    "node_modules/is-odd": {"version": "1.0.0", "resolved": "https://r/is-odd-1.0.0.tgz", "integrity": "sha512-bbb",
                            "dependencies": {"left-pad": "^1.0.0"}},
    **{f"node_modules/{p}": {"resolved": f"packages/{p}", "link": True} for p in "abcd"},
    "packages/a": {"name": "a", "version": "1.0.0", "dependencies": {"left-pad": "^1.0.0"}},
    "packages/b": {"name": "b", "version": "1.0.0"},
    "packages/c": {"name": "c", "version": "1.0.0", "dependencies": {"a": "*"}},
    "packages/d": {"name": "d", "version": "1.0.0", "dependencies": {"is-odd": "^1.0.0"}},
}}


def workspace(mode: str | None, pin: list[str] | None, lockfile: bool = True) -> dict[str, str]:
    """a uses left-pad, d uses is-odd (which uses left-pad), c depends on a; b's test pins ``pin``."""
    nx_json = {} if mode is None else {"pluginsConfig": {"@nx/js": {"projectsAffectedByDependencyUpdates": mode}}}
    b_nx = {"targets": {"test": {"inputs": ["{projectRoot}/**/*", {"externalDependencies": pin}]}}} if pin is not None else None
    files: dict[str, Any] = {
        "package.json": {"name": "root", "private": True, "workspaces": ["packages/*"], "devDependencies": {"@nx/js": "24.0.6"}},
        "nx.json": nx_json,
        "packages/a/package.json": pkg("a", {"left-pad": "^1.0.0"}),
        "packages/a/i.ts": "export {}\n",
        "packages/b/package.json": pkg("b", **({"nx": b_nx} if b_nx else {})),
        "packages/b/i.ts": "export {}\n",
        "packages/c/package.json": pkg("c", {"a": "*"}),
        "packages/d/package.json": pkg("d", {"is-odd": "^1.0.0"}),
    }
    if lockfile:
        files["package-lock.json"] = LOCK
    return {k: v if isinstance(v, str) else json.dumps(v, indent=2) for k, v in files.items()}


def bumped(name: str) -> str:
    lock = copy.deepcopy(LOCK)
    lock["packages"][f"node_modules/{name}"]["version"] = "1.1.0"
    return json.dumps(lock, indent=2)


CHANGES: dict[str, dict[str, str]] = {
    "left-pad bumped": {"package-lock.json": bumped("left-pad")},
    "is-odd bumped": {"package-lock.json": bumped("is-odd")},
    "lockfile version field": {"package-lock.json": json.dumps(dict(LOCK, version="2.0.0"), indent=2)},
    "lockfile whitespace": {"package-lock.json": json.dumps(LOCK)},
    "package added": {"package-lock.json": json.dumps({**LOCK, "packages": {**LOCK["packages"], "node_modules/zzz": {
        "version": "1.0.0", "resolved": "https://r/z.tgz", "integrity": "sha512-c"}}}, indent=2)},
    "package removed": {"package-lock.json": json.dumps({**LOCK, "packages": {
        k: v for k, v in LOCK["packages"].items() if k != "node_modules/is-odd"}}, indent=2)},
    "b source": {"packages/b/i.ts": "export const x = 1;\n"},
}
EVERY = {"a", "b", "c", "d"}
# (mode, b's pin, change) -> (nx show projects --affected, ... -t test), as Nx 24.0.6 answered
EXPECTED: dict[tuple[str | None, tuple[str, ...] | None, str], tuple[set[str], set[str]]] = {
    ("auto", None, "left-pad bumped"): ({"a", "c", "d"}, EVERY),
    ("auto", None, "is-odd bumped"): ({"d"}, EVERY),
    ("auto", None, "lockfile version field"): (set(), set()),
    ("auto", None, "lockfile whitespace"): (set(), set()),
    ("auto", None, "package added"): (set(), EVERY),
    ("auto", None, "package removed"): (EVERY, EVERY),
    ("auto", ("left-pad",), "left-pad bumped"): ({"a", "c", "d"}, EVERY),
    ("auto", ("is-odd",), "left-pad bumped"): ({"a", "c", "d"}, EVERY),
    ("auto", ("left-pad",), "b source"): ({"b"}, {"b"}),
    ("auto", ("left-pad",), "is-odd bumped"): ({"d"}, {"a", "c", "d"}),
    (None, ("left-pad",), "left-pad bumped"): (EVERY, EVERY),
    (None, ("is-odd",), "left-pad bumped"): (EVERY, EVERY),
    (None, (), "left-pad bumped"): (EVERY, {"a", "c", "d"}),
}


def make_repo(root: Path, mode: str | None, pin: tuple[str, ...] | None, change: str, lockfile: bool = True) -> Path:
    write_tree(root, workspace(mode, list(pin) if pin is not None else None, lockfile))
    run_git(root, "init", "-q", "-b", "main")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", "workspace")
    write_tree(root, CHANGES[change])
    run_git(root, "commit", "-qam", change)
    return root


def ctxsel_answers(root: Path) -> tuple[set[str], set[str], str]:
    """(blast radius, tests, the tests command's stderr) of HEAD~1..HEAD."""
    answers: list[Any] = []
    for command in ("blast-radius", "tests"):
        proc = run_cli("--repo", str(root), "--source", "static", "--no-cache", command,
                       "--base", "HEAD~1", "--head", "HEAD", "--format", "json")
        assert proc.returncode == 0, proc.stderr
        body = json.loads(proc.stdout)
        answers.append({a["id"] for a in body["affected"]} if command == "blast-radius" else set(body["tests"]))
    return answers[0], answers[1], proc.stderr


@pytest.mark.parametrize("mode,pin,change", sorted(EXPECTED, key=repr))
def test_lockfile_changes_select_what_nx_selects(tmp_path, mode, pin, change):
    root = make_repo(tmp_path / "ws", mode, pin, change)
    assert ctxsel_answers(root)[:2] == EXPECTED[(mode, pin, change)]


@pytest.mark.parametrize("lockfile", [True, False])
def test_an_unlocked_pinned_package_is_a_warning_where_nx_fails(tmp_path, lockfile):
    """b pins ``nope`` (no lockfile locks it) and only d changes: ``nx affected -t test``
    fails ("The externalDependency 'nope' for 'b:test' could not be found"). Without a
    lockfile even ``left-pad`` is unknown to Nx. ctxsel still answers (d), on stderr why nx fails."""
    pin = ("nope",) if lockfile else ("left-pad",)
    root = make_repo(tmp_path / "ws", None, pin, "b source", lockfile)
    write_tree(root, {"packages/d/x.ts": "export {};\n"})
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", "d only")
    _, tests, stderr = ctxsel_answers(root)
    assert tests == {"d"}
    assert f"The externalDependency '{pin[0]}' for 'b:test' could not be found" in stderr
    assert "packages/b/package.json" in stderr


def test_a_locked_pinned_package_is_no_warning(tmp_path):
    root = make_repo(tmp_path / "ws", None, ("left-pad",), "b source")
    assert ctxsel_answers(root) == ({"b"}, {"b"}, "")


@pytest.mark.oracle
def test_real_nx_gives_the_same_answers(tmp_path):
    tool = require("nx")

    for n, (mode, pin, change) in enumerate(sorted(EXPECTED, key=repr)):
        root = make_repo(tmp_path / f"ws{n}", mode, pin, change)
        answers = [nx_projects(nx_affected(tool, root, tmp_path / f"state{n}", *extra).stdout) for extra in ([], ["-t", "test"])]
        assert tuple(answers) == EXPECTED[(mode, pin, change)], (mode, pin, change)


PNPM_LOCK = """lockfileVersion: '9.0'

settings:
  autoInstallPeers: true
  excludeLinksFromLockfile: false

importers:

  .: {}

  packages/a:
    dependencies:
      left-pad:
        specifier: ^1.0.0
        version: 1.0.0

  packages/d:
    dependencies:
      is-odd:
        specifier: ^1.0.0
        version: 1.0.0

packages:

  is-odd@1.0.0:
    resolution: {integrity: sha512-bbb}

  left-pad@1.0.0:
    resolution: {integrity: sha512-aaa}

snapshots:

  is-odd@1.0.0:
    dependencies:
      left-pad: 1.0.0

  left-pad@1.0.0: {}
"""
# Nx's pnpm parser wants node_modules/.modules.yaml (not tracked: Nx reads it from disk)
MODULES_YAML = ("hoistedDependencies: {}\nincluded:\n  dependencies: true\n  devDependencies: true\n"
                "  optionalDependencies: true\nlayoutVersion: 5\nnodeLinker: isolated\npackageManager: pnpm@9.0.0\n"
                "pendingBuilds: []\npublicHoistPattern: []\nregistries:\n  default: https://registry.npmjs.org/\n"
                "skipped: []\nstoreDir: /tmp/store\nvirtualStoreDir: .pnpm\n")
# pnpm-lock.yaml change -> (nx show projects --affected, ... -t test), Nx 24.0.6; b's test pins []
PNPM_EXPECTED: dict[str, tuple[str, tuple[set[str], set[str]]]] = {
    "left-pad integrity": (PNPM_LOCK.replace("sha512-aaa", "sha512-zzz"), ({"a", "c", "d"}, {"a", "c", "d"})),
    "is-odd integrity": (PNPM_LOCK.replace("sha512-bbb", "sha512-zzz"), ({"d"}, {"a", "c", "d"})),
    "settings only": (PNPM_LOCK.replace("autoInstallPeers: true", "autoInstallPeers: false"), (set(), set())),
}


def make_pnpm_repo(root: Path, change: str) -> Path:
    files = workspace("auto", [], lockfile=False)
    write_tree(root, {**files, "pnpm-workspace.yaml": "packages: ['packages/*']\n", "pnpm-lock.yaml": PNPM_LOCK,
                      ".gitignore": "node_modules\n", "node_modules/.modules.yaml": MODULES_YAML})
    run_git(root, "init", "-q", "-b", "main")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", "workspace")
    write_tree(root, {"pnpm-lock.yaml": PNPM_EXPECTED[change][0]})
    run_git(root, "commit", "-qam", change)
    return root


@pytest.mark.parametrize("change", sorted(PNPM_EXPECTED))
def test_a_pnpm_lockfile_change_is_narrowed_to_the_packages_that_moved(tmp_path, change):
    root = make_pnpm_repo(tmp_path / "ws", change)
    assert ctxsel_answers(root)[:2] == PNPM_EXPECTED[change][1]


@pytest.mark.oracle
def test_real_nx_narrows_pnpm_lockfile_changes_the_same_way(tmp_path):
    tool = require("nx")

    for n, change in enumerate(sorted(PNPM_EXPECTED)):
        root = make_pnpm_repo(tmp_path / f"ws{n}", change)
        answers = [nx_projects(nx_affected(tool, root, tmp_path / f"state{n}", *extra).stdout) for extra in ([], ["-t", "test"])]
        assert tuple(answers) == PNPM_EXPECTED[change][1], change
