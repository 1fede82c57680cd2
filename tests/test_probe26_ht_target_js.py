"""``ctxsel tests --target NAME`` on pnpm, npm and Turborepo: a script/task other than ``test``.

Teams name what they run per package otherwise (``unit-test``, ``lint``, ``test:unit``); with
only ``test`` known, ``ctxsel tests`` answered "no tests" for them. Measured (pnpm 12.4.2,
npm 11.19.1, turbo 2.11.11) and asserted here against the real tools on one small workspace
(``a <- b <- c``, ``d`` alone; ``unit-test`` in a, c and d, ``lint`` in a, b and the root):

- pnpm runs a script only in the selected packages that have it (``pnpm --filter a --filter b
  unit-test``, b without it: a's alone, exit 0); ``pnpm --filter ...a run unit-test`` is the
  tool's own answer for "a and its dependents". A second script name is an argument of the
  first (``pnpm --filter a unit-test lint`` runs ``unit-test lint``), so two targets are two
  commands.
- npm fails on a selected workspace without the script ("Missing script", exit 1): the command
  names only those having it, and must run (exit 0).
- turbo runs ``turbo run unit-test lint --filter=...`` (several tasks in one command); a package
  needs the script *and* a task definition (root ``tasks``, ``extends`` of a package turbo.json,
  ``{"extends": false}`` opting out); a task no turbo.json defines fails the whole run ("Could
  not find task"), which ctxsel warns about and leaves out.

Static and tool mode agree, and a graph cached by a default (``test``) run answers any target
as a cold run does.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from jsfixtures import PNPM_ENV, TURBO_ENV, open_ws
from oracles import YARN_ENV, oracle_env, require, run, yarn_js, yarn_run

from ctxsel.workspace import Workspace

#: package dir -> (name, dependencies, scripts); each script prints MARK:<package>:<script>
PACKAGES = {
    "p/a": ("a", {}, ("unit-test", "lint")),
    "p/b": ("b", {"a": "workspace:*"}, ("lint",)),
    "p/c": ("c", {"b": "workspace:*"}, ("unit-test", "lint")),
    "p/d": ("d", {}, ("unit-test",)),
}
MARK = re.compile(r"MARK:([\w-]+):([\w:-]+)")


@pytest.fixture(autouse=True)
def oracle_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tool mode finds the oracle tools in-process too."""
    monkeypatch.setenv("PATH", oracle_env()["PATH"])


def scripts(name: str, names: tuple[str, ...]) -> dict[str, str]:
    return {s: f"echo MARK:{name}:{s}" for s in names}


def workspace(root: Path, manager: str = "pnpm") -> Path:
    """The workspace for ``manager`` (pnpm: ``workspace:*`` specs; npm: ``*``), with turbo.json:
    ``unit-test`` dependsOn ``^build``, ``lint`` defined at the root, c opting out of it."""
    root.mkdir(parents=True)
    manifest = {"name": "root", "version": "0.0.0", "private": True, "scripts": scripts("root", ("lint",)),
                "packageManager": "pnpm@12.4.2" if manager == "pnpm" else "npm@11.19.1"}
    if manager == "npm":
        manifest["workspaces"] = ["p/*"]
    else:
        (root / "pnpm-workspace.yaml").write_text("packages: ['p/*']\n")
    (root / "package.json").write_text(json.dumps(manifest))
    (root / "turbo.json").write_text(json.dumps({"tasks": {
        "build": {}, "unit-test": {"dependsOn": ["^build"]}, "lint": {}, "//#lint": {}}}))
    for rel, (name, deps, names) in PACKAGES.items():
        (root / rel).mkdir(parents=True)
        specs = {k: v if manager == "pnpm" else "*" for k, v in deps.items()}
        (root / rel / "package.json").write_text(json.dumps(
            {"name": name, "version": "1.0.0", "dependencies": specs, "scripts": scripts(name, names)}))
    (root / "p/c/turbo.json").write_text(json.dumps({"extends": ["//"], "tasks": {"lint": {"extends": False}}}))
    return root


def marks(output: str) -> set[tuple[str, str]]:
    return set(MARK.findall(output))


def run_command(root: Path, argv: list[str]) -> set[tuple[str, str]]:
    """Run ctxsel's command in the workspace; it must succeed. The (package, script) pairs it ran."""
    assert argv, "no command"
    proc = run(argv, root, env=PNPM_ENV)
    return marks(proc.stdout + proc.stderr)


def ctxsel(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ctxsel", "--repo", str(root), *args], capture_output=True, text=True,
                          env=oracle_env(), timeout=120)


# ------------------------------------------------------------------ pnpm
def test_pnpm_target_runs_what_pnpm_runs_for_a_and_its_dependents(tmp_path: Path) -> None:
    require("pnpm")
    root = workspace(tmp_path / "ws")
    # the tool's own answer: pnpm's dependents filter, each script in turn
    want = set()
    for script in ("unit-test", "lint"):
        want |= marks(run(["pnpm", "--filter", "...a", "run", script], root, env=PNPM_ENV, check=False).stdout)
    assert want == {("a", "unit-test"), ("c", "unit-test"), ("a", "lint"), ("b", "lint"), ("c", "lint")}
    static, tool = open_ws(root, "pnpm", "static"), open_ws(root, "pnpm", "tool")
    one_static, one_tool = (ws.tests(["a"], target="unit-test") for ws in (static, tool))
    assert one_static == one_tool and one_static.tests == ["a", "c"] and one_static.targets == ["unit-test"]
    assert run_command(root, one_static.argv) == {m for m in want if m[1] == "unit-test"}
    both_static, both_tool = (ws.tests(["a"], target=("unit-test", "lint")) for ws in (static, tool))
    assert both_static == both_tool and both_static.tests == ["a", "b", "c"]
    assert run_command(root, both_static.argv) == want


# ------------------------------------------------------------------ npm
def test_npm_target_command_names_only_workspaces_having_the_script(tmp_path: Path) -> None:
    require("npm")
    root = workspace(tmp_path / "ws", "npm")
    # npm refuses a selected workspace without the script: the reason the command must leave b out
    refused = run(["npm", "run", "unit-test", "--workspace=a", "--workspace=b"], root, check=False)
    assert refused.returncode != 0 and 'Missing script: "unit-test"' in refused.stderr
    # tool mode reads npm query, which needs the workspace installed (only workspace links: offline)
    run(["npm", "install", "--offline", "--ignore-scripts", "--no-audit", "--no-fund"], root)
    static, tool = open_ws(root, "npm", "static"), open_ws(root, "npm", "tool")
    one_static, one_tool = (ws.tests(["a"], target="unit-test") for ws in (static, tool))
    assert one_static == one_tool and one_static.tests == ["a", "c"]
    both_static, both_tool = (ws.tests(["a"], target=("unit-test", "lint")) for ws in (static, tool))
    assert both_static == both_tool
    # one command per script, each naming only the workspaces having it: it runs, and runs these
    assert run_command(root, both_static.argv) == {("a", "unit-test"), ("c", "unit-test"), ("a", "lint"),
                                                   ("b", "lint"), ("c", "lint")}


# ------------------------------------------------------------------ yarn
@pytest.mark.parametrize("berry", [True, False], ids=["yarn4", "yarn1"])
def test_yarn_target_command_runs_the_scripts(tmp_path: Path, berry: bool) -> None:
    """yarn 4: ``yarn workspaces foreach --all --include a --include c run unit-test`` (a workspace
    without the script is skipped there, measured); yarn 1: ``yarn workspace a run unit-test``
    per package (which fails without the script: "Command not found"). Both run the selection."""
    js = yarn_js(berry)
    root = workspace(tmp_path / "ws", "npm")
    manifest = json.loads((root / "package.json").read_text())
    manifest["packageManager"] = "yarn@4.5.0" if berry else "yarn@1.22.22"
    (root / "package.json").write_text(json.dumps(manifest))
    (root / "turbo.json").unlink()
    (root / "yarn.lock").write_text("")
    shim = tmp_path / "bin" / "yarn"  # the commands say ``yarn``: the oracle's
    shim.parent.mkdir()
    shim.write_text(f"#!/bin/sh\nexec node {shlex.quote(js)} \"$@\"\n")
    shim.chmod(0o755)
    if berry:
        yarn_run(True, root, "install")
    # yarn 1 starts once per package: one target of one package keeps it quick
    targets = ("unit-test", "lint") if berry else ("unit-test",)
    sel = open_ws(root, "yarn").tests(["a" if berry else "c"], target=targets)
    assert sel.argv == (["sh", "-c", "yarn workspaces foreach --all --include a --include c run unit-test && "
                         "yarn workspaces foreach --all --include a --include b --include c run lint"] if berry
                        else ["yarn", "workspace", "c", "run", "unit-test"])
    proc = run(sel.argv, root, env={**YARN_ENV, "PATH": f"{shim.parent}:{oracle_env()['PATH']}"})
    want = {("a", "unit-test"), ("c", "unit-test"), ("a", "lint"), ("b", "lint"), ("c", "lint")}
    assert marks(proc.stdout) == ({m for m in want if m[1] in targets} if berry else {("c", "unit-test")})


# ------------------------------------------------------------------ turbo
def turbo_runs(root: Path, tasks: list[str], selector: str) -> set[tuple[str, str]]:
    """(package dir, task) of every task turbo really runs (not ``<NONEXISTENT>``) for the filter."""
    out = run(["turbo", "run", *tasks, f"--filter={selector}", "--dry=json"], root, env=TURBO_ENV).stdout
    return {(t["directory"].strip("/"), t["task"]) for t in json.loads(out)["tasks"] if t["command"] != "<NONEXISTENT>"}


def test_turbo_target_selects_what_turbo_runs(tmp_path: Path) -> None:
    require("turbo")
    root = workspace(tmp_path / "ws")
    unit = turbo_runs(root, ["unit-test"], "...a")
    lint = turbo_runs(root, ["lint"], "...a")
    # c's turbo.json opts out of lint, its script notwithstanding; unit-test pulls a's build (no script)
    assert unit == {("p/a", "unit-test"), ("p/c", "unit-test")} and lint == {("p/a", "lint"), ("p/b", "lint")}
    missing = run(["turbo", "run", "nope", "lint", "--filter=a"], root, env=TURBO_ENV, check=False)
    assert missing.returncode != 0 and "Could not find task `nope`" in missing.stdout + missing.stderr
    static, tool = open_ws(root, "turbo", "static"), open_ws(root, "turbo", "tool")
    for targets, want in ((("unit-test",), unit), (("unit-test", "lint"), unit | lint)):
        sel, sel_tool = (ws.tests(["a"], target=targets) for ws in (static, tool))
        assert sel == sel_tool
        assert {static.graph.node(t).package for t in sel.tests} == {d for d, _ in want}, targets
        assert sel.argv[:2 + len(targets)] == ["turbo", "run", *targets]
        # the command runs exactly the selected tasks
        out = run([*sel.argv, "--dry=json"], root, env=TURBO_ENV).stdout
        assert {(t["directory"].strip("/"), t["task"]) for t in json.loads(out)["tasks"]
                if t["command"] != "<NONEXISTENT>"} == want
    nope = static.tests(["a"], target="nope,lint")
    assert nope.argv[:3] == ["turbo", "run", "lint"] and "nope" not in nope.argv
    assert any('defines no "nope" task' in w for w in nope.warnings)


def test_turbo_root_task_of_a_target(tmp_path: Path) -> None:
    """``//#lint`` runs for ``--filter=//`` as ``//#test`` does (the root's script and task)."""
    require("turbo")
    root = workspace(tmp_path / "ws")
    want = turbo_runs(root, ["lint"], "//")
    assert want == {("", "lint")}
    for source in ("static", "tool"):
        ws = open_ws(root, "turbo", source)
        assert ws.tests(["//"], target="lint").tests == ["//"]
        assert ws.tests(["//"], target="unit-test").tests == []


# ------------------------------------------------------------------ cache, CLI
@pytest.mark.parametrize("adapter", ["pnpm", "turbo"])
def test_warm_cache_answers_any_target_as_a_cold_run(tmp_path: Path, adapter: str) -> None:
    root = workspace(tmp_path / "ws")
    Workspace.open(root, adapter=adapter, source="static").tests(["a"])  # a default run fills the cache
    for target in ("lint", "unit-test,lint"):
        warm = Workspace.open(root, adapter=adapter, source="static").tests(["a"], target=target)
        cold = Workspace.open(root, adapter=adapter, source="static", use_cache=False).tests(["a"], target=target)
        assert warm == cold and warm.targets == target.split(",") and warm.tests


def test_cli_target_option_and_unknown_target(tmp_path: Path) -> None:
    root = workspace(tmp_path / "ws")
    repeated = ctxsel(root, "--adapter", "pnpm", "--source", "static", "tests", "a", "-t", "unit-test", "--target", "lint",
                      "--format", "json")
    joined = ctxsel(root, "--adapter", "pnpm", "--source", "static", "tests", "a", "-t", "unit-test,lint", "--format", "json")
    assert repeated.returncode == joined.returncode == 0 and json.loads(repeated.stdout) == json.loads(joined.stdout)
    assert json.loads(joined.stdout)["tests"] == ["a", "b", "c"]
    command = ctxsel(root, "--adapter", "pnpm", "--source", "static", "tests", "a", "-t", "unit-test,lint", "--format",
                     "command").stdout.strip()
    assert shlex.split(command) == ["sh", "-c", "pnpm --filter a --filter c run unit-test && "
                                    "pnpm --filter a --filter b --filter c run lint"]
    # no package has it: a warning naming it, an empty answer, the "no tests" exit code (0)
    nope = ctxsel(root, "--adapter", "pnpm", "--source", "static", "tests", "a", "-t", "typecheck")
    assert nope.returncode == 0 and "'typecheck'" in nope.stderr and "no typecheck targets depend" in nope.stdout
    bad = ctxsel(root, "--adapter", "pnpm", "--source", "static", "tests", "a", "-t", "lint,")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and 1 <= len(bad.stderr.strip().splitlines()) <= 3
