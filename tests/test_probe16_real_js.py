"""JS workspaces on real repositories (session 16: lexical, pnpm/pnpm, trpc, dub, babel).

- trpc (pnpm 9 + turbo): ``ctxsel tests --since HEAD~3`` spent 14 s of CPU, all in PyYAML's
  pure-Python parser reading the two versions of a 1.4 MB pnpm-lock.yaml. The lockfile is now
  read with libyaml's loader (same resolution rules) and, for lockfile v9, without its
  top-level ``packages:`` section, which turbo's answer never reads there (the graph is in
  ``snapshots``): 1.8 s of CPU. These tests pin that the narrowed parse gives the same answer.
"""

from __future__ import annotations

import pytest
from ctxsel.adapters.js.lockfile import _without_v9_packages, lockfile_changed_dirs

V9 = """lockfileVersion: '9.0'

settings:
  autoInstallPeers: true

importers:

  .:
    devDependencies:
      turbo:
        specifier: ^2.0.0
        version: 2.0.0

  packages/a:
    dependencies:
      left:
        specifier: ^1.0.0
        version: {left}

packages:

  # a comment at the margin inside the section
  left@1.0.0:
    resolution: {{integrity: sha512-aaa}}

  left@1.1.0:
    resolution: {{integrity: sha512-bbb}}

  right@2.0.0:
    resolution: {{integrity: sha512-ccc}}

  turbo@2.0.0:
    resolution: {{integrity: sha512-ddd}}

snapshots:

  left@1.0.0:
    dependencies:
      right: 2.0.0

  left@1.1.0: {{}}

  right@2.0.0: {{}}

  turbo@2.0.0: {{}}
"""
EXTERNALS = {"": {"turbo": "^2.0.0"}, "packages/a": {"left": "^1.0.0"}}


def test_a_v9_lockfile_is_read_without_its_packages_section():
    text = V9.format(left="1.0.0")
    narrowed = _without_v9_packages(text)
    assert "sha512" not in narrowed and "snapshots:" in narrowed and "importers:" in narrowed
    assert lockfile_changed_dirs(text, V9.format(left="1.1.0"), "pnpm", EXTERNALS) == {"packages/a"}
    assert lockfile_changed_dirs(text, text.replace("sha512-aaa", "sha512-zzz"), "pnpm", EXTERNALS) == set()


@pytest.mark.parametrize("text", [
    "lockfileVersion: '6.0'\npackages:\n  /a@1.0.0:\n    resolution: {integrity: x}\n",  # v6: the graph is packages
    "---\nlockfileVersion: '9.0'\npackages:\n  a@1.0.0: {}\n",  # a document marker
    "{lockfileVersion: '9.0', packages: {}}\n",  # flow style
    "lockfileVersion: '9.0'\n- a\npackages:\n  a: 1\n",  # not a mapping at the top
])
def test_other_lockfiles_are_read_whole(text):
    assert _without_v9_packages(text) == text


# ---------------------------------------------------------------- turbo query's refusals
#: turbo.json task sets ``turbo query`` refuses (turbo 2.11.11, measured: exit 1), while
#: ``turbo run test`` runs the first two and static mode reads every one
REFUSED_TASKS = {
    "cycle-outside-test": {"test": {}, "build": {"dependsOn": ["lint"]}, "lint": {"dependsOn": ["build"]}},
    "unknown-package": {"test": {}, "build": {"dependsOn": ["zzz#build"]}},
    "cycle-through-test": {"test": {"dependsOn": ["build"]}, "build": {"dependsOn": ["test"]}},
    "env-var": {"test": {"dependsOn": ["$FOO"]}},
    "root-task": {"test": {"dependsOn": ["//#nope"]}},
}


def _turbo_workspace(root, tasks: dict):
    import json
    import subprocess

    from conftest import write_tree

    write_tree(root, {
        "package.json": json.dumps({"name": "root", "private": True, "packageManager": "pnpm@9.0.0"}),
        "pnpm-workspace.yaml": "packages:\n  - packages/*\n",
        "pnpm-lock.yaml": "lockfileVersion: '9.0'\n",
        "turbo.json": json.dumps({"tasks": tasks}),
        "packages/a/package.json": json.dumps({"name": "a", "version": "1.0.0", "scripts": {"test": "x"}}),
        "packages/b/package.json": json.dumps({"name": "b", "version": "1.0.0", "scripts": {"test": "x"}, "dependencies": {"a": "workspace:*"}}),
        "packages/c/package.json": json.dumps({"name": "c", "version": "1.0.0", "devDependencies": {"b": "workspace:^"}}),
    })
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


@pytest.mark.oracle
@pytest.mark.parametrize("case", sorted(REFUSED_TASKS))
def test_tool_mode_answers_as_static_mode_when_turbo_query_refuses_the_tasks(tmp_path, case, monkeypatch):
    from jsfixtures import open_ws
    from oracles import oracle_env, require

    require("turbo")
    for key, value in oracle_env().items():
        monkeypatch.setenv(key, value)
    root = _turbo_workspace(tmp_path / "ws", REFUSED_TASKS[case])
    static = open_ws(root, "turbo", "static")
    tool = open_ws(root, "turbo", "tool")  # was: ToolError "turbo query failed (exit 1)", exit 2
    assert any("turbo query refuses turbo.json's tasks" in w for w in tool.graph.warnings)
    assert sorted(tool.graph.edges()) == sorted(static.graph.edges())
    for node in ("a", "b"):
        assert tool.tests(roots=[node]).tests == static.tests(roots=[node]).tests
