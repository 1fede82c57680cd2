"""A tool-mode failure names the tool's own cause, not the tail of its source excerpt.

pnpm 12 is a Rust binary and reports errors as miette diagnostics: ``× what failed``, then
``╰─▶ why`` (wrapped over several lines), then a box quoting the offending source. ctxsel's
error showed the last three lines of output, which for such a report are the box (found on
unocss, whose pnpm-workspace.yaml has ``minimumReleaseAge: false``):
``pnpm ls failed (exit 1):       10 | |       11 | shamefullyHoist: true |          |``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from ctxsel.adapters.js.packages import PackageGraphAdapter
from oracles import oracle_env, require

#: pnpm 12.4.2's report for the workspace below (measured), the box included
PNPM_REPORT = """Error:   \u00d7 load configuration
  \u2570\u2500\u25b6 Failed to parse pnpm-workspace.yaml at /tmp/w/pnpm-
      workspace.yaml: error: line 4 column 20: invalid u64
       --> <input>:4:20
        |
      2 |   - p/*
      3 | shamefullyHoist: true
      4 | minimumReleaseAge: false
        |                    ^ invalid u64
      5 | foo: 1
        |
"""
CAUSE = "load configuration | Failed to parse pnpm-workspace.yaml at /tmp/w/pnpm-workspace.yaml: error: line 4 column 20: invalid u64"


def _workspace(root: Path) -> Path:
    (root / "p" / "a").mkdir(parents=True)
    (root / "pnpm-workspace.yaml").write_text("packages:\n  - p/*\nshamefullyHoist: true\nminimumReleaseAge: false\nfoo: 1\n")
    (root / "package.json").write_text('{"name": "r", "private": true}')
    (root / "p" / "a" / "package.json").write_text('{"name": "a", "version": "1.0.0"}')
    return root


def test_diagnostic_is_the_message():
    proc = subprocess.CompletedProcess(["pnpm"], 1, stdout="", stderr=PNPM_REPORT)
    message = str(PackageGraphAdapter.tool_failure(["pnpm", "ls"], proc))
    assert message.startswith(f"pnpm ls failed (exit 1): {CAUSE}")
    assert "shamefullyHoist" not in message


def test_plain_output_keeps_its_last_lines():
    proc = subprocess.CompletedProcess(["x"], 3, stdout="", stderr="one\ntwo\nthree\nfour\n")
    assert str(PackageGraphAdapter.tool_failure(["x", "ls"], proc)).startswith("x ls failed (exit 3): two | three | four")


def test_real_pnpm_cause_reaches_the_user(tmp_path):
    require("pnpm")
    root = _workspace(tmp_path / "w")
    env = {**oracle_env(), "pnpm_config_pm_on_fail": "ignore"}
    done = subprocess.run([sys.executable, "-m", "ctxsel", "--repo", str(root), "--source", "tool", "graph"],
                          capture_output=True, text=True, timeout=300, env=env, cwd=os.getcwd())
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "line 4 column 20: invalid u64" in done.stderr and "pnpm-workspace.yaml" in done.stderr
    assert len(done.stderr.strip().splitlines()) <= 3
