"""Files — and lines in them — that historically change together with a given file (``git log``), cached.

Why: the files a commit touches together are the best evidence of what else a change
to the seed will need — the build graph says what *may* be affected, history says
what usually *is*. Commits touching many files (renames, formatting sweeps, version
bumps) say little about any pair and are ignored.
"""

from __future__ import annotations

import hashlib
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, TypeVar

from . import safepickle
from .cache import CACHE_DIR

GIT_LOG_TIMEOUT = 10.0
CACHE_VERSION = 5  # part of the cache key: bump when the counting changes (5: non-ASCII paths unquoted)
MAX_LINES_PER_FILE = 2000  # remembered lines per co-changed file: bounds the cache, not the answer's quality
T = TypeVar("T")


#: the shallow boundary (``.git/shallow``) of each (root, ``_head`` answer): commits whose parents
#: were not fetched, so ``git log`` shows them as adding every file they hold
_BOUNDARY: dict[tuple[str, str], frozenset[str]] = {}


def _head(root: Path) -> str | None:
    """What the history answers depend on: HEAD's commit, plus the shallow boundary in a shallow clone.

    Why the boundary: ``git clone --depth N`` (CI's default fetch) grafts its oldest commits, and
    ``git log --name-only`` lists such a commit as adding every file it holds: a co-change of the
    seed with the whole tree that no commit made. Those commits are left out (``_boundary``), and
    the cache key changes when ``git fetch --deepen``/``--unshallow`` moves the boundary, HEAD unchanged.
    """
    try:
        proc = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD", "--git-path", "shallow"],
                              capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = proc.stdout.split("\n")
    if proc.returncode != 0 or len(lines) < 2:
        return None
    head = lines[0].strip()
    try:
        boundary = (root / lines[1]).read_text(encoding="ascii", errors="replace").split()
    except (OSError, ValueError):
        boundary = []  # not shallow: git keeps no such file
    if not boundary:
        return head
    key = f"{head} shallow:{hashlib.sha1(' '.join(sorted(boundary)).encode()).hexdigest()[:16]}"
    _BOUNDARY[str(root), key] = frozenset(boundary)
    return key


def _boundary(root: Path, head: str | None) -> frozenset[str]:
    """The grafted commits of a shallow clone (empty otherwise): not changes, see ``_head``."""
    return _BOUNDARY.get((str(root), head), frozenset()) if head else frozenset()


def _cached(root: Path, key: str, compute: Callable[[], T | None], empty: T, head: str | None = None) -> T:
    """``compute()`` once per HEAD and key (pickled under the index); a failed git call (None) is not kept.

    ``head``: HEAD already looked up (the ``*_many`` functions ask git once, not once per seed).
    Through ``safepickle``: a cache file the repository itself ships is never unpickled,
    and a ``.ctxsel`` symlinked out of the repository is neither read nor written.
    """
    head = head or _head(root)
    if head is None:
        return empty
    cache = _cache_file(root, head, key)
    hit = safepickle.load(cache, root)
    if hit is not None:
        return hit  # type: ignore[return-value]
    value = compute()
    if value is None:
        return empty
    if safepickle.dump(value, cache, root):  # False at an untrusted location: prune nothing there either
        try:
            _prune(cache.parent)
        except OSError:
            pass
    return value


def _cache_file(root: Path, head: str, key: str) -> Path:
    digest = hashlib.sha1(f"{CACHE_VERSION}\0{head}\0{key}".encode("utf-8", "surrogateescape")).hexdigest()
    return root / CACHE_DIR / "index" / f"cochange-{digest[:20]}.pickle"


def _git(root: Path, args: list[str], what: str, warnings: list[str] | None, stdin: bytes | None = None,
         timeout: float = GIT_LOG_TIMEOUT) -> str | None:
    try:
        # quotepath off: git's default prints a non-ASCII path as "\\303\\274..." in quotes, which then
        # matched no seed (0 commits for ünï.py) and came back as a co-changed file that does not exist
        proc = subprocess.run(["git", "-C", str(root), "-c", "core.quotepath=off", *args], capture_output=True,
                              timeout=timeout, input=stdin)
    except subprocess.TimeoutExpired:
        if warnings is not None:
            warnings.append(f"git log for {what} timed out after {timeout:.0f}s; history not used")
        return None
    except OSError:
        return None
    # surrogateescape: a name that is not UTF-8 stays the name on disk (as changes.PATH_ERRORS)
    return proc.stdout.decode("utf-8", errors="surrogateescape") if proc.returncode == 0 else None


_LOG = ["log", "--full-diff", "--no-merges", "--no-renames", "--relative", "--format=%x00%H", "--name-only"]
#: characters that make a path a pathspec matching more than itself (glob, magic, escapes), or
#: that ``git log --stdin`` cannot take: such seeds get their own ``git log``
_NOT_LITERAL = set("*?[\\\n") | {":"}
#: ``_commits_with`` answers of this process, by (root, HEAD, path, commits, max_files): the
#: commits reachable from one HEAD never change, so an answer is good as long as the pickles are
_HISTORY: dict[tuple[str, str, str, int, int], list[tuple[str, list[str]]]] = {}
_HISTORY_MAX = 20_000


def _records(out: str) -> Iterator[tuple[str, list[str]]]:
    """(commit, the files it changed) per record of a ``_LOG`` output."""
    for record in out.split("\0")[1:]:
        sha, *rest = record.split("\n")
        yield sha.strip(), [ln for ln in rest if ln.strip()]


def _commits_with(root: Path, path: str, commits: int, max_files: int,
                  warnings: list[str] | None, head: str | None = None) -> list[tuple[str, list[str]]] | None:
    """[(commit, the files it changed)] for recent commits that changed ``path``, mass edits left out."""
    memo = (str(root), head, path, commits, max_files) if head else None
    if memo in _HISTORY:
        return _HISTORY[memo]
    out = _git(root, [*_LOG, f"-n{commits}", "--", path], f"co-change history of {path}", warnings)
    if out is None:
        return None
    grafted = _boundary(root, head)
    found = [(sha, files) for sha, files in _records(out)
             if len(files) <= max_files and path in files and sha not in grafted]
    if memo is not None:
        _remember(memo, found)
    return found


def _remember(memo: tuple[str, str, str, int, int], found: list[tuple[str, list[str]]]) -> None:
    if len(_HISTORY) >= _HISTORY_MAX:
        _HISTORY.clear()
    _HISTORY[memo] = found


def _linear(root: Path) -> bool:
    """No merge commit is reachable from HEAD.

    Why it matters: ``git log -- A B`` and ``git log -- A`` differ only through history
    simplification, which prunes at merges (a merge TREESAME to a parent for A may not be
    for A and B); on a linear history the commits touching A are the same in both, in the
    same order.
    """
    try:
        proc = subprocess.run(["git", "-C", str(root), "rev-list", "--merges", "-n1", "HEAD"], capture_output=True,
                              timeout=GIT_LOG_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0 and not proc.stdout.strip()


def _commits_with_many(root: Path, paths: list[str], commits: int, max_files: int, warnings: list[str] | None,
                       head: str) -> dict[str, list[tuple[str, list[str]]] | None]:
    """``_commits_with`` for each of ``paths`` (distinct), from one ``git log`` over them all when that is exact.

    Exact when history is linear (``_linear``) and every path names only itself: then each
    path's commits are the union log's commits that changed it, and ``-n`` is replayed by
    counting, per path, the commits its pathspec matched (the path itself or files under it).
    Otherwise, or when the one call fails, each path gets its own ``git log`` as before.
    """
    todo = [p for p in paths if (str(root), head, p, commits, max_files) not in _HISTORY and not _NOT_LITERAL & set(p)]
    if len(todo) > 1 and _linear(root):
        out = _git(root, [*_LOG, "--stdin"], "co-change history of the seeds", None,
                   stdin=("--\n" + "\n".join(todo) + "\n").encode("utf-8", "surrogateescape"),
                   timeout=GIT_LOG_TIMEOUT * len(todo))
        if out is not None:
            wanted, grafted = set(todo), _boundary(root, head)
            matched = dict.fromkeys(todo, 0)
            found: dict[str, list[tuple[str, list[str]]]] = {p: [] for p in todo}
            for sha, files in _records(out):
                for p in _pathspecs_matching(files, wanted):
                    if matched[p] < commits:  # ``-n{commits}`` of the path's own log
                        matched[p] += 1
                        if len(files) <= max_files and p in files and sha not in grafted:
                            found[p].append((sha, files))
            for p in todo:
                _remember((str(root), head, p, commits, max_files), found[p])
    return {p: _commits_with(root, p, commits, max_files, warnings, head) for p in paths}


def _pathspecs_matching(files: list[str], wanted: set[str]) -> set[str]:
    """The ``wanted`` literal pathspecs that match one of ``files``: the file itself or a directory above it.

    ``files`` as ``--name-only`` prints them: a name git quotes (non-ASCII, unusual bytes)
    is unquoted first, as git matches the real name.
    """
    hit: set[str] = set()
    for f in files:
        name = _unquote(f) if f.startswith('"') else f
        while True:
            if name in wanted:
                hit.add(name)
            cut = name.rfind("/")
            if cut < 0:
                break
            name = name[:cut]
    return hit


def _unquote(name: str) -> str:
    """A path as git's ``core.quotePath`` prints it (C-style quotes, octal UTF-8 bytes), unquoted."""
    import codecs

    try:
        return codecs.escape_decode(name[1:-1].encode("latin-1", "backslashreplace"))[0].decode("utf-8", "replace")
    except ValueError:
        return name


@dataclass(frozen=True)
class CoChanges:
    """How often other files changed together with one file."""

    commits: int  # recent commits that changed the file (mass edits left out)
    files: dict[str, int]  # other file -> how many of those commits also changed it


def cochanged_files(root: Path, path: str, commits: int = 300, max_files: int = 50,
                    warnings: list[str] | None = None, head: str | None = None) -> CoChanges:
    """The files recent commits changed together with ``path``, and how many commits that was.

    Paths are relative to ``root`` (git may report them relative to the repository
    top; those outside ``root`` are dropped). Empty when not in git or on timeout.
    """
    def compute() -> CoChanges | None:
        found = _commits_with(root, path, commits, max_files, warnings, head)
        if found is None:
            return None
        counts: dict[str, int] = {}
        for _, files in found:
            for f in files:
                if f != path:
                    counts[f] = counts.get(f, 0) + 1
        return CoChanges(len(found), counts)

    head = head or _head(root)
    return _cached(root, _files_key(path, commits, max_files), compute, CoChanges(0, {}), head)


def _files_key(path: str, commits: int, max_files: int) -> str:
    """The cache key of ``cochanged_files(path, commits, max_files)``."""
    return f"files\0{path}\0{commits}\0{max_files}"


def cochanged_files_many(root: Path, paths: list[str], commits: int = 300, max_files: int = 50,
                         warnings: list[str] | None = None) -> dict[str, CoChanges]:
    """``cochanged_files`` of each of ``paths``, with one HEAD lookup and, where exact, one ``git log``.

    Why: an agent may name thousands of seeds; one ``git log`` each (and one ``rev-parse``
    each for the cache) cost tens of milliseconds per seed.
    """
    head = _head(root)
    if head is None:
        return {p: CoChanges(0, {}) for p in paths}
    cached = {p: safepickle.load(_cache_file(root, head, _files_key(p, commits, max_files)), root)
              for p in dict.fromkeys(paths)}
    missing = [p for p, hit in cached.items() if hit is None]
    if len(missing) > 1:
        _commits_with_many(root, missing, commits, max_files, warnings, head)
    return {p: hit if hit is not None else cochanged_files(root, p, commits, max_files, warnings, head)
            for p, hit in cached.items()}


def cochanged_lines_many(root: Path, paths: list[str], files: list[str], commits: int = 300, max_files: int = 50,
                         warnings: list[str] | None = None) -> dict[str, dict[str, dict[str, float]]]:
    """``cochanged_lines`` of each of ``paths`` with one HEAD lookup (their commits come from ``_HISTORY``
    when ``cochanged_files_many`` just listed them)."""
    head = _head(root)
    if head is None:
        return {p: {} for p in paths}
    return {p: cochanged_lines(root, p, files, commits, max_files, warnings, head) for p in dict.fromkeys(paths)}


def cochanged_lines(root: Path, path: str, files: list[str], commits: int = 300, max_files: int = 50,
                    warnings: list[str] | None = None, head: str | None = None) -> dict[str, dict[str, float]]:
    """{file: {line text: weight}}: the lines recent commits that changed ``path`` added to ``files``.

    Why: which *part* of a co-changed file to show matters as much as the file — the
    call site, the export list, the test table that past commits edited along with the
    seed is where the next such commit usually edits again. Lines are matched by text,
    so they are found wherever later edits moved them. Each commit's weight 1 is spread
    over the lines it added to a file (a two-line fix points at its place, a rewrite
    points nowhere); a file's creation says nothing about later edits and is skipped.
    """
    wanted = sorted(set(files) - {path})

    def compute() -> dict[str, dict[str, float]] | None:
        found = _commits_with(root, path, commits, max_files, warnings, head)
        if found is None:
            return None
        shas = [sha for sha, touched in found if not set(touched).isdisjoint(wanted)]
        if not shas:
            return {}
        out = _git(root, ["-c", "core.quotePath=false", "show", "--no-renames", "--relative", "-U0", "--no-color",
                          "--no-ext-diff", "--format=%x00", *shas, "--", *wanted], f"co-changed lines of {path}", warnings)
        return None if out is None else added_lines(out)

    if not wanted:
        return {}
    head = head or _head(root)
    return _cached(root, "lines\0" + "\0".join([path, str(commits), str(max_files), *wanted]), compute, {}, head)


def added_lines(patches: str) -> dict[str, dict[str, float]]:
    """Per file, the weight of each line the ``git show -U0`` commits (NUL-separated) added."""
    result: dict[str, dict[str, float]] = {}
    for commit in patches.split("\0"):
        added: dict[str, set[str]] = {}
        current: str | None = None
        in_header = created = False
        for line in commit.split("\n"):
            if line.startswith("diff --git "):
                current, in_header, created = None, True, False
            elif in_header and line.startswith("new file mode"):
                created = True
            elif in_header and line.startswith("+++ "):
                name = line[4:]
                current = name[2:] if name.startswith("b/") and not created else None
            elif line.startswith("@@"):
                in_header = False
            elif current is not None and not in_header and line.startswith("+"):
                key = line_key(line[1:])
                if key:
                    added.setdefault(current, set()).add(key)
        for name, keys in added.items():
            lines = result.setdefault(name, {})
            for key in sorted(keys):  # sorted: which lines a full file keeps must not vary run to run
                if key in lines or len(lines) < MAX_LINES_PER_FILE:
                    lines[key] = lines.get(key, 0.0) + 1.0 / len(keys)
    return result


def line_key(line: str) -> str | None:
    """The text a line is recognised by, or None when it is too generic to point anywhere (``});``)."""
    text = line.strip()
    if len(text) < 6 or sum(ch.isalnum() for ch in text) < 4:
        return None
    return text


def _prune(directory: Path, keep: int = 64) -> None:
    """Keep the newest ``keep`` answers: each commit and seed adds one, forever otherwise."""
    entries = sorted(directory.glob("cochange-*.pickle"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in entries[keep:]:
        old.unlink(missing_ok=True)
