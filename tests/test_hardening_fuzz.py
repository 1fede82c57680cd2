"""Fuzz-style tests: random bytes and random text as manifests never escape the error path.

Each test writes one hostile file into an otherwise valid workspace and runs the CLI in
process (``ctxsel.cli.main``, far faster than a subprocess per example). Whatever the
file holds, the answer is exit 0 (it was readable enough) or exit 2 naming the file
(a user error); never exit 1 (an internal error) and never a traceback.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from conftest import write_tree as write
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxsel.cli import main

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

#: Fragments of the languages under test, so random text reaches past the tokenizer.
STARLARK_TOKENS = [
    "cc_library(", "py_test(", "name = ", '"x"', '"//core:y"', '":z"', "[", "]", "(", ")", "{", "}", ",", ":",
    "glob(", '["**"]', "select(", "+", "%", "*", "-", "def f(a):\n  ", "return ", "load(", '":defs.bzl"', "\n",
    "for i in ", "range(9)", "if ", "else", "lambda x: x", "deps = ", "srcs = ", "native.", "rule(", "None",
    "True", "1", "9" * 30, "'", '"', "\\", "\t", "  ", "#", "**", "x", "=", ".format(", ".join(", "struct(",
]
JSON_TOKENS = [
    "{", "}", "[", "]", ",", ":", '"name"', '"a"', '"b"', '"dependencies"', '"devDependencies"', '"workspace:*"',
    '"*"', '"^1.0.0"', "null", "true", "1e999", "-0", '"\\u0000"', '"\\ud800"', " ", "\n", '"implicitDependencies"',
    '"targets"', '"dependsOn"', '"tags"', '"scope:x"', '"!a"', '"projectType"', '"sourceRoot"', '"version"',
]
YAML_TOKENS = [
    "packages:", "\n", "  - ", "'packages/*'", "'!packages/b'", "'**'", "'['", "'{a,b}'", "- ", ": ", "&a", "*a",
    "!!python/object", "{", "}", "[", "]", "catalog:", "null", "~", "'../x'", "'/etc'", '"\\x00"', "\t", "---",
]
CODEOWNERS_TOKENS = [
    "*", "/", "**", "docs/", "*.js", "@team", "@org/team", "a@b.c", "#", "\n", " ", "[", "]", "[Section]", "^",
    "!", "\\", "\\ ", "[ab]", "?", "{a,b}", "src", "@", "=", "\t", "\r",
]


COMMANDS = st.sampled_from(["blast-radius", "tests"])  # tests also reads the task configuration


def text_from(tokens: list[str]) -> st.SearchStrategy[str]:
    """Random text: mostly language fragments, sometimes arbitrary characters."""
    return st.lists(st.one_of(st.sampled_from(tokens), st.text(max_size=4)), max_size=40).map("".join)


def contents(tokens: list[str]) -> st.SearchStrategy[bytes]:
    return st.one_of(
        st.binary(max_size=300),
        st.text(max_size=200).map(lambda s: s.encode("utf-8", "surrogatepass")),
        text_from(tokens).map(lambda s: s.encode("utf-8", "surrogatepass")),
    )


def run_in_process(capsys, argv: list[str]) -> tuple[int, str, str]:
    capsys.readouterr()  # drop anything earlier examples left
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def check(rc: int, err: str, culprit: str) -> None:
    """The contract of issue 9 for one hostile file."""
    assert "Traceback" not in err, err
    assert "internal error" not in err, err
    assert rc in (0, 2), (rc, err)
    if rc == 2:
        assert culprit in err, err


def fuzz_workspace(files: dict[str, str | bytes], argv: list[str], culprit: str, capsys) -> None:
    with tempfile.TemporaryDirectory() as tmp:  # a fresh tree per example (tmp_path is per test)
        root = Path(tmp)
        write(root, files)
        rc, _out, err = run_in_process(capsys, ["--repo", str(root), "--no-cache", *argv])
        check(rc, err, culprit)
        shutil.rmtree(root / ".ctxsel", ignore_errors=True)


BAZEL_BASE = {
    "MODULE.bazel": 'module(name = "fuzz")\n',
    "app/BUILD": 'cc_library(name = "app", srcs = ["app.cc"], deps = ["//core:core"])\n',
    "app/app.cc": "int main() {}\n",
    "core/core.cc": "int x;\n",
}
BAZEL_ARGS = ["--adapter", "bazel", "--source", "static", "blast-radius", "//app:app"]


@FUZZ
@given(contents(STARLARK_TOKENS))
def test_random_build_file(capsys, body):
    fuzz_workspace({**BAZEL_BASE, "core/BUILD": body}, BAZEL_ARGS, "core/BUILD", capsys)


@FUZZ
@given(contents(STARLARK_TOKENS))
def test_random_bzl_file(capsys, body):
    files = {
        **BAZEL_BASE,
        "core/BUILD": 'load(":defs.bzl", "m")\ncc_library(name = "core", srcs = ["core.cc"])\nm(name = "gen")\n',
        "core/defs.bzl": body,
    }
    fuzz_workspace(files, BAZEL_ARGS, "core/defs.bzl", capsys)


PNPM_BASE = {
    "package.json": '{"name": "root", "private": true}\n',
    "pnpm-workspace.yaml": "packages:\n  - 'packages/*'\n",
    "packages/a/package.json": '{"name": "a", "version": "1.0.0"}\n',
}
PNPM_ARGS = ["--adapter", "pnpm", "--source", "static", "blast-radius", "root"]


@FUZZ
@given(contents(JSON_TOKENS))
def test_random_package_json(capsys, body):
    files = {**PNPM_BASE, "packages/b/package.json": body}
    fuzz_workspace(files, [*PNPM_ARGS[:-1], "a"], "packages/b/package.json", capsys)


@FUZZ
@given(contents(YAML_TOKENS))
def test_random_pnpm_workspace_yaml(capsys, body):
    fuzz_workspace({**PNPM_BASE, "pnpm-workspace.yaml": body}, PNPM_ARGS, "pnpm-workspace.yaml", capsys)


@FUZZ
@given(st.lists(st.sampled_from(["packages/*", "!packages/b", "**", "packages/**", "[", "[]", "[z-a]", "{a,b}", "!",
                                 "..", "../..", "/etc", "packages/[!a]", "*/*/*", "\\", "(", "?*", "{", "}"]), max_size=5),
       st.lists(st.text(max_size=6), max_size=2))
def test_random_workspace_globs(capsys, globs, junk):
    """Valid YAML whose globs are hostile: an unusual glob is never an internal error."""
    import json

    body = "packages:\n" + "".join(f"  - {json.dumps(g)}\n" for g in globs + junk)
    fuzz_workspace({**PNPM_BASE, "pnpm-workspace.yaml": body, "packages/b/package.json": '{"name": "b"}'},
                   PNPM_ARGS, "pnpm-workspace.yaml", capsys)


NX_BASE = {
    "nx.json": "{}\n",
    "package.json": '{"name": "root", "private": true}\n',
    "libs/a/project.json": '{"name": "a", "sourceRoot": "libs/a/src"}\n',
    "libs/a/src/index.ts": "export const a = 1;\n",
    "libs/b/src/index.ts": "import { a } from '../../a/src/index';\n",
}


@FUZZ
@given(contents(JSON_TOKENS), COMMANDS)
def test_random_project_json(capsys, body, command):
    files = {**NX_BASE, "libs/b/project.json": body}
    fuzz_workspace(files, ["--adapter", "nx", "--source", "static", command, "a"], "libs/b/project.json", capsys)


@FUZZ
@given(contents(JSON_TOKENS + ['"tasks"', '"pipeline"', '"build"', '"^build"', '"outputs"', "//", "/*", "*/"]), COMMANDS)
def test_random_turbo_json(capsys, body, command):
    files = {"package.json": '{"name": "root", "private": true, "workspaces": ["packages/*"], "packageManager": "npm@10.0.0"}\n',
             "packages/a/package.json": '{"name": "a"}\n', "turbo.json": body}
    fuzz_workspace(files, ["--adapter", "turbo", "--source", "static", command, "a"], "turbo.json", capsys)


@FUZZ
@given(contents(JSON_TOKENS + ['"targetDefaults"', '"workspaceLayout"', '"libsDir"', '"plugins"', '"namedInputs"']), COMMANDS)
def test_random_nx_json(capsys, body, command):
    fuzz_workspace({**NX_BASE, "nx.json": body}, ["--adapter", "nx", "--source", "static", command, "a"], "nx.json", capsys)


@FUZZ
@given(contents(CODEOWNERS_TOKENS), st.sampled_from(["auto", "github", "gitlab"]))
def test_random_codeowners(capsys, body, syntax):
    files = {"CODEOWNERS": body, "src/a.js": "1\n", "docs/x.md": "x\n"}  # the root: both GitHub and GitLab look there
    fuzz_workspace(files, ["owners", "--codeowners-syntax", syntax, "src/a.js", "docs"], "CODEOWNERS", capsys)


@pytest.mark.parametrize("bad", [b"\xff\xfe\x00garbage", b"\x00" * 64, "cc_library(name = 'é\u2028')".encode()])
def test_known_hostile_bytes_in_build(capsys, tmp_path, bad):
    """A few fixed hostile inputs, so a regression shows even when hypothesis draws kindly."""
    write(tmp_path, {**BAZEL_BASE, "core/BUILD": bad})
    rc, _out, err = run_in_process(capsys, ["--repo", str(tmp_path), "--no-cache", *BAZEL_ARGS])
    check(rc, err, "core/BUILD")
