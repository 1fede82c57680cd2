"""From changed files to changed nodes: the roots of a change's blast radius.

Each changed path goes through the adapter (``nodes_for_changed_file``), which
knows its tool's manifests. Three cases need more than the current graph:

- a *global* file (``adapter.global_files()``: nx.json, turbo.json, WORKSPACE ...)
  changes every node; the answer names the file ("global change: nx.json");
- a *deleted* file, and the old side of a rename, is mapped through the graph of
  the revision it was deleted from (``revision.revision_graph``), because the
  current graph no longer mentions it; when the owner itself is gone, the nodes
  that depended on it are changed instead (they lost a dependency);
- a file no node owns is reported as ``unowned`` instead of silently vanishing;
- a file outside every package also touches the adapter's ``root_package_node``
  (Turborepo's ``//``), kept in ``ChangeSet.hidden``: no blast radius starts from it,
  but its own test is selected, as ``turbo run test --filter=...[ref]`` runs ``//#test``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Callable

from ctxsel.adapters import Adapter

from .changes import DELETED, RENAMED, ChangedFile, FileChanges, Git
from .errors import CtxselError, UserError
from .globs import GlobError, glob_regex
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
    #: nodes the change touches that start no blast radius and no listing shows
    #: (``Adapter.root_package_node``: Turborepo's ``//``); their files are in ``reasons``.
    #: Not in ``nodes``: only their own tests are selected (``Workspace.tests_for_change``)
    hidden: list[str] = field(default_factory=list)
    #: the change is git's index against HEAD (``--staged``): its new side is the index, not the working tree
    staged: bool = False

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
    """Whether ``path`` matches the adapter's global-file globs, as the tools match them.

    Path globs (``globs.glob_regex``), not ``fnmatch``: ``*`` and ``?`` stay inside one
    directory, ``**`` spans any number of them (none included: ``config/**/*.json`` matches
    ``config/a.json``, ``**/.env`` a root ``.env``), ``{a,b}`` is an alternation, and
    a ``!pattern`` takes paths back out (Turborepo's ``globalDependencies`` syntax).
    With fnmatch's ``*`` a ``globalDependencies: ["*.env"]`` made every ``apps/x/.env``
    edit a global change, where turbo only counts the root's.
    """
    include, exclude = _globs_regex(patterns)
    return include.match(path) is not None and (exclude is None or exclude.match(path) is None)


@lru_cache(maxsize=64)
def _globs_regex(patterns: tuple[str, ...]) -> tuple[re.Pattern[str], re.Pattern[str] | None]:
    """(included, excluded) as one compiled regex each (a change set can hold 10,000 paths)."""
    positive = [p for p in patterns if not p.startswith("!")]
    negative = [p[1:] for p in patterns if p.startswith("!")]

    def union(globs: list[str]) -> re.Pattern[str]:
        if not globs:
            return re.compile(r"(?!)")
        return re.compile(r"\A(?:" + "|".join(f"(?:{_glob_regex(g)})" for g in globs) + r")\Z")

    return union(positive), (union(negative) if negative else None)


def _glob_regex(glob: str) -> str:
    """``glob_regex`` of a global-file glob; one turbo refuses is the user's to fix, not a crash."""
    try:
        return glob_regex(glob)
    except GlobError as exc:
        raise UserError(
            f"global-file glob {glob!r} (turbo.json globalDependencies) cannot be parsed: {exc}",
            hint='turbo 2 refuses it too ("failed to parse glob expression"); fix or remove the glob',
        ) from None


def package_dirs(graph: BuildGraph) -> frozenset[str]:
    """The directories of the graph's non-root packages (a file below one belongs to it)."""
    return frozenset(n.package for n in graph.nodes() if n.package and not n.external)


def in_package(path: str, dirs: frozenset[str]) -> bool:
    """Whether ``path`` lies below one of ``dirs`` (walks up its parents: O(depth))."""
    d = path.rpartition("/")[0]
    while d:
        if d in dirs:
            return True
        d = d.rpartition("/")[0]
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
    compared = adapter.compared_files()
    # A file inside a package is that package's change even when a global glob matches
    # it: Turborepo maps files to packages first and consults globalDependencies only
    # for files outside every package (measured with turbo 2: globalDependencies
    # ["**/*.env"] and apps/app/.env affect @ws/app and its dependents, not all).
    # Bazel's imported rc files are global wherever they lie
    # (``Adapter.global_files_inside_packages``); the other tools' global files are
    # root-level names, which no package contains.
    root_node = adapter.root_package_node(graph)
    local_first = bool(global_patterns) and not adapter.global_files_inside_packages
    packaged = package_dirs(graph) if local_first or root_node else frozenset()
    hidden: dict[str, list[str]] = {}  # root_node -> the files outside every package
    gone: list[tuple[str, str, bool]] = []  # (old path, reason text, the file itself was deleted)
    for f in changes.files:
        paths = [f.path] + ([f.old_path] if f.old_path else [])
        if root_node:
            for p in paths:
                if not in_package(p, packaged):
                    if p != f.path:
                        why = f"{p} (moved to {f.path})"
                    else:
                        why = f"{p} (deleted)" if f.status == DELETED else p
                    hidden.setdefault(root_node, []).append(why)
        ids: list[str] | None = None
        if f.status != DELETED and f.path in compared and changes.base_rev:
            # the tool compares the two versions (turbo 2's lockfile per package, Nx's root
            # tsconfig per paths entry); None: it sees the whole file change after all
            ids = adapter.nodes_for_file_versions(
                graph, f.path, _contents_at(adapter.root, changes.base_rev, f.old_path or f.path),
                _contents_at(adapter.root, ":" if changes.staged else changes.head_rev, f.path))
        if ids is None:
            hit = [p for p in paths if is_global(global_patterns, p) and not (local_first and in_package(p, packaged))]
            if hit:
                global_hits.extend(hit)
                continue
        if f.status != DELETED:
            if ids is None:
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
        live_packages = graph.packages()  # once: a deleted package can take 10,000 files with it
        for path, why, deleted in gone:
            ids = adapter.nodes_for_changed_file(before, path)
            credit([i for i in ids if i in graph], why)
            removed = [i for i in ids if i not in graph]
            if removed and adapter.removed_owner_changes_dependents:
                # The owner went away with the file: whoever depended on it is now changed.
                credit(_surviving_dependents(before, graph, removed), f"{why}, via removed {', '.join(removed)}")
            if deleted and ids and _packages_gone(before, live_packages, ids):
                # ...and when its package directory went too (deleted, or moved: the node
                # may live on elsewhere), the path now lies in whatever contains it today, as
                # the tools see it: pnpm's and yarn's [ref] map every file of a gone package
                # directory to the nearest remaining one, the root project (Bazel and
                # Turborepo map it to nothing).
                credit(adapter.nodes_for_changed_file(graph, path), why)
            if not ids and deleted:
                unowned.append(path)

    if global_hits:
        everything = adapter.reportable_ids(graph)
        for g in dict.fromkeys(global_hits):
            credit(everything, f"global change: {g}")

    nodes = sorted(reasons)
    for nid, whys in hidden.items():
        if nid not in reasons:  # a node the files change outright is no hidden one
            reasons[nid] = whys
    return ChangeSet(
        description=changes.description,
        files=changes.files,
        nodes=nodes,
        hidden=sorted(n for n in hidden if n not in nodes),
        global_files=list(dict.fromkeys(global_hits)),
        reasons=reasons,
        unowned=sorted(set(unowned)),
        base_rev=changes.base_rev,
        head_rev=changes.head_rev,
        warnings=warnings,
        staged=changes.staged,
    )


def _packages_gone(before: BuildGraph, live_packages: set[str], removed: list[str]) -> bool:
    """Whether the package directories of these nodes of ``before`` are gone from the
    current graph (a deleted or moved package, not a rule deleted from a package that
    still exists)."""
    return all(before.node(i).package not in live_packages for i in removed)


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


def _contents_at(root: Path, rev: str | None, path: str) -> str | None:
    """``path`` (workspace-relative) as ``rev`` holds it: a commit, ``":"`` for git's index,
    None for the working tree. None when it is absent there."""
    if rev is None:
        try:
            return (root / path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
    spec = f":./{path}" if rev == ":" else f"{rev}:./{path}"
    proc = Git(root).run("show", spec, check=False)
    return proc.stdout.decode("utf-8", "replace") if proc.returncode == 0 else None
