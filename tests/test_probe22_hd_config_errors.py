"""Session 22 docs check (helper hd): a bad repository setting must name the file it came from.

docs/select.md and docs/security.md say settings live in ``.ctxsel.toml`` "or ``[tool.ctxsel.*]``
in ``pyproject.toml``", and that a malformed setting is "a user error (exit 2, naming
``.ctxsel.toml``)". When the setting came from pyproject.toml the message still names
``.ctxsel.toml`` — a file that does not exist — so the user looks in the wrong place; and a bad
``chunk_tokens`` names no file at all (neither ``.ctxsel.toml`` nor ``CTXSEL_CHUNK_TOKENS``).
The fix belongs in ``selector/`` (repoconfig.load_repo_config could return where the table came
from, and ranking.py / select.py / secrets.py / files.py pass it on instead of the constant
``.ctxsel.toml``), which this helper may not edit: these tests are xfail for the lead.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import run_cli, write_tree

_WRONG_FILE = "names .ctxsel.toml for a setting read from pyproject.toml (selector/ hard-codes the file name)"

PYPROJECT_SETTINGS = [
    pytest.param('[tool.ctxsel.ranking]\nbogus = 1.0\n', id="ranking-unknown-weight",
                 marks=pytest.mark.xfail(strict=True, reason=_WRONG_FILE)),
    pytest.param('[tool.ctxsel.secrets]\npatterns = [{ name = "x", regex = "(a+)+b" }]\n', id="secrets-nested-repeat",
                 marks=pytest.mark.xfail(strict=True, reason=_WRONG_FILE)),
    pytest.param('[tool.ctxsel.select]\nscope = "bogus"\n', id="select-unknown-scope",
                 marks=pytest.mark.xfail(strict=True, reason=_WRONG_FILE)),
    pytest.param('[tool.ctxsel.select]\nmax_file_bytes = -1\n', id="select-negative-size",
                 marks=pytest.mark.xfail(strict=True, reason=_WRONG_FILE)),
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


@pytest.mark.xfail(strict=True, reason="chunk_tokens errors name no file (selector/select.py chunk_settings_from)")
def test_a_bad_chunk_tokens_names_ctxsel_toml(tmp_path):
    repo = _repo(tmp_path, {".ctxsel.toml": '[select]\nchunk_tokens = "abc"\n'})
    out = run_cli("select", "hello", "--format", "paths", cwd=repo)
    assert out.returncode == 2 and "chunk_tokens" in out.stderr
    assert ".ctxsel.toml" in out.stderr, out.stderr
