"""Session 27 probe: MCP protocol errors a real client meets, answered as the spec says.

**Ids.**
MCP (every revision, "Requests MUST include a string or integer ID ... the ID MUST NOT be
null") narrows JSON-RPC 2.0's ids. The official SDK (mcp 2.x) reads ``{"id": 1.5,
"method": "ping"}`` as a *notification* (the id is dropped as an unknown field) and never
answers it, so a client that sent a float, ``null``, boolean or object id waited forever.
Now each such request gets ``-32600`` (invalid request) with id ``null``, JSON-RPC's answer
when the request's id cannot be used; string and integer ids, and real notifications, are
served as before.

**Unknown tools.** The spec's tools page (2025-06-18 and 2025-11-25, "Error Handling") lists
an unknown tool among the protocol errors, with the example ``{"code": -32602, "message":
"Unknown tool: invalid_tool_name"}``; a tool result with ``isError`` is for a tool that ran
and failed. The SDK answered ``tools/call`` of an unknown name with such a result (the
official client returned it as a result instead of raising ``MCPError``). Now: -32602.
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

# ids MCP refuses, as a client would write them on the wire
BAD_IDS = ["1.5", "1e3", "null", "true", '{"a": 1}', "[1]"]


def serve_all(repo: Path, lines: list[str]) -> tuple[int, list[dict], str]:
    """Write every line, close stdin, and read what comes back before the server exits."""
    text = "".join(line + "\n" for line in lines)
    proc = subprocess.run([sys.executable, "-m", "ctxsel", "mcp", "--repo", str(repo)],
                          input=text.encode(), capture_output=True, timeout=120)
    return proc.returncode, [json.loads(line) for line in proc.stdout.decode().splitlines()], proc.stderr.decode()


def test_requests_with_ids_mcp_refuses_get_invalid_request_errors(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    write_tree(tmp_path, {"a.py": "def hello():\n    return 1\n"})
    lines = [json.dumps(INIT), json.dumps(INITIALIZED)]
    lines += [f'{{"jsonrpc": "2.0", "id": {bad}, "method": "ping"}}' for bad in BAD_IDS]
    lines += [
        '{"jsonrpc": "2.0", "method": "ping"}',  # a notification: never answered
        # a notification sent with "id": null, as some clients do: still the notification it names
        '{"jsonrpc": "2.0", "id": null, "method": "notifications/cancelled", "params": {"requestId": 42}}',
        '{"jsonrpc": "2.0", "id": 1, "method": "ping"}',
        '{"jsonrpc": "2.0", "id": "two", "method": "ping"}',
        json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                    "params": {"name": "owners", "arguments": {"paths": ["a.py"]}}}),
    ]
    code, answers, stderr = serve_all(tmp_path, lines)
    assert code == 0, stderr
    assert "Traceback" not in stderr
    by_id = {a["id"]: a for a in answers if a["id"] is not None}
    assert by_id[1] == {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert by_id["two"] == {"jsonrpc": "2.0", "id": "two", "result": {}}
    assert by_id[3]["result"]["isError"]  # no CODEOWNERS: a tool error, answered
    refused = [a for a in answers if a["id"] is None]
    assert len(refused) == len(BAD_IDS), answers  # one answer per bad request, none for the notifications
    for answer in refused:
        assert answer["error"]["code"] == -32600
        assert "id" in answer["error"]["message"]
    assert set(by_id) == {0, 1, "two", 3}


def test_an_unknown_tool_is_a_protocol_error(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    write_tree(tmp_path, {"a.py": "def hello():\n    return 1\n"})
    calls = [{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "no_such_tool", "arguments": {}}},
             {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "owners", "arguments": {"paths": ["a.py"]}}}]
    code, answers, stderr = serve_all(tmp_path, [json.dumps(m) for m in (INIT, INITIALIZED, *calls)])
    assert code == 0, stderr
    by_id = {a["id"]: a for a in answers}
    assert by_id[1] == {"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "Unknown tool: no_such_tool"}}
    assert by_id[2]["result"]["isError"]  # a known tool that fails stays a tool error (no CODEOWNERS here)
