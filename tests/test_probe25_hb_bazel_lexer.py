"""String escapes and tab indentation that Bazel's Starlark lexer refuses (session 25).

Measured with Bazel 4.2.3 (``bazel query --keep_going 'kind(rule, //...)'``): in a non-raw
string only ``\\\\ \\' \\" \\n \\r \\t``, octal ``\\101`` and a backslash-newline are escapes;
``\\x41``, ``\\u0041``, ``\\U...``, ``\\N{...}``, ``\\a \\b \\f \\v`` and ``\\q``/``\\d`` are each
"invalid escape sequence", and a tab in a statement's indentation is "Tab characters are not
allowed for indentation" -- syntax errors, so the BUILD file (or every package loading the
.bzl) has no target. A tab inside brackets or after code is fine, as is ``\\q`` in a comment
or a raw string. Python reads all of them, so ctxsel answered for those targets
(``"\\d"`` as itself). Like every other syntax error, static mode now exits 2 naming the
file and line. ``\\a``, ``\\b``, ``\\f``, ``\\v`` are accepted by later Bazels, so ctxsel still
reads them; ``\\x``, ``\\u``, ``\\U`` are refused too since session 26 (tests/test_probe26_hb_bazel_lexer.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write_tree
from ctxsel.errors import ParseError
from ctxsel.workspace import Workspace
from oracles import require

WORKSPACE = {"WORKSPACE": 'workspace(name = "w")\n'}

#: package -> BUILD text (plus a .bzl), each refused by Bazel 4.2.3: (file, line) of the error
REFUSED: dict[str, tuple[dict[str, str], str]] = {
    "named": ({"named/BUILD": 'cc_library(name = "a\\N{EM DASH}")\n'}, "named/BUILD:1"),
    "triple": ({"triple/BUILD": 'cc_library(name = "a")\n\ncc_library(name = "b", srcs = ["""x\n\\q"""])\n'}, "triple/BUILD:4"),
    "bzl": ({"bzl/BUILD": 'load(":m.bzl", "v")\ncc_library(name = "a")\n', "bzl/m.bzl": 'v = "\\d"\n'}, "bzl/m.bzl:1"),
    "tab": ({"tab/BUILD": 'load(":m.bzl", "m")\ncc_library(name = "a")\n', "tab/m.bzl": "def m():\n    if True:\n    \tpass\n"}, "tab/m.bzl:3"),
}

ACCEPTED: dict[str, str] = {
    "oct/BUILD": 'cc_library(name = "a\\101")\n',
    "cont/BUILD": 'cc_library(name = "a\\\nb")\n',
    "comment/BUILD": '# a \\q in a comment\ncc_library(name = "a", srcs = [r"x\\q"])\n',
    "tabparen/BUILD": 'cc_library(\n\tname = "a",\n)\n',
    "tabafter/BUILD": 'cc_library(name = "a")\t# c\n',
}
#: Bazel 4.2.3 on ACCEPTED plus every REFUSED package (which add nothing)
ACCEPTED_RULES = {"//oct:aA", "//cont:ab", "//comment:a", "//tabparen:a", "//tabafter:a"}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_file_bazels_lexer_refuses_exits_2_naming_it(tmp_path: Path, case: str) -> None:
    """Old: loaded, with //named:a\u2014, //triple:b, //bzl:a and //tab:a."""
    files, where = REFUSED[case]
    with pytest.raises(ParseError) as err:
        Workspace.open(write_tree(tmp_path, {**WORKSPACE, **files}), adapter="bazel", source="static", use_cache=False)
    assert str(err.value).startswith(where + ":"), str(err.value)
    assert "invalid escape sequence" in str(err.value) or "Tab characters" in str(err.value)


def test_what_bazels_lexer_accepts_still_loads(tmp_path: Path) -> None:
    ws = Workspace.open(write_tree(tmp_path, {**WORKSPACE, **ACCEPTED}), adapter="bazel", source="static", use_cache=False)
    assert {i for i in ws.graph if ws.adapter.reportable(ws.graph, i)} == ACCEPTED_RULES


def test_the_cli_exits_2_with_the_file_and_line(tmp_path: Path, cli) -> None:
    root = write_tree(tmp_path, {**WORKSPACE, **REFUSED["tab"][0]})
    result = cli("--repo", str(root), "--source", "static", "--no-cache", "blast-radius", "//tab:a")
    assert result.returncode == 2 and "tab/m.bzl:3" in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) <= 3, result.stderr


@pytest.mark.oracle
def test_bazel_refuses_and_accepts_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One Bazel run: tool mode (``bazel query --keep_going``) over all cases at once."""
    files = {**WORKSPACE, **ACCEPTED}
    for case_files, _ in REFUSED.values():
        files.update(case_files)
    monkeypatch.setenv("CTXSEL_BAZEL", require("oracle-bazel4"))
    tool = Workspace.open(write_tree(tmp_path, files), adapter="bazel", source="tool", use_cache=False)
    assert {i for i in tool.graph if tool.adapter.reportable(tool.graph, i)} == ACCEPTED_RULES
