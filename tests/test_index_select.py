"""The persistent chunk index: incremental by content hash, deletions, stale entries."""

from __future__ import annotations

import os
from pathlib import Path

from ctxsel.index import index_dir, load_index, update_index


def _touch_later(path: Path) -> None:
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))


def test_first_build_then_nothing_to_do(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def a():\n    return 1\n")
    (tmp_path / "b.ts").write_text("export const b = 2;\n")
    first = update_index(tmp_path)
    assert (first.stats.added, first.stats.files) == (2, 2)
    assert (index_dir(tmp_path) / "meta.pickle").is_file()
    assert (tmp_path / ".ctxsel" / ".gitignore").read_text().strip().endswith("*")  # self-ignoring
    again = update_index(tmp_path)
    assert (again.stats.added, again.stats.changed, again.stats.unchanged) == (0, 0, 2)


def test_edit_add_delete_are_picked_up(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def alpha():\n    return 1\n")
    (tmp_path / "b.py").write_text("def beta():\n    return 2\n")
    update_index(tmp_path)
    (tmp_path / "a.py").write_text("def alpha_renamed():\n    return 1\n")
    _touch_later(tmp_path / "a.py")
    (tmp_path / "b.py").unlink()
    (tmp_path / "c.py").write_text("def gamma():\n    return 3\n")
    idx = update_index(tmp_path)
    s = idx.stats
    assert (s.added, s.changed, s.deleted) == (1, 1, 1)
    assert sorted(idx.files) == ["a.py", "c.py"]
    assert idx.files["a.py"].chunks[0].symbols == ("alpha_renamed",)
    model, order = idx.bm25(tmp_path)
    (best, score), = model.top(["alpha_renamed"], 1)
    assert order[best] == ("a.py", 0) and score > 0
    assert model.scores(["beta"]) == {}  # the deleted file is gone from the lexical model


def test_touched_but_unchanged_file_is_not_rechunked(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    update_index(tmp_path)
    _touch_later(tmp_path / "a.py")
    idx = update_index(tmp_path)
    assert (idx.stats.changed, idx.stats.unchanged) == (0, 1)


def test_content_skips_are_remembered_and_reported(tmp_path: Path) -> None:
    (tmp_path / "blob.txt").write_bytes(b"\0" * 64)
    (tmp_path / ".env").write_text("A=1\n")
    idx = update_index(tmp_path)
    assert idx.stats.skipped == {"binary": 1, "secret": 1}
    assert "blob.txt" in load_index(tmp_path).skipped
    assert not idx.files


def test_corrupt_index_is_rebuilt(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    update_index(tmp_path)
    (index_dir(tmp_path) / "meta.pickle").write_bytes(b"not a pickle")
    (index_dir(tmp_path) / "bm25.pickle").write_bytes(b"junk")
    idx = update_index(tmp_path)
    assert idx.stats.added == 1
    model, order = idx.bm25(tmp_path)
    assert order == [("a.py", 0)]


def test_read_only_repository_still_indexes(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    os.chmod(tmp_path, 0o555)
    try:
        if os.access(tmp_path, os.W_OK):  # root ignores permissions: nothing to test
            return
        idx = update_index(tmp_path)
        assert list(idx.files) == ["a.py"]
    finally:
        os.chmod(tmp_path, 0o755)


def test_lexical_scores_equal_bm25s(tmp_path: Path) -> None:
    """Scoring from the stored postings must give bm25s's own numbers (lucene, k1 1.5, b 0.75)."""
    import bm25s
    import numpy as np

    from ctxsel.index import BM25_PARAMS, LexicalModel

    corpus = [["parse", "widget", "widget"], ["render", "widget"], ["parse", "config", "loader"], ["other"]]
    ref = bm25s.BM25(**BM25_PARAMS)
    ref.index(corpus, show_progress=False)
    ours = LexicalModel.from_bm25s(ref)
    for query in (["widget"], ["parse", "widget"], ["parse", "parse", "loader"], ["missing"]):
        expected = ref.get_scores(query)
        got = ours.scores(query)
        assert np.allclose([got.get(i, 0.0) for i in range(len(corpus))], expected, atol=1e-6)
