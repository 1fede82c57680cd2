from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"


@pytest.fixture
def fixtures_dir() -> Path:
    return FIXTURES


def run_cli(*args: str, cwd: Path | None = None, input: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run the installed CLI as a user would (a separate process, real exit code)."""
    return subprocess.run(
        [sys.executable, "-m", "ctxsel", *args],
        cwd=cwd or ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        input=input,
    )


@pytest.fixture
def cli():
    return run_cli
