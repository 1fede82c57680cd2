"""Session 21: ``ctxsel tests //p:a_suite`` runs what ``bazel test //p:a_suite`` runs.

Old: a ``test_suite`` given as input answered "no tests depend on the change" (nothing in
its blast radius is a test: the suite depends on its tests, not the other way round), so a
Bazel user naming a suite got nothing to run. Now an input suite stands for its tests, as
Bazel 4.2.3 expands it (measured; ``tests(//p:suite)`` below): its tests carrying all of its
positive tags and none of its ``-tags``, size (default medium) counting as a tag; listed
manual tests stay, implicit ones (a suite listing none) leave manual tests out; a nested
suite adds its whole expansion; a listed alias adds nothing. Suites the radius merely
reaches are not expanded (a change to a library is no reason to run every test its
dependents' suites list).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import run_cli, write_tree
from oracles import oracle_env, require

BUILD = """\
sh_library(name = "lib", srcs = ["a.sh"])
sh_library(name = "other", srcs = ["o.sh"])
sh_test(name = "t_small", srcs = ["t.sh"], size = "small", deps = [":lib"])
sh_test(name = "t_large", srcs = ["t.sh"], size = "large", tags = ["smoke"], deps = [":other"])
sh_test(name = "t_default", srcs = ["t.sh"], deps = [":lib"])
sh_test(name = "t_flaky", srcs = ["t.sh"], tags = ["flaky", "smoke"])
sh_test(name = "t_manual", srcs = ["t.sh"], tags = ["manual", "smoke"])
test_suite(name = "small_suite", tags = ["small"])
test_suite(name = "medium_suite", tags = ["medium"])
test_suite(name = "smoke", tags = ["smoke", "-flaky"])
test_suite(name = "smoke_large", tags = ["smoke", "large"])
test_suite(name = "smoke_any", tags = ["smoke"])
test_suite(name = "manual_tagged", tags = ["manual"])
test_suite(name = "explicit", tests = [":t_manual", ":t_flaky", ":smoke", ":al"], tags = ["smoke"])
test_suite(name = "nested", tests = [":small_suite", ":t_large"], tags = ["-smoke"])
test_suite(name = "all")
alias(name = "al", actual = ":t_small")
"""
SUITES = ("small_suite", "medium_suite", "smoke", "smoke_large", "smoke_any", "manual_tagged", "explicit", "nested", "all")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "ws", {"WORKSPACE": "", "p/BUILD": BUILD, **{f"p/{f}": "" for f in ("a.sh", "o.sh", "t.sh")}})


def ctxsel_tests(repo: Path, *args: str, source: str = "static") -> list[str]:
    out = run_cli("--no-cache", "--source", source, "tests", *args, "--format", "json", cwd=repo)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)["tests"]


def test_an_input_suite_stands_for_its_tests(repo: Path) -> None:
    assert ctxsel_tests(repo, "//p:small_suite") == ["//p:t_small"]
    assert ctxsel_tests(repo, "//p:smoke_any") == ["//p:t_flaky", "//p:t_large"]
    assert ctxsel_tests(repo, "//p:explicit") == ["//p:t_flaky", "//p:t_large", "//p:t_manual"]  # t_large: via :smoke
    assert ctxsel_tests(repo, "//p:nested") == ["//p:t_small"]
    command = run_cli("--no-cache", "--source", "static", "tests", "//p:smoke", "//p:small_suite", "--format", "command", cwd=repo)
    assert command.stdout.split() == ["bazel", "test", "--", "//p:t_large", "//p:t_small"]


def test_suites_the_radius_reaches_are_not_expanded(repo: Path) -> None:
    """A change to :lib runs the tests that depend on it, not the rest of ``all``."""
    assert ctxsel_tests(repo, "//p:lib") == ["//p:t_default", "//p:t_small"]
    assert ctxsel_tests(repo, "--files", "p/a.sh") == ["//p:t_default", "//p:t_small"]


@pytest.mark.oracle
def test_every_suite_expands_as_bazel_4_expands_it(repo: Path) -> None:
    bazel = require("oracle-bazel4")
    env = {**os.environ, **oracle_env(), "CTXSEL_BAZEL": bazel}
    try:
        for suite in SUITES:
            proc = subprocess.run([bazel, "query", f"tests(//p:{suite})", "--noshow_progress"], cwd=repo, env=oracle_env(),
                                  capture_output=True, text=True, timeout=300)
            assert proc.returncode == 0, proc.stderr[-800:]
            want = sorted(proc.stdout.split())
            assert ctxsel_tests(repo, f"//p:{suite}") == want, suite
            tool = subprocess.run(["python", "-m", "ctxsel", "--no-cache", "--source", "tool", "tests", f"//p:{suite}",
                                   "--format", "json"], cwd=repo, env=env, capture_output=True, text=True, timeout=300)
            assert tool.returncode == 0, tool.stderr
            assert json.loads(tool.stdout)["tests"] == want, suite
    finally:
        subprocess.run([bazel, "shutdown"], cwd=repo, env=oracle_env(), capture_output=True, timeout=120)
