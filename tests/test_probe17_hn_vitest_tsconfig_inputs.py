"""@nx/vitest's ``json`` inputs: the tsconfig files outside a project that esbuild reads.

Found by differential testing (``/tmp/dev17/HN/gen.py``): @nx/vitest 23.2.1 adds to each
``test`` target ``{"json": "{workspaceRoot}/<f>", "fields": ["compilerOptions"]}`` for every
tsconfig outside the project that the ``extends`` chains of the project's tsconfig.json, of
its ancestor directories' tsconfig.json and of the root tsconfig.json reach -- except the root
tsconfig Nx hashes anyway (tsconfig.base.json when there is one: then a solution-style root
tsconfig.json *is* such an input). ``nx affected -t test`` selects the task when that file
changes: with ``--files`` at all, over a git range only when ``compilerOptions`` changed.
ctxsel neither listed the inputs nor read ``json`` inputs, and selected nothing.

Expected answers are nx 24.0.6's; ``test_real_nx_gives_the_same_answers`` asks it again and
skips, saying why, without ``.ci/oracles-nx-plugins.sh``'s install.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_git, write_tree
from jsfixtures import selected_tests
from nx_plugin_oracles import nx_affected_tests, nx_graph_nodes, require_nx_plugins, run_nx
from test_probe16_nxplugins_static import LOCK, ROOT_PKG, VITEST_CFG, pkg, static

FILES = {
    "package.json": ROOT_PKG, "package-lock.json": LOCK, "nx.json": {"plugins": ["@nx/vitest"]},
    "tsconfig.base.json": {"compilerOptions": {"strict": True}},
    "tsconfig.json": {"extends": "./tsconfig.base.json", "compilerOptions": {"noEmit": True}, "files": []},
    "tsconfig.options.json": {"compilerOptions": {"strict": True}},
    "packages/a/package.json": pkg("a"), "packages/a/vitest.config.ts": VITEST_CFG,
    "packages/a/tsconfig.json": {"extends": "../../tsconfig.options"},
    "packages/b/package.json": pkg("b"), "packages/b/vitest.config.ts": VITEST_CFG,
    "packages/c/package.json": pkg("c"), "packages/c/jest.config.js": "module.exports = {};\n",
}
#: --files F -> tests nx affected -t test selects
BY_FILES = {"tsconfig.json": {"a", "b"}, "tsconfig.options.json": {"a"}}
#: the new tsconfig.options.json over HEAD~1..HEAD -> tests selected
BY_RANGE = {"compilerOptions": ({"compilerOptions": {"strict": False}}, {"a"}),
            "other field": ({"compilerOptions": {"strict": True}, "include": ["x"]}, set())}


def make(root: Path, change: str | None = None) -> Path:
    write_tree(root, {k: v if isinstance(v, str) else json.dumps(v, indent=2) for k, v in FILES.items()})
    if change is not None:
        run_git(root, "init", "-q", "-b", "main")
        run_git(root, "add", "-A")
        run_git(root, "commit", "-qm", "workspace")
        write_tree(root, {"tsconfig.options.json": json.dumps(BY_RANGE[change][0])})
        run_git(root, "commit", "-qam", change)
    return root


def ctxsel_tests(root: Path, *how: str) -> set[str]:
    return selected_tests(root, "nx", *how)


def test_the_test_targets_list_the_tsconfig_json_inputs(tmp_path: Path) -> None:
    _, graph = static(make(tmp_path / "ws"))
    json_inputs = {n.id: [i["json"] for i in n.meta["inputs"]["test"] if isinstance(i, dict) and "json" in i]
                   for n in graph.nodes() if n.meta.get("has_test")}
    assert json_inputs == {"a": ["{workspaceRoot}/tsconfig.options.json", "{workspaceRoot}/tsconfig.json"],
                           "b": ["{workspaceRoot}/tsconfig.json"]}


@pytest.mark.parametrize("path", sorted(BY_FILES))
def test_a_changed_tsconfig_selects_the_tests_reading_it(tmp_path: Path, path: str) -> None:
    assert ctxsel_tests(make(tmp_path / "ws"), "--files", path) == BY_FILES[path]


@pytest.mark.parametrize("change", sorted(BY_RANGE))
def test_over_a_git_range_only_compiler_options_count(tmp_path: Path, change: str) -> None:
    root = make(tmp_path / "ws", change)
    assert ctxsel_tests(root, "--base", "HEAD~1", "--head", "HEAD") == BY_RANGE[change][1]


@pytest.mark.oracle
def test_real_nx_gives_the_same_answers(tmp_path: Path) -> None:
    require_nx_plugins()
    root = make(tmp_path / "ws")
    nodes = nx_graph_nodes(root)
    _, graph = static(root)
    for name, node in nodes.items():
        if "test" in node["data"]["targets"]:
            assert graph.node(name).meta["inputs"]["test"] == node["data"]["targets"]["test"]["inputs"], name
    for path, expected in BY_FILES.items():
        assert nx_affected_tests(root, [path]) == expected, path
    for n, (change, (_, expected)) in enumerate(sorted(BY_RANGE.items())):
        ranged = make(tmp_path / f"r{n}", change)
        out = tmp_path / f"r{n}.json"
        proc = run_nx(ranged, "affected", "-t", "test", "--base=HEAD~1", "--head=HEAD", f"--graph={out}")
        assert proc.returncode == 0, proc.stderr[-1000:]
        tasks = json.loads(out.read_text())["tasks"]["tasks"]
        assert {t["target"]["project"] for t in tasks.values()} == expected, change
