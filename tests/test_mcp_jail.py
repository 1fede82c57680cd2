"""The MCP server in-process (no protocol): its boundary — a call may name directories and
paths inside the repository it was started on, never outside (``..``, absolute paths,
symlinks) — and its failure handling."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from conftest import FIXTURES

from ctxsel.errors import UserError
from ctxsel.mcp_server import CtxselTools, GraphQuestion, RepoJail


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "pkg" / "sub").mkdir(parents=True)
    (root / "pkg" / "a.txt").write_text("a\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("s\n")
    (root / "to-outside").symlink_to(tmp_path / "outside")
    (root / "to-pkg").symlink_to(root / "pkg")
    return root


def test_directories_inside_are_allowed(tree):
    jail = RepoJail(tree)
    assert jail.directory(None) == tree.resolve()
    assert jail.directory("pkg/sub") == (tree / "pkg" / "sub").resolve()
    assert jail.directory(str(tree / "pkg")) == (tree / "pkg").resolve()  # absolute, inside
    assert jail.directory("to-pkg") == (tree / "pkg").resolve()  # a symlink that stays inside


@pytest.mark.parametrize("repo", ["..", "pkg/../..", "to-outside", "/", "to-outside/../outside"])
def test_directories_outside_are_refused(tree, repo):
    with pytest.raises(UserError, match="outside the repository"):
        RepoJail(tree).directory(repo)


def test_a_missing_directory_is_a_user_error(tree):
    with pytest.raises(UserError, match="no such directory: nope"):
        RepoJail(tree).directory("nope")
    with pytest.raises(UserError, match="no such directory"):
        RepoJail(tree / "nope")


def test_paths_are_checked_against_the_call_directory(tree):
    jail = RepoJail(tree)
    base = jail.directory("pkg")
    jail.check(["a.txt", "sub", "../pkg/a.txt", "not-yet.txt"], base)
    for bad in ["../../outside/secret.txt", "../to-outside/secret.txt", str(tree.parent / "outside" / "secret.txt")]:
        with pytest.raises(UserError, match="outside the repository"):
            jail.check([bad], base)


def test_targets_that_are_paths_are_checked_labels_and_names_are_not(tree):
    jail = RepoJail(tree)
    jail.check_targets(["//pkg:lib", "//...", "@scope/web", "web", "pkg/a.txt", "to-pkg"], tree)
    for bad in ["../outside", "to-outside/secret.txt", str(tree.parent / "outside")]:
        with pytest.raises(UserError, match="target .* is outside the repository"):
            jail.check_targets([bad], tree)


def test_a_server_started_inside_a_workspace_answers_for_that_workspace(tmp_path):
    # `ctxsel mcp --repo core` inside a Bazel workspace: the workspace is found above, as the CLI finds it.
    root = tmp_path / "bazel-basic"
    shutil.copytree(FIXTURES / "bazel-basic", root, ignore=shutil.ignore_patterns(".ctxsel"))
    tools = CtxselTools(root / "core", source="static")
    answer = tools.blast_radius(GraphQuestion(["//core:core"]))
    assert answer.document["roots"] == ["//core:core"]
    assert "//app:app" in {a["id"] for a in answer.document["affected"]}
    with pytest.raises(UserError, match="outside the repository"):
        tools.blast_radius(GraphQuestion(["//core:core"], repo="../app"))


def test_calls_restore_the_working_directory(tmp_path):
    root = tmp_path / "bazel-basic"
    shutil.copytree(FIXTURES / "bazel-basic", root, ignore=shutil.ignore_patterns(".ctxsel"))
    before = os.getcwd()
    tools = CtxselTools(root, source="static")
    tools.affected_tests(GraphQuestion(["core/core.cc"], repo="core"))
    with pytest.raises(UserError):
        tools.affected_tests(GraphQuestion(["//nope:nope"]))
    assert os.getcwd() == before


def test_the_command_refuses_a_missing_repository_before_serving(tmp_path):
    from conftest import run_cli

    out = run_cli("mcp", "--repo", str(tmp_path / "nope"), input="")
    assert out.returncode == 2
    assert out.stderr.strip() == f"ctxsel: error: no such directory: {tmp_path / 'nope'}"
    assert out.stdout == ""  # nothing on the protocol stream


def test_the_server_exits_cleanly_when_the_client_goes_away(tmp_path):
    from conftest import run_cli

    out = run_cli("mcp", "--repo", str(tmp_path), input="")
    assert out.returncode == 0, out.stderr
    assert out.stdout == ""


def test_a_bug_is_one_failed_call_not_a_dead_server(tmp_path, monkeypatch):
    pytest.importorskip("mcp")
    import anyio

    from ctxsel.errors import CtxselError
    from ctxsel.mcp_server import build_server

    tools = CtxselTools(tmp_path)

    def boom(question):
        raise RuntimeError("boom")

    def not_a_user_error(question):
        raise CtxselError("cache is corrupt")

    async def call(name, args):
        return await server.call_tool(name, args)

    monkeypatch.setattr(tools, "blast_radius", boom)
    monkeypatch.setattr(tools, "affected_tests", not_a_user_error)
    server = build_server(tools)
    crashed = anyio.run(call, "blast_radius", {"targets": ["x"]})
    assert crashed.is_error and crashed.content[0].text == "internal error: RuntimeError: boom"
    failed = anyio.run(call, "affected_tests", {"targets": ["x"]})
    assert failed.is_error and failed.content[0].text == "cache is corrupt"
    answered = anyio.run(call, "owners", {"paths": ["README.md"]})  # no CODEOWNERS: a user error, still answered
    assert answered.is_error and "no CODEOWNERS file" in answered.content[0].text
