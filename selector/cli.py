"""The ``ctxsel`` command line: global options, error handling, command registration.

Each command lives in ``ctxsel.commands.<name>`` and registers itself on ``app``;
command modules import heavy libraries (bm25s, faiss, tree-sitter) inside the
command function, never at module level, so ``ctxsel tests`` starts fast.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Optional

import typer

from .errors import CtxselError, UserError

app = typer.Typer(
    name="ctxsel",
    help="Build-graph-aware context selector for monorepos (Bazel, pnpm, npm, yarn, Nx, Turborepo).",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


@dataclass
class GlobalOptions:
    repo: Optional[str] = None
    adapter: str = "auto"
    source: str = "auto"
    query_file: Optional[str] = None
    use_cache: bool = True
    debug: bool = False
    quiet: bool = False

    def open(self):
        """Open the workspace these options name (``ctxsel.Workspace``)."""
        from .workspace import Workspace

        return Workspace.open(
            self.repo, adapter=self.adapter, source=self.source, query_file=self.query_file, use_cache=self.use_cache
        )


@app.callback()
def _global(
    ctx: typer.Context,
    repo: Optional[str] = typer.Option(None, "--repo", help="Workspace directory (default: walk up from the current directory)."),
    adapter: str = typer.Option("auto", "--adapter", help="auto, bazel, nx, turbo, pnpm, yarn or npm."),
    source: str = typer.Option("auto", "--source", help="auto (the tool when installed), tool, or static (parse manifests)."),
    query_file: Optional[str] = typer.Option(None, "--query-file", help="Read a saved tool output (bazel query --output=xml|streamed_jsonproto) instead of running the tool."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Rebuild the graph instead of reusing .ctxsel/cache."),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks of internal errors."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No warnings or progress on stderr."),
) -> None:
    ctx.obj = GlobalOptions(repo, adapter, source, query_file, not no_cache, debug, quiet)


def _register() -> None:
    # One import per command module; each adds its commands to ``app``.
    from .commands import graph_queries  # noqa: F401  blast-radius, tests
    from .commands import owners  # noqa: F401  owners (CODEOWNERS)
    from .commands import precommit  # noqa: F401  pre-commit
    from .commands import graph_export  # noqa: F401  graph (dot, mermaid, html)
    from .commands import mcp  # noqa: F401  mcp (the SDK is imported only when it runs)
    from .commands import select  # noqa: F401  select, index (context selection)


_register()


def main(argv: list[str] | None = None) -> int:
    """Entry point: user errors exit 2 with a short message, internal errors exit 1."""
    # typer vendors click in some versions; find its exception classes through typer's
    # own public ones so this works whichever click is behind it.
    click_exception = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")

    args = sys.argv[1:] if argv is None else argv
    debug = "--debug" in args or os.environ.get("CTXSEL_DEBUG") == "1"
    command = typer.main.get_command(app)
    try:
        rv = command.main(args=args, prog_name="ctxsel", standalone_mode=False)
        return rv if isinstance(rv, int) else 0
    except UserError as exc:
        print(f"ctxsel: error: {exc.render()}", file=sys.stderr)
        return exc.exit_code
    except typer.Exit as exc:
        return exc.exit_code
    except click_exception as exc:
        exc.show()
        return 2
    except typer.Abort:
        print("ctxsel: aborted", file=sys.stderr)
        return 130
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except CtxselError as exc:
        print(f"ctxsel: error: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # the one place that catches everything
        if debug:
            raise
        print(f"ctxsel: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        print("  rerun with --debug for the traceback, and please report it", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
