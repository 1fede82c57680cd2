"""Turborepo 2: ``turbo query`` refuses a package turbo.json's ``"test": {"extends": false}`` when
no turbo.json it extends defines ``test`` ("Cannot set "extends": false on task "test" because it
is not defined in the extends chain", turbo 2.11.11, measured; found by randomized differential
testing: the root defined only ``@acme/ui#test``). ``turbo run test`` runs and leaves the
package out, and ``turbo ls`` lists it. ``--source tool`` exited 2 ("turbo query failed"); now it
reads the manifests, as for turbo's other task refusals (``TurboAdapter._query_output``), with
a warning that quotes turbo's reason rather than its first line ("Could not resolve workspace.").
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ctxsel.adapters.js.turbo import TASK_REFUSAL
from jsfixtures import TURBO_ENV, open_ws, radius_dirs, turbo_filter
from oracles import oracle_env, require, run

REFUSAL = 'Cannot set "extends": false on task "test" because it is not defined in'


def test_the_refusal_is_one_of_turbo_query_s_task_refusals() -> None:
    """Old: not matched, so tool mode stopped at the ToolError."""
    assert TASK_REFUSAL.search(REFUSAL)


def workspace(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps(
        {"name": "root", "private": True, "packageManager": "npm@10.9.0", "workspaces": ["p/*"]}))
    (root / "turbo.json").write_text(json.dumps({"tasks": {"build": {}, "a#test": {}}}))
    for name, deps in (("a", {}), ("b", {"a": "*"}), ("c", {"a": "*"})):
        (root / "p" / name).mkdir(parents=True)
        (root / "p" / name / "package.json").write_text(json.dumps(
            {"name": name, "version": "1.0.0", "scripts": {"test": "echo"}, "dependencies": deps}))
    (root / "p/c/turbo.json").write_text(json.dumps({"extends": ["//"], "tasks": {"test": {"extends": False}}}))
    return root


@pytest.mark.oracle
def test_tool_mode_reads_the_manifests_then(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require("turbo")
    monkeypatch.setenv("PATH", oracle_env()["PATH"])
    root = workspace(tmp_path / "ws")
    query = run(["turbo", "query", "{ packages { items { name } } }"], root, env=TURBO_ENV, check=False)
    assert query.returncode != 0 and "Cannot set" in query.stderr  # what turbo does
    tool, static = open_ws(root, "turbo", source="tool"), open_ws(root, "turbo")
    assert any(REFUSAL in w for w in tool.graph.warnings), tool.graph.warnings
    assert radius_dirs(tool, "a") == radius_dirs(static, "a") == turbo_filter(root, "...a") == {"p/a", "p/b", "p/c"}
    assert tool.tests(roots=["a"]).tests == ["a"]  # only ``a#test`` is defined
    out = run(["turbo", "run", "test", "--filter=...a", "--dry=json"], root, env=TURBO_ENV).stdout
    ran = {t["taskId"] for t in json.loads(out[out.index("{"):])["tasks"] if not t["command"].startswith("<")}
    assert ran == {"a#test"}
