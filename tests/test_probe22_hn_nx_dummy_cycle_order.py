"""Nx's one task graph and its orders decide what a dummy task on a cycle path costs a test.

Session 21's open case (generated workspace seed 248). Nx 24 builds ONE task graph for every
project having the target (``createTaskGraph`` in project graph order), then ``findCycles``
marks the whole depth-first path that led it to a cycle, sharing one visited set; a dummy task
(a dependency lacking ``build``) on such a path gives its task nothing below it
(``getNonDummyDeps``). Which path is marked depends on two orders, both deterministic from the
files (read in nx 24.0.6's ``normalizeProjectNodes`` and ``ProjectGraphBuilder``):
- nodes: names sorted, then by root length, longest first (``nx_node_order``);
- each project's dependencies: implicit ones first, then those of its files in file order, a
  package.json in ``readDeps`` order (``nx_dependency_order``).

Workspace below: ``a:test`` reads the outputs of every task below it (transitive
``dependentTasksOutputFiles``) and ``dependsOn: ["^build"]``; c has no build and depends on e
then b; b's build ``^build`` reaches back through c to itself (b -> c -> b). A change of e
touches ``e:build`` only. Measured with nx 24.0.6 (``nx affected -t test --files``):
- a depends on c (implicit) and b: not selected (``dummy(c)`` of ``a:test`` is on the marked path);
- a depends on ``{"c": "*", "b": "*"}``: not selected, for the same reason;
- a depends on ``{"b": "*", "c": "*"}``: selected (the search meets the cycle through b first).
ctxsel used to build a small graph per task, in sorted order, and selected a in all three.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from conftest import run_cli, write_tree
from nx_plugin_oracles import plugin_env, run_nx


def make(root: Path, a_deps: list[str], implicit: list[str]) -> Path:
    a_test = {"command": "echo a", "dependsOn": ["^build"], "inputs": [{"dependentTasksOutputFiles": "**/*", "transitive": True}]}
    b_build = {"command": "echo b", "dependsOn": ["^build"], "inputs": ["{projectRoot}/**/*"], "outputs": ["{projectRoot}/dist"]}
    files: dict[str, object] = {
        "nx.json": {},
        "package.json": {"name": "root", "private": True, "workspaces": ["packages/*"]},
        "packages/a/package.json": {"name": "a", "dependencies": {d: "*" for d in a_deps},
                                    "nx": {"implicitDependencies": implicit, "targets": {"test": a_test}}},
        "packages/b/package.json": {"name": "b", "dependencies": {"c": "*"}, "nx": {"targets": {"build": b_build}}},
        "packages/c/package.json": {"name": "c", "dependencies": {"e": "*", "b": "*"}},
        "packages/e/package.json": {"name": "e", "nx": {"targets": {"build": {"command": "echo e",
                                                                              "outputs": ["{projectRoot}/dist"]}}}},
    }
    write_tree(root, {k: json.dumps(v, indent=2) for k, v in files.items()})
    return write_tree(root, {f"packages/{n}/src/i.ts": "x" for n in "abce"})


#: (a's package.json dependencies, a's implicitDependencies) -> tests nx 24.0.6 selected for packages/e/src/i.ts
CASES = {"implicit_c": ((["b"], ["c"]), []), "c_first": ((["c", "b"], []), []), "b_first": ((["b", "c"], []), ["a"])}


def ctxsel_tests(root: Path, source: str = "static") -> list[str]:
    args = ("--repo", str(root), "--no-cache", "-q", "--adapter", "nx", "--source", source,
            "tests", "--files", "packages/e/src/i.ts", "--format", "json")
    if source == "static":
        proc = run_cli(*args)
    else:  # the nx of the oracle install, on PATH as plugin_env puts it
        with tempfile.TemporaryDirectory(prefix="ctxsel-nxp-") as state:
            proc = subprocess.run([sys.executable, "-m", "ctxsel", *args], env=plugin_env(root, Path(state)),
                                  capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["tests"]


@pytest.mark.parametrize("case", sorted(CASES))
def test_static_follows_nx_orders(tmp_path: Path, case: str) -> None:
    """Old: ["a"] in all three cases."""
    (deps, implicit), expected = CASES[case]
    assert ctxsel_tests(make(tmp_path / "ws", deps, implicit)) == expected


def test_node_order_measured() -> None:
    """``nx graph``'s node order for these roots (nx 24.0.6): name order, then longest root first."""
    from ctxsel.adapters.js.nx_workspace import nx_node_order

    roots = {"a0": "apps/a0", "b": "packages/b", "c": "libs/c", "d": "tools/x/d", "e": "apps/e", "f": "zz/f",
             "g": "aa/g", "h": "packages/0h"}
    assert nx_node_order(roots) == ["h", "b", "d", "a0", "c", "e", "f", "g"]


def test_dependency_order() -> None:
    """Implicit first; then by file (package.json before src/, a file's own order kept); each once;
    an edge the graph does not keep (an ``!`` implicit dependency) left out."""
    from ctxsel.adapters.js.nx import nx_dependency_order

    origins = [("p/src/z.ts", "x"), ("p/package.json", "y"), ("p/package.json", "w"), ("p/src/a.ts", "v"),
               ("p/package.json", "gone")]
    assert nx_dependency_order(["i", "y"], origins, {"i", "y", "w", "v", "x"}) == ["i", "y", "w", "v", "x"]


@pytest.mark.oracle
@pytest.mark.parametrize("case", sorted(CASES))
def test_real_nx_agrees(tmp_path: Path, case: str) -> None:
    (deps, implicit), expected = CASES[case]
    root = make(tmp_path / "ws", deps, implicit)
    graph = tmp_path / "tasks.json"
    proc = run_nx(root, "affected", "-t", "test", "--files=packages/e/src/i.ts", f"--graph={graph}")
    assert graph.is_file(), (proc.stdout + proc.stderr)[-1500:]
    tasks = json.loads(graph.read_text())["tasks"]["tasks"].values()
    assert sorted(t["target"]["project"] for t in tasks if t["target"]["target"] == "test") == expected
    assert ctxsel_tests(root, "tool") == expected


@pytest.mark.oracle
def test_real_nx_graph_orders(tmp_path: Path) -> None:
    """ctxsel's static orders equal ``nx graph``'s JSON order (nodes and each project's dependencies)."""
    from ctxsel.adapters.base import AdapterOptions
    from ctxsel.adapters.js.nx import NxAdapter
    from ctxsel.adapters.js.nx_workspace import nx_node_order
    from ctxsel.cache import InputTracker

    root = make(tmp_path / "ws", ["c", "b"], ["e"])
    write_tree(root, {"packages/a/src/i.ts": "import 'e';\nimport 'b';\n", "libs/zz/project.json": json.dumps({"name": "zz"})})
    out = tmp_path / "graph.json"
    proc = run_nx(root, "graph", f"--file={out}")
    assert out.is_file(), (proc.stdout + proc.stderr)[-1500:]
    nx = json.loads(out.read_text())["graph"]
    static = NxAdapter(root, AdapterOptions(source="static", use_cache=False)).load(InputTracker(root))
    assert nx_node_order({n.id: n.meta["root"] for n in static.nodes()}) == list(nx["nodes"])
    for project, deps in nx["dependencies"].items():
        assert static.node(project).meta["dependency_order"] == list(dict.fromkeys(d["target"] for d in deps)), project
