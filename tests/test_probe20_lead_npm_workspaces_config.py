"""npm refuses a root ``workspaces`` value that is not an array of glob strings; so does ctxsel.

Before: ``"workspaces": "packages/*"`` (a string) or ``{"nohoist": [...]}`` made ctxsel find no
workspace at all ("no workspace found", pointing nowhere near the mistake), and a number among
the globs was silently dropped, where npm stops every command (npm 11.19.1, measured:
EWORKSPACESCONFIG "workspaces config expects an Array", or "pattern.match is not a function").
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli, write_tree
from oracles import run, which

REFUSED = ['"packages/*"', '{"nohoist": ["x"]}', '{"packages": "packages/*"}', "{}", "0", '""', '[1, "packages/*"]']
ACCEPTED = ['["packages/*"]', '{"packages": ["packages/*"]}']


def repo(root: Path, workspaces: str) -> Path:
    return write_tree(root, {
        "package.json": '{\n  "name": "root",\n  "private": true,\n  "workspaces": ' + workspaces + "\n}\n",
        "packages/a/package.json": json.dumps({"name": "a", "version": "1.0.0", "dependencies": {"b": "1.0.0"}}),
        "packages/b/package.json": json.dumps({"name": "b", "version": "1.0.0"}),
    })


@pytest.mark.parametrize("workspaces", REFUSED)
def test_a_workspaces_value_npm_refuses_is_a_user_error_naming_its_line(tmp_path, workspaces):
    root = repo(tmp_path, workspaces)
    res = run_cli("--repo", str(root), "--source", "static", "blast-radius", "b")
    assert res.returncode == 2, res.stdout + res.stderr
    assert res.stderr.startswith("ctxsel: error: package.json:4: npm: ")
    assert "Traceback" not in res.stderr and len(res.stderr.strip().splitlines()) <= 3


@pytest.mark.parametrize("workspaces", ACCEPTED)
def test_the_forms_npm_reads_still_answer(tmp_path, workspaces):
    root = repo(tmp_path, workspaces)
    res = run_cli("--repo", str(root), "--source", "static", "blast-radius", "b")
    assert res.returncode == 0, res.stderr
    assert [line.split("\t")[0] for line in res.stdout.splitlines()] == ["b", "a"]


@pytest.mark.oracle
@pytest.mark.parametrize("workspaces", REFUSED + ACCEPTED)
def test_npm_itself_refuses_exactly_these(tmp_path, workspaces):
    npm = which("npm")
    if not npm:
        pytest.skip("npm is not installed")
    root = repo(tmp_path, workspaces)
    res = run([npm, "install", "--offline", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=root, check=False)
    if res.returncode == 0:
        res = run([npm, "query", ".workspace", "--offline"], cwd=root, check=False)
    refused = res.returncode != 0 and ("EWORKSPACESCONFIG" in res.stdout + res.stderr
                                       or "pattern.match is not a function" in res.stdout + res.stderr)
    assert refused == (workspaces in REFUSED), res.stdout + res.stderr
    if not refused:
        assert sorted(w["name"] for w in json.loads(res.stdout)) == ["a", "b"]
