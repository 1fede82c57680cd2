"""bench/speed_graph.py: the shapes it times have the sizes it reports, and a side-by-side
run refuses to time two versions that answer differently."""

from __future__ import annotations

import pytest

from bench import speed_graph
from ctxsel import graph


@pytest.mark.parametrize("shape", ["fan_in", "layered", "chain"])
def test_shapes_have_the_dependents_they_claim(shape):
    g, root = getattr(speed_graph, shape)(graph, 300)
    radius = g.rdeps([root])
    assert len(radius) - 1 == {"fan_in": 300, "layered": 300 // 100 * 100, "chain": 299}[shape]
    assert set(g.paths_to([root])) == set(radius)


def test_the_table_has_a_row_per_shape_and_operation(capsys):
    assert speed_graph.main(["--runs", "1", "--nodes", "200", "--chain", "50"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ") and "`" in line]
    assert len(rows) == 6 and all(row.count("|") == 4 for row in rows)  # one version
