"""ctxsel run by a user who may not read or write everything (session 27, helper hu).

Everything else runs as root, which reads mode-000 files, so these cases were never tried.
Measured as uid 65534 (``setpriv --reuid=65534``) on a copy of fixtures/js-pnpm:

* a file of mode 000 was counted "unreadable", but the files of a directory of mode 000 were
  dropped without a trace (``lstat`` fails with EACCES, read as "deleted since git add"; outside
  git, ``os.walk`` passed over the directory);
* ``select --files`` naming the unreadable file answered without it, exit 0, no word;
* a read-only checkout, or a ``.ctxsel/`` another user made, answered right but re-indexed the
  whole repository on every run, silently.

Here the privileged user is stripped of CAP_DAC_OVERRIDE/CAP_DAC_READ_SEARCH instead of
switching users, so the test's own Python (often under a 0700 home) still runs.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_git, write_tree


def _as_unprivileged(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python -m ctxsel ARGS`` as a user to whom file modes apply."""
    argv = [sys.executable, "-m", "ctxsel", *args]
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root and setpriv (util-linux) is missing: modes cannot be tested")
        argv = [setpriv, "--bounding-set=-dac_override,-dac_read_search", "--inh-caps=-all", *argv]
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=120)


@pytest.fixture
def repo(tmp_path: Path):
    root = write_tree(tmp_path / "repo", {
        "src/open.py": "def handler_open():\n    return 1\n",
        "src/locked.py": "def handler_locked():\n    return 2\n",
        "closed/inner.py": "def handler_inner():\n    return 3\n",
    })
    run_git(root, "init", "-q", ".")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", "init")
    yield root
    for path in (root, root / "closed", root / "src/locked.py", root / ".ctxsel", root / ".ctxsel/index"):
        if path.exists():
            path.chmod(0o755 if path.is_dir() else 0o644)  # so tmp_path can be removed


def test_unreadable_files_are_counted_and_a_named_one_is_reported(repo: Path) -> None:
    (repo / "src/locked.py").chmod(0)
    (repo / "closed").chmod(0)
    proc = _as_unprivileged(["--repo", str(repo), "select", "handler", "--files", "src/locked.py", "--format", "json"], repo)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    packed = {c["path"] for c in json.loads(proc.stdout)["chunks"]}
    assert packed == {"src/open.py"}
    assert "src/locked.py (unreadable)" in proc.stderr, proc.stderr
    proc = _as_unprivileged(["--repo", str(repo), "index", "--format", "json"], repo)
    assert proc.returncode == 0, proc.stderr
    # the file of mode 000 and the file inside the directory of mode 000
    assert json.loads(proc.stdout)["skipped"] == {"unreadable": 2}


def test_outside_git_an_unlistable_directory_is_counted(repo: Path) -> None:
    """Without git the listing walks the tree; a directory it may not list was skipped silently."""
    shutil.rmtree(repo / ".git")
    (repo / "src/locked.py").chmod(0)
    (repo / "closed").chmod(0)
    proc = _as_unprivileged(["--repo", str(repo), "index", "--format", "json"], repo)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["skipped"] == {"unreadable": 2}  # the file, and the directory


@pytest.mark.parametrize("case", ["read-only checkout", "another user's .ctxsel"])
def test_an_index_that_cannot_be_stored_is_said_once(repo: Path, case: str) -> None:
    if case == "read-only checkout":
        repo.chmod(stat.S_IRUSR | stat.S_IXUSR | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH)
    else:
        # another user's index: authenticated with another key, so this user's runs cannot trust it
        other_key = {"CTXSEL_KEY_FILE": str(repo.parent / "other-user.key")}
        made = subprocess.run([sys.executable, "-m", "ctxsel", "--repo", str(repo), "index"], capture_output=True,
                              text=True, timeout=120, env={**os.environ, **other_key})
        assert made.returncode == 0, made.stderr
        (repo / ".ctxsel/index").chmod(0o555)  # as another user's 0755 directory is to this one
    for _ in range(2):  # still not stored on the second run: said again, once
        proc = _as_unprivileged(["--repo", str(repo), "select", "handler", "--format", "paths"], repo)
        assert proc.returncode == 0, proc.stderr
        assert set(proc.stdout.split()) == {"src/open.py", "src/locked.py", "closed/inner.py"}
        assert proc.stderr.count("cannot store the index") == 1, proc.stderr
        assert str(repo / ".ctxsel") in proc.stderr and "Traceback" not in proc.stderr
