"""Path globs as regexes: the one translator behind every glob ctxsel matches.

Turborepo's global-file globs (``affected.is_global``), the JS workspace globs
(``adapters.js.workspace``), gitignore/``.ctxselignore`` rules (``files.IgnoreRules``),
GitLab CODEOWNERS (Ruby ``File.fnmatch``), Bazel's ``glob()`` and the secret-file and
manifest globs (Python ``fnmatch``) all go through ``glob_regex``. The tools disagree on
details, so those are the fields of a ``Dialect`` (one preset per tool below), not
copies of the translator:

- ``dot``: whether a wildcard at the start of a segment may match a leading ``.``
  (fast-glob/picomatch's ``dot`` option; pnpm and npm workspace globs say no, turbo's yes);
  ``lone_star_dot``: Bazel's exception, a segment that is just ``*`` matches dot-names;
- ``classes``: how ``[...]`` reads (see ``CLASS_RULES``);
- ``globstar``: how ``**`` spans directories: "segment" (a whole ``**`` segment anywhere;
  with ``star_runs`` a whole ``***`` too, as git reads it), "leading" (only ``**/`` at the
  start of a segment, as Ruby's ``File.fnmatch``: a trailing ``**`` is ``*``), "none"
  (``**`` is ``*``; a workspace walker handles ``**`` itself and hands over one segment at
  a time); ``globstar_after_prefix``: a ``**`` right after the pattern's literal start
  (up to the first ``*?[\\``) counts as starting a segment -- git's ``match_pathname``
  strips that start before ``wildmatch`` runs, so ``a**/b`` matches ``ab`` and ``ax/y/b``
  (measured, git 2.39); ``tail_parent``: a trailing ``/**`` also matches the directory
  before it (Bazel's directory matches);
- ``cross_slash``: ``*``, ``?`` and classes match ``/`` too (Python ``fnmatch``);
- ``escapes`` (``\\x`` is a literal ``x``) and ``trailing_backslash`` (what a ``\\`` that
  ends the pattern does); ``unclosed_class``: a ``[`` without its ``]`` is a literal ``[``
  or makes the whole pattern match nothing (git, Ruby);
- ``braces``: ``{a,b}`` alternation; ``strip_dot_slash``: a leading ``./`` is dropped.

Braces are parsed once here too: ``glob_regex`` turns ``{a,b}`` into a regex alternation
(linear in the pattern, so ``{a,b}{c,d}...`` in a config file cannot explode), and
``expand_braces`` spells the alternatives out for a walker that lists directories per
alternative. Both use ``closing_brace``/``split_alternatives``.

Stdlib only: this is imported on the CLI's change-set path.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, replace
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
#: (workspace globs: fast-glob/picomatch for pnpm, minimatch for npm, turbo's workspaces);
#: "wildmatch" -- git's ``wildmatch``: ``!``/``^`` negates, a ``]`` first is literal, ``\\``
#: escapes, ``[:alpha:]`` and the other POSIX classes, never ``/``; a reversed range
#: ``[z-a]`` matches ``z`` only (measured, git 2.39; see ``_wildmatch_class``);
#: "ruby" -- Ruby ``File.fnmatch``'s ``bracket()``: like wildmatch, but a reversed range
#: matches its two ends and there are no POSIX classes;
#: "fnmatch" -- Python's ``fnmatch`` (translated by ``fnmatch.translate`` itself, so exact by
#: construction): no escapes, may match ``/``, an unclosed ``[`` is literal;
#: "none" -- ``[`` is literal (Bazel's ``glob()``).
ClassRule = Literal["escaped", "regex", "wildmatch", "ruby", "fnmatch", "none"]
CLASS_RULES: tuple[ClassRule, ...] = ("escaped", "regex", "wildmatch", "ruby", "fnmatch", "none")


class GlobError(ValueError):
    """A glob the tool itself refuses to parse; the message says why."""


@dataclass(frozen=True)
class Dialect:
    """How one tool reads a path glob. Each field is a real difference between tools
    (the module docstring says which); the defaults are Turborepo's global-file globs."""

    dot: bool = True
    lone_star_dot: bool = False
    classes: ClassRule = "escaped"
    globstar: Literal["segment", "leading", "none"] = "segment"
    star_runs: bool = False
    globstar_after_prefix: bool = False
    tail_parent: bool = False
    cross_slash: bool = False
    escapes: bool = True
    trailing_backslash: Literal["literal", "drop", "never"] = "literal"
    unclosed_class: Literal["literal", "never"] = "literal"
    braces: bool = True
    strip_dot_slash: bool = True


#: gitignore / ``.ctxselignore`` patterns as git's ``wildmatch`` with ``WM_PATHNAME`` reads
#: them (the rule syntax around them -- ``!``, ``#``, anchoring, a trailing ``/`` -- is
#: ``files.IgnoreRules``'): ``**`` spans directories only as a whole segment (``x/a**b`` is
#: ``x/a*b``), ``***`` as a whole segment is ``**``, a trailing lone ``\`` matches nothing
#: (all measured with git 2.39).
GIT = Dialect(classes="wildmatch", star_runs=True, globstar_after_prefix=True, trailing_backslash="never",
              unclosed_class="never", braces=False, strip_dot_slash=False)
#: Ruby ``File.fnmatch?(glob, path, File::FNM_PATHNAME | File::FNM_DOTMATCH)`` (GitLab CODEOWNERS):
#: a lone ``\`` at the end escapes nothing and is dropped.
RUBY_FNMATCH = Dialect(classes="ruby", globstar="leading", trailing_backslash="drop", unclosed_class="never",
                       braces=False, strip_dot_slash=False)
#: The body of a GitHub CODEOWNERS pattern as hmarr/codeowners (the ``codeowners`` package) reads
#: it: ``**`` only as a whole segment, ``\\x`` a literal ``x``, no classes (GitHub refuses
#: ``[ ]``; ``codeowners.github_regex`` adds the anchoring around it).
GITHUB_CODEOWNERS = Dialect(classes="none", trailing_backslash="drop", braces=False, strip_dot_slash=False)
#: Bazel's ``glob()`` (UnixGlob): no escapes, classes or braces; ``*.txt`` skips ``.x.txt``, ``*`` does not.
BAZEL = Dialect(dot=False, lone_star_dot=True, classes="none", escapes=False, braces=False, strip_dot_slash=False)
#: Bazel's ``glob()`` matched against directories (``exclude_directories = 0``): ``d/**`` lists ``d``.
BAZEL_DIRS = replace(BAZEL, tail_parent=True)
#: Python's ``fnmatch.fnmatchcase``: ``*`` and ``?`` match any character, ``/`` included.
FNMATCH = Dialect(classes="fnmatch", globstar="none", cross_slash=True, escapes=False, braces=False,
                  strip_dot_slash=False)

_NEVER = "(?!)"
_GLOBSTAR_UNIT = "(?:[^/]*/)"  # a globstar repeats one whole directory
_group_names = itertools.count()  # first-fit groups need names unique in any regex they are joined into


class _NoMatch(Exception):
    """The whole pattern matches nothing (git and Ruby: an unclosed ``[``; git: a trailing ``\\``)."""


def glob_regex(pattern: str, *, dot: bool = True, classes: ClassRule = "escaped", globstar: bool = True,
               dialect: Dialect | None = None) -> str:
    """A path glob as regex source, unanchored, read as ``dialect`` says (without one:
    Turborepo's reading with the given ``dot``/``classes``/``globstar``).

    ``*`` and ``?`` stay inside one segment (runs of ``*`` are one ``*``) unless
    ``cross_slash``; a globstar spans any number of directories, none included (``a/**/b``
    matches ``a/b``; a trailing ``**`` matches everything below; ``**/**`` is ``**``);
    ``{a,b}`` is an alternation (nested braces too; an unclosed ``{`` is literal); ``\\x``
    is a literal ``x``; a leading ``./`` is dropped. Without ``dot`` a segment that does
    not start with a literal ``.`` gets ``(?!\\.)``, so its wildcards skip dot-names;
    ``**`` spans dot-directories either way (as the workspace walkers' ``**`` does).

    A star followed by fixed-width pattern and then the same star again takes the *first*
    place that pattern fits, atomically (a lookahead and a backreference, as
    ``fnmatch.translate`` does): the second star can still absorb whatever a later fit
    would have left it, so no match is lost, and ``*a*a*a*b`` cannot backtrack
    exponentially on a long name of ``a``s (one ignore-file line would hang every run).
    """
    if dialect is None:
        dialect = Dialect(dot=dot, classes=classes, globstar="segment" if globstar else "none")
    try:
        return _assemble(_pieces(pattern, dialect))
    except _NoMatch:
        return _NEVER


def _globstar_end(pattern: str, i: int, d: Dialect, literal_start: int = 0) -> int | None:
    """The index after the stars of a globstar segment starting at ``i``, or None when there is none.
    ``literal_start``: where the pattern's first wildcard is (``globstar_after_prefix``)."""
    if d.globstar == "none" or not pattern.startswith("**", i):
        return None
    if i and pattern[i - 1] != "/" and not (d.globstar_after_prefix and i == literal_start):
        return None
    j = i + 2
    while d.star_runs and j < len(pattern) and pattern[j] == "*":
        j += 1
    if d.globstar == "leading":
        return j if pattern.startswith("/", j) else None
    return j if j == len(pattern) or pattern[j] == "/" else None


def _pieces(pattern: str, d: Dialect) -> list[tuple[str, str]]:
    """The pattern as (kind, regex) pieces: "star" (the regex of one character the star
    repeats), "literal" (one character, escaped), "fixed" (other fixed-width pieces),
    "globstar" (a ``**/`` that spans whole directories) or "opaque" (a trailing globstar
    and brace groups)."""
    if d.strip_dot_slash:
        pattern = pattern.removeprefix("./")
    one = "(?s:.)" if d.cross_slash else "[^/]"
    out: list[tuple[str, str]] = []
    i, n = 0, len(pattern)
    literal_start = next((k for k, ch in enumerate(pattern) if ch in "*?[\\"), n)
    while i < n:
        at_segment_start = i == 0 or pattern[i - 1] == "/"
        j = _globstar_end(pattern, i, d, literal_start)
        if j is not None:
            while j < n and (k := _globstar_end(pattern, j + 1, d)) is not None:
                j = k  # "**/**" is "**"
            if j == n:
                if d.tail_parent and out and out[-1] == ("literal", "/"):
                    out[-1] = ("opaque", "(?:/.*)?")
                else:
                    out.append(("opaque", ".*"))
                i = j
            else:
                out.append(("globstar", _GLOBSTAR_UNIT))
                i = j + 1
            continue
        c = pattern[i]
        if at_segment_start and not d.dot and c != ".":
            lone_star = c == "*" and (i + 1 == n or pattern[i + 1] == "/")
            if not (d.lone_star_dot and lone_star):
                out.append(("fixed", r"(?!\.)"))
        if c == "*":
            out.append(("star", one))
            while i + 1 < n and pattern[i + 1] == "*":
                i += 1
        elif c == "?":
            out.append(("fixed", one))
        elif c == "[" and d.classes != "none" and (cls := _char_class(pattern, i, d.classes)) is not None:
            out.append(("fixed", cls[0]))
            i = cls[1]
        elif c == "[" and d.classes != "none" and d.unclosed_class == "never":
            raise _NoMatch  # git, Ruby: a "[" without its "]" fails the whole match
        elif c == "{" and d.braces and "}" in pattern[i:] and (end := closing_brace(pattern, i)) >= 0:
            alternatives = [_assemble(_pieces(alt, d)) for alt in split_alternatives(pattern[i + 1:end])]
            out.append(("opaque", "(?:" + "|".join(alternatives) + ")"))
            i = end
        elif c == "\\" and d.escapes:
            if i + 1 < n:
                out.append(("literal", re.escape(pattern[i + 1])))
                i += 1
            elif d.trailing_backslash == "never":
                raise _NoMatch
            elif d.trailing_backslash == "literal":
                out.append(("literal", re.escape(c)))
        else:
            out.append(("literal", re.escape(c)))
        i += 1
    return out


def literal_runs(pattern: str, dialect: Dialect) -> list[str]:
    """The runs of literal characters of ``pattern`` (outside braces): every text the
    pattern matches contains each of them, so an index can file a glob under one."""
    try:
        pieces = _pieces(pattern, dialect)
    except _NoMatch:
        return []
    runs: list[str] = []
    current: list[str] = []
    for kind, rx in pieces + [("end", "")]:
        if kind == "literal":
            current.append(rx[-1])  # re.escape of one character: the character, maybe after a "\\"
        elif current:
            runs.append("".join(current))
            current = []
    return runs


def _assemble(pieces: list[tuple[str, str]]) -> str:
    """Join the pieces, matching first-fit where a wildcard would otherwise backtrack.

    A star with fixed pieces and then the same star after them takes the first place the
    fixed pieces fit. So does a globstar followed by whole segments and another globstar
    (``**/a/**/a/**/c``): each segment has its own ``/``, so the run ends a fixed number of
    segments after where it starts, the earliest start gives the earliest end, and the next
    globstar absorbs the whole segments a later fit would have skipped. Without that, k
    globstars try every way to place k runs in a path and ``**/a/**/a/**/a/**/a/**/c`` takes
    seconds on a 28-directory path, minutes on a deeper one (measured).
    """
    out: list[str] = []
    k = 0
    while k < len(pieces):
        kind, rx = pieces[k]
        k += 1
        if kind == "globstar":
            end = next((e for e in range(k, len(pieces)) if pieces[e][0] in ("globstar", "opaque")), len(pieces))
            run = pieces[k:end]
            if run and end < len(pieces) and pieces[end][0] == "globstar" and run[-1] == ("literal", "/"):
                out.append(_first_fit(rx, _assemble(run)))
                k = end
            else:
                out.append(f"{rx}*")
            continue
        if kind != "star":
            out.append(rx)
            continue
        fixed: list[str] = []
        while k < len(pieces) and pieces[k][0] in ("fixed", "literal"):
            fixed.append(pieces[k][1])
            k += 1
        if fixed and k < len(pieces) and pieces[k] == (kind, rx):
            out.append(_first_fit(rx, "".join(fixed)))
        else:
            out.append(f"{rx}*" + "".join(fixed))
    return "".join(out)


def _first_fit(repeated: str, then: str) -> str:
    """``repeated*`` then ``then``, at the first place ``then`` fits, atomically (a lookahead
    and a backreference, as ``fnmatch.translate`` does): the caller makes sure the same
    wildcard follows, so it can absorb whatever a later fit would have left to it."""
    group = f"_g{next(_group_names)}"
    return f"(?=(?P<{group}>{repeated}*?{then}))(?P={group})"


def _char_class(pattern: str, start: int, rule: ClassRule) -> tuple[str, int] | None:
    """(regex, index of the closing ``]``) for the ``[`` at ``start``, or None when the rule
    cannot read it (unclosed; for "regex" and "escaped" also invalid): see ``unclosed_class``."""
    if rule == "wildmatch":
        return _wildmatch_class(pattern, start)
    if rule == "ruby":
        return _ruby_class(pattern, start)
    if rule == "fnmatch":
        return _fnmatch_class(pattern, start)
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
    cls = _python_class(body)
    if cls is None:  # "[]", "[z-a]": no valid class, so the bracket is literal
        return None
    return cls, end


def _python_class(body: str) -> str | None:
    """``[body]`` as Python's ``re`` reads it with every character literal (``\\`` too), each
    member re-written escaped; None where ``re`` refuses the class (empty, a reversed range).

    Read step by step as ``re._parser`` does (a leading ``^`` negates; ``x-y`` is a range; a
    ``-`` before the end is literal) rather than handed to ``re`` as written: written as is,
    ``[[:alpha:]``, ``a&&b`` or ``a--`` make Python print "FutureWarning: Possible nested set"
    (a later Python may read them as nested sets); escaped, they keep today's meaning."""
    negate = body.startswith("^")
    members, i = [], int(negate)
    if i == len(body):
        return None
    while i < len(body):
        low = body[i]
        if body[i + 1:i + 2] == "-" and i + 2 < len(body):
            high = body[i + 2]
            if high < low:
                return None
            members.append(f"{re.escape(low)}-{re.escape(high)}")
            i += 3
        else:
            members.append(re.escape(low))
            i += 1
    return "[" + "^" * negate + "".join(members) + "]"


_POSIX_CLASSES = {
    "alnum": "a-zA-Z0-9", "alpha": "a-zA-Z", "blank": " \\t", "cntrl": "\\x00-\\x1f\\x7f", "digit": "0-9",
    "graph": "!-~", "lower": "a-z", "print": " -~", "punct": "!-/:-@\\[-`{-~", "space": " \\t\\n\\r\\f\\v",
    "upper": "A-Z", "xdigit": "0-9A-Fa-f",
}


def _wildmatch_class(glob: str, i: int) -> tuple[str, int] | None:
    """git's bracket expression at ``glob[i] == "["`` as a regex, and the index of its "]".

    Step by step as ``wildmatch.c`` reads it: ``!`` or ``^`` negates; the first character
    (after the negation) is never the closing ``]``; ``\\`` escapes; each character is a
    member on its own *before* a following ``-x`` makes it a range, so a reversed range
    ``[z-a]`` matches ``z`` (measured, git 2.39); after a range or a ``[:class:]`` a ``-``
    is literal; ``[:alpha:]`` and the other POSIX classes work, an unknown one makes the
    whole pattern match nothing; no bracket matches ``/``. None when there is no closing ``]``.
    """
    n = len(glob)
    p = i + 1
    negated = p < n and glob[p] in "!^"
    if negated:
        p += 1
    items: list[str] = []
    prev = ""  # wildmatch's prev_ch: the character a "-" would start a range from
    first = True
    while True:
        if p >= n:
            return None
        c = glob[p]
        if c == "]" and not first:
            break
        first = False
        if c == "\\":
            p += 1
            if p >= n:
                return None
            items.append(re.escape(glob[p]))
            prev = glob[p]
        elif c == "-" and prev and p + 1 < n and glob[p + 1] != "]":
            p += 1
            hi = glob[p]
            if hi == "\\":
                p += 1
                if p >= n:
                    return None
                hi = glob[p]
            if prev <= hi:
                items.append(f"{re.escape(prev)}-{re.escape(hi)}")
            prev = ""
        elif c == "[" and glob.startswith("[:", p):
            close = glob.find("]", p + 2)
            if close < 0:
                return None
            if close - (p + 2) < 1 or glob[close - 1] != ":":  # no ":]": the "[" is a member
                items.append(re.escape(c))
                prev = c
            else:
                name = glob[p + 2:close - 1]
                if name not in _POSIX_CLASSES:
                    raise _NoMatch  # git: a malformed [:class:] aborts the match
                items.append(_POSIX_CLASSES[name])
                prev = ""
                p = close
        else:
            items.append(re.escape(c))
            prev = c
        p += 1
    body = "".join(items)
    return (f"[^/{body}]" if negated else f"(?!/)[{body}]"), p


def _ruby_class(glob: str, start: int) -> tuple[str, int] | None:
    """Ruby's ``bracket()`` at ``glob[start] == "["``: (regex, index of its "]").

    A ``]`` right after ``[`` (or ``[!``) closes it; ``a-z`` is a range (a reversed
    one, ``z-a``, matches its two ends); ``\\`` escapes; the class never matches ``/``.
    """
    n = len(glob)
    i = start + 1
    negate = i < n and glob[i] in "!^"
    if negate:
        i += 1
    items: list[str] = []
    while True:
        if i >= n:
            return None
        if glob[i] == "]":
            break
        if glob[i] == "\\":
            i += 1
            if i >= n:
                return None
        lo = glob[i]
        i += 1
        if i + 1 < n and glob[i] == "-" and glob[i + 1] != "]":
            i += 1
            if glob[i] == "\\":
                i += 1
                if i >= n:
                    return None
            hi = glob[i]
            i += 1
            if lo <= hi:
                items.append(f"{_class_char(lo)}-{_class_char(hi)}")
            else:  # Ruby matches just the two ends of a reversed range
                items += [_class_char(lo), _class_char(hi)]
            continue
        items.append(_class_char(lo))
    if not items:  # "[]" matches no character, "[!]" any one but '/'
        return ("[^/]" if negate else "(?!)"), i
    return f"(?!/)[{'^' if negate else ''}{''.join(items)}]", i


def _class_char(c: str) -> str:
    """One character inside a Python ``[...]``, escaped when it could mean more."""
    return "\\" + c if c in "\\]^-[&~|" else c


def _fnmatch_class(glob: str, start: int) -> tuple[str, int] | None:
    """Python ``fnmatch``'s class at ``glob[start] == "["``, translated by ``fnmatch.translate``
    itself (its rules for ``-``, reversed ranges and set operators are the stdlib's); None
    when there is no closing ``]`` (then the ``[`` is literal)."""
    import fnmatch

    j = start + 1
    if j < len(glob) and glob[j] == "!":
        j += 1
    if j < len(glob) and glob[j] == "]":
        j += 1
    j = glob.find("]", j)
    if j < 0:
        return None
    translated = fnmatch.translate(glob[start:j + 1])  # "(?s:[...])\Z"
    m = re.fullmatch(r"(\(\?s:.*\))\\[Zz]", translated, re.S)
    if m is None:  # pragma: no cover - a future fnmatch with another wrapper
        raise RuntimeError(f"unexpected fnmatch.translate output {translated!r}")
    return m.group(1), j


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
