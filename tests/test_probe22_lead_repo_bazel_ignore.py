"""Session 22: REPO.bazel's ``ignore_directories`` hides directories, as ``.bazelignore`` does.

Bazel 7.6+/8 skip, in ``//...`` and in glob(), every directory whose repository-relative
path matches one of ``ignore_directories``' patterns as glob() matches. Old: ctxsel read
no REPO.bazel, so the BUILD files installed npm packages ship under ``node_modules`` became
packages, and their dependents showed up in blast radii and test lists. Bazel 4.2.3 (the
oracle) reads no REPO.bazel, so the oracle test checks the equivalent ``.bazelignore``,
which lists the directories the patterns match.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conftest import run_cli, write_tree
from oracles import oracle_env, require

REPO_BAZEL = 'repo(default_visibility = ["//visibility:public"])\nignore_directories(["**/node_modules", "gen/**"])\n'
TREE = {
    "WORKSPACE": "",
    "a/BUILD": 'sh_library(name = "lib", srcs = ["a.sh"])\nfilegroup(name = "all", srcs = glob(["**"]))\n',
    "a/a.sh": "",
    "a/node_modules/loose.sh": "",
    "a/node_modules/pkg/BUILD.bazel": 'sh_library(name = "x", srcs = ["f.sh"], deps = ["//a:lib"])\n',
    "a/node_modules/pkg/f.sh": "",
    "node_modules/top/BUILD": 'sh_test(name = "tt", srcs = ["t.sh"], deps = ["//a:lib"])\n',
    "node_modules/top/t.sh": "",
    "gen/BUILD": 'sh_library(name = "g", deps = ["//a:lib"])\n',
    "gen/sub/BUILD": 'sh_library(name = "g2", deps = ["//a:lib"])\n',
    "b/BUILD": 'sh_test(name = "t", srcs = ["t.sh"], deps = ["//a:lib"])\n',
    "b/t.sh": "",
    "bnode_modules/BUILD": 'sh_library(name = "kept", deps = ["//a:lib"])\n',
}
#: the directories REPO_BAZEL's patterns match, for Bazel 4's .bazelignore
MATCHED = ("a/node_modules", "node_modules", "gen")


def radius(repo: Path, *args: str) -> list[str]:
    out = run_cli("--no-cache", "--source", "static", "blast-radius", *args, "--format", "labels", cwd=repo)
    assert out.returncode == 0, out.stderr
    return sorted(out.stdout.split())


def test_ignored_directories_are_no_packages_and_no_glob_matches(tmp_path: Path) -> None:
    repo = write_tree(tmp_path / "ws", {**TREE, "REPO.bazel": REPO_BAZEL})
    assert radius(repo, "//a:lib") == ["//a:lib", "//b:t", "//bnode_modules:kept"]
    assert radius(repo, "--files", "a/a.sh") == ["//a:all", "//a:lib", "//b:t", "//bnode_modules:kept"]
    assert radius(repo, "--files", "a/node_modules/loose.sh") == []  # glob(["**"]) does not list it
    (repo / "REPO.bazel").unlink()  # Bazel 4's view: every directory is read
    assert "//a/node_modules/pkg:x" in radius(repo, "//a:lib")
    assert radius(repo, "--files", "a/node_modules/loose.sh") == ["//a:all"]


@pytest.mark.parametrize("body, line", [
    ('ignore_directories("**/node_modules")\n', 1),
    ('repo()\nignore_directories([DIRS])\n', 2),
    ('ignore_directories(["a"], ["b"])\n', 1),
    ('ignore_directories([\n', 1),
])
def test_a_repo_file_bazel_cannot_read_is_an_error_naming_the_line(tmp_path: Path, body: str, line: int) -> None:
    repo = write_tree(tmp_path / "ws", {**TREE, "REPO.bazel": body})
    out = run_cli("--no-cache", "--source", "static", "blast-radius", "//a:lib", cwd=repo)
    assert out.returncode == 2
    assert f"REPO.bazel:{line}" in out.stderr and "Traceback" not in out.stderr
    assert 1 <= len(out.stderr.strip().splitlines()) <= 3


@pytest.mark.oracle
def test_the_patterns_ignore_what_the_matching_bazelignore_ignores(tmp_path: Path) -> None:
    bazel = require("oracle-bazel4")
    ours = write_tree(tmp_path / "ours", {**TREE, "REPO.bazel": REPO_BAZEL})
    theirs = write_tree(tmp_path / "theirs", {**TREE, ".bazelignore": "\n".join(MATCHED) + "\n"})
    try:
        for query, args in (("rdeps(//..., //a:lib)", ["//a:lib"]), ("rdeps(//..., //a:a.sh)", ["--files", "a/a.sh"])):
            proc = subprocess.run([bazel, "query", query, "--noshow_progress"], cwd=theirs, env=oracle_env(),
                                  capture_output=True, text=True, timeout=300)
            assert proc.returncode == 0, proc.stderr[-800:]
            want = sorted(x for x in proc.stdout.split() if x != "//a:a.sh")
            assert radius(ours, *args) == want, query
    finally:
        subprocess.run([bazel, "shutdown"], cwd=theirs, env=oracle_env(), capture_output=True, timeout=120)
