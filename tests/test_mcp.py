"""Acceptance: ``ctxsel mcp`` over stdio with the official MCP client answers what the CLI answers.

One server process serves the calls of the main session (starting one costs 1-3 s); each
answer is compared with ``ctxsel ... --format json`` run as a user would, in a copy of
``fixtures/bazel-basic`` (static parsing, so no Bazel is needed) that is also a git
repository with an uncommitted and a staged edit, so the change selectors have something
to see. A second, shorter session does the same on ``fixtures/js-pnpm``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES, run_cli, run_git

pytest.importorskip("mcp", reason="the MCP SDK is not installed: pip install -e '.[test]'")

TOOLS = {"blast_radius", "affected_tests", "select_context", "owners"}
CODEOWNERS = "* @org/platform\n/core/ @org/core\n/app/ @alice\n"

# name -> (tool, arguments, the same question on the command line or None)
CALLS: dict[str, tuple[str, dict[str, Any], list[str] | None]] = {
    "radius": ("blast_radius", {"targets": ["//core:core"]}, ["blast-radius", "//core:core"]),
    "radius_file": ("blast_radius", {"targets": ["utils/utils.cc"]}, ["blast-radius", "utils/utils.cc"]),
    "radius_depth_owner": (
        "blast_radius",
        {"targets": ["//core:core"], "depth": 1, "owner": ["@org/core"]},
        ["blast-radius", "//core:core", "--depth", "1", "--owner", "@org/core"],
    ),
    "radius_files_explain": (
        "blast_radius",
        {"files": ["core/core.cc"], "explain": True},
        ["blast-radius", "--files", "core/core.cc", "--explain"],
    ),
    "radius_since": ("blast_radius", {"since": "HEAD"}, ["blast-radius", "--since", "HEAD"]),
    "radius_limit": ("blast_radius", {"targets": ["//core:core"], "limit": 3}, ["blast-radius", "//core:core", "--limit", "3"]),
    "tests": ("affected_tests", {"targets": ["//core:core"]}, ["tests", "//core:core"]),
    "tests_staged_explain": (
        "affected_tests",
        {"staged": True, "explain": True},
        ["tests", "--staged", "--explain"],
    ),
    "owners": ("owners", {"paths": ["core/core.cc", "app/main.cc", "README.md"]}, ["owners", "core/core.cc", "app/main.cc", "README.md"]),
    "select": (
        "select_context",
        {"query": "core header", "targets": ["//core:core"], "budget": 300},
        ["select", "core header", "//core:core", "--budget", "300"],
    ),
    # errors: the CLI's message, and the server keeps serving
    "unknown_target": ("blast_radius", {"targets": ["//core:nope"]}, ["blast-radius", "//core:nope"]),
    "nothing": ("affected_tests", {}, ["tests"]),
    "bad_ref": ("blast_radius", {"since": "no-such-ref"}, ["blast-radius", "--since", "no-such-ref"]),
    "bad_argument": ("blast_radius", {"targets": ["//core:core"], "depth": -1}, None),
    "repo_escape": ("blast_radius", {"targets": ["//core:core"], "repo": ".."}, None),
    "symlink_escape": ("blast_radius", {"targets": ["//core:core"], "repo": "outside-link"}, None),
    "seed_escape": ("select_context", {"query": "x", "seeds": ["../secret.txt"]}, None),
    "owners_escape": ("owners", {"paths": ["core/../../secret.txt"]}, None),
    "repo_inside": ("blast_radius", {"targets": ["//core:core"], "repo": "core"}, ["blast-radius", "//core:core"]),
    "after_errors": ("blast_radius", {"targets": ["//core:core"]}, ["blast-radius", "//core:core"]),
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("mcp")
    root = base / "bazel-basic"
    shutil.copytree(FIXTURES / "bazel-basic", root, ignore=shutil.ignore_patterns(".ctxsel"))
    (root / ".github").mkdir()
    (root / ".github" / "CODEOWNERS").write_text(CODEOWNERS)
    (base / "secret.txt").write_text("outside the repository\n")
    (root / "outside-link").symlink_to(base)
    run_git(root, "init", "-q")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", "fixture")
    with open(root / "api" / "api.cc", "a") as fh:  # an uncommitted edit for --since HEAD
        fh.write("// edited\n")
    with open(root / "utils" / "utils.cc", "a") as fh:  # and a staged one for --staged
        fh.write("// staged\n")
    run_git(root, "add", "utils/utils.cc")
    return root


def cli(repo: Path, args: list[str], fmt: str | None = "json") -> subprocess.CompletedProcess[str]:
    extra = ["--format", fmt] if fmt else []
    return run_cli("--source", "static", "--repo", str(repo), *args, *extra, cwd=repo)


_CLI_ANSWERS: dict[tuple[str, ...], dict[str, Any]] = {}


def cli_json(repo: Path, args: list[str]) -> dict[str, Any]:
    key = (str(repo), *args)
    if key not in _CLI_ANSWERS:  # several tests ask the same question; run the CLI once
        out = cli(repo, args)
        assert out.returncode == 0, out.stderr
        _CLI_ANSWERS[key] = json.loads(out.stdout)
    return json.loads(json.dumps(_CLI_ANSWERS[key]))


def cli_error(repo: Path, args: list[str]) -> str:
    out = cli(repo, args)
    assert out.returncode == 2, (out.stdout, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert lines[0].startswith("ctxsel: error: ")
    return "\n".join([lines[0][len("ctxsel: error: "):], *lines[1:]])


def serve_and_call(repo: Path, calls: dict[str, tuple[str, dict[str, Any], Any]], errlog_path: Path) -> dict[str, Any]:
    """Start ``ctxsel mcp`` on ``repo``, list the tools and make every call, over stdio."""
    import anyio
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "ctxsel", "--source", "static", "mcp", "--repo", str(repo)],
        cwd=str(repo.parent),  # not the repo: the server must not depend on the client's directory
        env={"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "")},
    )

    async def session() -> dict[str, Any]:
        with anyio.fail_after(240), open(errlog_path, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as client:
                    init = await client.initialize()
                    tools = (await client.list_tools()).tools
                    results = {name: await client.call_tool(tool, args) for name, (tool, args, _) in calls.items()}
        return {"init": init, "tools": tools, "results": results}

    out = anyio.run(session)
    out["stderr"] = errlog_path.read_text()
    return out


@pytest.fixture(scope="module")
def served(repo: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return serve_and_call(repo, CALLS, tmp_path_factory.mktemp("mcp-log") / "server.stderr")


def structured(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content[0].text
    # the text block carries the same JSON for clients that ignore structuredContent
    return result.structured_content


def error_text(result: Any) -> str:
    assert result.is_error
    assert result.structured_content is None
    return result.content[0].text


# ------------------------------------------------------------------ the tools
def test_lists_the_four_tools_with_actionable_schemas(served):
    tools = {t.name: t for t in served["tools"]}
    assert set(tools) == TOOLS
    assert served["init"].server_info.name == "ctxsel"
    for tool in tools.values():
        assert len(tool.description) > 80, tool.name  # says when to use it, not just its name
        assert tool.annotations.read_only_hint is True
        props = tool.input_schema["properties"]
        for name, prop in props.items():
            assert len(prop.get("description", "")) > 20, f"{tool.name}.{name} has no usable description"
    # The advertised output schemas are the shipped JSON Schema files, so the official client
    # validates every structured answer below against them as it receives it.
    import ctxsel

    shapes = {"blast_radius": "blast-radius", "affected_tests": "tests", "select_context": "select", "owners": "owners"}
    for name, schema in shapes.items():
        assert tools[name].output_schema == ctxsel.json_schema(schema), name
    assert tools["owners"].input_schema["required"] == ["paths"]
    assert "required" not in tools["blast_radius"].input_schema  # targets or a change, checked at call time
    assert {"since", "base", "head", "staged", "files", "owner", "depth", "repo"} <= set(tools["affected_tests"].input_schema["properties"])
    assert {"query", "seeds", "targets", "budget", "owner", "since"} <= set(tools["select_context"].input_schema["properties"])


@pytest.mark.parametrize(
    "name",
    ["radius", "radius_file", "radius_depth_owner", "radius_files_explain", "radius_since", "radius_limit", "tests",
     "tests_staged_explain", "owners", "repo_inside", "after_errors"],
)
def test_answers_equal_the_cli(served, repo, name):
    tool, args, cli_args = CALLS[name]
    got = structured(served["results"][name])
    assert got == cli_json(repo, cli_args)
    assert got["schema_version"] == 1
    assert json.loads(served["results"][name].content[0].text) == got


def test_change_selectors_reach_the_change(served):
    since = structured(served["results"]["radius_since"])
    assert since["changes"]["files"] == [{"path": "api/api.cc", "status": "M"}, {"path": "utils/utils.cc", "status": "M"}]
    staged = structured(served["results"]["tests_staged_explain"])
    assert [f["path"] for f in staged["changes"]["files"]] == ["utils/utils.cc"]
    assert all("because" in row for row in staged["explain"])


def test_big_radii_are_cut_to_the_nearest(served):
    full = structured(served["results"]["radius"])
    cut = structured(served["results"]["radius_limit"])
    assert cut["affected"] == full["affected"][:3]
    assert cut["truncated"] == len(full["affected"]) - 3
    assert "truncated" not in full  # the default limit (200) cut nothing here


def test_owner_scoping_is_applied(served):
    scoped = structured(served["results"]["radius_depth_owner"])
    assert scoped["dropped_by_owner"] > 0
    assert all(a["id"].startswith("//core") for a in scoped["affected"])


def test_select_context_gives_markdown_then_the_chunk_list(served, repo):
    result = served["results"]["select"]
    doc = structured(result)
    assert doc == cli_json(repo, CALLS["select"][2])
    markdown = cli(repo, CALLS["select"][2], fmt="markdown")
    assert markdown.returncode == 0, markdown.stderr
    assert result.content[0].text == markdown.stdout
    assert doc["chunks"] and doc["tokens"] <= 300
    listing = json.loads(result.content[1].text)
    assert [(c["path"], c["start_line"]) for c in listing["chunks"]] == [(c["path"], c["start_line"]) for c in doc["chunks"]]
    assert all("text" not in c for c in listing["chunks"])  # the code is in the markdown, not twice


# ------------------------------------------------------------------ errors
@pytest.mark.parametrize("name", ["unknown_target", "nothing", "bad_ref"])
def test_user_errors_are_tool_errors_with_the_cli_message(served, repo, name):
    _, _, cli_args = CALLS[name]
    assert error_text(served["results"][name]) == cli_error(repo, cli_args)


def test_invalid_arguments_are_tool_errors(served):
    assert "depth" in error_text(served["results"]["bad_argument"])


@pytest.mark.parametrize("name", ["repo_escape", "symlink_escape", "seed_escape", "owners_escape"])
def test_paths_outside_the_repository_are_refused(served, name):
    assert "outside the repository" in error_text(served["results"][name])


def test_server_never_crashed(served):
    assert "Traceback" not in served["stderr"]
    assert not served["results"]["after_errors"].is_error


# ------------------------------------------------------------------ one answer, three doors
def test_api_cli_and_mcp_give_identical_answers(served, repo):
    """The Python API, ``ctxsel --format json`` and the MCP tools answer the same question the same way."""
    from ctxsel import Workspace, to_json

    ws = Workspace.open(repo, source="static")

    def doc(result: Any) -> dict[str, Any]:
        return json.loads(to_json(result.as_json()))

    api = {
        "radius": doc(ws.blast_radius(["//core:core"])),
        "tests": doc(ws.tests(["//core:core"])),
        "owners": doc(ws.owners(["core/core.cc", "app/main.cc", "README.md"])),
        "select": doc(ws.select("core header", targets=["//core:core"], budget=300)),
    }
    for name, answer in api.items():
        assert answer == cli_json(repo, CALLS[name][2]) == structured(served["results"][name]), name

    roots, change = ws.roots(since="HEAD")
    via_api = ws.blast_radius(roots=roots)
    via_mcp = structured(served["results"]["radius_since"])
    assert via_api.roots == via_mcp["roots"]
    assert [a.id for a in via_api.affected] == [a["id"] for a in via_mcp["affected"]]
    assert json.loads(json.dumps(change.as_json())) == via_mcp["changes"]


# ------------------------------------------------------------------ a JavaScript workspace too
JS_CALLS: dict[str, tuple[str, dict[str, Any], list[str]]] = {
    "by_name": ("blast_radius", {"targets": ["@ws/core"], "depth": 1}, ["blast-radius", "@ws/core", "--depth", "1"]),
    "by_path": ("affected_tests", {"targets": ["packages/utils"]}, ["tests", "packages/utils"]),
    "by_file": ("affected_tests", {"files": ["packages/utils/package.json"], "explain": True},
                ["tests", "--files", "packages/utils/package.json", "--explain"]),
}


def test_js_workspace_answers_equal_the_cli(tmp_path):
    root = tmp_path / "js-pnpm"
    shutil.copytree(FIXTURES / "js-pnpm", root, ignore=shutil.ignore_patterns(".ctxsel", "node_modules"))
    served_js = serve_and_call(root, JS_CALLS, tmp_path / "server.stderr")
    for name, (_, _, cli_args) in JS_CALLS.items():
        got = structured(served_js["results"][name])
        assert got == cli_json(root, cli_args), name
        assert got["adapter"] == "pnpm"
    assert "@ws/utils" in structured(served_js["results"]["by_path"])["tests"]
