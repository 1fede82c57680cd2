"""``ctxsel --version``: the first thing a bug report needs (session 25, helper hu).

A new user's ``ctxsel --version`` exited 2 with "No such option: --version". The answer must be
the installed distribution's version (pip's metadata, from pyproject.toml), on stdout, from any
directory (no workspace is looked for), and must not stop the global options from working.
"""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

from jsfixtures import copy_fixture


def test_version_prints_the_installed_distributions_version_anywhere(tmp_path: Path, cli) -> None:
    proc = cli("--version", cwd=tmp_path)  # no workspace at or above tmp_path
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, f"ctxsel {importlib.metadata.version('ctxsel')}\n", "")


def test_version_is_listed_in_help_and_leaves_commands_alone(tmp_path: Path, cli) -> None:
    assert "--version" in cli("--help").stdout
    proc = cli("--repo", str(copy_fixture("js-pnpm", tmp_path)), "-q", "blast-radius", "@ws/core", "--format", "labels")
    assert proc.returncode == 0 and proc.stdout.split()[0] == "@ws/core"
