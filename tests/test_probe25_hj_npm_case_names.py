"""npm workspaces whose names differ only by case (``a`` in p/a, ``A`` in p/big).

map-workspaces keeps both, but arborist files the root's workspace edges in a case-insensitive
map: npm 11.19.1 installs only the later one (``node_modules/A -> p/big``), a dependency on the
other name goes to the registry, and the shadowed workspace's own dependencies are not linked
(measured with ``npm install --offline`` and ``npm query``). ctxsel linked both.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from jsfixtures import open_ws, write_pkg
from oracles import run

NPM_OFFLINE = ["--offline", "--ignore-scripts", "--no-audit", "--no-fund"]


def workspace(root: Path, first: str, second: str, dependent_wants: str) -> Path:
    """p/a named ``first`` (depending on c), p/big named ``second``, p/c depending on ``dependent_wants``."""
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "root", "private": True, "workspaces": ["p/*"]}))
    write_pkg(root, "p/a", first, dependencies={"c": "*"})
    write_pkg(root, "p/big", second)
    write_pkg(root, "p/c", "c", dependencies={dependent_wants: "*"})
    return root


def our_edges(root: Path) -> set[tuple[str, str]]:
    ws = open_ws(root, "npm")
    assert any("npm installs only the last workspace named" in w for w in ws.warnings)
    return {(ws.graph.node(a).package, ws.graph.node(b).package) for a, b, _ in ws.graph.edges()}


#: (names of p/a and p/big, the name p/c depends on) -> the links npm 11.19.1 made (measured)
CASES = {
    ("a", "A", "A"): {("p/c", "p/big")},
    ("A", "a", "a"): {("p/c", "p/big")},
}


@pytest.mark.parametrize("names", sorted(CASES))
def test_only_the_later_workspace_is_linked(tmp_path: Path, names: tuple[str, str, str]) -> None:
    assert our_edges(workspace(tmp_path / "ws", *names)) == CASES[names]


@pytest.mark.oracle
@pytest.mark.parametrize("names", sorted(CASES))
def test_npm_links_the_same(tmp_path: Path, names: tuple[str, str, str]) -> None:
    if not shutil.which("npm"):
        pytest.skip("npm not installed")
    root = workspace(tmp_path / "ws", *names)
    ours = our_edges(root)
    run(["npm", "install", *NPM_OFFLINE], root, timeout=120)
    listed = json.loads(run(["npm", "query", ":root, .workspace", "--json"], root).stdout)
    theirs = set()
    for pkg in listed:
        for loc in pkg["to"]:
            link = root / loc
            if pkg["location"] and link.is_symlink():
                theirs.add((pkg["location"], link.resolve().relative_to(root.resolve()).as_posix()))
    assert "p/a" not in {p["location"] for p in listed}  # npm did not install the shadowed workspace
    assert ours == theirs


def test_a_dependency_on_the_shadowed_name_links_nothing(tmp_path: Path) -> None:
    """p/c wants ``a`` while ``A`` (p/big) shadows p/a: npm asks the registry (``install
    --offline`` fails with ENOTCACHED for ``a``, measured), so there is no workspace edge."""
    assert our_edges(workspace(tmp_path / "ws", "a", "A", "a")) == set()
