"""Which nx.json ``targetDefaults`` entry a target keeps, when the entry disagrees with it.

Found by differential testing with generated workspaces (session 20, ``/tmp/dev20/hn/gen``, seed
35), then narrowed to one workspace per rule. Nx 24 chooses the key first (executor, name, then
globs longest first) by the entries' filters alone; an entry whose executor disagrees is then
dropped *without* falling through to the next key, and the target's own configuration, merging
over the entry, replaces a run-commands entry that names its executor and another command, or a
run-script entry with another script: the entry's ``inputs`` are lost, and the test reads every
file of its project. ctxsel fell through to the next key and kept the replaced entry's inputs.
A ``"..."`` in the defaults' own ``inputs`` (nothing below to spread) is dropped; ctxsel kept it
and refused it as an invalid fileset.

Each case: one project ``p`` whose ``test`` target is configured as given; nx.json's
targetDefaults as given; the tests nx 24.0.6 (``nx affected -t test --files=...``) selects
for a change of ``README.md``, ``docs/g.md`` and ``src/i.ts`` (1 = p's test selected).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli, write_tree
from nx_plugin_oracles import nx_affected_tests, require_nx_plugins

SRC = {"inputs": ["{projectRoot}/src/**/*"]}
DOCS = {"inputs": ["{projectRoot}/docs/**"]}
RUN = {"executor": "nx:run-commands", "options": {"command": "echo default"}}
SCRIPT = None  # p's test is its package.json script
FILES = ("README.md", "docs/g.md", "src/i.ts")
CASES = {  # name -> (targetDefaults, p's test target, selected per file in FILES)
    "other command, executor named": ({"test": {**RUN, **SRC}}, {"command": "echo own"}, (1, 1, 1)),
    "same command": ({"test": {**RUN, **SRC}}, {"command": "echo default"}, (0, 0, 1)),
    "same command as a list": ({"test": {"executor": "nx:run-commands", "options": {"commands": ["echo own"]}, **SRC}},
                               {"command": "echo own"}, (0, 0, 1)),
    "bare command, no executor": ({"test": {"command": "echo default", **SRC}}, {"command": "echo own"}, (0, 0, 1)),
    "options only, no executor": ({"test": {"options": {"command": "echo default"}, **SRC}}, {"command": "echo own"},
                                  (0, 0, 1)),
    "target names no command": ({"test": {**RUN, **SRC}}, {"executor": "nx:run-commands"}, (0, 0, 1)),
    "other script": ({"test": {"executor": "nx:run-script", "options": {"script": "other"}, **SRC}}, SCRIPT, (1, 1, 1)),
    "other script, no executor": ({"test": {"options": {"script": "other"}, **SRC}}, SCRIPT, (1, 1, 1)),
    "other executor, no fall-through": ({"test": {"executor": "nx:noop", **SRC}, "t*": DOCS}, {"command": "echo own"},
                                       (1, 1, 1)),
    "executor key replaced, no fall-through": ({"nx:run-commands": {**RUN, **SRC}, "test": DOCS},
                                               {"command": "echo own"}, (1, 1, 1)),
    # seed 242: a "..." in the defaults' own inputs spreads nothing (old: exit 2, '"..." is an invalid fileset')
    "spread in the defaults": ({"test": {"inputs": ["{projectRoot}/src/**/*", "..."]}}, {"command": "echo own"},
                               (0, 0, 1)),
    "filters fail: next key": ({"test": [{"filter": {"projects": "nomatch"}, **SRC}], "t*": DOCS},
                               {"command": "echo own"}, (0, 1, 0)),
}


def make(root: Path, target_defaults: dict[str, object], test: dict[str, object] | None) -> Path:
    manifest: dict[str, object] = {"name": "p"}
    if test is None:
        manifest["scripts"] = {"test": "vitest", "other": "x"}
    else:
        manifest["nx"] = {"targets": {"test": test}}
    files = {
        "nx.json": {"targetDefaults": target_defaults},
        "package.json": {"name": "root", "private": True, "workspaces": ["packages/*"]},
        "packages/p/package.json": manifest,
    }
    write_tree(root, {k: json.dumps(v) for k, v in files.items()})
    return write_tree(root, {f"packages/p/{f}": "x" for f in FILES})


def ctxsel_tests(root: Path, file: str) -> set[str]:
    proc = run_cli("--repo", str(root), "--no-cache", "-q", "--adapter", "nx", "--source", "static",
                   "tests", "--files", f"packages/p/{file}", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(proc.stdout)["tests"])


@pytest.mark.parametrize("case", sorted(CASES))
def test_tests_follow_the_defaults_nx_keeps(tmp_path: Path, case: str) -> None:
    defaults, test, want = CASES[case]
    root = make(tmp_path / "ws", defaults, test)
    assert [len(ctxsel_tests(root, f)) for f in FILES] == list(want)


@pytest.mark.oracle
@pytest.mark.parametrize("case", sorted(CASES))
def test_real_nx_selects_the_same(tmp_path: Path, case: str) -> None:
    require_nx_plugins()
    defaults, test, want = CASES[case]
    root = make(tmp_path / "ws", defaults, test)
    assert [len(nx_affected_tests(root, [f"packages/p/{f}"])) for f in FILES] == list(want)


def test_a_spread_over_nothing_is_no_target(tmp_path: Path) -> None:
    """Generated seed 283: a test configured as ``{"dependsOn": ["..."]}`` alone, no default
    giving it an executor or dependsOn, is no target for nx 24.0.6 (``nx show project``); ctxsel
    kept it as a runnable ``nx:noop`` test."""
    root = make(tmp_path / "ws", {"{test,lint}": {"inputs": ["default"]}}, {"dependsOn": ["..."]})
    assert ctxsel_tests(root, "src/i.ts") == set()


@pytest.mark.oracle
def test_real_nx_has_no_such_target(tmp_path: Path) -> None:
    require_nx_plugins()
    root = make(tmp_path / "ws", {"{test,lint}": {"inputs": ["default"]}}, {"dependsOn": ["..."]})
    assert nx_affected_tests(root, ["packages/p/src/i.ts"]) == set()
