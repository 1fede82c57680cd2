"""Reuse a parsed graph until one of the files it was built from changes.

Loaders read the file system through an ``InputTracker``: every file read and every
directory listed is stamped (mtime, size). The cache stores the graph with those
stamps; a later run re-stats them (no parsing) and reuses the graph only if every
stamp still holds. A new package shows up as a changed directory stamp, so adding
or removing files is caught as well as editing them.
"""

from __future__ import annotations

import gc
import importlib.util
import os
from pathlib import Path
from typing import Callable

from . import safepickle
from .graph import BuildGraph
from .paths import open_regular

CACHE_FORMAT = 3  # bump whenever BuildGraph/Node or an adapter's output changes shape
CACHE_DIR = ".ctxsel"

Stamp = tuple[int, int]  # (mtime_ns, size); (-1, -1) = absent
ABSENT: Stamp = (-1, -1)


def _stamp(path: str) -> Stamp:
    try:
        st = os.stat(path)
    except (OSError, ValueError):  # ValueError: a NUL or lone surrogate no file name can hold
        return ABSENT
    return (st.st_mtime_ns, st.st_size)


def _all_unchanged(stamps: dict[str, Stamp]) -> bool:
    """``_stamp(p) == stamp`` for every stamp, written for speed: a warm run re-checks
    every manifest of the workspace (3,000 paths for 1,500 Turborepo packages, half of
    them absent per-package turbo.json files). A failing ``os.stat`` raises, and the
    exception costs as much as the call, so absent paths are checked with ``os.access``,
    which answers False instead (2.5 -> 1.4 ms for 1,500 absent paths, measured)."""
    stat, access, exists = os.stat, os.access, os.F_OK
    for path, stamp in stamps.items():
        try:
            if stamp == ABSENT:
                if access(path, exists):
                    return False
                continue
            st = stat(path)
        except (OSError, ValueError):  # ValueError: a name no file can hold, absent as before
            if _stamp(path) != stamp:
                return False
            continue
        if st.st_mtime_ns != stamp[0] or st.st_size != stamp[1]:
            return False
    return True


class InputTracker:
    """Reads files and lists directories on behalf of a loader, remembering what it saw."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.stamps: dict[str, Stamp] = {}

    def note(self, path: str | os.PathLike[str]) -> None:
        """Record a path the result depends on (also when it does not exist)."""
        p = os.fspath(path)
        if p not in self.stamps:
            self.stamps[p] = _stamp(p)

    def read_bytes(self, path: str | os.PathLike[str]) -> bytes:
        self.note(path)
        with open_regular(path) as fh:  # a FIFO planted as a manifest must not hang the run
            return fh.read()

    def read_text(self, path: str | os.PathLike[str]) -> str:
        return self.read_bytes(path).decode("utf-8", errors="replace")

    def exists(self, path: str | os.PathLike[str]) -> bool:
        self.note(path)
        return os.path.exists(path)

    def scandir(self, path: str | os.PathLike[str]) -> list[os.DirEntry[str]]:
        self.note(path)
        try:
            with os.scandir(path) as it:
                return sorted(it, key=lambda e: e.name)
        except (OSError, ValueError):
            return []


def _code_dirs() -> list[str]:
    """The directories ctxsel's own code is installed in (``ctxsel`` and ``ctxsel.adapters``,
    which may live apart: an editable install maps them to ``selector/`` and ``adapters/``)."""
    dirs = [os.path.dirname(os.path.abspath(__file__))]
    spec = importlib.util.find_spec("ctxsel.adapters")  # locates it without importing every adapter
    if spec is not None and spec.submodule_search_locations:
        dirs += [os.path.abspath(d) for d in spec.submodule_search_locations]
    dirs.sort()
    # a regular install nests adapters/ inside ctxsel/: walk it once
    return [d for i, d in enumerate(dirs) if not any(d == p or d.startswith(p + os.sep) for p in dirs[:i])]


def note_own_code(tracker: InputTracker) -> None:
    """Stamp ctxsel's own files, so a graph is reused only by the code that built it.

    ``CACHE_FORMAT`` is bumped by hand when the graph's shape changes, but most adapter
    fixes change the *answer* for the same inputs: after an upgrade (or an edit to an
    editable install) a cached graph from the old adapters would keep giving the old,
    wrong answer until the repo's manifests happened to change. Files only: a module added
    or removed shows as an edit to the module that imports it, while a directory's stamp
    would move whenever Python first writes its ``__pycache__``.
    """
    for top in _code_dirs():
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(filenames):
                tracker.note(os.path.join(dirpath, name))


def cache_path(root: Path, key: str) -> Path:
    return root / CACHE_DIR / "cache" / f"graph-{key}.pickle"


def ensure_cache_dir(root: Path) -> Path | None:
    """Create ``<repo>/.ctxsel`` (ignoring itself in git); None when the repo is read-only
    or ``.ctxsel`` is not a real directory of the repo (a committed symlink must not make
    ctxsel write elsewhere)."""
    base = root / CACHE_DIR
    if not safepickle.trusted_dir(root, base / "cache", create=True):
        return None
    ignore = base / ".gitignore"
    if not os.path.lexists(ignore):
        try:  # O_EXCL: never writes through a symlink planted as .gitignore
            fd = os.open(ignore, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            with os.fdopen(fd, "w") as fh:
                fh.write("# ctxsel's cache and index; never commit\n*\n")
        except FileExistsError:
            pass
        except OSError:
            return None
    return base


def load_cached(root: Path, key: str) -> BuildGraph | None:
    path = cache_path(root, key)
    # Unpickling creates ~one object per node, edge and src; the cyclic GC would scan
    # them over and over while they are created (half the load time of a 20,000-target
    # graph, measured). Nothing here makes cycles worth collecting mid-load.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        # None (missing, forged or tampered, untrusted location) fails to unpack: rebuild
        fmt, stamps, graph = safepickle.load(path, root)  # type: ignore[misc]
    except Exception:  # missing, truncated, or from another version: rebuild
        return None
    finally:
        if gc_was_enabled:
            gc.enable()
    if fmt != CACHE_FORMAT:
        return None
    # Stamps are absolute paths: a workspace copied together with its .ctxsel/ would
    # otherwise check the original's files and reuse a graph that no longer fits.
    if getattr(graph, "root", None) != str(root):
        return None
    if not _all_unchanged(stamps):
        return None
    return graph


def store_cached(root: Path, key: str, graph: BuildGraph, tracker: InputTracker) -> None:
    if ensure_cache_dir(root) is None:
        return
    safepickle.dump((CACHE_FORMAT, tracker.stamps, graph), cache_path(root, key), root)


def cached_graph(
    root: Path, key: str, build: Callable[[InputTracker], BuildGraph], use_cache: bool = True
) -> BuildGraph:
    """Return the cached graph for ``key`` if still valid, else build and store it."""
    if use_cache:
        ensure_cache_dir(root)  # before loading, so creating it cannot invalidate the stamps
        hit = load_cached(root, key)
        if hit is not None:
            return hit
    tracker = InputTracker(root)
    if use_cache:
        note_own_code(tracker)
    graph = build(tracker)
    if use_cache:
        store_cached(root, key, graph, tracker)
    return graph
