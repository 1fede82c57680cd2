"""Properties of the CODEOWNERS pattern compiler and of the rule index that speeds it up."""

from __future__ import annotations

import dataclasses
import json
import random
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import which

from ctxsel.codeowners import CodeOwners, CompiledRule, RuleIndex, parse
from ctxsel.codeowners_gitlab import fnmatch_regex, normalize_pattern

NAMES = st.sampled_from(["a", "b", "src", "docs", "x.js", "y.test.js", "lib.py", "logs", ".hidden", "a b"])
SAFE_NAMES = NAMES.filter(lambda n: " " not in n)
PATHS = st.lists(NAMES, min_size=1, max_size=5).map("/".join)
SAFE_PATHS = st.lists(SAFE_NAMES, min_size=1, max_size=4).map("/".join)
PATTERN_SEGMENTS = st.one_of(SAFE_NAMES, st.sampled_from(["*", "*.js", "**", "?", "*.py", "a*", "*.test.js", "[ab]"]))


@st.composite
def patterns(draw) -> str:
    body = "/".join(draw(st.lists(PATTERN_SEGMENTS, min_size=1, max_size=4)))
    lead = draw(st.sampled_from(["", "/"]))
    tail = draw(st.sampled_from(["", "/", "/*"]))
    return lead + body + tail


@st.composite
def files(draw, syntax: str) -> str:
    lines = []
    if syntax == "gitlab" and draw(st.booleans()):
        lines.append("* @default")
    for i, pat in enumerate(draw(st.lists(patterns(), min_size=1, max_size=12))):
        if syntax == "gitlab" and draw(st.integers(0, 5)) == 0:
            lines.append(f"[Section{draw(st.integers(0, 2))}]")
        if syntax == "gitlab" and draw(st.integers(0, 6)) == 0:
            lines.append("!" + pat)
        else:
            lines.append(f"{pat} @o{i}" if draw(st.integers(0, 4)) else pat)
    return "\n".join(lines) + "\n"


def brute_force(owners: CodeOwners) -> CodeOwners:
    """The same rules with the index disabled: every rule is tested against every path."""
    assert owners.index is not None
    flat = RuleIndex([CompiledRule(c.rule, c.regex, None) for c in owners.index.compiled])
    return dataclasses.replace(owners, index=flat, _section_order=None)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["github", "gitlab"]), st.data())
def test_index_never_changes_an_answer(syntax, data):
    text = data.draw(files(syntax))
    owners = parse(text, syntax)
    slow = brute_force(owners)
    for path in data.draw(st.lists(PATHS, min_size=1, max_size=8)):
        assert owners.deciding_rules(path) == slow.deciding_rules(path), (text, path)


@given(SAFE_PATHS, SAFE_NAMES)
def test_github_anchored_literal_owns_itself_and_below_only(path, other):
    owners = parse(f"/{path} @team\n", "github")
    assert owners.owners_of(path) == ["@team"]
    assert owners.owners_of(f"{path}/{other}") == ["@team"]
    if not path.startswith("zz"):
        assert owners.owners_of(f"zz/{path}") == []


@given(SAFE_NAMES, SAFE_PATHS)
def test_github_unanchored_name_matches_at_any_depth(name, parent):
    owners = parse(f"{name} @team\n", "github")
    assert owners.owners_of(name) == ["@team"]
    assert owners.owners_of(f"{parent}/{name}") == ["@team"]
    assert owners.owners_of(f"{parent}/{name}x") == ([] if f"/{name}/" not in f"/{parent}/" else ["@team"])


@given(SAFE_PATHS, SAFE_NAMES)
def test_gitlab_literal_is_exact_unless_relative(path, parent):
    anchored = parse(f"/{path} @team\n", "gitlab")
    assert anchored.owners_of(path) == ["@team"]
    assert anchored.owners_of(f"{path}/child") == []  # no trailing slash: not a directory rule
    relative = parse(f"{path} @team\n", "gitlab")
    assert relative.owners_of(f"{parent}/{path}") == ["@team"]
    assert relative.owners_of(path) == ["@team"]


@given(SAFE_PATHS)
def test_last_line_wins_on_github(path):
    owners = parse(f"/{path} @first\n/{path} @second\n", "github")
    assert owners.owners_of(path) == ["@second"]


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_github_agrees_with_the_codeowners_package_where_it_is_right(data):
    """Within the syntax GitHub supports (no '[ ]', '!', '\\#') and for paths without a leading
    '/', our parser + index give exactly the ``codeowners`` package's answer."""
    from codeowners import CodeOwners as Package

    text = data.draw(files("github"))
    text = text.replace("[ab]", "ab")
    ours = parse(text, "github")
    package = Package(text)
    for path in data.draw(st.lists(PATHS, min_size=1, max_size=8)):
        if " " in path:
            continue  # the package masks spaces its own way
        assert ours.owners_of(path) == [o for _, o in package.of(path)], (text, path)


# ---------------------------------------------------------------- differential: Ruby's File.fnmatch
RUBY_GITLAB_MATCH = r"""
require 'json'
# GitLab's Gitlab::CodeOwners::File#normalize_pattern and #path_matches?, verbatim in substance.
def normalize_pattern(pattern)
  return '/**/*' if pattern == '*'
  pattern = pattern.sub(/\A\\#/, '#')
  pattern = pattern.gsub(/\\\s+/, ' ')
  pattern = "/**/#{pattern}" unless pattern.start_with?('/')
  pattern = "#{pattern}**/*" if pattern.end_with?('/')
  pattern
end
flags = File::FNM_DOTMATCH | File::FNM_PATHNAME
pairs = JSON.parse(STDIN.read)
puts JSON.dump(pairs.map { |p, x| File.fnmatch?(normalize_pattern(p), "/#{x}", flags) })
"""


@pytest.mark.oracle
def test_gitlab_globs_match_like_ruby_fnmatch(tmp_path):
    """GitLab matches with Ruby's File.fnmatch?; our regex translation must agree on every pair."""
    ruby = which("ruby")
    if not ruby:
        pytest.skip("ruby not installed (apt-get install ruby): it is GitLab's File.fnmatch oracle")
    tokens = ["a", "b", "*", "**", "?", "[ab]", "[!a]", "[^b]", "[a-c]", "[c-a]", ".", "x.rb", "\\*", "/", "[",
              "]", "c", "\\#", "#", "-", "\\", "[]", "[!]", "\\ ", "{a,b}", "[a-]", "[\\]]"]
    segments = ["a", "b", "c", ".a", "x.rb", "ab", "*", "[ab]", "#c", "a.b", "a b", "-", "]", "\\"]
    rnd = random.Random(20241130)
    pairs = [
        ("".join(rnd.choice(tokens) for _ in range(rnd.randint(1, 6))),
         "/".join(rnd.choice(segments) for _ in range(rnd.randint(1, 4))))
        for _ in range(8000)
    ]
    script = tmp_path / "match.rb"
    script.write_text(RUBY_GITLAB_MATCH)
    proc = subprocess.run([ruby, str(script)], input=json.dumps(pairs), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    expected = json.loads(proc.stdout)
    wrong = [
        (p, x, want)
        for (p, x), want in zip(pairs, expected)
        if (fnmatch_regex(normalize_pattern(p)[1:]).search(x) is not None) != want
    ]
    assert wrong == [], wrong[:10]
