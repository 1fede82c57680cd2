"""GitLab's CODEOWNERS dialect, following GitLab's own parser (ee/lib/gitlab/code_owners).

What differs from GitHub, and why each rule is here:

- Sections: ``[Name]``, ``^[Name]`` (optional), ``[Name][2]`` (approvals) and
  ``[Name] @owner`` (default owners for bare paths below it). Every section is
  evaluated on its own and a file collects the owners of each section that matches
  it; rules before the first header form an unnamed section. Names compare without
  case and same-named sections merge (keeping the first spelling).
- Within a section the last matching pattern wins, and a pattern written twice keeps
  its first position with the later owners (GitLab stores entries in an ordered hash
  keyed by the normalised pattern).
- ``!pattern`` (GitLab 17.10+): a file matching any exclusion of a section gets no
  owners from that section, whatever the order.
- Patterns are ``File.fnmatch`` globs with FNM_PATHNAME | FNM_DOTMATCH against
  ``/path``: a pattern without a leading ``/`` gets ``/**/`` prepended (so
  ``internal/README.md`` matches at any depth), a trailing ``/`` becomes ``/**/*``,
  and ``/docs`` without the slash matches only a file called ``docs``.
- Owners are every ``@name``, ``@@role`` and e-mail address on the line (inline
  ``#`` comments are not comments to GitLab); other words are ignored with a warning.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .codeowners import (
    CodeOwners, CompiledRule, LazyRegex, Rule, RuleIndex, content_lines, pattern_key,
)
from .errors import Location
from .globs import RUBY_FNMATCH, glob_regex

HEADER = re.compile(
    r"^(?P<optional>\^)?\[(?P<name>.*?)\](?:\[(?P<approvals>\d*?)\])?(?P<default_owners>\s+[@\w_.\-/\s+]*)?",
    re.ASCII,
)
INVALID_HEADER = re.compile(r"^\^?\[[^\]]+?$")
ENTRY_SPLIT = re.compile(r"(?<!\\)\s+")

EMAIL = re.compile(r"[^@\s]{1,100}@[^@\s]{1,255}(?<!\W)", re.ASCII)
NAME = re.compile(r"(?<![\w@])@(?P<name>[A-Za-z0-9_.][A-Za-z0-9_.\-]*(?:/[A-Za-z0-9_.][A-Za-z0-9_.\-]*)*)", re.ASCII)
ROLE = re.compile(r"(?:^|(?<=\s))@@(?P<role>developer|maintainer|owner)s?(?=\s|$)", re.IGNORECASE)


def references(text: str) -> list[str]:
    """The owners GitLab reads from ``text``, in the order written."""
    return list(_references(text))


@lru_cache(maxsize=4096)
def _references(text: str) -> tuple[str, ...]:
    """``references``, cached: a large file names the same few teams on thousands of lines."""
    found: list[tuple[int, str]] = []
    for m in EMAIL.finditer(text):
        found.append((m.start(), m.group(0)))
    for m in NAME.finditer(text):
        name = m.group("name").rstrip(".")
        if name:
            found.append((m.start(), "@" + name))
    for m in ROLE.finditer(text):
        found.append((m.start(), "@@" + m.group("role").lower()))
    return tuple(dict.fromkeys(owner for _, owner in sorted(found)))


def normalize_pattern(pattern: str) -> str:
    """GitLab's ``normalize_pattern``: the glob actually matched against ``/path``."""
    if pattern == "*":
        return "/**/*"
    pattern = re.sub(r"\A\\#", "#", pattern)
    pattern = re.sub(r"\\\s+", " ", pattern)
    if not pattern.startswith("/"):
        pattern = "/**/" + pattern
    if pattern.endswith("/"):
        pattern += "**/*"
    return pattern


def fnmatch_regex(glob: str) -> re.Pattern[str]:
    """Ruby ``File.fnmatch?(glob, path, FNM_PATHNAME | FNM_DOTMATCH)`` as a compiled regex."""
    return re.compile(fnmatch_source(glob))


def fnmatch_source(glob: str) -> str:
    """``fnmatch_regex``'s source (``parse_gitlab`` compiles it lazily, once per distinct glob).

    ``globs.RUBY_FNMATCH``: ``*``/``?``/``[...]`` never match ``/``; ``**/`` at the start of
    a segment matches zero or more whole directories; ``\\`` escapes; an unclosed ``[``
    matches nothing.
    """
    return r"\A" + glob_regex(glob, dialect=RUBY_FNMATCH) + r"\Z"


def parse_gitlab(text: str, source: str = "CODEOWNERS") -> CodeOwners:
    """Parse GitLab syntax into rules, one ordered entry table per section."""
    sections: dict[str | None, dict[str, tuple[Rule, str]]] = {None: {}}
    warnings: list[str] = []
    current: str | None = None
    defaults = ""

    def warn(line_no: int, why: str) -> None:
        warnings.append(f"{Location(source, line_no)}: {why}")

    for line_no, line in content_lines(text):
        header = HEADER.match(line)
        if header:
            name = header.group("name")
            if not name:
                warn(line_no, "section header without a name")
            if header.group("optional") and int(header.group("approvals") or 0) > 0:
                warn(line_no, "an optional section (^[...]) cannot require approvals")
            defaults = header.group("default_owners") or ""
            if defaults.strip() and not references(defaults):
                warn(line_no, f"section default owners {defaults.strip()!r} name no @user, @group or e-mail")
            existing = next((k for k in sections if k is not None and k.casefold() == name.casefold()), None)
            current = existing if existing is not None else name
            sections.setdefault(current, {})
            continue
        if INVALID_HEADER.match(line):
            warn(line_no, f"unparsable section header {line!r}; GitLab reads it as a path")
        pattern, _, entry_owners = _partition(line)
        exclusion = pattern.startswith("!")
        if exclusion:
            pattern = pattern[1:]
            owners: tuple[str, ...] = ()
        else:
            bad = [t for t in entry_owners.split() if not references(t)]
            if bad:
                warn(line_no, f"{bad[0]!r} is not an owner (GitLab ignores it; inline comments are not supported)")
            owners_text = entry_owners if entry_owners.strip() else defaults
            owners = tuple(references(owners_text))
            if not owners:
                warn(line_no, "entry has no owners")
        normalized = normalize_pattern(pattern)
        rule = Rule(pattern, owners, line_no, current, exclusion)
        sections[current][normalized] = (rule, normalized)

    rules: list[Rule] = []
    compiled: list[CompiledRule] = []
    # one regex per distinct glob: sections repeat patterns ("*.md", "docs/"), and a
    # glob is translated and compiled only when a question first tests it (``LazyRegex``)
    regexes: dict[str, tuple[LazyRegex, tuple[str, str] | None]] = {}
    for entries in sections.values():
        for rule, normalized in entries.values():
            glob = normalized[1:]  # paths are matched without their leading '/'
            rules.append(rule)
            if glob not in regexes:
                regexes[glob] = (LazyRegex(glob, fnmatch_source), pattern_key(glob))
            regex, key = regexes[glob]
            compiled.append(CompiledRule(rule, regex, key))
    return CodeOwners(rules, "gitlab", source, warnings=warnings, index=RuleIndex(compiled))


def _partition(line: str) -> tuple[str, str, str]:
    """Ruby's ``line.partition(/(?<!\\\\)\\s+/)``: pattern, separator, owners text."""
    m = ENTRY_SPLIT.search(line)
    if not m:
        return line, "", ""
    return line[: m.start()], m.group(0), line[m.end():]
