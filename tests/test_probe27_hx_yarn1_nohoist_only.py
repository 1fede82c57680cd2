"""yarn 1: ``"workspaces": {"nohoist": [...]}`` without ``packages`` makes no workspace root.

yarn 1's ``extractWorkspaces``/``findWorkspaceRoot`` need an array of globs, or an object whose
``packages`` is one: with ``nohoist`` alone the repository is a plain package, so ``yarn test``
runs the root's script and ``yarn workspaces info`` fails with "Cannot find the root of your
workspace" (yarn 1.22.22, measured). ctxsel's static mode already answered with the root alone,
silently; tool mode stopped with yarn's error. Now both answer the root alone and warn, naming
package.json, that yarn 1 reads no workspaces there.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from oracles import yarn_js, yarn_run

from ctxsel.workspace import Workspace

PACKAGES = {"packages/a": {"name": "a", "version": "1.0.0", "scripts": {"test": "echo RAN-a"}},
            "packages/b": {"name": "b", "version": "1.0.0", "scripts": {"test": "echo RAN-b"},
                           "dependencies": {"a": "1.0.0"}}}
NOHOIST_ONLY: dict[str, Any] = {"nohoist": ["**/x"]}
WITH_PACKAGES: dict[str, Any] = {"packages": ["packages/*"], "nohoist": ["**/x"]}


def make(root: Path, workspaces: Any, yarn_path: str | None = None) -> Path:
    root.mkdir(parents=True)
    manifest = {"name": "root", "private": True, "workspaces": workspaces, "scripts": {"test": "echo RAN-root"}}
    (root / "package.json").write_text(json.dumps(manifest))
    (root / "yarn.lock").write_text("")
    if yarn_path:
        (root / ".yarnrc").write_text(f'yarn-path "{yarn_path}"\n')
    for rel, fields in PACKAGES.items():
        (root / rel).mkdir(parents=True)
        (root / rel / "package.json").write_text(json.dumps(fields))
    return root


def answer(root: Path, source: str) -> tuple[set[str], list[str]]:
    """(package dirs in ctxsel's graph, its warnings about ``workspaces``)."""
    ws = Workspace.open(root, adapter="yarn", source=source, use_cache=False)
    return {n.package for n in ws.graph.nodes()}, [w for w in ws.warnings if "yarn 1 reads no workspaces" in w]


def test_static_mode_answers_the_root_alone_and_warns(tmp_path: Path) -> None:
    dirs, warnings = answer(make(tmp_path / "w", NOHOIST_ONLY), "static")
    assert dirs == {""}
    assert len(warnings) == 1 and warnings[0].startswith("package.json:1: "), warnings


def test_a_packages_list_beside_nohoist_is_a_workspace_root(tmp_path: Path) -> None:
    dirs, warnings = answer(make(tmp_path / "w", WITH_PACKAGES), "static")
    assert dirs == {"", "packages/a", "packages/b"} and warnings == []


@pytest.mark.oracle
def test_yarn1_sees_a_plain_package_and_tool_mode_agrees(tmp_path: Path) -> None:
    js = yarn_js(False)
    root = make(tmp_path / "w", NOHOIST_ONLY, yarn_path=js)
    info = yarn_run(False, root, "--silent", "workspaces", "info", check=False)
    assert info.returncode != 0 and "Cannot find the root of your workspace" in info.stdout + info.stderr
    assert "RAN-root" in yarn_run(False, root, "test").stdout  # the root alone: ctxsel's `yarn test`
    assert answer(root, "tool") == answer(root, "static")
    assert answer(root, "tool")[0] == {""}
    # with a packages list yarn 1 lists both workspaces, and ctxsel does not warn
    listed = yarn_run(False, make(tmp_path / "p", WITH_PACKAGES), "--silent", "workspaces", "info").stdout
    assert {info["location"] for info in json.loads(listed[listed.index("{"):]).values()} == {"packages/a", "packages/b"}
