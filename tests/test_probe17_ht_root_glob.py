"""Turborepo 2: a workspace glob that matches the repository root (``**``, ``.``) lists the root
package a second time, as an ordinary package (turbo 2.11.11, measured):

- ``turbo ls`` lists it under the root's name at path ``""`` (besides the hidden ``//``);
  ``turbo query`` has both ``//`` and it, each depending on what the root package.json lists;
- it runs the ``test`` task like any package (``root#test``, command = the root's test
  script), ``//#test`` stays ``//``'s; ``--filter=root`` selects it alone, while ``.``,
  ``./`` and ``{.}`` select nothing;
- it is a dependent of the root's dependencies (``--filter=...a``), but nothing depends on it:
  ``"root": "workspace:*"`` links nothing, and ``workspace:../..`` is ``//``'s;
- a changed root file (README, the root package.json) is ``//``'s only: ``--filter=[ref]``
  and ``--affected`` never select it for that.

ctxsel had one node per directory and never listed it: ``blast-radius a`` and ``tests a`` left
the root package's tests out. An unnamed root is not listed (turbo ignores unnamed packages);
a root sharing another package's name is refused ("Failed to add workspace").
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from ctxsel.adapters.js.turbo import ROOT_ID, filter_value
from jsfixtures import TURBO_ENV, dirs_of, open_ws, radius_dirs, turbo_filter
from oracles import oracle_env, require, run
from test_probe12_js_turbo import turbo_ran

GIT = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]
LISTED = ["**", ".", "./", "./**"]  # globs that match the root directory (measured)
NOT_LISTED = ["*", "**/*"]


def workspace(root: Path, glob: str, root_fields: dict | None = None, tasks: dict | None = None) -> Path:
    """pnpm layout: the root (named ``root``, a test script, depending on ``a``), ``a``, ``b -> a``, ``c``;
    committed, so a later commit is a change."""
    root.mkdir(parents=True)
    manifest = {"name": "root", "version": "1.0.0", "private": True, "packageManager": "pnpm@12.4.2",
                "scripts": {"test": "echo root"}, "devDependencies": {"a": "workspace:*"}, **(root_fields or {})}
    (root / "package.json").write_text(json.dumps(manifest))
    (root / "pnpm-workspace.yaml").write_text(f"packages: [{json.dumps(glob)}, 'p/*']\n")
    (root / "turbo.json").write_text(json.dumps({"tasks": tasks if tasks is not None else {"test": {}}}))
    for name, deps in {"a": {}, "b": {"a": "workspace:*"}, "c": {}}.items():
        (root / "p" / name).mkdir(parents=True)
        (root / "p" / name / "package.json").write_text(json.dumps(
            {"name": name, "version": "1.0.0", "scripts": {"test": "echo " + name}, "dependencies": deps}))
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / ".git" / "info" / "exclude").write_text(".turbo/\n.ctxsel/\n")
    commit(root)
    return root


def commit(root: Path) -> None:
    subprocess.run([*GIT, "add", "-A"], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-qm", "c"], cwd=root, check=True)


def listed_root(ws) -> list[str]:
    """Ids of the root package as an ordinary package (at ``""``, not ``//``)."""
    return [n.id for n in ws.graph.nodes() if n.package == "" and n.id != ROOT_ID]


@pytest.mark.parametrize("glob", LISTED)
def test_a_glob_matching_the_root_lists_it_as_a_package(tmp_path: Path, glob: str) -> None:
    """Old: the root was ``//`` only; ``...a`` left it out and ``tests a`` its test."""
    ws = open_ws(workspace(tmp_path / "ws", glob), "turbo")
    assert listed_root(ws) == ["root"]
    assert radius_dirs(ws, "a") == {"", "p/a", "p/b", "p/c"}
    selection = ws.tests(roots=["a"])
    assert "root" in selection.tests and "--filter=root" in selection.argv
    assert ROOT_ID not in selection.tests  # no ``//#test`` in turbo.json
    # nothing depends on it; its dependencies are the root's
    assert radius_dirs(ws, "root") == {""}
    assert ws.graph.dependencies("root") == ["a"]


@pytest.mark.parametrize("glob", NOT_LISTED)
def test_other_globs_do_not(tmp_path: Path, glob: str) -> None:
    ws = open_ws(workspace(tmp_path / "ws", glob), "turbo")
    assert listed_root(ws) == []
    assert "root" not in ws.tests(roots=["a"]).tests


def test_its_test_is_the_test_task_and_slash_slash_keeps_its_own(tmp_path: Path) -> None:
    """``//#test`` is ``//``'s; ``root#test`` (or ``test``) the listed root's."""
    only_root_task = open_ws(workspace(tmp_path / "a", "**", tasks={"//#test": {}}), "turbo")
    assert only_root_task.graph.node(ROOT_ID).is_test and not only_root_task.graph.node("root").is_test
    named = open_ws(workspace(tmp_path / "b", "**", tasks={"root#test": {}}), "turbo")
    assert named.graph.node("root").is_test and not named.graph.node(ROOT_ID).is_test


def test_a_root_file_change_is_slash_slash_only(tmp_path: Path, cli) -> None:
    root = workspace(tmp_path / "ws", "**", tasks={"test": {}, "//#test": {}})
    (root / "README.md").write_text("changed\n")
    commit(root)
    proc = cli("--repo", str(root), "--adapter", "turbo", "--source", "static", "--no-cache",
               "tests", "--base", "HEAD~1", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["tests"] == [ROOT_ID]


def test_a_name_link_or_root_path_does_not_reach_it(tmp_path: Path) -> None:
    """``"root": "workspace:*"`` links nothing; ``workspace:../..`` links ``//``, not it."""
    root = workspace(tmp_path / "ws", "**")
    (root / "p" / "b" / "package.json").write_text(json.dumps(
        {"name": "b", "scripts": {"test": "x"}, "dependencies": {"root": "workspace:*"}}))
    (root / "p" / "c" / "package.json").write_text(json.dumps(
        {"name": "c", "scripts": {"test": "x"}, "dependencies": {"r": "workspace:../.."}}))
    ws = open_ws(root, "turbo")
    assert radius_dirs(ws, "root") == {""}
    assert dirs_of(ws, ws.blast_radius(roots=[ROOT_ID]).ids) == {"p/c"}


def test_unnamed_root_is_not_listed_and_a_shared_name_is_refused(tmp_path: Path, cli) -> None:
    unnamed = workspace(tmp_path / "u", "**", root_fields={"name": ""})
    assert listed_root(open_ws(unnamed, "turbo")) == []
    shared = workspace(tmp_path / "s", "**", root_fields={"name": "c"})
    proc = cli("--repo", str(shared), "--adapter", "turbo", "--source", "static", "blast-radius", "a")
    assert proc.returncode == 2, proc.stderr
    assert "p/c/package.json" in proc.stderr and "Traceback" not in proc.stderr


def test_a_root_name_that_is_filter_syntax_is_warned_about(tmp_path: Path) -> None:
    """``r*t`` is a pattern for ``--filter``, and no directory filter selects the root package."""
    ws = open_ws(workspace(tmp_path / "ws", "**", root_fields={"name": "r*t"}), "turbo")
    assert listed_root(ws) == ["."] and filter_value(".") is None
    selection = ws.tests(roots=["a"])
    assert "." in selection.tests and not any("r*t" in arg or arg == "--filter=." for arg in selection.argv)
    assert any("root package 'r*t'" in w for w in ws.graph.warnings)


# ---------------------------------------------------------------------- the real turbo
def task_ids(ws, tests: list[str]) -> set[str]:
    """turbo's task ids for ctxsel's test nodes (``//#test``, ``root#test``, ``a#test``)."""
    return {f"{t if t == ROOT_ID else ws.graph.node(t).meta['name']}#test" for t in tests}


@pytest.mark.oracle
@pytest.mark.parametrize("glob", [*LISTED, *NOT_LISTED])
def test_matches_turbo(tmp_path: Path, glob: str, monkeypatch: pytest.MonkeyPatch, cli) -> None:
    """``turbo ls``, ``--filter=...a``, ``--filter=root``, and what ctxsel's command runs, static and tool mode."""
    require("turbo")
    monkeypatch.setenv("PATH", oracle_env()["PATH"])
    root = workspace(tmp_path / "ws", glob, tasks={"test": {}, "//#test": {}})
    static, tool = open_ws(root, "turbo"), open_ws(root, "turbo", source="tool")
    assert {(a, b) for a, b, _ in tool.graph.edges()} == {(a, b) for a, b, _ in static.graph.edges()}
    for name in ["a", "b", "c", *(["root"] if glob in LISTED else [])]:
        assert radius_dirs(static, name) == turbo_filter(root, f"...{name}") == radius_dirs(tool, name), name
        selection = static.tests(roots=[name])
        out = run(["turbo", "run", "test", f"--filter=...{name}", "--dry=json"], root, env=TURBO_ENV).stdout
        expected = {t["taskId"] for t in json.loads(out[out.index("{"):])["tasks"] if t["command"] != "<NONEXISTENT>"}
        assert task_ids(static, selection.tests) == expected, name
        assert turbo_ran(root, selection.argv) == {static.graph.node(t).package for t in selection.tests}, name
    for change in ("README.md", "p/a/x.txt"):
        (root / change).write_text("changed\n")
        commit(root)
        out = run(["turbo", "run", "test", "--filter=...[HEAD~1]", "--dry=json"], root, env=TURBO_ENV).stdout
        expected = {t["taskId"] for t in json.loads(out[out.index("{"):])["tasks"] if t["command"] != "<NONEXISTENT>"}
        out = run(["turbo", "run", "test", "--affected", "--dry=json"], root,
                  env={**TURBO_ENV, "TURBO_SCM_BASE": "HEAD~1", "TURBO_SCM_HEAD": "HEAD"}).stdout
        assert {t["taskId"] for t in json.loads(out[out.index("{"):])["tasks"] if t["command"] != "<NONEXISTENT>"} == expected
        for source in ("static", "tool"):
            proc = cli("--repo", str(root), "--adapter", "turbo", "--source", source, "--no-cache",
                       "tests", "--base", "HEAD~1", "--format", "json")
            assert proc.returncode == 0, proc.stderr
            assert task_ids(static, json.loads(proc.stdout)["tests"]) == expected, (change, source)
