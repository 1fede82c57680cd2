"""pnpm 12: the test command ctxsel prints, run with the real pnpm, runs exactly the selected packages.

Each package's ``test`` script echoes a marker naming its directory, so what the real
``pnpm --filter ... test`` ran is read from its output rather than from a second query.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from jsfixtures import PNPM_ENV, open_ws, pnpm_filter, write_pkg
from oracles import require, run

pytestmark = pytest.mark.oracle

MARK = "RAN-TEST:"


def pkg(root: Path, rel: str, name: str, version: str | None = "1.0.0", **fields) -> None:
    """A package whose test script prints ``RAN-TEST:<dir>``."""
    write_pkg(root, rel, name, version, scripts={"test": f"echo {MARK}{rel}"}, **fields)


def ran_by(root: Path, argv: list[str]) -> set[str]:
    """Directories whose test script the real pnpm ran for ``argv`` (ctxsel's command)."""
    assert argv[0] == "pnpm", argv
    out = run(argv, root, env=PNPM_ENV).stdout
    return set(re.findall(MARK + r"(\S+)", out))


def duplicate_workspace(root: Path, root_name: str = "root") -> Path:
    """Two packages named ``x`` (x2 the higher version); ``y`` depends on ``x`` (so on x2),
    x1 depends on ``dep``."""
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": root_name, "private": True}))
    (root / "pnpm-workspace.yaml").write_text("packages: ['p/*']\n")
    pkg(root, "p/dep", "dep")
    pkg(root, "p/x1", "x", dependencies={"dep": "workspace:*"})
    pkg(root, "p/x2", "x", version="2.0.0")
    pkg(root, "p/y", "y", dependencies={"x": "workspace:*"})
    return root


def test_a_shared_name_is_no_test_filter(tmp_path: Path) -> None:
    """``pnpm --filter x test`` runs both packages named x; a change to ``dep`` reaches only x1.

    ctxsel printed ``pnpm --filter dep --filter x test`` and so ran x2's tests too.
    """
    require("pnpm")
    root = duplicate_workspace(tmp_path / "ws")
    ws = open_ws(root, "pnpm")
    sel = ws.tests(["dep"])
    assert {ws.graph.node(t).package for t in sel.tests} == pnpm_filter(root, "...dep") == {"p/dep", "p/x1"}
    assert "--filter x" not in shlex.join(sel.argv)
    assert ran_by(root, sel.argv) == {"p/dep", "p/x1"}


def test_the_shared_name_still_selects_every_package_of_that_name(tmp_path: Path) -> None:
    """As input, ``x`` means all packages named x (``pnpm --filter ...x``), and the command runs them."""
    require("pnpm")
    root = duplicate_workspace(tmp_path / "ws")
    ws = open_ws(root, "pnpm")
    sel = ws.tests(["x"])
    assert {ws.graph.node(t).package for t in sel.tests} == pnpm_filter(root, "...x") == {"p/x1", "p/x2", "p/y"}
    assert ran_by(root, sel.argv) == {"p/x1", "p/x2", "p/y"}


def test_a_package_named_like_the_root_is_filtered_by_directory(tmp_path: Path) -> None:
    """pnpm's ``--filter x`` selects the root project too when the root is named x (measured):
    a change that reaches only the root must not run the package x (``--filter x`` did)."""
    require("pnpm")
    root = tmp_path / "ws"
    root.mkdir()
    manifest = {"name": "x", "private": True, "scripts": {"test": f"echo {MARK}."}, "dependencies": {"only-root": "workspace:*"}}
    (root / "package.json").write_text(json.dumps(manifest))
    (root / "pnpm-workspace.yaml").write_text("packages: ['p/*']\n")
    pkg(root, "p/only-root", "only-root")
    pkg(root, "p/x", "x")
    assert pnpm_filter(root, "x") == {"", "p/x"}
    ws = open_ws(root, "pnpm")
    sel = ws.tests(["only-root"])
    assert {ws.graph.node(t).package for t in sel.tests} == pnpm_filter(root, "...only-root") == {"", "p/only-root"}
    assert ran_by(root, sel.argv) == {".", "p/only-root"}
