"""Fit the best chunks into a token budget that is never exceeded, and render them.

Greedy by fused score: take the next chunk if it fits, else skip it and try the next
(a large chunk must not block several small ones). A chunk next to or overlapping one
already taken from the same file is merged into it (one block, one header), and a
chunk already covered is dropped as a duplicate. Each block costs its lines plus its
markdown header and fences, so the rendered markdown fits the budget too.

Token counts are ``tokenize.count_tokens`` (a conservative estimate, never below
``ceil(chars / 4)``). A block's ``tokens`` describe its *original* lines — the larger
of the count before and after secret redaction — so nobody can claim a block is
smaller than the lines it names.

Secrets are redacted per *file*, once, and each block is sliced from the redacted lines:
a secret spanning several lines (a private key) is only recognisable whole, and a block
may start or end inside it. A block reports every redaction whose span overlaps it.
"""

from __future__ import annotations

import re

from dataclasses import dataclass, field
from typing import Callable, Iterable

from .secrets import Redaction, SecretRules
from .render import quote_path
from .tokenize import count_tokens


@dataclass
class Candidate:
    path: str
    start_line: int
    end_line: int
    score: float
    reasons: list[str] = field(default_factory=list)
    scope: str = ""
    tokens_hint: int = 0  # the index's count for these lines: lets a too-big chunk be skipped unread


@dataclass
class Block:
    """One packed span of one file."""

    path: str
    start_line: int
    end_line: int
    tokens: int  # lines only
    score: float
    reasons: list[str]
    text: str  # redacted
    language: str = ""
    scope: str = ""
    overhead: int = 0  # header + fences in markdown
    redactions: list[Redaction] = field(default_factory=list)


@dataclass
class Packed:
    budget: int
    tokens: int  # everything rendered: blocks + their headers
    blocks: list[Block]
    dropped: int  # candidates examined that did not fit (the ranking is lazy: the rest are never pulled)
    duplicates: int
    redactions: list[Redaction]


LineReader = Callable[[str], "list[str] | None"]


def header_line(path: str, start: int, end: int, scope: str = "") -> str:
    where = f"line {start}" if start == end else f"lines {start}\u2013{end}"
    tail = f" \u00b7 {scope[:80]}" if scope else ""
    return f"### {quote_path(path)} \u00b7 {where}{tail}"


def fence_for(text: str) -> str:
    """A code fence the text cannot close: longer than any backtick run in it (CommonMark
    closes a fence with a run at least as long), and at least three."""
    longest = max((len(run) for run in re.findall(r"`{3,}", text)), default=0)
    return "`" * max(3, longest + 1)


def block_overhead(path: str, start: int, end: int, language: str, scope: str = "", fence: str = "```") -> int:
    """Tokens of a block's header and fences: priced with the fence ``render_markdown`` will use
    (``fence_for`` of the block's final text), so the rendered markdown costs exactly what was counted."""
    return count_tokens(f"{header_line(path, start, end, scope)}\n{fence}{language}\n\n{fence}\n\n")


@dataclass
class _RedactedFile:
    lines: list[str]
    redacted: list[str]  # same length as ``lines``: redaction keeps the line count
    redactions: list[Redaction]


def _redact_file(path: str, lines: list[str] | None, rules: SecretRules) -> _RedactedFile | None:
    """The whole file redacted at once: the only place packing looks for secrets."""
    if lines is None:
        return None
    original = "\n".join(lines)
    text, found = rules.redact(original, path)
    redacted = lines if text is original else text.split("\n")
    if len(redacted) != len(lines):  # line numbers would no longer be true: fail closed, emit nothing
        return None
    return _RedactedFile(lines, redacted, found)


def pack_chunks(
    candidates: Iterable[Candidate],
    budget: int,
    read_lines: LineReader,
    rules: SecretRules | None = None,
    language_of: Callable[[str], str] = lambda p: "",
    max_examined: int = 20000,
    patience: int = 1000,
) -> Packed:
    """Choose blocks for ``budget`` tokens (hard limit) from candidates in priority order.

    Stops after ``patience`` candidates in a row that did not fit: with a few tokens left,
    the rest of a 14,000-chunk ranking would otherwise be walked (and small chunks' files
    read) for a 6-token tail block.
    """
    rules = rules or SecretRules()
    blocks: list[Block] = []
    by_file: dict[str, list[Block]] = {}
    used = 0
    dropped = duplicates = 0
    file_cache: dict[str, _RedactedFile | None] = {}  # read and redacted once per path
    min_cost = 8  # no block (header + fence + one line) costs less

    def redacted_file(path: str) -> _RedactedFile | None:
        if path not in file_cache:
            file_cache[path] = _redact_file(path, read_lines(path), rules)
        return file_cache[path]

    def make(path: str, start: int, end: int, score: float, reasons: list[str], scope: str) -> Block | None:
        f = redacted_file(path)
        if f is None or start < 1 or end > len(f.lines) or end < start:
            return None
        original = "\n".join(f.lines[start - 1:end])
        text = "\n".join(f.redacted[start - 1:end])
        found = [r for r in f.redactions if r.line <= end and r.end_line >= start]
        # counted with the last line's terminator: the lines a reader sizes include it
        tokens = max(count_tokens(original + "\n"), count_tokens(text + "\n"), 1)
        lang = language_of(path)
        scope, _ = rules.redact(scope)  # a scope is a line of the file: it is redacted too
        fence = fence_for(text)
        return Block(path, start, end, tokens, score, list(reasons), text, lang, scope,
                     block_overhead(path, start, end, lang, scope, fence), found)

    misses = 0
    for n, cand in enumerate(candidates):
        if n >= max_examined or budget - used < min_cost or misses >= patience:
            break
        misses += 1  # reset below when the candidate is taken
        mine = by_file.setdefault(cand.path, [])
        if any(b.start_line <= cand.start_line and cand.end_line <= b.end_line for b in mine):
            duplicates += 1
            continue
        touching = [b for b in mine if cand.start_line <= b.end_line + 1 and cand.end_line >= b.start_line - 1]
        if touching:
            start = min([cand.start_line] + [b.start_line for b in touching])
            end = max([cand.end_line] + [b.end_line for b in touching])
            reasons = list(dict.fromkeys(r for b in touching for r in b.reasons))
            reasons += [r for r in cand.reasons if r not in reasons]
            score = max([cand.score] + [b.score for b in touching])
            scope = touching[0].scope if all(b.scope == touching[0].scope for b in touching) and touching[0].scope == cand.scope else ""
            merged = make(cand.path, start, end, score, reasons, scope)
            if merged is None:
                continue
            freed = sum(b.tokens + b.overhead for b in touching)
            if used - freed + merged.tokens + merged.overhead > budget:
                dropped += 1
                continue
            used = used - freed + merged.tokens + merged.overhead
            for b in touching:
                mine.remove(b)
                blocks.remove(b)
            mine.append(merged)
            blocks.append(merged)
            misses = 0
            continue
        if cand.tokens_hint and used + cand.tokens_hint + block_overhead(
                cand.path, cand.start_line, cand.end_line, language_of(cand.path)) > budget:
            # cannot fit even with the shortest header it could get: skip without reading the file
            # (a nearly full budget otherwise reads every small chunk's file in the repository)
            dropped += 1
            continue
        block = make(cand.path, cand.start_line, cand.end_line, cand.score, cand.reasons, cand.scope)
        if block is None:
            continue
        if used + block.tokens + block.overhead > budget:
            dropped += 1
            continue
        used += block.tokens + block.overhead
        mine.append(block)
        blocks.append(block)
        misses = 0

    blocks.sort(key=lambda b: -b.score)  # stable: equal scores keep the order they were chosen in
    # one span can overlap two blocks of a file (a long key between them): reported once
    redactions = list(dict.fromkeys(r for b in blocks for r in b.redactions))
    if used > budget:  # the invariant every caller relies on; unreachable by construction
        raise RuntimeError(f"packing exceeded the budget: {used} > {budget}")
    return Packed(budget, used, blocks, dropped, duplicates, redactions)


def render_markdown(packed: Packed) -> str:
    """Most relevant first: a ``### path · lines a–b`` header and a fenced block per chunk."""
    parts: list[str] = []
    for b in packed.blocks:
        fence = fence_for(b.text)
        parts.append(f"{header_line(b.path, b.start_line, b.end_line, b.scope)}\n{fence}{b.language}\n{b.text}\n{fence}\n")
    return "\n".join(parts)
