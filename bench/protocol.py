"""The co-change protocol of ``shared/bench/README.md``: cases, sample, seed, targets, hunks.

Everything that decides *what* is measured lives here, separate from the
methods and the metrics, so that a change to a method can never silently change
the questions it is asked.  The file classifier and the workspace package model
are imported from the miner (``mine_cochange.py``) rather than re-implemented:
the benchmark must use exactly the filter that produced the gold sets.
"""
from __future__ import annotations

import importlib.util
import json
import os
import random
import re
import subprocess
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import ModuleType

BUDGETS: tuple[int, ...] = (4000, 8000, 16000, 32000)
REPOS: tuple[str, ...] = (
    "vuejs/core",
    "typescript-eslint/typescript-eslint",
    "t3-oss/create-t3-turbo",
    "buildbarn/bb-storage",
    "angular-eslint/angular-eslint",
)
GIT_TIMEOUT = 300  # seconds; generous for a first checkout of a large tree


def repo_root() -> Path:
    return Path(__file__).resolve().parent.parent


def shared_dir() -> Path:
    """The read-only shared directory: ``$CTXSEL_SHARED`` or ``<repo>/../shared``.

    CI lays a copy of shared/ beside the clone, so the relative default works
    there and on a developer machine alike."""
    env = os.environ.get("CTXSEL_SHARED")
    return Path(env) if env else repo_root().parent / "shared"


def bench_dir() -> Path:
    return shared_dir() / "bench"


@lru_cache(maxsize=1)
def miner() -> ModuleType:
    """The miner module, imported from the shared directory (not copied)."""
    path = bench_dir() / "mine_cochange.py"
    if not path.is_file():
        raise FileNotFoundError(
            f"{path} not found; set CTXSEL_SHARED to the directory holding bench/mine_cochange.py")
    spec = importlib.util.spec_from_file_location("mine_cochange", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("mine_cochange", module)
    spec.loader.exec_module(module)
    return module


def is_source(path: str) -> bool:
    return miner().classify(path) == "source"


def git(gitdir: str | Path, *args: str, input: bytes | None = None,
        timeout: float = GIT_TIMEOUT, check: bool = True) -> bytes:
    """Run git against a git dir; never hangs (timeout), raises on failure when `check`."""
    proc = subprocess.run(["git", "--git-dir", str(gitdir), *args], input=input,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=timeout, check=False)
    if check and proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args[:3])} failed: {proc.stderr.decode(errors='replace')[:300]}")
    return proc.stdout


@dataclass
class Case:
    """One mined commit plus what the protocol derives from it (seed, targets)."""

    raw: dict
    seed: str = ""
    targets: list[str] = field(default_factory=list)

    @property
    def repo(self) -> str:
        return self.raw["repo"]

    @property
    def sha(self) -> str:
        return self.raw["sha"]

    @property
    def parent(self) -> str:
        return self.raw["parent"]

    @property
    def query(self) -> str:
        return self.raw["query"]

    @property
    def files_in_parent(self) -> list[str]:
        return list(self.raw["files_in_parent"])

    @property
    def single_package(self) -> bool:
        return bool(self.raw.get("single_package"))

    @property
    def seed_package(self) -> str | None:
        return self.raw.get("file_packages", {}).get(self.seed)

    def query_names_changed_file(self) -> bool:
        """Whether the message names a changed file (its basename or its stem).

        Such queries are easy for plain lexical search, so results are
        stratified by it: a gain that only shows on them is not a ranking gain."""
        text = self.query.lower()
        for path in self.raw["files"]:
            base = path.rsplit("/", 1)[-1].lower()
            stem = base.split(".", 1)[0]
            if base in text or (len(stem) >= 3 and re.search(
                    r"(?<![\w-])" + re.escape(stem) + r"(?![\w-])", text)):
                return True
        return False


def cases_file(repo: str, cases_dir: Path | None = None) -> Path:
    """``<owner>+<name>.jsonl`` in ``cases_dir`` (cases mined from other monorepos), else the shared cases."""
    return (cases_dir or bench_dir() / "cases") / (repo.replace("/", "+", 1) + ".jsonl")


def load_cases(repo: str, path: Path | None = None) -> list[dict]:
    with open(path or cases_file(repo), encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def exists_at(gitdir: str | Path, rev: str, paths: list[str]) -> set[str]:
    """The subset of `paths` that are blobs in `rev`'s tree (one git call)."""
    if not paths:
        return set()
    out = git(gitdir, "ls-tree", "-z", "--full-tree", rev, "--", *paths)
    found = set()
    for entry in out.split(b"\0"):
        if not entry:
            continue
        meta, _, path = entry.partition(b"\t")
        if meta.split()[1] == b"blob":
            found.add(path.decode("utf-8", "surrogateescape"))
    return found


def eligible(gitdir: str | Path, raw_cases: list[dict]) -> list[dict]:
    """Protocol step 1: at least 2 of `files_in_parent` exist at the parent."""
    return [c for c in raw_cases
            if len(exists_at(gitdir, c["parent"], c["files_in_parent"])) >= 2]


def sample(raw_cases: list[dict], repo: str, n: int | None, seed: int = 0) -> list[dict]:
    """Protocol step 2: seeded shuffle of the eligible indices, first N (file order kept as input)."""
    idx = list(range(len(raw_cases)))
    random.Random(f"{seed}|{repo.replace('/', '+', 1)}").shuffle(idx)
    if n is not None:
        idx = idx[:n]
    return [raw_cases[i] for i in idx]


def added_lines(gitdir: str | Path, parent: str, sha: str) -> dict[str, int]:
    out = git(gitdir, "diff-tree", "--numstat", "-r", "--no-renames", "-z", parent, sha)
    added: dict[str, int] = {}
    for entry in out.split(b"\0"):
        parts = entry.decode("utf-8", "surrogateescape").split("\t", 2)
        if len(parts) == 3:
            added[parts[2]] = int(parts[0]) if parts[0].isdigit() else 0  # "-" = binary
    return added


def choose_seed(gitdir: str | Path, raw: dict, present: set[str]) -> str:
    """Protocol step 4: the present file of `files_in_parent` with most added lines; tie -> first in `files`."""
    added = added_lines(gitdir, raw["parent"], raw["sha"])
    order = {p: i for i, p in enumerate(raw["files"])}
    candidates = [p for p in raw["files_in_parent"] if p in present]
    return min(candidates, key=lambda p: (-added.get(p, 0), order.get(p, len(order))))


def make_case(gitdir: str | Path, raw: dict) -> Case:
    present = exists_at(gitdir, raw["parent"], raw["files_in_parent"])
    seed = choose_seed(gitdir, raw, present)
    targets = [p for p in raw["files_in_parent"] if p != seed and p in present]
    return Case(raw=raw, seed=seed, targets=targets)


_HUNK_RE = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@", re.M)


def changed_ranges(gitdir: str | Path, parent: str, sha: str,
                   paths: list[str]) -> dict[str, list[tuple[int, int]]]:
    """Parent-side changed line ranges per file, from ``git diff -U0``.

    A pure insertion after line a (``-a,0``) counts as lines a..a+1: the lines
    around the insertion point are what a reader needs to see."""
    ranges: dict[str, list[tuple[int, int]]] = {p: [] for p in paths}
    if not paths:
        return ranges
    out = git(gitdir, "-c", "core.quotePath=false", "diff", "-U0", "--no-renames", "--no-color", "--no-ext-diff",
              parent, sha, "--", *paths)
    current: str | None = None
    for line in out.split(b"\n"):
        if line.startswith(b"diff --git "):
            current = None
        elif line.startswith(b"--- "):
            name = line[4:].decode("utf-8", "surrogateescape")
            current = name[2:] if name.startswith("a/") else None
        elif line.startswith(b"@@") and current in ranges:
            m = _HUNK_RE.match(line)
            if not m:
                continue
            start = int(m.group(1))
            count = 1 if m.group(2) is None else int(m.group(2))
            if count == 0:
                ranges[current].append((start, start + 1))
            else:
                ranges[current].append((start, start + count - 1))
    return ranges
