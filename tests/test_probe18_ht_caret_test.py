"""``"dependsOn": ["^test"]``: the emitted ``turbo run test --filter=...`` runs more tests than listed.

Measured (turbo 2.11.11): with ``a <- b <- c`` and ``a <- d`` (d without a test script) and a
change in ``b``, ``turbo run test --filter=...[HEAD^] --dry=json`` has packages ``b, c`` in scope
and runs ``a#test`` too (``^test`` of b); ``d`` has no script (``<NONEXISTENT>``, nothing runs).
ctxsel listed ``b, c`` and the command ``turbo run test --filter=b --filter=c``, which turbo
expands the same way -- silently. The selection stays the affected tests (``a#test`` cannot be
broken by the change, it is a prerequisite), and one warning line now names the tests the command
runs beyond them, so the listing says what the command does.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from jsfixtures import TURBO_ENV
from oracles import require, run

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
NOTE = "the command also runs the test task of"


def workspace(root: Path, depends: list[str]) -> Path:
    """``a <- b <- c``, ``a <- d`` (no test script), ``test`` depending on ``depends``; ``b`` changed in HEAD."""
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "root", "private": True, "packageManager": "pnpm@12.4.2"}))
    (root / "pnpm-workspace.yaml").write_text("packages:\n  - 'p/*'\n")
    (root / "turbo.json").write_text(json.dumps({"tasks": {"test": {"dependsOn": depends}, "build": {}}}))
    for name, dep, script in (("a", None, True), ("b", "a", True), ("c", "b", True), ("d", "a", False)):
        (root / "p" / name).mkdir(parents=True)
        (root / "p" / name / "package.json").write_text(json.dumps({
            "name": name, "version": "1.0.0", **({"dependencies": {dep: "workspace:*"}} if dep else {}),
            **({"scripts": {"test": f"echo {name}", "build": "echo"}} if script else {})}))
    (root / ".gitignore").write_text(".turbo/\n.ctxsel/\nnode_modules/\n")
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-qm", "init"], cwd=root, check=True)
    (root / "p" / "b" / "x.ts").write_text("export {}\n")
    subprocess.run([*GIT, "add", "-A"], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-qm", "b"], cwd=root, check=True)
    return root


#: dependsOn -> the tests the command runs beyond the selected b, c (measured)
CASES = {"caret-test": (["^test"], {"a"}), "caret-build": (["^build"], set()), "none": ([], set())}


def ctxsel(cli, root: Path, source: str = "static"):
    """``ctxsel tests --since HEAD^``; in tool mode with the oracles' PATH (turbo on it)."""
    args = ["--repo", str(root), "--adapter", "turbo", "--source", source, "--no-cache",
            "tests", "--since", "HEAD^", "--format", "json"]
    proc = cli(*args) if source == "static" else run([sys.executable, "-m", "ctxsel", *args], root, check=False)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), proc.stderr


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_tests_dependson_adds_are_named(tmp_path: Path, cli, case: str) -> None:
    """Old: no line for ``^test``."""
    depends, extra = CASES[case]
    sel, err = ctxsel(cli, workspace(tmp_path / "ws", depends))
    assert sel["tests"] == ["b", "c"]  # the affected tests, prerequisites not among them
    assert sel["command"] == "turbo run test --filter=b --filter=c"
    notes = [line for line in err.splitlines() if NOTE in line]
    if extra:
        assert len(notes) == 1 and notes[0].endswith(": a") and "1 package " in notes[0], err
    else:
        assert not notes, err


@pytest.mark.oracle
@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("source", ["static", "tool"])
def test_turbo_runs_the_listed_tests_and_the_named_ones(tmp_path: Path, cli, case: str, source: str) -> None:
    require("turbo")
    depends, extra = CASES[case]
    root = workspace(tmp_path / "ws", depends)
    sel, err = ctxsel(cli, root, source)
    note = next((line for line in err.splitlines() if NOTE in line), None)
    named = set(note.rsplit(": ", 1)[1].split(", ")) if note else set()

    def ran(argv: list[str]) -> set[str]:
        out = run([*argv, "--dry=json"], root, env=TURBO_ENV).stdout
        return {t["package"] for t in json.loads(out[out.index("{"):])["tasks"]
                if t["task"] == "test" and t["command"] != "<NONEXISTENT>"}

    assert ran(sel["command"].split()) == set(sel["tests"]) | named == {"b", "c"} | extra
    assert ran(["turbo", "run", "test", "--filter=...[HEAD^]"]) == set(sel["tests"]) | named
