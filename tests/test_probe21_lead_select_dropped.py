"""Session 21: ``dropped`` counts every ranked candidate a selection left out.

Old: packing stops once the budget is full (or after 1,000 misses in a row), and only the
candidates examined before that were counted, so ``--budget 1`` reported ``"chunks": []``
with ``"dropped": 0``: nothing else ranked, as far as the answer said.
"""

from __future__ import annotations

from pathlib import Path

from conftest import write_tree

from ctxsel.select import SelectRequest, select


def test_dropped_plus_packed_covers_every_ranked_candidate(tmp_path: Path) -> None:
    files = {f"src/m{i}.py": "".join(f"def retry_{i}_{k}(x):\n    return fetch(x, {k})\n\n\n" for k in range(6))
             for i in range(12)}
    root = write_tree(tmp_path / "repo", files)
    counts = {}
    for budget in (1, 5, 300, 100_000):
        packed = select(str(root), SelectRequest(query="retry fetch", budget=budget)).packed
        counts[budget] = (len(packed.blocks), packed.dropped)
    assert counts[100_000][0] > 0 and counts[100_000][1] == 0  # the whole ranking fits
    ranked = counts[1][1]  # nothing packed: every ranked candidate is left out
    assert counts[1][0] == 0 and ranked >= 12 and counts[5] == (0, ranked)
    assert counts[300][0] > 0 and ranked // 2 < counts[300][1] < ranked  # some packed, most left out
