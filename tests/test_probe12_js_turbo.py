"""Turborepo 2: turbo.json files turbo refuses, ``extends`` between packages, and the test
command ctxsel prints, run with the real turbo (``--dry=json``: nothing executes)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from jsfixtures import TURBO_ENV, open_ws, test_dirs, turbo_test_dirs
from oracles import require, run

from ctxsel.workspace import Workspace

pytestmark = pytest.mark.oracle


def workspace(root: Path, root_tasks: dict | None = None) -> Path:
    """pnpm layout: b -> a, c -> b, z alone; every package has ``scripts.test``."""
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "root", "version": "0.0.0", "packageManager": "pnpm@12.4.2"}))
    (root / "pnpm-workspace.yaml").write_text("packages: ['p/*']\n")
    (root / "turbo.json").write_text(json.dumps({"tasks": root_tasks if root_tasks is not None else {"build": {}}}))
    for name, deps in (("a", {}), ("b", {"a": "workspace:*"}), ("c", {"b": "workspace:*"}), ("z", {})):
        (root / "p" / name).mkdir(parents=True)
        (root / "p" / name / "package.json").write_text(
            json.dumps({"name": name, "version": "1.0.0", "scripts": {"test": "echo " + name}, "dependencies": deps}))
    return root


def turbo_ran(root: Path, argv: list[str]) -> set[str]:
    """Directories whose ``test`` task the real turbo would run for ctxsel's ``argv`` (dry run)."""
    assert argv[:3] == ["turbo", "run", "test"], argv
    out = run([*argv, "--dry=json"], root, env=TURBO_ENV).stdout
    return {t["directory"].strip("/") for t in json.loads(out[out.index("{"):])["tasks"]
            if t["task"] == "test" and t["command"] != "<NONEXISTENT>"}


#: (file, text) -> turbo refuses it; the line turbo's error points at is the one with the marker key
REFUSED = {
    "root-pipeline": ("turbo.json", '{\n  "tasks": {},\n  "pipeline": {"test": {}}\n}\n', 3),
    "root-extends": ("turbo.json", '{\n  "extends": ["//"],\n  "tasks": {"test": {}}\n}\n', 2),
    "package-pipeline-and-tasks": ("p/b/turbo.json", '{\n  "extends": ["//"],\n  "tasks": {},\n  "pipeline": {"test": {}}\n}\n', 4),
    "package-no-extends": ("p/b/turbo.json", '{\n  "tasks": {"test": {}}\n}\n', 1),
    "package-empty-extends": ("p/b/turbo.json", '{"extends": [], "tasks": {}}\n', 1),
    "package-extends-string": ("p/b/turbo.json", '{\n  "extends": "//"\n}\n', 2),
    "package-extends-not-root-first": ("p/b/turbo.json", '{\n  "extends": ["a"]\n}\n', 1),
    "package-extends-package-without-turbo-json": ("p/b/turbo.json", '{\n  "extends": ["//", "a"]\n}\n', 2),
    "package-extends-no-package": ("p/b/turbo.json", '{\n  "extends": ["//", "no-such-package"]\n}\n', 2),
    "package-extends-itself": ("p/b/turbo.json", '{\n  "extends": ["//", "b"]\n}\n', 2),
    "tasks-a-list": ("turbo.json", '{\n  "tasks": []\n}\n', 2),
    "task-a-list": ("p/b/turbo.json", '{"extends": ["//"],\n  "tasks": {"test": []}}\n', 2),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_turbo_json_turbo_refuses_is_exit_2_naming_file_and_line(tmp_path: Path, cli, case: str) -> None:
    """ctxsel used to warn and answer ("read as turbo 1 tasks"); turbo 2 stops instead."""
    rel, text, line = REFUSED[case]
    root = workspace(tmp_path / "ws", {"test": {}})
    (root / rel).write_text(text)
    proc = cli("--repo", str(root), "--adapter", "turbo", "--source", "static", "tests", "a")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"{rel}:{line}:" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) <= 3, proc.stderr


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_turbo_really_refuses_those_files(tmp_path: Path, case: str) -> None:
    require("turbo")
    rel, text, line = REFUSED[case]
    root = workspace(tmp_path / "ws", {"test": {}})
    (root / rel).write_text(text)
    proc = run(["turbo", "run", "test", "--dry=json"], root, env=TURBO_ENV, check=False)
    assert proc.returncode != 0
    where = re.search(r",-\[([^\]:]+):(\d+):\d+\]", proc.stderr)
    assert where and where.group(1) == rel, proc.stderr
    assert int(where.group(2)) == line, proc.stderr  # the same line ctxsel names


EXTENDS = {
    # a package turbo.json may extend another package's (after "//"): its tasks come along
    "one": {"p/a": {"extends": ["//", "z"]}, "p/z": {"extends": ["//"], "tasks": {"test": {}}}},
    "chain": {"p/a": {"extends": ["//", "b"]}, "p/b": {"extends": ["//", "z"]}, "p/z": {"extends": ["//"], "tasks": {"test": {}}}},
    "diamond": {"p/a": {"extends": ["//", "b", "c"]}, "p/b": {"extends": ["//", "z"]}, "p/c": {"extends": ["//", "z", "//"]},
                "p/z": {"extends": ["//"], "tasks": {"test": {}}}},
    "opted-out-here": {"p/a": {"extends": ["//", "z"], "tasks": {"test": {"extends": False}}},
                       "p/z": {"extends": ["//"], "tasks": {"test": {}}}},
}


@pytest.mark.parametrize("case", sorted(EXTENDS))
def test_tasks_from_an_extended_package_turbo_json(tmp_path: Path, case: str) -> None:
    """ctxsel only knew ``//`` as a source of tasks: ``a`` extending ``z`` had no test task."""
    require("turbo")
    root = workspace(tmp_path / "ws")
    for rel, config in EXTENDS[case].items():
        (root / rel / "turbo.json").write_text(json.dumps(config))
    ws = open_ws(root, "turbo")
    for name in ("a", "b", "c", "z"):
        assert test_dirs(ws, name) == turbo_test_dirs(root, f"...{name}"), name
    if case != "opted-out-here":
        assert "a" in ws.tests(["a"]).tests


def test_the_printed_command_runs_the_selected_tests(tmp_path: Path) -> None:
    """The exact ``turbo run test --filter=...`` ctxsel prints selects the same test tasks."""
    require("turbo")
    root = workspace(tmp_path / "ws", {"test": {}})
    ws = open_ws(root, "turbo")
    for name in ("a", "b", "z"):
        sel = ws.tests([name])
        assert turbo_ran(root, sel.argv) == {ws.graph.node(t).package for t in sel.tests}, name


# ---------------------------------------------------------------------- turbo.jsonc
def test_a_root_turbo_jsonc_is_a_turbo_repo(tmp_path: Path) -> None:
    """turbo 2 reads turbo.jsonc; ctxsel did not detect turbo there (it answered as pnpm)."""
    require("turbo")
    root = workspace(tmp_path / "ws")
    (root / "turbo.json").unlink()
    (root / "turbo.jsonc").write_text('// comments allowed\n{"tasks": {"test": {}}}\n')
    (root / "p/b/turbo.jsonc").write_text('{"extends": ["//"], "tasks": {"test": {"extends": false}}}\n')
    ws = Workspace.open(root, use_cache=False, source="static")  # no --adapter: detection must find turbo
    assert ws.adapter.name == "turbo"
    for name in ("a", "b", "c"):
        assert test_dirs(ws, name) == turbo_test_dirs(root, f"...{name}"), name
    assert turbo_ran(root, ws.tests(["a"]).argv) == {"p/a", "p/c"}


@pytest.mark.parametrize("where", ["", "p/b/"])
def test_turbo_json_and_turbo_jsonc_together_are_refused(tmp_path: Path, cli, where: str) -> None:
    require("turbo")
    root = workspace(tmp_path / "ws", {"test": {}})
    body = '{"tasks": {"test": {}}}' if not where else '{"extends": ["//"]}'
    (root / f"{where}turbo.json").write_text(body)
    (root / f"{where}turbo.jsonc").write_text(body)
    assert run(["turbo", "run", "test", "--dry=json"], root, env=TURBO_ENV, check=False).returncode != 0
    proc = cli("--repo", str(root), "--adapter", "turbo", "--source", "static", "tests", "a")
    assert proc.returncode == 2 and f"{where}turbo.jsonc" in proc.stderr, proc.stderr


def test_a_changed_turbo_jsonc_changes_every_package(tmp_path: Path, cli) -> None:
    require("turbo")
    root = workspace(tmp_path / "ws")
    (root / "turbo.json").unlink()
    (root / "turbo.jsonc").write_text('{"tasks": {"test": {}}}\n')
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]
    run(["git", "init", "-q", "-b", "main"], root)
    run([*git, "add", "-A"], root)
    run([*git, "commit", "-qm", "init"], root)
    (root / "turbo.jsonc").write_text('{"tasks": {"test": {}, "build": {}}}\n')
    run([*git, "commit", "-qam", "edit"], root)
    out = run(["turbo", "ls", "--filter=[HEAD~1...HEAD]", "--output=json"], root, env=TURBO_ENV).stdout
    theirs = {p["name"] for p in json.loads(out[out.index("{"):])["packages"]["items"]}
    proc = cli("--repo", str(root), "--source", "static", "blast-radius", "--base", "HEAD~1", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert {a["id"] for a in json.loads(proc.stdout)["affected"]} == theirs == {"a", "b", "c", "z"}
