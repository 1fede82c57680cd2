"""``ctxsel owners``: who owns these paths, and which files nobody owns (CODEOWNERS).

It needs no build graph, only the repository root: the build workspace's root when
there is one (found the cheap way, without loading its graph), else the git top
level, else ``--repo``/the current directory. So it works in any repository.
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path
from typing import List, Optional

import typer

from ..cli import GlobalOptions, app
from ..errors import UserError
from ..render import lines, quote_path, to_json, warn

FORMATS = ("text", "json")

# Shared by every command that takes --owner (blast-radius, tests, select).
CODEOWNERS_HELP = "CODEOWNERS file to use (default: .github/, root, docs/ or .gitlab/, as the host looks)."
SYNTAX_HELP = "github, gitlab or auto (gitlab when the file has [Section] headers or lives in .gitlab/)."
OWNER_HELP = "Keep only nodes a CODEOWNERS owner owns (repeatable: @user, @org/team, email)."
OWNER = typer.Option(None, "--owner", metavar="OWNER", help=OWNER_HELP)
CODEOWNERS = typer.Option(None, "--codeowners", metavar="PATH", help=CODEOWNERS_HELP)
CODEOWNERS_SYNTAX = typer.Option("auto", "--codeowners-syntax", metavar="SYNTAX", help=SYNTAX_HELP)


def repo_root(opts: GlobalOptions) -> Path:
    """The directory CODEOWNERS paths are relative to, without loading any build graph."""
    from ctxsel.adapters import find_workspace

    from ..codeowners import git_toplevel

    start = Path(opts.repo) if opts.repo else Path.cwd()
    if not start.exists():
        raise UserError(f"no such directory: {start}")
    try:
        root, _ = find_workspace(start, opts.adapter)
        return root
    except (UserError, ImportError, AttributeError):
        pass  # no build workspace (or an adapter that cannot load): owners needs no graph
    return git_toplevel(start) or start.resolve()


def repo_relative(spec: str, root: Path) -> str:
    """A user's path as the repository sees it.

    A path that exists from the current directory is made relative to ``root``; an
    absolute path outside the repository that does not exist means the repo root
    (``/docs/x.md``, as CODEOWNERS writes it); anything else is already repo-relative.
    So the owners of files that do not exist yet can be asked too.
    """
    top = root.resolve()
    cwd = Path.cwd().resolve()

    def inside(p: Path) -> str | None:
        try:
            rel = p.resolve().relative_to(top).as_posix()
        except ValueError:
            return None
        return "" if rel == "." else rel

    if os.path.isabs(spec):
        rel = inside(Path(spec))
        if rel is not None:
            return rel
        if Path(spec).exists():
            raise UserError(f"{spec} is outside the repository {root}")
        return spec.lstrip("/")
    from_cwd = cwd / spec
    if from_cwd.exists() or (cwd != top and inside(cwd) is not None):
        rel = inside(from_cwd)
        if rel is not None:
            return rel
    # Repo-relative from here on. ``..`` is resolved first: unresolved, a GitHub ``*``
    # matched "../other-repo/x" (owners of a file that is not in the repository), and
    # "docs/../a.txt" missed the rules written for "a.txt".
    norm = posixpath.normpath(spec.replace(os.sep, "/"))
    if norm == ".." or norm.startswith("../"):
        raise UserError(f"{spec} is outside the repository {root}")
    return "" if norm == "." else norm


def owners_question(opts: GlobalOptions, paths: List[str], unowned: Optional[str] = None,
                    codeowners: Optional[str] = None, syntax: str = "auto"):
    """The ``OwnersReport`` behind ``ctxsel owners`` (the MCP ``owners`` tool asks the same)."""
    from ..codeowners import load_for, owners_report

    rules = load_for(repo_root(opts), codeowners, syntax)
    assert rules.root is not None
    rel = [repo_relative(p, rules.root) for p in paths]
    # a directory is asked as ``dir/``: rules like ``/core/`` match only below a directory, so
    # ``core`` asked as a file came back unowned though every file in it is owned
    directories = {r for p, r in zip(paths, rel) if r and (p.endswith(("/", os.sep)) or (rules.root / r).is_dir())}
    under = repo_relative(unowned, rules.root) if unowned is not None else None
    return owners_report(rules, rel, under, directories)


@app.command("owners")
def owners(
    ctx: typer.Context,
    paths: Optional[List[str]] = typer.Argument(None, help="Files or directories (repo-relative or from the current directory)."),
    unowned: Optional[str] = typer.Option(None, "--unowned", metavar="DIR", help="List the files under DIR that no CODEOWNERS rule owns."),
    fmt: str = typer.Option("text", "--format", metavar="FORMAT", help="text or json."),
    codeowners: Optional[str] = CODEOWNERS,
    syntax: str = CODEOWNERS_SYNTAX,
) -> None:
    """The CODEOWNERS owners of each path ([] = unowned), as GitHub or GitLab computes them."""
    if fmt not in FORMATS:
        raise UserError(f"unknown --format {fmt!r} (choose {', '.join(FORMATS)})")
    if not paths and unowned is None:
        raise UserError("give paths to look up, or --unowned DIR", hint="ctxsel owners src/app.ts --format json")
    opts: GlobalOptions = ctx.obj
    report = owners_question(opts, paths or [], unowned, codeowners, syntax)
    if not opts.quiet:
        for w in report.warnings:
            warn(w)
    if fmt == "json":
        print(to_json(report.as_json()))
        return
    for path, names in report.owners.items():
        print(f"{quote_path(path) or '.'}\t{' '.join(names) if names else '(unowned)'}")
    if report.unowned is not None:
        if paths:
            print()
        lines([quote_path(f) for f in report.unowned])


# ---------------------------------------------------------------- --owner on other commands


def owner_scope(ws, owner: Optional[List[str]], codeowners: Optional[str], syntax: str) -> list[str]:
    """Load the CODEOWNERS the options name (only when --owner asks for it); the owners to pass on."""
    if not owner:
        return []
    ws.codeowners(codeowners, syntax)
    return list(owner)


def note_dropped(opts: GlobalOptions, dropped: Optional[int], owners: List[str], noun: str) -> None:
    """Say on stderr how many answers --owner removed (JSON carries ``dropped_by_owner``)."""
    if dropped is None or opts.quiet:
        return
    import sys

    print(f"ctxsel: note: {dropped} {noun}{'' if dropped == 1 else 's'} dropped (not owned by {', '.join(owners)})",
          file=sys.stderr)
