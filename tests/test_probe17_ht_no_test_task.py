"""Turborepo 2 with packages that have a ``test`` script but no turbo.json defining a ``test`` task.

``turbo run test`` then fails for every filter ("Missing tasks in project: Could not find task
`test` in project", exit 1; turbo 2.11.11, measured), even ``--filter=b`` for a package
without the script. One definition anywhere avoids that: ``test``, ``a#test`` or ``//#test`` in
the root turbo.json, or ``test`` in a package's own turbo.json (then ``--filter=b`` runs
nothing, exit 0). In single-package mode the root's ``test`` script is the task, defined or not.

ctxsel selected no tests (right: turbo runs none) and said only "no tests depend on the
inputs", which reads as "nothing to do" where every turbo command of the repo is broken.
It now warns, naming turbo.json, like its other task-graph warnings
(``test_command_warnings``); the selection stays empty, the command too, and the exit code 0
(``pre-commit`` treats nothing to test as a success).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsfixtures import TURBO_ENV, open_ws
from oracles import require, run

WARNING = 'defines no "test" task'


def workspace(root: Path, tasks: dict, package_tasks: dict | None = None, scripts: bool = True,
              yaml: str = "packages: ['p/*']\n") -> Path:
    """``p/a`` and ``p/b -> a``, each with a test script (``scripts``); ``package_tasks``: ``a``'s own turbo.json tasks."""
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps(
        {"name": "root", "private": True, "packageManager": "pnpm@12.4.2", "scripts": {"test": "echo root"}}))
    (root / "pnpm-workspace.yaml").write_text(yaml)
    (root / "turbo.json").write_text(json.dumps({"tasks": tasks}))
    for name, deps in (("a", {}), ("b", {"a": "workspace:*"})):
        (root / "p" / name).mkdir(parents=True)
        (root / "p" / name / "package.json").write_text(json.dumps(
            {"name": name, "version": "1.0.0", "dependencies": deps, **({"scripts": {"test": "echo"}} if scripts else {})}))
    if package_tasks is not None:
        (root / "p" / "a" / "turbo.json").write_text(json.dumps({"extends": ["//"], "tasks": package_tasks}))
    return root


#: name -> (workspace arguments, does turbo run test fail for every filter) (measured)
CASES = {
    "build-only": (({"build": {}},), True),
    "no-tasks": (({},), True),
    # single-package mode runs the root's test script as ``test``, turbo.json defining it or not
    "single-package-build-only": (({"build": {}}, None, True, "packages: []\n"), False),
    "package-task": (({"a#test": {}},), False),
    # a task of a package the workspace does not have (left out by a negation, renamed) is none
    "task-of-no-package": (({"gone#test": {}},), True),
    "task-of-an-excluded-package": (({"a#test": {}}, None, True, "packages: ['p/*', '!p/a']\n"), True),
    "root-task": (({"//#test": {}},), False),
    "package-turbo-json": (({"build": {}}, {"test": {}}), False),
    "test-task": (({"test": {}},), False),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_no_test_task_anywhere_is_warned_about(tmp_path: Path, case: str, cli) -> None:
    """Old: no warning for any case."""
    args, fails = CASES[case]
    root = workspace(tmp_path / "ws", *args)
    for _ in range(2):  # the second run reads the cached graph
        proc = cli("--repo", str(root), "--adapter", "turbo", "--source", "static", "tests", "p/b/package.json")
        assert proc.returncode == 0, proc.stderr
        assert (WARNING in proc.stderr) == fails, proc.stderr
    if fails:
        assert "turbo.json" in proc.stderr and "no tests depend" in proc.stdout


def test_no_warning_without_test_scripts(tmp_path: Path, cli) -> None:
    root = workspace(tmp_path / "ws", {"build": {}}, scripts=False)
    (root / "package.json").write_text(json.dumps({"name": "root", "private": True, "packageManager": "pnpm@12.4.2"}))
    proc = cli("--repo", str(root), "--adapter", "turbo", "--source", "static", "tests", "b")
    assert proc.returncode == 0 and WARNING not in proc.stderr, proc.stderr


def test_the_graph_records_whether_a_test_task_exists(tmp_path: Path) -> None:
    assert open_ws(workspace(tmp_path / "a", {"build": {}}), "turbo").graph.node("//").meta["test_task"] is False
    assert open_ws(workspace(tmp_path / "b", {"build": {}}, {"test": {}}), "turbo").graph.node("//").meta["test_task"]


@pytest.mark.oracle
@pytest.mark.parametrize("case", sorted(CASES))
def test_turbo_fails_exactly_then(tmp_path: Path, case: str) -> None:
    require("turbo")
    args, fails = CASES[case]
    root = workspace(tmp_path / "ws", *args)
    selector = "//" if case.startswith("single-package") else "b"  # no package "b" in single-package mode
    proc = run(["turbo", "run", "test", f"--filter={selector}", "--dry=json"], root, env=TURBO_ENV, check=False)
    assert (proc.returncode != 0) == fails, proc.stderr[-600:]
    if fails:
        assert "Could not find task `test` in project" in proc.stderr
