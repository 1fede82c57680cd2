"""``ctxsel blast-radius`` and ``ctxsel tests``: questions answered from the graph alone."""

from __future__ import annotations

from functools import partial
from typing import List, Optional

import typer

from ..cli import GlobalOptions, app
from ..errors import UserError
from ..render import lines, table, to_json, warn
from . import changes as chg
from . import owners as own

BLAST_FORMATS = ("text", "json", "labels")
TEST_FORMATS = ("text", "json", "command")

TARGET = typer.Option(
    None, "--target", "-t", metavar="NAME",
    help="Run target/task/script NAME instead of test (nx -t, turbo run, pnpm/npm/yarn run); repeat, or a,b.",
)


def target_names(values: Optional[List[str]]) -> tuple[str, ...]:
    """``--target`` as given (``-t a -t b`` or ``-t a,b``, as ``nx run-many -t a,b`` takes
    them); empty: the default, ``test``. Names are checked by the adapter (``check_targets``)."""
    return tuple(name for value in values or () for name in value.split(","))


def no_tests_line(sel, changed: bool) -> str:
    """What the text format prints for an empty selection ("no tests ...", or the ``--target``'s name)."""
    what = "tests" if sel.targets == ["test"] else "/".join(sel.targets) + " targets"
    return f"no {what} depend on the change" if changed else f"no {what} depend on the inputs"


def _check_format(fmt: str, allowed: tuple[str, ...]) -> None:
    if fmt not in allowed:
        raise UserError(f"unknown --format {fmt!r} (choose {', '.join(allowed)})")


def _emit_warnings(opts: GlobalOptions, warnings: list[str]) -> None:
    if not opts.quiet:
        for w in dict.fromkeys(warnings):
            warn(w)


# The question and the JSON answer, shared with the MCP server (``ctxsel.mcp_server``)
# so ``--format json`` and the MCP tools cannot drift apart.
def graph_question(ask, ws, targets, selectors: "chg.ChangeSelectors", depth, owner, codeowners=None, syntax="auto"):
    """(answer, ChangeSet or None, owners) for targets and/or a git change.

    ``ask`` is ``ws.blast_radius`` or ``ws.tests``: both take the same roots and owners.
    """
    roots, changes = chg.select_roots(ws, targets, selectors)
    owners = own.owner_scope(ws, owner, codeowners, syntax)
    result = ask(depth=depth, roots=roots, owners=owners)
    if changes is not None and hasattr(result, "argv"):  # a TestSelection: the tool may pick tests by more than the graph
        result = ws.tests_for_change(result, changes, targets or [], depth, owners)
    return result, changes, owners


def radius_question(ws, targets, selectors: "chg.ChangeSelectors", depth, owner, limit, codeowners=None, syntax="auto",
                    with_paths: bool = True):
    """``graph_question`` for a blast radius cut to its ``limit`` nearest nodes, paths built for those only.

    The "why" paths cost the sum of all depths (quadratic on a long chain): ``--format labels``
    prints none (``with_paths=False``) and ``--limit N``/MCP ``limit`` prints N of them, so the
    radius is found without paths and the paths of what is printed are added afterwards.
    """
    ask = partial(ws.blast_radius, with_paths=False)
    result, changes, owners = graph_question(ask, ws, targets, selectors, depth, owner, codeowners, syntax)
    if limit is not None:
        result.truncate(limit)
    if with_paths:
        ws.add_paths(result, depth)
    return result, changes, owners


def radius_json(result, changes, explain: bool) -> dict:
    """The ``blast-radius --format json`` body (``schemas/blast-radius.json``)."""
    body = result.as_json()
    if explain:
        for row, a in zip(body["affected"], result.affected):
            row["because"] = chg.because(changes, a.path)
    if changes is not None:
        body["changes"] = changes.as_json()
    return body


def tests_json(sel, changes, why: list | None) -> dict:
    """The ``tests --format json`` body (``schemas/tests.json``); ``why``: the --explain rows."""
    body = sel.as_json()
    if why is not None:
        body["explain"] = why
    if changes is not None:
        body["changes"] = changes.as_json()
    return body


@app.command("blast-radius")
def blast_radius(
    ctx: typer.Context,
    targets: Optional[List[str]] = typer.Argument(None, help="Labels (//pkg:lib, //pkg, //pkg/...), package/project names, or file paths."),
    depth: Optional[int] = typer.Option(None, "--depth", min=0, metavar="N", help="Only dependents within N edges (0 = the inputs themselves)."),
    limit: Optional[int] = typer.Option(None, "--limit", min=0, metavar="N", help="Show only the N nearest (JSON: \"truncated\" counts the rest)."),
    fmt: str = typer.Option("text", "--format", metavar="FORMAT", help="text, json or labels."),
    since: Optional[str] = chg.SINCE,
    base: Optional[str] = chg.BASE,
    head: Optional[str] = chg.HEAD,
    staged: bool = chg.STAGED,
    files: Optional[List[str]] = chg.FILES,
    explain: bool = chg.EXPLAIN,
    owner: Optional[List[str]] = own.OWNER,
    codeowners: Optional[str] = own.CODEOWNERS,
    codeowners_syntax: str = own.CODEOWNERS_SYNTAX,
) -> None:
    """Every target/package that transitively depends on the inputs (or on a git change), with the path why."""
    _check_format(fmt, BLAST_FORMATS)
    opts: GlobalOptions = ctx.obj
    ws = opts.open()
    selectors = chg.ChangeSelectors(since, base, head, staged, files or [])
    result, changes, owners = radius_question(ws, targets, selectors, depth, owner, limit, codeowners, codeowners_syntax,
                                              with_paths=fmt != "labels")
    if result.truncated:
        chg.note(f"{result.truncated} farther {ws.adapter.node_noun}(s) not shown (--limit {limit})", opts.quiet)
    _emit_warnings(opts, result.warnings)
    own.note_dropped(opts, result.dropped_by_owner, owners, ws.adapter.node_noun)
    chg.report_changes(changes, ws.adapter.node_noun, opts.quiet)
    if fmt == "json":
        print(to_json(radius_json(result, changes, explain)))
    elif fmt == "labels":
        lines(result.ids)
    elif explain:
        lines([chg.explain_line({"path": a.path, "because": chg.because(changes, a.path)}) for a in result.affected])
    else:
        what = changes.description if changes is not None and not targets else ", ".join(result.roots[:5]) + (" ..." if len(result.roots) > 5 else "")
        table(
            f"blast radius of {what} ({len(result.affected)} {ws.adapter.node_noun}s)",
            ["id", "kind", "distance", "via"],
            [(a.id, a.kind, a.distance, " -> ".join(a.path[1:-1]) or "-") for a in result.affected],
        )


@app.command("tests")
def tests(
    ctx: typer.Context,
    targets: Optional[List[str]] = typer.Argument(None, help="Labels, package/project names, or file paths."),
    depth: Optional[int] = typer.Option(None, "--depth", min=0, metavar="N", help="Only tests within N edges of the inputs."),
    fmt: str = typer.Option("text", "--format", metavar="FORMAT", help="text, json or command."),
    since: Optional[str] = chg.SINCE,
    base: Optional[str] = chg.BASE,
    head: Optional[str] = chg.HEAD,
    staged: bool = chg.STAGED,
    files: Optional[List[str]] = chg.FILES,
    explain: bool = chg.EXPLAIN,
    owner: Optional[List[str]] = own.OWNER,
    codeowners: Optional[str] = own.CODEOWNERS,
    codeowners_syntax: str = own.CODEOWNERS_SYNTAX,
    target: Optional[List[str]] = TARGET,
) -> None:
    """The test targets a change to the inputs (or a git change) could break, and the tool's command to run them."""
    _check_format(fmt, TEST_FORMATS)
    opts: GlobalOptions = ctx.obj
    ws = opts.open()
    selectors = chg.ChangeSelectors(since, base, head, staged, files or [])
    ask = partial(ws.tests, target=target_names(target))
    sel, changes, owners = graph_question(ask, ws, targets, selectors, depth, owner, codeowners, codeowners_syntax)
    _emit_warnings(opts, sel.warnings)
    own.note_dropped(opts, sel.dropped_by_owner, owners, "test")
    chg.report_changes(changes, ws.adapter.node_noun, opts.quiet)
    why = chg.explain_rows(sel.tests, ws.graph.paths_to(sel.roots, depth, only=sel.tests), changes) if explain else []
    if fmt == "json":
        print(to_json(tests_json(sel, changes, why if explain else None)))
    elif fmt == "command":
        if sel.command:
            print(sel.command)
    else:
        if not sel.tests:
            print(no_tests_line(sel, changes is not None and not targets))
            return
        lines([chg.explain_line(r) for r in why] if explain else sel.tests)
        print()
        print(sel.command)
