"""The ``ctxsel`` command line: global options, error handling, command registration.

Each command lives in ``ctxsel.commands.<name>`` and registers itself on ``app``;
command modules import heavy libraries (bm25s, faiss, tree-sitter) inside the
command function, never at module level, so ``ctxsel tests`` starts fast.
"""

from __future__ import annotations

import gc
import importlib
import os
import sys
from dataclasses import dataclass
from typing import Optional

import typer
from typer.core import TyperGroup

from .errors import CtxselError, UserError
from .render import warn

#: command -> the module of ``ctxsel.commands`` that defines it, so that ``ctxsel
#: blast-radius`` imports that module alone and builds that command alone: typer inspects
#: the signature of each command it turns into a click command, and importing and
#: building all eight cost a warm blast-radius ~3 ms more than its own (measured). A
#: command missing here still works, only slower: an unknown name registers every module.
COMMAND_MODULES: dict[str, str] = {
    "blast-radius": "graph_queries",
    "tests": "graph_queries",
    "owners": "owners",
    "pre-commit": "precommit",
    "graph": "graph_export",
    "mcp": "mcp",
    "select": "select",
    "index": "select",
}


class LazyCommandGroup(TyperGroup):
    """``app``'s click group: a command's module is imported, and the command built, when asked for.

    Listing the commands (``--help``, no arguments, the "did you mean" hint for an unknown
    name) registers and builds them all, so the help text is what eager imports gave.
    """

    def get_command(self, ctx: typer.Context, cmd_name: str):  # type: ignore[override]
        if cmd_name not in self.commands:
            module = COMMAND_MODULES.get(cmd_name)
            if module is not None:
                importlib.import_module(f".commands.{module}", __package__)
            info = _registered().get(cmd_name)
            if info is None:
                self.list_commands(ctx)  # unknown here: build every command (also for the hint)
            else:
                self.commands[cmd_name] = typer.main.get_command_from_info(
                    info, pretty_exceptions_short=app.pretty_exceptions_short, rich_markup_mode=app.rich_markup_mode
                )
        return self.commands.get(cmd_name)

    def list_commands(self, ctx: typer.Context) -> list[str]:
        _register()
        names = list(_registered())
        for name in names:
            if name not in self.commands:
                self.get_command(ctx, name)
        return names + [n for n in self.commands if n not in names]  # + any added with add_command


def _registered() -> dict[str, typer.models.CommandInfo]:
    """The typer commands registered on ``app`` so far, by name, in registration order."""
    return {info.name or typer.main.get_command_name(info.callback.__name__): info for info in app.registered_commands}


app = typer.Typer(
    cls=LazyCommandGroup,
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


def _print_version(value: bool) -> None:
    """``ctxsel --version``: the first line of a bug report, answered before any workspace is looked for."""
    if value:
        from . import __version__

        print(f"ctxsel {__version__}")
        raise typer.Exit()


@app.callback()
def _global(
    ctx: typer.Context,
    repo: Optional[str] = typer.Option(None, "--repo", metavar="DIR", help="Workspace directory (default: walk up from the current directory)."),
    adapter: str = typer.Option("auto", "--adapter", metavar="NAME", help="auto, bazel, nx, turbo, pnpm, yarn or npm."),
    source: str = typer.Option("auto", "--source", metavar="MODE", help="auto (the tool when installed), tool, or static (parse manifests)."),
    query_file: Optional[str] = typer.Option(None, "--query-file", metavar="FILE", help="Read a saved tool output (bazel query --output=xml|streamed_jsonproto) instead of running the tool."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Rebuild the graph instead of reusing .ctxsel/cache."),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks of internal errors."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No warnings or progress on stderr."),
    version: bool = typer.Option(False, "--version", is_eager=True, callback=_print_version, help="Print ctxsel's version and exit."),
) -> None:
    ctx.obj = GlobalOptions(repo, adapter, source, query_file, not no_cache, debug, quiet)


def _register() -> None:
    # One import per command module; each adds its commands to ``app``. Called only when
    # every command is wanted (``LazyCommandGroup``); add a new command to COMMAND_MODULES too.
    from .commands import graph_queries  # noqa: F401  blast-radius, tests
    from .commands import owners  # noqa: F401  owners (CODEOWNERS)
    from .commands import precommit  # noqa: F401  pre-commit
    from .commands import graph_export  # noqa: F401  graph (dot, mermaid, html)
    from .commands import mcp  # noqa: F401  mcp (the SDK is imported only when it runs)
    from .commands import select  # noqa: F401  select, index (context selection)


def _require_working_directory() -> None:
    """A ``UserError`` when the shell's directory was deleted under it (a checkout or
    ``git worktree remove`` took it away): workspace discovery, ``--files``, a relative
    ``--repo`` and ``GIT_DIR`` all start from it, and each died with "internal error:
    FileNotFoundError". git refuses the same way ("Unable to read current working directory")."""
    try:
        os.getcwd()
    except FileNotFoundError:
        raise UserError("the current directory no longer exists (deleted or moved)",
                        hint="cd into the repository again") from None


def main(argv: list[str] | None = None) -> int:
    """Entry point: user errors exit 2 with a short message, internal errors exit 1."""
    # typer vendors click in some versions; find its exception classes through typer's
    # own public ones so this works whichever click is behind it.
    click_exception = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")

    args = sys.argv[1:] if argv is None else argv
    debug = "--debug" in args or os.environ.get("CTXSEL_DEBUG") == "1"
    command = typer.main.get_command(app)
    try:
        _require_working_directory()
        rv = command.main(args=args, prog_name="ctxsel", standalone_mode=False)
        return rv if isinstance(rv, int) else 0
    except UserError as exc:
        if not ({"-q", "--quiet"} & set(args)):
            for w in exc.warnings:
                warn(w)
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
        if isinstance(exc, OSError) and exc.filename is not None:
            # a file of the repository that cannot be used: unreadable, or a FIFO/device where
            # a manifest should be (``paths.open_regular``): the file is the user's to fix
            print(f"ctxsel: error: {exc.filename}: {exc.strerror or exc}", file=sys.stderr)
            return 2
        print(f"ctxsel: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        print("  rerun with --debug for the traceback, and please report it", file=sys.stderr)
        return 1


def run() -> None:
    """The ``ctxsel`` executable (and ``python -m ctxsel``): ``main`` on this process's argv, then exit."""
    code = main()
    # Only interpreter shutdown follows, and its garbage collections would walk every
    # object typer and the graph made (~7 ms of a 85 ms warm blast-radius, measured).
    # Frozen objects are not collected: the OS frees the process in one go. Files and
    # temporary directories are closed by ``with`` blocks and atexit, not by the GC.
    gc.freeze()
    sys.exit(code)


if __name__ == "__main__":  # pragma: no cover
    run()
