"""Nx 24 over a git range: what npm-dependency changes touch, and ``^target`` through projects
that lack the target. Found by randomized differential testing against the real nx 24.0.6.

- Nx diffs the root package.json between the two revisions (``touchedNpmPackages``): a
  ``dependencies``/``devDependencies`` entry *removed* touches every project, and every test
  task that does not pin its ``externalDependencies``; an entry added or changed touches the
  workspace project of that name (and its dependents; only its own tasks); an ``overrides``/
  ``resolutions`` change touches everything; ``scripts`` touch nothing. ctxsel counted none.
- A lockfile change selects the test tasks that do not pin ``externalDependencies`` (ctxsel
  selected all of them).
- ``pluginsConfig["@nx/js"].projectsAffectedByDependencyUpdates: [...]``: the listed projects
  are touched by *every* change, and a lockfile change touches only them (ctxsel: all).
- ``dependsOn: ["^build"]`` looks through a dependency that has no ``build`` to the projects
  below it (Nx's dummy tasks), so ``dependentTasksOutputFiles`` carries a change from there
  (ctxsel stopped at the dependency); ``dependsOn`` project patterns (globs, ``tag:``) and
  target globs (``^build*``) match as Nx matches them (ctxsel took them literally).
- A task with ``^`` inputs reads its dependencies' package.json/project.json: changing one
  selects the dependents' tests (ctxsel selected only the owner's).

The unit tests need no Nx: their expected sets are what Nx 24.0.6 answered. The oracle test
asks the real nx the same questions and skips, saying why, when it is not installed.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import run_cli, run_git, write_tree
from ctxsel.adapters.js.nx_workspace import expand_task_inputs, task_dependencies
from oracles import nx_affected, nx_projects, require


def pkg(name: str, deps: tuple[str, ...] = (), scripts: tuple[str, ...] = ("test",), nx: dict | None = None) -> str:
    body: dict = {"name": name, "version": "1.0.0", "scripts": {s: f"echo {s}" for s in scripts}}
    if deps:
        body["dependencies"] = {d: "*" for d in deps}
    if nx:
        body["nx"] = nx
    return json.dumps(body, indent=2)


ROOT_MANIFEST = {"name": "root", "private": True, "workspaces": ["packages/*"],
                 "devDependencies": {"@nx/js": "24.0.6", "typescript": "5.0.0"}}
LOCK = {"name": "root", "lockfileVersion": 3, "requires": True, "packages": {"": {"name": "root"}}}
WORKSPACE = {
    "package.json": json.dumps(ROOT_MANIFEST, indent=2),
    "package-lock.json": json.dumps(LOCK),
    "packages/a/package.json": pkg("a", scripts=("test", "build")),
    "packages/a/src/index.ts": "export const a = 1;\n",
    # b's test pins its npm dependencies (to none): moved npm packages do not reach it
    "packages/b/package.json": pkg("b", ("a",), nx={"targets": {"test": {"inputs": [{"externalDependencies": []}, "{projectRoot}/**/*"]}}}),
    "packages/c/package.json": pkg("c", ("b",)),
    # docs has no build: e2e's ^build looks through it to a:build, whose outputs e2e's test reads
    "packages/docs/package.json": pkg("docs", ("a",), scripts=()),
    "packages/e2e/package.json": pkg("e2e", ("docs",), nx={"targets": {"test": {
        "inputs": ["{projectRoot}/**/*", {"dependentTasksOutputFiles": "**/*.d.ts"}], "dependsOn": ["^build"]}}}),
    "libs/d/project.json": json.dumps({"name": "d", "targets": {"test": {"command": "echo test"}}}),
}
EVERY = {"a", "b", "c", "d", "docs", "e2e"}


def edit_manifest(change: Callable[[dict], None]) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        manifest = json.loads((root / "package.json").read_text())
        change(manifest)
        (root / "package.json").write_text(json.dumps(manifest, indent=2))
    return apply


def append(rel: str, text: str) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        (root / rel).write_text((root / rel).read_text() + text)
    return apply


CHANGES: dict[str, Callable[[Path], None]] = {
    "root devDependency removed": edit_manifest(lambda m: m["devDependencies"].pop("typescript")),
    "root dependency on project b added": edit_manifest(lambda m: m.update(dependencies={"b": "*"})),
    "root dependency on an npm package added": edit_manifest(lambda m: m.update(dependencies={"left-pad": "1.0.0"})),
    "root devDependency version changed": edit_manifest(lambda m: m["devDependencies"].update(typescript="5.1.0")),
    "root resolutions added": edit_manifest(lambda m: m.update(resolutions={"foo": "1.0.0"})),
    "root scripts changed": edit_manifest(lambda m: m.update(scripts={"x": "y"})),
    "lockfile changed": lambda root: (root / "package-lock.json").write_text(json.dumps(dict(LOCK, version="1.0.0"))),
    "source of a changed": append("packages/a/src/index.ts", "export const b = 2;\n"),
}
LISTED = {"pluginsConfig": {"@nx/js": {"projectsAffectedByDependencyUpdates": ["d"]}}}
# (nx.json, change) -> (nx show projects --affected, ... -t test), as Nx 24.0.6 answered over HEAD~1..HEAD
EXPECTED: dict[tuple[str, str], tuple[set[str], set[str]]] = {
    ("{}", "root devDependency removed"): (EVERY, {"a", "c", "d", "e2e"}),
    ("{}", "root dependency on project b added"): ({"b", "c"}, {"b"}),
    ("{}", "root dependency on an npm package added"): (set(), set()),
    ("{}", "root devDependency version changed"): (set(), set()),
    ("{}", "root resolutions added"): (EVERY, {"a", "c", "d", "e2e"}),
    ("{}", "root scripts changed"): (set(), set()),
    ("{}", "lockfile changed"): (EVERY, {"a", "c", "d", "e2e"}),
    # b's test reads no dependency files; e2e's reads a:build's outputs, through docs
    ("{}", "source of a changed"): ({"a", "b", "c", "docs", "e2e"}, {"a", "c", "e2e"}),
    ("listed", "lockfile changed"): ({"d"}, {"d"}),
    ("listed", "source of a changed"): ({"a", "b", "c", "d", "docs", "e2e"}, {"a", "c", "e2e"}),
}


def make_repo(root: Path, nx_json: str, change: str) -> Path:
    """The workspace committed, then ``change`` committed on top (HEAD~1..HEAD is the change)."""
    write_tree(root, {**WORKSPACE, "nx.json": json.dumps(LISTED) if nx_json == "listed" else "{}"})
    run_git(root, "init", "-q", "-b", "main")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", "workspace")
    CHANGES[change](root)
    run_git(root, "commit", "-qam", change)
    return root


def ctxsel_answers(root: Path) -> tuple[set[str], set[str]]:
    """(blast radius, tests) of HEAD~1..HEAD."""
    answers = []
    for command in ("blast-radius", "tests"):
        proc = run_cli("--repo", str(root), "--source", "static", "--no-cache", "-q", command,
                       "--base", "HEAD~1", "--head", "HEAD", "--format", "json")
        assert proc.returncode == 0, proc.stderr
        body = json.loads(proc.stdout)
        answers.append({a["id"] for a in body["affected"]} if command == "blast-radius" else set(body["tests"]))
    return answers[0], answers[1]


@pytest.mark.parametrize("nx_json,change", sorted(EXPECTED))
def test_dependency_changes_over_a_git_range_touch_what_nx_touches(tmp_path, nx_json, change):
    root = make_repo(tmp_path / "ws", nx_json, change)
    assert ctxsel_answers(root) == EXPECTED[(nx_json, change)]


def test_files_naming_the_root_manifest_touch_nothing_without_a_diff(tmp_path):
    """``--files=package.json`` is a whole-file change for Nx: it moves every *npm* node, none here."""
    root = make_repo(tmp_path / "ws", "{}", "root devDependency removed")
    proc = run_cli("--repo", str(root), "--source", "static", "--no-cache", "-q", "tests", "--files", "package.json",
                   "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["tests"] == []


def test_external_dependencies_pin_a_task_directly_or_through_named_inputs():
    """Measured: with ``namedInputs.noext = [{"externalDependencies": []}, "{projectRoot}/**/*"]``
    and a test reading ``["noext"]``, a root devDependency removed does not select that test."""
    named = {"noext": [{"externalDependencies": []}, "{projectRoot}/**/*"]}
    assert expand_task_inputs(["noext"], named).pins_externals
    assert expand_task_inputs([{"externalDependencies": []}], {}).pins_externals
    assert not expand_task_inputs(["{projectRoot}/**/*", "^noext"], named).pins_externals
    assert not expand_task_inputs(None, named).pins_externals


def test_caret_target_looks_through_projects_without_it():
    deps = {"e2e": ["docs", "x"], "docs": ["a", "y"], "a": [], "x": [], "y": ["a"]}
    has = {("a", "build"), ("x", "build"), ("e2e", "lint")}

    def found(depends_on: list) -> list[tuple[str, str]]:
        return task_dependencies(depends_on, "e2e", lambda p: deps[p], lambda p, t: (p, t) in has)

    assert sorted(found(["^build"])) == [("a", "build"), ("x", "build")]
    assert found([{"target": "build", "dependencies": True}]) == found(["^build"])
    # a project's own target and named projects are not looked through
    assert found(["build", "lint"]) == [("e2e", "lint")]
    assert found([{"target": "build", "projects": ["docs"]}]) == []


# docs and y lack build and depend on each other: Nx's dummy tasks for them form a cycle, and
# a dummy on a cycle gives nothing, so e2e:test does not reach a:build (measured: only a's test)
CYCLE = {
    "package.json": json.dumps({"name": "root", "private": True, "workspaces": ["packages/*"]}),
    "nx.json": "{}",
    "packages/a/package.json": pkg("a", scripts=("test", "build")),
    "packages/a/src/index.ts": "export const a = 1;\n",
    "packages/docs/package.json": pkg("docs", ("a", "y"), scripts=()),
    "packages/y/package.json": pkg("y", ("docs",), scripts=()),
    "packages/e2e/package.json": WORKSPACE["packages/e2e/package.json"],
}


def make_cycle_repo(root: Path) -> Path:
    write_tree(root, CYCLE)
    run_git(root, "init", "-q", "-b", "main")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", "workspace")
    append("packages/a/src/index.ts", "export const b = 2;\n")(root)
    run_git(root, "commit", "-qam", "a changed")
    return root


def test_a_cycle_of_projects_without_the_target_carries_nothing(tmp_path):
    root = make_cycle_repo(tmp_path / "ws")
    assert ctxsel_answers(root)[1] == {"a"}


# e2e's test reads the outputs of the tasks it dependsOn; alpha and beta both change
DEPENDS_ON = {
    "project glob": [{"target": "build", "projects": ["al*"]}],
    "project tag": [{"target": "build", "projects": "tag:scope:x"}],
    "target glob": ["^build*"],  # beta's build-js, and alpha's build through beta (no build)
}


def make_depends_on_repo(root: Path, variant: str) -> Path:
    e2e_nx = {"targets": {"test": {"inputs": ["{projectRoot}/**/*", {"dependentTasksOutputFiles": "**/*.d.ts"}],
                                   "dependsOn": DEPENDS_ON[variant]}}}
    write_tree(root, {
        "package.json": json.dumps({"name": "root", "private": True, "workspaces": ["packages/*"]}),
        "nx.json": "{}",
        "packages/alpha/package.json": pkg("alpha", scripts=("test", "build"), nx={"tags": ["scope:x"]}),
        "packages/alpha/src/i.ts": "export {};\n",
        "packages/beta/package.json": pkg("beta", ("alpha",), scripts=("build-js",)),
        "packages/beta/src/i.ts": "export {};\n",
        "packages/e2e/package.json": pkg("e2e", ("beta",), nx=e2e_nx),
    })
    run_git(root, "init", "-q", "-b", "main")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", "workspace")
    append("packages/alpha/src/i.ts", "export const a = 1;\n")(root)
    append("packages/beta/src/i.ts", "export const b = 1;\n")(root)
    run_git(root, "commit", "-qam", "alpha and beta changed")
    return root


@pytest.mark.parametrize("variant", sorted(DEPENDS_ON))
def test_depends_on_project_patterns_and_target_globs_match_as_nx_matches_them(tmp_path, variant):
    root = make_depends_on_repo(tmp_path / "ws", variant)
    assert ctxsel_answers(root)[1] == {"alpha", "e2e"}  # what Nx 24.0.6 answered for each variant


def test_depends_on_patterns_resolve_through_the_matcher():
    deps = {"e2e": ["beta"], "beta": ["alpha"], "alpha": []}
    has = {("alpha", "build"), ("beta", "build-js")}

    def found(depends_on: list) -> list[tuple[str, str]]:
        return task_dependencies(depends_on, "e2e", lambda p: deps[p], lambda p, t: (p, t) in has,
                                 lambda patterns: [p for p in deps if any(p.startswith(x.rstrip("*")) for x in patterns)],
                                 ["build", "build-js", "test"])

    assert found([{"target": "build", "projects": ["al*"]}]) == [("alpha", "build")]
    # "projects" wins over "dependencies", as in Nx's processTask
    assert found([{"target": "build", "projects": "al*", "dependencies": True}]) == [("alpha", "build")]
    assert sorted(found(["^build*"])) == [("alpha", "build"), ("beta", "build-js")]


# a's package.json changes (its description only); b depends on a, c implicitly
TEST_INPUTS = {
    "^ fileset": (["{projectRoot}/src/**/*", "^{projectRoot}/src/**/*"], {"a", "b", "c"}),
    "^ named input": (["{projectRoot}/src/**/*", "^default"], {"a", "b", "c"}),
    "no ^ input": (["{projectRoot}/src/**/*"], {"a"}),
}


def make_config_repo(root: Path, variant: str) -> Path:
    write_tree(root, {
        "package.json": json.dumps({"name": "root", "private": True, "workspaces": ["packages/*"]}),
        "nx.json": json.dumps({"namedInputs": {"default": ["{projectRoot}/src/**/*"]},
                               "targetDefaults": {"test": {"inputs": TEST_INPUTS[variant][0]}}}),
        "packages/a/package.json": pkg("a"),
        "packages/a/src/i.ts": "export {};\n",
        "packages/b/package.json": pkg("b", ("a",)),
        "packages/b/src/i.ts": "export {};\n",
        "libs/c/project.json": json.dumps({"name": "c", "implicitDependencies": ["a"], "targets": {"test": {"command": "echo"}}}),
    })
    run_git(root, "init", "-q", "-b", "main")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", "workspace")
    manifest = json.loads((root / "packages/a/package.json").read_text())
    (root / "packages/a/package.json").write_text(json.dumps(dict(manifest, description="changed")))
    run_git(root, "commit", "-qam", "a's manifest changed")
    return root


@pytest.mark.parametrize("variant", sorted(TEST_INPUTS))
def test_caret_inputs_read_the_configuration_of_dependencies(tmp_path, variant):
    root = make_config_repo(tmp_path / "ws", variant)
    assert ctxsel_answers(root)[1] == TEST_INPUTS[variant][1]  # what Nx 24.0.6 answered


@pytest.mark.oracle
def test_real_nx_gives_the_same_answers(tmp_path):
    tool = require("nx")

    cases: list[tuple[Callable[..., Path], tuple[str, ...]]] = [(make_repo, key) for key in sorted(EXPECTED)]
    cases += [(make_depends_on_repo, (variant,)) for variant in sorted(DEPENDS_ON)]
    cases += [(make_config_repo, (variant,)) for variant in sorted(TEST_INPUTS)]
    for n, (make, args) in enumerate([*cases, (make_cycle_repo, ())]):
        root = make(tmp_path / f"ws{n}", *args)
        answers = [nx_projects(nx_affected(tool, root, tmp_path / f"state{n}", *extra).stdout) for extra in ([], ["-t", "test"])]
        assert tuple(answers) == ctxsel_answers(root), args


@pytest.mark.parametrize("builds", ["last", "every"])
def test_a_long_chain_of_projects_is_followed_without_recursion(tmp_path, builds):
    """``p0:test`` dependsOn ``^build`` and reads its outputs, down a chain of 3,000 projects.
    ``last``: only the last project has ``build``, so Nx's dummy tasks look through 2,998
    projects; ``every``: each ``build`` reads the outputs of the ``build`` below it. Both walks
    (and the cycle search) used Python recursion: an internal RecursionError. Changing the last
    project now selects ``p0``'s test."""
    n = 3000
    inputs = ["{projectRoot}/**/*", {"dependentTasksOutputFiles": "**/*"}]
    files = {"nx.json": json.dumps({"targetDefaults": {"test": {"dependsOn": ["^build"], "inputs": inputs},
                                                       "build": {"dependsOn": ["^build"], "inputs": inputs}}}),
             "package.json": json.dumps({"name": "root", "private": True})}
    for i in range(n):
        targets = {"build": {"command": "echo"}} if builds == "every" or i == n - 1 else {}
        if i == 0:
            targets["test"] = {"command": "echo"}
        project = {"name": f"p{i}", "root": f"libs/p{i}", "targets": targets}
        if i < n - 1:
            project["implicitDependencies"] = [f"p{i + 1}"]
        files[f"libs/p{i}/project.json"] = json.dumps(project)
    root = write_tree(tmp_path / "ws", files)
    run_git(root, "init", "-q", "-b", "main")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", "workspace")
    (root / f"libs/p{n - 1}/index.ts").write_text("export const x = 1;\n")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", "change")
    proc = run_cli("--repo", str(root), "--source", "static", "--no-cache", "-q", "tests",
                   "--base", "HEAD~1", "--head", "HEAD", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["tests"] == ["p0"]


def test_a_staged_root_manifest_change_is_read_from_the_index(tmp_path):
    """``--staged`` (a pre-commit hook): the root package.json's new side is what is staged. A
    removed devDependency staged, then put back in the working tree only, still touches every
    project (old: the working tree was read, which showed no change)."""
    root = make_repo(tmp_path / "ws", "{}", "root scripts changed")
    original = (root / "package.json").read_text()
    CHANGES["root devDependency removed"](root)
    run_git(root, "add", "package.json")
    (root / "package.json").write_text(original)
    proc = run_cli("--repo", str(root), "--source", "static", "--no-cache", "-q", "tests", "--staged", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert set(json.loads(proc.stdout)["tests"]) == EXPECTED[("{}", "root devDependency removed")][1]
