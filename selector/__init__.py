"""ctxsel: build-graph-aware context selection for monorepos.

Public API (everything else is private)::

    from ctxsel import Workspace
    ws = Workspace.open("path/to/repo")
    ws.blast_radius(["//core:core"]).ids
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
}

if TYPE_CHECKING:  # pragma: no cover
    from .errors import CtxselError, UserError
    from .graph import BuildGraph, Node
    from .workspace import Affected, BlastRadius, TestSelection, Workspace


def __getattr__(name: str) -> Any:
    # Lazy so that ``import ctxsel.cli`` does not pay for what a command does not use.
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'ctxsel' has no attribute {name!r}")
