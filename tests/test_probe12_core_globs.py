"""``ctxsel.globs``: the one glob translator behind Turborepo global files and JS workspace globs.

The tools' differences are parameters (``dot``, ``classes``, ``globstar``); these tests pin
each rule and that brace expansion and brace alternation agree.
"""

from __future__ import annotations

import random
import re

import pytest

from ctxsel import affected, globs
from ctxsel.adapters.js import workspace
from ctxsel.errors import UserError
from ctxsel.globs import expand_braces, glob_regex


def full(pattern: str, path: str, **rules) -> bool:
    return re.fullmatch(glob_regex(pattern, **rules), path) is not None


def test_both_callers_use_the_shared_translator() -> None:
    assert workspace._expand_braces is globs.expand_braces
    assert workspace._segment_regex("p*", dot=False) == glob_regex("p*", dot=False, classes="regex", globstar=False)
    assert affected.is_global(("config/**/*.{json,yml}",), "config/a/b.yml")
    assert not hasattr(affected, "glob_to_regex")  # no second copy left behind


@pytest.mark.parametrize(
    "pattern, path, escaped, regex",
    [
        ("[z-a]", "z", False, False),  # "escaped": a reversed range empties the class (turbo 2) ...
        ("[z-a]", "[z-a]", False, True),  # ... "regex": no valid class, so the text itself
        ("[a-c]x", "[a-c]x", False, False),
        ("[^a]", "b", True, True),
        ("[!a]", "a", False, False),
        ("[a-c]", "b", True, True),
        ("[.]", ".", True, True),
    ],
)
def test_class_rules(pattern: str, path: str, escaped: bool, regex: bool) -> None:
    assert full(pattern, path, classes="escaped") is escaped
    assert full(pattern, path, classes="regex") is regex


@pytest.mark.parametrize("pattern", ["[]", "[!]", "[]a]", "x[a-]", "[a-c-e]"])
def test_globs_turbo_refuses_are_glob_errors_and_user_errors(pattern: str) -> None:
    """turbo 2.11 fails on these globalDependencies ("failed to parse glob expression");
    the old translator crashed on ``[!]`` (``re.error``) and matched ``]``/``a`` for ``[]a]``."""
    with pytest.raises(globs.GlobError):
        glob_regex(pattern)
    assert glob_regex(pattern, classes="regex") is not None  # workspace globs: literal text instead
    with pytest.raises(UserError, match="globalDependencies"):
        affected.is_global((pattern,), "x")


def test_a_reversed_range_matches_nothing_as_in_turbo() -> None:
    """turbo 2.11: ``[z-a]`` and ``[z-ab]`` made neither ``z``, ``a``, ``b`` nor the text global
    (the old translator raised ``re.error``: "internal error")."""
    for path in ("a", "b", "z", "[z-a]", "[z-ab]"):
        assert not affected.is_global(("[z-a]", "[z-ab]"), path)


def test_dot_rule_is_per_segment_and_spelled_dots_match() -> None:
    assert full("*", ".env") and not full("*", ".env", dot=False)
    assert full(".*", ".env", dot=False)
    assert not full("a/*", "a/.git", dot=False) and full("a/*", "a/x", dot=False)
    assert not full("?x", ".x", dot=False) and not full("[.]x", ".x", dot=False)


def test_globstar_only_when_asked() -> None:
    assert full("a/**/b", "a/b") and full("a/**/b", "a/x/y/b") and full("**", "x/y/z")
    assert not full("a/**/b", "a/x/y/b", globstar=False)  # then "**" is a "*": one segment
    assert full("a/**/b", "a/x/b", globstar=False)


def test_braces_nested_unclosed_and_escaped() -> None:
    assert expand_braces("a/{b,c{d,e}}/x") == ["a/b/x", "a/cd/x", "a/ce/x"]
    assert expand_braces("{a,b") == ["{a,b"] and expand_braces("{{a,b}") == ["{a", "{b"]
    assert expand_braces("{a,{a,b}}") == ["a", "b"]  # each expansion once
    assert full("{a,b", "{a,b") and full("{{a,b}", "{b")
    assert full(r"\{a,b}", "{a,b}") and not full(r"\{a,b}", "a")


@pytest.mark.parametrize("seed", range(5))
def test_brace_alternation_agrees_with_expansion(seed: int) -> None:
    """Matching with ``{...}`` as regex alternation equals matching any expansion, on
    patterns whose braces hold plain names and wildcards (no ``/``, and no ``*`` touching a
    brace: ``{**}`` is a globstar in the alternation, as it always was for global files, and
    ``*{*}`` expands into one; each side's quirk, kept as it was)."""
    rng = random.Random(seed)
    pieces = ["a", "b", ".", "*", "?", "[ab]", ",", "{", "}", "/"]
    paths = ["", "a", "b", "ab", "a/b", ".a", "a.b", "ba/a", "{a", "a}", "a,b", "b/.", "aa/bb/a"]
    for _ in range(1500):
        pattern = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 9)))
        if re.search(r"\*\*|\*[{}]|[{},]\*", pattern) or any("/" in p for p in re.findall(r"\{[^{}]*\}", pattern)):
            continue
        for rule in globs.CLASS_RULES:
            for path in paths:
                alternation = full(pattern, path, classes=rule)
                expanded = any(full(alt, path, classes=rule) for alt in expand_braces(pattern))
                assert alternation == expanded, (pattern, path, rule)


# (globalDependencies, changed root file): what turbo 2.11 said is in the table's docstrings above
TURBO_CLASS_CASES = [
    (["[a-c]"], "b"),  # every package
    (["[z-ab]"], "b"),  # nothing: the reversed range empties the class
    (["[z-a]"], "z"),  # nothing
    (["[!]"], "x"),  # turbo fails: "failed to parse glob expression"
    (["[]a]"], "a"),  # turbo fails
]


@pytest.mark.oracle
def test_turbo_character_classes_agree_with_turbo_ls(tmp_path) -> None:
    """Differential: ``turbo ls --filter=...[HEAD~1]`` vs ``ctxsel blast-radius --base HEAD~1``
    for global-file globs with ``[...]``; a glob turbo refuses is exit 2 in ctxsel."""
    import json
    import shutil

    from conftest import FIXTURES, run_cli, run_git
    from oracles import require, run

    turbo = require("turbo")
    root = tmp_path / "repo"
    shutil.copytree(FIXTURES / "js-turbo", root, ignore=shutil.ignore_patterns("node_modules", ".ctxsel", ".turbo"))
    run_git(root, "init", "-q", "-b", "main")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", "init")
    mismatches = []
    for n, (patterns, path) in enumerate(TURBO_CLASS_CASES):
        config = json.loads((root / "turbo.json").read_text())
        config["globalDependencies"] = patterns
        (root / "turbo.json").write_text(json.dumps(config, indent=2))
        run_git(root, "add", "-A")
        run_git(root, "commit", "-q", "--allow-empty", "-m", f"globs {n}")
        (root / path).write_text(f"change {n}\n")
        run_git(root, "add", "-A")
        run_git(root, "commit", "-qm", f"change {n}")
        proc = run([turbo, "ls", "--filter=...[HEAD~1]", "--output=json"], cwd=root, timeout=120, check=False)
        ours = run_cli("--repo", str(root), "--adapter", "turbo", "--source", "static", "--quiet",
                       "blast-radius", "--base", "HEAD~1", "--format", "labels")
        if proc.returncode != 0:
            assert "failed to parse glob" in proc.stdout + proc.stderr, proc.stderr[-500:]
            if ours.returncode != 2 or "globalDependencies" not in ours.stderr:
                why = ours.stderr[-300:]
                mismatches.append(f"{patterns} {path}: turbo refuses, ctxsel exit {ours.returncode}: {why}")
            continue
        out = proc.stdout
        want = {p["name"] for p in json.loads(out[out.index("{"):])["packages"]["items"]}
        got = set(ours.stdout.split())
        if ours.returncode != 0 or got != want:
            mismatches.append(f"{patterns} {path}: turbo {sorted(want)}, ctxsel {sorted(got)} {ours.stderr[-300:]}")
    assert not mismatches, "\n".join(mismatches)
