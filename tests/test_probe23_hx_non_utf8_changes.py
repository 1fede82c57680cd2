"""Session 23 (helper hx): a changed file whose name is not UTF-8 keeps its owner.

git prints paths as bytes; ``changes.py`` decoded them with ``errors="replace"``, so
``data/caf\\xe9.txt`` (a Latin-1 name) became ``data/caf\\ufffd.txt``, a file that exists
nowhere. The adapters list files with ``os.listdir`` (lone surrogates for such bytes), so no
node owned the changed path: ``--staged``/``--since`` answered "none owned by a target" and
``pre-commit`` ran nothing, while Bazel's glob includes the file (measured with bazel 4.2.3:
``labels(srcs, //data:files)`` lists ``//data:caf\\xe9.txt``). Paths are now decoded with
``surrogateescape`` (as ``files.py`` already did), in ``changes.py`` and in the old tree
``revision.py`` writes for deleted files.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_cli, run_git, write_tree
from oracles import oracle_env, require
from ctxsel.changes import changed_files

LATIN1 = b"data/caf\xe9.txt"
BUILD = 'filegroup(name = "files", srcs = glob(["**/*.txt"]), visibility = ["//visibility:public"])\n' \
        'filegroup(name = "bundle", srcs = [":files"])\n'


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = write_tree(tmp_path / "ws", {"WORKSPACE": 'workspace(name = "ws")\n', "data/BUILD": BUILD, "data/a.txt": "a\n",
                                        "other/BUILD": 'filegroup(name = "other", srcs = ["o.txt"])\n', "other/o.txt": "o\n"})
    run_git(root, "init", "-q")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", "init")
    Path(os.fsdecode(root / os.fsdecode(LATIN1))).write_text("x\n")
    run_git(root, "add", "-A")
    return root


def _labels(*args: str, cwd: Path) -> set[str]:
    proc = run_cli("--source", "static", "--no-cache", *args, "--format", "labels", cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return set(proc.stdout.split())


def test_the_changed_path_is_the_name_on_disk(repo: Path) -> None:
    changes = changed_files(repo, staged=True)
    on_disk = {f"data/{name}" for name in os.listdir(repo / "data")}
    assert [f.path for f in changes.files] == [os.fsdecode(LATIN1)]
    assert changes.files[0].path in on_disk


def test_a_staged_latin1_file_in_a_glob_package_affects_its_rules(repo: Path) -> None:
    """Old: "1 changed file(s), none owned by a target", and nothing to test."""
    assert _labels("blast-radius", "--staged", cwd=repo) == {"//data:files", "//data:bundle"}
    run_git(repo, "commit", "-qm", "latin1")
    os.unlink(os.fsencode(repo) + b"/" + LATIN1)  # deleted: its owner comes from HEAD's tree (revision.py)
    assert _labels("blast-radius", "--since", "HEAD", cwd=repo) == {"//data:files", "//data:bundle"}


@pytest.mark.oracle
def test_bazel_answers_the_same_for_the_latin1_file(repo: Path) -> None:
    bazel = require("oracle-bazel4")
    env = oracle_env()
    try:
        # bazel's query parser refuses the byte 0xe9 in a label, so the file is named by the glob
        # that lists it: the srcs of //data:files except the ASCII one
        query = "rdeps(//..., labels(srcs, //data:files) except //data:a.txt)"
        proc = subprocess.run([bazel, "query", query, "--noshow_progress"], cwd=repo, env=env, capture_output=True,
                              timeout=300)
        assert proc.returncode == 0, proc.stderr[-800:]
        found = os.fsdecode(proc.stdout).split()
        assert "//" + os.fsdecode(LATIN1).replace("/", ":", 1) in found  # the glob did include the file
        want = {label for label in found if not label.endswith(".txt")}  # the rules, not the file itself
    finally:
        subprocess.run([bazel, "shutdown"], cwd=repo, env=env, capture_output=True, timeout=120)
    assert want == {"//data:files", "//data:bundle"}
    assert _labels("blast-radius", "--staged", cwd=repo) == want
    staged = run_cli("--source", "static", "tests", "--staged", "--format", "json", cwd=repo)
    assert staged.returncode == 0 and json.loads(staged.stdout)["roots"] == ["//data:files"]


def _rpc(proc: subprocess.Popen, message: dict, timeout: float = 60) -> dict | None:
    import select as io_select

    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(message).encode() + b"\n")
    proc.stdin.flush()
    ready, _, _ = io_select.select([proc.stdout], [], [], timeout)
    line = proc.stdout.readline() if ready else b""
    return json.loads(line) if line else None


def test_the_mcp_server_answers_a_change_to_a_latin1_file_and_lives_on(repo: Path) -> None:
    """The name now reaches the answer as a lone surrogate; the SDK encodes answers as UTF-8 after
    the tool returned, and that killed the server (stdout_writer: "surrogates not allowed").
    The wire shows U+FFFD for the byte; the answer is the CLI's."""
    pytest.importorskip("mcp")
    proc = subprocess.Popen([sys.executable, "-m", "ctxsel", "--source", "static", "mcp", "--repo", str(repo)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        init = _rpc(proc, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
        assert init and "result" in init
        proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')  # type: ignore[union-attr]
        answer = _rpc(proc, {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "blast_radius", "arguments": {"staged": True, "explain": True}}})
        assert answer and answer["id"] == 1 and not answer["result"].get("isError"), answer
        document = answer["result"]["structuredContent"]
        assert {n["id"] for n in document["affected"]} == {"//data:files", "//data:bundle"}
        assert "data/caf\ufffd.txt" in json.dumps(document, ensure_ascii=False)
        after = _rpc(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "owners", "arguments": {"paths": ["data/a.txt"]}}})
        assert after and after["id"] == 2  # still serving
    finally:
        proc.stdin.close()  # type: ignore[union-attr]
        proc.wait(timeout=60)
    assert proc.returncode == 0, proc.stderr.read()[-800:]  # type: ignore[union-attr]
