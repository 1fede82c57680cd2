"""The one error path: what a user did wrong vs what ctxsel did wrong.

A ``UserError`` becomes exit code 2 and one to three lines on stderr naming the file
(and line) at fault; anything else is an internal error (exit 1, traceback only with
``--debug``). Adapters raise these instead of printing, so the CLI, the Python API and
the MCP server all report the same message.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Iterable


class CtxselError(Exception):
    """Base of every error ctxsel raises on purpose."""


@dataclass
class Location:
    path: str
    line: int | None = None

    def __str__(self) -> str:
        return f"{self.path}:{self.line}" if self.line else self.path


class UserError(CtxselError):
    """Bad input: exit code 2. ``location`` names the file (and line) at fault."""

    exit_code = 2

    def __init__(self, message: str, location: Location | str | None = None, hint: str | None = None):
        if isinstance(location, str):
            location = Location(location)
        self.message = message
        self.location = location
        self.hint = hint
        # what the graph warned about before the error: often its cause ("unknown package"
        # after a workspace glob that reached outside the repository); printed before it
        self.warnings: list[str] = []
        super().__init__(self.render())

    def render(self) -> str:
        head = f"{self.location}: {self.message}" if self.location else self.message
        return head + (f"\n  hint: {self.hint}" if self.hint else "")


class ParseError(UserError):
    """A manifest (BUILD, package.json, YAML, CODEOWNERS) that cannot be read."""


class UnknownTargetError(UserError):
    """A label or package name that is not in the graph; carries close matches."""

    def __init__(self, spec: str, candidates: Iterable[str], what: str = "target"):
        matches = suggest(spec, candidates)
        hint = ("did you mean: " + ", ".join(matches)) if matches else None
        super().__init__(f"unknown {what} {spec!r}", hint=hint)
        self.spec = spec
        self.suggestions = matches


class ToolError(UserError):
    """The real build tool (bazel, pnpm, nx, turbo, git) failed or timed out."""


class GitError(UserError):
    """Unknown ref, shallow clone, not a git repository."""


def suggest(spec: str, candidates: Iterable[str], n: int = 5) -> list[str]:
    """Close matches for an unknown name, on the whole id and on its last segment."""
    pool = sorted(set(candidates))
    found = difflib.get_close_matches(spec, pool, n=n, cutoff=0.6)
    if len(found) < n:
        tail = spec.rsplit(":", 1)[-1].rsplit("/", 1)[-1]
        for cand in pool:
            if len(found) >= n:
                break
            last = cand.rsplit(":", 1)[-1].rsplit("/", 1)[-1]
            if cand not in found and tail and (last == tail or tail in cand):
                found.append(cand)
    return found
