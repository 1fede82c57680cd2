"""A root tsconfig that a target's inputs name touches that project, whatever changed in it.

Measured with nx 24.0.6 in session 24, first on NativeScript/plugins (HEAD~10..HEAD of
8b65322e: one ``paths`` entry added to tsconfig.base.json, which nx.json's ``sharedGlobals``
names): ``nx show projects --affected`` marked the 34 projects whose targets read
``sharedGlobals`` besides the one the new mapping points into; ctxsel, static and tool mode,
only the mapped one. Over a git range ctxsel took the root tsconfig's project list from the
``paths`` diff alone, never from the inputs that name the file. Here: ``a``'s build reads
``{workspaceRoot}/tsconfig.base.json``; ``b`` is where a new mapping points; a later
whitespace-only change marks ``a`` alone.
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli, run_git, write_tree
from oracles import require, run

from ctxsel.adapters.js.nx import node_path_env

NX_JSON = {"namedInputs": {"default": ["{projectRoot}/**/*", "sharedGlobals"],
                           "sharedGlobals": ["{workspaceRoot}/tsconfig.base.json"]},
           "targetDefaults": {"build": {"inputs": ["default"]}}}
PATHS_BEFORE = '{\n "compilerOptions": {"paths": {"x": ["packages/c/index.ts"]}}\n}\n'
PATHS_AFTER = '{\n "compilerOptions": {"paths": {"x": ["packages/c/index.ts"], "y": ["packages/b/index.ts"]}}\n}\n'
WHITESPACE = PATHS_AFTER.replace('\n "', '\n  "')


def commit(root: Path, message: str) -> None:
    run_git(root, "add", "-A")
    run_git(root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", message)


def make(root: Path) -> Path:
    files = {"package.json": {"name": "root", "private": True, "workspaces": ["packages/*"]}, "nx.json": NX_JSON,
             "packages/a/package.json": {"name": "a", "private": True, "scripts": {"build": "b"}},
             "packages/b/package.json": {"name": "b", "private": True, "scripts": {"test": "t"}},
             "packages/c/package.json": {"name": "c", "private": True},
             "tsconfig.base.json": PATHS_BEFORE}
    write_tree(root, {k: v if isinstance(v, str) else json.dumps(v) for k, v in files.items()})
    run_git(root, "init", "-q")
    commit(root, "init")
    for text, message in ((PATHS_AFTER, "paths"), (WHITESPACE, "whitespace")):
        (root / "tsconfig.base.json").write_text(text)
        commit(root, message)
    return root


def test_root_tsconfig_named_by_inputs(tmp_path: Path) -> None:
    tool = require("nx")
    root = make(tmp_path / "ws")
    env = {"NX_WORKSPACE_DATA_DIRECTORY": str(tmp_path / "wd"), "NX_CACHE_DIRECTORY": str(tmp_path / "cache"),
           "NX_WORKSPACE_ROOT_PATH": str(root), "NX_DAEMON": "false", **node_path_env(tool, root, None)}
    for base, head in (("HEAD~2", "HEAD~1"), ("HEAD~1", "HEAD")):
        out = run([tool, "show", "projects", "--affected", f"--base={base}", f"--head={head}", "--json"], root, env=env).stdout
        want = sorted(json.loads(out[out.index("["):]))
        mine = run_cli("--repo", str(root), "--no-cache", "-q", "--adapter", "nx", "--source", "static",
                       "blast-radius", "--base", base, "--head", head, "--format", "json")
        assert mine.returncode == 0, mine.stderr
        assert sorted(a["id"] for a in json.loads(mine.stdout)["affected"]) == want, (base, head)
        assert "a" in want  # the measurement: the input names the file
