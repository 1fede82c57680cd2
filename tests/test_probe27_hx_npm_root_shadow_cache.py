"""npm: whether the root's test is shadowed is read from the graph, not from the disk at command time.

``npm run test --workspace=./packages/a --include-workspace-root`` runs only the workspace's test
when ``packages/a`` is named like the root (npm 11.19.1, measured in
``test_probe25_lead_npm_root_name_clash``), so ctxsel leaves the flag out and warns. It decided
that by reading package.json files at command time, while the node ids came from the (cached)
graph: after an edit the cache's (mtime, size) stamps do not see -- same length, mtime kept, as
``cp -p``, ``rsync -t`` or ``tar -x`` leave it -- a warm run printed the flag beside the graph's
``./packages/a`` id and no warning, a command that ``--no-cache`` on the same graph never gives.
Now the names come from the graph the command is rendered for.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from jsfixtures import write_pkg
from oracles import require, run

from ctxsel.workspace import Workspace


def workspace(parent: Path) -> Path:
    root = parent / "repo"
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({
        "name": "insomnia", "version": "1.0.0", "private": True, "workspaces": ["packages/*"],
        "scripts": {"test": "echo RAN-root"}}))
    write_pkg(root, "packages/a", "insomnia", scripts={"test": "echo RAN-a"})
    write_pkg(root, "packages/b", "b", scripts={"test": "echo RAN-b"})
    return root


def command(root: Path, use_cache: bool) -> tuple[list[str], list[str], str]:
    """(argv, warnings, graph id of packages/a) for the tests of the root and packages/a."""
    ws = Workspace.open(root, adapter="npm", source="static", use_cache=use_cache)
    ids = sorted(n.id for n in ws.graph.nodes() if n.package in ("", "packages/a"))
    a_id = next(n.id for n in ws.graph.nodes() if n.package == "packages/a")
    return ws.adapter.targets_command(ws.graph, ids), ws.adapter.test_command_warnings(ws.graph, ids), a_id


def rename_keeping_stamp(manifest: Path, old: str, new: str) -> None:
    """Edit ``manifest`` so that its (mtime, size) stamp stays the same."""
    assert len(old) == len(new)
    st = os.stat(manifest)
    manifest.write_text(manifest.read_text().replace(f'"{old}"', f'"{new}"'))
    os.utime(manifest, ns=(st.st_atime_ns, st.st_mtime_ns))


def test_a_warm_cache_renders_the_command_of_its_own_graph(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    cold = command(root, use_cache=True)  # fills the cache
    assert cold[2] == "./packages/a" and "--include-workspace-root" not in cold[0] and cold[1], cold
    rename_keeping_stamp(root / "packages/a/package.json", "insomnia", "insomnix")
    warm = command(root, use_cache=True)
    assert warm[2] == "./packages/a", "the cache still holds the graph of before the edit"
    assert warm == cold


@pytest.mark.oracle
def test_the_command_of_the_graph_runs_what_npm_runs_for_those_files(tmp_path: Path) -> None:
    """The cached command is right for the files the graph was read from (npm measured on them)."""
    require("npm")
    root = workspace(tmp_path)
    argv, warnings, _ = command(root, use_cache=True)
    out = run(argv, root).stdout
    assert {line for line in out.splitlines() if line.startswith("RAN-")} == {"RAN-a"}
    assert warnings and "npm run test" in warnings[0]
