"""From changed files to changed nodes: the roots of a change's blast radius.

Each changed path goes through the adapter (``nodes_for_changed_file``), which
knows its tool's manifests. Three cases need more than the current graph:

- a *global* file (``adapter.global_files()``: nx.json, turbo.json, WORKSPACE ...)
  changes every node; the answer names the file ("global change: nx.json");
- a *deleted* file, and the old side of a rename, is mapped through the graph of
  the revision it was deleted from (``revision.revision_graph``), because the
  current graph no longer mentions it; when the owner itself is gone, the nodes
  that depended on it are changed instead (they lost a dependency);
- a file no node owns is reported as ``unowned`` instead of silently vanishing.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from typing import Callable

from ctxsel.adapters import Adapter

from .changes import DELETED, RENAMED, ChangedFile, FileChanges
from .errors import CtxselError
from .graph import BuildGraph


@dataclass
class ChangeSet:
    """A change as ctxsel sees it: files, the nodes they change, and why.

    ``reasons`` maps each changed node to the changed files that put it there (a
    global change lists the global file). ``nodes`` are the blast radius's roots.
    """

    description: str
    files: list[ChangedFile]
    nodes: list[str]
    global_files: list[str] = field(default_factory=list)
    reasons: dict[str, list[str]] = field(default_factory=dict)
    unowned: list[str] = field(default_factory=list)
    base_rev: str | None = None
    head_rev: str | None = None
    warnings: list[str] = field(default_factory=list)

    def as_json(self) -> dict:
        return {
            "description": self.description,
            "base": self.base_rev,
            "head": self.head_rev,
            "files": [
                {"path": f.path, "status": f.status, **({"old_path": f.old_path} if f.old_path else {})}
                for f in self.files
            ],
            "global_files": self.global_files,
            "changed_nodes": {n: self.reasons.get(n, []) for n in self.nodes},
            "unowned": self.unowned,
        }


def is_global(patterns: tuple[str, ...], path: str) -> bool:
    """fnmatch, where a leading ``**/`` also matches at the root (as the tools' globs do)."""
    for pat in patterns:
        if fnmatch.fnmatchcase(path, pat) or (pat.startswith("**/") and fnmatch.fnmatchcase(path, pat[3:])):
            return True
    return False


def change_set(
    adapter: Adapter,
    graph: BuildGraph,
    changes: FileChanges,
    old_graph: Callable[[str, list[str]], BuildGraph] | None = None,
) -> ChangeSet:
    """Map ``changes`` to nodes of ``graph``.

    ``old_graph(rev, paths)`` returns the graph of a past revision in which ``paths``
    will be looked up; it is called at most once, and only when a file was deleted
    or renamed away.
    """
    reasons: dict[str, list[str]] = {}
    global_hits: list[str] = []
    unowned: list[str] = []
    warnings = list(changes.warnings)

    def credit(ids: list[str], why: str) -> None:
        for nid in ids:
            if nid in graph:
                reasons.setdefault(nid, [])
                if why not in reasons[nid]:
                    reasons[nid].append(why)

    global_patterns = adapter.global_files()
    gone: list[tuple[str, str, bool]] = []  # (old path, reason text, the file itself was deleted)
    for f in changes.files:
        paths = [f.path] + ([f.old_path] if f.old_path else [])
        hit = [p for p in paths if is_global(global_patterns, p)]
        if hit:
            global_hits.extend(hit)
            continue
        if f.status != DELETED:
            ids = adapter.nodes_for_changed_file(graph, f.path)
            credit(ids, f.path)
            owned = bool(ids)
        else:
            owned = True  # decided below, through the old graph
            gone.append((f.path, f"{f.path} (deleted)", True))
        if f.status == RENAMED and f.old_path and adapter.rename_counts_old_path:
            gone.append((f.old_path, f"{f.old_path} (moved to {f.path})", False))
        if not owned:
            unowned.append(f.path)

    if gone:
        before = _old_graph_or_current(graph, changes, old_graph, [p for p, _, _ in gone], warnings)
        for path, why, deleted in gone:
            ids = adapter.nodes_for_changed_file(before, path)
            credit([i for i in ids if i in graph], why)
            removed = [i for i in ids if i not in graph]
            if removed:
                # The owner went away with the file: whoever depended on it is now changed.
                credit(_surviving_dependents(before, graph, removed), f"{why}, via removed {', '.join(removed)}")
            if not ids and deleted:
                unowned.append(path)

    if global_hits:
        everything = adapter.reportable_ids(graph)
        for g in dict.fromkeys(global_hits):
            credit(everything, f"global change: {g}")

    return ChangeSet(
        description=changes.description,
        files=changes.files,
        nodes=sorted(reasons),
        global_files=list(dict.fromkeys(global_hits)),
        reasons=reasons,
        unowned=sorted(set(unowned)),
        base_rev=changes.base_rev,
        head_rev=changes.head_rev,
        warnings=warnings,
    )


def _surviving_dependents(before: BuildGraph, graph: BuildGraph, removed: list[str]) -> list[str]:
    """Nodes of ``graph`` that depended (in ``before``) on removed nodes, looking through removed ones."""
    found: set[str] = set()
    seen = set(removed)
    stack = list(removed)
    while stack:
        for dependent in before.dependents(stack.pop()):
            if dependent in seen:
                continue
            seen.add(dependent)
            if dependent in graph:
                found.add(dependent)
            else:
                stack.append(dependent)
    return sorted(found)


def _old_graph_or_current(
    graph: BuildGraph,
    changes: FileChanges,
    old_graph: Callable[[str, list[str]], BuildGraph] | None,
    paths: list[str],
    warnings: list[str],
) -> BuildGraph:
    if changes.base_rev is None or old_graph is None:
        return graph
    try:
        return old_graph(changes.base_rev, paths)
    except (CtxselError, OSError, NotImplementedError) as exc:
        warnings.append(
            f"could not parse the graph of {changes.base_rev[:10]} ({exc}); "
            "deleted files were mapped through the current graph"
        )
        return graph
