"""Session 22 docs check (helper hd): a bad repository setting must name the file it came from.

docs/select.md and docs/security.md say settings live in ``.ctxsel.toml`` "or ``[tool.ctxsel.*]``
in ``pyproject.toml``", and that a malformed setting is "a user error (exit 2, naming
``.ctxsel.toml``)". When the setting came from pyproject.toml the message still names
``.ctxsel.toml`` — a file that does not exist — so the user looks in the wrong place; and a bad
``chunk_tokens`` names no file at all (neither ``.ctxsel.toml`` nor ``CTXSEL_CHUNK_TOKENS``).
Fixed: ``repoconfig.load_repo_config`` returns a ``RepoConfig`` that remembers its file, and the
messages name it (and the key as that file spells it, ``tool.ctxsel.select...``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import run_cli, write_tree

PYPROJECT_SETTINGS = [
    pytest.param('[tool.ctxsel.ranking]\nbogus = 1.0\n', id="ranking-unknown-weight"),
    pytest.param('[tool.ctxsel.secrets]\npatterns = [{ name = "x", regex = "(a+)+b" }]\n', id="secrets-nested-repeat"),
    pytest.param('[tool.ctxsel.select]\nscope = "bogus"\n', id="select-unknown-scope"),
    pytest.param('[tool.ctxsel.select]\nmax_file_bytes = -1\n', id="select-negative-size"),
]


def _repo(root: Path, files: dict[str, str]) -> Path:
    return write_tree(root, {"a.py": "def hello():\n    return 1\n", **files})


@pytest.mark.parametrize("pyproject", PYPROJECT_SETTINGS)
def test_a_bad_pyproject_setting_names_pyproject_toml(tmp_path, pyproject):
    repo = _repo(tmp_path, {"pyproject.toml": pyproject})
    out = run_cli("select", "hello", "--format", "paths", cwd=repo)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "pyproject.toml" in out.stderr, out.stderr
    assert ".ctxsel.toml" not in out.stderr, out.stderr  # there is no such file in this repository


def test_a_bad_chunk_tokens_names_ctxsel_toml(tmp_path):
    repo = _repo(tmp_path, {".ctxsel.toml": '[select]\nchunk_tokens = "abc"\n'})
    out = run_cli("select", "hello", "--format", "paths", cwd=repo)
    assert out.returncode == 2 and "chunk_tokens" in out.stderr
    assert ".ctxsel.toml" in out.stderr, out.stderr
