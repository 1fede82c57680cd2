"""npm and yarn workspaces.

npm is the oracle for npm: ``npm install --offline`` links workspace packages with no
registry (the fixtures have no external dependencies), and ``npm query`` then prints
the edges npm really made. A dependency npm does *not* link to the workspace makes an
offline install fail with ENOTCACHED, which is how the spec table is checked. yarn 1 and
yarn 4 are checked against the real yarns in tests/test_probe16_yarn_differential.py
(installed by .ci/oracles-yarn.sh).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from jsfixtures import copy_fixture, open_ws, write_pkg
from oracles import run

from ctxsel.adapters import detect
from ctxsel.adapters.js.npm import NpmAdapter
from ctxsel.adapters.js.yarn import YarnAdapter

NPM_OFFLINE = ["--offline", "--ignore-scripts", "--no-audit", "--no-fund"]


def require_npm() -> str:
    found = shutil.which("npm")
    if not found:
        pytest.skip("npm not installed")
    return found


def npm_edges(root: Path) -> set[tuple[str, str]]:
    """(dependent dir, dependency dir) pairs as npm linked them after an offline install."""
    run(["npm", "install", *NPM_OFFLINE], root, timeout=120)
    listed = json.loads(run(["npm", "query", ":root, .workspace", "--json"], root).stdout)
    dir_of = {p["name"]: p["location"] for p in listed}
    root_declares = set()
    manifest = json.loads((root / "package.json").read_text())
    for field in ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies"):
        root_declares |= set(manifest.get(field, {}))
    edges = set()
    for p in listed:
        for loc in p["to"]:
            name = loc.removeprefix("node_modules/")
            if p["location"] == "" and name not in root_declares:
                continue  # arborist's root has an edge to every workspace; not a dependency
            # npm query leaves out a workspace without a name; its node_modules link says where it is
            where = dir_of.get(name) or (root / "node_modules" / name).resolve().relative_to(root.resolve()).as_posix()
            edges.add((p["location"], where))
    return edges


def our_edges(ws) -> set[tuple[str, str]]:
    return {(ws.graph.node(a).package, ws.graph.node(b).package) for a, b, _ in ws.graph.edges()}


# ---------------------------------------------------------------------- npm, differential
@pytest.mark.oracle
def test_fixture_edges_match_what_npm_links(tmp_path: Path) -> None:
    require_npm()
    root = copy_fixture("js-npm", tmp_path)
    static = open_ws(root, "npm")
    assert our_edges(static) == npm_edges(root)
    # and tool mode (npm query on the now-installed tree) says the same
    tool = open_ws(root, "npm", source="tool")
    assert sorted(tool.graph.edges()) == sorted(static.graph.edges())


@pytest.mark.oracle
@pytest.mark.parametrize(
    "spec,dep_version,links",
    [
        ("^1.0.0", "1.0.0", True),
        ("~1.0.0 || ^3", "1.0.0", True),
        ("*", None, True),  # a workspace without a version still satisfies "*"
        ("^1.0.0", None, False),
        ("^2.0.0", "1.0.0", False),
        ("latest", "1.0.0", False),
        ("^1.0.0", "1.1.0-beta.1", False),
    ],
)
def test_npm_links_a_workspace_only_when_the_range_is_satisfied(tmp_path: Path, spec: str, dep_version, links: bool) -> None:
    require_npm()
    root = tmp_path / "ws"
    root.mkdir()
    (root / "package.json").write_text(json.dumps({"name": "root", "version": "0.0.0", "workspaces": ["p/*"]}))
    write_pkg(root, "p/a", "@p/a", version=dep_version)
    write_pkg(root, "p/b", "@p/b", dependencies={"@p/a": spec})
    proc = run(["npm", "install", "--package-lock-only", *NPM_OFFLINE], root, timeout=120, check=False)
    npm_linked = proc.returncode == 0
    assert npm_linked == links, proc.stderr[-500:]  # the table above is npm's behaviour
    ours = open_ws(root, "npm").blast_radius(["@p/a"]).ids
    assert ("@p/b" in ours) == npm_linked


@pytest.mark.oracle
def test_npm_names_an_unnamed_workspace_after_its_folder(tmp_path: Path) -> None:
    require_npm()
    root = tmp_path / "ws"
    root.mkdir()
    (root / "package.json").write_text(json.dumps({"name": "root", "version": "0.0.0", "workspaces": ["p/*", "p/@s/*"]}))
    for rel in ("p/util", "p/@s/tool"):  # no "name": npm calls them util and @s/tool
        (root / rel).mkdir(parents=True)
        (root / rel / "package.json").write_text(json.dumps({"version": "1.0.0"}))
    write_pkg(root, "p/app", "app", dependencies={"util": "^1.0.0", "@s/tool": "^1.0.0"})
    ws = open_ws(root, "npm")
    assert our_edges(ws) == npm_edges(root)
    assert set(ws.blast_radius(["util"]).ids) == {"util", "app"}
    assert set(ws.blast_radius(["@s/tool"]).ids) == {"@s/tool", "app"}


@pytest.mark.oracle
@pytest.mark.parametrize("globs", [
    ["p/*", "!p/legacy", "p/legacy"],  # a later positive that the negation matches cancels it
    ["p/**", "!p/b/**", "p/b/a"],  # ...and with it every directory the negation hid (p/b/c too)
    ["p/*", "p/legacy", "!p/legacy"],  # a negation after the positive still removes
])
def test_npm_negations_depend_on_their_position(tmp_path: Path, globs: list[str]) -> None:
    require_npm()
    root = tmp_path / "ws"
    root.mkdir()
    (root / "package.json").write_text(json.dumps({"name": "root", "version": "0.0.0", "workspaces": globs}))
    write_pkg(root, "p/core", "core")
    write_pkg(root, "p/legacy", "legacy", dependencies={"core": "^1.0.0"})
    write_pkg(root, "p/b/a", "ba", dependencies={"core": "^1.0.0"})
    write_pkg(root, "p/b/c", "bc", dependencies={"core": "^1.0.0"})
    run(["npm", "install", *NPM_OFFLINE], root, timeout=120)
    listed = {p["location"] for p in json.loads(run(["npm", "query", ".workspace", "--json"], root).stdout)}
    ws = open_ws(root, "npm")
    assert {n.package for n in ws.graph.nodes() if n.package} == listed
    assert our_edges(ws) == npm_edges(root)


def test_npm_tool_mode_needs_an_installed_tree(tmp_path: Path, cli) -> None:
    require_npm()
    root = copy_fixture("js-npm", tmp_path)
    assert NpmAdapter(root).resolved_source() == "static"  # auto: not installed, so no npm call
    proc = cli("--repo", str(root), "--source", "tool", "blast-radius", "@ws/core")
    assert proc.returncode == 2 and "npm install" in proc.stderr


# ---------------------------------------------------------------------- npm, static answers
def test_npm_answers_and_command(tmp_path: Path) -> None:
    root = copy_fixture("js-npm", tmp_path)
    ws = open_ws(root, "npm")
    assert set(ws.blast_radius(["@ws/core"]).ids) == {
        "@ws/core", "@ws/utils", "@ws/api", "@ws/testkit", "@ws/plugin", "@ws/linker", "@ws/app", "@ws/cli", "@ws/app-e2e",
    }
    assert ws.tests(["@ws/docs"]).argv == ["npm", "run", "test", "--workspace=@ws/docs", "--include-workspace-root"]
    assert ws.tests(["@ws/app"]).argv == ["npm", "run", "test", "--workspace=@ws/app", "--workspace=@ws/app-e2e"]
    assert ws.tests(["@ws/standalone"]).tests == []


def test_detection(tmp_path: Path) -> None:
    npm_root = copy_fixture("js-npm", tmp_path)
    yarn_root = copy_fixture("js-yarn", tmp_path)
    assert detect(npm_root) == "npm" and detect(yarn_root) == "yarn"
    # yarn classic: no .yarnrc.yml or packageManager, only yarn.lock
    (yarn_root / ".yarnrc.yml").unlink()
    manifest = json.loads((yarn_root / "package.json").read_text())
    del manifest["packageManager"]
    (yarn_root / "package.json").write_text(json.dumps(manifest))
    assert detect(yarn_root) == "yarn"
    (yarn_root / "yarn.lock").unlink()
    assert detect(yarn_root) == "npm"


# ---------------------------------------------------------------------- yarn
def test_yarn_links_workspace_protocol_and_satisfied_ranges(tmp_path: Path) -> None:
    """``workspace:`` always resolves inside the workspace; a plain range resolves to the
    workspace when its version satisfies it (transparent workspaces), else the registry; a
    peer dependency is no workspace dependency for yarn (berry 4.18.1 lists none for @ws/plugin)."""
    root = copy_fixture("js-yarn", tmp_path)
    ws = open_ws(root, "yarn")
    radius = set(ws.blast_radius(["@ws/core"]).ids)
    assert radius == {"@ws/core", "@ws/utils", "@ws/api", "@ws/testkit", "@ws/app", "@ws/cli", "@ws/app-e2e"}
    assert "@ws/legacy" not in radius  # ^2.0.0 does not match core 1.0.0
    assert set(ws.blast_radius(["@ws/docs"]).ids) == {"@ws/docs", "yarn-root"}


def test_yarn_commands_berry_and_classic(tmp_path: Path) -> None:
    root = copy_fixture("js-yarn", tmp_path)
    ws = open_ws(root, "yarn")
    assert ws.tests(["@ws/app"]).argv == [
        "yarn", "workspaces", "foreach", "--all", "--include", "@ws/app", "--include", "@ws/app-e2e", "run", "test",
    ]
    (root / ".yarnrc.yml").unlink()
    manifest = json.loads((root / "package.json").read_text())
    manifest["packageManager"] = "yarn@1.22.22"
    (root / "package.json").write_text(json.dumps(manifest))
    classic = YarnAdapter(root)
    assert classic.test_command(["@ws/app"]) == ["yarn", "workspace", "@ws/app", "test"]
    assert classic.test_command(["@ws/app", "yarn-root"]) == ["sh", "-c", "yarn workspace @ws/app test && yarn test"]


def test_yarn_tool_mode_without_yarn_is_a_user_error(tmp_path: Path, cli) -> None:
    root = copy_fixture("js-yarn", tmp_path)
    proc = cli("--repo", str(root), "--source", "tool", "blast-radius", "@ws/core")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and "yarn" in proc.stderr


def test_yarn_invalid_root_manifest(tmp_path: Path, cli) -> None:
    root = copy_fixture("js-yarn", tmp_path)
    text = (root / "apps/app/package.json").read_text().replace('"private": true', '"private": true,,')
    (root / "apps/app/package.json").write_text(text)
    proc = cli("--repo", str(root), "blast-radius", "@ws/core")
    assert proc.returncode == 2 and "apps/app/package.json:" in proc.stderr
