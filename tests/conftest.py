from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"

# ``--source auto`` runs the real Bazel when one is on PATH, and every fixture copy would
# then start a Bazel server JVM that idles for hours. Tests get static parsing in auto
# mode unless they opt in by pointing CTXSEL_BAZEL at a real executable themselves.
os.environ.setdefault("CTXSEL_BAZEL", str(ROOT / "tests" / "no-such-bazel"))
# the per-user key that authenticates cache pickles (safepickle): one per test session,
# outside the user's home, so the suite never writes there
if "CTXSEL_KEY_FILE" not in os.environ:
    import atexit
    import shutil
    import tempfile

    _key_dir = tempfile.mkdtemp(prefix="ctxsel-key-")
    atexit.register(shutil.rmtree, _key_dir, True)  # one directory per session, not one left per run
    os.environ["CTXSEL_KEY_FILE"] = os.path.join(_key_dir, "pickle.key")


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


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    """Write ``{relative path: text or bytes}`` under ``root`` (parents created); returns ``root``."""
    for rel, body in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(body, bytes):
            path.write_bytes(body)
        else:
            path.write_text(body)
    return root


def run_git(cwd: Path, *args: str) -> str:
    """git with a fixed identity and no user/system config, for repositories built in tmp_path."""
    import os

    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    out = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, timeout=60, env=env)
    return out.stdout
