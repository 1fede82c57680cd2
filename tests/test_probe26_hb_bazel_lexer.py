"""``\\x``, ``\\u``, ``\\U`` escapes and a UTF-8 byte order mark: syntax errors, as in Bazel (session 26).

Measured with Bazel 4.2.3 (``bazel query --keep_going 'kind(rule, //...)'``, exit 3):
``cc_library(name = "a\\x41")`` (and ``\\u0041``, ``\\U00000041``) is "invalid escape sequence:
\\x", and a BUILD file starting with a byte order mark is "invalid character" three times
(Bazel reads the bytes as Latin-1; bazelbuild/bazel#4551 asked for the BOM to be skipped and
was closed unfixed): either way the package has no target, and a .bzl with one fails every
package loading it. Bazel's current lexer (``Lexer.java`` at commit 024835c) still refuses
``\\x``, ``\\u``, ``\\U`` and ``\\N`` -- only ``\\a \\b \\f \\v`` were added after 4.2.3, so ctxsel
keeps reading those (``test_probe25_hb_bazel_lexer``). Static mode read ``\\x41`` as "A" and
dropped the BOM, answering for ``//x:aA`` and ``//bom:a``; like every syntax error it now
exits 2 naming the file and line.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write_tree
from ctxsel.errors import ParseError
from ctxsel.workspace import Workspace
from oracles import require

WORKSPACE = {"WORKSPACE": 'workspace(name = "w")\n'}

#: package -> (files, "file:line" of the error), each refused by Bazel 4.2.3
REFUSED: dict[str, tuple[dict[str, str], str]] = {
    "x": ({"x/BUILD": 'cc_library(name = "a\\x41")\n'}, "x/BUILD:1"),
    "u": ({"u/BUILD": 'cc_library(name = "ok")\n\ncc_library(name = "a", srcs = ["\\u0041"])\n'}, "u/BUILD:3"),
    "U": ({"U/BUILD": 'load(":m.bzl", "v")\ncc_library(name = "a")\n', "U/m.bzl": 'v = "\\U00000041"\n'}, "U/m.bzl:1"),
    "bom": ({"bom/BUILD": '\ufeffcc_library(name = "a")\n'}, "bom/BUILD:1"),
    "bombzl": ({"bombzl/BUILD": 'load(":m.bzl", "v")\ncc_library(name = "a")\n', "bombzl/m.bzl": '\ufeffv = 1\n'}, "bombzl/m.bzl:1"),
}
#: what stays: a raw string, the character in a comment, the escapes Bazel takes
ACCEPTED: dict[str, str] = {
    "raw/BUILD": 'cc_library(name = "a", srcs = [r"\\x41"])\n',
    "inner/BUILD": '# a \ufeff in a comment\ncc_library(name = "a")\n',
    "oct/BUILD": 'cc_library(name = "a\\101\\t"[:2])\n',
}
ACCEPTED_RULES = {"//raw:a", "//inner:a", "//oct:aA"}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_an_escape_or_bom_bazel_refuses_exits_2_naming_it(tmp_path: Path, case: str) -> None:
    """Old: loaded, with //x:aA, //u:a, //U:a, //bom:a and //bombzl:a."""
    files, where = REFUSED[case]
    with pytest.raises(ParseError) as err:
        Workspace.open(write_tree(tmp_path, {**WORKSPACE, **files}), adapter="bazel", source="static", use_cache=False)
    assert str(err.value).startswith(where + ":"), str(err.value)
    assert "invalid escape sequence" in str(err.value) or "byte order mark" in str(err.value)


def test_what_bazel_accepts_still_loads(tmp_path: Path) -> None:
    ws = Workspace.open(write_tree(tmp_path, {**WORKSPACE, **ACCEPTED}), adapter="bazel", source="static", use_cache=False)
    assert {i for i in ws.graph if ws.adapter.reportable(ws.graph, i)} == ACCEPTED_RULES


def test_the_cli_exits_2_with_the_file_and_line(tmp_path: Path, cli) -> None:
    root = write_tree(tmp_path, {**WORKSPACE, **REFUSED["bom"][0]})
    result = cli("--repo", str(root), "--source", "static", "--no-cache", "blast-radius", "//bom:a")
    assert result.returncode == 2 and "bom/BUILD:1" in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) <= 3, result.stderr


@pytest.mark.oracle
def test_bazel_refuses_and_accepts_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One Bazel run over all cases: the refused packages have no target."""
    files = {**WORKSPACE, **ACCEPTED}
    for case_files, _ in REFUSED.values():
        files.update(case_files)
    monkeypatch.setenv("CTXSEL_BAZEL", require("oracle-bazel4"))
    tool = Workspace.open(write_tree(tmp_path, files), adapter="bazel", source="tool", use_cache=False)
    assert {i for i in tool.graph if tool.adapter.reportable(tool.graph, i)} == ACCEPTED_RULES
