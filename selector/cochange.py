"""Files that historically change together with a given file (``git log``), cached.

Why: the files a commit touches together are the best evidence of what else a change
to the seed will need — the build graph says what *may* be affected, history says
what usually *is*. Commits touching many files (renames, formatting sweeps, version
bumps) say little about any pair and are ignored.
"""

from __future__ import annotations

import hashlib
import pickle
import subprocess
from pathlib import Path

from .cache import CACHE_DIR

GIT_LOG_TIMEOUT = 10.0
CACHE_VERSION = 2  # part of the cache key: bump when the counting changes


def _head(root: Path) -> str | None:
    try:
        proc = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def cochanged_files(root: Path, path: str, commits: int = 300, max_files: int = 50,
                    warnings: list[str] | None = None) -> dict[str, int]:
    """{other file: number of recent commits that changed it together with ``path``}.

    Paths are relative to ``root`` (git may report them relative to the repository
    top; those outside ``root`` are dropped). Empty when not in git or on timeout.
    """
    head = _head(root)
    if head is None:
        return {}
    key = hashlib.sha1(f"{CACHE_VERSION}\0{head}\0{path}\0{commits}\0{max_files}".encode()).hexdigest()
    cache = root / CACHE_DIR / "index" / f"cochange-{key[:20]}.pickle"
    try:
        with open(cache, "rb") as fh:
            return pickle.load(fh)
    except Exception:
        pass
    try:
        proc = subprocess.run(
            ["git", "-C", str(root), "log", "--full-diff", "--no-merges", "--no-renames", "--relative", "--format=%x00%H",
             "--name-only", f"-n{commits}", "--", path],
            capture_output=True, timeout=GIT_LOG_TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        if warnings is not None:
            warnings.append(f"git log for co-change history of {path} timed out after {GIT_LOG_TIMEOUT:.0f}s; history not used")
        return {}
    except OSError:
        return {}
    if proc.returncode != 0:
        return {}
    counts: dict[str, int] = {}
    for record in proc.stdout.decode("utf-8", errors="replace").split("\0")[1:]:
        lines = [ln for ln in record.split("\n")[1:] if ln.strip()]
        if len(lines) > max_files or path not in lines:
            continue
        for f in lines:
            if f != path:
                counts[f] = counts.get(f, 0) + 1
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        with open(cache, "wb") as fh:
            pickle.dump(counts, fh)
        _prune(cache.parent)
    except OSError:
        pass
    return counts


def _prune(directory: Path, keep: int = 64) -> None:
    """Keep the newest ``keep`` answers: each commit and seed adds one, forever otherwise."""
    entries = sorted(directory.glob("cochange-*.pickle"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in entries[keep:]:
        old.unlink(missing_ok=True)
