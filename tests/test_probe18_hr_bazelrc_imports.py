"""An rc file .bazelrc imports is as global a change as .bazelrc itself.

``import %workspace%/tools/ci.bazelrc`` (and ``try-import``, nested imports) puts that
file's options in every Bazel command, exactly as if they stood in .bazelrc: rules_rust,
rules_jvm_external and most large Bazel repositories keep their CI and remote-cache flags
there. ctxsel counted an edit to .bazelrc as a change of every target but an edit to the
imported file as a plain source file: owned by nothing ("none owned by a target"), or
only by the rule that happens to list it (an ``exports_files``/filegroup in its package),
so ``ctxsel tests --since`` ran nothing for a change that reconfigures every test.

A ``try-import`` of an absent file is global too: creating it changes the options. An rc
file nothing imports stays an ordinary file, and one outside the workspace
(``%workspace%/../x``) is not the workspace's to report.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write_tree
from ctxsel.workspace import Workspace

TREE: dict[str, str] = {
    "WORKSPACE": 'workspace(name = "w")\n',
    ".bazelrc": (
        "build --jobs=4\n"
        "import %workspace%/tools/ci.bazelrc\n"
        "try-import %workspace%/user.bazelrc  # absent: each developer's own\n"
        "import %workspace%/../outside.bazelrc\n"
        "try-import %workspace%/ci/x[1].bazelrc\n"
    ),
    # inside package //tools, listed by one of its rules: still global
    "tools/ci.bazelrc": "build --remote_cache=grpc://cache\nimport %workspace%/tools/more.bazelrc\n",
    "tools/more.bazelrc": "test --test_output=errors\n",
    "tools/BUILD": 'filegroup(name = "rc", srcs = ["ci.bazelrc"])\n',
    "ci/x[1].bazelrc": "common --color=no\n",
    "a/BUILD": 'filegroup(name = "x", srcs = ["x.txt"])\nfilegroup(name = "y")\nsh_test(name = "t", srcs = ["t.sh"])\n',
    "a/x.txt": "x\n",
    "a/t.sh": "exit 0\n",
    "other.bazelrc": "build --jobs=1\n",  # imported by nothing
}

EVERY = {"//a:x", "//a:y", "//a:t", "//tools:rc"}


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    write_tree(tmp_path, TREE)
    return Workspace.open(tmp_path, adapter="bazel", source="static", use_cache=False)


@pytest.mark.parametrize("path", [".bazelrc", "tools/ci.bazelrc", "tools/more.bazelrc", "user.bazelrc", "ci/x[1].bazelrc"])
def test_imported_rc_file_changes_every_target(ws: Workspace, path: str) -> None:
    changes = ws.changes(files=[path])
    assert set(changes.nodes) == EVERY
    assert not changes.unowned


@pytest.mark.parametrize("path", ["user.bazelrc", "ci/x[1].bazelrc", "tools/ci.bazelrc", "tools/more.bazelrc"])
def test_imported_rc_file_is_reported_as_global(ws: Workspace, path: str) -> None:
    # the glob characters of "x[1]" are matched literally, not as a class
    assert ws.changes(files=[path]).global_files == [path]
    assert ws.changes(files=["ci/x1.bazelrc"]).global_files == []


def test_rc_file_nothing_imports_is_no_global_change(ws: Workspace) -> None:
    changes = ws.changes(files=["other.bazelrc", "a/x.txt"])
    assert changes.global_files == []
    assert changes.nodes == ["//a:x"]
    assert changes.unowned == ["other.bazelrc"]


def test_imported_rc_files_lists_workspace_files_only(ws: Workspace) -> None:
    assert ws.adapter.imported_rc_files() == ("tools/ci.bazelrc", "tools/more.bazelrc", "user.bazelrc", "ci/x[1].bazelrc")


def test_tests_for_an_imported_rc_change_are_all_tests(ws: Workspace) -> None:
    roots, _ = ws.roots(files=["tools/more.bazelrc"])
    assert ws.tests(roots=roots).tests == ["//a:t"]


def test_import_of_a_missing_rc_file_is_named_in_a_warning(tmp_path: Path) -> None:
    # measured with Bazel 4.2.3: `import` of a missing file fails every command (exit 37,
    # "Unexpected error reading .blazerc file"); `try-import` skips it. Static mode answered
    # silently where the tool refuses to run.
    write_tree(tmp_path, {
        "WORKSPACE": 'workspace(name = "w")\n',
        "a/BUILD": 'filegroup(name = "x")\n',
        ".bazelrc": "build --jobs=1 \\\n  --keep_going\ntry-import %workspace%/opt.bazelrc\nimport %workspace%/gone.bazelrc\n",
    })
    ws = Workspace.open(tmp_path, adapter="bazel", source="static", use_cache=False)
    assert ws.resolve(["//a:x"]) == ["//a:x"]
    missing = [w for w in ws.warnings if "does not exist" in w]
    assert len(missing) == 1 and ".bazelrc:4: import of %workspace%/gone.bazelrc" in missing[0], ws.warnings
    assert "opt.bazelrc" not in missing[0]
