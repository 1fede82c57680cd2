"""Targets that nx.json ``plugins`` infer, in Nx static mode (``adapters/js/nx_plugins.py``).

Every fixture here is a workspace whose ``test`` targets come (partly) from ``@nx/vitest`` or
``@nx/jest/plugin``. The expected answers are what nx 24.0.6 with the 23.2.1 plugins gave
(``.ci/oracles-nx-plugins.sh``); ``test_probe16_nxplugins_oracle.py`` asks the real nx again
for every fixture in ``CASES`` and skips, saying why, when it is not installed. Before
``nx_plugins`` static mode found none of these targets (it only warned that plugins exist).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli, write_tree

from ctxsel.adapters.base import AdapterOptions
from ctxsel.adapters.js.nx import NxAdapter
from ctxsel.cache import InputTracker

#: a lockfile that locks vitest and jest: without it nx refuses ``affected -t test`` on the
#: plugins' ``{"externalDependencies": ["vitest"]}`` input
LOCK = {"name": "root", "lockfileVersion": 3, "requires": True, "packages": {
    "": {"name": "root", "workspaces": ["packages/*"], "devDependencies": {"vitest": "4.1.9", "jest": "30.5.2"}},
    "node_modules/vitest": {"version": "4.1.9", "resolved": "https://r/vitest-4.1.9.tgz", "integrity": "sha512-a", "dev": True},
    "node_modules/jest": {"version": "30.5.2", "resolved": "https://r/jest-30.5.2.tgz", "integrity": "sha512-b", "dev": True},
}}
ROOT_PKG = {"name": "root", "private": True, "workspaces": ["packages/*"], "devDependencies": {"vitest": "4.1.9", "jest": "30.5.2"}}
VITEST_CFG = "export default { test: {} };\n"
JEST_CFG = "module.exports = {};\n"


def pkg(name: str, *deps: str, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"name": name, "version": "1.0.0", **extra}
    if deps:
        body["dependencies"] = {d: "*" for d in deps}
    return body


@dataclass
class Case:
    """A workspace, the projects with a ``test`` target, and for changed files the tests selected."""

    files: dict[str, Any]
    with_test: set[str]
    affected: dict[str, set[str]] = field(default_factory=dict)
    warns: tuple[str, ...] = ()

    def tree(self) -> dict[str, str]:
        files = {"package.json": ROOT_PKG, "package-lock.json": LOCK, **self.files}
        return {k: v if isinstance(v, str) else json.dumps(v, indent=2) for k, v in files.items()}


CASES: dict[str, Case] = {
    # angular-eslint's shape: packages with only a vitest.config.mts; e2e/ a project.json project
    # whose plugin entry renames the target (e2e-local) and asks for atomized ci targets
    "angular-eslint shape": Case({
        "nx.json": {"plugins": [
            {"plugin": "@nx/vitest", "options": {"testTargetName": "e2e-local", "ciTargetName": "e2e-ci"}, "include": ["e2e/**/*"]},
            {"plugin": "@nx/vitest", "options": {"testTargetName": "test"}, "include": ["packages/**"]},
        ], "targetDefaults": {"test": {"dependsOn": ["^build"]}}},
        "packages/a/package.json": pkg("a"), "packages/a/vitest.config.mts": VITEST_CFG, "packages/a/src/i.ts": "",
        "packages/b/package.json": pkg("b", "a"), "packages/b/vitest.config.mts": VITEST_CFG,
        "packages/c/package.json": pkg("c", "a"), "packages/c/src/i.ts": "",
        "e2e/project.json": {"name": "e2e", "implicitDependencies": ["b"]}, "e2e/vitest.config.mts": VITEST_CFG,
    }, {"a", "b"}, {"packages/a/src/i.ts": {"a", "b"}, "packages/c/src/i.ts": set()}, ("ciTargetName 'e2e-ci'",)),
    # typescript-eslint's shape: exclude ["*"] drops the root config, targetDefaults inputs win
    # over the plugin's (so a dependency's change selects nothing)
    "typescript-eslint shape": Case({
        "nx.json": {"plugins": [{"plugin": "@nx/vitest", "exclude": ["*"],
                                 "options": {"testTargetName": "test", "typecheckTargetName": "vitest:typecheck"}}],
                    "targetDefaults": {"test": {"inputs": ["default", "{workspaceRoot}/vitest.config.base.mts"]}}},
        "vitest.config.mts": VITEST_CFG, "vitest.config.base.mts": VITEST_CFG,
        "packages/a/package.json": pkg("a"), "packages/a/vitest.config.mts": VITEST_CFG, "packages/a/src/i.ts": "",
        "packages/b/package.json": pkg("b", "a"), "packages/b/vitest.config.mts": VITEST_CFG,
    }, {"a", "b"}, {"packages/a/src/i.ts": {"a"}, "vitest.config.base.mts": {"a", "b"}}),
    # string form; vite.config with and without a test block (also one merged from a base file);
    # a config beside no manifest is no project; a package.json outside the workspace globs
    # makes a plugin-only project, named by its package.json
    "vite configs and roots": Case({
        "nx.json": {"plugins": ["@nx/vitest"]},
        "packages/a/package.json": pkg("a"), "packages/a/vite.config.ts": "export default { build: {} };\n",
        "packages/b/package.json": pkg("b", "a"), "packages/b/vite.config.ts": "export default { test: { environment: 'node' } };\n",
        "packages/c/package.json": pkg("c", "a"), "packages/c/vite.base.ts": VITEST_CFG,
        "packages/c/vite.config.ts": "import base from './vite.base';\nexport default { ...base, build: {} };\n",
        "tools/loose/vitest.config.ts": VITEST_CFG,
        "other/d/package.json": pkg("@x/dee", "a"), "other/d/vitest.config.js": "module.exports = { test: {} };\n",
        "packages/a/src/i.ts": "",
    }, {"b", "c", "@x/dee"}, {"packages/a/src/i.ts": {"b", "c", "@x/dee"}}),
    # jest: a project.json root, a package.json in the globs; not a package.json outside them,
    # nor a config with getJestProjectsAsync(); targetName renames the target
    "jest roots": Case({
        "nx.json": {"plugins": [{"plugin": "@nx/jest/plugin", "options": {"targetName": "test"}}]},
        "packages/a/package.json": pkg("a"), "packages/a/jest.config.js": JEST_CFG, "packages/a/src/i.ts": "",
        "packages/b/package.json": pkg("b", "a"),
        "packages/b/jest.config.js": "module.exports = { projects: getJestProjectsAsync() };\nfunction getJestProjectsAsync() { return []; }\n",
        "libs/c/project.json": {"name": "c", "implicitDependencies": ["a"]}, "libs/c/jest.config.ts": "export default {};\n",
        "other/d/package.json": pkg("d", "a"), "other/d/jest.config.js": JEST_CFG,
    }, {"a", "c"}, {"packages/a/src/i.ts": {"a", "c"}}),
    # layering: a package.json script replaces the plugin's target (nx:run-script, the plugin's
    # inputs gone); a project.json command replaces it together with package.json nx.targets
    # inputs that had merged into it; project.json inputs alone merge into it
    "own targets over inferred": Case({
        "nx.json": {"plugins": ["@nx/vitest", "@nx/jest/plugin"],
                    "namedInputs": {"default": ["{projectRoot}/**/*"], "production": ["default", "!{projectRoot}/**/*.spec.ts"]}},
        "packages/a/package.json": pkg("a"), "packages/a/src/i.ts": "", "packages/a/src/a.spec.ts": "",
        "packages/b/package.json": pkg("b", "a", scripts={"test": "echo b"}), "packages/b/vitest.config.ts": VITEST_CFG,
        "packages/c/package.json": pkg("c", "a", nx={"targets": {"test": {"inputs": ["{projectRoot}/src/**/*"]}}}),
        "packages/c/project.json": {"name": "c", "targets": {"test": {"command": "echo own"}}},
        "packages/c/vitest.config.ts": VITEST_CFG,
        "packages/d/package.json": pkg("d", "a"), "packages/d/jest.config.js": JEST_CFG,
        "packages/d/project.json": {"name": "d", "targets": {"test": {"inputs": ["{projectRoot}/src/**/*"]}}},
        "packages/e/package.json": pkg("e", "a"), "packages/e/jest.config.js": JEST_CFG,
    }, {"b", "c", "d", "e"}, {"packages/a/src/i.ts": {"b", "c", "e"}, "packages/a/src/a.spec.ts": {"b", "c"}}),
    # targetDefaults with filter.plugin apply to the named plugin's targets only; a file a
    # plugin's createNodes glob matches is project configuration: its change selects the
    # project's tests whatever their inputs (also for a plugin ctxsel does not model)
    "targetDefaults filter.plugin": Case({
        "nx.json": {"plugins": ["@nx/vitest", "@nx/jest/plugin", "@nx/eslint/plugin"], "targetDefaults": {
            "test": [{"filter": {"plugin": "@nx/vitest"}, "inputs": ["{projectRoot}/src/**/*"]}]}},
        "packages/a/package.json": pkg("a"), "packages/a/src/i.ts": "",
        "packages/b/package.json": pkg("b", "a"), "packages/b/vitest.config.ts": VITEST_CFG,
        "packages/b/eslint.config.js": "module.exports = [];\n", "packages/b/notes.txt": "",
        "packages/c/package.json": pkg("c", "a"), "packages/c/jest.config.js": JEST_CFG,
    }, {"b", "c"}, {"packages/a/src/i.ts": {"c"}, "packages/b/vitest.config.ts": {"b"},
                    "packages/b/eslint.config.js": {"b"}, "packages/b/notes.txt": set()}, ("'@nx/eslint/plugin'",)),
    # include/exclude with a negated pattern, and a second entry of the same plugin
    "include exclude": Case({
        "nx.json": {"plugins": [
            {"plugin": "@nx/vitest", "include": ["packages/**", "!packages/b/**"]},
            {"plugin": "@nx/vitest", "include": ["packages/b/**"], "options": {"testTargetName": "unit"}},
            {"plugin": "@nx/jest/plugin", "exclude": ["packages/c/**"]},
        ]},
        "packages/a/package.json": pkg("a"), "packages/a/vitest.config.ts": VITEST_CFG, "packages/a/src/i.ts": "",
        "packages/b/package.json": pkg("b", "a"), "packages/b/vitest.config.ts": VITEST_CFG,
        "packages/c/package.json": pkg("c", "a"), "packages/c/jest.config.js": JEST_CFG,
        "packages/d/package.json": pkg("d", "a"), "packages/d/jest.config.js": JEST_CFG,
    }, {"a", "d"}, {"packages/a/src/i.ts": {"a", "d"}}),
}


def make(tmp_path: Path, case: Case) -> Path:
    return write_tree(tmp_path / "ws", case.tree())


def static(root: Path) -> tuple[NxAdapter, Any]:
    adapter = NxAdapter(root, AdapterOptions(source="static", use_cache=False))
    return adapter, adapter.load(InputTracker(root))


def ctxsel_tests(root: Path, files: list[str], source: str = "static", env_path: str | None = None) -> set[str]:
    proc = run_cli("--repo", str(root), "--no-cache", "-q", "--adapter", "nx", "--source", source,
                   "tests", "--format", "json", "--files", ",".join(files))
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(proc.stdout)["tests"])


@pytest.mark.parametrize("name", sorted(CASES))
def test_static_mode_finds_the_test_targets_plugins_infer(tmp_path: Path, name: str) -> None:
    case = CASES[name]
    adapter, graph = static(make(tmp_path, case))
    assert {n.id for n in graph.nodes() if n.meta.get("has_test")} == case.with_test
    for fragment in case.warns:
        assert any(fragment in w for w in adapter.warnings), adapter.warnings
    assert not any("lists plugins" in w for w in adapter.warnings)


@pytest.mark.parametrize("name", sorted(n for n in CASES if CASES[n].affected))
def test_static_mode_selects_the_tests_nx_selects(tmp_path: Path, name: str) -> None:
    case = CASES[name]
    root = make(tmp_path, case)
    for changed, expected in case.affected.items():
        assert ctxsel_tests(root, [changed]) == expected, changed


def test_the_renamed_target_is_a_target_but_not_test(tmp_path: Path) -> None:
    _, graph = static(make(tmp_path, CASES["angular-eslint shape"]))
    assert "e2e-local" in graph.node("e2e").meta["targets"]
    _, graph = static(make(tmp_path / "x", CASES["include exclude"]))
    assert graph.node("b").meta["targets"] == ["unit"]


def test_inferred_inputs_are_the_plugins_own(tmp_path: Path) -> None:
    """ctxsel's lockfile handling reads the ``externalDependencies`` the plugins declare."""
    _, graph = static(make(tmp_path, CASES["own targets over inferred"]))
    assert graph.node("e").meta["inputs"]["test"] == ["default", "^production", {"externalDependencies": ["jest"]}]
    assert graph.node("d").meta["inputs"]["test"] == ["{projectRoot}/src/**/*"]
    assert "test" not in graph.node("b").meta["inputs"]  # the script replaced the vitest target
    assert "test" not in graph.node("c").meta["inputs"]  # project.json's command replaced both


def test_a_plugin_only_project_without_a_name_is_a_user_error(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "ws", {"nx.json": json.dumps({"plugins": ["@nx/vitest"]}), "package.json": "{}",
                                        "other/x/package.json": "{}", "other/x/vitest.config.ts": VITEST_CFG})
    proc = run_cli("--repo", str(root), "--no-cache", "--adapter", "nx", "--source", "static", "tests", "--files", "nx.json")
    assert proc.returncode == 2, proc.stderr
    assert "other/x/package.json" in proc.stderr and "Traceback" not in proc.stderr


def test_unmodelled_plugins_keep_a_warning_naming_them(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "ws", {"nx.json": json.dumps({"plugins": ["@nx/eslint/plugin", "@nx/vitest",
                                                                           {"plugin": "@acme/nx-thing"}]}),
                                        "package.json": json.dumps(ROOT_PKG)})
    adapter, _ = static(root)
    named = [w for w in adapter.warnings if "unknown to --source static" in w]
    assert len(named) == 1 and "'@nx/eslint/plugin'" in named[0] and "'@acme/nx-thing'" in named[0]
    assert not any("'@nx/vitest'" in w for w in named)
