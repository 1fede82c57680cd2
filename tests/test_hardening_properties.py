"""Property tests for the parsers that read hostile input: labels, Starlark, workspace globs, CODEOWNERS.

``tests/test_codeowners_properties.py`` already covers CODEOWNERS pattern semantics
(anchored literals, unanchored names, the rule index); here CODEOWNERS only gets the
error-path property (a malformed line is skipped with its file:line, the rest applies).
"""

from __future__ import annotations

import ast
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxsel.adapters.bazel.labels import Label, LabelError, canonical, parse_label
from ctxsel.adapters.bazel.starlark import Interpreter, parse
from ctxsel.adapters.bazel.starlark_values import EvalError
from ctxsel.adapters.js.workspace import expand_globs
from ctxsel.cache import InputTracker
from ctxsel.codeowners import parse as parse_codeowners

# ---------------------------------------------------------------- Bazel labels
# a segment of dots only is no package or target name for Bazel ("package name component contains
# only '.' characters"), and ``...`` is the target-pattern wildcard
SEGMENT = st.text(alphabet="abcxyz019_-.+", min_size=1, max_size=6).filter(lambda s: s.strip(".") != "")
PACKAGES = st.lists(SEGMENT, max_size=4).map("/".join)
NAMES = st.lists(SEGMENT, min_size=1, max_size=3).map("/".join)
REPOS = st.one_of(st.just(""), st.text(alphabet="abc_xyz.~+", min_size=1, max_size=6))


@given(REPOS, PACKAGES, NAMES)
def test_canonical_labels_round_trip(repo, package, name):
    label = Label(repo, package, name)
    assert parse_label(str(label)) == label
    assert parse_label(str(label), current_package="elsewhere/pkg") == label  # absolute: the package is irrelevant


@given(PACKAGES.filter(bool), NAMES)
def test_relative_labels_resolve_into_the_current_package(package, name):
    assert parse_label(f":{name}", package) == Label("", package, name)
    assert parse_label(name, package) == Label("", package, name)


@given(PACKAGES.filter(bool))
def test_package_shorthand_names_the_last_segment(package):
    assert parse_label(f"//{package}") == Label("", package, package.rsplit("/", 1)[-1])


@given(st.text(max_size=30), PACKAGES)
def test_any_text_is_a_label_or_a_label_error_and_canonical_is_idempotent(text, package):
    try:
        once = canonical(text, package)
    except LabelError:
        return
    assert canonical(once) == once
    assert once.startswith(("//", "@"))


def test_main_repository_name_means_the_main_repository():
    assert parse_label("@ws//a:b", main_repo_name="ws") == Label("", "a", "b")


# ---------------------------------------------------------------- the Starlark subset
#: text whose repr() is Starlark: repr writes other non-printable characters as \x/\u/\U escapes,
#: which Bazel's lexer refuses ("invalid escape sequence", tests/test_probe26_hb_bazel_lexer.py)
SAFE_TEXT = st.text(st.characters(blacklist_categories=("Cs",)).filter(lambda c: c.isprintable() or c in "\t\n\r"),
                    max_size=8)


def _leaf() -> st.SearchStrategy[tuple[str, Any]]:
    return st.one_of(
        st.integers(-(10**12), 10**12).map(lambda i: (repr(i), i)),
        SAFE_TEXT.map(lambda s: (repr(s), s)),
        st.booleans().map(lambda b: (repr(b), b)),
        st.just(("None", None)),
    )


def _containers(children: st.SearchStrategy[tuple[str, Any]]) -> st.SearchStrategy[tuple[str, Any]]:
    lists = st.lists(children, max_size=4).map(lambda xs: ("[" + ", ".join(s for s, _ in xs) + "]", [v for _, v in xs]))
    tuples = st.lists(children, min_size=1, max_size=4).map(
        lambda xs: ("(" + ", ".join(s for s, _ in xs) + ",)", tuple(v for _, v in xs)))
    dicts = st.lists(st.tuples(SAFE_TEXT, children), max_size=4).map(
        lambda kv: ("{" + ", ".join(f"{k!r}: {s}" for k, (s, _) in kv) + "}", {k: v for k, (_, v) in kv}))
    list_concat = st.tuples(lists, lists).map(lambda ab: (f"({ab[0][0]} + {ab[1][0]})", ab[0][1] + ab[1][1]))
    str_concat = st.tuples(SAFE_TEXT, SAFE_TEXT).map(lambda ab: (f"({ab[0]!r} + {ab[1]!r})", ab[0] + ab[1]))
    return st.one_of(lists, tuples, dicts, list_concat, str_concat)


EXPRESSIONS = st.recursive(_leaf(), _containers, max_leaves=25)


def same(a: Any, b: Any) -> bool:
    """Equality that also tells True from 1 and a list from a tuple."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return a == b


def evaluate(expr: str) -> Any:
    interp = Interpreter(lambda *a: {}, lambda *a: [], [], lambda *a: None)
    g: dict[str, Any] = {}
    interp.exec_module(parse(f"x = {expr}\n", "t.bzl"), "t.bzl", g)
    return g["x"]


@settings(max_examples=200, deadline=None)
@given(EXPRESSIONS)
def test_literals_and_concatenation_evaluate_like_python(case):
    source, expected = case
    value = evaluate(source)
    assert same(value, expected), (source, value)
    try:
        python = ast.literal_eval(source)
    except ValueError:  # concatenation is beyond literal_eval; the constructed value stands in
        return
    assert same(value, python), (source, value, python)


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet="[]{}()+-*%,:'\"x1 \n#=", max_size=40))
def test_random_starlark_is_a_value_or_an_eval_error(source):
    """Nothing but ``EvalError`` (which the loader turns into a warning or exit 2) leaves the evaluator."""
    interp = Interpreter(lambda *a: {}, lambda *a: [], [], lambda *a: None)
    try:
        interp.exec_module(parse(source, "t.bzl"), "t.bzl", {}, per_statement=lambda exc: None)
    except EvalError:
        pass


def test_deep_nesting_is_an_eval_error_not_a_crash():
    with pytest.raises(EvalError):
        evaluate("[" * 5000 + "]" * 5000)


# ---------------------------------------------------------------- workspace globs
DIR_NAMES = ["packages", "apps", "a", "b", "c", ".hidden", "node_modules", "lib"]
TREES = st.lists(
    st.tuples(st.lists(st.sampled_from(DIR_NAMES), min_size=1, max_size=3).map("/".join), st.booleans()),
    max_size=12,
)
GLOB_PARTS = st.sampled_from(["packages", "apps", "a", "b", "*", "**", "?", "[ab]", "{a,b}", ".hidden", "lib", "a*"])
GLOBS = st.lists(GLOB_PARTS, min_size=1, max_size=3).map("/".join)


def make_tree(root: Path, tree: list[tuple[str, bool]]) -> None:
    for rel, has_manifest in tree:
        (root / rel).mkdir(parents=True, exist_ok=True)
        if has_manifest:
            (root / rel / "package.json").write_text(json.dumps({"name": rel}))


@settings(max_examples=80, deadline=None)
@given(TREES, st.lists(GLOBS, min_size=1, max_size=3), GLOBS)
def test_a_negated_glob_never_returns_what_it_negates(tree, positives, negated):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make_tree(root, tree)
        plain = expand_globs(root, positives, InputTracker(root))
        kept = expand_globs(root, [*positives, "!" + negated], InputTracker(root))
        negated_dirs = set(expand_globs(root, [negated], InputTracker(root)))
        reordered = expand_globs(root, ["!" + negated, *positives], InputTracker(root))
        assert set(kept) <= set(plain)
        assert not set(kept) & negated_dirs, (positives, negated, kept)
        assert kept == reordered  # a negation applies wherever it is listed
        for rel in plain:
            assert (root / rel / "package.json").is_file()
            assert "node_modules" not in rel.split("/")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet="ab*?[]{}!/.\\^-,", max_size=8), min_size=1, max_size=4))
def test_any_glob_text_expands_without_error(patterns):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make_tree(root, [("a", True), ("b/a", True), ("[ab]", True)])
        for rel in expand_globs(root, patterns, InputTracker(root)):
            assert (root / rel / "package.json").is_file()


# ---------------------------------------------------------------- CODEOWNERS error path
BAD_GITHUB_LINES = ["!negated @o", "docs/[ab] @o", "src/ not-an-owner", "\\#hash @o", "x @o @ bad"]


@given(st.lists(st.sampled_from(["a", "b", "src", "docs"]), min_size=1, max_size=3).map("/".join),
       st.sampled_from(BAD_GITHUB_LINES), st.integers(0, 3))
def test_a_malformed_line_is_skipped_with_its_line_number_and_the_rest_applies(path, bad, before):
    lines = [f"# comment {i}" for i in range(before)] + [bad, f"/{path} @team"]
    owners = parse_codeowners("\n".join(lines) + "\n", "github", source=".github/CODEOWNERS")
    assert owners.owners_of(path) == ["@team"]
    assert any(w.startswith(f".github/CODEOWNERS:{before + 1}:") for w in owners.warnings), owners.warnings
