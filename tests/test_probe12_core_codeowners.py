"""A large GitLab CODEOWNERS parses fast: globs are translated and compiled on first use,
once per distinct glob, and the answers are those of eagerly compiled regexes.

Probe finding: a 30,000-rule GitLab file took seconds to parse, nearly all of it in
``re.compile`` of every rule, although ``ctxsel owners x`` then tests a handful of rules.
"""

from __future__ import annotations

import dataclasses
import random

from ctxsel.codeowners import CompiledRule, LazyRegex, RuleIndex, parse
from ctxsel.codeowners_gitlab import fnmatch_source, normalize_pattern

TEXT = """\
* @default
/docs/ @docs
*.md @writers
[Backend] @backend
/services/api/ @api
*.md @backend-writers
[Frontend]
/apps/web/ @web
*.md @frontend-writers
!/apps/web/vendor/
"""


def test_parse_compiles_nothing_and_a_question_compiles_only_its_candidates() -> None:
    owners = parse(TEXT, "gitlab")
    regexes = [c.regex for c in owners.index.compiled]
    assert all(isinstance(r, LazyRegex) and r._compiled is None for r in regexes)  # old code: every rule compiled
    assert owners.owners_of("apps/web/a.ts") == ["@default", "@web"]
    compiled = {r.text for r in regexes if r._compiled is not None}
    assert "**/*" in compiled and "apps/web/**/*" in compiled
    assert "services/api/**/*" not in compiled and "docs/**/*" not in compiled  # never offered by the index


def test_a_glob_repeated_in_sections_is_one_regex() -> None:
    owners = parse(TEXT, "gitlab")
    md = [c.regex for c in owners.index.compiled if c.rule.pattern == "*.md"]
    assert len(md) == 3 and md[0] is md[1] is md[2]


def test_lazy_answers_equal_eager_regexes_on_random_files() -> None:
    rng = random.Random(12)
    names = ["a", "b", "src", "docs", "x.md", "y.ts", ".hidden", "[x]"]
    segments = names + ["*", "**", "?", "*.md", "[ab]", "a*", "\\*"]
    for _ in range(60):
        lines = []
        for i in range(rng.randint(1, 25)):
            if rng.random() < 0.15:
                lines.append(f"[S{rng.randint(0, 3)}] @d{i}")
            pattern = rng.choice(["", "/"]) + "/".join(rng.choice(segments) for _ in range(rng.randint(1, 3)))
            pattern += rng.choice(["", "/"])
            lines.append(("!" + pattern) if rng.random() < 0.1 else f"{pattern} @o{i}")
        owners = parse("\n".join(lines) + "\n", "gitlab")
        eager = dataclasses.replace(
            owners,
            index=RuleIndex([CompiledRule(c.rule, LazyRegex(fnmatch_source(normalize_pattern(c.rule.pattern)[1:])), c.key)
                             for c in owners.index.compiled]),
            _section_order=None,
        )
        for _ in range(40):
            path = "/".join(rng.choice(names) for _ in range(rng.randint(1, 4)))
            assert owners.owners_of(path) == eager.owners_of(path), (lines, path)
