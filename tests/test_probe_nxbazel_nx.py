"""Nx static mode against Nx 24 on inputs the other Nx tests do not cover.

Found by comparing ``nx graph`` with ctxsel's static graph: the tags Nx gives every
package.json project (``npm:public``/``npm:private``/``npm:<keyword>``, which
``implicitDependencies: ["tag:npm:*"]`` selects), and ``file:`` dependency specs, which Nx
compares after node's ``path.posix.join`` (a trailing slash is no match). The unit tests
need no Nx; the ``oracle`` test repeats the comparison with the real nx and skips,
saying why, when it is not installed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxsel.adapters.base import AdapterOptions
from ctxsel.adapters.js.nx import NxAdapter, node_path_env
from ctxsel.cache import InputTracker
from oracles import require, run

FILE_SPECS = {  # dependent package -> its spec for "@ws/core"; True when Nx 24 draws the edge
    "c1": ("file:../core", True),
    "c2": ("file:../core/", False),
    "c3": ("file:./../core", True),
    "c4": ("file:../core/.", True),
    "c5": ("file:../core/x/../", False),
    "c6": ("link:../core", False),
}


def workspace(root: Path, tagged: bool = True) -> Path:
    files: dict[str, object] = {
        "nx.json": {},
        "package.json": {"name": "root", "private": True, "workspaces": ["packages/*"], "devDependencies": {"@nx/js": "24.0.6"}},
        "packages/core/package.json": {"name": "@ws/core", "version": "1.0.0"},
        "packages/pub/package.json": {"name": "pub", "version": "1.0.0", "keywords": ["ui", "react"]},
        "packages/priv/package.json": {"name": "priv", "version": "1.0.0", "private": True, "nx": {"tags": ["scope:x"]}},
        "packages/both/package.json": {"name": "both", "version": "1.0.0", "private": True},
        "packages/both/project.json": {"tags": ["scope:y"]},
        "libs/a/project.json": {"name": "a", "implicitDependencies": ["tag:npm:public"]},
        "libs/b/project.json": {"name": "b", "implicitDependencies": ["tag:npm:private"]},
        "libs/c/project.json": {"name": "c", "implicitDependencies": ["tag:npm:ui"]},
        "libs/d/project.json": {"name": "d", "implicitDependencies": ["tag:npm:*", "!tag:scope:y", "!@ws/*", "!c*"]},
    }
    if not tagged:
        files = {k: v for k, v in files.items() if not k.startswith("libs/")}
    for name, (spec, _) in FILE_SPECS.items():
        files[f"packages/{name}/package.json"] = {"name": f"@ws/{name}", "version": "1.0.0", "private": True,
                                                  "dependencies": {"@ws/core": spec}}
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data))
    return root


def static_graph(root: Path):
    return NxAdapter(root, AdapterOptions(source="static", use_cache=False)).load(InputTracker(root))


def edges(graph) -> set[tuple[str, str, str]]:
    return {(s, d, t) for s, d, types in graph.edges() for t in types}


def test_package_json_projects_carry_npm_tags_that_implicit_dependencies_select(tmp_path):
    graph = static_graph(workspace(tmp_path))
    assert graph.node("pub").tags == ("npm:public", "npm:ui", "npm:react")
    assert graph.node("both").tags == ("npm:private", "scope:y")  # package.json's, then project.json's
    assert graph.node("priv").tags == ("npm:private", "scope:x")
    implicit = {(s, d) for s, d, t in edges(graph) if t == "implicit"}
    private = {"priv", "both", *(f"@ws/{name}" for name in FILE_SPECS)}
    assert implicit == {("a", "pub"), ("a", "@ws/core"), *(("b", p) for p in private), ("c", "pub"), ("d", "priv"), ("d", "pub")}


def test_file_specs_match_only_as_node_joins_them(tmp_path):
    graph = static_graph(workspace(tmp_path, tagged=False))
    linked = {s[len("@ws/"):] for s, d, t in edges(graph) if d == "@ws/core" and t == "static"}
    assert linked == {name for name, (_, edge) in FILE_SPECS.items() if edge}


@pytest.mark.parametrize("parts, joined", [
    (("packages/c1", "../core/"), "packages/core/"),
    (("packages/c1", "/../core"), "packages/core"),  # an absolute part does not restart the path
    ((".", "packages/core"), "packages/core"),
    (("a", "//b//"), "a/b/"),
    (("packages/c1", ""), "packages/c1"),
])
def test_node_posix_join(parts, joined):
    """Values printed by ``node -e 'path.posix.join(...)'``."""
    from ctxsel.adapters.js.nx_resolve import node_posix_join

    assert node_posix_join(*parts) == joined


@pytest.mark.oracle
def test_graph_and_tags_match_nx_graph(tmp_path):
    tool = require("nx")
    root = workspace(tmp_path / "ws")
    env = {"NX_WORKSPACE_DATA_DIRECTORY": str(tmp_path / "state" / "wd"), "NX_CACHE_DIRECTORY": str(tmp_path / "state" / "c"),
           "NX_WORKSPACE_ROOT_PATH": str(root), "NX_DAEMON": "false", **node_path_env(tool, root, None)}
    out = tmp_path / "graph.json"
    run([tool, "graph", f"--file={out}"], cwd=root, env=env)
    nx = json.loads(out.read_text())["graph"]
    graph = static_graph(root)
    assert edges(graph) == {(s, d["target"], d["type"]) for s, deps in nx["dependencies"].items() for d in deps}
    assert {n.id: list(n.tags) for n in graph.nodes()} == {n: v["data"].get("tags", []) for n, v in nx["nodes"].items()}


def _nameless_root(root: Path, with_project_json: bool) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "nx.json").write_text("{}")
    manifest: dict[str, object] = {"private": True, "devDependencies": {"@nx/js": "24.0.6"}}
    if not with_project_json:
        manifest["nx"] = {}
    (root / "package.json").write_text(json.dumps(manifest, indent=2))
    if with_project_json:
        (root / "project.json").write_text(json.dumps({"name": "x"}))
    (root / "libs/a").mkdir(parents=True)
    (root / "libs/a/project.json").write_text(json.dumps({"name": "a"}))
    return root


@pytest.mark.parametrize("with_project_json", [False, True])
def test_nameless_root_package_json_project_exits_2_as_nx_fails(tmp_path, cli, with_project_json):
    """Nx throws "Nx requires the root package.json to specify a name"; ctxsel made up a project named "."."""
    root = _nameless_root(tmp_path / "ws", with_project_json)
    res = cli("--repo", str(root), "--adapter", "nx", "--source", "static", "--no-cache", "blast-radius", "a")
    assert res.returncode == 2, res.stdout
    assert "package.json:" in res.stderr and "specify a name" in res.stderr and "Traceback" not in res.stderr


@pytest.mark.oracle
@pytest.mark.parametrize("with_project_json", [False, True])
def test_nameless_root_package_json_project_fails_in_nx_too(tmp_path, with_project_json):
    tool = require("nx")
    root = _nameless_root(tmp_path / "ws", with_project_json)
    env = {"NX_WORKSPACE_DATA_DIRECTORY": str(tmp_path / "state"), "NX_WORKSPACE_ROOT_PATH": str(root),
           "NX_DAEMON": "false", **node_path_env(tool, root, None)}
    proc = run([tool, "show", "projects", "--json"], cwd=root, env=env, check=False)
    assert proc.returncode != 0 and "specify a name" in proc.stdout + proc.stderr
