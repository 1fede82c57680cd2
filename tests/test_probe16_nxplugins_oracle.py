"""Differential: nx 24.0.6 with its official plugins vs ctxsel's static Nx mode (and tool mode).

The fixtures are ``test_probe16_nxplugins_static.CASES`` (their expected answers were taken
from these runs) plus a few seeded random workspaces: config files in various places,
include/exclude, options, string and object plugin entries, project.json/package.json
targets over inferred ones, targetDefaults. Skips, saying why, without
``.ci/oracles-nx-plugins.sh``'s install.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli, write_tree
from nx_plugin_oracles import NX, nx_affected_tests, nx_graph_nodes, require_nx_plugins
from test_probe16_nxplugins_static import CASES, JEST_CFG, VITEST_CFG, Case, make, pkg, static


def tool_tests(root: Path, files: list[str]) -> set[str]:
    """``ctxsel --source tool tests`` with the plugins' nx first on PATH."""
    import subprocess
    import sys

    env = dict(os.environ, PATH=f"{NX.parent}{os.pathsep}{os.environ.get('PATH', '')}",
               VITE_CONFIG_NATIVE_IGNORE_WARNING="true")
    proc = subprocess.run([sys.executable, "-m", "ctxsel", "--repo", str(root), "--no-cache", "-q", "--adapter", "nx",
                           "--source", "tool", "tests", "--format", "json", "--files", ",".join(files)],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(proc.stdout)["tests"])


def static_tests(root: Path, files: list[str]) -> set[str]:
    proc = run_cli("--repo", str(root), "--no-cache", "-q", "--adapter", "nx", "--source", "static",
                   "tests", "--format", "json", "--files", ",".join(files))
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(proc.stdout)["tests"])


def compare(root: Path, changed: list[str]) -> None:
    """Projects, test targets and their inputs, and the tests each change selects: nx == static == tool."""
    nodes = nx_graph_nodes(root)
    _, graph = static(root)
    assert {n.id for n in graph.nodes()} == set(nodes)
    nx_tests = {name for name, node in nodes.items() if "test" in node["data"].get("targets", {})}
    assert {n.id for n in graph.nodes() if n.meta.get("has_test")} == nx_tests
    for name in nx_tests:
        target = nodes[name]["data"]["targets"]["test"]
        assert graph.node(name).meta["inputs"].get("test") == target.get("inputs"), name
        assert graph.node(name).meta["depends_on"].get("test") == (target.get("dependsOn") or None), name
    for path in changed:
        expected = nx_affected_tests(root, [path])
        assert static_tests(root, [path]) == expected, path
        assert tool_tests(root, [path]) == expected, path


@pytest.mark.parametrize("name", sorted(CASES))
def test_fixed_cases_agree_with_nx(tmp_path: Path, name: str) -> None:
    require_nx_plugins()
    case = CASES[name]
    root = make(tmp_path, case)
    assert {n for n, node in nx_graph_nodes(root).items() if "test" in node["data"].get("targets", {})} == case.with_test
    for changed, expected in case.affected.items():
        assert nx_affected_tests(root, [changed]) == expected, changed
    compare(root, sorted(case.affected))


def random_case(seed: int) -> tuple[Case, list[str]]:
    """A small random workspace of the kinds above (seeded: the same input every run)."""
    r = random.Random(seed)
    plugins: list[Any] = []
    for plugin, key in (("@nx/vitest", "testTargetName"), ("@nx/jest/plugin", "targetName")):
        for _ in range(r.choice([0, 1, 1, 2])):
            entry: dict[str, Any] = {"plugin": plugin}
            if r.random() < 0.4:
                entry["options"] = {key: r.choice(["test", "unit"])}
            if r.random() < 0.4:
                entry["include"] = r.sample(["packages/**", "other/**", "packages/p1/**", "**/p2/*", "!packages/p3/**"], 2)
            if r.random() < 0.3:
                entry["exclude"] = r.sample(["*", "packages/p0/**", "other/**", "**/vite.config.*"], 1)
            plugins.append(plugin if len(entry) == 1 and r.random() < 0.6 else entry)
    r.shuffle(plugins)
    nx_json: dict[str, Any] = {"plugins": plugins}
    if r.random() < 0.5:
        nx_json["namedInputs"] = {"default": ["{projectRoot}/**/*"], "production": ["default", "!{projectRoot}/**/*.spec.ts"]}
    if r.random() < 0.5:
        nx_json["targetDefaults"] = {"test": r.choice([
            {"dependsOn": ["^build"]}, {"inputs": ["{projectRoot}/src/**/*"]},
            [{"filter": {"plugin": "@nx/vitest"}, "inputs": ["{projectRoot}/src/**/*"]}],
            [{"filter": {"plugin": "@nx/jest/plugin"}, "dependsOn": ["^build"]}]])}
    files: dict[str, Any] = {"nx.json": nx_json, "shared.txt": "x\n"}
    names: list[str] = []
    for i in range(r.randint(2, 5)):
        d = f"{r.choice(['packages', 'packages', 'other'])}/p{i}"
        name, kind = f"n{i}", r.choice(["pkg", "pkg", "proj", "both"])
        deps = [n for n in names if r.random() < 0.4]
        if kind in ("pkg", "both"):
            extra: dict[str, Any] = {}
            if r.random() < 0.25:
                extra["scripts"] = {"test": "echo t"}
            if r.random() < 0.15:
                extra["nx"] = {"targets": {"test": {"inputs": ["{projectRoot}/src/**/*"]}}}
            files[f"{d}/package.json"] = pkg(name, *deps, **extra)
        if kind in ("proj", "both"):
            pj: dict[str, Any] = {"name": name}
            if kind == "proj" and deps:
                pj["implicitDependencies"] = deps
            pj.update(r.choice([{}, {}, {"targets": {"test": {"command": "echo own"}}},
                                {"targets": {"test": {"inputs": ["{projectRoot}/src/**/*", "^default"]}}},
                                {"targets": {"test": {"dependsOn": ["build"], "inputs": ["...", "{workspaceRoot}/shared.txt"]}}}]))
            files[f"{d}/project.json"] = pj
        if not (kind == "pkg" and d.startswith("other/")):
            names.append(name)  # a package.json outside the globs is a project only if a plugin makes one
        config = r.choice(["vitest.config.ts", "vitest.config.mts", "vite.config.ts", "jest.config.js", "none"])
        if config == "vite.config.ts":
            files[f"{d}/{config}"] = r.choice([VITEST_CFG, "export default { build: {} };\n"])
        elif config != "none":
            files[f"{d}/{config}"] = JEST_CFG if config.startswith("jest") else VITEST_CFG
        files[f"{d}/src/index.ts"] = "export const x = 1;\n"
    changed = sorted(r.sample([f for f in files if f.endswith(("index.ts", ".txt", "config.ts"))], 2))
    return Case(files, set()), changed


@pytest.mark.parametrize("seed", range(3))
def test_random_workspaces_agree_with_nx(tmp_path: Path, seed: int) -> None:
    require_nx_plugins()
    case, changed = random_case(seed)
    root = write_tree(tmp_path / "ws", case.tree())
    compare(root, changed)
