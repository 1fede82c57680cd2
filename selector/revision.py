"""The build graph of a past commit, for files that no longer exist.

A deleted source still affects the targets that used to own it, and only the old
revision's graph knows who they were (in Bazel the BUILD file or glob that named
it has moved on). We write the old tree into a temporary directory and let the
same adapter parse it statically, then throw the directory away. Commits never
change, so the parsed graph is cached under the tree's sha and a pre-commit hook
pays this once per HEAD, not once per run.

Speed: an adapter may list its manifest files (``Adapter.manifest_patterns()``);
only those get their real content, and other files become empty placeholders, which
is all globs and directory-based ownership need, and only inside the packages of
the files being looked up. Without the list every file is written with its content
(correct for any loader, just slower).
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Sequence

from ctxsel.adapters import Adapter, AdapterOptions

from .cache import CACHE_DIR, InputTracker, load_cached, store_cached
from .changes import PATH_ERRORS, Git
from .errors import GitError
from .globs import FNMATCH, glob_regex
from .graph import BuildGraph

KEEP_REVISION_CACHES = 8


def revision_graph(adapter: Adapter, rev: str, paths: Sequence[str] = (), use_cache: bool = True) -> BuildGraph:
    """The graph ``adapter`` builds from the workspace as it was at commit ``rev``.

    ``paths`` are the old files the caller will look up; when the adapter lists its
    manifests, only their packages get placeholder files (globs elsewhere come out
    empty, which changes no owner of ``paths``), so a 20,000-target tree is not
    written out file by file for one deleted source.
    """
    git = Git(adapter.root)
    prefix = git.prefix()
    tree = git.out("rev-parse", f"{rev}:{prefix}" if prefix else f"{rev}^{{tree}}")
    patterns = adapter.manifest_patterns()
    listing = _ls_tree(git, tree)
    scope = _placeholder_scope(listing, patterns, paths)
    scope_text = "\0".join(sorted(scope)).encode("utf-8", PATH_ERRORS) if scope is not None else None
    token = hashlib.sha1(scope_text).hexdigest()[:8] if scope_text is not None else "all"
    key = f"rev-{adapter.cache_key()}-{tree[:16]}-{token}"
    if use_cache:
        hit = load_cached(adapter.root, key)
        if hit is not None:
            return hit
    with tempfile.TemporaryDirectory(prefix="ctxsel-rev-", dir=_scratch_dir()) as tmp:
        root = Path(tmp)
        materialize_tree(git, listing, root, patterns, scope)
        old = type(adapter)(root, AdapterOptions(source="static", extra=dict(adapter.options.extra)))
        graph = old.load_static(InputTracker(root))
        graph.adapter = adapter.name
        graph.root = str(adapter.root)
    if use_cache:
        # No input stamps: a tree's content is fixed by its sha, so the entry never goes stale.
        store_cached(adapter.root, key, graph, InputTracker(adapter.root))
        _prune(adapter.root)
    return graph


def _scratch_dir() -> str | None:
    """Memory-backed /dev/shm when there is one: creating thousands of small files on
    a busy disk took 2-4 ms each (measured), on tmpfs about 0.1 ms."""
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK) else None


@dataclass(frozen=True)
class TreeEntry:
    path: str
    mode: str
    kind: str  # blob | commit (a submodule)
    sha: str


def _ls_tree(git: Git, tree: str) -> list[TreeEntry]:
    out = []
    for entry in git.run("ls-tree", "-r", "-z", "--full-tree", tree).stdout.decode("utf-8", PATH_ERRORS).split("\0"):
        if entry:
            meta, _, path = entry.partition("\t")
            mode, kind, sha = meta.split(" ")
            out.append(TreeEntry(path, mode, kind, sha))
    return out


def _placeholder_scope(listing: list[TreeEntry], patterns: tuple[str, ...], paths: Sequence[str]) -> set[str] | None:
    """Directories that need placeholders: each path's nearest ancestor holding a manifest.

    None means everywhere: the adapter did not list its manifests (every file is
    written with content anyway), no paths were named, or a path has no such ancestor.
    """
    if not patterns or not paths:
        return None
    manifest_dirs = {e.path.rpartition("/")[0] for e in listing if _is_manifest(e.path, patterns)}
    scope: set[str] = set()
    for path in paths:
        d = path.rpartition("/")[0]
        while d not in manifest_dirs:
            if not d:
                return None
            d = d.rpartition("/")[0]
        if not d:
            return None
        scope.add(d)
    return scope


def materialize_tree(
    git: Git,
    listing: list[TreeEntry],
    dest: Path,
    manifest_patterns: tuple[str, ...],
    placeholder_dirs: set[str] | None = None,
) -> int:
    """Write a tree under ``dest``: manifests with content, other files empty (only
    under ``placeholder_dirs`` when given). Returns the number of files written."""
    wanted: list[tuple[str, str]] = []  # (sha, path) whose content we need
    count = 0
    made_dirs: set[Path] = set()
    for e in listing:
        manifest = e.kind != "commit" and e.mode != "120000" and _is_manifest(e.path, manifest_patterns)
        if not manifest and placeholder_dirs is not None and not _under(e.path, placeholder_dirs):
            continue
        target = dest / e.path
        parent = target.parent
        if parent not in made_dirs:
            parent.mkdir(parents=True, exist_ok=True)
            made_dirs.add(parent)
        if e.kind == "commit":  # a submodule: its directory, nothing inside
            target.mkdir(exist_ok=True)
            continue
        count += 1
        if manifest:
            wanted.append((e.sha, e.path))
        else:
            target.touch()
    if wanted:
        _write_blobs(git, wanted, dest)
    return count


def _under(path: str, dirs: set[str]) -> bool:
    d = path.rpartition("/")[0]
    while True:
        if d in dirs:
            return True
        if not d:
            return False
        d = d.rpartition("/")[0]


def _is_manifest(path: str, patterns: tuple[str, ...]) -> bool:
    """Whether ``path``'s name or whole path matches a manifest glob, as ``fnmatch.fnmatchcase``."""
    if not patterns:
        return True
    name = path.rsplit("/", 1)[-1]
    rx = _manifest_regex(tuple(patterns))
    return rx.match(name) is not None or rx.match(path) is not None


@lru_cache(maxsize=64)
def _manifest_regex(patterns: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{glob_regex(p, dialect=FNMATCH)})\\Z" for p in patterns))


def _write_blobs(git: Git, wanted: list[tuple[str, str]], dest: Path) -> None:
    """Fetch many blobs in one ``git cat-file --batch`` (one process, not one per file)."""
    request = "".join(f"{sha}\n" for sha, _ in wanted).encode()
    proc = git.run("cat-file", "--batch", input=request)
    data = proc.stdout
    pos = 0
    for sha, path in wanted:
        nl = data.index(b"\n", pos)
        header = data[pos:nl].split()
        if len(header) < 3 or header[1] == b"missing":
            raise GitError(f"git cat-file: blob {sha} of {path} is missing")
        size = int(header[2])
        start = nl + 1
        (dest / path).write_bytes(data[start:start + size])
        pos = start + size + 1  # content is followed by a newline


def _prune(root: Path) -> None:
    """Keep only the newest few revision graphs; each is a full graph pickle."""
    from .safepickle import trusted_dir

    cache_dir = root / CACHE_DIR / "cache"
    if not trusted_dir(root, cache_dir):  # a symlinked .ctxsel: delete nothing through it
        return
    try:
        olds = sorted(cache_dir.glob("graph-rev-*.pickle"), key=lambda p: p.stat().st_mtime, reverse=True)
        for stale in olds[KEEP_REVISION_CACHES:]:
            stale.unlink()
    except OSError:
        pass

