"""The MCP ``affected_tests`` tool takes ``target`` (``ctxsel tests --target``), and answers as the CLI does.

An agent on a repository whose packages run ``unit-test``/``lint`` rather than ``test`` got an
empty list from ``affected_tests`` with no way to ask for those. The pnpm answers themselves
are checked against pnpm in ``test_probe26_ht_target_js``; here: the argument is in the
tool's input schema, its answer is the CLI's JSON, and a Bazel workspace refuses it as a
tool error with the CLI's message.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES
from test_mcp import cli_json, serve_and_call, structured
from test_probe26_ht_target_js import workspace

pytest.importorskip("mcp", reason="the MCP SDK is not installed: pip install -e '.[test]'")

CALLS = {
    "lint": ("affected_tests", {"targets": ["a"], "target": "lint"}, ["tests", "a", "--target", "lint"]),
    "both": ("affected_tests", {"targets": ["a"], "target": "unit-test,lint"}, ["tests", "a", "-t", "unit-test,lint"]),
    "default": ("affected_tests", {"targets": ["a"]}, ["tests", "a"]),
}


def test_affected_tests_target_argument(tmp_path: Path) -> None:
    root = workspace(tmp_path / "ws")
    (root / "turbo.json").unlink()  # pnpm alone answers (the adapter detection would pick turbo)
    served = serve_and_call(root, CALLS, tmp_path / "server.stderr")
    schema = next(t for t in served["tools"] if t.name == "affected_tests").input_schema
    assert "target" in schema["properties"] and "target" not in schema.get("required", [])
    for name, (_, _, cli_args) in CALLS.items():
        got = structured(served["results"][name])
        assert got == cli_json(root, cli_args), name
    assert structured(served["results"]["lint"])["tests"] == ["a", "b", "c"]
    assert structured(served["results"]["lint"])["targets"] == ["lint"]
    assert structured(served["results"]["default"])["targets"] == ["test"]


def test_bazel_refuses_target_as_a_tool_error(tmp_path: Path) -> None:
    root = tmp_path / "bazel-basic"
    shutil.copytree(FIXTURES / "bazel-basic", root, ignore=shutil.ignore_patterns(".ctxsel"))
    calls = {"lint": ("affected_tests", {"targets": ["//..."], "target": "lint"}, [])}
    result = serve_and_call(root, calls, tmp_path / "server.stderr")["results"]["lint"]
    assert result.is_error and "--target lint" in result.content[0].text
