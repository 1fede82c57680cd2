"""Session 21: GitHub CODEOWNERS rules compile on first use, as GitLab's already did.

Old: every line's pattern was translated and compiled while parsing (~60 µs a line), so a
100,000-line CODEOWNERS (GitHub's 3 MB limit is about that) took 6.2 s of CPU before
``ctxsel owners`` answered for one path; now 1.0 s. Laziness is safe only because
``github_regex`` compiles for every pattern GitHub accepts, which the property below checks.
"""

from __future__ import annotations

import random
import re

from ctxsel.codeowners import _github_pattern_problem, github_regex, parse_github


def test_github_regex_compiles_for_every_pattern_github_accepts() -> None:
    rng = random.Random(21)
    alphabet = [*"ab/*?.\\[]{}!#-_ ()+^$|", "**", "/**/", "\\ "]
    checked = 0
    for _ in range(30_000):
        pattern = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 14)))
        if not pattern.strip() or _github_pattern_problem(pattern):
            continue
        re.compile(github_regex(pattern))  # raises on a pattern that cannot be lazy
        checked += 1
    assert checked > 10_000


def compiled_count(rules) -> int:
    return sum(c.regex._compiled is not None for c in rules.index.compiled)


def test_a_question_compiles_only_the_rules_it_needs() -> None:
    lines = [f"/svc/s{i}/src/*.go @team{i % 40}" for i in range(20_000)] + ["/svc/s7/ @owner-of-s7", "*.md @docs"]
    rules = parse_github("\n".join(lines) + "\n")
    assert compiled_count(rules) == 0
    assert rules.owners_of("svc/s7/src/main.go") == ["@owner-of-s7"]  # the last match wins: found first
    assert rules.owners_of("README.md") == ["@docs"]
    assert compiled_count(rules) <= 3
    assert rules.owners_of("svc/s19999/src/x.go") == ["@team39"]
    assert rules.owners_of("svc/s5/lib/x.go") == []
    assert compiled_count(rules) < 1_000  # of 20,002: the index offers only rules spelling a path's segments


def test_lazy_rules_answer_as_the_eager_translation_does() -> None:
    rng = random.Random(7)
    segments = ["a", "b", "src", "*", "**", "*.js", "x?", "docs"]
    lines = []
    for i in range(300):
        pattern = "/".join(rng.choice(segments) for _ in range(rng.randint(1, 4)))
        pattern = ("/" if rng.random() < 0.5 else "") + pattern + ("/" if rng.random() < 0.2 else "")
        lines.append(f"{pattern} @t{i}")
    rules = parse_github("\n".join(lines) + "\n")
    eager = [(re.compile(github_regex(r.pattern)), r) for r in rules.rules]
    for _ in range(500):
        path = "/".join(rng.choice(["a", "b", "src", "docs", "m.js", "x1", "y"]) for _ in range(rng.randint(1, 5)))
        want = next((list(r.owners) for rx, r in reversed(eager) if rx.search(path)), [])
        assert rules.owners_of(path) == want, path
