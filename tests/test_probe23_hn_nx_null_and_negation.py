"""Null targets, null targetDefaults entries, ``!`` in target globs and project patterns Nx cannot match.

Measured with nx 24.0.6 in session 23 (``/tmp/dev23/hn/probe.py``: ``nx graph``, ``nx show
projects`` and ``nx run-many -t test --graph`` against ctxsel's static graph):
- a null target, in project.json (``"targets": {"test": null}``) or package.json ``nx.targets``,
  fails every command ("could not be merged into the project graph", "Cannot read properties of
  null (reading 'executor')"); only ``nx graph`` exits 0, printing a partial graph without the
  project's edges, which session 22 had read as "Nx accepts it and drops an edge". ctxsel took it.
- a null entry in a targetDefaults list (``{"lint": [null]}``, whatever target the key names)
  fails every command ("reading 'filter'"); ``{"test": null}`` is taken. ctxsel took both.
- a target glob -- a targetDefaults key, a ``dependsOn`` target -- is ``minimatch(name, glob)``,
  which reads a leading ``!`` as negation: ``"!b*"`` is every target not starting with ``b``,
  ``"!(build)"`` negates the literal ``(build)`` (so names build too); a task's dependency on
  itself is dropped. ctxsel read ``!(...)`` as an extglob and never negated.
- ``findMatchingProjects`` throws "Invalid glob pattern" for a pattern with no regex (``"!"``,
  ``"#x"``, ``"directory:"``) once it matches it as a glob: in a ``dependsOn`` entry's
  ``projects`` (``nx affected -t test`` fails), targetDefaults ``filter.projects`` or
  ``implicitDependencies: ["a", "!"]`` (every command fails). ``implicitDependencies: ["!"]`` is
  taken (Nx's validity check gives up on the throw, and with no positive pattern nothing is
  matched). ctxsel took all of them.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import run_cli, write_tree
from nx_plugin_oracles import require_nx_plugins, run_nx

#: four private packages (no implicit nx-release-publish target): a -> b -> c, d alone
PACKAGES = {"a": ["b", "c"], "b": ["c"], "c": [], "d": []}


def make(root: Path, nx_json: object, extra: dict[str, object] | None = None) -> Path:
    files: dict[str, object] = {"nx.json": nx_json,
                                "package.json": {"name": "root", "private": True, "workspaces": ["packages/*"]}}
    for name, deps in PACKAGES.items():
        files[f"packages/{name}/package.json"] = {"name": name, "private": True, "dependencies": {d: "*" for d in deps},
                                                 "scripts": {"test": "t", "build": "b", "lint": "l"}}
        files[f"packages/{name}/src/i.ts"] = "x"
    files.update(extra or {})
    return write_tree(root, {k: v if isinstance(v, str) else json.dumps(v, indent=1) for k, v in files.items()})


def td_depends_on(entry: object) -> dict[str, object]:
    return {"targetDefaults": {"test": {"dependsOn": [entry]}}}


def with_leaves(tasks: dict[str, list[str]]) -> dict[str, list[str]]:
    """``tasks`` plus each task they depend on that depends on nothing (as nx lists it: ``"b:lint": []``)."""
    return {**tasks, **{d: [] for deps in tasks.values() for d in deps if d not in tasks}}


def ctxsel(root: Path, *args: str):
    return run_cli("--repo", str(root), "--no-cache", "-q", "--adapter", "nx", "--source", "static", *args,
                   "--files", "packages/c/src/i.ts", "--format", "json")


# ---------------------------------------------------------------------- refused by every command
#: case -> (nx.json, extra files, the file:line ctxsel names)
REFUSED: dict[str, tuple[object, dict[str, object], str]] = {
    "project_json_null_target": ({}, {"packages/d/project.json": '{"name": "d",\n "targets": {"test": null}}'},
                                 "packages/d/project.json:2"),
    "package_json_null_target": ({}, {"packages/d/package.json": '{"name": "d", "private": true,\n'
                                                                 ' "nx": {"targets": {"build": null}}}'},
                                 "packages/d/package.json:2"),
    "target_defaults_null_entry": ('{"targetDefaults": {\n "lint": [null]}}', {}, "nx.json:2"),
    "target_defaults_null_after_entry": ('{"targetDefaults": {"build": [{},\n null]}}', {}, "nx.json:1"),
    "filter_projects_comment": ({"targetDefaults": {"test": [{"dependsOn": ["build"], "filter": {"projects": ["b", "#x"]}}]}},
                                {}, "nx.json"),
    "filter_projects_bang_string": ({"targetDefaults": {"test": [{"dependsOn": ["build"], "filter": {"projects": "!b"}}]}},
                                    {}, "nx.json"),
    "implicit_bang_after_name": ({}, {"packages/d/project.json": '{"name": "d",\n "implicitDependencies": ["a", "!"]}'},
                                 "packages/d/project.json:2"),
}

#: case -> (nx.json, extra files, the file ctxsel names): only a task graph fails (nx affected -t test)
REFUSED_TASKS: dict[str, tuple[object, dict[str, object], str]] = {
    "depends_on_projects_bang": (td_depends_on({"target": "build", "projects": ["b", "!"]}), {}, "nx.json"),
    "depends_on_projects_comment": (td_depends_on({"target": "build", "projects": ["#x"]}), {}, "nx.json"),
    "depends_on_projects_empty_directory": (td_depends_on({"target": "build", "projects": ["directory:"]}), {}, "nx.json"),
}

#: case -> (nx.json, extra files): taken
ACCEPTED: dict[str, tuple[object, dict[str, object]]] = {
    "target_defaults_null_value": ({"targetDefaults": {"test": None}}, {}),
    "implicit_bang_alone": ({}, {"packages/d/project.json": {"name": "d", "implicitDependencies": ["!"]}}),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_refused_naming_the_file(tmp_path: Path, case: str) -> None:
    """Old: exit 0 (the null target dropped, the null entry and the pattern ignored)."""
    nx_json, extra, where = REFUSED[case]
    proc = ctxsel(make(tmp_path / "ws", nx_json, extra), "blast-radius")
    assert proc.returncode == 2, proc.stdout
    assert f"error: {where}" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) <= 3


@pytest.mark.parametrize("case", sorted(REFUSED_TASKS))
def test_task_graph_refused(tmp_path: Path, case: str) -> None:
    """Old: exit 0 for ``tests`` (``"!"`` even gave every project's build)."""
    nx_json, extra, where = REFUSED_TASKS[case]
    root = make(tmp_path / "ws", nx_json, extra)
    assert ctxsel(root, "blast-radius").returncode == 0
    proc = ctxsel(root, "tests")
    assert proc.returncode == 2, proc.stdout
    assert f"error: {where}" in proc.stderr and "invalid glob pattern" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) <= 3


@pytest.mark.parametrize("case", sorted(ACCEPTED))
def test_accepted(tmp_path: Path, case: str) -> None:
    proc = ctxsel(make(tmp_path / "ws", *ACCEPTED[case]), "tests")
    assert proc.returncode == 0, proc.stderr
    assert sorted(json.loads(proc.stdout)["tests"]) == ["a", "b", "c"]


def nx_calls(calls: list[tuple[Path, tuple[str, ...]]]) -> list:
    """``run_nx`` for each (workspace, args), two at a time (oracle calls are slow, the machine has 2 cores)."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(lambda call: run_nx(call[0], *call[1]), calls))


def affected_tests_args(out: Path) -> tuple[str, ...]:
    return ("affected", "-t", "test", "--files=packages/c/src/i.ts", f"--graph={out}")


@pytest.mark.oracle
def test_real_nx_refuses_and_accepts_the_same(tmp_path: Path) -> None:
    require_nx_plugins()
    refused = [(make(tmp_path / c, nx_json, extra), ("show", "projects", "--json"))
               for c, (nx_json, extra, _) in REFUSED.items()]
    tasks = [(make(tmp_path / c, nx_json, extra), affected_tests_args(tmp_path / f"{c}.json"))
             for c, (nx_json, extra, _) in REFUSED_TASKS.items()]
    accepted = [(make(tmp_path / c, nx_json, extra), affected_tests_args(tmp_path / f"{c}.json"))
                for c, (nx_json, extra) in ACCEPTED.items()]
    results = nx_calls(refused + tasks + accepted)
    for case, proc in zip(REFUSED, results):
        assert proc.returncode != 0, (case, proc.stdout)
    for case, proc in zip(REFUSED_TASKS, results[len(refused):]):
        assert proc.returncode != 0 and "Invalid glob pattern" in proc.stdout + proc.stderr, case
    for case, proc in zip(ACCEPTED, results[len(refused) + len(tasks):]):
        assert proc.returncode == 0, (case, proc.stderr[-800:])
        graph = json.loads((tmp_path / f"{case}.json").read_text())["tasks"]["tasks"]
        assert sorted(t["target"]["project"] for t in graph.values() if t["target"]["target"] == "test") == ["a", "b", "c"]


# ---------------------------------------------------------------------- target globs with "!"
#: case -> (nx.json, each test task's dependencies as nx 24.0.6's run-many -t test --graph gives them)
GLOBS: dict[str, tuple[object, dict[str, list[str]]]] = {
    "defaults_key_negated": ({"targetDefaults": {"!b*": {"dependsOn": ["build"]}}},
                             with_leaves({f"{p}:test": [f"{p}:build"] for p in PACKAGES})),
    "defaults_key_negated_literal": ({"targetDefaults": {"!(build)": {"dependsOn": ["^build"]}}},
                                     {"a:test": ["b:build", "c:build"], "b:test": ["c:build"], "c:test": [], "d:test": [],
                                      "b:build": ["c:build"], "c:build": []}),
    "depends_on_negated_literal_not_itself": (td_depends_on({"target": "!(build)"}),
                                              with_leaves({f"{p}:test": [f"{p}:build", f"{p}:lint"] for p in PACKAGES})),
    "depends_on_upstream_negated": (td_depends_on("^!b*"),
                                    with_leaves({"a:test": ["b:lint", "b:test", "c:lint", "c:test"],
                                                 "b:test": ["c:lint", "c:test"], "c:test": [], "d:test": []})),
}


def static_task_graph(root: Path) -> dict[str, list[str]]:
    """Each task below the test tasks -> its dependencies, as ctxsel's static task graph gives them."""
    from ctxsel.adapters.base import AdapterOptions
    from ctxsel.adapters.js.nx import NxAdapter
    from ctxsel.cache import InputTracker

    adapter = NxAdapter(root, AdapterOptions(source="static", use_cache=False))
    graph = adapter.load(InputTracker(root))
    selection = adapter.task_selection(graph)
    tests = [n.id for n in graph.nodes() if "test" in n.meta["targets"]]
    return {f"{p}:{t}": sorted(f"{dp}:{dt}" for dp, dt in selection.task_dependencies((p, t)))
            for p, t in selection.task_graph(tests, "test")}


@pytest.mark.parametrize("case", sorted(GLOBS))
def test_target_globs_negate(tmp_path: Path, case: str) -> None:
    """Old: ``!b*`` and ``^!b*`` named no target, ``!(build)`` read as an extglob (not build,
    and the test itself)."""
    nx_json, expected = GLOBS[case]
    assert static_task_graph(make(tmp_path / "ws", nx_json)) == expected


@pytest.mark.oracle
def test_real_nx_task_graphs(tmp_path: Path) -> None:
    require_nx_plugins()
    calls = [(make(tmp_path / c, nx_json), ("run-many", "-t", "test", f"--graph={tmp_path / c}.json"))
             for c, (nx_json, _) in GLOBS.items()]
    for (case, (_, expected)), proc in zip(GLOBS.items(), nx_calls(calls)):
        assert proc.returncode == 0, proc.stderr[-800:]
        deps = json.loads((tmp_path / f"{case}.json").read_text())["tasks"]["dependencies"]
        assert {k: sorted(d["id"] if isinstance(d, dict) else d for d in v) for k, v in deps.items()} == expected, case
