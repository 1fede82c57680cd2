"""Session 23 (helper hx): the cache key file never replaces a file it did not write, never hangs.

``safepickle`` reads a per-user key (``CTXSEL_KEY_FILE``, else ``~/.cache/ctxsel/pickle.key``)
and creates it when what is there does not read as a key. It created it with ``os.replace``,
over whatever was there: ``CTXSEL_KEY_FILE`` naming a wrong file (a typo, a path meant for
something else) turned that file into 32 random bytes, and, run as root in a container,
``CTXSEL_KEY_FILE=/dev/zero`` replaced the device node with a regular file (measured in this
session; not repeated here). A FIFO at the path hung every command that uses a cache. Now the
key is hard-linked into place only where nothing exists, and read through ``open_regular``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import write_tree
from ctxsel import safepickle


def _blast_radius(repo: Path, key_file: Path, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CTXSEL_KEY_FILE": str(key_file)}
    return subprocess.run([sys.executable, "-m", "ctxsel", "--repo", str(repo), "--source", "static", "blast-radius", "a"],
                          capture_output=True, text=True, timeout=timeout, env=env)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "ws", {"package.json": '{"name": "root", "private": true, "workspaces": ["packages/*"]}',
                                        "packages/a/package.json": '{"name": "a", "version": "1.0.0"}'})


def test_a_file_that_is_not_a_key_is_left_alone(tmp_path: Path, repo: Path) -> None:
    precious = tmp_path / "notes.txt"
    precious.write_text("not a key, and not ctxsel's to overwrite\n")
    proc = _blast_radius(repo, precious)
    assert proc.returncode == 0, proc.stderr
    assert precious.read_text() == "not a key, and not ctxsel's to overwrite\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt", "ws"]  # no temporary file left behind


def test_a_fifo_at_the_key_path_neither_hangs_nor_is_replaced(tmp_path: Path, repo: Path) -> None:
    fifo = tmp_path / "key.fifo"
    os.mkfifo(fifo)
    try:
        proc = _blast_radius(repo, fifo, timeout=20)
    except subprocess.TimeoutExpired:
        pytest.fail("a FIFO at CTXSEL_KEY_FILE hung the command")
    assert proc.returncode == 0, proc.stderr
    assert fifo.is_fifo()


def test_a_missing_key_is_created_private_and_racing_creators_agree(tmp_path: Path) -> None:
    path = tmp_path / "cache" / "ctxsel" / "pickle.key"
    first = safepickle._create_key(path)
    second = safepickle._create_key(path)  # the loser of a race: reads the winner's key
    assert first is not None and len(first) == safepickle.KEY_BYTES and second == first
    assert (path.stat().st_mode & 0o777) == 0o600
    assert os.listdir(path.parent) == ["pickle.key"]
