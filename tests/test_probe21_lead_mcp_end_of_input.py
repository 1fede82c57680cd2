"""Session 21 probe: the MCP server over a pipe that closes as soon as the requests are written.

Old: when stdin closed, the SDK cancelled every request still being computed, so
``ctxsel mcp < requests.jsonl`` lost the answers to all but the quickest calls (four of
fourteen came back in the probe). Now the requests read before the end of input are all
answered, in whatever order they finish, and the server still exits on its own; a request
the client cancelled is the only one left unanswered (the protocol says so).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import write_tree

INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def call(request_id: int | str, name: str, arguments: dict) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": name, "arguments": arguments}}


def serve_all(repo: Path, messages: list[dict | bytes]) -> tuple[int, list[dict]]:
    """Write every message, close stdin at once, and read what comes back before the server exits."""
    lines = b"".join((m if isinstance(m, bytes) else json.dumps(m).encode()) + b"\n" for m in messages)
    proc = subprocess.run([sys.executable, "-m", "ctxsel", "mcp", "--repo", str(repo)],
                          input=lines, capture_output=True, timeout=240)
    return proc.returncode, [json.loads(line) for line in proc.stdout.decode().splitlines()]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    files = {"package.json": json.dumps({"name": "root", "private": True, "workspaces": ["packages/*"]})}
    for i in range(8):
        deps = {f"p{i - 1}": "*"} if i else {}
        files[f"packages/p{i}/package.json"] = json.dumps({"name": f"p{i}", "version": "1.0.0", "dependencies": deps})
        for f in range(15):
            files[f"packages/p{i}/src/m{f}.ts"] = "".join(
                f"export function handler_{i}_{f}_{k}(req: Request) {{\n  return retry(req, {k})\n}}\n\n" for k in range(12))
    return write_tree(tmp_path / "repo", files)


def test_every_request_read_before_end_of_input_is_answered(repo: Path) -> None:
    pytest.importorskip("mcp")
    requests = [call(i, "select_context", {"query": f"retry handler_{i}", "budget": 600}) for i in range(1, 7)]
    requests += [call("q", "owners", {"paths": ["packages/p1"]}), call(8, "blast_radius", {"targets": ["p2"]}),
                 call(9, "affected_tests", {"targets": ["p3"]})]
    code, answers = serve_all(repo, [INIT, INITIALIZED, *requests, b"{not json"])
    assert code == 0
    by_id = {a["id"]: a for a in answers}
    assert set(by_id) == {0, None, "q", *range(1, 7), 8, 9}  # None: the parse error of the last line
    for i in range(1, 7):
        assert by_id[i]["result"]["structuredContent"]["tokens"] <= 600
        assert not by_id[i]["result"].get("isError")
    radius = [n["id"] for n in by_id[8]["result"]["structuredContent"]["affected"]]
    assert radius[:2] == ["p2", "p3"] and "p7" in radius


def test_a_cancelled_request_is_the_one_left_unanswered(repo: Path) -> None:
    pytest.importorskip("mcp")
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5}}
    code, answers = serve_all(repo, [INIT, INITIALIZED, call(5, "select_context", {"query": "retry", "budget": 100000}),
                                     cancel, call(6, "owners", {"paths": ["x"]})])
    assert code == 0
    assert {a["id"] for a in answers} == {0, 6}


def test_requests_before_initialize_still_end(repo: Path) -> None:
    """A client that skips the handshake gets its answers (errors or not) and the server exits."""
    pytest.importorskip("mcp")
    code, answers = serve_all(repo, [call(1, "owners", {"paths": ["x"]}), {"jsonrpc": "2.0", "id": 2, "method": "ping"}])
    assert code == 0
    assert {a["id"] for a in answers} == {1, 2}
