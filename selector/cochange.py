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
from typing import Callable, TypeVar

from . import safepickle
from .cache import CACHE_DIR

GIT_LOG_TIMEOUT = 10.0
CACHE_VERSION = 4  # part of the cache key: bump when the counting changes
MAX_LINES_PER_FILE = 2000  # remembered lines per co-changed file: bounds the cache, not the answer's quality
T = TypeVar("T")


def _head(root: Path) -> str | None:
    try:
        proc = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def _cached(root: Path, key: str, compute: Callable[[], T | None], empty: T) -> T:
    """``compute()`` once per HEAD and key (pickled under the index); a failed git call (None) is not kept.

    Through ``safepickle``: a cache file the repository itself ships is never unpickled,
    and a ``.ctxsel`` symlinked out of the repository is neither read nor written.
    """
    head = _head(root)
    if head is None:
        return empty
    digest = hashlib.sha1(f"{CACHE_VERSION}\0{head}\0{key}".encode()).hexdigest()
    cache = root / CACHE_DIR / "index" / f"cochange-{digest[:20]}.pickle"
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


def _git(root: Path, args: list[str], what: str, warnings: list[str] | None) -> str | None:
    try:
        proc = subprocess.run(["git", "-C", str(root), *args], capture_output=True, timeout=GIT_LOG_TIMEOUT)
    except subprocess.TimeoutExpired:
        if warnings is not None:
            warnings.append(f"git log for {what} timed out after {GIT_LOG_TIMEOUT:.0f}s; history not used")
        return None
    except OSError:
        return None
    return proc.stdout.decode("utf-8", errors="replace") if proc.returncode == 0 else None


def _commits_with(root: Path, path: str, commits: int, max_files: int,
                  warnings: list[str] | None) -> list[tuple[str, list[str]]] | None:
    """[(commit, the files it changed)] for recent commits that changed ``path``, mass edits left out."""
    out = _git(root, ["log", "--full-diff", "--no-merges", "--no-renames", "--relative", "--format=%x00%H",
                      "--name-only", f"-n{commits}", "--", path], f"co-change history of {path}", warnings)
    if out is None:
        return None
    found: list[tuple[str, list[str]]] = []
    for record in out.split("\0")[1:]:
        sha, *rest = record.split("\n")
        files = [ln for ln in rest if ln.strip()]
        if len(files) <= max_files and path in files:
            found.append((sha.strip(), files))
    return found


@dataclass(frozen=True)
class CoChanges:
    """How often other files changed together with one file."""

    commits: int  # recent commits that changed the file (mass edits left out)
    files: dict[str, int]  # other file -> how many of those commits also changed it


def cochanged_files(root: Path, path: str, commits: int = 300, max_files: int = 50,
                    warnings: list[str] | None = None) -> CoChanges:
    """The files recent commits changed together with ``path``, and how many commits that was.

    Paths are relative to ``root`` (git may report them relative to the repository
    top; those outside ``root`` are dropped). Empty when not in git or on timeout.
    """
    def compute() -> CoChanges | None:
        found = _commits_with(root, path, commits, max_files, warnings)
        if found is None:
            return None
        counts: dict[str, int] = {}
        for _, files in found:
            for f in files:
                if f != path:
                    counts[f] = counts.get(f, 0) + 1
        return CoChanges(len(found), counts)

    return _cached(root, f"files\0{path}\0{commits}\0{max_files}", compute, CoChanges(0, {}))


def cochanged_lines(root: Path, path: str, files: list[str], commits: int = 300, max_files: int = 50,
                    warnings: list[str] | None = None) -> dict[str, dict[str, float]]:
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
        found = _commits_with(root, path, commits, max_files, warnings)
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
    return _cached(root, "lines\0" + "\0".join([path, str(commits), str(max_files), *wanted]), compute, {})


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
