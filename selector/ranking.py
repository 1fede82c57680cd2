"""Fuse what each signal says about a chunk into one ordering (weighted reciprocal-rank fusion).

Why RRF: the signals speak different units — BM25 scores, cosine similarities,
commit counts, graph distances — and RRF needs only each signal's *ranking*:
``score(c) = sum_s w_s / (k + rank_s(c))``. A chunk ranked high by several signals
wins; one loud signal cannot drown the others. ``k = 60`` is the value from the
original RRF paper and the usual default.

Signals come in two grains. Chunk-level lists rank chunks (BM25 over the query, BM25
over the seed's identifiers, the dense leg, definitions of names the query or seed
mention). File-level lists rank files (co-change with the seed, import edges,
same directory/package, graph distance): every chunk of a listed file receives the
file's contribution, and the chunk-level lists decide which of its chunks go first.

All weights live in ``RankingConfig``; the benchmark sweeps them through
``--weights '{"bm25": 1.2}'``, the ``CTXSEL_WEIGHTS`` environment variable, or
``[ranking]`` in the repository config.
"""

from __future__ import annotations

import heapq
import json
import math
import os
from dataclasses import dataclass, field, fields
from typing import Any, Iterable, Iterator, Mapping

from .errors import UserError

ChunkRef = tuple[str, int]  # (path, chunk number in the file)


@dataclass
class RankingConfig:
    """Every knob of the ranking, with the value used when nobody sets it."""

    rrf_k: float = 60.0
    # chunk-level lists
    bm25: float = 2.5  # BM25 over chunks, query = the user's query (2.5: bench.select_sweep on held-out cases)
    seed_terms: float = 0.3  # BM25 over chunks, query = the seed's defined names and file stem
    seed_text: float = 0.5  # BM25 over chunks, query = every distinct term of the seed (path and text)
    dense: float = 0.5  # embedding similarity (only when --dense and an embedder is available)
    definitions: float = 0.5  # chunk defines a name the query mentions
    seed_definitions: float = 0.4  # chunk defines a name the seed uses
    # file-level lists
    cochange: float = 1.0  # changed together with the seed in recent commits
    cochange_confidence: float = 1.0  # ...in at least cochange_min_confidence of its commits, min_support times
    imports: float = 0.8  # imports the seed, or is imported by it
    same_dir: float = 0.5  # in the seed's directory
    same_package: float = 0.3  # in the seed's build package / workspace package
    graph: float = 0.3  # graph distance to the changed nodes (blast radius and deps)
    # which chunk of a file goes first (switches: on when > 0)
    prefer_history: float = 1.0  # the chunk holding most lines past commits added while changing the seed
    prefer_test_tail: float = 1.0  # the last chunk of a test file linked to the seed (new cases go last)
    prefer_unless_query_rank: int = 20  # ...unless the query's BM25 ranks one of the file's chunks this high
    # shaping
    same_file_decay: float = 0.7  # each chunk already taken from a file multiplies the next one's score
    named_file_decay: float = 0.95  # ...for a file the query names (`[no-deprecated]`, `fix(Teleport)`)
    named_dirs: int = 3  # a directory the query names names its files too, if it holds at most this many
    named_max_sharing: int = 6  # a stem shared by more files than this (`index`, `utils`) names none of them
    non_code_factor: float = 0.25  # docs, JSON, YAML, plain text: their fused score is multiplied by this (0.25: four held-out samples)
    test_factor: float = 1.0  # tests (by path convention)
    max_candidates: int = 3000  # chunks kept per chunk-level list
    dense_pool: int = 150  # --dense re-ranks this many of the best chunks by the other signals
    file_chunks: int = 2  # a file found only by file-level signals offers its first N chunks
    cochange_commits: int = 300  # how far back co-change history looks (commits touching the seed)
    cochange_min_support: int = 2  # commits a strong co-change needs at least
    cochange_min_confidence: float = 0.2  # share of the seed's commits a strong co-change needs at least
    cochange_max_files: int = 50  # commits touching more files than this are ignored (mass edits)

    @classmethod
    def names(cls) -> list[str]:
        return [f.name for f in fields(cls)]

    def updated(self, overrides: Mapping[str, Any], where: str = "--weights") -> "RankingConfig":
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        for key, value in overrides.items():
            if key not in values:
                raise UserError(f"{where}: unknown ranking weight {key!r}",
                                hint="known: " + ", ".join(self.names()))
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                raise UserError(f"{where}: {key} must be a number")
            if not math.isfinite(value) or value < 0 or (key == "rrf_k" and value == 0):
                # inf/NaN break the JSON output, a negative rrf_k divides by zero
                raise UserError(f"{where}: {key} must be a finite number "
                                + ("above 0" if key == "rrf_k" else "of at least 0") + f", not {value}")
            values[key] = type(values[key])(value)
        return RankingConfig(**values)

    @classmethod
    def resolve(cls, config_table: Mapping[str, Any] | None = None, weights_json: str | None = None,
                where: str = "[ranking] in .ctxsel.toml") -> "RankingConfig":
        """Defaults, then ``[ranking]`` from the repo config (``where``), then CTXSEL_WEIGHTS, then --weights."""
        cfg = cls()
        if config_table:
            cfg = cfg.updated(config_table, where)
        for source, text in (("CTXSEL_WEIGHTS", os.environ.get("CTXSEL_WEIGHTS")), ("--weights", weights_json)):
            if text:
                try:
                    data = json.loads(text)
                except json.JSONDecodeError as exc:
                    raise UserError(f"{source}: not JSON: {exc}") from None
                if not isinstance(data, dict):
                    raise UserError(f"{source}: must be a JSON object of name: number")
                cfg = cfg.updated(data, source)
        return cfg


@dataclass
class Ranked:
    """A candidate chunk with its fused score and the reasons that put it there."""

    ref: ChunkRef
    score: float
    reasons: list[str] = field(default_factory=list)


class Fusion:
    """Collects ranked lists, then scores chunks: ``sum w / (k + rank)``."""

    def __init__(self, config: RankingConfig) -> None:
        self.config = config
        self.scores: dict[ChunkRef, float] = {}
        self.reasons: dict[ChunkRef, list[tuple[float, str]]] = {}
        self.file_scores: dict[str, float] = {}
        self.file_reasons: dict[str, list[tuple[float, str]]] = {}
        self.preferred: dict[str, tuple[int, str]] = {}  # file -> (chunk to show first, why)
        self.query_ranks: dict[ChunkRef, int] = {}  # rank of each chunk in the user's query's own list
        self.decay_of: dict[str, float] = {}  # files whose chunks are diversified less (``slow_decay``)

    def prefer(self, path: str, chunk: int, why: str) -> None:
        """Show ``chunk`` first among ``path``'s chunks, without moving the file in the ranking —
        unless the query itself points into the file (one of its chunks is among the query's
        best ``prefer_unless_query_rank``): what the user asked about beats what history suggests."""
        self.preferred.setdefault(path, (chunk, why))

    def add_chunks(self, weight: float, ranked: Iterable[ChunkRef], label: str, query: bool = False) -> None:
        """A chunk-level list, best first; ``label`` is formatted with the 1-based rank.

        ``query``: the list ranks chunks for the user's query itself (see ``prefer``).
        """
        if weight <= 0:
            return
        for rank, ref in enumerate(ranked, start=1):
            if rank > self.config.max_candidates:
                break
            if query:
                self.query_ranks.setdefault(ref, rank)
            gain = weight / (self.config.rrf_k + rank)
            self.scores[ref] = self.scores.get(ref, 0.0) + gain
            self.reasons.setdefault(ref, []).append((gain, label.format(rank=rank)))

    def add_files(self, weight: float, ranked: Iterable[tuple[str, float, str]]) -> None:
        """A file-level list of (path, rank, reason); equal ranks are ties."""
        if weight <= 0:
            return
        for path, rank, reason in ranked:
            gain = weight / (self.config.rrf_k + rank)
            self.file_scores[path] = self.file_scores.get(path, 0.0) + gain
            self.file_reasons.setdefault(path, []).append((gain, reason))

    def slow_decay(self, path: str, decay: float) -> None:
        """Let more of ``path``'s chunks through (``decay`` instead of ``same_file_decay``): for a file
        that is very likely what the change is about, its other chunks beat other files' first ones."""
        if decay > self.decay_of.get(path, self.config.same_file_decay):
            self.decay_of[path] = decay

    def ranked(self, chunks_of: Mapping[str, int], factor_of: Mapping[str, float] | None = None) -> Iterator[Ranked]:
        """Every chunk with any signal, best first, diversified across files (lazily: the
        packer stops pulling once the budget is full).

        ``chunks_of`` maps each candidate file to its chunk count; files outside it
        (out of scope, or the seed) never appear.
        """
        total: dict[ChunkRef, float] = {}
        for ref, s in self.scores.items():
            if ref[0] in chunks_of:
                total[ref] = s
        scored_chunks: dict[str, list[int]] = {}
        for path, i in total:
            scored_chunks.setdefault(path, []).append(i)
        for path, s in self.file_scores.items():
            n = chunks_of.get(path)
            if not n:
                continue
            # the file's signal lifts the chunks that chunk-level lists found (so the chunk that
            # matches goes first, not the import header); a file found only by file-level
            # signals offers its first ``file_chunks`` chunks — not all 200 of a long file
            found = scored_chunks.get(path)
            for i in found if found else range(min(n, self.config.file_chunks)):
                total[(path, i)] = total.get((path, i), 0.0) + s * (1.0 if i == 0 else 0.999)
        if self.preferred:
            best: dict[str, float] = {}
            for (path, _), s in total.items():
                if path in self.preferred and s > best.get(path, 0.0):
                    best[path] = s
            for (path, _), rank in self.query_ranks.items():
                if rank <= self.config.prefer_unless_query_rank:
                    best.pop(path, None)  # the query found this file's chunk: keep the query's choice
            for path, (i, why) in self.preferred.items():
                if path in best and i < chunks_of.get(path, 0):
                    total[(path, i)] = best[path] * 1.000001
                    self.reasons.setdefault((path, i), []).append((best[path], why))
        if factor_of:
            for ref in total:
                f = factor_of.get(ref[0], 1.0)
                if f != 1.0:
                    total[ref] *= f
        for ref, score in diversify(total, self.config.same_file_decay, self.decay_of):
            why = sorted(self.reasons.get(ref, []) + self.file_reasons.get(ref[0], []), key=lambda r: -r[0])
            yield Ranked(ref, score, [r for _, r in why])


def diversify(scores: Mapping[ChunkRef, float], decay: float,
              decay_of: Mapping[str, float] | None = None) -> Iterator[tuple[ChunkRef, float]]:
    """Greedy order where each chunk already taken from a file discounts that file's next ones.

    Why: file recall rewards covering many relevant files, and a long file that matches
    everywhere would otherwise fill the budget alone. A lazy heap keeps it O(n log n).
    """
    heap = [(-s, ref, 0) for ref, s in scores.items()]
    heapq.heapify(heap)
    taken: dict[str, int] = {}
    while heap:
        neg, ref, seen = heapq.heappop(heap)
        count = taken.get(ref[0], 0)
        if count != seen:  # the file gained chunks since this entry was scored: rescore, retry
            d = decay_of.get(ref[0], decay) if decay_of else decay
            heapq.heappush(heap, (-(scores[ref] * d ** count), ref, count))
            continue
        taken[ref[0]] = count + 1
        yield ref, -neg


def rank_files(counts: Mapping[str, float], reason: str) -> list[tuple[str, float, str]]:
    """Turn {path: strength} into ranks, strongest first; ties share their block's mean rank.

    Why the mean ("fractional ranking"): 150 files in the seed's directory are not each
    the best match; giving all of them rank 1 would let a weak signal outvote BM25.
    """
    ordered = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    out: list[tuple[str, float, str]] = []
    i = 0
    while i < len(ordered):
        j = i
        while j < len(ordered) and ordered[j][1] == ordered[i][1]:
            j += 1
        rank = (i + 1 + j) / 2  # mean of ranks i+1 .. j
        # ``{s}``: the plural ending, for reasons counting things ("in 1 commit", "in 12 commits")
        out.extend((p, rank, reason.format(value=_fmt(v), s="" if v == 1 else "s")) for p, v in ordered[i:j])
        i = j
    return out


def _fmt(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:.2f}"
