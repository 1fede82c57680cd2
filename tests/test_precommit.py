"""``ctxsel pre-commit``: staged files -> scoped tests, on toy git workspaces (in-process CLI)."""

from __future__ import annotations

import json

from ctxsel.cli import main
from toy_workspace import git, make_repo, register, register_runnable, write


def precommit(root, *args: str) -> int:
    return main(["--repo", str(root), "--adapter", "toy", "pre-commit", *args])


def test_prints_the_affected_tests_and_the_command(tmp_path, monkeypatch, capsys):
    register(monkeypatch)
    root = make_repo(tmp_path / "ws")
    write(root, "core/core.c", "staged edit\n")
    write(root, "lib/b.c", "unstaged edit: must not count\n")
    git(root, "add", "core/core.c")
    assert precommit(root) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == ["app_test", "", "toy test app_test"]
    assert precommit(root, "--format", "command") == 0
    assert capsys.readouterr().out == "toy test app_test\n"


def test_explain_and_json_carry_the_path_and_the_staged_file(tmp_path, monkeypatch, capsys):
    register(monkeypatch)
    root = make_repo(tmp_path / "ws")
    write(root, "core/core.c", "staged\n")
    git(root, "add", "-A")
    assert precommit(root, "--explain") == 0
    assert capsys.readouterr().out.splitlines()[0] == "app_test -> app -> lib_a -> core   [core/core.c]"
    assert precommit(root, "--format", "json", "--explain") == 0
    body = json.loads(capsys.readouterr().out)
    try:
        import jsonschema

        from ctxsel.render import json_schema

        jsonschema.validate(body, json_schema("tests"))  # pre-commit's JSON is tests' JSON
    except ImportError:
        pass
    assert body["tests"] == ["app_test"]
    assert body["explain"] == [{"id": "app_test", "path": ["app_test", "app", "lib_a", "core"], "because": ["core/core.c"]}]
    assert body["changes"]["files"] == [{"path": "core/core.c", "status": "M"}]


def test_nothing_staged_or_nothing_to_test_says_so_and_succeeds(tmp_path, monkeypatch, capsys):
    register(monkeypatch)
    root = make_repo(tmp_path / "ws")
    assert precommit(root) == 0
    captured = capsys.readouterr()
    assert captured.out.strip() == "ctxsel: nothing to test for the staged changes"
    assert "no changed files" in captured.err
    write(root, "lone/x.c", "no tests depend on lone\n")
    write(root, "README.md", "owned by nobody\n")
    git(root, "add", "-A")
    assert precommit(root, "--run") == 0
    assert capsys.readouterr().out.strip() == "ctxsel: nothing to test for the staged changes"


def test_staged_deletion_selects_the_former_owners_tests(tmp_path, monkeypatch, capsys):
    register(monkeypatch)
    root = make_repo(tmp_path / "ws")
    git(root, "rm", "-q", "lib/b.c")
    assert precommit(root, "--format", "command") == 0
    assert capsys.readouterr().out == "toy test b_test\n"


def test_run_executes_the_command_and_exits_with_its_status(tmp_path, monkeypatch, capfd):
    register_runnable(monkeypatch)
    root = make_repo(tmp_path / "ws")
    write(root, "core/core.c", "staged\n")
    git(root, "add", "-A")
    assert precommit(root, "--run") == 0
    out = capfd.readouterr()
    assert "ran app_test" in out.out
    assert "ctxsel: running:" in out.err
    # a failing test run fails the hook with the tool's exit status
    spec = json.loads((root / "toy.json").read_text())
    spec["nodes"]["fail_test"] = {"dir": "core", "srcs": ["core/fail_test.c"], "deps": ["core"], "test": True}
    write(root, "toy.json", json.dumps(spec))
    write(root, "core/fail_test.c")
    git(root, "add", "core/fail_test.c")
    assert precommit(root, "--run") == 3
    assert "ran app_test fail_test" in capfd.readouterr().out


def test_shipped_pre_commit_hooks_are_valid_and_their_entries_run(cli):
    yaml = __import__("pytest").importorskip("yaml")
    from conftest import ROOT

    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert {h["id"] for h in hooks} == {"ctxsel-tests", "ctxsel-affected"}
    for hook in hooks:
        assert {"id", "name", "entry", "language"} <= set(hook)
        assert hook["pass_filenames"] is False and hook["always_run"] is True
        argv = hook["entry"].split()
        assert argv[:2] == ["ctxsel", "pre-commit"]
        proc = cli(*argv[1:], "--help")  # the entry's options exist
        assert proc.returncode == 0, proc.stderr
