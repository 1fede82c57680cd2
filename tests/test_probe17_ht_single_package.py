"""Turborepo 2's single-package mode, and the workspace declarations that put a repo in it.

turbo runs a repository as a single package when its package manager yields no workspace
globs (``RepoState::infer``; turbo 2.11.11, measured): ``turbo ls`` lists no package, and
``turbo run test`` runs the root's ``test`` script as the task ``test`` (``--filter=//`` too),
for any changed file; a ``<pkg>#task`` in turbo.json is refused ("Package tasks are not allowed
in single-package repositories"). That happens

- with no workspaces at all (ctxsel answered "no tests": it wanted ``//#test``);
- with ``packages: []`` or package.json ``"workspaces": []`` (or not a list of strings:
  ``"p/*"``, ``["p/*", 1]``);
- with a pnpm-workspace.yaml turbo's serde struct refuses (``linkWorkspacePackages: 1``,
  ``catalog: null``, ``catalogs: {x: null}``, a top-level list, ``packages: "p/*"``, an entry
  that is a list, ``patchedDependencies: {a: /abs.patch}``, ``packages`` missing): ctxsel read
  the packages as pnpm does. Those now warn, naming the file.

And turbo reads every scalar entry of ``packages`` as its text: ``[~]`` is the directory ``~``
(ctxsel exited 2), ``[null, 1]`` the directories ``null`` and ``1``.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from ctxsel.adapters.js.turbo import ROOT_ID
from jsfixtures import TURBO_ENV, open_ws, turbo_filter
from oracles import oracle_env, require, run

GIT = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]


def workspace(root: Path, yaml: str | None = None, workspaces: object = None, tasks: dict | None = None,
              manager: str = "pnpm@12.4.2") -> Path:
    """``p/a``, ``p/b -> a``, the oddly named dirs ``~``, ``null``, ``1``; each with a test script."""
    root.mkdir(parents=True)
    manifest = {"name": "root", "version": "1.0.0", "private": True, "packageManager": manager,
                "scripts": {"test": "echo root"}}
    if workspaces is not None:
        manifest["workspaces"] = workspaces
    (root / "package.json").write_text(json.dumps(manifest))
    if yaml is not None:
        (root / "pnpm-workspace.yaml").write_text(yaml)
    (root / "turbo.json").write_text(json.dumps({"tasks": tasks if tasks is not None else {"test": {}}}))
    for rel, name, deps in (("p/a", "a", {}), ("p/b", "b", {"a": "workspace:*"}), ("~", "tilde", {}),
                            ("null", "nul", {}), ("1", "one", {})):
        (root / rel).mkdir(parents=True)
        (root / rel / "package.json").write_text(json.dumps(
            {"name": name, "version": "1.0.0", "scripts": {"test": "echo " + name}, "dependencies": deps}))
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / ".git" / "info" / "exclude").write_text(".turbo/\n.ctxsel/\n")
    subprocess.run([*GIT, "add", "-A"], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-qm", "c"], cwd=root, check=True)
    return root


#: pnpm-workspace.yaml turbo 2.11.11 cannot deserialise: single-package mode (measured)
UNREADABLE = {
    "link-number": "packages: ['p/*']\nlinkWorkspacePackages: 1\n",
    "link-list": "packages: ['p/*']\nlinkWorkspacePackages: [1]\n",
    "catalog-null": "packages: ['p/*']\ncatalog: null\n",
    "catalog-list": "packages: ['p/*']\ncatalog: []\n",
    "catalog-nested": "packages: ['p/*']\ncatalog: {a: [1]}\n",
    "catalogs-null-entry": "packages: ['p/*']\ncatalogs: {x: null}\n",
    "patched-absolute": "packages: ['p/*']\npatchedDependencies: {a: /abs.patch}\n",
    "top-level-list": "- 'p/*'\n",
    "packages-string": "packages: 'p/*'\n",
    "packages-null": "packages: null\n",
    "packages-missing": "linkWorkspacePackages: true\n",
    "entry-list": "packages: ['p/*', [x]]\n",
    "entry-mapping": "packages: ['p/*', {x: 1}]\n",
}
#: pnpm-workspace.yaml turbo reads: package dirs (measured)
READABLE = {
    "tilde": ("packages: [~]\n", {"~"}),
    "null-and-number": ("packages: [null, 1, 'p/*']\n", {"null", "1", "p/a", "p/b"}),
    "link-string": ("packages: ['p/*']\nlinkWorkspacePackages: x\n", {"p/a", "p/b"}),
    "link-null": ("packages: ['p/*']\nlinkWorkspacePackages: null\n", {"p/a", "p/b"}),
    "catalog-scalars": ("packages: ['p/*']\ncatalog: {a: 1, b: null, c: true}\n", {"p/a", "p/b"}),
    "catalogs": ("packages: ['p/*']\ncatalogs: {x: {a: 1}}\n", {"p/a", "p/b"}),
    "patched-relative": ("packages: ['p/*']\npatchedDependencies: {a: ../x.patch, b: null}\n", {"p/a", "p/b"}),
    "patched-null": ("packages: ['p/*']\npatchedDependencies: null\n", {"p/a", "p/b"}),
    "other-keys": ("packages: ['p/*']\noverrides: 1\nonlyBuiltDependencies: 1\n", {"p/a", "p/b"}),
}
#: package.json ``workspaces`` turbo takes as none (npm): single-package mode (measured)
NO_NPM_WORKSPACES = {"empty": [], "empty-packages": {"packages": []}, "string": "p/*", "number-entry": ["p/*", 1]}


def packages(ws) -> set[str]:
    return {n.package for n in ws.graph.nodes() if n.id != ROOT_ID}


def single_package_answer(root: Path, cli) -> None:
    """ctxsel's answer in single-package mode: no package; a change anywhere runs the root's test
    as ``turbo run test --filter=//`` (static and, through the same reader, tool mode)."""
    ws = open_ws(root, "turbo")
    assert packages(ws) == set()
    assert ws.graph.node(ROOT_ID).is_test
    proc = cli("--repo", str(root), "--adapter", "turbo", "--source", "static", "--no-cache",
               "tests", "--files", "p/a/package.json", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    assert answer["tests"] == [ROOT_ID] and answer["command"] == "turbo run test --filter=//"


@pytest.mark.parametrize("case", sorted(UNREADABLE))
def test_a_yaml_turbo_cannot_deserialise_is_single_package_mode(tmp_path: Path, case: str, cli) -> None:
    """Old: the packages were read (``p/a``, ``p/b``), as pnpm reads them."""
    root = workspace(tmp_path / "ws", UNREADABLE[case])
    single_package_answer(root, cli)
    warnings = open_ws(root, "turbo").graph.warnings
    assert any(w.startswith("pnpm-workspace.yaml: turbo cannot read it") for w in warnings), warnings


@pytest.mark.parametrize("case", sorted(READABLE))
def test_entries_are_their_text(tmp_path: Path, case: str) -> None:
    """Old: ``[~]`` and ``[null, ...]`` exited 2 ("entry 1 is null")."""
    yaml, expected = READABLE[case]
    ws = open_ws(workspace(tmp_path / "ws", yaml), "turbo")
    assert packages(ws) == expected
    assert not any("cannot read" in w for w in ws.graph.warnings)


def test_no_workspaces_is_single_package_mode(tmp_path: Path, cli) -> None:
    """A repo with turbo.json and no workspaces at all (old: "no tests", as ``//#test`` was wanted)."""
    root = workspace(tmp_path / "ws", manager="npm@10.0.0")
    single_package_answer(root, cli)
    assert not open_ws(root, "turbo").graph.warnings
    empty = workspace(tmp_path / "empty", "packages: []\n")
    single_package_answer(empty, cli)
    assert not open_ws(empty, "turbo").graph.warnings


@pytest.mark.parametrize("case", sorted(NO_NPM_WORKSPACES))
def test_npm_workspaces_turbo_cannot_use(tmp_path: Path, case: str, cli) -> None:
    """Old: ``["p/*", 1]`` read ``p/*`` (and the glob ``1``)."""
    root = workspace(tmp_path / "ws", workspaces=NO_NPM_WORKSPACES[case], manager="npm@10.0.0")
    single_package_answer(root, cli)


def test_the_root_test_script_is_the_task_without_turbo_json_defining_it(tmp_path: Path, cli) -> None:
    """``turbo run test`` runs the script with ``{"tasks": {}}`` in single-package mode (old: "no tests")."""
    single_package_answer(workspace(tmp_path / "ws", manager="npm@10.0.0", tasks={}), cli)


def test_package_tasks_stop_turbo_run_in_single_package_mode(tmp_path: Path, cli) -> None:
    """``turbo run`` refuses ``//#lint`` there ("Package tasks are not allowed in single-package
    repositories") while ``turbo ls`` answers: the test command is kept, with the reason on stderr,
    as for turbo's other task-graph refusals (old: no warning, the command failed)."""
    root = workspace(tmp_path / "ws", "packages: ['p/*']\ncatalog: null\n", tasks={"test": {}, "//#lint": {}})
    radius = cli("--repo", str(root), "--adapter", "turbo", "--source", "static", "blast-radius", "p/a")
    assert radius.returncode == 0, radius.stderr
    proc = cli("--repo", str(root), "--adapter", "turbo", "--source", "static", "tests", "p/a")
    assert proc.returncode == 0, proc.stderr
    assert "turbo refuses to run this command" in proc.stderr and "'//#lint' is a package task" in proc.stderr
    assert "turbo run test --filter=//" in proc.stdout


def test_the_root_task_graph_is_read_without_slash_slash(tmp_path: Path, cli) -> None:
    """``test`` depending on a ``build`` no turbo.json defines: turbo refuses the run
    ("//#build requires an entry in turbo.json"); the warning says so."""
    root = workspace(tmp_path / "ws", manager="npm@10.0.0", tasks={"test": {"dependsOn": ["build"]}})
    proc = cli("--repo", str(root), "--adapter", "turbo", "--source", "static", "--no-cache", "tests", "--files", "README")
    assert proc.returncode == 0, proc.stderr
    assert "//#build, which no turbo.json defines" in proc.stderr
    ok = workspace(tmp_path / "ok", manager="npm@10.0.0", tasks={"test": {"dependsOn": ["build"]}, "build": {}})
    proc = cli("--repo", str(ok), "--adapter", "turbo", "--source", "static", "--no-cache", "tests", "--files", "README")
    assert proc.returncode == 0 and "task graph" not in proc.stderr, proc.stderr


# ---------------------------------------------------------------------- the real turbo
def turbo_runs(root: Path) -> set[str]:
    """Directories whose test turbo really runs for ``--filter=...[HEAD]`` after a change everywhere."""
    for rel in ("p/a", "p/b", "~", "null", "1", ""):
        (root / rel / "x.txt").write_text("changed\n")
    out = run(["turbo", "run", "test", "--filter=...[HEAD]", "--dry=json"], root, env=TURBO_ENV).stdout
    # single-package mode: one task "test", without a "directory"
    return {t.get("directory", "").strip("/") for t in json.loads(out[out.index("{"):])["tasks"] if t["command"] != "<NONEXISTENT>"}


def ctxsel_runs(root: Path, cli, source: str) -> set[str]:
    proc = cli("--repo", str(root), "--adapter", "turbo", "--source", source, "--no-cache",
               "tests", "--since", "HEAD", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    ws = open_ws(root, "turbo")
    return {ws.graph.node(t).package for t in json.loads(proc.stdout)["tests"]}


@pytest.mark.oracle
@pytest.mark.parametrize("case", sorted(UNREADABLE) + sorted(READABLE) + [f"npm-{c}" for c in sorted(NO_NPM_WORKSPACES)])
def test_matches_turbo(tmp_path: Path, case: str, monkeypatch: pytest.MonkeyPatch, cli) -> None:
    require("turbo")
    monkeypatch.setenv("PATH", oracle_env()["PATH"])
    if case.startswith("npm-"):
        root = workspace(tmp_path / "ws", workspaces=NO_NPM_WORKSPACES[case[4:]], manager="npm@10.0.0")
    else:
        root = workspace(tmp_path / "ws", UNREADABLE.get(case) or READABLE[case][0])
    listed = turbo_filter(root, "*")
    assert packages(open_ws(root, "turbo")) == listed == packages(open_ws(root, "turbo", source="tool"))
    ran = turbo_runs(root)
    assert ctxsel_runs(root, cli, "static") == ran == ctxsel_runs(root, cli, "tool")


@pytest.mark.oracle
def test_package_tasks_in_single_package_mode_with_turbo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``turbo ls`` answers, ``turbo run test`` and ``turbo query`` refuse; tool mode reads the
    manifests then (old: "turbo query failed", exit 2), and both modes warn on the command."""
    require("turbo")
    monkeypatch.setenv("PATH", oracle_env()["PATH"])
    root = workspace(tmp_path / "ws", manager="npm@10.0.0", tasks={"test": {}, "//#lint": {}})
    assert turbo_filter(root, "*") == set()
    proc = run(["turbo", "run", "test", "--dry=json"], root, env=TURBO_ENV, check=False)
    assert proc.returncode != 0 and "Package tasks" in proc.stderr
    for source in ("static", "tool"):
        ws = open_ws(root, "turbo", source=source)
        selection = ws.tests(roots=[ROOT_ID])
        assert selection.tests == [ROOT_ID], source
        assert any("'//#lint' is a package task" in w for w in selection.warnings), (source, selection.warnings)
