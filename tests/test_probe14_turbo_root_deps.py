"""Turborepo 2: every package is a dependent of a package the root depends on -- also the ones
no edge leads from (found by randomized differential testing against turbo 2.11.11).

turbo's ``PackageGraph::ancestors`` returns the whole graph for one of the root's internal
dependencies. ctxsel modelled that with edges (every package without workspace dependencies
depends on ``//``, and ``//`` on the root's dependencies), which misses two kinds of package:

- one in a dependency cycle (``x <-> y``, ``z -> x``): no package of the cycle is without
  dependencies, so no edge reaches ``//``; ``turbo ls --filter=...c`` lists them all, and
  ``turbo run test --filter=...[range]`` runs their tests for a change in ``c``;
- one that depends only on itself (``"a": "workspace:./"``): turbo's graph has the self-edge
  and no edge to ``//`` (``turbo query`` lists ``a`` as ``a``'s only dependency), so
  ``--source tool``, which takes turbo's edges, left ``a`` out.

The root *package* is not that virtual root: a package depends on it only through a
``workspace:`` path to the root directory, never by name (turbo keys it ``//``), and
``turbo ls --filter=...//`` lists exactly those packages and their dependents. ctxsel linked
the root by name (``"root": "*"``; a package sharing the root's name lost its dependents) and
answered nothing for ``...//``.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from ctxsel.adapters.js.turbo import ROOT_ID
from ctxsel.graph import DEP, IMPLICIT
from jsfixtures import TURBO_ENV, dirs_of, open_ws, radius_dirs, turbo_filter
from oracles import oracle_env, require, run
from test_probe12_js_turbo import turbo_ran

GIT = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]


def workspace(root: Path, packages: dict[str, dict[str, str]]) -> Path:
    """pnpm layout linking workspace packages, the root depending on ``c``; ``{name: dependencies}`` under ``p/``, each with
    ``scripts.test`` and turbo's ``test`` task; committed, so a later commit is a change."""
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps(
        {"name": "root", "private": True, "packageManager": "pnpm@12.4.2", "dependencies": {"c": "workspace:*"}}))
    # names link too (``"root": "*"``, ``link:``), so that a name could reach the root package
    (root / "pnpm-workspace.yaml").write_text("packages: ['p/*']\nlinkWorkspacePackages: true\n")
    (root / "turbo.json").write_text(json.dumps({"tasks": {"test": {}}}))
    for name, deps in packages.items():
        (root / "p" / name).mkdir(parents=True)
        (root / "p" / name / "package.json").write_text(json.dumps(
            {"name": name, "version": "1.0.0", "scripts": {"test": "echo " + name}, "dependencies": deps}))
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / ".git" / "info" / "exclude").write_text(".turbo/\n.ctxsel/\n")
    commit(root)
    return root


def commit(root: Path) -> None:
    subprocess.run([*GIT, "add", "-A"], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-qm", "c"], cwd=root, check=True)


CYCLE = {"c": {}, "x": {"y": "workspace:*"}, "y": {"x": "workspace:*"}, "z": {"x": "workspace:*"}, "w": {"x": "workspace:*"}}
SELF = {"c": {}, "a": {"a": "workspace:./"}, "b": {}}


@pytest.mark.parametrize("packages", [CYCLE, SELF], ids=["cycle", "self-link"])
def test_every_package_depends_on_a_root_dependency(tmp_path: Path, packages: dict) -> None:
    """Static mode: ``...c`` is every package (old: ``{c}`` for the cycle)."""
    root = workspace(tmp_path / "ws", packages)
    ws = open_ws(root, "turbo")
    assert radius_dirs(ws, "c") == {f"p/{n}" for n in packages}
    assert ROOT_ID in ws.blast_radius(roots=["c"]).unreported
    # not a root dependency: the edges alone answer (the cycle's members, and nothing through ``//``)
    assert radius_dirs(ws, "x" if "x" in packages else "a") == (
        {"p/x", "p/y", "p/z", "p/w"} if "x" in packages else {"p/a"})


def test_depth_counts_them_one_step_beyond_the_root(tmp_path: Path) -> None:
    root = workspace(tmp_path / "ws", CYCLE)
    ws = open_ws(root, "turbo")
    distance = {a.id: a.distance for a in ws.blast_radius(roots=["c"]).affected}
    assert distance == {"c": 0, "x": 2, "y": 2, "z": 2, "w": 2}  # c <- // (1) <- every package (2)
    assert radius_dirs(ws, "c") >= dirs_of(ws, ws.blast_radius(roots=["c"], depth=2).ids)
    assert dirs_of(ws, ws.blast_radius(roots=["c"], depth=1).ids) == {"p/c"}


def test_a_package_linking_itself_has_no_edge_to_the_root(tmp_path: Path) -> None:
    """turbo's graph builder gives ``a`` the self-edge, so ``a`` has an internal dependency
    and no edge to ``//``; the static graph says the same (old: ``a -> //``)."""
    root = workspace(tmp_path / "ws", SELF)
    ws = open_ws(root, "turbo")
    assert ws.graph.dependencies("a") == []
    assert ws.graph.dependencies("b") == [ROOT_ID]


@pytest.mark.oracle
@pytest.mark.parametrize("packages", [CYCLE, SELF], ids=["cycle", "self-link"])
def test_matches_turbo_ls_run_and_query(tmp_path: Path, packages: dict, monkeypatch: pytest.MonkeyPatch, cli) -> None:
    """``turbo ls --filter=...X``, ``turbo run test --filter=...[HEAD~1...HEAD]`` and ctxsel's
    own command, static and ``--source tool`` (old tool mode left ``a`` out of ``...c``)."""
    require("turbo")
    monkeypatch.setenv("PATH", oracle_env()["PATH"])
    root = workspace(tmp_path / "ws", packages)
    static, tool = open_ws(root, "turbo"), open_ws(root, "turbo", source="tool")
    assert {(a, b) for a, b, _ in tool.graph.edges()} == {(a, b) for a, b, _ in static.graph.edges()}
    for name in packages:
        theirs = turbo_filter(root, f"...{name}")
        assert radius_dirs(static, name) == theirs == radius_dirs(tool, name), name
    (root / "p" / "c" / "index.js").write_text("changed\n")
    commit(root)
    out = run(["turbo", "run", "test", "--filter=...[HEAD~1...HEAD]", "--dry=json"], root, env=TURBO_ENV).stdout
    ran = {t["directory"] for t in json.loads(out[out.index("{"):])["tasks"] if t["command"] != "<NONEXISTENT>"}
    assert ran == {f"p/{n}" for n in packages}
    for source in ("static", "tool"):
        proc = cli("--repo", str(root), "--adapter", "turbo", "--source", source, "--no-cache",
                   "tests", "--base", "HEAD~1", "--format", "json")
        assert proc.returncode == 0, proc.stderr
        selection = json.loads(proc.stdout)
        assert dirs_of(static, selection["tests"]) == ran, source
        assert turbo_ran(root, selection["command"].split()) == ran, source


# ---------------------------------------------------------------------- a package depending on the root
#: turbo links the root package only through a ``workspace:`` path to the root directory; its
#: name (whatever package.json says) links nothing: turbo keys the root as ``//`` (measured)
ROOT_LINKS = {
    "path": ({"z": {"r": "workspace:../.."}}, {"p/z"}),
    "name": ({"z": {"root": "workspace:*"}}, set()),
    "name-plain": ({"z": {"root": "*"}}, set()),
    "link": ({"z": {"root": "link:../.."}}, set()),
}


@pytest.mark.parametrize("case", sorted(ROOT_LINKS))
def test_dependents_of_the_root_package_are_those_declaring_its_path(tmp_path: Path, case: str) -> None:
    """``...//`` is the packages with a ``workspace:`` path to the root, and their dependents
    (old: nothing, and a name linked the root)."""
    packages, expected = ROOT_LINKS[case]
    root = workspace(tmp_path / "ws", {"c": {}, "y": {"z": "workspace:*"}, **packages})
    ws = open_ws(root, "turbo")
    if expected:
        expected = expected | {"p/y"}
    assert radius_dirs(ws, ROOT_ID) == expected  # and ``//`` itself, unreported
    assert dirs_of(ws, ws.tests([ROOT_ID]).tests) == expected
    # without a linked workspace dependency, z's edge is the one to turbo's virtual root
    assert ws.graph.edge_types("z", ROOT_ID) == ({DEP} if expected else {IMPLICIT})


def test_a_package_sharing_the_root_packages_name_is_the_one_linked(tmp_path: Path) -> None:
    """The root package is called ``a`` too: ``"a": "workspace:*"`` is the package ``a``
    (old: the root, listed first among the packages called ``a``)."""
    root = workspace(tmp_path / "ws", {"c": {}, "a": {}, "b": {"a": "workspace:*"}})
    manifest = json.loads((root / "package.json").read_text())
    (root / "package.json").write_text(json.dumps({**manifest, "name": "a"}))
    ws = open_ws(root, "turbo")
    assert dirs_of(ws, ws.graph.dependencies("b")) == {"p/a"}


@pytest.mark.oracle
@pytest.mark.parametrize("case", sorted(ROOT_LINKS))
def test_root_links_match_turbo(tmp_path: Path, case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    require("turbo")
    monkeypatch.setenv("PATH", oracle_env()["PATH"])
    packages, _ = ROOT_LINKS[case]
    root = workspace(tmp_path / "ws", {"c": {}, "y": {"z": "workspace:*"}, **packages})
    static, tool = open_ws(root, "turbo"), open_ws(root, "turbo", source="tool")
    assert set(tool.graph.edges()) == set(static.graph.edges())
    assert radius_dirs(static, ROOT_ID) == turbo_filter(root, "...//") == radius_dirs(tool, ROOT_ID)
    selection = static.tests([ROOT_ID])
    if selection.argv:
        assert turbo_ran(root, selection.argv) == dirs_of(static, selection.tests)
    for name in ("c", "y", "z"):
        assert radius_dirs(static, name) == turbo_filter(root, f"...{name}") == radius_dirs(tool, name), name


@pytest.mark.oracle
def test_shared_root_name_matches_turbo(tmp_path: Path) -> None:
    require("turbo")
    root = workspace(tmp_path / "ws", {"c": {}, "a": {}, "b": {"a": "workspace:*"}})
    manifest = json.loads((root / "package.json").read_text())
    manifest.pop("dependencies")  # not a root dependency: ``...a`` is then the edges' answer
    (root / "package.json").write_text(json.dumps({**manifest, "name": "a"}))
    ws = open_ws(root, "turbo")
    assert dirs_of(ws, ws.blast_radius(["a"]).ids) == turbo_filter(root, "...a") == {"p/a", "p/b"}


def _root_file_change(root: Path) -> None:
    (root / "config").mkdir()
    (root / "config" / "x.json").write_text("{}\n")
    commit(root)


def test_a_root_file_change_runs_the_tests_of_packages_declaring_the_root(tmp_path: Path) -> None:
    """A file outside the packages belongs to ``//``; turbo runs the tests of ``//``'s declared
    dependents for it (``...[range]``), so ``z`` (``"r": "workspace:../.."``) and its dependent
    ``y`` are selected (old: nothing, only ``//``'s own test was looked at)."""
    packages, _ = ROOT_LINKS["path"]
    root = workspace(tmp_path / "ws", {"c": {}, "y": {"z": "workspace:*"}, **packages})
    _root_file_change(root)
    ws = open_ws(root, "turbo")
    changes = ws.changes(base="HEAD~1", head="HEAD")
    selection = ws.tests_for_change(ws.tests(roots=changes.nodes), changes)
    assert dirs_of(ws, selection.tests) == {"p/z", "p/y"}
    # a name does not link the root: the same change then selects no package
    plain = workspace(tmp_path / "plain", {"c": {}, "y": {"z": "workspace:*"}, **ROOT_LINKS["name"][0]})
    _root_file_change(plain)
    ws = open_ws(plain, "turbo")
    changes = ws.changes(base="HEAD~1", head="HEAD")
    assert dirs_of(ws, ws.tests_for_change(ws.tests(roots=changes.nodes), changes).tests) == set()


@pytest.mark.oracle
def test_a_root_file_change_matches_turbo_run(tmp_path: Path, cli) -> None:
    require("turbo")
    packages, _ = ROOT_LINKS["path"]
    root = workspace(tmp_path / "ws", {"c": {}, "y": {"z": "workspace:*"}, **packages})
    _root_file_change(root)
    out = run(["turbo", "run", "test", "--filter=...[HEAD~1...HEAD]", "--dry=json"], root, env=TURBO_ENV).stdout
    ran = {t["directory"] for t in json.loads(out[out.index("{"):])["tasks"] if t["command"] != "<NONEXISTENT>"}
    proc = cli("--repo", str(root), "--adapter", "turbo", "--no-cache", "tests", "--base", "HEAD~1", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert dirs_of(open_ws(root, "turbo"), json.loads(proc.stdout)["tests"]) == ran == {"p/z", "p/y"}
