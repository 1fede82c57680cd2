"""Turborepo 2 and the root task ``//#test`` for a change: what ``turbo run test --filter=...[A...B]`` runs.

turbo maps every changed file outside the packages to the root package ``//`` (a root
README, the root package.json, the lockfile, turbo.json, a ``globalDependencies`` file,
the files of a deleted package). ``turbo ls`` never lists ``//`` and a filter follows
none of its dependents, but ``turbo run test`` runs ``//#test`` when the root has a
``test`` script and turbo.json defines ``//#test`` (a plain ``test`` task does not apply
to the root). Each scenario commits one edit and compares the tasks turbo's dry run
lists with ``ctxsel tests --base HEAD~1`` (and pre-commit, MCP); ctxsel used to leave
``//`` out of every change-based test selection.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Callable

import pytest
from jsfixtures import TURBO_ENV, open_ws
from oracles import require, run
from test_probe12_js_turbo_lockfile import PACKAGES, PNPM_LOCK, bump_left_pad, git, initial_commit, replace

from ctxsel.adapters.js.turbo import ROOT_ID
from ctxsel.mcp_server import CtxselTools, GraphQuestion

pytestmark = pytest.mark.oracle

#: turbo.json task sets: the root's task with the packages', a package task only, the root's only
TASKS = {
    "root-and-packages": {"//#test": {}, "test": {}},
    "packages-only": {"test": {}},
    "root-only": {"//#test": {}},
}


def workspace(root: Path, tasks: dict, root_deps: dict[str, str] | None = None) -> Path:
    root.mkdir(parents=True)
    manifest = {"name": "root", "private": True, "packageManager": "pnpm@12.4.2", "scripts": {"test": "echo root-test-ran"},
                **({"dependencies": root_deps} if root_deps else {})}
    (root / "package.json").write_text(json.dumps(manifest))
    (root / "pnpm-workspace.yaml").write_text("packages: ['p/*']\n")
    (root / "turbo.json").write_text(json.dumps({"globalDependencies": ["g.env"], "tasks": tasks}))
    (root / "pnpm-lock.yaml").write_text(PNPM_LOCK)
    (root / "README.md").write_text("hi\n")
    (root / "g.env").write_text("x\n")
    for name, fields in PACKAGES.items():
        (root / "p" / name).mkdir(parents=True)
        manifest = {"name": name, "version": "1.0.0", "scripts": {"test": "echo " + name}, **fields}
        (root / "p" / name / "package.json").write_text(json.dumps(manifest))
    return initial_commit(root)


def _write(rel: str, text: str) -> Callable[[Path], None]:
    def edit(root: Path) -> None:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return edit


def _root_manifest(root: Path) -> None:
    manifest = json.loads((root / "package.json").read_text())
    (root / "package.json").write_text(json.dumps({**manifest, "description": "edited"}))


def _turbo_json(root: Path) -> None:
    config = json.loads((root / "turbo.json").read_text())
    (root / "turbo.json").write_text(json.dumps({**config, "tasks": {**config["tasks"], "build": {}}}))


#: name -> the committed edit (each measured with turbo 2.11.11; ``//#test`` ran for all but the package edits)
EDITS: dict[str, Callable[[Path], None]] = {
    "lockfile-direct-bump": bump_left_pad,
    "lockfile-transitive-bump": replace("is-number@6.0.0", "is-number@6.0.1"),
    "lockfile-whitespace": replace("importers:\n", "importers:\n\n\n"),
    "lockfile-deleted": lambda root: (root / "pnpm-lock.yaml").unlink(),
    "root-readme": _write("README.md", "edited\n"),
    "root-readme-deleted": lambda root: (root / "README.md").unlink(),
    "file-in-a-non-package-dir": _write("docs/guide.md", "new\n"),
    "root-package-json": _root_manifest,
    "global-dependency": _write("g.env", "y\n"),
    "turbo-json": _turbo_json,
    "package-deleted": lambda root: shutil.rmtree(root / "p/g"),
    "root-file-moved-into-a-package": lambda root: (root / "README.md").rename(root / "p/g/README.md"),
    "package-file": _write("p/b/x.js", "1\n"),
}


def commit_edit(root: Path, edit: Callable[[Path], None]) -> None:
    edit(root)
    git(root, "-c", "user.email=t@t", "-c", "user.name=t", "add", "-A")
    git(root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "edit")


def turbo_tasks(root: Path, *filters: str) -> set[str]:
    """The package dirs ("" for ``//``) whose ``test`` task ``turbo run test --dry=json`` would run."""
    out = run(["turbo", "run", "test", *(f"--filter={f}" for f in filters), "--dry=json"], root, env=TURBO_ENV).stdout
    return {t["directory"].strip("/") for t in json.loads(out[out.index("{"):])["tasks"]
            if t["task"] == "test" and t["command"] != "<NONEXISTENT>"}


def dirs(root: Path, ids: list[str]) -> set[str]:
    ws = open_ws(root, "turbo")
    return {ws.graph.node(i).package for i in ids}


def ctxsel_tests(cli, root: Path, *args: str) -> dict:
    proc = cli("--repo", str(root), "--adapter", "turbo", "--source", "static", "tests", *args, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize("tasks", sorted(TASKS))
@pytest.mark.parametrize("case", sorted(EDITS))
def test_change_tests_match_turbo_run(tmp_path: Path, cli, case: str, tasks: str) -> None:
    require("turbo")
    root = workspace(tmp_path / "ws", TASKS[tasks])
    commit_edit(root, EDITS[case])
    theirs = turbo_tasks(root, "...[HEAD~1...HEAD]")
    if TASKS[tasks].get("//#test") is not None and case != "package-file":
        assert "" in theirs  # the measured answer still holds: a change outside the packages runs //#test
    out = ctxsel_tests(cli, root, "--base", "HEAD~1")
    assert dirs(root, out["tests"]) == theirs
    if out["tests"]:
        assert turbo_tasks(root, *(a.split("=", 1)[1] for a in out["command"].split()[3:])) == theirs


def test_a_package_the_root_depends_on(tmp_path: Path, cli) -> None:
    """The root depends on ``a``: a change in a runs ``//#test`` and, through ``//``, every
    package's (turbo: every package without workspace dependencies depends on ``//``)."""
    require("turbo")
    root = workspace(tmp_path / "ws", TASKS["root-and-packages"], {"a": "workspace:*"})
    commit_edit(root, _write("p/a/x.js", "1\n"))
    commit_edit(root, _write("README.md", "edited\n"))
    for base in ("HEAD~1", "HEAD~2"):
        theirs = turbo_tasks(root, f"...[{base}...HEAD]")
        assert dirs(root, ctxsel_tests(cli, root, "--base", base)["tests"]) == theirs
    assert turbo_tasks(root, "...//") == {""} == dirs(root, ctxsel_tests(cli, root, ROOT_ID)["tests"])


def test_the_root_as_a_target(tmp_path: Path, cli) -> None:
    """``turbo run test --filter=...//`` runs ``//#test`` (and no dependent of ``//``)."""
    require("turbo")
    root = workspace(tmp_path / "ws", TASKS["root-and-packages"])
    out = ctxsel_tests(cli, root, ROOT_ID)
    assert out["tests"] == [ROOT_ID] and out["command"] == "turbo run test --filter=//"
    assert turbo_tasks(root, "...//") == {""}


def test_the_command_really_runs_the_root_task(tmp_path: Path, cli) -> None:
    """``--filter=//`` is how turbo names the root package: the emitted command runs ``//#test``."""
    require("turbo")
    root = workspace(tmp_path / "ws", TASKS["root-and-packages"])
    commit_edit(root, _write("README.md", "edited\n"))
    argv = ctxsel_tests(cli, root, "--base", "HEAD~1")["command"].split()
    assert argv == ["turbo", "run", "test", "--filter=//"]
    # ...while the blast radius stays what ``turbo ls --filter=...[ref]`` lists: nothing
    proc = cli("--repo", str(root), "--adapter", "turbo", "--source", "static", "blast-radius", "--base", "HEAD~1", "--format", "json")
    radius = json.loads(proc.stdout)
    assert radius["affected"] == [] and radius["roots"] == [] and radius["changes"]["changed_nodes"] == {}
    listed = run(["turbo", "ls", "--filter=...[HEAD~1...HEAD]", "--output=json"], root, env=TURBO_ENV).stdout
    assert json.loads(listed[listed.index("{"):])["packages"]["items"] == []
    # pnpm 12 would first check the (offline, never installed) dependencies
    proc = run(argv, root, env={**TURBO_ENV, "pnpm_config_verify_deps_before_run": "false"})
    assert "root-test-ran" in proc.stdout and "//:test" in proc.stdout, proc.stdout[-2000:]


def test_staged_pre_commit_and_mcp_select_the_root_task(tmp_path: Path, cli) -> None:
    """``ctxsel pre-commit`` (the index) and the MCP ``affected_tests`` go the same way."""
    require("turbo")
    root = workspace(tmp_path / "ws", TASKS["root-and-packages"])
    bump_left_pad(root)
    git(root, "add", "pnpm-lock.yaml")
    (root / "README.md").write_text("unstaged\n")  # not in the index: no part of the answer
    proc = cli("--repo", str(root), "--adapter", "turbo", "--source", "static", "pre-commit", "--format", "json", "--explain")
    assert proc.returncode == 0, proc.stderr
    staged = json.loads(proc.stdout)
    git(root, "checkout", "-q", "README.md")
    commit_edit(root, lambda r: None)  # the staged lockfile becomes HEAD: what turbo compares
    theirs = turbo_tasks(root, "...[HEAD~1...HEAD]")
    assert dirs(root, staged["tests"]) == theirs == {"", "p/a", "p/b", "p/d", "p/f"}
    assert {"id": ROOT_ID, "path": [ROOT_ID], "because": ["pnpm-lock.yaml"]} in staged["explain"]
    answer = CtxselTools(root, adapter="turbo", source="static").affected_tests(GraphQuestion(base="HEAD~1"))
    assert dirs(root, answer.document["tests"]) == theirs


def test_depth_zero_keeps_the_root_task(tmp_path: Path, cli) -> None:
    """The root package is changed itself (distance 0): ``--depth 0`` keeps its test."""
    root = workspace(tmp_path / "ws", TASKS["root-and-packages"])
    commit_edit(root, bump_left_pad)
    out = ctxsel_tests(cli, root, "--base", "HEAD~1", "--depth", "0")
    assert out["tests"] == [ROOT_ID, "a", "d", "f"]
    assert ctxsel_tests(cli, root, "--base", "HEAD~1", "--depth", "0", "--explain")["tests"] == out["tests"]


def test_a_root_only_change_says_what_it_changes(tmp_path: Path, cli) -> None:
    """A README edit changes no package but does select ``//#test``: the note on stderr says so
    instead of claiming that nothing owns the change."""
    root = workspace(tmp_path / "ws", TASKS["root-and-packages"])
    commit_edit(root, _write("README.md", "edited\n"))
    proc = cli("--repo", str(root), "--adapter", "turbo", "--source", "static", "tests", "--base", "HEAD~1", "--format", "command")
    assert proc.returncode == 0 and proc.stdout.strip() == "turbo run test --filter=//"
    assert "outside every package: they change only //" in proc.stderr and "none owned" not in proc.stderr
