"""``ctxsel select`` and ``ctxsel index``: context for an LLM, chosen with the build graph."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, List, Optional

import typer

from ..cli import GlobalOptions, app
from ..errors import UserError
from ..render import lines, quote_path, to_json
from . import changes as chg
from .graph_queries import _emit_warnings

SELECT_FORMATS = ("markdown", "json", "paths")


def _workspace_options(opts: GlobalOptions) -> dict:
    return {"adapter": opts.adapter, "source": opts.source, "query_file": opts.query_file, "use_cache": opts.use_cache}


@contextmanager
def _progress(quiet: bool) -> Iterator:
    """A rich progress bar on stderr, shown only for work that takes over a second."""
    if quiet or not sys.stderr.isatty():
        yield None
        return
    import time

    from rich.console import Console
    from rich.progress import Progress

    started = time.monotonic()
    bar: dict = {}
    with Progress(transient=True, console=Console(stderr=True)) as progress:
        def report(phase: str, done: int, total: int) -> None:
            if time.monotonic() - started < 1.0 and done < total:
                return
            if "task" not in bar:
                bar["task"] = progress.add_task(phase, total=total)
            progress.update(bar["task"], completed=done, total=total)

        yield report


@app.command("select")
def select_command(
    ctx: typer.Context,
    query: str = typer.Argument("", help="What the change is about (empty: built from the seeds and the change)."),
    targets: Optional[List[str]] = typer.Argument(None, help="Changed targets/packages/files (their nodes count as changed)."),
    seed: Optional[List[str]] = typer.Option(None, "--seed", metavar="FILE", help="A file you are working on (repeatable); its nodes count as changed."),
    since: Optional[str] = chg.SINCE,
    base: Optional[str] = chg.BASE,
    head: Optional[str] = chg.HEAD,
    staged: bool = chg.STAGED,
    files: Optional[List[str]] = chg.FILES,
    owner: Optional[List[str]] = typer.Option(None, "--owner", metavar="OWNER", help="Only files this CODEOWNERS owner owns (repeatable)."),
    budget: int = typer.Option(8000, "--budget", min=1, metavar="TOKENS", help="Hard token budget of the output."),
    scope: Optional[str] = typer.Option(None, "--scope", metavar="SCOPE", help="graph, blast-radius or repo (default: [select] scope in .ctxsel.toml, else repo)."),
    dense: Optional[bool] = typer.Option(None, "--dense/--no-dense", help="Use the embedding leg (needs the model packages)."),
    weights: Optional[str] = typer.Option(None, "--weights", metavar="JSON", help='Ranking overrides as JSON, e.g. \'{"bm25": 1.2}\'.'),
    fmt: str = typer.Option("markdown", "--format", metavar="FORMAT", help="markdown, json or paths."),
    explain_scope: bool = typer.Option(False, "--explain-scope", help="JSON: list the files of the scope too."),
    timings: bool = typer.Option(False, "--timings", help="Print phase timings on stderr."),
) -> None:
    """The chunks of the repository that matter for a change, packed into a token budget."""
    from ..select import SelectRequest, select

    if fmt not in SELECT_FORMATS:
        raise UserError(f"unknown --format {fmt!r} (choose {', '.join(SELECT_FORMATS)})")
    opts: GlobalOptions = ctx.obj
    request = SelectRequest(
        query=query, targets=targets or [], seeds=seed or [], since=since, base=base, head=head, staged=staged,
        files=files or [], owners=owner or [], budget=budget, scope=scope, dense=dense, weights=weights,
    )
    with _progress(opts.quiet) as progress:
        result = select(opts.repo, request, _workspace_options(opts), progress)
    _emit_warnings(opts, result.warnings)
    if timings:
        print("ctxsel: timings: " + ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in result.timings.items()), file=sys.stderr)
    if fmt == "json":
        print(to_json(result.as_json(explain_scope)))
    elif fmt == "paths":
        lines([quote_path(path) for path in dict.fromkeys(b.path for b in result.packed.blocks)])
    else:
        sys.stdout.write(result.markdown())


@app.command("index")
def index_command(
    ctx: typer.Context,
    rebuild: bool = typer.Option(False, "--rebuild", help="Forget the stored index and build it from scratch."),
    fmt: str = typer.Option("text", "--format", metavar="FORMAT", help="text or json."),
) -> None:
    """Build or update the chunk index under .ctxsel/index (incremental by content hash)."""
    from ..files import FileSettings
    from ..index import clear_index, update_index
    from ..repoconfig import load_repo_config
    from ..select import chunk_settings_from, open_workspace

    opts: GlobalOptions = ctx.obj
    if fmt not in ("text", "json"):
        raise UserError(f"unknown --format {fmt!r} (choose text, json)")
    _, root, warnings = open_workspace(opts.repo, _workspace_options(opts))
    _emit_warnings(opts, [w for w in warnings if "no build workspace" not in w])
    config = load_repo_config(root)
    settings = FileSettings.from_config(config)
    if rebuild:
        clear_index(root)
    with _progress(opts.quiet) as progress:
        index = update_index(Path(root), chunk_settings_from(config), settings, progress)
        index.bm25(Path(root))  # build the lexical model now, so the first select is warm
    s = index.stats
    _emit_warnings(opts, s.warnings)  # e.g. the index could not be stored (read-only checkout)
    if fmt == "json":
        print(to_json({"root": str(root), "files": s.files, "chunks": s.chunks, "added": s.added, "changed": s.changed,
                       "deleted": s.deleted, "unchanged": s.unchanged, "skipped": s.skipped,
                       "seconds": round(s.seconds, 3)}))
    else:
        skipped = ", ".join(f"{n} {r}" for r, n in sorted(s.skipped.items())) or "none"
        print(f"{s.files} files, {s.chunks} chunks ({s.added} added, {s.changed} changed, {s.deleted} deleted, "
              f"{s.unchanged} unchanged) in {s.seconds:.1f}s; skipped: {skipped}")
