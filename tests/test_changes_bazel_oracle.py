"""Differential tests for Bazel: change selectors and ``pre-commit`` against ``bazel query``.

A git history is built in tmp_path from a copy of fixtures/bazel-basic (a source edit, a
deletion from a glob plus a move of an unreferenced file into one, a BUILD edit, a
WORKSPACE edit). ctxsel's ``--base A --head B`` must equal the rules of
``rdeps(//..., <changed files' targets>)`` as Bazel answers it: existing files queried at
B, deleted files and the old side of a move at A, a BUILD file as ``//pkg:all``, and a
global file as ``//...``. Six queries in all, on one warm Bazel server.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import FIXTURES, run_cli
from oracles import require
from test_changes_oracle import git

pytestmark = pytest.mark.oracle


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    require("bazel-4")
    from test_bazel_oracle import BazelServer

    root = tmp_path_factory.mktemp("bazel-changes") / "ws"
    shutil.copytree(FIXTURES / "bazel-basic", root, ignore=shutil.ignore_patterns(".ctxsel"))
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "init")
    shas = [git(root, "rev-parse", "HEAD").strip()]

    def commit(label: str) -> None:
        git(root, "add", "-A")
        git(root, "commit", "-qm", label)
        shas.append(git(root, "rev-parse", "HEAD").strip())

    (root / "core/core.h").write_text((root / "core/core.h").read_text() + "// edited\n")
    (root / "data/a.txt").write_text("edited\n")
    commit("sources")
    git(root, "rm", "-q", "data/b.txt")
    git(root, "mv", "core/LICENSE.txt", "data/license.txt")
    commit("delete from a glob, move an unreferenced file into it")
    (root / "core/BUILD").write_text((root / "core/BUILD").read_text() + "\n# edited\n")
    commit("BUILD")
    (root / "WORKSPACE").write_text((root / "WORKSPACE").read_text() + "\n# edited\n")
    commit("WORKSPACE")
    server = BazelServer(root)
    yield root, shas, server
    server.shutdown()


def rules(server, expr: str) -> set[str]:
    out = set()
    for line in server.query(expr, "label_kind"):
        kind, _, label = line.rpartition(" ")
        if kind.endswith(" rule"):
            out.add(label)
    return out


def ctxsel_range(root: Path, a: str, b: str) -> set[str]:
    proc = run_cli("--repo", str(root), "--adapter", "bazel", "--source", "static",
                   "blast-radius", "--base", a, "--head", b, "--format", "labels")
    assert proc.returncode == 0, proc.stderr
    return set(proc.stdout.split())


def test_base_head_ranges_equal_bazel_query_rdeps(history):
    root, shas, server = history
    expected: list[tuple[str, set[str]]] = []
    git(root, "checkout", "-q", shas[1])
    expected.append(("sources", rules(server, "rdeps(//..., set(core/core.h data/a.txt))")))
    old_side = rules(server, "rdeps(//..., set(data/b.txt core/LICENSE.txt))")
    git(root, "checkout", "-q", shas[2])
    expected.append(("delete + move", old_side | rules(server, "rdeps(//..., set(data/license.txt))")))
    git(root, "checkout", "-q", shas[3])
    expected.append(("BUILD", rules(server, "rdeps(//..., //core:all)")))
    git(root, "checkout", "-q", shas[4])
    expected.append(("WORKSPACE", rules(server, "//...")))
    mismatches = []
    for i, (label, want) in enumerate(expected):
        git(root, "checkout", "-q", shas[i + 1])
        got = ctxsel_range(root, shas[i], shas[i + 1])
        assert want, f"{label}: the oracle selected nothing; the change does not test anything"
        if got != want:
            mismatches.append(f"{label}: ctxsel-only {sorted(got - want)}, bazel-only {sorted(want - got)}")
    assert not mismatches, "\n".join(mismatches)
    git(root, "checkout", "-q", "main")


def test_pre_commit_prints_exactly_the_affected_test_targets(history):
    root, shas, server = history
    git(root, "checkout", "-q", "main")
    try:
        (root / "core/core.py").write_text((root / "core/core.py").read_text() + "# staged\n")
        (root / "utils/utils.cc").write_text((root / "utils/utils.cc").read_text() + "// staged\n")
        (root / "api/api.cc").write_text((root / "api/api.cc").read_text() + "// not staged\n")
        git(root, "add", "core/core.py", "utils/utils.cc")
        want = server.query(
            'let t = kind(".*_test rule", rdeps(//..., set(core/core.py utils/utils.cc))) '
            'in $t except attr(tags, "\\bmanual\\b", $t)'
        )
        proc = run_cli("--repo", str(root), "--adapter", "bazel", "--source", "static", "pre-commit")
        assert proc.returncode == 0, proc.stderr
        *tests, blank, command = proc.stdout.splitlines()
        assert blank == "" and sorted(tests) == sorted(want) and want
        assert command == "bazel test -- " + " ".join(sorted(want))
    finally:
        subprocess.run(["git", "reset", "-q", "--hard", "HEAD"], cwd=root, timeout=60)
