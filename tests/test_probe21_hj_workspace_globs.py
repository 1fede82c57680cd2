"""Workspace globs as pnpm 12 and yarn 1/3/4 read them (session 21 glob matrix against the tools).

- pnpm 12.4.2 refuses some globs outright ("ERR_PNPM_WORKSPACE_INVALID_GLOB ... failed to parse
  glob expression"), and then every pnpm command fails; ctxsel matched them as best it could.
  Now they exit 2 naming pnpm-workspace.yaml (``pnpm.pnpm_glob_problem``).
- yarn 1.22.22, 3.8.7 and 4.18.1 enter symlinked directories (``p/l -> ../q/c`` is the
  workspace ``p/l``); ctxsel never did (pnpm does not, turbo does).
- yarn 3 and 4 (fast-glob) never list the directory a wildcard walk starts from: ``p/a/**``
  lists ``p/a/x`` but not ``p/a``; ctxsel listed ``p/a`` too (yarn 1 does list it).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from jsfixtures import PNPM_ENV, open_ws
from oracles import OLD_BERRY, old_berry_graph, require, run, yarn_graph

from ctxsel.errors import ParseError

#: glob -> whether pnpm 12.4.2 refuses it (measured; accepted ones load as usual)
PNPM_GLOBS = {
    "p/*": False, "p//a": False, "p/[!b]": False, "p/[^]": False, "p/\\*": False, "p/[a-z]": False,
    "p/{a,{b,c}}": False, "p/**/": False, "p/a-": False,
    "p/a**": True, "p/***": True, "p/**a": True, "p/**?": True, "p/**/**": True, "p/{a,**}": True,
    "p/\\a": True, "p/a\\": True, "p/[-a]": True, "p/[a-]": True, "p/[a-b-c]": True, "p/[!]": True,
    "p/{a": True, "p/(a)": True, "p/a,b": True,
}


def pnpm_workspace(root: Path, glob: str) -> Path:
    (root / "p/a").mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "root", "private": True}))
    (root / "p/a/package.json").write_text(json.dumps({"name": "a", "version": "1.0.0"}))
    (root / "pnpm-workspace.yaml").write_text(f"packages:\n  - {json.dumps(glob)}\n")
    return root


@pytest.mark.parametrize("glob", sorted(PNPM_GLOBS))
def test_pnpm_globs_pnpm_refuses_are_an_error(tmp_path: Path, glob: str) -> None:
    root = pnpm_workspace(tmp_path / "ws", glob)
    if PNPM_GLOBS[glob]:
        with pytest.raises(ParseError, match="pnpm refuses the workspace glob") as err:
            open_ws(root, "pnpm")
        assert str(err.value).startswith("pnpm-workspace.yaml: ")
    else:
        open_ws(root, "pnpm")


@pytest.mark.oracle
@pytest.mark.parametrize("glob", sorted(PNPM_GLOBS))
def test_pnpm_refuses_exactly_those(tmp_path: Path, glob: str) -> None:
    require("pnpm")
    root = pnpm_workspace(tmp_path / "ws", glob)
    proc = run(["pnpm", "ls", "-r", "--depth", "-1", "--json"], root, env=PNPM_ENV, check=False)
    assert (proc.returncode != 0) is PNPM_GLOBS[glob], proc.stderr[-300:]
    if proc.returncode:
        assert "ERR_PNPM_WORKSPACE_INVALID_GLOB" in proc.stdout + proc.stderr


def yarn_workspace(root: Path, major: int, globs: list[str]) -> Path:
    """p/a, p/a/x, p/a/x/y, p/b, q/c and a link p/l -> ../q/c; ``globs`` as the root's workspaces."""
    for i, rel in enumerate(("p/a", "p/a/x", "p/a/x/y", "p/b", "q/c")):
        (root / rel).mkdir(parents=True)
        (root / rel / "package.json").write_text(json.dumps({"name": f"n{i}", "version": "1.0.0"}))
    os.symlink("../q/c", root / "p/l")
    pm = {1: "yarn@1.22.22", 3: f"yarn@{OLD_BERRY[3]}", 4: "yarn@4.18.1"}[major]
    manifest = {"name": "root", "private": True, "workspaces": globs, "packageManager": pm}
    (root / "package.json").write_text(json.dumps(manifest))
    (root / "yarn.lock").write_text("")
    if major > 1:
        (root / ".yarnrc.yml").write_text("nodeLinker: node-modules\n")
    return root


#: (major, globs) -> the workspaces yarn lists besides the root (measured)
YARN_CASES = {
    (1, ("p/*",)): {"p/a", "p/b", "p/l"},
    (4, ("p/*",)): {"p/a", "p/b", "p/l"},
    (3, ("p/*",)): {"p/a", "p/b", "p/l"},
    (1, ("p/**",)): {"p/a", "p/a/x", "p/a/x/y", "p/b", "p/l"},
    (4, ("p/**",)): {"p/a", "p/a/x", "p/a/x/y", "p/b", "p/l"},
    (1, ("p/a/**",)): {"p/a", "p/a/x", "p/a/x/y"},
    (4, ("p/a/**",)): {"p/a/x", "p/a/x/y"},
    (3, ("p/a/**",)): {"p/a/x", "p/a/x/y"},
    (4, ("p/a/x/**", "p/a/x")): {"p/a/x", "p/a/x/y"},
}


def _ids(cases: dict) -> list[str]:
    return [f"yarn{major}-{'+'.join(globs)}" for major, globs in cases]


@pytest.mark.parametrize("case", list(YARN_CASES), ids=_ids(YARN_CASES))
def test_yarn_workspaces_from_links_and_walk_bases(tmp_path: Path, case: tuple[int, tuple[str, ...]]) -> None:
    major, globs = case
    ws = open_ws(yarn_workspace(tmp_path / "ws", major, list(globs)), "yarn")
    assert {n.package for n in ws.graph.nodes()} - {""} == YARN_CASES[case]


@pytest.mark.oracle
@pytest.mark.parametrize("case", list(YARN_CASES), ids=_ids(YARN_CASES))
def test_yarn_lists_the_same(tmp_path: Path, case: tuple[int, tuple[str, ...]]) -> None:
    major, globs = case
    root = yarn_workspace(tmp_path / "ws", major, list(globs))
    listed = old_berry_graph(3, root) if major == 3 else yarn_graph(major == 4, root)
    assert set(listed) - {""} == YARN_CASES[case]
