"""bench/speed_output.py: its workspaces have the shapes it reports, an unpacked old version is the one
that runs, and a side-by-side run refuses to time versions whose output differs."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bench import speed_output


def test_workspaces_have_the_dependents_they_claim(tmp_path):
    spaces = speed_output.workspaces(tmp_path, nodes=30, layered=40, chain=12)
    counts = {}
    for shape, (ws, target) in spaces.items():
        _, out = speed_output.cli(None, ws, [target, "--format", "labels"])
        counts[shape.split()[0]] = len(out.split())
    assert counts["fan-in"] == 31 and counts["chain"] == 12  # the target itself included
    assert counts["layered"] > 1


def test_unpacked_revision_is_what_runs(tmp_path):
    path = speed_output.unpack("HEAD")
    where = subprocess.run([sys.executable, "-c", "import ctxsel; print(ctxsel.__file__)"], capture_output=True,
                           text=True, check=True, env={"PYTHONPATH": str(path), "PATH": "/usr/bin:/bin"}).stdout
    assert where.startswith(str(path))


def test_a_table_row_per_shape_and_case_and_a_refusal_when_outputs_differ(tmp_path, capsys, monkeypatch):
    assert speed_output.main(["--runs", "1", "--nodes", "20", "--layered", "30", "--chain", "5",
                              "--dir", str(tmp_path), "--cases", "labels,json --limit 200"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ") and "`" in line]
    assert len(rows) == 3 * 2 + 2 and all(row.count("|") == 4 for row in rows[:6])

    real = speed_output.cli
    monkeypatch.setattr(speed_output, "unpack", lambda rev: tmp_path / "old")
    monkeypatch.setattr(speed_output, "cli", lambda p, ws, args: (0.0, real(None, ws, args)[1] + (b"x" if p else b"")))
    with pytest.raises(AssertionError, match="different output"):
        speed_output.main(["--runs", "1", "--nodes", "20", "--layered", "30", "--chain", "5", "--dir", str(tmp_path),
                           "--cases", "labels", "--old", "HEAD"])
