"""Path globs as regexes: the one translator behind Turborepo's global-file globs
(``affected.is_global``) and the JS workspace globs (``adapters.js.workspace``).

The tools disagree on a few details, so those are parameters, not copies:

- ``dot``: whether a wildcard at the start of a segment may match a leading ``.``
  (fast-glob/picomatch's ``dot`` option; pnpm and npm workspace globs say no, turbo's yes);
- ``classes``: how ``[...]`` reads (see ``CLASS_RULES``);
- ``globstar``: whether a whole ``**`` segment spans directories (a workspace walker
  handles ``**`` itself and hands over one segment at a time).

Braces are parsed once here too: ``glob_regex`` turns ``{a,b}`` into a regex alternation
(linear in the pattern, so ``{a,b}{c,d}...`` in a config file cannot explode), and
``expand_braces`` spells the alternatives out for a walker that lists directories per
alternative. Both use ``closing_brace``/``split_alternatives``.

Stdlib ``re`` only: this is imported on the CLI's change-set path.
"""

from __future__ import annotations

import re
from typing import Literal

#: ``[...]`` rules:
#: "escaped" -- Turborepo 2's ``globalDependencies`` (measured with turbo 2.11): the first
#: ``]`` closes the class, whose body is literal characters and ``a-z`` ranges; ``!`` or
#: ``^`` negates; a class never matches ``/``; a reversed range (``[z-a]``, ``[z-ab]``)
#: makes the class match nothing; an empty class (``[]``, ``[!]``) and a ``-`` that ends
#: the class or follows a range (``[a-]``, ``[a-c-e]``) are refused (``GlobError``: turbo
#: fails with "failed to parse glob expression");
#: "regex" -- the body up to the first ``]`` is a regex class (``!`` negates as ``^``);
#: a body Python's ``re`` rejects (``[]``, ``[z-a]``) leaves the ``[`` literal
#: (workspace globs: fast-glob/picomatch for pnpm, minimatch for npm, turbo's workspaces).
ClassRule = Literal["escaped", "regex"]
CLASS_RULES: tuple[ClassRule, ...] = ("escaped", "regex")


class GlobError(ValueError):
    """A glob the tool itself refuses to parse; the message says why."""


def glob_regex(pattern: str, *, dot: bool = True, classes: ClassRule = "escaped", globstar: bool = True) -> str:
    """A path glob as regex source, unanchored.

    ``*`` and ``?`` stay inside one segment (runs of ``*`` are one ``*``); with ``globstar``
    a whole ``**`` segment spans any number of directories, none included (``a/**/b``
    matches ``a/b``; a trailing ``**`` matches everything below); ``{a,b}`` is an
    alternation (nested braces too; an unclosed ``{`` is literal); ``\\x`` is a literal
    ``x``; a leading ``./`` is dropped. Without ``dot`` a segment that does not start
    with a literal ``.`` gets ``(?!\\.)``, so its wildcards skip dot-names; ``**`` spans
    dot-directories either way (as the workspace walkers' ``**`` does).
    """
    pattern = pattern.removeprefix("./")
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        at_segment_start = i == 0 or pattern[i - 1] == "/"
        if globstar and at_segment_start and pattern.startswith("**", i) and (i + 2 == n or pattern[i + 2] == "/"):
            if i + 2 == n:
                out.append(".*")
                i += 2
            else:
                out.append("(?:[^/]*/)*")
                i += 3
            continue
        c = pattern[i]
        if at_segment_start and not dot and c != ".":
            out.append(r"(?!\.)")
        if c == "*":
            out.append("[^/]*")
            while i + 1 < n and pattern[i + 1] == "*":
                i += 1
        elif c == "?":
            out.append("[^/]")
        elif c == "[" and (cls := _char_class(pattern, i, classes)) is not None:
            out.append(cls[0])
            i = cls[1]
        elif c == "{" and "}" in pattern[i:] and (end := closing_brace(pattern, i)) >= 0:
            alternatives = [
                glob_regex(alt, dot=dot, classes=classes, globstar=globstar)
                for alt in split_alternatives(pattern[i + 1:end])
            ]
            out.append("(?:" + "|".join(alternatives) + ")")
            i = end
        elif c == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 1
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def _char_class(pattern: str, start: int, rule: ClassRule) -> tuple[str, int] | None:
    """(regex, index of the closing ``]``) for the ``[`` at ``start``, or None when it is literal."""
    if rule == "escaped":
        end = pattern.find("]", start + 1)
        if end < 0:
            return None
        body = pattern[start + 1:end]
        negate = body[:1] in ("!", "^")
        body = body[1:] if negate else body
        items = _class_items(pattern[start:end + 1], body)
        if items is None:
            return "(?!)", end
        return f"(?!/)[{'^' if negate else ''}{''.join(items)}]", end
    end = pattern.find("]", start + 1)
    if end < 0:
        return None
    body = pattern[start + 1:end]
    if body.startswith("!"):
        body = "^" + body[1:]
    cls = "[" + body.replace("\\", "\\\\") + "]"
    try:
        re.compile(cls)
    except re.error:  # "[]", "[z-a]": no valid class, so the bracket is literal
        return None
    return cls, end


def _class_items(written: str, body: str) -> list[str] | None:
    """Regex items of an "escaped" class body, or None when a reversed range empties it."""
    if not body:
        raise GlobError(f"{written!r}: empty [ ] class")
    items: list[str] = []
    empty = False
    i, n = 0, len(body)
    while i < n:
        if i + 1 < n and body[i + 1] == "-":
            if i + 2 == n:
                raise GlobError(f"{written!r}: '-' ends the [ ] class")
            lo, hi = body[i], body[i + 2]
            if i + 3 < n and body[i + 3] == "-":
                raise GlobError(f"{written!r}: '-' right after a range")
            if lo > hi:
                empty = True
            else:
                items.append(f"{re.escape(lo)}-{re.escape(hi)}")
            i += 3
        else:
            items.append(re.escape(body[i]))
            i += 1
    return None if empty else items


def closing_brace(pattern: str, start: int, pair: str = "{}") -> int:
    """Index of the ``}`` closing the ``{`` at ``start`` (nesting counted), or -1.
    ``pair`` names other brackets: ``"()"`` for extglob groups."""
    opening, closing = pair
    depth = 0
    for j in range(start, len(pattern)):
        if pattern[j] == opening:
            depth += 1
        elif pattern[j] == closing:
            depth -= 1
            if depth == 0:
                return j
    return -1


def split_alternatives(body: str, sep: str = ",", pair: str = "{}") -> list[str]:
    """``a,b{c,d}`` -> ``["a", "b{c,d}"]``: ``sep`` at the top level only (``"|"``, ``"()"`` for extglob)."""
    opening, closing = pair
    parts, depth, current = [], 0, []
    for ch in body:
        if ch == sep and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        depth += ch == opening
        depth -= ch == closing
        current.append(ch)
    parts.append("".join(current))
    return parts


def expand_braces(pattern: str) -> list[str]:
    """``a/{b,c}/*`` -> ``a/b/*``, ``a/c/*`` (nested braces too; an unclosed ``{`` is literal).

    Each distinct expansion once, in the order the alternatives are written. Exponential in
    the number of brace groups, as the tools' own expansion is: for a walker that lists
    directories per alternative, not for matching (``glob_regex`` keeps braces as regex).
    """
    start = pattern.find("{")
    while start >= 0:
        end = closing_brace(pattern, start)
        if end >= 0:
            break
        start = pattern.find("{", start + 1)
    if start < 0:
        return [pattern]
    head, tail = pattern[:start], pattern[end + 1:]
    out: dict[str, None] = {}
    for alt in split_alternatives(pattern[start + 1:end]):
        out.update(dict.fromkeys(expand_braces(head + alt + tail)))
    return list(out)
