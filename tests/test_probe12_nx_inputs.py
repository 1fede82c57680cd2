"""Nx 24 selects test *tasks* by their inputs; ctxsel's ``tests`` for Nx does too.

Measured with the real Nx 24.0.6 (``nx show projects --affected -t test --files=...``):
``nx affected`` picks the tasks whose inputs a change reaches, not every task of every
affected project. A ``*.spec.ts`` change outside the ``production`` named input re-runs
its own project's tests only, because dependents read ``^production``. Project-level
``nx show projects --affected`` (ctxsel's blast radius) still counts every dependent, and
also every project whose targets name a changed file through a ``{workspaceRoot}``
input (``sharedGlobals``). Deleting (or moving away) any package.json/project.json
affects every project. ``affected.legacy`` in nx.json switches task selection off.

The unit tests need no Nx (their expected sets are what Nx answered); the oracle tests
ask the real nx the same questions and skip, saying why, when it is not installed.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import run_cli, run_git, write_tree
from oracles import require, run


def pkg(name: str, deps: tuple[str, ...] = (), scripts: tuple[str, ...] = ("test", "build"), nx: dict | None = None) -> str:
    body: dict = {"name": name, "version": "1.0.0", "scripts": {s: f"echo {s}" for s in scripts}}
    if deps:
        body["dependencies"] = {d: "*" for d in deps}
    if nx:
        body["nx"] = nx
    return json.dumps(body)


NX_JSON = {
    "namedInputs": {
        "default": ["{projectRoot}/**/*", "sharedGlobals"],
        "sharedGlobals": ["{workspaceRoot}/babel.config.json"],
        "production": ["default", "!{projectRoot}/**/*.spec.ts", "!{projectRoot}/**/*.md"],
    },
    "targetDefaults": {
        "test": {"inputs": ["default", "^production"]},
        "build": {"inputs": ["production", "^production", "{workspaceRoot}/tools/build.json"]},
    },
}

WORKSPACE = {
    "nx.json": json.dumps(NX_JSON),
    "package.json": json.dumps({"name": "root", "private": True, "workspaces": ["packages/*"]}),
    "babel.config.json": "{}",
    "tools/build.json": "{}",
    "e2e.config.json": "{}",
    "packages/core/package.json": pkg("core"),
    "packages/core/src/a.ts": "export const a = 1;\n",
    "packages/core/src/a.spec.ts": "test('a', () => {});\n",
    "packages/core/README.md": "core\n",
    "packages/core/src/b.test.tsx": "test('b', () => {});\n",
    "packages/core/docs/guide.md": "guide\n",
    # utils' own "production" (what its dependents read of it) is its src/ only
    "packages/utils/package.json": pkg("utils", ("core",), nx={"namedInputs": {"production": ["{projectRoot}/src/**/*"]}}),
    "packages/utils/src/u.ts": "export const u = 1;\n",
    "packages/utils/README.md": "utils\n",
    "packages/app/package.json": pkg("app", ("utils",)),
    "packages/app/src/main.ts": "export {};\n",
    # "..." spreads targetDefaults' inputs, then adds a root file
    "packages/spread/package.json": pkg("spread", ("core",), nx={"targets": {"test": {"inputs": ["...", "{workspaceRoot}/e2e.config.json"]}}}),
    "packages/nodeps/package.json": pkg("nodeps", scripts=("build",)),
    # a project.json target's inputs replace targetDefaults'
    "libs/self/project.json": json.dumps({
        "name": "self", "implicitDependencies": ["core"],
        "targets": {"test": {"command": "echo test", "inputs": ["{projectRoot}/src/**/*"]}},
    }),
    "libs/self/src/s.ts": "export {};\n",
    "libs/self/README.md": "self\n",
}

ALL = {"core", "utils", "app", "spread", "self"}  # everything but nodeps (no dependency path to it)
# changed file -> (nx show projects --affected, ... -t test), as Nx 24.0.6 answered
EXPECTED = {
    # outside production: only core's own test reads it (dependents read ^production)
    "packages/core/src/a.spec.ts": (ALL, {"core"}),
    "packages/core/README.md": (ALL, {"core"}),
    "packages/core/src/a.ts": (ALL, {"core", "utils", "app", "spread"}),  # self: its inputs are src/ only
    "packages/core/package.json": (ALL, {"core", "utils", "app", "spread"}),
    # utils' production is its src/: app's ^production does not read its README
    "packages/utils/README.md": ({"utils", "app"}, {"utils"}),
    "packages/utils/src/u.ts": ({"utils", "app"}, {"utils", "app"}),
    # sharedGlobals: every target with inputs names it (build's touch nodeps and self too)
    "babel.config.json": (ALL | {"nodeps"}, {"core", "utils", "app", "spread"}),
    # only build inputs name it: every project has a build target, no test reads it
    "tools/build.json": (ALL | {"nodeps"}, set()),
    "e2e.config.json": ({"spread"}, {"spread"}),  # after "..." in spread's own test inputs
    "libs/self/README.md": ({"self"}, set()),
}


def ctxsel_json(root: Path, *args: str) -> dict:
    proc = run_cli("--repo", str(root), "--source", "static", "--no-cache", "-q", *args, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def ctxsel_answers(root: Path, *selector: str) -> tuple[set[str], set[str]]:
    """(blast radius, tests) for one change selector."""
    radius = {a["id"] for a in ctxsel_json(root, "blast-radius", *selector)["affected"]}
    return radius, set(ctxsel_json(root, "tests", *selector)["tests"])


@pytest.fixture
def workspace(tmp_path) -> Path:
    return write_tree(tmp_path / "ws", WORKSPACE)


@pytest.mark.parametrize("changed", sorted(EXPECTED))
def test_tests_follow_target_inputs_and_blast_radius_stays_project_level(workspace, changed):
    assert ctxsel_answers(workspace, "--files", changed) == EXPECTED[changed]


def OUTPUTS(transitive: bool) -> dict:
    """nx.json whose tests read their dependencies' build outputs, not their sources."""
    outputs: dict = {"dependentTasksOutputFiles": "**/*.d.ts", **({"transitive": True} if transitive else {})}
    return dict(NX_JSON, targetDefaults={"build": {"inputs": ["production"], "dependsOn": ["^build"]},
                                         "test": {"dependsOn": ["^build"], "inputs": ["default", outputs]}})


EXTGLOB = {
    "namedInputs": {"production": ["default", "!{projectRoot}/**/?(*.)+(spec|test).[jt]s?(x)?(.snap)", "!{projectRoot}/docs"]},
    "targetDefaults": {"test": {"inputs": ["default", "^production"]}},
}


# other nx.json files: name -> (nx.json, changed file, (affected projects, affected tests)) as Nx 24.0.6 answered
VARIANTS = {
    # without a production input every test reads ^default: dependents' tests run again
    "no production": ({"targetDefaults": {"test": {"inputs": ["default", "^default"]}}},
                      "packages/core/src/a.spec.ts", (ALL, {"core", "utils", "app", "spread"})),
    # Nx joins a task's filesets: production's "!" patterns drop files from default too
    "negation across inputs": (dict(NX_JSON, targetDefaults={"test": {"inputs": ["default", "production"]}}),
                               "packages/core/src/a.spec.ts", (ALL, set())),
    "negation across inputs, source": (dict(NX_JSON, targetDefaults={"test": {"inputs": ["default", "production"]}}),
                                       "packages/core/src/a.ts", (ALL, {"core"})),
    # no inputs: every file of the project itself (not only default's), ^default of dependencies
    "no inputs, own file": ({"namedInputs": {"default": ["{projectRoot}/src/**/*", "{workspaceRoot}/babel.config.json"]}},
                            "packages/core/README.md", (ALL, {"core"})),
    # ...so a root file in default reaches dependents' tests only, and no project-level answer
    # ("..." in spread's inputs spreads nothing here: its test reads e2e.config.json alone)
    "no inputs, root file in default": ({"namedInputs": {"default": ["{projectRoot}/src/**/*", "{workspaceRoot}/babel.config.json"]}},
                                        "babel.config.json", (set(), {"utils", "app"})),
    "legacy": (dict(NX_JSON, affected={"legacy": True}), "packages/core/src/a.spec.ts", (ALL, ALL)),
    # a change travels along dependsOn only into tasks reading dependentTasksOutputFiles: core:build
    # is affected, utils:build (no ^ inputs) is not, so app:test sees core's outputs only transitively
    "dependency outputs, transitive": (OUTPUTS(transitive=True), "packages/core/src/a.ts", (ALL, {"core", "utils", "app", "spread"})),
    "dependency outputs, direct": (OUTPUTS(transitive=False), "packages/core/src/a.ts", (ALL, {"core", "utils", "spread"})),
    "dependency outputs, spec file": (OUTPUTS(transitive=True), "packages/core/src/a.spec.ts", (ALL, {"core"})),
    # extglob groups, as angular-eslint's and typescript-eslint's production input writes them
    "extglob": (EXTGLOB, "packages/core/src/b.test.tsx", (ALL, {"core"})),
    # a directory stands for the files below it, negated or not
    "negated directory": (EXTGLOB, "packages/core/docs/guide.md", (ALL, {"core"})),
    "directory input": ({"targetDefaults": {"test": {"inputs": ["{projectRoot}/src", "{workspaceRoot}/tools"]}}},
                        "tools/build.json", (ALL, {"core", "utils", "app", "spread"})),
}


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_other_nx_json_variants(workspace, name):
    nx_json, changed, expected = VARIANTS[name]
    write_tree(workspace, {"nx.json": json.dumps(nx_json)})
    assert ctxsel_answers(workspace, "--files", changed) == expected


def test_named_targets_keep_their_tests_beside_the_change(workspace):
    """``ctxsel tests utils --files <spec>``: the named project's radius tests, plus the change's."""
    answer = ctxsel_json(workspace, "tests", "app", "--files", "packages/core/src/a.spec.ts")
    assert set(answer["tests"]) == {"core", "app"}
    assert answer["command"] == "nx run-many -t test -p app,core"


def test_an_invalid_fileset_is_a_user_error_naming_the_file(workspace):
    """Nx refuses ``nx affected -t test`` on a fileset without {projectRoot}/{workspaceRoot}: so does ctxsel."""
    nx_json = dict(NX_JSON, targetDefaults={"test": {"inputs": ["default", "src/**/*"]}})
    write_tree(workspace, {"nx.json": json.dumps(nx_json, indent=2)})
    proc = run_cli("--repo", str(workspace), "--source", "static", "--no-cache", "tests", "--files", "packages/core/src/a.ts")
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "nx.json:" in proc.stderr and "src/**/*" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) <= 3


def committed(workspace: Path) -> Path:
    run_git(workspace, "init", "-q")
    run_git(workspace, "add", "-A")
    run_git(workspace, "commit", "-qm", "base")
    return workspace


def commit_all(workspace: Path) -> None:
    run_git(workspace, "add", "-A")
    run_git(workspace, "commit", "-qm", "change")


EVERY = ALL | {"nodeps"}
EVERY_TEST = ALL  # nodeps has no test script
DELETIONS = {
    # the project and its configuration go: every remaining project is affected
    "whole project": (lambda ws: shutil.rmtree(ws / "packages/nodeps"), EVERY - {"nodeps"}, EVERY_TEST),
    "project.json only": (lambda ws: (ws / "libs/self/project.json").unlink(), EVERY - {"self"}, EVERY_TEST - {"self"}),
    # any package.json that goes away counts, even one that was no project
    "non-project package.json": (lambda ws: (ws / "tools/package.json").unlink(), EVERY, EVERY_TEST),
    "moved project": (lambda ws: (ws / "libs/self").rename(ws / "libs/moved"), EVERY, EVERY_TEST),
    # a deleted source file is an ordinary change
    "a spec file": (lambda ws: (ws / "packages/core/src/a.spec.ts").unlink(), ALL, {"core"}),
}


@pytest.mark.parametrize("case", sorted(DELETIONS))
def test_deleting_a_project_configuration_affects_every_project(workspace, case):
    write_tree(workspace, {"tools/package.json": json.dumps({"name": "tools-not-a-project"})})
    committed(workspace)
    action, radius, tests = DELETIONS[case]
    action(workspace)
    commit_all(workspace)
    assert ctxsel_answers(workspace, "--base", "HEAD~1", "--head", "HEAD") == (radius, tests)


def test_files_naming_a_missing_package_json_affect_every_project(workspace):
    """Nx decides "deleted" by the working tree, for ``--files`` too."""
    assert ctxsel_answers(workspace, "--files", "gone/package.json") == (EVERY, EVERY_TEST)


# ---------------------------------------------------------------------- the real nx
class Nx:
    def __init__(self, root: Path, state: Path) -> None:
        from ctxsel.adapters.js.nx import node_path_env

        self.tool = require("nx")
        self.root = root
        self.env = {"NX_WORKSPACE_DATA_DIRECTORY": str(state / "workspace-data"), "NX_CACHE_DIRECTORY": str(state / "cache"),
                    "NX_WORKSPACE_ROOT_PATH": str(root), "NX_DAEMON": "false"}
        self.env.update(node_path_env(self.tool, root, None))

    def projects(self, *args: str) -> set[str]:
        out = run([self.tool, "show", "projects", "--affected", *args, "--json"], cwd=self.root, env=self.env).stdout
        return set(json.loads(out[out.index("["):]))

    def answers(self, *selector: str) -> tuple[set[str], set[str]]:
        return self.projects(*selector), self.projects(*selector, "-t", "test")


@pytest.mark.oracle
def test_real_nx_gives_the_expected_answers(workspace, tmp_path):
    nx = Nx(workspace, tmp_path / "nx-state")
    for changed, expected in EXPECTED.items():
        assert nx.answers(f"--files={changed}") == expected, changed
    assert nx.answers("--files=gone/package.json") == (EVERY, EVERY_TEST)
    for name, (nx_json, changed, expected) in VARIANTS.items():
        write_tree(workspace, {"nx.json": json.dumps(nx_json)})
        assert nx.answers(f"--files={changed}") == expected, name
    write_tree(workspace, {"nx.json": json.dumps(dict(NX_JSON, targetDefaults={"test": {"inputs": ["default", "src/**/*"]}}))})
    refused = run([nx.tool, "show", "projects", "--affected", "-t", "test", "--files=packages/core/src/a.ts"],
                  cwd=workspace, env=nx.env, check=False)
    assert refused.returncode != 0 and "invalid fileset" in refused.stderr + refused.stdout


@pytest.mark.oracle
@pytest.mark.parametrize("case", ["whole project", "non-project package.json", "a spec file"])
def test_real_nx_deletions(workspace, tmp_path, case):
    nx = Nx(workspace, tmp_path / "nx-state")
    write_tree(workspace, {"tools/package.json": json.dumps({"name": "tools-not-a-project"})})
    committed(workspace)
    action, radius, tests = DELETIONS[case]
    action(workspace)
    commit_all(workspace)
    assert nx.answers("--base=HEAD~1", "--head=HEAD") == (radius, tests)


@pytest.mark.oracle
def test_tool_mode_reads_inputs_from_nx_graph(workspace, tmp_path):
    """``nx graph`` output carries each target's merged inputs and dependsOn: tool mode answers alike."""
    nx = Nx(workspace, tmp_path / "nx-state")
    write_tree(workspace, {"nx.json": json.dumps(dict(OUTPUTS(transitive=False), namedInputs=NX_JSON["namedInputs"]))})
    saved = tmp_path / "graph.json"
    run([nx.tool, "graph", f"--file={saved}"], cwd=workspace, env=nx.env)
    for changed in ("packages/core/src/a.ts", "packages/core/src/a.spec.ts", "babel.config.json"):
        args = ("--source", "tool", "--query-file", str(saved), "--no-cache", "-q")
        static = ctxsel_answers(workspace, "--files", changed)
        tool = (
            {a["id"] for a in json.loads(run_cli("--repo", str(workspace), *args, "blast-radius", "--files", changed,
                                                 "--format", "json").stdout)["affected"]},
            set(json.loads(run_cli("--repo", str(workspace), *args, "tests", "--files", changed, "--format", "json").stdout)["tests"]),
        )
        assert tool == static == nx.answers(f"--files={changed}"), changed


IGNORES = {".gitignore": "dist\n*.log\n", ".nxignore": "packages/core/generated\n",
           "packages/core/dist/x.js": "x", "packages/core/a.log": "x", "packages/core/generated/g.ts": "x"}


@pytest.mark.parametrize("changed", ["packages/core/dist/x.js", "packages/core/a.log", "packages/core/generated/g.ts"])
def test_files_the_root_ignore_files_ignore_change_nothing(workspace, changed):
    """Nx filters changed files through the root .gitignore and .nxignore before anything else."""
    write_tree(workspace, IGNORES)
    assert ctxsel_answers(workspace, "--files", changed) == (set(), set())


@pytest.mark.oracle
def test_real_nx_ignores_ignored_changed_files(workspace, tmp_path):
    nx = Nx(workspace, tmp_path / "nx-state")
    write_tree(workspace, IGNORES)
    assert nx.answers("--files=packages/core/dist/x.js,packages/core/generated/g.ts,packages/core/a.log") == (set(), set())


# Nx keeps a configured target only with an executor (command, script) or a dependsOn, its own or targetDefaults'
TARGET_SHAPES = {
    "packages/inputsonly/package.json": json.dumps({"name": "inputsonly", "version": "1.0.0", "nx": {"targets": {"test": {"inputs": ["default"]}}}}),
    "packages/pjinputs/package.json": json.dumps({"name": "pjinputs", "version": "1.0.0"}),
    "packages/pjinputs/project.json": json.dumps({"targets": {"test": {"inputs": ["default"]}}}),
    "packages/noop/package.json": json.dumps({"name": "noop", "version": "1.0.0", "nx": {"targets": {"test": {"dependsOn": ["build"]}}}}),
    "packages/emptydeps/package.json": json.dumps({"name": "emptydeps", "version": "1.0.0", "nx": {"targets": {"test": {"dependsOn": []}}}}),
}
WITH_TEST = {"core", "utils", "app", "spread", "self", "noop"}


def test_a_target_needs_an_executor_or_dependencies_to_exist(workspace):
    write_tree(workspace, TARGET_SHAPES)
    assert ctxsel_answers(workspace, "--files", "nx.json")[1] == WITH_TEST


@pytest.mark.oracle
def test_real_nx_keeps_the_same_targets(workspace, tmp_path):
    nx = Nx(workspace, tmp_path / "nx-state")
    write_tree(workspace, TARGET_SHAPES)
    out = run([nx.tool, "show", "projects", "--with-target", "test", "--json"], cwd=workspace, env=nx.env).stdout
    assert set(json.loads(out[out.index("["):])) == WITH_TEST


@pytest.mark.parametrize("changed", ["packages/core/src/a.spec.ts", "packages/utils/src/u.ts"])
def test_pre_commit_picks_the_same_tests_as_ctxsel_tests(workspace, changed):
    """The hook asks the same question for the staged files: Nx's task inputs decide there too."""
    committed(workspace)
    with open(workspace / changed, "a") as fh:
        fh.write("// edit\n")
    run_git(workspace, "add", changed)
    proc = run_cli("--repo", str(workspace), "--source", "static", "--no-cache", "-q", "pre-commit", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert set(json.loads(proc.stdout)["tests"]) == EXPECTED[changed][1] == set(ctxsel_json(workspace, "tests", "--staged")["tests"])
