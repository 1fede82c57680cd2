"""npm workspace globs as npm 11 (``@npmcli/map-workspaces``: node-glob + minimatch) reads them.

Session 21's 32-glob matrix agreed with npm 11.19.1 on 19/32; what differed, each measured
with ``npm install --offline`` then ``npm query .workspace`` (npm 11.19.1):

- a symlinked package directory: node-glob's ``*`` enters ``p/l -> ../q/c`` and arborist makes
  the *real* directory ``q/c`` the workspace; a ``**`` never walks into a link but may end on
  one when it is not the pattern's first segment (``p/**/e`` finds ``p/m/e``; ``**/e`` finds
  ``r/d/e`` alone, no second spelling); ``!p/l`` excludes it, ``!q/c`` does not; ``p/*`` with ``q/*`` names one directory
  twice, which npm refuses (EDUPLICATEWORKSPACE). ctxsel never followed the link.
- braces as ``brace-expansion`` reads them: ``{y}`` (no comma) is literal, ``{a..b}`` a sequence;
  ``p/\\{y}`` is ``p//{y}`` for npm, so the directory ``{y}``. ctxsel expanded ``{y}`` to ``y``.
- a ``.`` segment before a name (``p/a/./x``, ``././p/a``) selects nothing: minimatch keeps it
  (unless it follows ``**``), and map-workspaces drops every match the pattern does not minimatch.
- extglobs and POSIX classes (``p/@(a|b)``, ``p/!(a)``, ``p/[[:alpha:]]``) are minimatch's.
- ``bower_components`` is searched: npm ignores ``**/node_modules/**`` only.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from jsfixtures import open_ws
from oracles import require, run, yarn_graph

from ctxsel.errors import ParseError

DIRS = ("p/a", "p/a/x", "p/b", "p/.h", "p/{y}", "p/+(a)", "p/bower_components/k", "q/c", "r/d", "r/d/e")
LINKS = {"p/l": "../q/c", "p/m": "../r/d"}
NPM_OFFLINE = ["--offline", "--ignore-scripts", "--no-audit", "--no-fund"]
NPM_ENV = {"npm_config_update_notifier": "false"}
STAR = {"p/a", "p/b", "p/{y}", "p/+(a)", "q/c", "r/d"}

#: globs -> the workspaces npm 11.19.1 lists (``npm query .workspace``), or None where it
#: stops with EDUPLICATEWORKSPACE (measured; ``test_npm_lists_exactly_these`` asks npm again)
NPM_CASES: dict[tuple[str, ...], set[str] | None] = {
    ("p/*",): STAR,
    ("p/**",): STAR | {"p/a/x", "p/bower_components/k"},
    ("p/**/e",): {"r/d/e"},
    ("**/e",): {"r/d/e"},  # a leading ** never enters p/m: no second spelling of r/d/e
    ("p/*/e",): {"r/d/e"},
    ("p/m",): {"r/d"},
    ("p/*", "!p/l"): STAR - {"q/c"},
    ("p/*", "!q/c"): STAR,
    ("p/*", "q/*"): None,
    ("p/{y}",): {"p/{y}"},
    ("p/\\{y}",): {"p/{y}"},
    ("p/{a}",): set(),
    ("p/{a..b}",): {"p/a", "p/b"},
    ("p/a/./x",): set(),
    ("././p/a",): set(),
    ("p/a/.",): {"p/a"},
    ("p/**/./x",): {"p/a/x"},  # minimatch drops a "." right after "**"
    ("p/@(a|b)",): {"p/a", "p/b"},
    ("p/+(a)",): {"p/a"},
    ("p/!(a)",): STAR - {"p/a"},
    ("p/[[:alpha:]]",): {"p/a", "p/b", "q/c", "r/d"},
    ("p/*/*",): {"p/a/x", "p/bower_components/k", "r/d/e"},
}
CASES = sorted(NPM_CASES, key=json.dumps)


def npm_workspace(root: Path, globs: tuple[str, ...]) -> Path:
    """``DIRS`` as packages (names n0, n1, ...), the ``LINKS``, and ``globs`` as the root's workspaces."""
    for i, rel in enumerate(DIRS):
        (root / rel).mkdir(parents=True)
        (root / rel / "package.json").write_text(json.dumps({"name": f"n{i}", "version": "1.0.0"}))
    for link, target in LINKS.items():
        os.symlink(target, root / link)
    (root / "package.json").write_text(json.dumps({"name": "root", "private": True, "workspaces": list(globs)}))
    return root


def workspace_dirs(root: Path) -> set[str]:
    ws = open_ws(root, "npm")
    return {n.package for n in ws.graph.nodes() if n.kind == "package"}


@pytest.mark.parametrize("globs", CASES, ids=json.dumps)
def test_npm_workspace_globs(tmp_path: Path, globs: tuple[str, ...]) -> None:
    root = npm_workspace(tmp_path / "ws", globs)
    expected = NPM_CASES[globs]
    if expected is None:
        with pytest.raises(ParseError, match="EDUPLICATEWORKSPACE"):
            workspace_dirs(root)
    else:
        assert workspace_dirs(root) == expected


def test_link_out_of_the_repository_is_left_out_with_a_warning(tmp_path: Path) -> None:
    """npm would list ``../outside``; ctxsel never reads outside the repository, and says so."""
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside/package.json").write_text(json.dumps({"name": "outside", "version": "1.0.0"}))
    root = npm_workspace(tmp_path / "ws", ("p/*",))
    os.symlink("../../outside", root / "p/o")
    ws = open_ws(root, "npm")
    assert {n.package for n in ws.graph.nodes() if n.kind == "package"} == STAR
    assert any("'p/o' links outside the repository" in w for w in ws.warnings)


@pytest.mark.parametrize(("glob", "expected"), [("p/{a}", {"p/a"}), ("p/{y}", set()), ("p/{a..b}", set())])
def test_pnpm_keeps_its_own_brace_reading(tmp_path: Path, glob: str, expected: set[str]) -> None:
    """pnpm 12.4.2 (measured: ``pnpm ls -r``) expands ``{a}`` to ``a`` and has no ``{a..b}``
    sequences: npm's and yarn's brace reading stays theirs."""
    root = npm_workspace(tmp_path / "ws", ())
    (root / "pnpm-workspace.yaml").write_text(f"packages:\n  - {json.dumps(glob)}\n")
    ws = open_ws(root, "pnpm")
    assert {n.package for n in ws.graph.nodes() if n.kind == "package"} == expected


@pytest.mark.oracle
@pytest.mark.parametrize("globs", CASES, ids=json.dumps)
def test_npm_lists_exactly_these(tmp_path: Path, globs: tuple[str, ...]) -> None:
    require("npm")
    root = npm_workspace(tmp_path / "ws", globs)
    installed = run(["npm", "install", *NPM_OFFLINE], root, timeout=120, check=False, env=NPM_ENV)
    if NPM_CASES[globs] is None:
        assert installed.returncode != 0 and "EDUPLICATEWORKSPACE" in installed.stdout + installed.stderr
        return
    assert installed.returncode == 0, installed.stderr[-500:]
    listed = json.loads(run(["npm", "query", ".workspace", "--offline"], root, env=NPM_ENV).stdout)
    assert {p["location"] for p in listed} == NPM_CASES[globs] == workspace_dirs(root)


# ---------------------------------------------------------------------- yarn 1 and yarn 4
#: the same kind of matrix for yarn 1.22.22 (node-glob with minimatch 3) and yarn 4.18.1
#: (fast-glob with micromatch), where ctxsel read braces, extglobs, ``\`` and ``node_modules``
#: as pnpm does, and took an absolute ``/p/a`` as ``p/a``
YARN_DIRS = ("p/a", "p/a/x", "p/b", "p/{y}", "p/[x]", "p/node_modules", "p/node_modules/m", "p/a/node_modules/n",
             "p/bower_components/k")

#: (yarn major, globs) -> the workspaces yarn lists besides the root (measured; the oracle test asks again)
YARN_CASES: dict[tuple[int, tuple[str, ...]], set[str]] = {
    (1, ("/p/a",)): set(),
    (1, ("p/{y}",)): {"p/{y}"},
    (1, ("p/{a}",)): set(),
    (1, ("p/{a..b}",)): {"p/a", "p/b"},
    (1, ("p/*",)): {"p/a", "p/b", "p/{y}", "p/[x]", "p/node_modules"},
    (1, ("p/*/*",)): {"p/a/x", "p/node_modules/m", "p/bower_components/k"},
    (1, ("p/**",)): {"p/a", "p/a/x", "p/b", "p/{y}", "p/[x]", "p/bower_components/k"},
    (1, ("p/**/m",)): {"p/node_modules/m"},
    (1, ("p/*/node_modules/*",)): {"p/a/node_modules/n"},
    (1, ("p/\\[x]",)): {"p/[x]"},
    (1, ("p/\\{y}",)): {"p/{y}"},
    (1, ("p\\a",)): set(),
    (1, ("p/@(a|b)",)): {"p/a", "p/b"},
    (1, ("p/[[:alpha:]]",)): set(),
    (4, ("/p/a",)): set(),
    (4, ("p/{y}",)): {"p/{y}"},
    (4, ("p/{a}",)): set(),
    (4, ("p/{a..b}",)): {"p/a", "p/b"},
    (4, ("p/node_modules/m",)): {"p/node_modules/m"},
    (4, ("p/*/*",)): {"p/a/x", "p/bower_components/k"},
    (4, ("p/*/node_modules/*",)): set(),
    (4, ("p/\\{y}",)): set(),
    (4, ("p/\\[x]",)): set(),
    (4, ("p/\\a",)): {"p/a"},
    (4, ("p\\a",)): set(),
    (4, ("p/@(a|b)",)): {"p/a", "p/b"},
    (4, ("p/[[:alpha:]]",)): {"p/a", "p/b"},
}
YARN_IDS = [f"yarn{major}-{json.dumps(globs)}" for major, globs in YARN_CASES]


def yarn_workspace(root: Path, major: int, globs: tuple[str, ...]) -> Path:
    """``YARN_DIRS`` as packages and ``globs`` as the workspaces of a yarn ``major`` root."""
    for i, rel in enumerate(YARN_DIRS):
        (root / rel).mkdir(parents=True, exist_ok=True)
        (root / rel / "package.json").write_text(json.dumps({"name": f"n{i}", "version": "1.0.0"}))
    pm = "yarn@4.18.1" if major == 4 else "yarn@1.22.22"
    (root / "package.json").write_text(json.dumps({"name": "root", "private": True, "workspaces": list(globs),
                                                   "packageManager": pm}))
    (root / "yarn.lock").write_text("")
    if major == 4:
        (root / ".yarnrc.yml").write_text("nodeLinker: node-modules\n")
    return root


@pytest.mark.parametrize("case", list(YARN_CASES), ids=YARN_IDS)
def test_yarn_workspace_globs(tmp_path: Path, case: tuple[int, tuple[str, ...]]) -> None:
    major, globs = case
    ws = open_ws(yarn_workspace(tmp_path / "ws", major, globs), "yarn")
    assert {n.package for n in ws.graph.nodes() if n.kind == "package"} == YARN_CASES[case]


@pytest.mark.oracle
@pytest.mark.parametrize("case", list(YARN_CASES), ids=YARN_IDS)
def test_yarn_lists_exactly_these(tmp_path: Path, case: tuple[int, tuple[str, ...]]) -> None:
    major, globs = case
    require("node")
    root = yarn_workspace(tmp_path / "ws", major, globs)
    assert set(yarn_graph(major == 4, root)) - {""} == YARN_CASES[case]
