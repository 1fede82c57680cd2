"""REPO.bazel's ``ignore_directories``: directories no package comes from.

Bazel 7.6 and 8 read a ``REPO.bazel`` at the repository root; its
``ignore_directories(["**/node_modules", ...])`` hides every directory whose
repository-relative path matches one of the patterns the way ``glob()`` matches, exactly
as ``.bazelignore`` hides the directories it lists. Bazel 4.2.3, the oracle here, never
reads the file, but a repository that has one is queried with a Bazel that does. Without
it ctxsel loaded packages the user's ``bazel query //...`` never sees: the BUILD files
that installed npm packages ship under ``node_modules`` are the usual case, and a load of
theirs from a repository ctxsel cannot read turns into warnings about code the user
does not build. ``repo()``'s package defaults change no dependency edge, so only the
patterns are read.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from ctxsel.cache import InputTracker
from ctxsel.errors import Location, ParseError
from ctxsel.globs import BAZEL_DIRS, glob_regex

from .starlark import parse
from .starlark_values import EvalError

REPO_FILE = "REPO.bazel"


@dataclass(frozen=True)
class IgnoredDirectories:
    """The directory patterns of REPO.bazel, as one regex over repository-relative paths."""

    patterns: tuple[str, ...] = ()
    regex: re.Pattern[str] | None = None

    @classmethod
    def of(cls, patterns: list[str]) -> "IgnoredDirectories":
        if not patterns:
            return cls()
        # directory regexes: a trailing ``**`` also matches the directory itself, as in glob()
        source = "|".join(f"(?:{glob_regex(p.strip('/'), dialect=BAZEL_DIRS)})" for p in patterns)
        return cls(tuple(patterns), re.compile(source))

    def ignores(self, rel_dir: str) -> bool:
        """Whether Bazel skips the directory ``rel_dir`` (and so everything below it)."""
        return self.regex is not None and self.regex.fullmatch(rel_dir) is not None


def ignored_directories(root: Path, tracker: InputTracker) -> IgnoredDirectories:
    """Read the ``ignore_directories`` calls of ``root/REPO.bazel`` (none: nothing ignored).

    A file Bazel cannot read fails every package of the repository there, so it is a
    user error naming the line, not a silent "ignore nothing".
    """
    path = root / REPO_FILE
    if not (tracker.exists(path) and path.is_file()):
        return IgnoredDirectories()
    try:
        tree = parse(tracker.read_text(path), REPO_FILE)
    except EvalError as exc:
        raise ParseError(exc.message, Location(REPO_FILE, exc.line)) from None
    patterns: list[str] = []
    for stmt in tree.body:
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "ignore_directories"):
            continue
        patterns.extend(_string_list(call, stmt.lineno))
    return IgnoredDirectories.of(patterns)


def _string_list(call: ast.Call, line: int) -> list[str]:
    """The one positional (or ``dirs =``) argument, a literal list of strings."""
    args = list(call.args) + [k.value for k in call.keywords if k.arg == "dirs"]
    if len(args) != 1 or len(call.args) + len(call.keywords) != 1:
        raise ParseError("ignore_directories() takes one argument, the list of directory patterns", Location(REPO_FILE, line))
    try:
        value = ast.literal_eval(args[0])
    except ValueError:
        value = None
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise ParseError("ignore_directories() needs a list of strings (ctxsel reads only literal ones)", Location(REPO_FILE, line))
    return list(value)
