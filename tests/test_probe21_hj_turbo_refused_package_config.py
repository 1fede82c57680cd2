"""Turborepo 2: a package turbo.json turbo refuses stops only the tasks of that package.

turbo reads a package's own turbo.json when a task of that package is in the task graph,
not before (turbo 2.11.11, measured for each case below): ``turbo ls`` lists every package
and its dependents, ``turbo run test --filter=c`` runs ``c#test``, and only a run that
reaches a task of the refused package (``--filter=b``, ``--filter=...a``) stops, with
"Failed to parse turbo.json", "Cannot extend from 'zz' without a package 'turbo.json'",
'Cyclic "extends" detected' or "Invalid turbo.json configuration". A package whose
turbo.json ``extends`` a refused one is refused with it. ``turbo query`` reads them all and
fails.

ctxsel refused the whole repository (exit 2 for every ``blast-radius`` and ``tests``). Now
the graph loads with one warning naming the file and line, ``blast-radius`` answers as
``turbo ls`` does, and ``tests`` exits 2 only when the printed command would reach a refused
package's task; ``--source tool`` falls back to the manifests when ``turbo query`` refuses.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsfixtures import TURBO_ENV, open_ws, turbo_filter
from oracles import oracle_env, require, run

#: name -> {package dir: its turbo.json text}; p/b's is refused in each, line 1
CASES: dict[str, dict[str, str]] = {
    "invalid-json": {"p/b": '{"extends": ["//"],,}'},
    "no-extends": {"p/b": '{"tasks": {"test": {}}}'},
    "extends-no-package": {"p/b": '{"extends": ["//", "zz"], "tasks": {}}'},
    "extends-not-root-first": {"p/b": '{"extends": ["a"], "tasks": {}}'},
    "tasks-a-list": {"p/b": '{"extends": ["//"], "tasks": []}'},
    "depends-on-a-string": {"p/b": '{"extends": ["//"], "tasks": {"test": {"dependsOn": "build"}}}'},
    "extends-cycle": {"p/b": '{"extends": ["//", "d"], "tasks": {}}', "p/d": '{"extends": ["//", "b"], "tasks": {}}'},
    "extends-a-refused-one": {"p/b": '{"extends": ["//"],,}', "p/d": '{"extends": ["//", "b"], "tasks": {}}'},
    # session 21 (lead): keys turbo does not read in a package turbo.json
    "unknown-key": {"p/b": '{"extends": ["//"], "foo": 1, "tasks": {}}'},
    "root-only-key": {"p/b": '{"extends": ["//"], "ui": "tui", "tasks": {}}'},
}
#: a package's tests in this workspace (itself and its dependents): what ``tests NAME`` selects
TESTS = {"a": ["a", "b"], "b": ["b"], "c": ["c"], "d": ["d"]}


def refused(case: str) -> set[str]:
    """b always; d too where its turbo.json extends b's (cycle, or b refused)."""
    return {"b", "d"} if "p/d" in CASES[case] else {"b"}


def workspace(root: Path, case: str) -> Path:
    """pnpm ``p/*``: b -> a, c and d alone; every package has a test script; root ``test`` task."""
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "root", "private": True, "packageManager": "pnpm@9.0.0"}))
    (root / "pnpm-workspace.yaml").write_text("packages: ['p/*']\n")
    (root / "turbo.json").write_text(json.dumps({"tasks": {"test": {}, "build": {}}}))
    for name, deps in (("a", {}), ("b", {"a": "workspace:*"}), ("c", {}), ("d", {})):
        (root / "p" / name).mkdir(parents=True)
        (root / "p" / name / "package.json").write_text(
            json.dumps({"name": name, "version": "1.0.0", "scripts": {"test": f"echo {name}"}, "dependencies": deps}))
    for rel, text in CASES[case].items():
        (root / rel / "turbo.json").write_text(text)
    return root


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_graph_loads_with_a_warning_naming_the_file(tmp_path: Path, case: str) -> None:
    ws = open_ws(workspace(tmp_path / "ws", case), "turbo")
    assert {ws.graph.node(i).package for i in ws.blast_radius(["a"]).ids} == {"p/a", "p/b"}  # = turbo ls, below
    assert any(w.startswith("p/b/turbo.json:1: ") for w in ws.warnings), ws.warnings


@pytest.mark.parametrize("case", sorted(CASES))
def test_only_tests_reaching_a_refused_package_are_an_error(tmp_path: Path, cli, case: str) -> None:
    root = workspace(tmp_path / "ws", case)
    for name in ("a", "b", "c", "d"):
        proc = cli("--repo", str(root), "--adapter", "turbo", "--source", "static", "--no-cache",
                   "tests", name, "--format", "command")
        if set(TESTS[name]) & refused(case):
            assert proc.returncode == 2, proc.stdout + proc.stderr
            assert "/turbo.json:1: " in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
            assert len(proc.stderr.strip().splitlines()) <= 3, proc.stderr
        else:
            assert proc.returncode == 0, proc.stderr
            assert proc.stdout.split() == ["turbo", "run", "test", *(f"--filter={t}" for t in TESTS[name])], proc.stdout


@pytest.mark.oracle
@pytest.mark.parametrize("case", sorted(CASES))
def test_turbo_answers_the_same(tmp_path: Path, case: str) -> None:
    require("turbo")
    root = workspace(tmp_path / "ws", case)
    assert turbo_filter(root, "...a") == {"p/a", "p/b"}
    for name, tests in TESTS.items():
        argv = ["turbo", "run", "test", *(f"--filter={t}" for t in tests), "--dry=json"]
        proc = run(argv, root, env=TURBO_ENV, check=False)
        assert (proc.returncode == 0) is not (set(tests) & refused(case)), (name, proc.stderr[-500:])
    query = run(["turbo", "query", "{ packages { items { name } } }"], root, env=TURBO_ENV, check=False)
    assert query.returncode != 0


@pytest.mark.oracle
@pytest.mark.parametrize("case", ["invalid-json", "extends-cycle"])
def test_tool_mode_reads_the_manifests_when_turbo_query_refuses(tmp_path: Path, monkeypatch, case: str) -> None:
    require("turbo")
    monkeypatch.setenv("PATH", oracle_env()["PATH"])
    root = workspace(tmp_path / "ws", case)
    ws = open_ws(root, "turbo", source="tool")
    assert {ws.graph.node(i).package for i in ws.blast_radius(["a"]).ids} == {"p/a", "p/b"}
    assert any("turbo query refuses" in w for w in ws.warnings), ws.warnings
    assert ws.tests(["c"]).argv == ["turbo", "run", "test", "--filter=c"]
