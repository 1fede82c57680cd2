"""``ctxsel pre-commit``: the staged change's scoped test command, for a git hook.

Prints the affected tests and the repo tool's own command for them; with ``--run``
runs that command and exits with its status, so a hook blocks the commit exactly
when the tests that the staged change can break fail. With ``--format json`` or
``command`` the tests' own output goes to stderr: stdout stays that one document for
the hook or CI step that parses it, the test log still streams to the hook's log, and
the exit status says whether the tests passed. Nothing to test is a success
(exit 0), never "run everything". Kept to the cached graph and one ``git diff
--cached`` so it answers well under a second on large workspaces.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from typing import List, Optional

import typer

from ..cli import GlobalOptions, app
from ..errors import ToolError, UserError
from ..render import lines, to_json, warn
from . import changes as chg
from .graph_queries import TARGET, target_names, tests_json

FORMATS = ("text", "json", "command")


@app.command("pre-commit")
def pre_commit(
    ctx: typer.Context,
    run: bool = typer.Option(
        False, "--run",
        help="Run the test command (inheriting the terminal) and exit with its status; with --format json or command "
        "the tests' output goes to stderr, so stdout stays parseable.",
    ),
    fmt: str = typer.Option("text", "--format", metavar="FORMAT", help="text, json or command."),
    explain: bool = chg.EXPLAIN,
    timeout: Optional[float] = typer.Option(3600.0, "--timeout", min=1, metavar="SECONDS", help="With --run: stop the tests after this many seconds (exit 124)."),
    target: Optional[List[str]] = TARGET,
) -> None:
    """The tests the staged changes could break, and the tool's command to run them."""
    if fmt not in FORMATS:
        raise UserError(f"unknown --format {fmt!r} (choose {', '.join(FORMATS)})")
    opts: GlobalOptions = ctx.obj
    ws = opts.open()
    roots, changes = chg.select_roots(ws, [], chg.ChangeSelectors(staged=True))
    sel = ws.tests(roots=roots, target=target_names(target))
    if changes is not None:
        sel = ws.tests_for_change(sel, changes)
    if not opts.quiet:
        for w in dict.fromkeys(sel.warnings):
            warn(w)
    chg.report_changes(changes, ws.adapter.node_noun, opts.quiet or fmt != "text")
    why = chg.explain_rows(sel.tests, ws.graph.paths_to(roots, only=sel.tests), changes) if explain else []
    if fmt == "json":
        print(to_json(tests_json(sel, changes, why if explain else None)))
    elif fmt == "command":
        if sel.command:
            print(sel.command)
    elif not sel.tests:
        print("ctxsel: nothing to test for the staged changes" if sel.targets == ["test"]
              else f"ctxsel: nothing to run ({'/'.join(sel.targets)}) for the staged changes")
    else:
        lines([chg.explain_line(r) for r in why] if explain else sel.tests)
        print()
        print(sel.command)
    if run and sel.argv:
        sys.stdout.flush()
        raise typer.Exit(_run(sel.argv, str(ws.root), timeout, sel.command, opts.quiet, output_to_stderr=fmt != "text"))


KILL_GRACE = 5.0  # seconds between SIGTERM and SIGKILL when --timeout stops the tests


def _run(
    argv: list[str], cwd: str, timeout: float | None, shown: str, quiet: bool, output_to_stderr: bool = False
) -> int:
    """Run the tests in the workspace root with this process's stdin/stdout/stderr.

    ``output_to_stderr`` sends the tests' stdout to file descriptor 2: after a JSON or
    command document on stdout, the runner's log there made the document unparseable.

    Outside an interactive terminal (a git hook, the pre-commit framework, CI) the
    tests get a process group of their own so that ``--timeout`` stops all of them:
    runners fork workers (pnpm a shell per package, jest its workers), and killing
    only the direct child left those running and holding the hook's output pipe, so
    the pre-commit framework waited for them long after ``--timeout``. At a terminal
    the tests stay in ctxsel's job, where ^C and ^Z reach them as the shell intends.
    """
    if not quiet:
        print(f"ctxsel: running: {shown}", file=sys.stderr)
    isolate = os.name == "posix" and _foreground_tty() is None
    try:
        proc = subprocess.Popen(
            argv, cwd=cwd, stdout=2 if output_to_stderr else None, **(_own_process_group() if isolate else {})
        )
    except FileNotFoundError:
        raise ToolError(f"cannot run {argv[0]!r}: not found on PATH",
                        hint="install the build tool, or run the printed command yourself") from None
    try:
        code = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        _stop(proc, isolate)
        print(f"ctxsel: the tests ran longer than --timeout {timeout:.0f} s and were stopped", file=sys.stderr)
        return 124
    except KeyboardInterrupt:  # ^C reached ctxsel (in a hook: git's process group): pass it on
        _stop(proc, isolate, signal.SIGINT)
        return 130
    return 128 - code if code < 0 else code  # killed by signal N: exit 128+N, as a shell reports it


def _own_process_group() -> dict:
    """Popen arguments that start the tests as the leader of a new process group."""
    if sys.version_info >= (3, 11):
        return {"process_group": 0}
    return {"preexec_fn": os.setpgrp}  # pragma: no cover - Python 3.10


def _stop(proc: subprocess.Popen, whole_group: bool, first: int = signal.SIGTERM) -> None:
    """Stop the tests: ``first``, then SIGKILL after ``KILL_GRACE`` -- to their whole
    process group when they have one, else to the direct child (at a terminal ^C has
    already reached the tests themselves, so they only get the grace period)."""
    if whole_group:
        _signal_group(proc.pid, first)
    elif first != signal.SIGINT:
        proc.send_signal(first)
    try:
        proc.wait(timeout=KILL_GRACE)
    except subprocess.TimeoutExpired:
        pass
    if whole_group:
        _signal_group(proc.pid, signal.SIGKILL)  # workers that outlived their leader, or ignored ``first``
    elif proc.poll() is None:
        proc.kill()
    proc.wait()


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _foreground_tty() -> int | None:
    """stdin's fd when it is a terminal whose foreground job is ours, else None."""
    try:
        fd = sys.stdin.fileno()
        return fd if os.isatty(fd) and os.tcgetpgrp(fd) == os.getpgrp() else None
    except (OSError, ValueError, AttributeError):
        return None
