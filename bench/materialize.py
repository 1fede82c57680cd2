"""Find the bare mirrors and materialise a repository at a case's parent commit.

The protocol requires a real checkout whose HEAD is the parent and from which
nothing later is reachable, so that no method can peek at the answer through
``git log``.  A checkout is built with ``git init`` plus an *alternates* link to
the mirror's object store: no refs are copied (only HEAD, detached at the
parent, exists), no reflog is written, and switching to the next case of the
same repository is an incremental ``git checkout`` of one reused work tree.

Snapshots may lack blobs of 4 MiB and more.  Those paths are left out of the
work tree with a sparse-checkout pattern instead of failing the checkout.

Users without the mirror get the repositories once with
``git clone --bare https://github.com/OWNER/NAME ~/.cache/ctxsel-bench/mirror/OWNER+NAME.git``;
nothing is downloaded at run time.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from bench.protocol import git, is_source, repo_root

DEFAULT_MIRROR_DIRS = (
    Path("/work/.mirror"),
    Path.home() / ".cache" / "ctxsel-bench" / "mirror",
)
MAX_FILE_BYTES = 1 << 20  # baseline candidates are at most 1 MiB
BINARY_PROBE = 8192


def _is_git_dir(path: Path) -> bool:
    return (path / "HEAD").is_file() and (path / "objects").is_dir()


def find_mirror(repo: str, mirror_dirs: list[Path] | None = None) -> Path | None:
    """The bare git dir for ``owner/name`` under ``<dir>/<owner>+<name>*``.

    Accepts the layouts a user is likely to have: a bare clone
    (``owner+name.git``), a directory holding one (``owner+name/repo``), or a
    clone with a work tree (``owner+name/.git``)."""
    env = os.environ.get("CTXSEL_BENCH_MIRROR")
    dirs = list(mirror_dirs or []) or ([Path(env)] if env else []) + list(DEFAULT_MIRROR_DIRS)
    stem = repo.replace("/", "+", 1)
    for base in dirs:
        if not base.is_dir():
            continue
        for entry in sorted(base.glob(stem + "*")):
            for candidate in (entry, entry / "repo", entry / ".git", entry / "repo" / ".git"):
                if candidate.is_dir() and _is_git_dir(candidate):
                    return candidate
    return None


def work_dir() -> Path:
    env = os.environ.get("CTXSEL_BENCH_WORK")
    return Path(env) if env else repo_root() / "bench" / "work"


@dataclass
class TreeEntry:
    path: str
    mode: str
    oid: str
    size: int | None  # None: the blob is missing from the snapshot


def list_tree(gitdir: Path, rev: str) -> list[TreeEntry]:
    """Every blob of `rev`'s tree with its size; missing blobs get size None."""
    out = git(gitdir, "ls-tree", "-r", "-z", "--full-tree", rev)
    entries: list[TreeEntry] = []
    for raw in out.split(b"\0"):
        if not raw:
            continue
        meta, _, path = raw.partition(b"\t")
        mode, kind, oid = meta.decode().split()
        if kind == "blob":
            entries.append(TreeEntry(path.decode("utf-8", "surrogateescape"), mode, oid, None))
    if entries:
        check = git(gitdir, "cat-file", "--batch-check=%(objectname) %(objectsize)",
                    input="".join(e.oid + "\n" for e in entries).encode())
        sizes: dict[str, int] = {}
        for line in check.decode().splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[1].isdigit():
                sizes[parts[0]] = int(parts[1])
        for e in entries:
            e.size = sizes.get(e.oid)
    return entries


class BlobReader:
    """Reads blobs through one long-lived ``git cat-file --batch`` process."""

    def __init__(self, gitdir: Path):
        self._proc = subprocess.Popen(["git", "--git-dir", str(gitdir), "cat-file", "--batch"],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.DEVNULL)

    def read(self, oid: str) -> bytes | None:
        assert self._proc.stdin and self._proc.stdout
        self._proc.stdin.write(oid.encode() + b"\n")
        self._proc.stdin.flush()
        header = self._proc.stdout.readline().split()
        if len(header) != 3:
            return None  # "<oid> missing"
        data = self._proc.stdout.read(int(header[2]))
        self._proc.stdout.read(1)
        return data

    def close(self) -> None:
        if self._proc.stdin:
            self._proc.stdin.close()
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()

    def __enter__(self) -> "BlobReader":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class Candidate:
    """A baseline candidate file: source, not a symlink, <= 1 MiB, not binary."""

    path: str
    oid: str
    text: str


def candidate_files(gitdir: Path, rev: str, reader: BlobReader,
                    cache: dict[str, str | None] | None = None) -> list[Candidate]:
    """The baseline candidate files at `rev`, in tree (path) order.

    `cache` maps blob oid -> decoded text (None = not a candidate) and is meant
    to be shared across the cases of one repository, where most blobs repeat."""
    cache = {} if cache is None else cache
    out: list[Candidate] = []
    for e in list_tree(gitdir, rev):
        if e.mode == "120000" or e.size is None or e.size > MAX_FILE_BYTES or not is_source(e.path):
            continue
        if e.oid not in cache:
            data = reader.read(e.oid)
            if data is None or b"\0" in data[:BINARY_PROBE]:
                cache[e.oid] = None
            else:
                cache[e.oid] = data.decode("utf-8", "replace")
        text = cache[e.oid]
        if text is not None:
            out.append(Candidate(e.path, e.oid, text))
    return out


def _sparse_pattern(path: str) -> str:
    escaped = "".join("\\" + c if c in "*?[]!#\\ " else c for c in path)
    return "!/" + escaped


class Checkout:
    """One reusable work tree per repository, moved to each case's parent in turn."""

    def __init__(self, repo: str, mirror: Path, root: Path | None = None):
        self.repo = repo
        self.mirror = mirror.resolve()
        self.path = (root or work_dir()) / repo.replace("/", "+", 1)
        self.gitdir = self.path / ".git"

    def _git(self, *args: str, timeout: float = 600) -> bytes:
        return git(self.gitdir, "--work-tree", str(self.path), *args, timeout=timeout)

    def _lock(self) -> None:
        """Hold an exclusive lock on the work tree for this process's lifetime.

        Two runs moving one work tree to different parents would corrupt each
        other's cases; the second one fails at once instead (never waits)."""
        if getattr(self, "_lock_file", None) is not None:
            return
        import fcntl

        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(self.path.parent / (self.path.name + ".lock"), "w")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            raise RuntimeError(f"{self.path} is in use by another benchmark run; "
                               "pass --work DIR (or set CTXSEL_BENCH_WORK) to use another work tree") from None
        self._lock_file = handle

    def _init(self) -> None:
        self._lock()
        alternates = self.gitdir / "objects" / "info" / "alternates"
        if _is_git_dir(self.gitdir):
            alternates.write_text(str(self.mirror / "objects") + "\n")  # the mirror may have moved
            return
        if self.path.exists():
            shutil.rmtree(self.path)
        self.path.mkdir(parents=True)
        subprocess.run(["git", "init", "-q", str(self.path)], check=True, timeout=60,
                       stdout=subprocess.DEVNULL)
        alternates.parent.mkdir(parents=True, exist_ok=True)
        alternates.write_text(str(self.mirror / "objects") + "\n")
        shallow = self.mirror / "shallow"
        if shallow.is_file():
            shutil.copy(shallow, self.gitdir / "shallow")
        for key, value in (("core.logAllRefUpdates", "false"), ("gc.auto", "0"),
                           ("core.sparseCheckout", "true"), ("advice.detachedHead", "false")):
            git(self.gitdir, "config", key, value)

    def head(self) -> str | None:
        out = git(self.gitdir, "rev-parse", "-q", "--verify", "HEAD", check=False).strip()
        return out.decode() or None

    def materialize(self, rev: str) -> Path:
        """Move the work tree to `rev` (detached HEAD, no other refs); return its path."""
        self._init()
        rev = git(self.mirror, "rev-parse", "--verify", rev + "^{commit}").decode().strip()
        if self.head() == rev and not self._git("status", "--porcelain", "-uno"):
            return self.path
        missing = [e.path for e in list_tree(self.mirror, rev) if e.size is None]
        sparse = self.gitdir / "info" / "sparse-checkout"
        sparse.parent.mkdir(parents=True, exist_ok=True)
        # Always sparse ("/*" = everything) so that git re-applies the
        # exclusions at every checkout, including when the list becomes empty.
        sparse.write_text("/*\n" + "".join(_sparse_pattern(p) + "\n" for p in missing))
        self._git("checkout", "-q", "-f", "--detach", rev)
        self._git("clean", "-q", "-f", "-d")  # untracked leftovers; ignored files (.ctxsel/) stay
        for ref in git(self.gitdir, "for-each-ref", "--format=%(refname)").decode().split():
            git(self.gitdir, "update-ref", "-d", ref)
        return self.path
