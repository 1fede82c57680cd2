"""``ctxsel blast-radius`` and ``ctxsel tests``: questions answered from the graph alone."""

from __future__ import annotations

from typing import List, Optional

import typer

from ..cli import GlobalOptions, app
from ..errors import UserError
from ..render import lines, table, to_json, warn

BLAST_FORMATS = ("text", "json", "labels")
TEST_FORMATS = ("text", "json", "command")


def _check_format(fmt: str, allowed: tuple[str, ...]) -> None:
    if fmt not in allowed:
        raise UserError(f"unknown --format {fmt!r} (choose {', '.join(allowed)})")


def _emit_warnings(opts: GlobalOptions, warnings: list[str]) -> None:
    if not opts.quiet:
        for w in dict.fromkeys(warnings):
            warn(w)


@app.command("blast-radius")
def blast_radius(
    ctx: typer.Context,
    targets: List[str] = typer.Argument(..., help="Labels (//pkg:lib, //pkg, //pkg/...), package/project names, or file paths."),
    depth: Optional[int] = typer.Option(None, "--depth", min=0, help="Only dependents within N edges (0 = the inputs themselves)."),
    fmt: str = typer.Option("text", "--format", help="text, json or labels."),
) -> None:
    """Every target/package that transitively depends on the inputs, with the path why."""
    _check_format(fmt, BLAST_FORMATS)
    opts: GlobalOptions = ctx.obj
    ws = opts.open()
    result = ws.blast_radius(targets, depth=depth)
    _emit_warnings(opts, result.warnings)
    if fmt == "json":
        print(to_json({
            "adapter": result.adapter,
            "roots": result.roots,
            "affected": [{"id": a.id, "kind": a.kind, "distance": a.distance, "path": a.path} for a in result.affected],
        }))
    elif fmt == "labels":
        lines(result.ids)
    else:
        table(
            f"blast radius of {', '.join(result.roots)} ({len(result.affected)} {ws.adapter.node_noun}s)",
            ["id", "kind", "distance", "via"],
            [(a.id, a.kind, a.distance, " -> ".join(a.path[1:-1]) or "-") for a in result.affected],
        )


@app.command("tests")
def tests(
    ctx: typer.Context,
    targets: List[str] = typer.Argument(..., help="Labels, package/project names, or file paths."),
    depth: Optional[int] = typer.Option(None, "--depth", min=0, help="Only tests within N edges of the inputs."),
    fmt: str = typer.Option("text", "--format", help="text, json or command."),
) -> None:
    """The test targets a change to the inputs could break, and the tool's command to run them."""
    _check_format(fmt, TEST_FORMATS)
    opts: GlobalOptions = ctx.obj
    ws = opts.open()
    sel = ws.tests(targets, depth=depth)
    _emit_warnings(opts, sel.warnings)
    if fmt == "json":
        print(to_json({"adapter": sel.adapter, "roots": sel.roots, "tests": sel.tests, "command": sel.command}))
    elif fmt == "command":
        if sel.command:
            print(sel.command)
    else:
        if not sel.tests:
            print("no tests depend on the inputs")
            return
        lines(sel.tests)
        print()
        print(sel.command)
