"""pnpm's "any version" specs ``*``, ``^`` and ``~`` count only when written exactly.

Measured with pnpm 12.4.2 (``pnpm --filter '...{p/a}' ls``): ``workspace:*`` links a
prerelease (``1.0.0-beta.1``), but ``workspace:* ``, ``workspace: *`` and ``workspace:*<tab>``
are the semver range ``*``, which no prerelease satisfies; ``workspace:^ ``, ``workspace: ^``,
``workspace:~ `` and ``workspace: ~`` are no range at all and link no versioned package, not
even ``1.0.0``. Under ``linkWorkspacePackages: true`` a plain ``*`` links the prerelease and
``* `` / `` *`` do not. ctxsel trimmed the blanks first and linked all of them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsfixtures import open_ws, pnpm_filter, write_pkg
from oracles import require

#: dependent dir -> (package it depends on, spec); "a" is at 1.0.0-beta.1, "r" at 1.0.0
SPECS = {
    "p/d-star": ("a", "workspace:*"),
    "p/d-star-space": ("a", "workspace:* "),
    "p/d-space-star": ("a", "workspace: *"),
    "p/d-star-tab": ("a", "workspace:*\t"),
    "p/d-caret": ("a", "workspace:^"),
    "p/d-caret-space": ("a", "workspace:^ "),
    "p/d-plain-star": ("a", "*"),
    "p/d-plain-star-space": ("a", "* "),
    "p/d-plain-space-star": ("a", " *"),
    "p/e-star-space": ("r", "workspace:* "),
    "p/e-caret-space": ("r", "workspace:^ "),
    "p/e-space-caret": ("r", "workspace: ^"),
    "p/e-tilde-space": ("r", "workspace:~ "),
    "p/e-space-tilde": ("r", "workspace: ~"),
    "p/e-tilde": ("r", "workspace:~"),
}
#: what pnpm 12.4.2 answered for this workspace (checked again by the oracle test below)
MEASURED = {
    "p/a": {"p/a", "p/d-star", "p/d-caret", "p/d-plain-star"},
    "p/r": {"p/r", "p/e-star-space", "p/e-tilde"},
}


def workspace(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "root", "private": True}))
    (root / "pnpm-workspace.yaml").write_text("packages: ['p/*']\nlinkWorkspacePackages: true\n")
    write_pkg(root, "p/a", "a", version="1.0.0-beta.1")
    write_pkg(root, "p/r", "r", version="1.0.0")
    for rel, (target, spec) in SPECS.items():
        write_pkg(root, rel, rel.rpartition("/")[2], dependencies={target: spec})
    return root


def ctxsel_dependents(root: Path, rel: str) -> set[str]:
    ws = open_ws(root, "pnpm")
    node = next(n for n in ws.graph.nodes() if n.package == rel)
    return {ws.graph.node(i).package for i in ws.blast_radius([node.id]).ids}


def test_blank_padded_any_ranges_are_ranges(tmp_path: Path) -> None:
    root = workspace(tmp_path / "ws")
    for rel, expected in MEASURED.items():
        assert ctxsel_dependents(root, rel) == expected, rel


@pytest.mark.oracle
def test_pnpm_agrees(tmp_path: Path) -> None:
    require("pnpm")
    root = workspace(tmp_path / "ws")
    for rel in MEASURED:
        assert pnpm_filter(root, "...{" + rel + "}") == ctxsel_dependents(root, rel), rel
