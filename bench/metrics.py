"""Scoring one method's selection against one case, and averaging over cases.

Per case and budget: file recall (headline), hunk recall, R@5, R@10, MRR,
tokens, over-budget, scope recall and a token-honesty check.  Means are plain
means over cases per repository, then a plain mean over repositories, exactly
as the protocol states, so each repository weighs the same whatever its size.
"""
from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from typing import Callable, Iterable

from bench.baselines import Chunk, Selection

METRICS: tuple[str, ...] = ("recall", "hunk_recall", "r@5", "r@10", "mrr", "tokens",
                            "over_budget", "scope_recall")
# A claimed token count below this fraction of ceil(chars/4) of the claimed lines
# is implausible for any real tokenizer on source code: it would mean more than
# 8 characters per token.
HONEST_TOKEN_RATIO = 0.5


@dataclass
class CaseTruth:
    seed: str
    targets: list[str]
    hunks: dict[str, list[tuple[int, int]]]


def ranked_files(chunks: list[Chunk], seed: str) -> list[str]:
    """Distinct files by chunk score (desc), output order breaking ties, seed skipped."""
    order = sorted(range(len(chunks)), key=lambda i: (-chunks[i].score, i))
    seen: dict[str, None] = {}
    for i in order:
        path = chunks[i].path
        if path != seed and path not in seen:
            seen[path] = None
    return list(seen)


def _overlaps(chunk: Chunk, ranges: list[tuple[int, int]]) -> bool:
    return any(chunk.start_line <= hi and lo <= chunk.end_line for lo, hi in ranges)


def score(selection: Selection, truth: CaseTruth, budget: int,
          line_chars: Callable[[str, int, int], int | None] | None = None) -> dict:
    """The metrics of one selection; `line_chars(path, a, b)` sizes claimed lines for the honesty check."""
    chunks = selection.chunks
    targets = truth.targets
    n = len(targets) or 1
    touched = {c.path for c in chunks}
    recall = sum(t in touched for t in targets) / n
    hunk_hits = 0
    for t in targets:
        mine = [c for c in chunks if c.path == t]
        ranges = truth.hunks.get(t) or []
        if mine and (not ranges or any(_overlaps(c, ranges) for c in mine)):
            hunk_hits += 1
    files = ranked_files(chunks, truth.seed)
    first = next((i for i, f in enumerate(files) if f in targets), None)
    tokens = max(selection.reported_tokens or 0, sum(c.tokens for c in chunks))
    out = {
        "recall": recall,
        "hunk_recall": hunk_hits / n,
        "r@5": sum(f in targets for f in files[:5]) / n,
        "r@10": sum(f in targets for f in files[:10]) / n,
        "mrr": 0.0 if first is None else 1.0 / (first + 1),
        "tokens": tokens,
        "over_budget": int(tokens > budget),
        "scope_recall": None,
        "n_chunks": len(chunks),
    }
    if selection.scope_paths is not None:
        scope = set(selection.scope_paths)
        out["scope_recall"] = sum(t in scope for t in targets) / n
    if line_chars is not None and chunks:
        ratios = []
        for c in chunks:
            chars = line_chars(c.path, c.start_line, c.end_line)
            if chars:
                ratios.append(c.tokens / max(1, math.ceil(chars / 4)))
        if ratios:
            out["token_ratio_min"] = round(min(ratios), 3)
            out["token_suspect_chunks"] = sum(r < HONEST_TOKEN_RATIO for r in ratios)
    return out


def mean(values: Iterable[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def summarize(case_rows: list[dict], budgets: Iterable[int],
              where: Callable[[dict], bool] = lambda row: True) -> dict:
    """{repo: {method: {budget: {metric: mean, "n": cases}}}} plus a plain mean over repos under "mean".

    Methods that were unavailable or failed on a case are left out of that
    case's means (and counted in "errors") rather than scored as zero."""
    budgets = [str(b) for b in budgets]
    per_repo: dict = defaultdict(lambda: defaultdict(dict))
    by_repo: dict[str, list[dict]] = defaultdict(list)
    for row in case_rows:
        if where(row):
            by_repo[row["repo"]].append(row)
    methods = sorted({m for row in case_rows for m in row["methods"]})
    for repo, rows in by_repo.items():
        for method in methods:
            for b in budgets:
                cells = [r["methods"][method].get(b) for r in rows if method in r["methods"]]
                ok = [c for c in cells if isinstance(c, dict) and "recall" in c]
                if not cells:
                    continue
                agg = {m: mean(c.get(m) for c in ok) for m in METRICS if m != "over_budget"}
                agg["over_budget"] = sum(c["over_budget"] for c in ok)
                agg["n"] = len(ok)
                agg["errors"] = len(cells) - len(ok)
                per_repo[repo][method][b] = agg
    overall: dict = defaultdict(dict)
    for method in methods:
        for b in budgets:
            all_cells = [per_repo[r][method][b] for r in per_repo if b in per_repo[r].get(method, {})]
            cells = [c for c in all_cells if c["n"]]
            if not cells:
                continue
            agg = {m: mean(c[m] for c in cells) for m in METRICS if m != "over_budget"}
            agg["over_budget"] = sum(c["over_budget"] for c in cells)
            agg["n"] = sum(c["n"] for c in cells)
            agg["repos"] = len(cells)
            agg["errors"] = sum(c["errors"] for c in all_cells)
            overall[method][b] = agg
    result = {repo: {m: dict(v) for m, v in per.items()} for repo, per in per_repo.items()}
    result["mean"] = {m: dict(v) for m, v in overall.items()}
    return result
