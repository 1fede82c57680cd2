"""``BuildGraph.paths_to``/``path``: the "why" paths of a blast radius, pinned to a reference BFS.

The fast versions (sort only a node's unseen dependents, build each path by copying its
parent's) must give exactly the answer of the plain BFS they replaced: the same nodes,
the same depths and the same shortest path with the same sorted-order tie-break.
"""

from __future__ import annotations

import random
from collections import deque

import pytest

from ctxsel.graph import BuildGraph, Node


def reference_paths(g: BuildGraph, roots: list[str], depth: int | None = None) -> dict[str, list[str]]:
    """The specification: BFS from the sorted roots, each node's dependents in sorted
    order, the first node to reach another is its parent; a path walks the parents."""
    parent: dict[str, str | None] = {}
    dist: dict[str, int] = {}
    queue: deque[str] = deque()
    for r in sorted(set(roots)):
        if r in g:
            parent[r], dist[r] = None, 0
            queue.append(r)
    while queue:
        cur = queue.popleft()
        if depth is not None and dist[cur] >= depth:
            continue
        for nxt in g.dependents(cur):
            if nxt not in parent:
                parent[nxt], dist[nxt] = cur, dist[cur] + 1
                queue.append(nxt)
    out: dict[str, list[str]] = {}
    for node in parent:
        chain, p = [node], parent[node]
        while p is not None:
            chain.append(p)
            p = parent[p]
        out[node] = chain
    return out


def random_graph(rng: random.Random, n: int, edges: int) -> BuildGraph:
    """Random digraph (cycles and self-loops allowed) with names whose sorted order
    differs from insertion order, so tie-breaks are exercised."""
    g = BuildGraph("test")
    names = [f"{rng.choice('abcxyz')}{i}" for i in range(n)]
    rng.shuffle(names)
    for name in names:
        g.add_node(Node(name, "lib"))
    for _ in range(edges):
        g.add_edge(rng.choice(names), rng.choice(names))
    return g


@pytest.mark.parametrize("seed", range(40))
def test_paths_to_equals_reference_bfs_on_random_graphs(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randint(1, 60)
    g = random_graph(rng, n, rng.randint(0, n * 4))
    nodes = list(g)
    for _ in range(4):
        roots = rng.sample(nodes, rng.randint(1, min(4, n))) + (["missing"] if rng.random() < 0.2 else [])
        depth = rng.choice([None, None, 0, 1, 2, 3])
        got = g.paths_to(roots, depth)
        want = reference_paths(g, roots, depth)
        assert got == want
        assert list(got) == list(want)  # same (BFS) order too
        only = rng.sample(nodes, rng.randint(0, n)) + ["missing"]
        assert g.paths_to(roots, depth, only=only) == {k: v for k, v in want.items() if k in only}
        dist = g.rdeps(roots, depth)
        assert {k: len(v) - 1 for k, v in got.items()} == dist  # shortest: path length = distance
        for path in got.values():
            assert path[-1] in roots
            assert all(path[i + 1] in g.dependencies(path[i]) for i in range(len(path) - 1))


@pytest.mark.parametrize("seed", range(15))
def test_single_path_agrees_with_paths_to(seed: int) -> None:
    rng = random.Random(1000 + seed)
    g = random_graph(rng, 25, rng.randint(0, 80))
    for dependency in g:
        reached = reference_paths(g, [dependency])
        for dependent in g:
            assert g.path(dependent, dependency) == reached.get(dependent)


def test_wide_fan_in_and_layered_answers_match_reference() -> None:
    rng = random.Random(5)
    g = BuildGraph("test")
    g.add_node(Node("core", "lib"))
    layers = [[f"l{layer}_{i:03d}" for i in range(300)] for layer in range(6)]
    for layer, names in enumerate(layers):
        for name in names:
            g.add_node(Node(name, "lib"))
            g.add_edge(name, "core")  # fan-in: everything depends on core directly ...
            if layer:
                for dep in rng.sample(layers[layer - 1], 5):  # ... and on the layer below
                    g.add_edge(name, dep)
    assert g.paths_to(["core"]) == reference_paths(g, ["core"])
    some = layers[0][:3]
    assert g.paths_to(some) == reference_paths(g, some)
    assert g.paths_to(some, depth=2) == reference_paths(g, some, depth=2)


def test_paths_of_a_few_nodes_are_the_only_paths_built() -> None:
    """``only=``: the paths ``--explain`` prints. On a 20,000-long chain the path of the
    last node is 20,000 entries; all paths would be 200 million (speed: bench, not here)."""
    n = 20_000
    g = BuildGraph("test")
    ids = [f"n{i:05d}" for i in range(n)]
    for nid in ids:
        g.add_node(Node(nid, "lib"))
    for i in range(1, n):
        g.add_edge(ids[i], ids[i - 1])
    paths = g.paths_to([ids[0]], only=[ids[-1], ids[n // 2], "missing"])
    assert list(paths) == [ids[n // 2], ids[-1]]
    assert paths[ids[-1]] == ids[::-1] and paths[ids[n // 2]] == ids[n // 2::-1]
