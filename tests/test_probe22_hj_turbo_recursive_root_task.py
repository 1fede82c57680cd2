"""Turborepo 2: a root task whose script looks like it calls turbo stops the whole ``turbo run``.

hey-api/openapi-ts (03f9c5402) has a root ``"test": "turbo run build && vitest"`` and a
``//#test`` task: every ``turbo run test`` whose task graph holds ``//#test`` fails before
running anything ("recursive_turbo_invocations", exit 1; turbo 2.11.11), so the command
ctxsel printed for a change to any package the root depends on (``turbo run test --filter=//``)
could never run, and nothing said so. The same holds for a root task reached through
``dependsOn`` (``"test": {"dependsOn": ["//#build"]}`` with ``"build": "turbo run build"``) and
in single-package mode; the root listed a second time as an ordinary package (a ``.`` glob)
is exempt (turbo checks the package ``//`` only).

ctxsel now keeps the command and warns, as for the other task graphs turbo refuses. Which
scripts turbo takes for a call of turbo was measured script by script (``SCRIPTS``, each run as
the root's ``test`` under ``turbo run test --filter=// --dry=json`` with turbo 2.11.11); the
oracle test re-measures them when turbo is installed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsfixtures import TURBO_ENV, open_ws, write_pkg
from oracles import require, run

from ctxsel.adapters.js.turbo import script_invokes_turbo

#: script -> whether turbo 2.11.11 refuses it as the root's ``test`` (measured)
SCRIPTS: dict[str, bool] = {
    "turbo run build && vitest": True, "turbo": True, "npx turbo run x": True, "pnpm turbo build": True,
    "pnpm exec turbo": True, "./node_modules/.bin/turbo run x": True, "/usr/bin/turbo": True,
    "turbo.cmd": True, "turbo.exe": True, "echo x;turbo run": True, "echo x&&turbo run": True,
    "turbo&&x": True, "turbo;x": True, "echo x | turbo run": True, "TURBO=1 turbo run x": True,
    "cross-env A=1 turbo run build": True, "dotenv -- turbo run build": True, "sh -c 'turbo run'": True,
    "(turbo run)": True, "node turbo": True, "x turbo": True, "x 'turbo'": True, 'x "turbo"': True,
    "x turbo@2": True, "x @turbo": True, "x @scope/turbo": True, "x a/turbo": True, "x --y=turbo": True,
    "vitest x=turbo": True, "FOO=turbo x": True, "x FOO=turbo": True, "x # turbo": True,
    "echo $(turbo)": True, "echo `turbo`": True, 'x "echo turbo"': True, "x echo turbo": True,
    "echo turbo && turbo": True, "echo;turbo": True, "echo turbo>x": True, "echo turbo<x": True,
    "echo turbo 2>/dev/null": True, "x turbo\\ run": True, 'x "turbo': True, "x turbo~": True,
    "x turbo+": True, "x +turbo": True, "x turbo$": True, "x $turbo": True, "x turbo!": True,
    "x turbo,y": True, "x:turbo": True, "x {turbo}": True, "x turbo*": True, "x turbo@": True,
    "echo turbo": False, "echo turbo run": False, "echo -n turbo": False, 'echo "turbo"': False,
    "printf turbo": False, "printf '%s' turbo": False, "echo turbo | x": False, "echo x; echo turbo": False,
    "echo a && echo turbo": False, "FOO=1 echo turbo": False, "x=turbo": False, "turbo-foo": False,
    "x turbo-foo": False, "vitest --turbo": False, "x turbopack": False, "TURBO=1 vitest": False,
    "x TURBO": False, "x Turbo": False, "x turbo.EXE": False, "x turbo.sh": False, "turbo.js": False,
    "x turbo.json": False, "x turbo.": False, "x turbo/": False, "x turbo/x": False, "x _turbo": False,
    "x turbo_": False, "x 1turbo": False, "x 'turbo'x": False, "x turbo.cmdx": False,
    "x turbo.exe.y": False, "rm -rf .turbo": False, "rm -rf node_modules/.turbo": False,
}


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_scripts_turbo_takes_for_a_call_of_turbo(script: str) -> None:
    assert script_invokes_turbo(script) is SCRIPTS[script]


def workspace(root: Path, root_scripts: dict[str, str], turbo: dict, globs: str = "'p/*'") -> Path:
    """pnpm ``p/*``: b -> a; the root depends on a, so every package is a dependent of a."""
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({
        "name": "root", "private": True, "packageManager": "pnpm@9.0.0", "scripts": root_scripts,
        "devDependencies": {"a": "workspace:*"}}))
    (root / "pnpm-workspace.yaml").write_text(f"packages: [{globs}]\n")
    (root / "turbo.json").write_text(json.dumps(turbo))
    write_pkg(root, "p/a", "a", scripts={"test": "echo a"})
    write_pkg(root, "p/b", "b", scripts={"test": "echo b"}, dependencies={"a": "workspace:*"})
    return root


#: case -> (root scripts, turbo.json, tests NAME, whether turbo refuses the command ctxsel prints)
CASES: dict[str, tuple[dict[str, str], dict, str, bool]] = {
    "root-test-calls-turbo": ({"test": "turbo run build && vitest"}, {"tasks": {"test": {}, "//#test": {}}}, "a", True),
    "root-test-plain": ({"test": "vitest"}, {"tasks": {"test": {}, "//#test": {}}}, "a", False),
    "root-build-reached-by-depends-on": (
        {"build": "turbo run build", "test": "vitest"}, {"tasks": {"test": {"dependsOn": ["//#build"]}, "//#build": {}}},
        "b", True),
    "root-build-not-reached": ({"build": "turbo run build"}, {"tasks": {"test": {}, "//#build": {}}}, "b", False),
}


def printed_command(root: Path, name: str) -> tuple[list[str], list[str]]:
    sel = open_ws(root, "turbo").tests([name])
    return sel.argv, sel.warnings


@pytest.mark.parametrize("case", sorted(CASES))
def test_tests_warns_when_turbo_refuses_the_command(tmp_path: Path, case: str) -> None:
    scripts, turbo, name, refused = CASES[case]
    argv, warnings = printed_command(workspace(tmp_path / "ws", scripts, turbo), name)
    assert argv[:3] == ["turbo", "run", "test"]
    said = [w for w in warnings if "recursive_turbo_invocations" in w]
    assert bool(said) is refused, warnings
    if refused:
        assert said[0].startswith("turbo refuses to run this command") and "root package.json" in said[0]


def test_the_root_listed_as_a_package_is_exempt(tmp_path: Path) -> None:
    """A ``.`` glob lists the root a second time as package ``root``: turbo runs ``root#test`` (measured)."""
    root = workspace(tmp_path / "ws", {"test": "turbo run lint"}, {"tasks": {"test": {}}}, globs="'p/*', '.'")
    argv, warnings = printed_command(root, "root")
    assert argv == ["turbo", "run", "test", "--filter=root"]
    assert not [w for w in warnings if "recursive_turbo" in w], warnings


@pytest.mark.oracle
def test_turbo_refuses_the_same_scripts(tmp_path: Path) -> None:
    require("turbo")
    root = workspace(tmp_path / "ws", {}, {"tasks": {"test": {}, "//#test": {}}})
    seen: dict[str, bool] = {}
    for script in SCRIPTS:
        manifest = json.loads((root / "package.json").read_text())
        (root / "package.json").write_text(json.dumps({**manifest, "scripts": {"test": script}}))
        proc = run(["turbo", "run", "test", "--filter=//", "--dry=json"], root, env=TURBO_ENV, check=False)
        seen[script] = proc.returncode != 0 and "recursive_turbo_invocations" in proc.stderr
    assert seen == SCRIPTS


@pytest.mark.oracle
@pytest.mark.parametrize("case", sorted(CASES))
def test_turbo_refuses_the_same_commands(tmp_path: Path, case: str) -> None:
    require("turbo")
    scripts, turbo, name, refused = CASES[case]
    root = workspace(tmp_path / "ws", scripts, turbo)
    argv, _ = printed_command(root, name)
    proc = run([*argv, "--dry=json"], root, env=TURBO_ENV, check=False)
    assert (proc.returncode != 0 and "recursive_turbo_invocations" in proc.stderr) is refused, proc.stderr[-600:]
