"""Differential tests: ctxsel's Nx static mode against the real Nx 24 on fixtures/js-nx.

Each nx call costs 1-3 s, so the whole graph is compared once (every edge with its type,
which decides every project's dependents set), then ``--affected --files`` is asked for a
handful of files chosen to cover each edge kind (package.json, tsconfig alias, relative
import, implicit glob and negation) and the root files that affect everything.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ctxsel.adapters.base import AdapterOptions
from ctxsel.adapters.js.nx import NxAdapter, node_path_env
from ctxsel.cache import InputTracker
from oracles import require, run

pytestmark = pytest.mark.oracle

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "js-nx"


class Nx:
    """The real nx, run in a scratch copy with its state kept out of the workspace."""

    def __init__(self, root: Path, state: Path) -> None:
        self.tool = require("nx")
        self.root = root
        self.env = {
            "NX_WORKSPACE_DATA_DIRECTORY": str(state / "workspace-data"),
            "NX_CACHE_DIRECTORY": str(state / "cache"),
            "NX_WORKSPACE_ROOT_PATH": str(root),
            "NX_DAEMON": "false",
        }
        self.env.update(node_path_env(self.tool, root, None))

    def json(self, *args: str):
        out = run([self.tool, *args], cwd=self.root, env=self.env).stdout
        return json.loads(out[out.index("[") if out.lstrip().startswith("[") or "{" not in out else out.index("{"):])

    def graph(self, out: Path) -> dict:
        run([self.tool, "graph", f"--file={out}"], cwd=self.root, env=self.env)
        return json.loads(out.read_text())["graph"]

    def affected(self, *files: str, with_test: bool = False) -> set[str]:
        args = ["show", "projects", "--affected", f"--files={','.join(files)}", "--json"]
        if with_test:
            args += ["--with-target", "test"]
        return set(self.json(*args))


@pytest.fixture(scope="module")
def oracle(tmp_path_factory):
    base = tmp_path_factory.mktemp("nx-oracle")
    ws = base / "ws"
    shutil.copytree(FIXTURE, ws)
    nx = Nx(ws, base / "state")
    graph = nx.graph(base / "graph.json")
    adapter = NxAdapter(ws, AdapterOptions(source="static"))
    static = adapter.load(InputTracker(ws))
    return nx, graph, adapter, static


def test_query_file_reads_saved_nx_graph_output(oracle, tmp_path):
    nx, graph, _, static = oracle
    saved = tmp_path / "graph.json"
    saved.write_text(json.dumps({"graph": graph}))
    from_file = NxAdapter(nx.root, AdapterOptions(source="tool", query_file=str(saved))).load(InputTracker(nx.root))
    assert ctxsel_edges(from_file) == ctxsel_edges(static)


def nx_edges(graph: dict) -> set[tuple[str, str, str]]:
    return {(s, d["target"], d["type"]) for s, deps in graph["dependencies"].items() for d in deps
            if not d["target"].startswith("npm:")}


def ctxsel_edges(graph) -> set[tuple[str, str, str]]:
    return {(s, d, t) for s, d, types in graph.edges() for t in types}


def test_projects_and_kinds_match(oracle):
    _, graph, _, static = oracle
    assert {n: v["type"] for n, v in graph["nodes"].items()} == {n.id: n.kind for n in static.nodes()}
    assert {n: v["data"]["root"] for n, v in graph["nodes"].items()} == {n.id: n.meta["root"] for n in static.nodes()}


def test_every_edge_matches_nx_graph(oracle):
    _, graph, _, static = oracle
    assert ctxsel_edges(static) == nx_edges(graph)


def test_test_targets_match(oracle):
    nx, _, adapter, static = oracle
    assert set(nx.json("show", "projects", "--with-target", "test", "--json")) == set(adapter.test_nodes(static, static))


# the package.json/implicit chain from core, and the import-only chain from shared
# (the CLI tests below add a relative import, an implicit-only dependent and a leaf)
AFFECTED_FILES = [
    "packages/core-lib/src/index.js",
    "libs/shared/src/strings.ts",
]


@pytest.mark.parametrize("file", AFFECTED_FILES)
def test_affected_by_a_file_matches(oracle, file):
    nx, _, adapter, static = oracle
    roots = adapter.resolve(static, str(nx.root / file))
    assert nx.affected(file) == set(adapter.blast_radius(static, roots))


def test_affected_tests_match(oracle):
    nx, _, adapter, static = oracle
    file = "packages/utils/src/format.js"
    roots = adapter.resolve(static, str(nx.root / file))
    assert nx.affected(file, with_test=True) == set(adapter.test_nodes(static, adapter.blast_radius(static, roots)))


@pytest.mark.parametrize("file", ["pnpm-lock.yaml", "tsconfig.base.json"])  # nx.json: see the CLI test
def test_global_files_affect_every_project(oracle, file):
    nx, _, adapter, static = oracle
    assert file in adapter.global_files() and "nx.json" in adapter.global_files()
    assert nx.affected(file) == set(static)


def test_root_manifest_is_not_global_and_owns_nothing(oracle):
    nx, _, adapter, static = oracle
    assert "package.json" not in adapter.global_files()
    assert nx.affected("package.json") == set() and adapter.nodes_for_file(static, "package.json") == []


def test_tool_mode_equals_static_mode(oracle):
    nx, _, _, static = oracle
    require("nx")
    adapter = NxAdapter(nx.root, AdapterOptions(source="tool"))
    adapter.tools = (nx.tool,)  # the oracle's nx, wherever PATH points
    tool = adapter.load(InputTracker(nx.root))
    assert ctxsel_edges(tool) == ctxsel_edges(static)
    assert {n.id: (n.kind, n.package, n.meta["has_test"]) for n in tool.nodes()} == {
        n.id: (n.kind, n.package, n.meta["has_test"]) for n in static.nodes()
    }
    assert sorted(p.name for p in nx.root.iterdir()) == sorted(p.name for p in FIXTURE.iterdir()), "nx wrote into the repo"


def test_tool_mode_reports_a_broken_workspace(tmp_path):
    """nx graph exits 0 with a partial graph when an implicit dependency names no project."""
    from ctxsel.errors import ToolError

    ws = tmp_path / "ws"
    (ws / "libs/a").mkdir(parents=True)
    (ws / "nx.json").write_text("{}")
    (ws / "package.json").write_text(json.dumps({"name": "r"}))
    (ws / "libs/a/project.json").write_text(json.dumps({"name": "a", "implicitDependencies": ["nope"]}))
    adapter = NxAdapter(ws, AdapterOptions(source="tool"))
    adapter.tools = (require("nx"),)
    with pytest.raises(ToolError, match="nope"):
        adapter.load(InputTracker(ws))


SYNTAX_FILE = """
import x1 from 't01';
import 't02';
export * from 't03';
export { a } from 't04';
const r5 = require('t05');
const d6 = import('t06');
import type { X } from 't07';
// nx-ignore-next-line
import x8 from 't08';
jest.mock('t09');
require.resolve('t10');
import x11 = require('t11');
const s12 = `${require('t12')}`;
/* import x from 't13' */
const s14 = "import x from 't14'";
foo.require('t15');
export function f() { return require('t16') }
const o = { a: require('t17'), b: () => import('t18') };
class C { m() { require('t19') } }
const re = /'t20'/; const r20 = require('t21/deep');
import z22 from 't22/anything';
import ev from 'events';
import x23 from 't23';
export { b }
import 't24';
"""


def test_import_scanner_and_resolution_match_on_tricky_syntax(tmp_path):
    """Quirks that decide edges: subpath exports, built-ins, entry points, scanner skips,
    and package.json specs (prerelease versions, unsatisfied ranges, file:, *, link:)."""
    ws = tmp_path / "ws"
    files = {
        "nx.json": {},
        "package.json": {"name": "root", "devDependencies": {"@nx/js": "1"}, "workspaces": ["packages/*"]},
        "packages/src/package.json": {"name": "src", "version": "1.0.0", "dependencies": {
            "pre": "^1.0.0", "old": "^2.0.0", "fileref": "file:../fileref", "star": "*", "linked": "link:../linked"}},
        "packages/pre/package.json": {"name": "pre", "version": "1.1.0-beta.1"},
        "packages/old/package.json": {"name": "old", "version": "1.0.0"},
        "packages/fileref/package.json": {"name": "fileref", "version": "0.0.1"},
        "packages/star/package.json": {"name": "star", "version": "3.0.0"},
        "packages/linked/package.json": {"name": "linked", "version": "3.0.0"},
        "packages/src/a.ts": SYNTAX_FILE,
        "packages/events/package.json": {"name": "events", "version": "1.0.0", "main": "i.js"},
    }
    for i in range(1, 25):
        manifest = {"name": f"t{i:02d}", "version": "1.0.0", "main": "index.js"}
        if i == 22:
            manifest["exports"] = {"./*": "./src/*.js"}
        if i == 23:
            del manifest["main"]
        files[f"packages/t{i:02d}/package.json"] = manifest
    for rel, data in files.items():
        path = ws / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(data if isinstance(data, str) else json.dumps(data))
    nx = Nx(ws, tmp_path / "state")
    expected = nx_edges(nx.graph(tmp_path / "graph.json"))
    static = NxAdapter(ws, AdapterOptions(source="static")).load(InputTracker(ws))
    assert ctxsel_edges(static) == expected


@pytest.mark.parametrize("files", [
    "libs/ui/src/button.tsx",
    "nx.json",
    "packages/plugin/src/index.js,libs/pyproj/src/helpers.js",
    "packages/standalone/src/index.ts",
])
def test_cli_files_matches_nx_affected_files(oracle, cli, files):
    nx, _, _, _ = oracle
    out = cli("--repo", str(nx.root), "--adapter", "nx", "--source", "static", "--no-cache",
              "blast-radius", "--files", files, "--format", "labels")
    assert out.returncode == 0, out.stderr
    assert set(out.stdout.split()) == nx.affected(*files.split(","))


def test_git_range_with_a_rename_matches_nx(tmp_path, cli):
    """``--base A --head B`` against ``nx show projects --affected --base --head``: a moved
    file counts for the project it left and the one it joined, as in Nx."""
    ws = tmp_path / "ws"
    shutil.copytree(FIXTURE, ws)
    git = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "commit.gpgsign=false"]

    def sh(*argv: str) -> None:
        run(list(argv), cwd=ws)

    sh("git", "init", "-q", "-b", "main")
    sh("git", "add", "-A")
    sh(*git, "commit", "-qm", "fixture")
    (ws / "libs/shared/src/strings.ts").write_text("export const upper = (s: string) => s.toLocaleUpperCase();\n")
    sh("git", "mv", "packages/docs/src/index.js", "packages/standalone/src/docs.js")
    sh("git", "add", "-A")
    sh(*git, "commit", "-qm", "change")
    nx = Nx(ws, tmp_path / "state")
    expected = set(nx.json("show", "projects", "--affected", "--base=HEAD~1", "--head=HEAD", "--json"))
    out = cli("--repo", str(ws), "--adapter", "nx", "--source", "static", "--no-cache",
              "blast-radius", "--base", "HEAD~1", "--head", "HEAD", "--format", "labels")
    assert out.returncode == 0, out.stderr
    assert set(out.stdout.split()) == expected
    assert {"@ws/docs", "@ws/standalone", "shared"} <= expected


def test_ignore_files_decide_which_projects_exist(tmp_path):
    """Nx honours .gitignore (nested ones too) even outside a git repository, and does not
    skip dist/ by itself."""
    ws = tmp_path / "ws"
    shutil.copytree(FIXTURE, ws)
    for rel, text in {
        "build-output/copy/project.json": '{"name": "ghost"}',
        ".gitignore": "build-output/\n",
        "sub/inner/project.json": '{"name": "ghost2"}',
        "sub/.gitignore": "inner\n",
        "dist/x/project.json": '{"name": "from-dist"}',
    }.items():
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(text)
    nx = Nx(ws, tmp_path / "state")
    expected = set(nx.graph(tmp_path / "graph.json")["nodes"])
    static = NxAdapter(ws, AdapterOptions(source="static")).load(InputTracker(ws))
    assert set(static) == expected
    assert "from-dist" in expected and "ghost" not in expected


def test_installed_workspace_links_resolve_like_nx(tmp_path):
    """With dependencies installed, Nx follows node_modules links into workspace packages:
    a deep import of an existing file is an edge, of a missing one is not, and a package
    installed from the registry (a real directory) is never a project."""
    ws = tmp_path / "ws"
    shutil.copytree(FIXTURE, ws)
    (ws / "apps/app/node_modules/@ws").mkdir(parents=True)
    (ws / "apps/app/node_modules/@ws/core").symlink_to("../../../../packages/core-lib")
    (ws / "node_modules/@ws").mkdir(parents=True)
    (ws / "node_modules/@ws/docs").symlink_to("../../packages/docs")
    (ws / "node_modules/@ws/plugin/src").mkdir(parents=True)  # a registry copy, not a link
    (ws / "node_modules/@ws/plugin/package.json").write_text('{"name": "@ws/plugin", "version": "9.0.0"}')
    (ws / "node_modules/@ws/plugin/src/x.js").write_text("")
    (ws / "apps/app/src/deep.ts").write_text(
        "import a from '@ws/core/src/index';\nimport b from '@ws/core/src/missing';\n"
        "import c from '@ws/docs/src/index';\nimport d from '@ws/plugin/src/x';\n"
    )
    (ws / "apps/cli/src/deep.ts").write_text("import b from '@ws/core/src/index';\n")  # no link from cli
    nx = Nx(ws, tmp_path / "state")
    expected = nx_edges(nx.graph(tmp_path / "graph.json"))
    static = NxAdapter(ws, AdapterOptions(source="static")).load(InputTracker(ws))
    assert ctxsel_edges(static) == expected
    assert ("@ws/app", "@ws/core", "static") in expected and ("@ws/app", "@ws/docs", "static") in expected
    assert ("@ws/app", "@ws/plugin", "static") not in expected and ("@ws/cli", "@ws/core", "static") not in expected
