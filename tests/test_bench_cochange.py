"""Smoke form of the co-change benchmark (the full run is `python -m bench.cochange`, see docs/benchmarks.md).

A generated three-commit pnpm workspace is mined with the real miner from the
shared directory, then run end to end: checkout at the parent, seed choice,
every baseline (and ctxsel when its `select` command exists), metrics, report.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import write_tree as _write

from bench import baselines, cochange, ctxsel_method, metrics, protocol, report
from bench.baselines import Chunk, Selection
from bench.materialize import Checkout

REPO = "test/mini"
MINER = protocol.bench_dir() / "mine_cochange.py"
needs_shared = pytest.mark.skipif(not MINER.is_file(), reason=f"shared bench dir absent ({MINER})")

LEXER_V1 = "export function lex(input: string): string[] {\n  return input.split(' ')\n}\n"
PARSER_V1 = ("import { lex } from './lexer'\n\n"
             + "".join(f"export function rule{i}(x: number): number {{\n  return x + {i}\n}}\n" for i in range(40))
             + "export function parse(input: string) {\n  return lex(input)\n}\n")
RENDER_V1 = ("export function render(tree: unknown): string {\n  return JSON.stringify(tree)\n}\n"
             + "".join(f"export const colour{i} = 'c{i}'\n" for i in range(30)))


def _git(cwd: Path, *args: str, date: str = "2024-01-01T00:00:00Z") -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.com",
           "GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "ada@example.com",
           "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date, "GIT_CONFIG_GLOBAL": os.devnull,
           "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True,
                          text=True, timeout=30).stdout


def make_mini_repo(root: Path) -> Path:
    """pnpm workspace with packages alpha/beta/gamma; commit 2 is the one co-change case."""
    repo = root / "test+mini"
    repo.mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    _write(repo, {
        "package.json": '{"name": "mini", "private": true}\n',
        "pnpm-workspace.yaml": "packages:\n  - 'packages/*'\n",
        "packages/alpha/package.json": '{"name": "@mini/alpha"}\n',
        "packages/alpha/src/lexer.ts": LEXER_V1,
        "packages/alpha/src/parser.ts": PARSER_V1,
        "packages/beta/package.json": '{"name": "@mini/beta"}\n',
        "packages/beta/src/render.ts": RENDER_V1,
        "packages/gamma/package.json": '{"name": "@mini/gamma"}\n',
        "packages/gamma/src/zebraQuokka.ts": "export function zebraQuokkaFrobnicate(n: number) {\n  return n * 2\n}\n",
    })
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "initial workspace", date="2024-01-01T00:00:00Z")
    # Case: the message names an identifier that only gamma's file contains -> trivially findable.
    _write(repo, {
        "packages/alpha/src/parser.ts": PARSER_V1.replace("return lex(input)", "return lex(input).map(zebraQuokkaFrobnicate)")
        + "export const extra1 = 1\nexport const extra2 = 2\nexport const extra3 = 3\n",
        "packages/gamma/src/zebraQuokka.ts": "export function zebraQuokkaFrobnicate(n: number) {\n  return n * 3\n}\n",
    })
    _git(repo, "commit", "-q", "-am", "Triple in zebraQuokkaFrobnicate and use it in the parser",
         date="2024-01-02T00:00:00Z")
    # Not a case: one source file (the README is not source).
    _write(repo, {"packages/beta/src/render.ts": RENDER_V1 + "export const colour99 = 'c99'\n",
                  "README.md": "colours\n"})
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "Add a colour", date="2024-01-03T00:00:00Z")
    return repo


@pytest.fixture(scope="module")
def mini(tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("bench")
    repo = make_mini_repo(root / "mirror")
    cases = root / "cases"
    cases.mkdir()
    subprocess.run([sys.executable, str(MINER), "--repo", str(repo / ".git"), "--repo-name", REPO,
                    "--out", str(cases / "test+mini.jsonl")], check=True, capture_output=True, timeout=60)
    return {"root": root, "repo": repo, "cases": cases}


@needs_shared
def test_end_to_end_smoke(mini):
    out = mini["root"] / "results.json"
    methods = "baselines" + ("" if ctxsel_method.unavailable_reason() else ",ctxsel")
    rc = cochange.main(["--repos", REPO, "--sample", "0", "--methods", methods,
                        "--mirror", str(mini["root"] / "mirror"), "--cases-dir", str(mini["cases"]),
                        "--work", str(mini["root"] / "work"), "--out", str(out), "--no-merge",
                        "--budgets", "4000,32000"])  # two budgets keep the ctxsel calls few
    assert rc == 0
    results = json.loads(out.read_text())
    rows = {r["sha"]: r for r in results["cases"]}
    assert len(rows) == 1
    for row in rows.values():
        assert row["seed"] not in row["targets"]
        for method, cells in row["methods"].items():
            if "unavailable" in cells:
                continue
            for budget, cell in cells.items():
                assert "error" not in cell, (method, cell)
                for key in ("recall", "hunk_recall", "r@5", "r@10", "mrr"):
                    assert 0.0 <= cell[key] <= 1.0, (method, budget, key)
                assert cell["over_budget"] == 0 and cell["tokens"] <= int(budget)
    zebra = next(r for r in rows.values() if r["targets"] == ["packages/gamma/src/zebraQuokka.ts"]
                 or r["seed"] == "packages/gamma/src/zebraQuokka.ts")
    # parser.ts gains the most lines, so it is the seed and gamma's file is the target.
    assert zebra["seed"] == "packages/alpha/src/parser.ts"
    for budget in ("4000", "32000"):
        assert zebra["methods"]["bm25-file"][budget]["recall"] == 1.0
        assert zebra["methods"]["bm25-chunk"][budget]["mrr"] == 1.0
    assert results["summary"]["mean"]["bm25-chunk"]["4000"]["n"] == 1
    if "ctxsel" in zebra["methods"] and ctxsel_method._explains_scope():
        assert zebra["methods"]["ctxsel"]["4000"]["scope_recall"] is not None

    doc = mini["root"] / "docs" / "benchmarks.md"
    doc.parent.mkdir()
    doc.write_text("# Benchmarks\n\n## Speed\n\nkept\n")
    assert report.main(["--results", str(out), "--doc", str(doc)]) == 0
    text = doc.read_text()
    assert "## Speed\n\nkept" in text and "## Retrieval (co-change)" in text
    assert (doc.parent / "img" / "cochange-test+mini.png").stat().st_size > 1000
    report.main(["--results", str(out), "--doc", str(doc)])  # idempotent: one section, not two
    assert doc.read_text().count(report.START) == 1


@needs_shared
def test_checkout_is_at_parent_with_nothing_later_reachable(mini, tmp_path):
    log = _git(mini["repo"], "log", "--format=%H").split()
    head, parent = log[0], log[1]
    co = Checkout(REPO, mini["repo"] / ".git", tmp_path)
    path = co.materialize(parent)
    assert _git(path, "rev-parse", "HEAD").strip() == parent
    reachable = _git(path, "log", "--all", "--reflog", "--format=%H").split()
    assert head not in reachable and parent in reachable
    assert "colour99" not in (path / "packages/beta/src/render.ts").read_text()
    co.materialize(head)  # reuse the same work tree for the next case
    assert "colour99" in (path / "packages/beta/src/render.ts").read_text()


@needs_shared
def test_hunks_count_pure_insertions_as_the_two_surrounding_lines(mini):
    log = _git(mini["repo"], "log", "--format=%H").split()
    ranges = protocol.changed_ranges(mini["repo"] / ".git", log[1], log[0], ["packages/beta/src/render.ts"])
    n = RENDER_V1.count("\n")
    assert ranges["packages/beta/src/render.ts"] == [(n, n + 1)]
    parser = "packages/alpha/src/parser.ts"
    ranges = protocol.changed_ranges(mini["repo"] / ".git", log[2], log[1], [parser])
    assert ranges[parser] == [(124, 124), (125, 126)]  # the edited line, then lines appended after 125


def test_tokenizer_splits_identifiers_and_keeps_compounds():
    toks = baselines.tokenize("Fix getUserName in no-unused-vars for HTTPServer_v2 of the x")
    assert {"get", "user", "name", "getusername", "no-unused-vars", "unused", "vars",
            "http", "server", "httpserver_v2"} <= set(toks)
    assert not {"the", "of", "for", "x", "in"} & set(toks)


def test_pack_skips_items_that_do_not_fit_and_continues():
    items = [Chunk("a", 1, 1, 60, 3.0), Chunk("b", 1, 1, 50, 2.0), Chunk("c", 1, 1, 30, 1.0)]
    assert [c.path for c in baselines.pack(items, 90)] == ["a", "c"]
    assert baselines.token_count("") == 1 and baselines.token_count("abcde") == 2


def test_ranking_metrics_sort_by_score_keep_output_order_for_ties_and_skip_the_seed():
    chunks = [Chunk("seed.ts", 1, 9, 10, 9.0), Chunk("x.ts", 1, 9, 10, 1.0),
              Chunk("t1.ts", 1, 9, 10, 5.0), Chunk("y.ts", 1, 9, 10, 5.0), Chunk("t1.ts", 20, 30, 10, 4.0)]
    truth = metrics.CaseTruth("seed.ts", ["t1.ts", "t2.ts"], {"t1.ts": [(25, 26)], "t2.ts": [(1, 1)]})
    cell = metrics.score(Selection(chunks, reported_tokens=45), truth, 50)
    assert metrics.ranked_files(chunks, "seed.ts") == ["t1.ts", "y.ts", "x.ts"]
    assert cell["recall"] == 0.5 and cell["hunk_recall"] == 0.5 and cell["mrr"] == 1.0
    assert cell["tokens"] == 50 and cell["over_budget"] == 0
    over = metrics.score(Selection(chunks, reported_tokens=10), truth, 40)  # the chunk sum counts
    assert over["over_budget"] == 1


def test_reference_figures_are_parsed_from_the_protocol_readme():
    ref = report.reference_figures()
    if not ref:
        pytest.skip("shared bench README absent")
    assert ref[("mean", "bm25-chunk")]["R@4k"] == pytest.approx(0.701)
    assert len({repo for repo, _ in ref}) == 6


def test_merge_keeps_methods_that_were_not_rerun():
    old = [{"repo": "o/n", "sha": "a", "methods": {"bm25-file": {"4000": {"recall": 1.0}}}},
           {"repo": "o/n", "sha": "b", "methods": {"bm25-file": {}}}]
    new = [{"repo": "o/n", "sha": "a", "methods": {"ctxsel": {"4000": {"recall": 0.5}}}}]
    merged = cochange.merge_rows(old, new)
    assert [r["sha"] for r in merged] == ["a", "b"]
    assert set(merged[0]["methods"]) == {"bm25-file", "ctxsel"}


def test_find_mirror_accepts_a_bare_clone_named_owner_plus_name(tmp_path):
    from bench.materialize import find_mirror

    subprocess.run(["git", "init", "-q", "--bare", str(tmp_path / "o+n.git")], check=True, timeout=30)
    assert find_mirror("o/n", [tmp_path]) == tmp_path / "o+n.git"
    assert find_mirror("o/other", [tmp_path]) is None


@needs_shared
def test_a_work_tree_in_use_by_another_run_fails_fast(mini, tmp_path):
    code = ("import sys; from pathlib import Path; from bench.materialize import Checkout; "
            f"c = Checkout('{REPO}', Path(sys.argv[1]), Path(sys.argv[2])); c.materialize('HEAD'); "
            "print('locked', flush=True); sys.stdin.read()")
    holder = subprocess.Popen([sys.executable, "-c", code, str(mini["repo"] / ".git"), str(tmp_path)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                              cwd=protocol.repo_root())
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(RuntimeError, match="in use by another benchmark run"):
            Checkout(REPO, mini["repo"] / ".git", tmp_path).materialize("HEAD")
    finally:
        holder.communicate("", timeout=30)


def test_cases_of_other_monorepos_come_from_a_cases_dir(tmp_path):
    _write(tmp_path, {"acme+mono.jsonl": json.dumps({"repo": "acme/mono", "sha": "a" * 40}) + "\n"})
    path = protocol.cases_file("acme/mono", tmp_path)
    assert path == tmp_path / "acme+mono.jsonl"
    assert protocol.load_cases("acme/mono", path)[0]["sha"] == "a" * 40
    assert protocol.cases_file("vuejs/core") == protocol.bench_dir() / "cases" / "vuejs+core.jsonl"
