"""A Bazel launcher's refusal on stdout reaches the user.

Found on bazel-contrib/rules_oci (``.bazelversion`` 8.4.2) with Debian's ``/usr/bin/bazel``
(bazel-bootstrap's launcher script, bazelisk-like): it prints ``ERROR: The project you're trying
to build requires Bazel 8.4.2 (specified in .../.bazelversion), but it wasn't found in /usr/bin.``
in colour on *stdout*, nothing on stderr, and exits 1. ctxsel's message ended in ``exited 1: ``
(stderr's last line, empty), and auto mode's fall-back warning said no more. A failed query's
stdout holds no graph, so its last ERROR line is the cause when stderr has none.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MESSAGE = ("ERROR: The project you're trying to build requires Bazel 99.0.0 (specified in {root}/.bazelversion), "
           "but it wasn't found in /usr/bin.")


def _run(root: Path, tool: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CTXSEL_BAZEL": tool}
    return subprocess.run([sys.executable, "-m", "ctxsel", "--repo", str(root), "--no-cache", *args, "blast-radius", "//a:a"],
                          cwd=ROOT, check=False, capture_output=True, text=True, timeout=120, env=env)


def _workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "a").mkdir(parents=True)
    (root / "WORKSPACE").write_text("")
    (root / ".bazelversion").write_text("99.0.0\n")
    (root / "a" / "BUILD").write_text('filegroup(name = "a")\n')
    return root


def test_a_refusal_on_stdout_is_the_error(tmp_path: Path) -> None:
    """Old: ``exited 1: `` and nothing after it."""
    root = _workspace(tmp_path)
    tool = tmp_path / "bazel"
    message = MESSAGE.format(root=root)
    tool.write_text(f"#!/bin/sh\nprintf '\\033[31m%s\\033[0m\\n\\nYou can install it.\\n' \"{message}\"\nexit 1\n")
    tool.chmod(tool.stat().st_mode | stat.S_IEXEC)
    res = _run(root, str(tool), "--source", "tool")
    assert res.returncode == 2, res.stderr
    assert f"exited 1: {message}" in res.stderr and "\x1b" not in res.stderr
    res = _run(root, str(tool))
    assert res.returncode == 0 and "fell back" in res.stderr and ".bazelversion" in res.stderr


def test_debian_launcher_names_bazelversion(tmp_path: Path) -> None:
    launcher = "/usr/bin/bazel"
    if not (os.path.exists(launcher) and "bazel-" in Path(launcher).read_text(errors="replace")):
        pytest.skip("Debian's bazel launcher (bazel-bootstrap's /usr/bin/bazel) is not installed")
    root = _workspace(tmp_path)
    res = _run(root, launcher, "--source", "tool")
    assert res.returncode == 2, res.stderr
    assert ".bazelversion" in res.stderr and "99.0.0" in res.stderr, res.stderr
    assert "Traceback" not in res.stderr and len(res.stderr.strip().splitlines()) <= 3
