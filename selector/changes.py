"""Which files a change touches, asked of git.

Four ways to name a change, chosen to match what each tool's own "affected" mode
does so that ctxsel's answer can be compared with it:

- ``--since REF``: the merge-base of REF and HEAD against the *working tree*,
  uncommitted edits and untracked (not ignored) files included. That is Nx's
  ``--base REF`` and Turborepo's ``[REF]``; pnpm's ``[REF]`` ignores untracked files
  and diffs REF itself, which only differs when REF is not an ancestor of HEAD
  (then the merge-base is what a branch author means: "what did *my* branch change").
- ``--base A --head B``: merge-base(A, B) against B, committed history only
  (Nx ``--base A --head B``, Turborepo ``[A...B]``, a CI pull-request job).
- ``--staged``: the index against HEAD (a pre-commit hook; before the first commit
  against the empty tree).
- ``--files F...``: the files given, no git needed (Nx ``--files``); a path that no
  longer exists counts as deleted.

Renames are detected (``-M``) so a moved file is reported once with its old path;
``affected`` decides which side counts. A shallow clone or an unknown ref raises
``GitError`` (exit 2) rather than silently diffing against nothing, and every git
call has a timeout.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from .errors import GitError

DEFAULT_GIT_TIMEOUT = 30.0


def git_timeout() -> float:
    """``CTXSEL_GIT_TIMEOUT`` in seconds (default 30), read when git is first run.

    Read at call time and validated, not at import: a typo such as ``30s`` used to
    crash every command at import ("internal error: ValueError"), ``owners`` included,
    and ``0``/``nan`` made every git call fail or crash.
    """
    raw = os.environ.get("CTXSEL_GIT_TIMEOUT", "").strip()
    if not raw:
        return DEFAULT_GIT_TIMEOUT
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise GitError(f"CTXSEL_GIT_TIMEOUT={raw!r} is not a positive number of seconds",
                       hint=f"unset it for the default ({DEFAULT_GIT_TIMEOUT:.0f} s) or set e.g. CTXSEL_GIT_TIMEOUT=120")
    return value
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"  # git's well-known empty tree

# How a path git prints is decoded: a name that is not UTF-8 (``caf\xe9.txt`` from a Latin-1
# system) keeps its bytes as lone surrogates, as ``os.listdir`` gives them to the adapters, so it
# is the same string as the file the graph owns. "replace" turned it into ``caf\ufffd.txt``, which
# no node owns: the change went untested although a Bazel glob (measured: bazel 4.2.3 query)
# and a package directory both include the file.
PATH_ERRORS = "surrogateescape"

ADDED, MODIFIED, DELETED, RENAMED = "A", "M", "D", "R"


@dataclass(frozen=True)
class ChangedFile:
    """One changed path, workspace-relative POSIX. ``old_path`` is set for renames."""

    path: str
    status: str  # A, M, D or R
    old_path: str | None = None


@dataclass
class FileChanges:
    """The changed files and the revision their *old* side lives in.

    ``base_rev`` is the commit whose tree holds deleted and renamed-away files (so
    their former owners can be found); None when there is no git history to ask.
    """

    files: list[ChangedFile]
    description: str
    base_rev: str | None = None
    head_rev: str | None = None
    warnings: list[str] = field(default_factory=list)
    staged: bool = False  # the new side is git's index, not ``head_rev`` or the working tree


class Git:
    """Runs git in one workspace directory; every call bounded by ``git_timeout()``."""

    def __init__(self, root: Path, timeout: float | None = None) -> None:
        self.root = root
        self.timeout = timeout if timeout is not None else git_timeout()
        self._state: tuple[bool, str | None] | None = None  # (shallow, HEAD sha), asked once
        self._env: dict[str, str] | None = None

    def run(self, *args: str, check: bool = True, input: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
        env = self.environment()
        argv = ["git", "-c", "core.quotepath=off", *args]
        try:
            proc = subprocess.run(
                argv, cwd=self.root, env=env, input=input, capture_output=True, timeout=self.timeout
            )
        except FileNotFoundError:
            raise GitError("git is not installed (change selectors need it)", hint="use --files F... instead") from None
        except subprocess.TimeoutExpired:
            raise GitError(f"`git {' '.join(args[:3])}` took more than {self.timeout:.0f} s",
                           hint="set CTXSEL_GIT_TIMEOUT=SECONDS to wait longer") from None
        if check and proc.returncode != 0:
            msg = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            raise GitError(f"`git {' '.join(args)}` failed: {msg[0] if msg else f'exit {proc.returncode}'}")
        return proc

    def environment(self) -> dict[str, str]:
        """The environment of every git call: the caller's, without pagers or optional locks.

        Hooks run with ``GIT_INDEX_FILE`` (and in a linked worktree ``GIT_DIR``) set;
        the index is kept, since a pre-commit hook must see that index. But ``GIT_DIR``
        without ``GIT_WORK_TREE`` makes git take the *current directory* as the top of
        the work tree, and git runs here in the workspace root: for a workspace below
        the top, ``--relative`` then did nothing, every staged path kept its ``ws/``
        prefix, no node owned it, and the hook passed with "nothing to test". When
        discovery from the root finds the same repository, ``GIT_DIR`` is dropped so
        git finds the real work tree itself.
        """
        if self._env is None:
            env = dict(os.environ, GIT_OPTIONAL_LOCKS="0", LC_ALL="C", GIT_PAGER="cat")
            if env.get("GIT_DIR") and not env.get("GIT_WORK_TREE") and self._same_repository(env):
                del env["GIT_DIR"]
            self._env = env
        return self._env

    def _same_repository(self, env: dict[str, str]) -> bool:
        """Whether git, finding the repository from the root on its own, reaches ``GIT_DIR``."""
        discover = {k: v for k, v in env.items() if k != "GIT_DIR"}
        try:
            proc = subprocess.run(["git", "rev-parse", "--absolute-git-dir"], cwd=self.root, env=discover,
                                  capture_output=True, timeout=self.timeout)
        except (OSError, subprocess.TimeoutExpired):
            return False
        found = proc.stdout.decode("utf-8", "replace").strip()
        given = os.path.join(os.getcwd(), env["GIT_DIR"])  # a relative GIT_DIR is relative to where we were started
        return proc.returncode == 0 and bool(found) and os.path.realpath(found) == os.path.realpath(given)

    def out(self, *args: str) -> str:
        return self.run(*args).stdout.decode("utf-8", "replace").strip()

    # ------------------------------------------------------------ repository facts
    def _probe(self) -> tuple[bool, str | None]:
        """One git process for three facts (a pre-commit hook pays per process)."""
        if self._state is None:
            proc = self.run("rev-parse", "--is-inside-work-tree", "--is-shallow-repository",
                            "--verify", "--quiet", "HEAD^{commit}", check=False)
            lines = proc.stdout.decode("utf-8", "replace").split()
            if len(lines) < 2 or lines[0] != "true":
                raise _not_a_work_tree(self.root, proc.stderr)
            self._state = (lines[1] == "true", lines[2] if proc.returncode == 0 and len(lines) > 2 else None)
        return self._state

    def ensure_repo(self) -> None:
        self._probe()

    def is_shallow(self) -> bool:
        return self._probe()[0]

    def has_head(self) -> bool:
        return self._probe()[1] is not None

    def head(self) -> str:
        sha = self._probe()[1]
        if sha is None:
            raise GitError("HEAD does not exist yet (no commit)")
        return sha

    def commit(self, ref: str) -> str:
        """The commit sha ``ref`` names, or a GitError that says why not."""
        if ref.startswith("-"):
            raise GitError(f"not a git revision: {ref!r}")
        proc = self.run("rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}", check=False)
        if proc.returncode == 0:
            return proc.stdout.decode().strip()
        if self.is_shallow():
            raise GitError(f"unknown git revision {ref!r} in a shallow clone",
                           hint="fetch the history it needs: git fetch --unshallow (CI: fetch-depth: 0)")
        raise GitError(f"unknown git revision {ref!r}", hint="git branch -a / git log --oneline list what exists")

    def merge_base(self, a: str, b: str) -> str:
        proc = self.run("merge-base", a, b, check=False)
        if proc.returncode == 0:
            return proc.stdout.decode().strip()
        if self.is_shallow():
            raise GitError("the merge-base is missing from this shallow clone",
                           hint="fetch the history it needs: git fetch --unshallow (CI: fetch-depth: 0)")
        raise GitError(f"{a[:12]} and {b[:12]} have no common ancestor")

    def prefix(self) -> str:
        """The workspace directory relative to the git top level ("" at the top)."""
        return self.out("rev-parse", "--show-prefix").rstrip("/")

    # ------------------------------------------------------------ diffs
    def name_status(self, *revs: str, cached: bool = False) -> list[ChangedFile]:
        args = ["diff", "--no-ext-diff", "--no-textconv", "--name-status", "-M", "-z", "--relative"]
        if cached:
            args.append("--cached")
        return parse_name_status(self.run(*args, *revs, "--").stdout)

    def untracked(self) -> list[ChangedFile]:
        raw = self.run("ls-files", "--others", "--exclude-standard", "-z").stdout
        return [ChangedFile(p, ADDED) for p in raw.decode("utf-8", PATH_ERRORS).split("\0") if p]


def _not_a_work_tree(root: Path, stderr: bytes) -> GitError:
    """Why git cannot answer in ``root``, in git's own words when it gave one.

    "Not a repository" is the common case; but git also refuses a repository it does
    not trust (``detected dubious ownership``: a CI container running as another user)
    and then the fix is ``safe.directory``, not ``--files``, so that reason is passed on.
    """
    said = [ln.strip() for ln in stderr.decode("utf-8", "replace").splitlines() if ln.startswith("fatal:")]
    reason = said[0][len("fatal:"):].strip() if said else ""
    if reason.startswith("not a git repository:"):
        # git names the directory it was sent to: a ``.git`` file whose ``gitdir:`` line points
        # nowhere (a moved or deleted worktree or submodule), or a GIT_DIR that is not a
        # repository. "Not inside a git work tree" sent the user looking for a missing .git.
        target = reason.partition(":")[2].strip().strip("'")
        if os.environ.get("GIT_DIR"):
            source, fix = "GIT_DIR", "unset GIT_DIR or point it at the repository"
        else:
            source, fix = "the gitdir: line of a .git file", "fix that line or remove the .git file"
        return GitError(f"git cannot use {root}: {source} points to {target}, which is not a git repository",
                        hint=f"{fix}, or use --files F... instead")
    if not reason or reason.startswith("not a git repository"):
        return GitError(f"{root} is not inside a git work tree",
                        hint="change selectors (--since/--base/--staged) need git; use --files F... instead")
    hint = None
    if "safe.directory" in stderr.decode("utf-8", "replace"):
        hint = f"if you trust it: git config --global --add safe.directory {root}"
    return GitError(f"git cannot use {root}: {reason}", hint=hint)


def split_range(spec: str, option: str) -> tuple[str, str | None]:
    """``A...B`` -> (A, B) as git spells a merge-base range (an empty side is HEAD).

    Turborepo writes ``[A...B]`` and CI templates pass ``origin/main...HEAD``; without
    this the whole string went to ``rev-parse`` and came back "unknown git revision"
    although both refs exist. ``A..B`` is refused: git diff reads it as "A against B",
    git log as "B's commits since the merge-base", and ctxsel will not guess which.
    A ref name cannot contain ``..`` (git check-ref-format), so splitting is safe.
    """
    if "..." in spec:
        a, _, b = spec.partition("...")
        return a or "HEAD", b or "HEAD"
    if ".." in spec and not spec.startswith("-"):
        raise GitError(f"{option} {spec}: a two-dot range is ambiguous",
                       hint=f"ctxsel diffs from the merge-base: write {option} {spec.replace('..', '...', 1)}")
    return spec, None


def parse_name_status(raw: bytes) -> list[ChangedFile]:
    """Parse ``git diff --name-status -z`` (``R087\\0old\\0new`` for renames)."""
    parts = raw.decode("utf-8", PATH_ERRORS).split("\0")
    out: list[ChangedFile] = []
    i = 0
    while i < len(parts) and parts[i]:
        code = parts[i]
        kind = code[0]
        if kind in "RC":
            old, new = parts[i + 1], parts[i + 2]
            i += 3
            # A copy leaves its source untouched: only the new file is a change.
            out.append(ChangedFile(new, RENAMED, old) if kind == "R" else ChangedFile(new, ADDED))
            continue
        path = parts[i + 1]
        i += 2
        status = {"A": ADDED, "D": DELETED}.get(kind, MODIFIED)  # M, T (type), U (unmerged)
        out.append(ChangedFile(path, status))
    return out


def _dedupe(files: Sequence[ChangedFile]) -> list[ChangedFile]:
    seen: dict[str, ChangedFile] = {}
    for f in files:
        seen.setdefault(f.path, f)
    return sorted(seen.values(), key=lambda f: f.path)


def changed_files(
    root: Path,
    since: str | None = None,
    base: str | None = None,
    head: str | None = None,
    staged: bool = False,
    files: Sequence[str] | None = None,
    untracked: bool = True,
    directories: Sequence[Path] | None = None,
) -> FileChanges:
    """The files one change selector names, relative to the workspace ``root``. ``directories``:
    where a relative ``--files`` path is read from, first match wins (``Adapter.spec_directories``:
    the shell's directory, ``--repo DIR``, the root); default the shell's directory, then the root."""
    chosen = [name for name, on in (("--since", since), ("--base", base), ("--staged", staged), ("--files", files)) if on]
    if head and not base:
        raise GitError("--head needs --base (the range is merge-base(base, head)..head)")
    if len(chosen) > 1:
        raise GitError(f"choose one change selector, not {' and '.join(chosen)}")
    if files:
        return _explicit_files(root, files, directories)
    if since and ".." in since:
        raise GitError(f"--since takes one ref, not the range {since!r}",
                       hint="for a commit range use --base A...B (or --base A --head B)")
    if base:
        base, range_head = split_range(base, "--base")
        if range_head is not None and head:
            raise GitError(f"--base {base}...{range_head} already names the head; drop --head {head}")
        head = head or range_head
    git = Git(root)
    git.ensure_repo()
    if since:
        # Before resolving REF: in a repository with no commit every ref is "unknown",
        # and that message would send the user looking for a typo.
        if not git.has_head():
            raise GitError("--since needs at least one commit (HEAD does not exist yet)",
                           hint="use --staged to test what the first commit will record")
        ref = git.commit(since)
        mb = git.merge_base(ref, "HEAD")
        found = git.name_status(mb)
        if untracked:
            found += git.untracked()
        return FileChanges(_dedupe(found), f"merge-base of {since} ({mb[:10]}) vs working tree", mb, None)
    if base:
        if not head and not git.has_head():
            raise GitError("--base compares with HEAD, which does not exist yet (no commit on this branch)",
                           hint="pass --head B, or use --staged to test what the first commit will record")
        a = git.commit(base)
        b = git.commit(head or "HEAD")
        mb = git.merge_base(a, b)
        found = git.name_status(mb, b)
        return FileChanges(_dedupe(found), f"{base}...{head or 'HEAD'} ({mb[:10]}..{b[:10]})", mb, b)
    if staged:
        if git.has_head():
            return FileChanges(_dedupe(git.name_status("HEAD", cached=True)), "staged changes vs HEAD", git.head(),
                               staged=True)
        return FileChanges(_dedupe(git.name_status(EMPTY_TREE, cached=True)), "staged changes (no commit yet)", None,
                           staged=True)
    raise GitError("no change selector given (--since REF, --base A [--head B], --staged or --files F...)")


def _file_items(real_root: Path, spec: str, directories: Sequence[Path] | None) -> list[str]:
    """One ``--files`` argument as paths: Nx's ``--files=a,b`` form is split on commas, unless
    the whole argument is a file that exists (``docs/a,b.md`` is a valid file name)."""
    whole = spec.strip()
    if "," in whole:
        rel = _workspace_relative(real_root, whole, directories)
        if rel is None or not os.path.lexists(real_root / rel):
            return [item.strip() for item in whole.split(",") if item.strip()]
    return [whole] if whole else []


def _explicit_files(root: Path, files: Sequence[str], directories: Sequence[Path] | None = None) -> FileChanges:
    """``--files``: paths as typed (relative to the current directory or the root)."""
    out: list[ChangedFile] = []
    warnings: list[str] = []
    real_root = root.resolve()
    for spec in files:
        for item in _file_items(real_root, spec, directories):
            rel = _workspace_relative(real_root, item, directories)
            if rel is None:
                warnings.append(f"--files {item}: outside the workspace {root}, ignored")
                continue
            status = MODIFIED if os.path.lexists(real_root / rel) else DELETED  # a dangling symlink is still there
            out.append(ChangedFile(rel, status))
    base_rev = None
    if any(f.status == DELETED for f in out):
        # A deleted file's owners live in HEAD's graph, when there is one to ask.
        try:
            git = Git(root)
            base_rev = git.head() if git.has_head() else None
        except GitError:
            base_rev = None
    return FileChanges(_dedupe(out), "files given with --files", base_rev, None, warnings)


def _workspace_relative(real_root: Path, spec: str, directories: Sequence[Path] | None = None) -> str | None:
    """``spec`` relative to the workspace: the first candidate that exists, else the first inside
    it read from the shell's directory or the root only, as before ``--repo DIR`` joined the
    directories: which directory a deleted file was typed from cannot be told, and its answer
    must not move."""
    bases = list(directories) if directories is not None else [Path.cwd(), real_root]
    candidates = [Path(spec)] if os.path.isabs(spec) else [base / spec for base in bases]
    fallback: str | None = None
    for index, cand in enumerate(candidates):
        p = Path(os.path.normpath(cand))
        rel = _relative_through_links(real_root, p)
        if rel is None:
            continue
        if p.exists() or p.is_symlink():
            return rel
        if index in (0, len(candidates) - 1):
            fallback = fallback or rel
    return fallback


def _relative_through_links(real_root: Path, p: Path) -> str | None:
    """``p`` relative to ``real_root``, following symlinks in its *directories* only.

    The directory is resolved whether or not the file still exists, so a deleted file
    spelled through a symlinked path (``/tmp`` on macOS, a linked checkout) is still
    inside the workspace. The file itself is not followed: a symlink that changed is
    that path's change (what git reports), not its target's.
    """
    if not p.name:
        return None
    for parent in (p.parent.resolve(), p.parent):
        try:
            return (parent / p.name).relative_to(real_root).as_posix()
        except ValueError:
            continue
    return None
