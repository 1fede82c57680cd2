"""Nx static mode without the real nx: the import scanner, project discovery, bad input.

The expectations below were measured with Nx 24.0.6 (``nx graph``); test_nx_oracle.py
re-checks the fixture against the real tool whenever it is installed.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ctxsel.adapters.base import AdapterOptions
from ctxsel.adapters.js.nx import NxAdapter, js_plugin_config
from ctxsel.adapters.js.nx_imports import find_imports
from ctxsel.cache import InputTracker

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "js-nx"


def static_graph(root: Path):
    adapter = NxAdapter(root, AdapterOptions(source="static"))
    return adapter, adapter.load(InputTracker(root))


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    dest = tmp_path / "ws"
    shutil.copytree(FIXTURE, dest, ignore=shutil.ignore_patterns(".ctxsel", "node_modules"))
    return dest


def write(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2))


# ---------------------------------------------------------------- the import scanner
# (source, static specifiers, dynamic specifiers) -- each row measured with nx graph
SCANNER_CASES = [
    ("import x from 'a';", ["a"], []),
    ("import 'a';", ["a"], []),
    ("import type { T } from 'a';", ["a"], []),
    ("import x = require('a');", ["a"], []),
    ("export * from 'a';", ["a"], []),
    ("export { b } from 'a';", ["a"], []),
    ("export type { T } from 'a';", ["a"], []),
    ("const a = require('a');", ["a"], []),
    ("const a = require(`a`);", ["a"], []),
    ("require.resolve('a');", ["a"], []),
    ("foo.require('a');", ["a"], []),
    ("const a = import('a');", [], ["a"]),
    ("const a = import(`a`);", [], ["a"]),
    ("export default function () { return require('a') }", [], ["a"]),
    ("if (x) { import('a').then(() => 1) }", [], ["a"]),
    ("const t = `a ${ `b ${ require('a') }` }`;", ["a"], []),
    ("let q = a ? `x` : require('a');", ["a"], []),
    ("const x = 1 / 2; const y = require('a');", ["a"], []),
    ("const re = /'b'/; const r = require('a');", ["a"], []),
    # not imports
    ("jest.mock('a');", [], []),
    ("declare module 'a' {}", [], []),
    ("// import x from 'a';", [], []),
    ("/* require('a') */", [], []),
    ("const s = \"import x from 'a'\";", [], []),
    ("const s = `require('a') ${x}`;", [], []),
    ("const o = { import: 'a', require: 'b' };", [], []),
    ("require(`a-${x}`);", [], []),
    ("// nx-ignore-next-line\nimport x from 'a';", [], []),
    ("/* nx-ignore-next-line */\nimport x from 'a';\nimport 'b';", ["b"], []),
]


@pytest.mark.parametrize("source,static,dynamic", SCANNER_CASES)
def test_scanner_finds_what_nx_finds(source, static, dynamic):
    found = find_imports(source)
    assert (found.static, found.dynamic) == (static, dynamic)


def test_scanner_survives_unterminated_strings_and_jsx_text():
    found = find_imports("const el = <p>it's</p>;\nconst m = require('a');\nconst bad = 'open\n")
    assert found.static == ["a"]


# ---------------------------------------------------------------- the fixture graph
def edges(graph) -> set[tuple[str, str, str]]:
    return {(s, d, t) for s, d, types in graph.edges() for t in types}


def test_import_only_edges(ws):
    _, graph = static_graph(ws)
    e = edges(graph)
    assert ("ui", "shared", "static") in e  # wildcard tsconfig path alias
    assert ("web", "ui", "static") in e  # exact tsconfig path alias
    assert ("web", "pyproj", "static") in e  # relative import crossing project roots
    assert ("web", "@ws/utils", "static") in e  # subpath export of a workspace package
    assert ("web", "@ws/app", "dynamic") in e  # import()


def test_text_in_comments_and_strings_is_no_edge(ws):
    _, graph = static_graph(ws)
    assert graph.dependencies("@ws/standalone") == []


def test_plain_range_links_only_when_satisfied(ws):
    _, graph = static_graph(ws)
    assert "@ws/core" in graph.dependencies("@ws/testkit")  # ^1.0.0 on 1.0.0
    assert "@ws/core" not in graph.dependencies("@ws/docs")  # ^2.0.0 on 1.0.0


def test_implicit_globs_and_negation(ws):
    _, graph = static_graph(ws)
    deps = set(graph.dependencies("e2e-suite"))
    assert "pyproj" in deps and "@ws/app-e2e" in deps
    assert "@ws/standalone" not in deps and "web" not in deps
    assert graph.edge_types("pyproj", "@ws/core") == {"implicit"}


def test_negation_removes_package_json_and_import_edges(ws):
    write(ws / "apps/app/package.json", {**json.loads((ws / "apps/app/package.json").read_text()),
                                         "nx": {"implicitDependencies": ["!@ws/api"]}})
    _, graph = static_graph(ws)
    assert graph.dependencies("@ws/app") == ["@ws/utils"]


def test_project_json_name_wins_and_targets_merge(ws):
    _, graph = static_graph(ws)
    assert "@ws/web" not in graph and "web" in graph
    assert graph.node("web").package == "apps/web"
    assert graph.node("web").meta["targets"] == ["build", "test"]


def test_target_defaults_create_no_targets(ws):
    adapter, graph = static_graph(ws)
    tested = adapter.test_nodes(graph, graph)
    assert "@ws/standalone" not in tested and "e2e-suite" not in tested and "shared" not in tested
    assert {"pyproj", "ui", "web", "@ws/core"} <= set(tested)
    assert adapter.test_command(["a", "b"]) == ["nx", "run-many", "-t", "test", "-p", "a,b"]


def test_root_package_is_a_project_only_with_an_nx_key(ws):
    _, graph = static_graph(ws)
    assert "ws-root" not in graph
    manifest = json.loads((ws / "package.json").read_text())
    write(ws / "package.json", {**manifest, "nx": {}})
    _, graph = static_graph(ws)
    assert graph.node("ws-root").package == ""
    # imports into the root project are dropped unless they start there
    write(ws / "packages/api/src/root-import.js", "require('../../../tools-at-root');\n")
    write(ws / "tools-at-root.js", "require('./packages/api/src/index.js');\n")
    _, graph = static_graph(ws)
    assert "ws-root" not in graph.dependencies("@ws/api")
    assert "@ws/api" in graph.dependencies("ws-root")


def test_source_imports_need_the_nx_js_plugin_config():
    assert js_plugin_config({}, {"devDependencies": {"@nx/js": "1"}})["analyzeSourceFiles"]
    assert not js_plugin_config({}, {"devDependencies": {"nx": "1"}})["analyzeSourceFiles"]
    assert js_plugin_config({"pluginsConfig": {"@nx/js": {}}}, {})["analyzeSourceFiles"]
    assert not js_plugin_config({"pluginsConfig": {"@nx/js": {"analyzeSourceFiles": False}}}, None)["analyzeSourceFiles"]
    assert not js_plugin_config({}, None)["analyzePackageJson"]


def test_gitignored_project_json_is_not_a_project(ws):
    write(ws / "build-output/copy/project.json", {"name": "ghost"})
    write(ws / ".gitignore", "build-output/\n")
    _, graph = static_graph(ws)
    assert "ghost" not in graph
    write(ws / "node_modules/pkg/project.json", {"name": "ghost2"})
    _, graph = static_graph(ws)
    assert "ghost2" not in graph


# ---------------------------------------------------------------- the CLI and bad input
def test_cli_blast_radius_and_tests(ws, cli):
    out = cli("--repo", str(ws), "--adapter", "nx", "--source", "static", "blast-radius", "libs/shared/src/format.ts", "--format", "labels")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["shared", "ui", "web"]
    out = cli("--repo", str(ws), "--adapter", "nx", "--source", "static", "tests", "shared", "--format", "command")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "nx run-many -t test -p ui,web"


def test_malformed_project_json_names_file_and_line(ws, cli):
    write(ws / "libs/ui/project.json", '{\n  "name": "ui",\n  "targets": {"test": }\n}\n')
    out = cli("--repo", str(ws), "--adapter", "nx", "--source", "static", "--no-cache", "blast-radius", "ui")
    assert out.returncode == 2
    assert "libs/ui/project.json:3" in out.stderr
    assert "Traceback" not in out.stderr


def test_project_json_with_comments_and_trailing_commas_is_accepted(ws):
    write(ws / "libs/ui/project.json", '{\n  // Nx reads JSON with comments\n  "name": "ui", /* here too */\n  "targets": {"test": {},},\n}\n')
    _, graph = static_graph(ws)
    assert graph.node("ui").meta["has_test"]


def test_implicit_dependency_on_a_missing_project_is_an_error(ws, cli):
    write(ws / "libs/pyproj/project.json", {"name": "pyproj", "implicitDependencies": ["@ws/core", "@ws/nope"]})
    out = cli("--repo", str(ws), "--adapter", "nx", "--source", "static", "--no-cache", "blast-radius", "pyproj")
    assert out.returncode == 2
    assert "libs/pyproj/project.json" in out.stderr and "@ws/nope" in out.stderr


def test_negated_missing_project_is_accepted(ws):
    write(ws / "libs/pyproj/project.json", {"name": "pyproj", "implicitDependencies": ["@ws/core", "!@ws/gone"]})
    _, graph = static_graph(ws)
    assert graph.dependencies("pyproj") == ["@ws/core"]


def test_package_name_selects_its_project(ws):
    adapter, graph = static_graph(ws)
    assert adapter.resolve(graph, "@ws/web") == ["web"]


def test_unknown_project_suggests_close_names(ws, cli):
    out = cli("--repo", str(ws), "--adapter", "nx", "--source", "static", "--no-cache", "blast-radius", "@ws/utls")
    assert out.returncode == 2
    assert "@ws/utils" in out.stderr


def test_import_cache_follows_edits_and_respects_no_cache(ws, cli):
    args = ["--repo", str(ws), "--adapter", "nx", "--source", "static"]
    out = cli(*args, "--no-cache", "blast-radius", "ui", "--format", "labels")
    assert out.returncode == 0 and "web" in out.stdout.split()
    assert not (ws / ".ctxsel/cache/nx-imports.pickle").exists()
    assert "web" in cli(*args, "blast-radius", "ui", "--format", "labels").stdout.split()
    assert (ws / ".ctxsel/cache/nx-imports.pickle").exists()
    main = ws / "apps/web/src/main.tsx"
    main.write_text(main.read_text().replace("import { label } from '@ws/ui';", "const label = (s: string) => s;"))
    out = cli(*args, "blast-radius", "ui", "--format", "labels")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["ui"]


def test_auto_source_uses_nx_only_when_the_repo_installed_it(ws, monkeypatch):
    adapter = NxAdapter(ws, AdapterOptions(source="auto"))
    monkeypatch.setattr(adapter, "find_tool", lambda: "/usr/local/bin/nx")
    assert adapter.resolved_source() == "static"
    (ws / "node_modules/nx").mkdir(parents=True)
    assert adapter.resolved_source() == "tool"
    assert NxAdapter(ws, AdapterOptions(source="static")).resolved_source() == "static"


def test_two_projects_with_one_name_is_an_error(ws, cli):
    # nx: "The following projects are defined in multiple locations" (measured)
    write(ws / "libs/copy/project.json", {"name": "ui"})
    out = cli("--repo", str(ws), "--adapter", "nx", "--source", "static", "--no-cache", "blast-radius", "ui")
    assert out.returncode == 2
    assert "'ui'" in out.stderr and "libs/copy" in out.stderr and "libs/ui" in out.stderr
