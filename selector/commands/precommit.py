"""``ctxsel pre-commit``: the staged change's scoped test command, for a git hook.

Prints the affected tests and the repo tool's own command for them; with ``--run``
runs that command and exits with its status, so a hook blocks the commit exactly
when the tests that the staged change can break fail. Nothing to test is a success
(exit 0), never "run everything". Kept to the cached graph and one ``git diff
--cached`` so it answers well under a second on large workspaces.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Optional

import typer

from ..cli import GlobalOptions, app
from ..errors import ToolError, UserError
from ..render import lines, to_json, warn
from . import changes as chg
from .graph_queries import tests_json

FORMATS = ("text", "json", "command")


@app.command("pre-commit")
def pre_commit(
    ctx: typer.Context,
    run: bool = typer.Option(False, "--run", help="Run the test command (inheriting the terminal) and exit with its status."),
    fmt: str = typer.Option("text", "--format", help="text, json or command."),
    explain: bool = chg.EXPLAIN,
    timeout: Optional[float] = typer.Option(3600.0, "--timeout", min=1, help="With --run: stop the tests after this many seconds (exit 124)."),
) -> None:
    """The tests the staged changes could break, and the tool's command to run them."""
    if fmt not in FORMATS:
        raise UserError(f"unknown --format {fmt!r} (choose {', '.join(FORMATS)})")
    opts: GlobalOptions = ctx.obj
    ws = opts.open()
    roots, changes = chg.select_roots(ws, [], chg.ChangeSelectors(staged=True))
    sel = ws.tests(roots=roots)
    if not opts.quiet:
        for w in dict.fromkeys(sel.warnings):
            warn(w)
    chg.report_changes(changes, ws.adapter.node_noun, opts.quiet or fmt != "text")
    why = chg.explain_rows(sel.tests, ws.graph.paths_to(roots), changes) if explain else []
    if fmt == "json":
        print(to_json(tests_json(sel, changes, why if explain else None)))
    elif fmt == "command":
        if sel.command:
            print(sel.command)
    elif not sel.tests:
        print("ctxsel: nothing to test for the staged changes")
    else:
        lines([chg.explain_line(r) for r in why] if explain else sel.tests)
        print()
        print(sel.command)
    if run and sel.argv:
        sys.stdout.flush()
        raise typer.Exit(_run(sel.argv, str(ws.root), timeout, sel.command, opts.quiet))


def _run(argv: list[str], cwd: str, timeout: float | None, shown: str, quiet: bool) -> int:
    """Run the tests in the workspace root with this process's stdin/stdout/stderr."""
    if not quiet:
        print(f"ctxsel: running: {shown}", file=sys.stderr)
    try:
        return subprocess.run(argv, cwd=cwd, timeout=timeout).returncode
    except FileNotFoundError:
        raise ToolError(f"cannot run {argv[0]!r}: not found on PATH",
                        hint="install the build tool, or run the printed command yourself") from None
    except subprocess.TimeoutExpired:
        print(f"ctxsel: the tests ran longer than --timeout {timeout:.0f} s and were stopped", file=sys.stderr)
        return 124
