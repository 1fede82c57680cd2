"""A FIFO where a manifest should be (``mkfifo package.json``) must not hang any command:
a plain ``open`` waits for a writer forever. It is a user error naming the file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")

LAYOUTS = {
    "pnpm": {"pnpm-workspace.yaml": 'packages: ["packages/*"]\n'},
    "turbo": {"turbo.json": json.dumps({"tasks": {"test": {}}}), "pnpm-workspace.yaml": 'packages: ["packages/*"]\n'},
    "nx": {"nx.json": "{}"},
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("fifo", ["package.json", "packages/a/package.json"])
def test_a_fifo_manifest_is_an_error_not_a_hang(tmp_path: Path, layout: str, fifo: str) -> None:
    root = tmp_path / "ws"
    (root / "packages/a").mkdir(parents=True)
    for name, text in LAYOUTS[layout].items():
        (root / name).write_text(text)
    for manifest in ("package.json", "packages/a/package.json"):
        if manifest != fifo:
            (root / manifest).write_text(json.dumps({"name": "a" if "/" in manifest else "root", "version": "1.0.0"}))
    os.mkfifo(root / fifo)
    proc = subprocess.run([sys.executable, "-m", "ctxsel", "--repo", str(root), "--source", "static", "blast-radius", "a"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    assert 1 <= len(proc.stderr.strip().splitlines()) <= 3
