"""Nx static mode and the official plugins that infer no ``test`` target: @nx/vite/plugin,
@nx/js/typescript, @nx/eslint/plugin (23.2.1, beside nx 24.0.6).

Found by differential testing (``/tmp/dev17/HN/gen.py``: random workspaces listing these
plugins, ``nx graph`` and ``nx show projects --affected --files=F`` against ctxsel's static
graph and blast radius):

- @nx/vite/plugin infers no ``test`` target, ``testTargetName`` or a ``test`` block
  notwithstanding (so ``ctxsel tests`` was right to find none), but it, @nx/js/typescript and
  @nx/eslint/plugin make a project at a package.json the package manager's globs leave out.
  ctxsel left those projects out. Such a project has no package name for Nx: its own
  dependencies make edges, but nothing depending on (or importing) it does.
- Their targets carry inputs: ``typecheck`` (``default``/``production``, or the tsconfig files
  and include globs, ``{workspaceRoot}/...`` outside the project), ``lint`` (the root and own
  eslint configs, ``tools/eslint-rules``), vite's ``build`` (``production``). A workspace file
  those name -- ``sharedGlobals``, the root eslint config, a tsconfig the project's extends
  -- touches the project in ``nx show projects --affected``. ctxsel knew no such target, so
  it touched nothing.

The expected answers are what nx gave; ``test_real_nx_gives_the_same_answers`` asks it
again and skips, saying why, without ``.ci/oracles-nx-plugins.sh``'s install.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli, write_tree
from nx_plugin_oracles import nx_graph_nodes, require_nx_plugins, run_nx
from test_probe16_nxplugins_static import LOCK, ROOT_PKG, pkg, static

SHARED = {"default": ["{projectRoot}/**/*", "sharedGlobals"], "sharedGlobals": ["{workspaceRoot}/g.txt"]}
SRC = "export const x = 1;\n"
CASES: dict[str, tuple[dict[str, Any], set[str], dict[str, set[str]]]] = {
    # name -> (files, projects nx makes, changed file -> nx show projects --affected)
    "vite plugin: no test target, projects outside the globs, build and typecheck": ({
        "nx.json": {"namedInputs": SHARED, "plugins": [
            {"plugin": "@nx/vite/plugin", "options": {"testTargetName": "test"}}]},
        "packages/a/package.json": pkg("a"), "packages/a/vite.config.ts": "export default { test: {} };\n",
        "packages/b/package.json": pkg("b"), "packages/b/vite.config.ts": "export default { build: { lib: { entry: 'i.ts' } } };\n",
        "packages/c/package.json": pkg("c", "b"), "packages/c/vite.config.mts": "export default {};\n",
        "packages/c/index.html": "<html></html>",
        "packages/d/package.json": pkg("d"), "packages/d/vite.config.ts": "export default {};\n",
        "packages/d/tsconfig.json": {},
        "tools/x/package.json": pkg("x", "a"), "tools/x/vite.config.ts": "export default {};\n", "tools/x/src/i.ts": SRC,
        # e names x (a dependency, an import): no edge, Nx gives a plugin-made project no package name
        "packages/e/package.json": pkg("e", "x"), "packages/e/src/i.ts": "import { x } from 'x';\n",
    }, {"a", "b", "c", "d", "e", "x"}, {"g.txt": {"b", "c", "d"}, "tools/x/src/i.ts": {"x"},
                                        "packages/a/vite.config.ts": {"a", "x"}}),
    "eslint plugin: a project's own config": ({
        "nx.json": {"plugins": [{"plugin": "@nx/eslint/plugin", "options": {"targetName": "eslint"}}]},
        "eslint.config.mjs": "export default [];\n",
        "tsconfig.options.json": {"compilerOptions": {}},
        "packages/a/package.json": pkg("a"), "packages/a/eslint.config.mjs": "export default [];\n",
        "packages/a/tsconfig.json": {"extends": "../../tsconfig.options.json"},
        "packages/b/package.json": pkg("b", "a"), "packages/b/.eslintrc.json": "{}",
        "tools/z/package.json": pkg("z"), "tools/z/eslint.config.js": "module.exports = [];\n",
        "tools/eslint-rules/r.js": "",
    }, {"a", "b", "z"}, {"eslint.config.mjs": {"a", "b", "z"}, "tools/eslint-rules/r.js": {"a", "b", "z"},
                         "tsconfig.options.json": {"a", "b"}}),
    "typescript plugin: typecheck inputs": ({
        "nx.json": {"namedInputs": SHARED, "plugins": ["@nx/js/typescript"]},
        "tsconfig.base.json": {"compilerOptions": {}},
        "tsconfig.options.json": {"compilerOptions": {"allowJs": True}},
        "packages/a/package.json": pkg("a"), "packages/a/tsconfig.json": {"extends": "../../tsconfig.base.json"},
        "packages/b/package.json": pkg("b"),
        "packages/b/tsconfig.json": {"files": [], "include": [], "references": [{"path": "./tsconfig.lib.json"}]},
        "packages/b/tsconfig.lib.json": {"extends": "../../tsconfig.options", "include": ["src"], "exclude": ["dist"]},
        "packages/c/package.json": pkg("c", "b"), "packages/c/tsconfig.json": {"nx": {"addTypecheckTarget": False}},
        "packages/d/package.json": pkg("d"), "packages/d/tsconfig.json": {}, "packages/d/next.config.js": "",
        "tools/y/package.json": pkg("y"), "tools/y/tsconfig.json": {"include": ["../shared/**/*.ts"]},
        "tools/shared/u.ts": SRC,
        "packages/e/package.json": pkg("e", "c"),
        "packages/e/tsconfig.json": {"extends": "../../tsconfig.options", "include": ["src/**/*.ts"]},
    }, {"a", "b", "c", "d", "e", "y"}, {"g.txt": {"a"}, "tsconfig.options.json": {"e"}, "tools/shared/u.ts": {"y"}}),
}


def make(tmp_path: Path, name: str) -> Path:
    root = tmp_path / "ws"
    files = {"package.json": ROOT_PKG, "package-lock.json": LOCK, "g.txt": "", **CASES[name][0]}
    write_tree(root, {k: v if isinstance(v, str) else json.dumps(v, indent=2) for k, v in files.items()})
    return root


def blast(root: Path, path: str) -> set[str]:
    proc = run_cli("--repo", str(root), "--no-cache", "-q", "--adapter", "nx", "--source", "static", "blast-radius",
                   "--files", path, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    return {a["id"] for a in json.loads(proc.stdout)["affected"]}


@pytest.mark.parametrize("name", sorted(CASES))
def test_static_mode_has_the_projects_and_touches_that_nx_has(tmp_path: Path, name: str) -> None:
    root = make(tmp_path, name)
    _, graph = static(root)
    assert {n.id for n in graph.nodes()} == CASES[name][1]
    assert not any(n.meta.get("has_test") for n in graph.nodes())
    for path, expected in CASES[name][2].items():
        assert blast(root, path) == expected, path


def test_the_eslint_plugin_warns_about_inherited_configs(tmp_path: Path) -> None:
    adapter, _ = static(make(tmp_path, "eslint plugin: a project's own config"))
    assert any("'@nx/eslint/plugin' (lint targets of projects without their own eslint config)" in w
               for w in adapter.warnings), adapter.warnings


@pytest.mark.oracle
@pytest.mark.parametrize("name", sorted(CASES))
def test_real_nx_gives_the_same_answers(tmp_path: Path, name: str) -> None:
    require_nx_plugins()
    root = make(tmp_path, name)
    nodes = nx_graph_nodes(root)
    assert set(nodes) == CASES[name][1]
    assert not any("test" in n["data"].get("targets", {}) for n in nodes.values())
    _, graph = static(root)
    for project, node in nodes.items():  # the inferred targets' inputs, literally
        for target, spec in node["data"]["targets"].items():
            if spec.get("inputs"):
                assert graph.node(project).meta["inputs"].get(target) == spec["inputs"], (project, target)
    for path, expected in CASES[name][2].items():
        out = run_nx(root, "show", "projects", "--affected", f"--files={path}", "--json").stdout
        assert set(json.loads(out[out.index("["):])) == expected, path
