"""npm: a root ``overrides`` entry for a workspace's name makes ``npm install`` fail.

arborist allows no override of the project root's direct dependencies, and the root depends
on every workspace (``file:<dir>``), so ``"overrides": {"a": "1.0.0"}`` beside a workspace
named ``a`` stops every install with EOVERRIDE (npm 11.19.1). ``npm run --workspace`` still
runs, so ctxsel keeps answering from the manifests, and now warns (naming package.json and
the ``overrides`` line) that the workspace cannot be installed. Before, it said nothing.

The oracle test installs each case with the real npm and checks that ctxsel warns exactly
where npm refuses.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsfixtures import open_ws, write_pkg
from oracles import require, run

from ctxsel.adapters.js.npm import npm_override_conflicts

#: (overrides, whether npm install refuses them), keys and values as npm users write them
CASES: list[tuple[dict[str, Any], bool]] = [
    ({"a": "1.0.0"}, True),
    ({"a": {".": "1.0.0"}}, True),
    ({"a@2": "1.0.0"}, True),
    ({"a": "file:packages/a"}, True),
    ({"a": "$a"}, True),  # no root dependency to refer to: "Unable to resolve reference"
    ({"a": "*"}, False),
    ({"a": ""}, False),
    ({"a": {"c": "1.0.0"}}, False),
    ({"b": {"a": "1.0.0"}}, False),  # nested under b: not the root's own edge
    ({"zz": "1.0.0"}, False),  # no such workspace (and b, a depend on nothing external)
]


def workspace(root: Path, overrides: dict[str, Any]) -> Path:
    root.mkdir(parents=True)
    manifest = {"name": "root", "private": True, "workspaces": ["packages/*"], "overrides": overrides}
    (root / "package.json").write_text(json.dumps(manifest, indent=2) + "\n")
    write_pkg(root, "packages/a", "a", scripts={"test": "echo RAN-a"})
    write_pkg(root, "packages/b", "b", scripts={"test": "echo RAN-b"}, dependencies={"a": "^1.0.0"})
    return root


def override_warnings(root: Path) -> list[str]:
    return [w for w in open_ws(root, "npm").warnings if "overrides" in w]


@pytest.mark.parametrize("overrides,refused", CASES, ids=[json.dumps(c[0]) for c in CASES])
def test_ctxsel_warns_where_npm_refuses(tmp_path: Path, overrides: dict[str, Any], refused: bool) -> None:
    warnings = override_warnings(workspace(tmp_path / "repo", overrides))
    if refused:
        assert len(warnings) == 1, warnings
        assert warnings[0].startswith("package.json:7: ") and "'a'" in warnings[0], warnings
    else:
        assert warnings == []


def test_the_graph_keeps_the_manifests_links(tmp_path: Path) -> None:
    ws = open_ws(workspace(tmp_path / "repo", {"a": "1.0.0"}), "npm")
    assert ("b", "a") in {(s, d) for s, d, _ in ws.graph.edges()}


@pytest.mark.oracle
def test_npm_install_refuses_exactly_the_warned_cases(tmp_path: Path) -> None:
    require("npm")
    env = {"npm_config_offline": "true", "npm_config_audit": "false", "npm_config_fund": "false",
           "npm_config_update_notifier": "false", "npm_config_cache": str(tmp_path / "npm-cache")}
    measured = {}
    for i, (overrides, _) in enumerate(CASES):
        root = workspace(tmp_path / f"w{i}", overrides)
        proc = run(["npm", "install", "--offline"], root, env=env, check=False)
        measured[json.dumps(overrides)] = proc.returncode != 0
        if proc.returncode != 0:
            assert "EOVERRIDE" in proc.stderr or "Unable to resolve reference" in proc.stderr, proc.stderr[-500:]
        warned = npm_override_conflicts(json.loads((root / "package.json").read_text()), {"a", "b"}) != []
        assert warned == measured[json.dumps(overrides)], (overrides, proc.stderr[-500:])
        # npm run still runs a workspace's script: the commands ctxsel prints stay usable
        if i == 0:
            assert "RAN-a" in run(["npm", "run", "test", "--workspace=a"], root, env=env).stdout
    assert measured == {json.dumps(c[0]): c[1] for c in CASES}
