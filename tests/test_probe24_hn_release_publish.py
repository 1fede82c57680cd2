"""Nx's implicit ``nx-release-publish`` target, against the real nx.

Measured with nx 24.0.6 in session 24 (``/tmp/dev24/hn/rp/probe.sh``: ``nx graph --file``'s
targets): Nx's ``readTargetsFromPackageJson`` gives every package.json project (a project.json
beside it included) an ``nx-release-publish`` target when ``@nx/js`` resolves
(``require.resolve('@nx/js/package.json')`` from the project root, the workspace, or nx's own
directory); a stub ``node_modules/@nx/js/package.json`` at the workspace root is enough, one in a
project's root gives only that project the target; nx.json ``release`` changes nothing. Not
for ``"private": true`` or ``"private": "false"`` (JavaScript truthiness; ``0`` gets it), nor
when a script or ``nx.targets`` already names it. Its ``dependsOn`` is ``^nx-release-publish``
followed by the targetDefaults' ``dependsOn``. A ``test`` ``dependsOn: ["^*"]`` reaches it, so
an invalid input on it fails ``nx affected -t test``. ctxsel never made the target.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import run_cli, run_git, write_tree
from oracles import PREFIX, require, run

from ctxsel.adapters.base import AdapterOptions
from ctxsel.adapters.js.nx import NxAdapter, node_path_env
from ctxsel.cache import InputTracker

STUB = {"node_modules/@nx/js/package.json": {"name": "@nx/js", "version": "23.2.1"}}

PACKAGES: dict[str, object] = {
    "packages/pub/package.json": {"name": "pub", "version": "1.0.0", "dependencies": {"zero": "*"}},
    "packages/priv/package.json": {"name": "priv", "version": "1.0.0", "private": True},
    "packages/strfalse/package.json": {"name": "strfalse", "version": "1.0.0", "private": "false"},
    "packages/zero/package.json": {"name": "zero", "version": "1.0.0", "private": 0},
    # resolved from this project's root only: zero has the target with or without the root stub
    "packages/zero/node_modules/@nx/js/package.json": {"name": "@nx/js", "version": "23.2.1"},
    "packages/pj/package.json": {"name": "pj", "version": "1.0.0"},
    "packages/pj/project.json": {"name": "pj", "targets": {"build": {"command": "echo"}}},
    "packages/scr/package.json": {"name": "scr", "version": "1.0.0", "scripts": {"nx-release-publish": "echo"}},
    "packages/nxt/package.json": {"name": "nxt", "version": "1.0.0",
                                  "nx": {"targets": {"nx-release-publish": {"command": "echo hi"}}}},
    "libs/onlyproj/project.json": {"name": "onlyproj"},
}


def make(root: Path, nx_json: object, packages: dict[str, object], stub: bool) -> Path:
    files = {"package.json": {"name": "root", "version": "0.0.0", "workspaces": ["packages/*"]}, "nx.json": nx_json,
             ".gitignore": "node_modules\n",
             **packages, **(STUB if stub else {})}
    write_tree(root, {k: v if isinstance(v, str) else json.dumps(v) for k, v in files.items()})
    run_git(root, "init", "-q")
    run_git(root, "add", "-A")
    run_git(root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init")
    return root


def nx_env(tool: str, root: Path, state: Path) -> dict[str, str]:
    return {"NX_WORKSPACE_DATA_DIRECTORY": str(state / "wd"), "NX_CACHE_DIRECTORY": str(state / "cache"),
            "NX_WORKSPACE_ROOT_PATH": str(root), "NX_DAEMON": "false", **node_path_env(tool, root, None)}


def require_plain_nx() -> str:
    """The oracle nx, which must not bring an ``@nx/js`` of its own (then every case gets the target)."""
    tool = require("nx")
    if (PREFIX / "node_modules" / "@nx" / "js").exists():
        pytest.skip(f"{PREFIX}/node_modules has @nx/js: nx would add the target without the fixture's stub")
    return tool


def publish_targets(targets: dict[str, dict]) -> dict[str, object]:
    """Target names, and nx-release-publish's dependsOn."""
    return {"names": sorted(targets), "publish": (targets.get("nx-release-publish") or {}).get("dependsOn")}


@pytest.mark.parametrize("stub", [True, False], ids=["nx_js_installed", "no_nx_js"])
def test_targets_as_nx_graph(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stub: bool) -> None:
    tool = require_plain_nx()
    monkeypatch.delenv("NODE_PATH", raising=False)
    nx_json = {"targetDefaults": {"nx-release-publish": {"dependsOn": ["build"], "options": {"x": 1}}}}
    root = make(tmp_path / "ws", nx_json, PACKAGES, stub)
    out = tmp_path / "graph.json"
    run([tool, "graph", f"--file={out}"], root, env=nx_env(tool, root, tmp_path / "state"))
    want = {name: publish_targets(node["data"]["targets"]) for name, node in json.loads(out.read_text())["graph"]["nodes"].items()}
    assert ("nx-release-publish" in want["pub"]["names"]) == stub  # the measurement itself
    assert "nx-release-publish" in want["zero"]["names"]
    graph = NxAdapter(root, AdapterOptions(source="static")).load(InputTracker(root))
    got = {n.id: {"names": sorted(n.meta.get("targets") or ()),
                  "publish": (n.meta.get("depends_on") or {}).get("nx-release-publish")} for n in graph.nodes()}
    assert got == want


TASK_GRAPH_PACKAGES: dict[str, object] = {
    "packages/a/package.json": {"name": "a", "version": "1.0.0", "private": True, "scripts": {"test": "t"},
                                "dependencies": {"b": "*"}},
    "packages/b/package.json": {"name": "b", "version": "1.0.0", "dependencies": {"c": "*"}},
    "packages/c/package.json": {"name": "c", "version": "1.0.0", "private": True, "scripts": {"test": "t"}},
}


def test_task_graph_reaches_the_target(tmp_path: Path) -> None:
    """``test`` dependsOn ``^*`` reaches b:nx-release-publish, whose targetDefaults input is invalid:
    nx fails only when @nx/js is installed, and so must ctxsel."""
    tool = require_plain_nx()
    nx_json = {"targetDefaults": {"test": {"dependsOn": ["^*"]}, "nx-release-publish": {"inputs": ["nosuch"]}}}
    roots = {stub: make(tmp_path / f"ws-{stub}", nx_json, TASK_GRAPH_PACKAGES, stub) for stub in (True, False)}

    def nx(stub: bool):
        root = roots[stub]
        return run([tool, "affected", "-t", "test", "--files=packages/a/package.json", f"--graph={root}.json"],
                   root, env=nx_env(tool, root, tmp_path / f"state-{stub}"), check=False)

    with ThreadPoolExecutor(2) as pool:
        answers = dict(zip((True, False), pool.map(nx, (True, False))))
    for stub, root in roots.items():
        mine = run_cli("--repo", str(root), "--no-cache", "-q", "--adapter", "nx", "--source", "static", "tests",
                       "--files", "packages/a/package.json", "--format", "json")
        nx_failed = answers[stub].returncode != 0
        assert nx_failed == stub and ('"nosuch" is an invalid fileset' in answers[stub].stdout + answers[stub].stderr) == stub
        if nx_failed:
            assert mine.returncode == 2 and "b:nx-release-publish" in mine.stderr and "Traceback" not in mine.stderr, mine.stderr
        else:
            tasks = json.loads(Path(f"{root}.json").read_text())["tasks"]["tasks"]
            assert mine.returncode == 0, mine.stderr
            assert set(json.loads(mine.stdout)["tests"]) <= {t["target"]["project"] for t in tasks.values()}
