"""ctxsel: build-graph-aware context selection for monorepos.

Public API (the names in ``__all__``; everything else is private and may change)::

    from ctxsel import Workspace, to_json
    ws = Workspace.open("path/to/repo", adapter="auto", source="auto")
    ws.blast_radius(["//core:core"]).ids          # BlastRadius
    ws.tests(["packages/api/src/x.ts"]).command   # TestSelection
    roots, change = ws.roots(since="main")        # a git change -> graph nodes (ChangeSet)
    ws.owners(["core/core.cc"]).owners             # OwnersReport (CODEOWNERS)
    ws.select("retry on timeout", budget=4000).markdown()   # Selection, packed context
    to_json(result.as_json())                      # exactly what --format json prints

Names are imported on first use, so ``import ctxsel`` (and the CLI's start) stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = [
    "Workspace",
    "BuildGraph",
    "Node",
    "BlastRadius",
    "Affected",
    "TestSelection",
    "UserError",
    "CtxselError",
    "ParseError",
    "UnknownTargetError",
    "ToolError",
    "GitError",
    "ChangeSet",
    "OwnersReport",
    "Selection",
    "SCHEMA_VERSION",
    "json_schema",
    "to_json",
    "__version__",
]

_LAZY = {
    "Workspace": "ctxsel.workspace",
    "BlastRadius": "ctxsel.workspace",
    "Affected": "ctxsel.workspace",
    "TestSelection": "ctxsel.workspace",
    "BuildGraph": "ctxsel.graph",
    "Node": "ctxsel.graph",
    "UserError": "ctxsel.errors",
    "CtxselError": "ctxsel.errors",
    "ParseError": "ctxsel.errors",
    "UnknownTargetError": "ctxsel.errors",
    "ToolError": "ctxsel.errors",
    "GitError": "ctxsel.errors",
    "ChangeSet": "ctxsel.affected",
    "OwnersReport": "ctxsel.codeowners",
    "Selection": "ctxsel.select",
    "SCHEMA_VERSION": "ctxsel.render",
    "json_schema": "ctxsel.render",
    "to_json": "ctxsel.render",
}

if TYPE_CHECKING:  # pragma: no cover
    from .affected import ChangeSet
    from .codeowners import OwnersReport
    from .errors import CtxselError, GitError, ParseError, ToolError, UnknownTargetError, UserError
    from .graph import BuildGraph, Node
    from .render import SCHEMA_VERSION, json_schema, to_json
    from .select import Selection
    from .workspace import Affected, BlastRadius, TestSelection, Workspace


def __getattr__(name: str) -> Any:
    # Lazy so that ``import ctxsel.cli`` does not pay for what a command does not use.
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'ctxsel' has no attribute {name!r}")
