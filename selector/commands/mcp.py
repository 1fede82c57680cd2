"""``ctxsel mcp``: serve blast radius, tests, context selection and owners to an agent."""

from __future__ import annotations

from typing import Optional

import typer

from ..cli import GlobalOptions, app


@app.command("mcp")
def mcp(
    ctx: typer.Context,
    repo: Optional[str] = typer.Option(None, "--repo", metavar="DIR", help="The repository to serve (same as the global --repo)."),
) -> None:
    """Run a Model Context Protocol server on stdin/stdout for agents (Claude, Cursor, VS Code).

    The repository is the global --repo (default: the current directory); a tool call may
    name a directory inside it, never outside. Needs the extra: pip install 'ctxsel[mcp]'.
    """
    from ..mcp_server import CtxselTools, serve  # imports the MCP SDK only when it starts serving

    opts: GlobalOptions = ctx.obj
    tools = CtxselTools(
        repo or opts.repo or ".",
        adapter=opts.adapter,
        source=opts.source,
        query_file=opts.query_file,
        use_cache=opts.use_cache,
    )
    # No workspace is opened here: ``owners`` and ``select_context`` work in any repository,
    # and a broken manifest must surface as a tool error an agent can read, not a dead server.
    serve(tools)
