"""Turborepo 2: ``turbo run test`` refuses a broken task graph -- ctxsel prints the command and warns.

``turbo run test --filter=...`` builds a task graph from the selected packages' ``test``
tasks through ``dependsOn`` and refuses the whole run (exit 1, no task runs) when it is
broken (turbo 2.11.11, measured): a cycle of tasks (``"dependsOn": ["^test"]`` over a
package dependency cycle, also through a package without the script; ``test`` <-> ``build``;
``a#test`` -> ``//#lint`` -> ``a#test``), a task that depends on itself, a task that no
turbo.json defines, a ``pkg#task`` for no package, an environment variable, a persistent
task with its script. A package outside the broken part still runs. ctxsel printed such a
command without a word; a ``dependsOn`` that is no list (which stops every turbo command,
``turbo ls`` too) was not refused at all.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsfixtures import TURBO_ENV
from oracles import require, run

pytestmark = pytest.mark.oracle

#: a -> c -> b -> a (b has no test script), e -> a, d alone
CYCLE = {"a": ({"c": "*"}, True), "b": ({"a": "*"}, False), "c": ({"b": "*"}, True), "d": ({}, True), "e": ({"a": "*"}, True)}
TWO = {"a": ({}, True), "b": ({"a": "*"}, True)}
PKG_A = "p/a/turbo.json"

#: name -> (packages, root tasks, extra files, {package asked about: does turbo refuse ctxsel's command})
CASES: dict[str, tuple[dict, dict, dict, dict[str, bool]]] = {
    "package-cycle-^test": (CYCLE, {"test": {"dependsOn": ["^test"]}}, {}, {"a": True, "d": False}),
    "package-cycle-^build-plain-build": (CYCLE, {"test": {"dependsOn": ["^build"]}, "build": {}}, {}, {"a": False}),
    "package-cycle-^build-^build": (CYCLE, {"test": {"dependsOn": ["^build"]}, "build": {"dependsOn": ["^build"]}}, {},
                                    {"a": True, "d": False}),
    "package-cycle-no-dependsOn": (CYCLE, {"test": {}}, {}, {"a": False}),
    "test-build-test": ({"a": ({}, True)}, {"test": {"dependsOn": ["build"]}, "build": {"dependsOn": ["test"]}}, {}, {"a": True}),
    "self": ({"a": ({}, True)}, {"test": {"dependsOn": ["test"]}}, {}, {"a": True}),
    "self-in-package-turbo-json": (TWO, {"test": {}}, {PKG_A: {"extends": ["//"], "tasks": {"test": {"dependsOn": ["test"]}}}},
                                   {"a": True, "b": False}),
    "package-turbo-json-breaks-the-cycle": (
        TWO, {"test": {"dependsOn": ["build"]}, "build": {"dependsOn": ["test"]}},
        {PKG_A: {"extends": ["//"], "tasks": {"build": {"dependsOn": []}}}}, {"a": True, "b": True}),
    "package-task-in-root": (TWO, {"test": {}, "a#test": {"dependsOn": ["build"]}, "build": {"dependsOn": ["test"]}}, {},
                             {"a": True, "b": False}),
    "through-the-root-task": (TWO, {"test": {"dependsOn": ["//#lint"]}, "//#lint": {"dependsOn": ["a#test"]}}, {}, {"b": True}),
    "undefined-task": ({"a": ({}, True)}, {"test": {"dependsOn": ["nope"]}}, {}, {"a": True}),
    "undefined-task-of-a-dependency": (TWO, {"test": {"dependsOn": ["^nope"]}}, {}, {"b": True}),
    "no-such-package": ({"a": ({}, True)}, {"test": {"dependsOn": ["zz#build"]}}, {}, {"a": True}),
    "root-task-without-entry": ({"a": ({}, True)}, {"test": {"dependsOn": ["//#nope"]}}, {}, {"a": True}),
    "environment-variable": ({"a": ({}, True)}, {"test": {"dependsOn": ["$FOO"]}}, {}, {"a": True}),
    "persistent-dependency": (TWO, {"test": {"dependsOn": ["^dev"]}, "dev": {"persistent": True}}, {}, {"b": True}),
    "persistent-dependency-without-script": (
        {"a": ({}, False), "b": ({"a": "*"}, True)}, {"test": {"dependsOn": ["^dev"]}, "dev": {"persistent": True}}, {},
        {"b": False}),
    "persistent-test": ({"a": ({}, True)}, {"test": {"persistent": True}}, {}, {"a": False}),
    "extends-false-dependency": (TWO, {"test": {"dependsOn": ["build"]}, "build": {}},
                                 {PKG_A: {"extends": ["//"], "tasks": {"build": {"extends": False}}}}, {"a": False}),
}


def workspace(root: Path, case: str) -> Path:
    """npm workspace ``p/*``; a package with ``test`` has the scripts test, build and dev, the others build only."""
    packages, tasks, extra, _ = CASES[case]
    files: dict[str, object] = {
        "package.json": {"name": "root", "private": True, "packageManager": "npm@10.0.0", "workspaces": ["p/*"],
                         "scripts": {"lint": "echo lint"}},
        "turbo.json": {"tasks": tasks},
        **extra,
    }
    for name, (deps, has_test) in packages.items():
        scripts = {"test": "echo t", "build": "echo b", "dev": "echo d"} if has_test else {"build": "echo b"}
        files[f"p/{name}/package.json"] = {"name": name, "version": "1.0.0", "scripts": scripts, "dependencies": deps}
    for rel, body in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(json.dumps(body))
    return root


def ctxsel_tests(cli, root: Path, target: str) -> tuple[list[str], str]:
    """(filters of ctxsel's command, ctxsel's stderr) for ``ctxsel tests target``."""
    proc = cli("--repo", str(root), "--adapter", "turbo", "--source", "static", "tests", target, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    command = json.loads(proc.stdout)["command"]
    assert command.startswith("turbo run test --filter="), command
    return [arg.split("=", 1)[1] for arg in command.split()[3:]], proc.stderr


CHECKS = [(case, target) for case in sorted(CASES) for target in sorted(CASES[case][3])]


@pytest.mark.parametrize("case,target", CHECKS)
def test_ctxsel_warns_exactly_where_turbo_refuses(tmp_path: Path, cli, case: str, target: str) -> None:
    """The measured answer (``test_turbo_refuses_exactly_those``): a warning naming the
    broken part, the command unchanged; none where turbo runs."""
    root = workspace(tmp_path / "ws", case)
    _, stderr = ctxsel_tests(cli, root, target)
    refused = CASES[case][3][target]
    assert ("turbo refuses to run this command" in stderr) == refused, stderr
    assert "Traceback" not in stderr


@pytest.mark.parametrize("case,target", CHECKS)
def test_turbo_refuses_exactly_those(tmp_path: Path, cli, case: str, target: str) -> None:
    require("turbo")
    root = workspace(tmp_path / "ws", case)
    filters, _ = ctxsel_tests(cli, root, target)
    proc = run(["turbo", "run", "test", *(f"--filter={f}" for f in filters), "--dry=json"], root, env=TURBO_ENV, check=False)
    assert (proc.returncode != 0) == CASES[case][3][target], proc.stderr[-1500:]


def test_the_warning_names_the_cycle(tmp_path: Path, cli) -> None:
    root = workspace(tmp_path / "ws", "package-cycle-^test")
    filters, stderr = ctxsel_tests(cli, root, "a")
    assert filters == ["a", "c", "e"]  # the command is the one the tests need, unchanged
    assert "a#test -> c#test -> b#test -> a#test" in stderr, stderr


def test_a_dependson_that_is_no_list_is_exit_2(tmp_path: Path, cli) -> None:
    """turbo: "dependsOn has an incorrect type, expected an array" for every command."""
    root = workspace(tmp_path / "ws", "self")
    (root / "turbo.json").write_text('{\n  "tasks": {\n    "test": {"dependsOn": "build"}\n  }\n}\n')
    proc = cli("--repo", str(root), "--adapter", "turbo", "--source", "static", "tests", "a")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "turbo.json:2:" in proc.stderr and "dependsOn" in proc.stderr and "Traceback" not in proc.stderr
    if require("turbo"):
        assert run(["turbo", "ls"], root, env=TURBO_ENV, check=False).returncode != 0
