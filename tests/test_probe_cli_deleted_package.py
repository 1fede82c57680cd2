"""A deleted package's files belong to the package that contains their path today (probe finding).

pnpm's ``--filter '...[ref]'`` maps each changed file to the deepest *current*
package directory above it; the files of a deleted package therefore change the
root project. ctxsel mapped them only through the old graph (to the removed package
and its surviving dependents), so for pnpm the root project was missing:
``git rm -r packages/plugin`` -> pnpm ``['ws-root']``, ctxsel nothing.
"""

from __future__ import annotations

import json
import shutil

import pytest

from conftest import FIXTURES, run_cli, run_git
from ctxsel.affected import change_set
from ctxsel.changes import changed_files
from ctxsel.revision import revision_graph
from oracles import require, run
from toy_workspace import git, make_repo, open_ws, write


def test_files_of_a_deleted_node_count_for_the_node_containing_their_path_now(tmp_path):
    """Toy graph with a root node (package ""): deleting ``lone`` changes the root node."""
    root = make_repo(tmp_path / "ws")
    spec = json.loads((root / "toy.json").read_text())
    spec["nodes"]["rootpkg"] = {"dir": "", "srcs": ["README.md"]}
    write(root, "toy.json", json.dumps(spec))
    git(root, "commit", "-qam", "root node")
    del spec["nodes"]["lone"]
    write(root, "toy.json", json.dumps(spec))
    git(root, "rm", "-q", "lone/x.c")
    git(root, "commit", "-qam", "drop lone")
    ws = open_ws(root)
    found = changed_files(root, base="HEAD~1")
    cs = change_set(ws.adapter, ws.graph, found, old_graph=lambda rev, paths: revision_graph(ws.adapter, rev, paths))
    assert "rootpkg" in cs.nodes
    assert "lone/x.c (deleted)" in cs.reasons["rootpkg"]


def test_a_deleted_file_whose_node_survives_is_unchanged_by_this(tmp_path):
    """Only a removed owner hands the path on: a file deleted from a live node changes just that node."""
    root = make_repo(tmp_path / "ws")
    spec = json.loads((root / "toy.json").read_text())
    spec["nodes"]["rootpkg"] = {"dir": "", "srcs": ["README.md"]}
    spec["nodes"]["lib_b"]["srcs"].append("lib/extra.c")
    write(root, "toy.json", json.dumps(spec))
    write(root, "lib/extra.c")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "extra")
    git(root, "rm", "-q", "lib/extra.c")
    ws = open_ws(root)
    cs = change_set(ws.adapter, ws.graph, changed_files(root, staged=True),
                    old_graph=lambda rev, paths: revision_graph(ws.adapter, rev, paths))
    assert cs.nodes == ["lib_b"]


@pytest.mark.oracle
def test_pnpm_deleted_package_equals_pnpm_filter_since_ref(tmp_path):
    pnpm = require("pnpm")
    root = tmp_path / "repo"
    shutil.copytree(FIXTURES / "js-pnpm", root, ignore=shutil.ignore_patterns("node_modules", ".ctxsel"))
    run_git(root, "init", "-q", "-b", "main")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", "init")
    # a package nobody depends on, then one with dependents (whose manifests drop it)
    names = {json.loads(p.read_text()).get("name"): p.parent for p in root.glob("*/*/package.json")}
    leaf = names["@ws/plugin"].relative_to(root).as_posix()
    run_git(root, "rm", "-rq", leaf)
    run_git(root, "commit", "-qm", "drop plugin")
    utils = names["@ws/utils"].relative_to(root).as_posix()
    for pj in root.glob("*/*/package.json"):
        body = json.loads(pj.read_text())
        if body.get("dependencies", {}).pop("@ws/utils", None) is not None:
            pj.write_text(json.dumps(body, indent=2) + "\n")
    run_git(root, "rm", "-rq", utils)
    run_git(root, "commit", "-qam", "drop utils")
    mismatches = []
    for ref in ("HEAD~1", "HEAD~2"):
        out = run([pnpm, "--filter", f"...[{ref}]", "ls", "--depth", "-1", "--json"], cwd=root, timeout=120).stdout
        want = {p["name"] for p in json.loads(out[out.index("["):])}
        proc = run_cli("--repo", str(root), "--adapter", "pnpm", "--source", "static", "--quiet",
                       "blast-radius", "--base", ref, "--format", "labels")
        assert proc.returncode == 0, proc.stderr
        got = set(proc.stdout.split())
        if got != want:
            mismatches.append(f"{ref}: ctxsel-only {sorted(got - want)}, pnpm-only {sorted(want - got)}")
    assert not mismatches, "\n".join(mismatches)
