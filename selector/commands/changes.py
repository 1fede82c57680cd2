"""Change selectors (``--since``/``--base``/``--head``/``--staged``/``--files``) and ``--explain``.

Shared by ``blast-radius``, ``tests``, ``graph`` and ``pre-commit``: the options are
declared once here and each command passes what it received to ``select_roots``,
so "which nodes did this change touch" is answered the same way everywhere.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, List, Optional, Sequence

import typer

from ..render import quote_path

if TYPE_CHECKING:  # pragma: no cover
    from ..affected import ChangeSet
    from ..workspace import Workspace

SINCE = typer.Option(None, "--since", metavar="REF", help="Changed since REF: merge-base(REF, HEAD) vs the working tree, untracked files included.")
BASE = typer.Option(None, "--base", metavar="A", help="Changed in the commit range merge-base(A, HEAD or --head)..head.")
HEAD = typer.Option(None, "--head", metavar="B", help="End of the --base range (default HEAD).")
STAGED = typer.Option(False, "--staged", help="Changed in the git index (what `git commit` would record).")
FILES = typer.Option(None, "--files", metavar="F", help="These files changed (repeat, or a,b,c); no git needed.")
EXPLAIN = typer.Option(False, "--explain", help="For each result, the dependency path to the changed node and the files that changed it.")


@dataclass
class ChangeSelectors:
    since: Optional[str] = None
    base: Optional[str] = None
    head: Optional[str] = None
    staged: bool = False
    files: List[str] = field(default_factory=list)

    @property
    def given(self) -> bool:
        return bool(self.since or self.base or self.head or self.staged or self.files)


def select_roots(ws: "Workspace", targets: Sequence[str] | None, sel: ChangeSelectors) -> tuple[list[str], "ChangeSet | None"]:
    """The roots of a blast radius: resolved inputs plus the nodes the change touches (``Workspace.roots``)."""
    return ws.roots(targets or [], since=sel.since, base=sel.base, head=sel.head, staged=sel.staged, files=sel.files)


def note(message: str, quiet: bool) -> None:
    """An informational line on stderr (stdout stays machine-readable)."""
    if not quiet:
        print(f"ctxsel: {message}", file=sys.stderr)


def report_changes(changes: "ChangeSet | None", noun: str, quiet: bool) -> None:
    """What a person should know even without --explain: global changes, empty changes."""
    if changes is None:
        return
    for w in changes.warnings:
        note(f"warning: {w}", quiet)
    for g in changes.global_files:
        note(f"global change: {g} affects every {noun}", quiet)
    if not changes.files:
        note(f"no changed files ({changes.description})", quiet)
    elif not changes.nodes and changes.hidden:  # Turborepo's root package: only its own test runs
        note(f"{len(changes.files)} changed file(s) outside every {noun}: they change only "
             f"{', '.join(changes.hidden)} ({changes.description})", quiet)
    elif not changes.nodes:
        note(f"{len(changes.files)} changed file(s), none owned by a {noun} ({changes.description})", quiet)


def because(changes: "ChangeSet | None", path: Sequence[str]) -> list[str]:
    """The changed files behind the root at the end of ``path``."""
    if changes is None or not path:
        return []
    return changes.reasons.get(path[-1], [])


def explain_rows(ids: Sequence[str], paths: dict[str, list[str]], changes: "ChangeSet | None") -> list[dict]:
    rows = []
    for nid in ids:
        path = paths.get(nid, [nid])
        rows.append({"id": nid, "path": path, "because": because(changes, path)})
    return rows


def explain_line(row: dict) -> str:
    files = ", ".join(quote_path(f) for f in row["because"])
    return " -> ".join(row["path"]) + (f"   [{files}]" if files else "")
