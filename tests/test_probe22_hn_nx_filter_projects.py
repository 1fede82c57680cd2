"""targetDefaults ``filter.projects`` read as Nx 24 reads it: ``[...filter.projects]``.

Found with generated workspaces (session 22, ``gen.py`` seed 531: a targetDefaults entry with
``"filter": {"projects": "p1"}`` gave p1's test other inputs in ctxsel than in Nx, so
``nx show projects --affected`` listed p1 for a shared file and ctxsel did not).
``entryFilterMatches`` spreads the value: a string is its characters, so ``"p1"`` applies to
projects named ``p`` or ``1``, never to ``p1``; a falsy value (``""``) is no filter; a number or
an object fails every command ("filter.projects is not iterable"). Measured with nx 24.0.6
(``nx graph``: the test target's inputs), for an executor key and a target-name key alike.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli, write_tree
from nx_plugin_oracles import nx_graph_nodes

A, B = ["{workspaceRoot}/A"], ["{workspaceRoot}/B"]


def make(root: Path, projects_filter: object, key: str = "nx:noop") -> Path:
    defaults = {key: [{"inputs": A}, {"inputs": B, "filter": {"projects": projects_filter}}]}
    files = {
        "nx.json": {"targetDefaults": defaults},
        "package.json": {"name": "root", "private": True},
        "libs/p1/project.json": {"name": "p1", "targets": {"test": {"executor": "nx:noop"}}},
        "libs/p/project.json": {"name": "p", "targets": {"test": {"executor": "nx:noop"}}},
    }
    return write_tree(root, {k: json.dumps(v) for k, v in files.items()})


#: (filter.projects, targetDefaults key) -> each project's test inputs (nx 24.0.6's nx graph)
CASES: dict[str, tuple[object, str, dict[str, list[str]]]] = {
    "list": (["p1"], "nx:noop", {"p1": B, "p": A}),
    "string_is_its_characters": ("p1", "nx:noop", {"p1": A, "p": B}),
    "string_by_target_name": ("p1", "test", {"p1": A, "p": B}),
    "empty_string_is_no_filter": ("", "nx:noop", {"p1": B, "p": B}),
}


def static_inputs(root: Path) -> dict[str, object]:
    from ctxsel.adapters.base import AdapterOptions
    from ctxsel.adapters.js.nx import NxAdapter
    from ctxsel.cache import InputTracker

    graph = NxAdapter(root, AdapterOptions(source="static", use_cache=False)).load(InputTracker(root))
    return {n.id: (n.meta.get("inputs") or {}).get("test") for n in graph.nodes()}


@pytest.mark.parametrize("case", sorted(CASES))
def test_filter_projects(tmp_path: Path, case: str) -> None:
    """Old: a string matched as one pattern, "" as a pattern matching nothing."""
    value, key, expected = CASES[case]
    assert static_inputs(make(tmp_path / "ws", value, key)) == expected


@pytest.mark.parametrize("value", [5, {"a": 1}])
def test_not_iterable_exits_2(tmp_path: Path, value: object) -> None:
    """Old: exit 0, the entry applying to no project."""
    proc = run_cli("--repo", str(make(tmp_path / "ws", value)), "--no-cache", "--adapter", "nx", "--source", "static",
                   "blast-radius", "--files", "libs/p1/x.ts")
    assert proc.returncode == 2 and "nx.json" in proc.stderr and "not iterable" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) <= 3


@pytest.mark.oracle
@pytest.mark.parametrize("case", sorted(CASES))
def test_real_nx_agrees(tmp_path: Path, case: str) -> None:
    value, key, expected = CASES[case]
    nodes = nx_graph_nodes(make(tmp_path / "ws", value, key))
    assert {n: v["data"]["targets"]["test"].get("inputs") for n, v in nodes.items()} == expected
