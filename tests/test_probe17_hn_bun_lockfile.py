"""Nx 24 ``projectsAffectedByDependencyUpdates: "auto"`` with a text ``bun.lock``.

Found by differential testing against the real nx 24.0.6 (``nx show projects --affected
[-t test] --base HEAD~1 --head HEAD``): Nx parses bun's text lockfile (JSON with trailing
commas) into external nodes and narrows the change to the packages whose (version, integrity)
moved; the ``workspaces`` section (what each package declares) and an npm entry's metadata
move no package, and a moved package reaches only the projects naming it (not those using a
package that depends on it). ctxsel took every bun.lock change as global: every project,
every test.

The expected sets are what nx 24.0.6 answered; ``test_real_nx_narrows_bun_lockfile_changes_the_same_way``
asks the real nx again and skips, saying why, when it is not installed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_git, write_tree
from oracles import nx_affected, nx_projects, require
from test_probe15_nx_auto_lockfile import ctxsel_answers, workspace

BUN_LOCK = """{
  "lockfileVersion": 1,
  "workspaces": {
    "": {
      "name": "root",
      "devDependencies": {
        "@nx/js": "24.0.6",
      },
    },
    "packages/a": {
      "name": "a",
      "version": "1.0.0",
      "dependencies": {
        "left-pad": "^1.0.0",
      },
    },
    "packages/b": {
      "name": "b",
      "version": "1.0.0",
    },
    "packages/c": {
      "name": "c",
      "version": "1.0.0",
      "dependencies": {
        "a": "*",
      },
    },
    "packages/d": {
      "name": "d",
      "version": "1.0.0",
      "dependencies": {
        "is-odd": "^1.0.0",
      },
    },
  },
  "packages": {
    "a": ["a@workspace:packages/a"],

    "b": ["b@workspace:packages/b"],

    "c": ["c@workspace:packages/c"],

    "d": ["d@workspace:packages/d"],

    "is-odd": ["is-odd@1.0.0", "", { "dependencies": { "left-pad": "^1.0.0" } }, "sha512-bbb"],

    "left-pad": ["left-pad@1.0.0", "", {}, "sha512-aaa"],
  }
}
"""
EVERY = {"a", "b", "c", "d"}
# bun.lock change -> (nx show projects --affected, ... -t test), as nx 24.0.6 answered over
# HEAD~1..HEAD; b's test pins externalDependencies [] (so it hashes no npm package)
BUN_EXPECTED: dict[str, tuple[str, tuple[set[str], set[str]]]] = {
    # d uses is-odd, which depends on left-pad, and is not affected: Nx's edge from is-odd to
    # left-pad leaves the versioned node npm:is-odd@1.0.0, d's edge goes to the hoisted npm:is-odd
    "left-pad integrity": (BUN_LOCK.replace("sha512-aaa", "sha512-zzz"), ({"a", "c"}, {"a", "c", "d"})),
    "is-odd version": (BUN_LOCK.replace('"is-odd@1.0.0"', '"is-odd@1.0.1"'), ({"d"}, {"a", "c", "d"})),
    "is-odd metadata only": (BUN_LOCK.replace('{ "dependencies": { "left-pad": "^1.0.0" } }',
                                              '{ "dependencies": { "left-pad": "^1.0.0" }, "bin": "x" }'), (set(), set())),
    "workspace section": (BUN_LOCK.replace('"name": "b",', '"name": "b",\n      "dependencies": { "left-pad": "^1.0.0" },'),
                          (set(), set())),
}


def make_bun_repo(root: Path, change: str) -> Path:
    files = workspace("auto", [], lockfile=False)
    write_tree(root, {**files, "bun.lock": BUN_LOCK})
    run_git(root, "init", "-q", "-b", "main")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", "workspace")
    write_tree(root, {"bun.lock": BUN_EXPECTED[change][0]})
    run_git(root, "commit", "-qam", change)
    return root


@pytest.mark.parametrize("change", sorted(BUN_EXPECTED))
def test_a_bun_lockfile_change_is_narrowed_to_the_packages_that_moved(tmp_path, change):
    root = make_bun_repo(tmp_path / "ws", change)
    assert ctxsel_answers(root)[:2] == BUN_EXPECTED[change][1]


@pytest.mark.oracle
def test_real_nx_narrows_bun_lockfile_changes_the_same_way(tmp_path):
    tool = require("nx")

    for n, change in enumerate(sorted(BUN_EXPECTED)):
        root = make_bun_repo(tmp_path / f"ws{n}", change)
        answers = [nx_projects(nx_affected(tool, root, tmp_path / f"state{n}", *extra).stdout) for extra in ([], ["-t", "test"])]
        assert tuple(answers) == BUN_EXPECTED[change][1], change
