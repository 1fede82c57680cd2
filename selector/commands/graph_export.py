"""``ctxsel graph``: the whole graph or a blast radius as DOT, Mermaid or a standalone HTML page."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from ..cli import GlobalOptions, app
from ..errors import UserError
from ..render import warn
from . import changes as chg

FORMATS = ("dot", "mermaid", "html")
LARGE = 3000  # nodes; beyond this a picture stops helping a person
MERMAID_MAX_TEXT = 50_000  # mermaid.js's default maxTextSize


@app.command("graph")
def graph(
    ctx: typer.Context,
    targets: Optional[List[str]] = typer.Argument(None, help="Draw the blast radius of these (default: the whole graph)."),
    fmt: str = typer.Option("dot", "--format", metavar="FORMAT", help="dot, mermaid or html."),
    output: Optional[str] = typer.Option(None, "--output", "-o", metavar="FILE", help="Write to FILE instead of stdout."),
    depth: Optional[int] = typer.Option(None, "--depth", min=0, metavar="N", help="Only dependents within N edges of the changed nodes."),
    since: Optional[str] = chg.SINCE,
    base: Optional[str] = chg.BASE,
    head: Optional[str] = chg.HEAD,
    staged: bool = chg.STAGED,
    files: Optional[List[str]] = chg.FILES,
) -> None:
    """Export the graph (or a change's blast radius): changed, affected and test nodes are marked."""
    from ..export import render, view_of_graph, view_of_radius

    if fmt not in FORMATS:
        raise UserError(f"unknown --format {fmt!r} (choose {', '.join(FORMATS)})")
    opts: GlobalOptions = ctx.obj
    ws = opts.open()
    selectors = chg.ChangeSelectors(since, base, head, staged, files or [])
    if targets or selectors.given:
        roots, changes = chg.select_roots(ws, targets, selectors)
        chg.report_changes(changes, ws.adapter.node_noun, opts.quiet)
        radius = ws.blast_radius(depth=depth, roots=roots)
        tests = set(ws.adapter.test_nodes(ws.graph, radius.ids))
        title = changes.description if changes is not None and not targets else ", ".join(roots[:5])
        view = view_of_radius(ws.graph, radius, tests, changes.reasons if changes else {}, title)
    else:
        view = view_of_graph(ws.graph, [n for n in ws.graph if ws.adapter.reportable(ws.graph, n)], ws.adapter.name)
    if not opts.quiet:
        for w in dict.fromkeys(ws.warnings):
            warn(w)
        if len(view.nodes) > LARGE:
            smaller = "--depth N" if targets or selectors.given else "a blast radius (targets or --since/--staged)"
            warn(f"{len(view.nodes)} nodes: a picture this large is hard to read; draw {smaller} instead")
    text = render(view, fmt)
    if fmt == "mermaid" and len(text) > MERMAID_MAX_TEXT and not opts.quiet:
        warn(f"{len(text):,} characters of Mermaid: renderers refuse more than {MERMAID_MAX_TEXT:,} by default "
             "(GitHub, mermaid.js maxTextSize); use --format html or dot")
    if output:
        try:
            Path(output).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise UserError(f"cannot write {output}: {exc.strerror}") from None
    else:
        print(text, end="" if text.endswith("\n") else "\n")
