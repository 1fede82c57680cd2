"""Which chunk of a file goes first: past co-change edits (``cochange.added_lines``) and ``Fusion.prefer``."""

from __future__ import annotations

from ctxsel.cochange import added_lines, line_key
from ctxsel.ranking import Fusion, RankingConfig

PATCHES = (
    "\0\n"
    "diff --git a/src/a.ts b/src/a.ts\n"
    "index 1..2 100644\n"
    "--- a/src/a.ts\n"
    "+++ b/src/a.ts\n"
    "@@ -10,0 +11,2 @@ function f() {\n"
    "+  registerRule(noUnusedThing);\n"
    "+  });\n"
    "diff --git a/src/new.ts b/src/new.ts\n"
    "new file mode 100644\n"
    "--- /dev/null\n"
    "+++ b/src/new.ts\n"
    "@@ -0,0 +1,1 @@\n"
    "+export const brandNewThing = 1;\n"
    "\0\n"
    "diff --git a/src/a.ts b/src/a.ts\n"
    "--- a/src/a.ts\n"
    "+++ b/src/a.ts\n"
    "@@ -1,0 +2,4 @@\n"
    "+import { one } from './one';\n"
    "+import { two } from './two';\n"
    "+++ this line is content, not a header\n"
    "+  registerRule(noUnusedThing);\n"
)


def test_added_lines_weighs_each_commit_once_and_skips_created_files() -> None:
    lines = added_lines(PATCHES)
    assert set(lines) == {"src/a.ts"}  # src/new.ts was created by its commit: no evidence of where edits go
    a = lines["src/a.ts"]
    # commit 1 added one meaningful line ("});" is too generic); commit 2 added four
    assert a["registerRule(noUnusedThing);"] == 1.0 + 0.25
    assert a["import { one } from './one';"] == 0.25
    assert a["++ this line is content, not a header"] == 0.25
    assert "});" not in a


def test_line_key_drops_generic_lines() -> None:
    assert line_key("   });  ") is None
    assert line_key("") is None
    assert line_key("  return value;") == "return value;"


def _order(fusion: Fusion, chunks_of: dict[str, int]) -> list[tuple[str, int]]:
    return [r.ref for r in fusion.ranked(chunks_of)]


def test_prefer_reorders_inside_a_file_without_moving_the_file() -> None:
    cfg = RankingConfig()
    fusion = Fusion(cfg)
    fusion.add_chunks(1.0, [("a.ts", 0), ("b.ts", 0), ("a.ts", 1), ("b.ts", 3)], "BM25 rank {rank}")
    before = _order(fusion, {"a.ts": 4, "b.ts": 4})
    assert before[0] == ("a.ts", 0)
    fusion.prefer("a.ts", 3, "end of a test file")
    fusion.prefer("a.ts", 1, "ignored: a file keeps its first preference")
    after = _order(fusion, {"a.ts": 4, "b.ts": 4})
    assert after[0] == ("a.ts", 3)  # the preferred chunk takes the file's best place
    assert after.index(("b.ts", 0)) == before.index(("b.ts", 0))  # other files keep theirs
    assert ("a.ts", 0) in after  # the file's former best chunk is still offered
    fusion.prefer("c.ts", 0, "a file with no signal is not pulled in")
    assert all(ref[0] != "c.ts" for ref in _order(fusion, {"a.ts": 4, "b.ts": 4, "c.ts": 1}))


def test_the_query_pointing_into_a_file_beats_a_preference() -> None:
    fusion = Fusion(RankingConfig(prefer_unless_query_rank=1))
    fusion.add_chunks(1.0, [("a.ts", 2), ("b.ts", 0)], "BM25 rank {rank}", query=True)
    fusion.add_files(1.0, [("a.ts", 1, "changes with seed"), ("b.ts", 2, "changes with seed")])
    fusion.prefer("a.ts", 0, "history")  # a.ts's chunk 2 is the query's first hit: kept first
    fusion.prefer("b.ts", 1, "history")  # b.ts's best is the query's rank 2, beyond the limit: reordered
    order = _order(fusion, {"a.ts": 3, "b.ts": 3})
    firsts = {}
    for path, i in order:
        firsts.setdefault(path, i)
    assert firsts == {"a.ts": 2, "b.ts": 1}


def test_named_files_are_the_files_the_query_spells_out() -> None:
    from ctxsel.select import named_files

    paths = ["src/rules/no-deprecated.ts", "tests/rules/no-deprecated.test.ts", "src/rules/no-deprecated-x.ts",
             "src/Teleport.ts", "src/hydration.ts", "tests/hydration.spec.ts",
             "tests/prefer-self-closing-tags/cases.ts", "a/index.ts", "b/index.ts", "c/index.ts", "d/index.ts",
             "packages/core/lib/one.ts", "packages/core/lib/two.ts", "packages/core/lib/three.ts",
             "packages/core/lib/four.ts"]
    q = "fix(eslint-plugin): [no-deprecated] crash; see hydration.ts and fix(teleport) in index. (core)"
    assert named_files(q, paths) == {"src/rules/no-deprecated.ts", "tests/rules/no-deprecated.test.ts",
                                     "src/Teleport.ts", "src/hydration.ts", "tests/hydration.spec.ts"}
    # "index" is shared by four files, so it names none of them; "no-deprecated-x" is another name
    assert named_files("fix(prefer-self-closing-tags): slot", paths) == frozenset()
    assert named_files("fix(prefer-self-closing-tags): slot", paths, dir_files=3) == {"tests/prefer-self-closing-tags/cases.ts"}
    # a directory of many files (a package) is a topic, not a file
    assert named_files("fix(lib): x", paths, dir_files=3) == frozenset()
    assert named_files("", paths, dir_files=3) == frozenset()
    # a rule's name is shared by its source, test, docs page and snapshots: 5 files, one rule
    rule = ["src/rules/no-unused-vars.ts", "tests/rules/no-unused-vars.test.ts", "docs/rules/no-unused-vars.mdx",
            "tests/schema-snapshots/no-unused-vars.shot", "tests/docs-snapshots/no-unused-vars.shot"]
    assert named_files("fix: [no-unused-vars] crash", rule) == frozenset()
    assert named_files("fix: [no-unused-vars] crash", rule, max_sharing=6) == set(rule)


def test_slow_decay_lets_more_of_a_named_file_through() -> None:
    def order(decay: float | None) -> list[tuple[str, int]]:
        fusion = Fusion(RankingConfig(same_file_decay=0.6, rrf_k=1))
        fusion.add_chunks(1.0, [("named.ts", 0), ("named.ts", 1), ("other.ts", 0), ("named.ts", 2)], "BM25 rank {rank}")
        if decay is not None:
            fusion.slow_decay("named.ts", decay)
        fusion.slow_decay("other.ts", 0.1)  # never faster than same_file_decay
        return _order(fusion, {"named.ts": 3, "other.ts": 1})

    assert order(None) == [("named.ts", 0), ("other.ts", 0), ("named.ts", 1), ("named.ts", 2)]
    assert order(0.9) == [("named.ts", 0), ("named.ts", 1), ("other.ts", 0), ("named.ts", 2)]
    assert order(1.0)[:3] == [("named.ts", 0), ("named.ts", 1), ("other.ts", 0)]
