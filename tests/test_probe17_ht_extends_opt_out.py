"""Turborepo 2: a package turbo.json extending another package's turbo.json inherits its
``"test": {"extends": false}`` opt-out (turbo 2.11.11, measured; found by randomized differential
testing: ``api6`` extending ``["//", "ui"]``, ``ui`` opting out, ran no test, ctxsel selected it):

- ``b`` extending ``["//", "a"]`` with no ``test`` of its own opts out when ``a`` does, and so
  does ``c`` extending ``b``; a root ``b#test`` does not undo it; ``b``'s own ``test`` does;
- among several extended packages the last one that gives ``test`` decides: ``["//", "a", "d"]``
  runs (``d`` defines it), ``["//", "d", "a"]`` opts out.

ctxsel looked only for *some* extended package defining ``test``, and otherwise fell back to
the root's ``test``, so every such package was a test.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsfixtures import TURBO_ENV, open_ws
from oracles import require, run

OPT_OUT = {"extends": ["//"], "tasks": {"test": {"extends": False}}}
DEFINES = {"extends": ["//"], "tasks": {"test": {"cache": False}}}
#: name -> (root tasks, package turbo.json files, the packages whose test runs) (measured)
CASES = {
    "inherits": ({"test": {}}, {"a": OPT_OUT, "b": {"extends": ["//", "a"], "tasks": {}}}, {"c", "d"}),
    "transitive": ({"test": {}}, {"a": OPT_OUT, "b": {"extends": ["//", "a"]}, "c": {"extends": ["//", "b"]}}, {"d"}),
    "root-package-task": ({"test": {}, "b#test": {}}, {"a": OPT_OUT, "b": {"extends": ["//", "a"]}}, {"c", "d"}),
    "own-test": ({"test": {}}, {"a": OPT_OUT, "b": {"extends": ["//", "a"], "tasks": {"test": {}}}}, {"b", "c", "d"}),
    "last-defines": ({"test": {}}, {"a": OPT_OUT, "d": DEFINES, "c": {"extends": ["//", "a", "d"]}}, {"b", "c", "d"}),
    "last-opts-out": ({"test": {}}, {"a": OPT_OUT, "d": DEFINES, "c": {"extends": ["//", "d", "a"]}}, {"b", "d"}),
    "opt-out-with-more-keys": ({"test": {}}, {"a": {"extends": ["//"], "tasks": {"test": {"extends": False, "cache": False}}},
                                              "b": {"extends": ["//", "a"]}}, {"a", "b", "c", "d"}),
}


def workspace(root: Path, tasks: dict, configs: dict) -> Path:
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps(
        {"name": "root", "private": True, "packageManager": "npm@10.9.0", "workspaces": ["p/*"]}))
    (root / "turbo.json").write_text(json.dumps({"tasks": tasks}))
    for name in ("a", "b", "c", "d"):
        (root / "p" / name).mkdir(parents=True)
        (root / "p" / name / "package.json").write_text(json.dumps(
            {"name": name, "version": "1.0.0", "scripts": {"test": "echo " + name}}))
        if name in configs:
            (root / "p" / name / "turbo.json").write_text(json.dumps(configs[name]))
    return root


@pytest.mark.parametrize("case", sorted(CASES))
def test_ctxsel_follows_the_extends_chain(tmp_path: Path, case: str) -> None:
    """Old: ``b`` (and ``c``) were tests in "inherits", "transitive", "root-package-task" and "last-opts-out"."""
    tasks, configs, expected = CASES[case]
    ws = open_ws(workspace(tmp_path / "ws", tasks, configs), "turbo")
    assert {n.id for n in ws.graph.nodes() if n.is_test} == expected


@pytest.mark.oracle
@pytest.mark.parametrize("case", sorted(CASES))
def test_turbo_runs_them(tmp_path: Path, case: str) -> None:
    require("turbo")
    tasks, configs, expected = CASES[case]
    out = run(["turbo", "run", "test", "--dry=json"], workspace(tmp_path / "ws", tasks, configs), env=TURBO_ENV).stdout
    tasks_run = json.loads(out[out.index("{"):])["tasks"]
    assert {t["package"] for t in tasks_run if not t["command"].startswith("<")} == expected
