"""Session 27 probe: the Python API on a newcomer's first calls.

Old: ``ws.tests("//core:core")`` (one label as a string, not a list) iterated the string and
failed with "unknown target '/'"; ``ws.blast_radius(..., depth=-1)`` answered the roots alone
where the CLI (``--depth -1``: exit 2) and the MCP schema (``depth >= 0``) refuse it. Now a
string is one input wherever the API takes inputs, and a negative depth is a ``UserError``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ctxsel import UserError, Workspace

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "bazel-basic"


@pytest.fixture(scope="module")
def ws() -> Workspace:
    return Workspace.open(FIXTURE, source="static", use_cache=False)


def test_one_string_is_one_input(ws: Workspace) -> None:
    assert ws.tests("//core:core").as_json() == ws.tests(["//core:core"]).as_json()
    assert ws.blast_radius("core/core.h").ids == ws.blast_radius(["core/core.h"]).ids
    assert ws.blast_radius(roots="//core:core").ids == ws.blast_radius(roots=["//core:core"]).ids
    assert ws.roots("//core:core")[0] == ws.roots(["//core:core"])[0] == ["//core:core"]
    assert ws.roots(files="core/core.h")[0] == ws.roots(files=["core/core.h"])[0]


def test_a_negative_depth_is_refused_as_the_cli_refuses_it(ws: Workspace) -> None:
    cli = subprocess.run([sys.executable, "-m", "ctxsel", "--repo", str(FIXTURE), "--source", "static",
                          "blast-radius", "//core:core", "--depth", "-1"], capture_output=True, text=True, timeout=60)
    assert cli.returncode == 2 and "Traceback" not in cli.stderr
    for ask in (ws.blast_radius, ws.tests):
        with pytest.raises(UserError, match="depth"):
            ask(["//core:core"], depth=-1)
    assert ws.blast_radius(["//core:core"], depth=0).ids == ["//core:core"]
