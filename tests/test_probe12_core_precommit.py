"""``ctxsel pre-commit --run`` with a machine-readable ``--format``: stdout is that document only.

Found by probe: ``--format json --run`` printed the JSON and then let the test runner write
its log to the same stdout, so a hook or CI step doing ``json.loads(stdout)`` failed. The
runner's output now goes to stderr (still streamed to the hook's log) and the exit status
still says whether the tests passed.
"""

from __future__ import annotations

import json

from ctxsel.cli import main
from toy_workspace import git, make_repo, register_runnable, write


def precommit(root, *args: str) -> int:
    return main(["--repo", str(root), "--adapter", "toy", "pre-commit", *args])


def staged_repo(tmp_path, monkeypatch):
    register_runnable(monkeypatch)
    root = make_repo(tmp_path / "ws")
    write(root, "core/core.c", "staged\n")
    git(root, "add", "-A")
    return root


def test_json_run_keeps_stdout_one_json_document(tmp_path, monkeypatch, capfd) -> None:
    root = staged_repo(tmp_path, monkeypatch)
    assert precommit(root, "--format", "json", "--run") == 0
    out = capfd.readouterr()
    body = json.loads(out.out)  # the old code: "Extra data" -- the runner's "ran app_test" followed the JSON
    assert body["tests"] == ["app_test"]
    assert "ran app_test" in out.err and "ran app_test" not in out.out


def test_json_run_failure_keeps_the_exit_status_and_the_json(tmp_path, monkeypatch, capfd) -> None:
    root = staged_repo(tmp_path, monkeypatch)
    spec = json.loads((root / "toy.json").read_text())
    spec["nodes"]["fail_test"] = {"dir": "core", "srcs": ["core/fail_test.c"], "deps": ["core"], "test": True}
    write(root, "toy.json", json.dumps(spec))
    write(root, "core/fail_test.c")
    git(root, "add", "-A")
    capfd.readouterr()
    assert precommit(root, "--format", "json", "--run", "--explain") == 3
    out = capfd.readouterr()
    tests = json.loads(out.out)["tests"]
    assert "fail_test" in tests
    assert f"ran {' '.join(tests)}" in out.err


def test_command_run_prints_only_the_command_on_stdout(tmp_path, monkeypatch, capfd) -> None:
    root = staged_repo(tmp_path, monkeypatch)
    assert precommit(root, "--format", "command", "--run") == 0
    out = capfd.readouterr()
    assert len(out.out.splitlines()) == 1 and "ran app_test" not in out.out  # just the command line
    assert "ran app_test" in out.err


def test_text_run_still_shares_the_terminal(tmp_path, monkeypatch, capfd) -> None:
    root = staged_repo(tmp_path, monkeypatch)
    assert precommit(root, "--run") == 0
    assert "ran app_test" in capfd.readouterr().out  # text is for people: the log follows the list
