"""The four reference baselines of the co-change protocol.

They exist to validate the harness (they must reproduce the figures of
``shared/bench/README.md``) and to give ctxsel's numbers a floor that needs no
knowledge of the build graph: plain BM25 over files, over 60-line windows,
over windows with the seed's vocabulary added, and random files of the seed's
package.  Tokenizer, BM25 parameters, candidate filter and packing follow the
protocol literally; change them only together with the reference figures.
"""
from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass, field
from typing import Callable, Iterable

from bench.materialize import Candidate

WINDOW_LINES = 60
BM25_K1 = 1.5
BM25_B = 0.75

# "A few English stop words".  The reference tokenizer's exact list is not
# published; this one was fitted to the reference runs' per-case packed token
# totals (sample-30.jsonl): adding "import", "if", "not" and "true" to
# the common English function words each made more cases' totals match exactly
# (docs/benchmarks.md reports the agreement).  Changing it moves every BM25
# baseline, so change it only with that check.
STOP_WORDS = frozenset(
    "the a an and or of to in on for with is are be this that it as at by from import if not true".split())

_WORD_RE = re.compile(r"[A-Za-z0-9_]+(?:-[A-Za-z0-9_]+)*")
_CAMEL_RE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def _keep(token: str) -> bool:
    return len(token) > 1 and token not in STOP_WORDS


def _identifier_tokens(ident: str, out: list[str]) -> None:
    parts = [p.lower() for piece in ident.split("_") for p in _CAMEL_RE.findall(piece)]
    out.extend(p for p in parts if _keep(p))
    if len(parts) > 1:
        whole = ident.lower()
        if _keep(whole):
            out.append(whole)


def tokenize(text: str) -> list[str]:
    """Code-aware tokens: split snake_case and camelCase, keep compounds whole too."""
    out: list[str] = []
    for match in _WORD_RE.finditer(text):
        word = match.group(0)
        if "-" in word:
            pieces = [p for p in word.split("-") if p]
            if len(pieces) > 1:
                whole = word.lower()
                if _keep(whole):
                    out.append(whole)
            for piece in pieces:
                _identifier_tokens(piece, out)
        else:
            _identifier_tokens(word, out)
    return out


def token_count(text: str) -> int:
    """The protocol's token estimate for baseline chunks: max(1, ceil(chars / 4))."""
    return max(1, math.ceil(len(text) / 4))


@dataclass
class Chunk:
    """A contiguous line range of one file, as packed by a method (1-based, inclusive)."""

    path: str
    start_line: int
    end_line: int
    tokens: int
    score: float
    text: str = field(default="", repr=False)


@dataclass
class Selection:
    """What a method returned for one budget: the packed chunks plus optional scope facts."""

    chunks: list[Chunk]
    reported_tokens: int | None = None
    scope_paths: list[str] | None = None
    scope_mode: str | None = None
    error: str | None = None
    seconds: float = 0.0


def split_lines(text: str) -> list[str]:
    """Lines with their terminators, numbered as git numbers them (on '\\n' only)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
        return [line + "\n" for line in lines]
    return [line + "\n" for line in lines[:-1]] + lines[-1:]


def windows(cand: Candidate, size: int = WINDOW_LINES) -> list[Chunk]:
    lines = split_lines(cand.text)
    chunks = []
    for start in range(0, max(len(lines), 1), size):
        text = "".join(lines[start:start + size])
        end = min(start + size, max(len(lines), 1))
        chunks.append(Chunk(cand.path, start + 1, end, token_count(text), 0.0, text))
    return chunks


def whole_file(cand: Candidate) -> Chunk:
    n = max(len(split_lines(cand.text)), 1)
    return Chunk(cand.path, 1, n, token_count(cand.text), 0.0, cand.text)


class TokenCache:
    """Token lists per (path, blob, line range), shared by the cases of one repository.

    Most files are identical between two parents of the same repository, so
    tokenising once per blob is what makes 30 cases of a 7,000-file repo cheap."""

    def __init__(self) -> None:
        self._tokens: dict[tuple[str, str, int, int], list[str]] = {}
        self._path_tokens: dict[str, list[str]] = {}

    def doc(self, cand: Candidate, chunk: Chunk) -> list[str]:
        key = (cand.path, cand.oid, chunk.start_line, chunk.end_line)
        toks = self._tokens.get(key)
        if toks is None:
            path_toks = self._path_tokens.get(cand.path)
            if path_toks is None:
                path_toks = self._path_tokens[cand.path] = tokenize(cand.path)
            toks = self._tokens[key] = path_toks + tokenize(chunk.text)
        return toks


def bm25_rank(docs: list[list[str]], query: list[str]) -> list[tuple[int, float]]:
    """(doc index, score) of the documents with a positive BM25 score, best first.

    bm25s 0.3.16, Lucene variant, k1=1.5, b=0.75, as the protocol fixes.  Ties
    keep corpus order so the ranking is deterministic."""
    import logging

    import bm25s  # heavy; imported only when a baseline runs

    logging.getLogger("bm25s").setLevel(logging.WARNING)
    if not docs or not query:
        return []
    retriever = bm25s.BM25(method="lucene", k1=BM25_K1, b=BM25_B)
    # bm25s cannot index an empty document list entry; an empty doc just never matches.
    retriever.index([d if d else [""] for d in docs], show_progress=False)
    ids = retriever.get_tokens_ids(query)
    if not ids:
        return []
    scores = retriever.get_scores_from_ids(ids)
    order = sorted(range(len(docs)), key=lambda i: (-float(scores[i]), i))
    return [(i, float(scores[i])) for i in order if scores[i] > 0]


def pack(ranked: Iterable[Chunk], budget: int) -> list[Chunk]:
    """Greedy packing in rank order; an item that does not fit is skipped, not a stop."""
    used, out = 0, []
    for chunk in ranked:
        if used + chunk.tokens <= budget:
            out.append(chunk)
            used += chunk.tokens
    return out


@dataclass
class CaseCorpus:
    """The candidate files of one case (seed removed) and their tokenised documents."""

    candidates: list[Candidate]
    seed: Candidate | None
    cache: TokenCache
    _files: tuple[list[Chunk], list[list[str]]] | None = None
    _windows: tuple[list[Chunk], list[list[str]]] | None = None

    def files(self) -> tuple[list[Chunk], list[list[str]]]:
        if self._files is None:
            chunks = [whole_file(c) for c in self.candidates]
            self._files = (chunks, [self.cache.doc(c, ch) for c, ch in zip(self.candidates, chunks)])
        return self._files

    def windows(self) -> tuple[list[Chunk], list[list[str]]]:
        if self._windows is None:
            chunks, docs = [], []
            for cand in self.candidates:
                for ch in windows(cand):
                    chunks.append(ch)
                    docs.append(self.cache.doc(cand, ch))
            self._windows = (chunks, docs)
        return self._windows

    def seed_tokens(self) -> list[str]:
        if self.seed is None:
            return []
        return list(dict.fromkeys(tokenize(self.seed.path) + tokenize(self.seed.text)))


def _ranked_chunks(chunks: list[Chunk], docs: list[list[str]], query: list[str]) -> list[Chunk]:
    ranked = []
    for i, score in bm25_rank(docs, query):
        ch = chunks[i]
        ranked.append(Chunk(ch.path, ch.start_line, ch.end_line, ch.tokens, score))
    return ranked


class BaselineRun:
    """Ranks once per case and method, then packs each budget from that ranking.

    Ranking does not depend on the budget, so one BM25 pass serves all four
    budgets; each budget is still packed independently (no truncation)."""

    def __init__(self, corpus: CaseCorpus, query: str, package_files: Callable[[], list[str]]):
        self.corpus = corpus
        self.query_tokens = tokenize(query)
        self.package_files = package_files
        self._ranked: dict[str, list[Chunk]] = {}

    def ranked(self, method: str, rng_key: str) -> list[Chunk]:
        if method not in self._ranked:
            self._ranked[method] = self._rank(method, rng_key)
        return self._ranked[method]

    def _rank(self, method: str, rng_key: str) -> list[Chunk]:
        if method == "bm25-file":
            return _ranked_chunks(*self.corpus.files(), self.query_tokens)
        if method == "bm25-chunk":
            return _ranked_chunks(*self.corpus.windows(), self.query_tokens)
        if method == "bm25-chunk+seed":
            return _ranked_chunks(*self.corpus.windows(), self.query_tokens + self.corpus.seed_tokens())
        if method == "random-same-package":
            allowed = set(self.package_files())
            files = [c for c in self.corpus.candidates if c.path in allowed]
            random.Random(rng_key).shuffle(files)
            out = []
            for rank, cand in enumerate(files):
                ch = whole_file(cand)
                out.append(Chunk(ch.path, ch.start_line, ch.end_line, ch.tokens, float(len(files) - rank)))
            return out
        raise KeyError(method)

    def select(self, method: str, budget: int, rng_key: str) -> Selection:
        chunks = pack(self.ranked(method, rng_key), budget)
        return Selection(chunks=chunks, reported_tokens=sum(c.tokens for c in chunks))


BASELINES: tuple[str, ...] = ("bm25-file", "bm25-chunk", "bm25-chunk+seed", "random-same-package")
