"""Keep secrets out of prompts: skip secret-bearing files, redact secret-looking spans.

Two layers, because they fail differently. A file named ``.env`` or ``id_rsa`` is a
secret as a whole, whatever its content looks like, so it is never indexed. A normal
source file may still hold a pasted key or token; those spans are replaced by
``[REDACTED:<rule>]`` before any text leaves ctxsel, and each one is reported (path,
line, rule) so a user can see what was hidden and fix the source.

Both lists are extendable per repository (``[secrets]`` in ``.ctxsel.toml`` or
``[tool.ctxsel.secrets]`` in pyproject.toml): ``exclude_files`` (globs),
``allow_files`` (globs exempted from the name rules, e.g. ``"*.key.example"``),
``patterns`` (``{name = "...", regex = "..."}``). The built-in rules cannot be
switched off by config: a repository cannot opt itself into leaking.
"""

from __future__ import annotations

import fnmatch
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .errors import Location, ParseError

# Matched against the file's base name and against its whole repo-relative path.
SECRET_FILE_GLOBS: tuple[str, ...] = (
    ".env", ".env.*", "*.env", ".envrc",
    "*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore", "*.p8", "*.ppk",
    "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*",
    ".netrc", "_netrc", ".npmrc", ".pypirc", ".git-credentials", ".htpasswd", ".pgpass",
    "credentials", "credentials.*", "*credentials*.json", "client_secret*.json",
    "service-account*.json", "*serviceaccount*.json",
    "secrets.*", "*.secrets", "*.tfstate", "*.tfstate.*", "*.tfvars",
    "*.kdbx", "*.gpg", ".dockercfg", ".docker/config.json", ".aws/credentials", ".ssh/*",
)

# (rule name, regex); group "secret" (when present) is the span replaced, else the whole match.
BUILTIN_PATTERNS: tuple[tuple[str, str], ...] = (
    ("private-key", r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)"),
    ("aws-access-key", r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}\b"),
    ("github-token", r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b"),
    ("gitlab-token", r"\bglpat-[A-Za-z0-9_\-]{20,}\b"),
    ("slack-token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}\b"),
    ("slack-webhook", r"https://hooks\.slack\.com/services/[A-Za-z0-9_/]{20,}"),
    ("google-api-key", r"\bAIza[0-9A-Za-z_\-]{35}\b"),
    ("stripe-key", r"\b(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{16,}\b"),
    ("openai-key", r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_\-]{32,}\b"),
    ("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("jwt", r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
    ("url-password", r"\b[a-z][a-z0-9+.\-]*://[^\s/:@'\"]+:(?P<secret>[^\s/@'\"]{3,})@"),
)

# name = "value" where the name says secret and the value looks random (checked in code).
_ASSIGNMENT = re.compile(
    r"""(?ix)
    # the whole name, taken atomically (lookahead + backreference): a regex that looks for the
    # keyword inside the name backtracks cubically on a line like "tokentokentoken..."
    (?=(?P<name>(?<![A-Za-z0-9_.\-])[A-Za-z0-9_.\-]+))(?P=name)
    ["']?\s*(?::=|=>|[:=])\s*
    (?P<quote>["'`]?)(?P<secret>[A-Za-z0-9+/=_\-.~!@#$%^&*]{6,})(?P=quote)
    """
)


_ASSIGNMENT_HINT = re.compile(r"(?i)passw|passphrase|pwd|secret|token|api[_\-]?key|apikey|access[_\-]?key|private[_\-]?key|auth[_\-]?key|credential")


@dataclass(frozen=True)
class Redaction:
    """One hidden span: where it was and which rule hid it (never the secret itself)."""

    path: str
    line: int
    rule: str
    end_line: int = 0  # last line the span touches (a private key spans many); 0 means ``line``

    def __post_init__(self) -> None:
        if self.end_line < self.line:
            object.__setattr__(self, "end_line", self.line)


@dataclass
class SecretRules:
    file_globs: tuple[str, ...] = SECRET_FILE_GLOBS
    allow_globs: tuple[str, ...] = ()
    patterns: list[tuple[str, re.Pattern[str]]] = field(default_factory=list)
    min_entropy: float = 3.0

    @classmethod
    def from_config(cls, table: dict[str, Any] | None = None, where: str = ".ctxsel.toml") -> "SecretRules":
        """Built-in rules plus a repository's ``[secrets]`` table."""
        table = table or {}
        extra_files = _str_list(table.get("exclude_files", []), "secrets.exclude_files", where)
        allow = _str_list(table.get("allow_files", []), "secrets.allow_files", where)
        compiled = [(name, re.compile(rx)) for name, rx in BUILTIN_PATTERNS]
        for i, item in enumerate(table.get("patterns", []) or []):
            if not isinstance(item, dict) or not isinstance(item.get("regex"), str):
                raise ParseError(f"secrets.patterns[{i}] needs a regex string", Location(where))
            try:
                compiled.append((str(item.get("name", f"custom-{i}")), re.compile(item["regex"])))
            except re.error as exc:
                raise ParseError(f"secrets.patterns[{i}]: bad regex: {exc}", Location(where)) from None
        return cls(SECRET_FILE_GLOBS + tuple(extra_files), tuple(allow), compiled)

    def __post_init__(self) -> None:
        if not self.patterns:
            self.patterns = [(name, re.compile(rx)) for name, rx in BUILTIN_PATTERNS]
        # one regex per glob list (fnmatch per glob per file was the slowest part of listing a repo)
        self._deny = _globs_regex(self.file_globs)
        self._allow = _globs_regex(self.allow_globs)

    # ------------------------------------------------------------ files
    def is_secret_file(self, path: str) -> bool:
        """True for files whose name says they hold secrets (repo-relative POSIX path)."""
        name = path.rsplit("/", 1)[-1]
        if self._allow is not None and _matches(self._allow, path, name):
            return False
        return self._deny is not None and _matches(self._deny, path, name)

    # ------------------------------------------------------------ spans
    def redact(self, text: str, path: str = "", first_line: int = 1) -> tuple[str, list[Redaction]]:
        """``text`` with secret-looking spans replaced, and where they were.

        ``first_line`` is the line number of ``text``'s first line in its file, so the
        report points at the file, not at the chunk.
        """
        spans: list[tuple[int, int, str]] = []
        for name, rx in self.patterns:
            for m in rx.finditer(text):
                start, end = _secret_span(m)
                if end > start:
                    spans.append((start, end, name))
        if _ASSIGNMENT_HINT.search(text):  # the full pattern is slow; most text never needs it
            for m in _ASSIGNMENT.finditer(text):
                if not _ASSIGNMENT_HINT.search(m.group("name")):
                    continue  # an assignment, but not to a password/secret/token/key name
                value = m.group("secret")
                if not m.group("quote") and (text[m.end():m.end() + 1] in ("(", "[")
                                             or re.fullmatch(r"[A-Za-z_$][A-Za-z_$]*", value)):
                    continue  # getPassword(user), tokens[i], an identifier: code, not a value
                # a quoted literal assigned to a password/secret is one, random-looking or not
                literal_password = bool(m.group("quote")) and _PASSWORD_NAME.search(m.group("name")) is not None
                if (literal_password and not _is_name(value)) or (len(value) >= 8 and _looks_random(value, self.min_entropy)):
                    spans.append((m.start("secret"), m.end("secret"), "secret-assignment"))
        if not spans:
            return text, []
        spans.sort(key=lambda s: (s[0], -s[1]))
        merged: list[tuple[int, int, str]] = []
        for s in spans:  # overlapping matches become one redaction (the first rule names it)
            if merged and s[0] < merged[-1][1]:
                prev = merged[-1]
                merged[-1] = (prev[0], max(prev[1], s[1]), prev[2])
            else:
                merged.append(s)
        out: list[str] = []
        found: list[Redaction] = []
        pos = 0
        for start, end, name in merged:
            out.append(text[pos:start])
            # keep the line count, so line numbers of the chunk stay true
            out.append(f"[REDACTED:{name}]" + "\n" * text.count("\n", start, end))
            found.append(Redaction(path, first_line + text.count("\n", 0, start), name,
                                   first_line + text.count("\n", 0, end - 1)))
            pos = end
        out.append(text[pos:])
        return "".join(out), found


def _secret_span(m: re.Match[str]) -> tuple[int, int]:
    if "secret" in m.re.groupindex and m.group("secret") is not None:
        return m.start("secret"), m.end("secret")
    return m.start(), m.end()


def _globs_regex(globs: tuple[str, ...]) -> tuple[re.Pattern[str] | None, re.Pattern[str] | None] | None:
    """(regex for base names, regex for whole paths): globs with a '/' match the path's tail."""
    names = [fnmatch.translate(g) for g in globs if "/" not in g]
    paths = [fnmatch.translate(g) for g in globs if "/" in g] + [fnmatch.translate("*/" + g) for g in globs if "/" in g]
    if not names and not paths:
        return None
    return (re.compile("|".join(names)) if names else None, re.compile("|".join(paths)) if paths else None)


def _matches(rx: tuple[re.Pattern[str] | None, re.Pattern[str] | None], path: str, name: str) -> bool:
    by_name, by_path = rx
    return bool((by_name is not None and by_name.match(name)) or (by_path is not None and by_path.match(path)))


def shannon_entropy(value: str) -> float:
    """Bits per character; random tokens score ~4-6, words and identifiers ~2.5-3.5."""
    if not value:
        return 0.0
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


_PASSWORD_NAME = re.compile(r"(?i)passw|passphrase|secret")


def _is_name(value: str) -> bool:
    """A dotted name (process.env.TOKEN), a plain word or a constant name ("changeme", "API_TOKEN")."""
    return bool(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+", value)
                or re.fullmatch(r"[a-z]+(?:[_\-][a-z]+)*|[A-Z]+(?:_[A-Z]+)*", value))


def _looks_random(value: str, min_entropy: float) -> bool:
    """A value that is a secret rather than code: random-looking, not a name or placeholder."""
    if _is_name(value):
        return False
    classes = sum(bool(re.search(rx, value)) for rx in (r"[a-z]", r"[A-Z]", r"[0-9]", r"[^A-Za-z0-9]"))
    return classes >= 2 and shannon_entropy(value) >= min_entropy


def _str_list(value: Any, key: str, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ParseError(f"{key} must be a list of strings", Location(where))
    return list(value)
