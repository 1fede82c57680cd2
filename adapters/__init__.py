"""Build-system adapters. Imported lazily by name so the CLI starts fast."""

from __future__ import annotations

import importlib
from pathlib import Path

from ctxsel.errors import UserError

from .base import Adapter, AdapterOptions

# name -> "module:Class"; the order is the detection order when several coexist in one
# directory: a Bazel workspace is the real build graph even when it also holds a
# pnpm workspace (rules_js); then Nx and Turborepo, which sit on top of a package
# manager, then the package managers themselves.
REGISTRY: dict[str, str] = {
    "bazel": "ctxsel.adapters.bazel:BazelAdapter",
    "nx": "ctxsel.adapters.js.nx:NxAdapter",
    "turbo": "ctxsel.adapters.js.turbo:TurboAdapter",
    "pnpm": "ctxsel.adapters.js.pnpm:PnpmAdapter",
    "yarn": "ctxsel.adapters.js.yarn:YarnAdapter",
    "npm": "ctxsel.adapters.js.npm:NpmAdapter",
}

__all__ = ["Adapter", "AdapterOptions", "REGISTRY", "adapter_class", "detect", "find_workspace"]


def adapter_class(name: str) -> type[Adapter]:
    try:
        target = REGISTRY[name]
    except KeyError:
        raise UserError(f"unknown adapter {name!r} (choose one of: {', '.join(REGISTRY)})") from None
    module, _, cls = target.partition(":")
    return getattr(importlib.import_module(module), cls)


def detect(root: Path) -> str | None:
    """The adapter name for a workspace rooted exactly at ``root``, or None."""
    for name in REGISTRY:
        try:
            cls = adapter_class(name)
        except ImportError:  # an adapter still being written must not break the others
            continue
        if cls.detect(root):
            return name
    return None


def find_workspace(start: Path, adapter: str = "auto") -> tuple[Path, str]:
    """Walk up from ``start`` to the nearest workspace root; returns (root, adapter name)."""
    start = start.resolve()
    for d in [start, *start.parents]:
        if adapter == "auto":
            name = detect(d)
            if name:
                return d, name
        elif adapter_class(adapter).detect(d):
            return d, adapter
    what = "workspace" if adapter == "auto" else f"{adapter} workspace"
    raise UserError(
        f"no {what} found at or above {start}",
        hint="pass --repo DIR (a Bazel WORKSPACE/MODULE.bazel, pnpm/npm/yarn workspace, nx.json or turbo.json)",
    )
