"""The dense leg: pluggable embedder, cache by content hash, optional at run time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxsel.embed import dense_rank, default_embedder
from ctxsel.index import update_index


class CountingEmbedder:
    """A stand-in model: bag of letters, so similarity is predictable; counts what it embeds."""

    name = "test-letters"

    def __init__(self) -> None:
        self.embedded = 0

    def embed(self, texts):
        import numpy as np

        self.embedded += len(texts)
        out = np.zeros((len(texts), 26), dtype=np.float32)
        for row, text in enumerate(texts):
            for ch in text.lower():
                if "a" <= ch <= "z":
                    out[row, ord(ch) - 97] += 1
        return out / np.clip(np.linalg.norm(out, axis=1, keepdims=True), 1e-9, None)


def test_dense_rank_orders_by_similarity_and_caches(tmp_path: Path) -> None:
    (tmp_path / "zzz.py").write_text("zzz = 'zzzz zzzz'\n")
    (tmp_path / "abc.py").write_text("abc = 'aaa bbb ccc'\n")
    index = update_index(tmp_path)
    pool = [("zzz.py", 0), ("abc.py", 0)]
    emb = CountingEmbedder()
    ranked, note = dense_rank(tmp_path, index, "aaa bbb", pool, 10, emb)
    assert note is None and ranked[0] == ("abc.py", 0)
    assert emb.embedded == 3  # two chunks + the query
    again, _ = dense_rank(tmp_path, index, "zzz", pool, 10, emb)
    assert again[0] == ("zzz.py", 0) and emb.embedded == 4  # chunks came from the cache


def test_select_dense_runs_or_says_why(cli, tmp_path: Path) -> None:
    (tmp_path / "db.py").write_text("def open_database_connection(url):\n    return connect(url)\n")
    (tmp_path / "ui.py").write_text("def render_button(label):\n    return f'<button>{label}</button>'\n")
    proc = cli("--repo", str(tmp_path), "select", "connect to the database", "--dense", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    embedder, why = default_embedder()
    if embedder is None:
        assert "dense leg unavailable" in proc.stderr
        pytest.skip(why)
    assert any(r.startswith("dense rank") for c in out["chunks"] for r in c["reasons"])
    assert out["chunks"][0]["path"] == "db.py"
