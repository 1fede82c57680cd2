"""pnpm and yarn berry map a change through the working tree's packages only (session 21 probe).

Random git histories against the real tools (pnpm 12.4.2 ``--filter '...[A]'``, yarn 4.18.1 and
3.8.7 ``workspaces list --since=A -R``) found two places where ctxsel answered as Nx does, not
as these tools do:

- a file moved from one package to another changes only the package it moved *to*: yarn's
  ``--since`` reads ``git diff --name-only``, which names a moved file at its new path only
  (pnpm's adapter already knew this; the yarn adapter counted the old path too);
- a deleted package is the root project's change, never a change of the packages that still
  declare it (``"a": "workspace:*"`` left on a deleted ``a``): both tools map the deleted files
  through today's packages, where they lie under the root. ctxsel also selected ``b`` and ``c``.

``Adapter.rename_counts_old_path`` and ``Adapter.removed_owner_changes_dependents`` are now
False for pnpm and yarn, as for Turborepo.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from jsfixtures import open_ws, pnpm_filter
from oracles import PREFIX, YARN_ENV, require, run, yarn_since

GIT = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]
#: the two commits on top of the initial one, by their distance from the last
MOVE, DELETE = "HEAD~1", "HEAD"


def commit(root: Path, message: str) -> None:
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-qm", message], cwd=root, check=True)


def history(root: Path, manager: str) -> Path:
    """p/*: c -> b -> a, d alone; then ``p/d/i.js`` moves to ``p/c``; then ``p/a`` is deleted
    while b still declares it."""
    root.mkdir(parents=True)
    manifest = {"name": "root", "private": True, "scripts": {"test": "echo root"}}
    if manager == "pnpm":
        (root / "pnpm-workspace.yaml").write_text("packages: ['p/*']\n")
    else:
        manifest |= {"workspaces": ["p/*"], "packageManager": "yarn@4.18.1"}
        (root / "yarn.lock").write_text("")
        (root / ".yarnrc.yml").write_text("nodeLinker: node-modules\n")
    (root / "package.json").write_text(json.dumps(manifest))
    for name, deps in (("a", {}), ("b", {"a": "workspace:*"}), ("c", {"b": "workspace:*"}), ("d", {})):
        (root / "p" / name).mkdir(parents=True)
        (root / "p" / name / "package.json").write_text(
            json.dumps({"name": name, "version": "1.0.0", "scripts": {"test": f"echo {name}"}, "dependencies": deps}))
        (root / "p" / name / "i.js").write_text(f"the source of {name}\n")
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    (root / ".git/info/exclude").write_text(".ctxsel/\nnode_modules/\n")
    commit(root, "init")
    subprocess.run(["git", "mv", "p/d/i.js", "p/c/moved.js"], cwd=root, check=True)
    commit(root, "move a file from d to c")
    shutil.rmtree(root / "p/a")
    commit(root, "delete a; b still declares it")
    return root


def sha(root: Path, ref: str) -> str:
    proc = subprocess.run(["git", "rev-parse", ref], cwd=root, capture_output=True, text=True, check=True)
    return proc.stdout.strip()


def ctxsel_dirs(root: Path, manager: str, ref: str) -> tuple[set[str], set[str]]:
    """(blast radius, tests) of the commit ``ref`` (its parent to it), as package directories."""
    ws = open_ws(root, manager)
    roots, change = ws.roots(base=f"{ref}~1", head=ref)
    radius = {ws.graph.node(i).package for i in ws.blast_radius(roots=roots, with_paths=False).ids}
    tests = {ws.graph.node(i).package for i in ws.tests_for_change(ws.tests(roots=roots), change).tests}
    return radius, tests


#: (commit, the directories both tools list for ``[<commit>~1]`` .. that commit, measured)
EXPECTED = {MOVE: {"p/c"}, DELETE: {""}}


@pytest.mark.parametrize("manager", ["pnpm", "yarn"])
@pytest.mark.parametrize("ref", sorted(EXPECTED))
def test_moved_files_and_deleted_packages_change_what_the_tools_say(tmp_path: Path, manager: str, ref: str) -> None:
    """Static mode: the move changes c alone (not d), the deletion the root alone (not b, c)."""
    root = history(tmp_path / "ws", manager)
    radius, tests = ctxsel_dirs(root, manager, ref)
    assert radius == EXPECTED[ref]
    assert tests == EXPECTED[ref]


def _checkout(root: Path, ref: str) -> str:
    """The tools compare a ref with the working tree: put commit ``ref`` there; its parent's sha."""
    parent = sha(root, f"{ref}~1")
    subprocess.run(["git", "checkout", "-q", "--detach", sha(root, ref)], cwd=root, check=True)
    return parent


@pytest.mark.oracle
@pytest.mark.parametrize("ref", sorted(EXPECTED))
def test_pnpm_filter_since_ref_agrees(tmp_path: Path, ref: str) -> None:
    require("pnpm")
    root = history(tmp_path / "ws", "pnpm")
    parent = _checkout(root, ref)
    assert pnpm_filter(root, f"...[{parent}]") == EXPECTED[ref]


@pytest.mark.oracle
@pytest.mark.parametrize("ref", sorted(EXPECTED))
def test_yarn_4_since_agrees(tmp_path: Path, ref: str) -> None:
    root = history(tmp_path / "ws", "yarn")
    parent = _checkout(root, ref)
    assert yarn_since(root, parent, recursive=True) == EXPECTED[ref]


@pytest.mark.oracle
@pytest.mark.parametrize("ref", sorted(EXPECTED))
def test_yarn_3_since_agrees(tmp_path: Path, ref: str) -> None:
    js = PREFIX / "yarn-berry3" / "node_modules" / "@yarnpkg" / "cli-dist" / "bin" / "yarn.js"
    if not js.is_file() or not shutil.which("node"):
        pytest.skip("yarn 3.8.7 not installed (run: bash .ci/oracles-yarn.sh)")
    root = history(tmp_path / "ws", "yarn")
    parent = _checkout(root, ref)
    out = run(["node", str(js), "workspaces", "list", f"--since={parent}", "-R", "--json"], root, env=YARN_ENV).stdout
    listed = {"" if i["location"] == "." else i["location"] for i in map(json.loads, filter(None, out.splitlines()))}
    assert listed == EXPECTED[ref]
