"""The Bazel adapter through the ``ctxsel`` command line: answers, bad input, tool mode with fake tools."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"


def run(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    full = dict(os.environ)
    full.update(env or {})
    return subprocess.run([sys.executable, "-m", "ctxsel", *args], cwd=cwd or ROOT, capture_output=True, text=True, timeout=120, env=full)


def workspace(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "ws"
    for rel, text in {"WORKSPACE": "", **files}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def fake_bazel(tmp_path: Path, body: str, version: str = "5.4.0") -> str:
    """An executable standing in for bazel: ``--version`` answers ``version``, anything else runs ``body``."""
    path = tmp_path / "fake-bazel"
    path.write_text(f'#!/bin/sh\nif [ "$1" = "--version" ]; then echo "bazel {version}"; exit 0; fi\n{body}\n')
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


XML = """<?xml version="1.1" encoding="UTF-8" standalone="no"?>
<query version="2">
    <rule class="cc_library" location="/x/a/BUILD:1:1" name="//a:a">
        <list name="srcs"><label value="//a:a.cc"/></list>
        <rule-input name="//a:a.cc"/>
    </rule>
    <rule class="cc_test" location="/x/b/BUILD:1:1" name="//b:b_test">
        <list name="deps"><label value="//a:a"/></list>
        <rule-input name="//a:a"/>
        <rule-input name="@bazel_tools//tools/cpp:malloc"/>
    </rule>
    <source-file location="/x/a/BUILD:1:1" name="//a:a.cc"/>
</query>
"""


def test_blast_radius_and_tests_on_the_bundled_fixture():
    res = run("--repo", "fixtures/bazel-basic", "--source", "static", "blast-radius", "//core:core", "--format", "json")
    assert res.returncode == 0, res.stderr
    body = json.loads(res.stdout)
    ids = [a["id"] for a in body["affected"]]
    assert body["roots"] == ["//core:core"] and ids[0] == "//core:core"
    assert {"//app:app", "//app:smoke", "//tests:all"} <= set(ids)
    assert not any(i.endswith((".h", ".cc")) for i in ids)  # rule targets only
    res = run("--repo", "fixtures/bazel-basic", "--source", "static", "tests", "//utils", "--format", "command")
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "bazel test -- //app:app_test"  # app_manual_test dropped


def test_syntax_error_exits_2_naming_file_and_line(tmp_path, cli):
    root = workspace(tmp_path, {"p/BUILD": 'cc_library(name = "a")\ncc_library(name = "b" srcs = [])\n'})
    res = cli("--repo", str(root), "--source", "static", "blast-radius", "//p:a")
    assert res.returncode == 2
    assert "p/BUILD:2" in res.stderr and "Traceback" not in res.stderr
    assert len(res.stderr.strip().splitlines()) <= 3


def test_unknown_label_exits_2_with_suggestions(cli):
    res = cli("--repo", "fixtures/bazel-basic", "--source", "static", "blast-radius", "//core:cor")
    assert res.returncode == 2
    assert "unknown target '//core:cor'" in res.stderr and "//core:core" in res.stderr


def test_cycle_is_a_warning_with_a_partial_answer(tmp_path, cli):
    root = workspace(tmp_path, {
        "p/BUILD": 'cc_library(name = "a", deps = [":b"])\ncc_library(name = "b", deps = [":c"])\n'
                   'cc_library(name = "c", deps = [":a"])\ncc_binary(name = "app", deps = [":b"])\n',
    })
    res = cli("--repo", str(root), "--source", "static", "blast-radius", "//p:c", "--format", "labels")
    assert res.returncode == 0, res.stderr
    assert set(res.stdout.split()) == {"//p:a", "//p:b", "//p:c", "//p:app"}
    assert "dependency cycle: //p:a -> //p:b -> //p:c -> //p:a" in res.stderr


def test_tool_mode_partial_result_warns_and_continues(tmp_path):
    root = workspace(tmp_path, {"a/BUILD": "", "b/BUILD": ""})
    (tmp_path / "out.xml").write_text(XML)
    tool = fake_bazel(tmp_path, f'cat {tmp_path / "out.xml"}; echo "ERROR: package c failed" >&2; exit 3')
    res = run("--repo", str(root), "--source", "tool", "tests", "//a:a", "--format", "json", env={"CTXSEL_BAZEL": tool})
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["tests"] == ["//b:b_test"]
    assert "exited 3" in res.stderr and "package c failed" in res.stderr


def test_tool_mode_failure_is_exit_2_and_auto_falls_back_to_static(tmp_path):
    root = workspace(tmp_path, {"a/BUILD": 'cc_library(name = "a")\n'})
    tool = fake_bazel(tmp_path, 'echo "ERROR: no such package" >&2; exit 7')
    res = run("--repo", str(root), "--source", "tool", "--no-cache", "blast-radius", "//a:a", env={"CTXSEL_BAZEL": tool})
    assert res.returncode == 2 and "exited 7" in res.stderr and "--source static" in res.stderr
    res = run("--repo", str(root), "--no-cache", "blast-radius", "//a:a", "--format", "labels", env={"CTXSEL_BAZEL": tool})
    assert res.returncode == 0 and res.stdout.split() == ["//a:a"]
    assert "fell back" in res.stderr


def test_tool_timeout_is_a_user_error(tmp_path):
    root = workspace(tmp_path, {"a/BUILD": ""})
    tool = fake_bazel(tmp_path, "sleep 30")
    res = run("--repo", str(root), "--source", "tool", "blast-radius", "//a:a", env={"CTXSEL_BAZEL": tool, "CTXSEL_BAZEL_TIMEOUT": "1"})
    assert res.returncode == 2 and "did not finish within 1 s" in res.stderr


def test_tool_mode_asks_for_streamed_jsonproto_from_new_bazel(tmp_path):
    root = workspace(tmp_path, {"a/BUILD": ""})
    log = tmp_path / "argv.txt"
    lines = [
        {"type": "RULE", "rule": {"name": "//a:a", "ruleClass": "cc_library", "ruleInput": ["//a:a.cc"], "attribute": [
            {"name": "tags", "type": "STRING_LIST", "stringListValue": ["manual"]}]}},
        {"type": "SOURCE_FILE", "sourceFile": {"name": "//a:a.cc"}},
        {"type": "GENERATED_FILE", "generatedFile": {"name": "//a:gen.h", "generatingRule": "//a:gen"}},
        {"type": "RULE", "rule": {"name": "//a:gen", "ruleClass": "genrule", "ruleOutput": ["//a:gen.h"]}},
        {"type": "RULE", "rule": {"name": "//a:a_test", "ruleClass": "sh_test", "ruleInput": ["//a:gen.h", "@zlib//:zlib"]}},
    ]
    (tmp_path / "out.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    body = f'echo "$@" > {log}; cat {tmp_path / "out.jsonl"}'
    tool = fake_bazel(tmp_path, body, version="7.1.0")
    res = run("--repo", str(root), "--source", "tool", "blast-radius", "//a:gen.h", "--format", "labels", env={"CTXSEL_BAZEL": tool})
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["//a:gen", "//a:a_test"]
    argv = log.read_text().split()
    assert argv[:3] == ["--noblock_for_lock", "query", "//...:*"]
    assert "--output=streamed_jsonproto" in argv and "--keep_going" in argv
    res = run("--repo", str(root), "--query-file", str(tmp_path / "out.jsonl"), "blast-radius", "a/a.cc", "--format", "labels")
    assert res.stdout.split() == ["//a:a"]


def test_garbage_query_file_is_exit_2(tmp_path):
    root = workspace(tmp_path, {"a/BUILD": ""})
    bad = tmp_path / "bad.xml"
    bad.write_text("<query><rule name='//a:a'>")
    res = run("--repo", str(root), "--query-file", str(bad), "blast-radius", "//a:a")
    assert res.returncode == 2 and "bad.xml" in res.stderr
    bad.write_text("hello")
    res = run("--repo", str(root), "--query-file", str(bad), "blast-radius", "//a:a")
    assert res.returncode == 2 and "streamed_jsonproto" in res.stderr


@pytest.mark.parametrize("fixture", ["bazel-basic", "bazel-macros"])
def test_fixtures_load_without_warnings(fixture, tmp_path):
    root = tmp_path / fixture
    shutil.copytree(FIXTURES / fixture, root, ignore=shutil.ignore_patterns(".ctxsel"))
    res = run("--repo", str(root), "--source", "static", "blast-radius", "//...", "--format", "labels")
    assert res.returncode == 0 and res.stderr == ""
