"""Session 23 (helper hx): a large ``[select] max_file_bytes`` means "no limit", not an internal error.

``read_source`` read each file with ``read(max_file_bytes + 1)``, and ``read(n)`` allocates n
bytes before it reads: ``max_file_bytes = 100000000000`` (100 GB, a plausible "no limit") made
every ``select``/``index`` die with "internal error: MemoryError", and a value above 2**63 with
"OverflowError: cannot fit 'int' into an index-sized integer". The read is now bounded by the
file's own size as well, so any positive limit works and small limits still skip large files.
"""

from __future__ import annotations

import pytest

from conftest import run_cli, write_tree
from ctxsel.files import FileSettings, read_source


@pytest.mark.parametrize("limit", ["100000000000", "99999999999999999999999"])
def test_a_huge_size_limit_selects_instead_of_crashing(tmp_path, limit: str) -> None:
    write_tree(tmp_path, {"a.py": "def hello():\n    return 1\n", ".ctxsel.toml": f"[select]\nmax_file_bytes = {limit}\n"})
    proc = run_cli("--repo", str(tmp_path), "select", "hello", "--format", "paths")
    assert proc.returncode == 0, proc.stderr[-500:]
    assert "internal error" not in proc.stderr
    assert "a.py" in proc.stdout.split()


def test_the_limit_still_skips_what_is_over_it(tmp_path) -> None:
    write_tree(tmp_path, {"small.py": "x = 1\n", "big.py": "y = 2\n" * 100})
    settings = FileSettings(max_bytes=100)
    assert read_source(tmp_path, "big.py", settings) == (None, "too-large")
    src, reason = read_source(tmp_path, "small.py", settings)
    assert reason is None and src is not None and src.text == "x = 1\n"
    exact = FileSettings(max_bytes=len("y = 2\n" * 100))
    src, reason = read_source(tmp_path, "big.py", exact)
    assert reason is None and src is not None and src.text == "y = 2\n" * 100
