"""The one dependency-graph model that every adapter returns.

Edges point from a dependent to its dependency (``//app:app -> //core:core``), the
way BUILD files and package.json files declare them. Commands only ever see a
``BuildGraph``; they never know which build system produced it.

Why adjacency dicts and not a live ``networkx.DiGraph``: importing networkx costs
about 0.2 s, which is most of a pre-commit hook's budget, and the graph is cached
between runs. Reverse closures and shortest "why" paths are a plain BFS here;
``to_networkx()`` hands the same graph to networkx for the analyses that want it
(cycle reports, exports) and is only imported when those run.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping

if TYPE_CHECKING:  # pragma: no cover
    import networkx

# Edge types. Adapters may add others; these are the ones commands understand.
DEP = "dep"
DATA = "data"
DEV = "dev"
PEER = "peer"
OPTIONAL = "optional"
IMPLICIT = "implicit"
TESTS = "tests"  # test_suite -> its tests

#: one shared frozenset per combination of edge types: a graph has thousands of edges
#: but a handful of combinations, and the cached pickle then stores each combination
#: once instead of once per edge (a fifth less space for the edges of 1,500 packages)
_EDGE_TYPES: dict[frozenset[str], frozenset[str]] = {}


@dataclass(frozen=True)
class Node:
    """One target (Bazel), package (pnpm/npm/yarn/Turbo) or project (Nx).

    ``package`` is the directory that owns the node, relative to the workspace root
    in POSIX form ("" for the root). ``srcs`` are repo-relative files the node
    declares; they drive the file -> node mapping. ``meta`` keeps adapter-specific
    facts (scripts, targets, the test_suite's tests) that the adapter itself reads
    back; commands must not depend on it.
    """

    id: str
    kind: str
    package: str = ""
    srcs: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    is_test: bool = False
    external: bool = False
    meta: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)


class BuildGraph:
    """Nodes plus typed edges, dependent -> dependency."""

    def __init__(self, adapter: str = "", root: str = "") -> None:
        self.adapter = adapter
        self.root = root
        self._nodes: dict[str, Node] = {}
        # dependent -> {dependency: frozenset(edge types)}
        self._succ: dict[str, dict[str, frozenset[str]]] = {}
        # dependency -> {dependent: frozenset(edge types)}
        self._pred: dict[str, dict[str, frozenset[str]]] = {}
        self._file_index: dict[str, list[str]] | None = None
        self.warnings: list[str] = []

    # ---------------------------------------------------------------- building
    def add_node(self, node: Node) -> None:
        """Add or replace a node; edges already attached to its id are kept."""
        self._nodes[node.id] = node
        self._succ.setdefault(node.id, {})
        self._pred.setdefault(node.id, {})
        self._file_index = None

    def add_edge(self, dependent: str, dependency: str, kind: str = DEP) -> None:
        """Add an edge; a second edge between the same pair adds its type to the first."""
        for end in (dependent, dependency):
            if end not in self._nodes:
                raise KeyError(f"edge end {end!r} is not a node")
        types = self._succ[dependent].get(dependency, frozenset())
        types = types | {kind}
        types = _EDGE_TYPES.setdefault(types, types)
        self._succ[dependent][dependency] = types
        self._pred[dependency][dependent] = types

    def remove_edge(self, dependent: str, dependency: str) -> None:
        self._succ.get(dependent, {}).pop(dependency, None)
        self._pred.get(dependency, {}).pop(dependent, None)

    # ---------------------------------------------------------------- reading
    def __contains__(self, node_id: object) -> bool:
        return node_id in self._nodes

    def __len__(self) -> int:
        return len(self._nodes)

    def __iter__(self) -> Iterator[str]:
        return iter(self._nodes)

    def node(self, node_id: str) -> Node:
        return self._nodes[node_id]

    def nodes(self) -> Iterable[Node]:
        return self._nodes.values()

    def edges(self) -> Iterator[tuple[str, str, frozenset[str]]]:
        for src, targets in self._succ.items():
            for dst, types in targets.items():
                yield src, dst, types

    def edge_types(self, dependent: str, dependency: str) -> frozenset[str]:
        return self._succ.get(dependent, {}).get(dependency, frozenset())

    def dependencies(self, node_id: str) -> list[str]:
        """Direct dependencies, sorted for deterministic output."""
        return sorted(self._succ.get(node_id, {}))

    def dependents(self, node_id: str) -> list[str]:
        """Direct dependents, sorted for deterministic output."""
        return sorted(self._pred.get(node_id, {}))

    # ---------------------------------------------------------------- closures
    def rdeps(self, roots: Iterable[str], depth: int | None = None) -> dict[str, int]:
        """Reverse-dependency closure with ``bazel query rdeps`` semantics.

        Returns ``{node: distance}``; the roots are included at distance 0 and
        ``depth`` bounds the distance (``None`` = unbounded).
        """
        return self._closure(roots, self._pred, depth)

    def deps(self, roots: Iterable[str], depth: int | None = None) -> dict[str, int]:
        """Forward closure (what the roots need), roots at distance 0."""
        return self._closure(roots, self._succ, depth)

    def _closure(
        self,
        roots: Iterable[str],
        adjacency: dict[str, dict[str, frozenset[str]]],
        depth: int | None,
    ) -> dict[str, int]:
        dist: dict[str, int] = {}
        queue: deque[str] = deque()
        for r in roots:
            if r in self._nodes and r not in dist:
                dist[r] = 0
                queue.append(r)
        while queue:
            cur = queue.popleft()
            d = dist[cur]
            if depth is not None and d >= depth:
                continue
            for nxt in adjacency.get(cur, ()):
                if nxt not in dist:
                    dist[nxt] = d + 1
                    queue.append(nxt)
        return dist

    def path(self, dependent: str, dependency: str) -> list[str] | None:
        """Shortest dependency path ``[dependent, ..., dependency]``, or None.

        This is the "why" of a blast radius: how ``dependent`` comes to depend on
        the changed ``dependency``. Ties are broken by sorted order so the answer
        is the same on every run.
        """
        if dependent not in self._nodes or dependency not in self._nodes:
            return None
        if dependent == dependency:
            return [dependent]
        parent: dict[str, str] = {dependency: dependency}
        queue: deque[str] = deque([dependency])
        while queue:
            cur = queue.popleft()
            for nxt in self._new_preds(cur, parent):
                parent[nxt] = cur
                if nxt == dependent:
                    out = [nxt]
                    while out[-1] != dependency:
                        out.append(parent[out[-1]])
                    return out
                queue.append(nxt)
        return None

    def _new_preds(self, node_id: str, seen: Mapping[str, object]) -> list[str]:
        """The direct dependents of ``node_id`` not yet in ``seen``, sorted.

        The BFS tie-break is "sorted order among a node's dependents"; sorting only the
        unseen ones gives the same order (the seen ones are skipped either way) but sorts
        each node once per search instead of once per edge: on a node that 30,000
        packages all depend on, re-sorting every dependent list was most of the time.
        """
        preds = self._pred.get(node_id)
        if not preds:
            return []
        new = [n for n in preds if n not in seen]
        new.sort()
        return new

    def paths_to(
        self, roots: Iterable[str], depth: int | None = None, only: Iterable[str] | None = None
    ) -> dict[str, list[str]]:
        """For every node in ``rdeps(roots)``, one shortest path to the root that put it there.

        ``only``: build the paths of just these nodes (those in the radius), e.g. the tests
        an ``--explain`` prints: one path is O(depth), all of them O(sum of depths).

        One BFS for all nodes (not one search per node): the path of a node is the
        node, then the path of the node it was reached from. Nodes are reached in BFS
        order, so a node's parent already has its path when the node gets its own, and
        each path is one C-level list copy rather than a Python walk up the parents.
        The answer itself is as large as the sum of all depths: on a 30,000-long chain
        that is 450 million entries, whoever builds it.
        """
        parent: dict[str, str | None] = {}
        frontier: list[str] = []
        for r in sorted(set(roots)):
            if r in self._nodes:
                parent[r] = None
                frontier.append(r)
        level = 0
        while frontier and (depth is None or level < depth):
            nxt_frontier: list[str] = []
            for cur in frontier:
                for nxt in self._new_preds(cur, parent):
                    parent[nxt] = cur
                    nxt_frontier.append(nxt)
            frontier = nxt_frontier
            level += 1
        paths: dict[str, list[str]] = {}
        if only is None:
            for node, via in parent.items():
                paths[node] = [node] if via is None else [node, *paths[via]]
            return paths
        wanted = set(only)
        for node in parent:  # BFS order: a wanted node's wanted ancestors are built before it
            if node not in wanted:
                continue
            chain: list[str] = []
            cur: str | None = node
            while cur is not None and cur not in paths:  # up to the root or a built path
                chain.append(cur)
                cur = parent[cur]
            if cur is not None:
                chain.extend(paths[cur])
            paths[node] = chain
        return paths

    # ---------------------------------------------------------------- files
    def owners_of_file(self, path: str) -> list[str]:
        """Nodes that declare ``path`` (repo-relative, POSIX) among their ``srcs``."""
        if self._file_index is None:
            index: dict[str, list[str]] = {}
            for node in self._nodes.values():
                for src in node.srcs:
                    index.setdefault(src, []).append(node.id)
            for ids in index.values():
                ids.sort()
            self._file_index = index
        return list(self._file_index.get(path, ()))

    def nodes_in_package(self, package: str) -> list[str]:
        return sorted(n.id for n in self._nodes.values() if n.package == package and not n.external)

    def packages(self) -> set[str]:
        return {n.package for n in self._nodes.values() if not n.external}

    # ---------------------------------------------------------------- analysis
    def find_cycle(self) -> list[str] | None:
        """One dependency cycle as ``[a, b, ..., a]``, or None. Iterative, never recursive."""
        for path, target in back_edges(sorted(self._nodes), lambda n: sorted(self._succ[n])):
            return path[path.index(target):] + [target]
        return None

    def cycle_groups(self, among: Iterable[str]) -> list[list[str]]:
        """The nodes of ``among`` that lie on one dependency cycle together (each reaches the
        others), grouped, sorted; nodes alone in their cycle are left out.

        Tarjan's strongly connected components, iterative (a 100,000-long chain must not
        overflow the stack), over the whole graph: a cycle through nodes outside ``among``
        still ties them."""
        wanted = set(among)
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        on_stack: set[str] = set()
        stack: list[str] = []
        groups: list[list[str]] = []
        for start in sorted(self._nodes):
            if start in index:
                continue
            index[start] = low[start] = len(index)
            stack.append(start)
            on_stack.add(start)
            work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(self._succ[start])))]
            while work:
                node, successors = work[-1]
                nxt = next(successors, None)
                if nxt is not None:
                    if nxt not in index:
                        index[nxt] = low[nxt] = len(index)
                        stack.append(nxt)
                        on_stack.add(nxt)
                        work.append((nxt, iter(sorted(self._succ[nxt]))))
                    elif nxt in on_stack:
                        low[node] = min(low[node], index[nxt])
                    continue
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    members: list[str] = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        if member in wanted:
                            members.append(member)
                        if member == node:
                            break
                    if len(members) > 1:
                        groups.append(sorted(members))
        return sorted(groups)

    def to_networkx(self) -> "networkx.DiGraph":
        import networkx as nx

        g = nx.DiGraph()
        for node in self._nodes.values():
            g.add_node(node.id, node=node)
        for src, dst, types in self.edges():
            g.add_edge(src, dst, types=types)
        return g

    def subgraph(self, ids: Iterable[str]) -> "BuildGraph":
        keep = set(ids)
        out = BuildGraph(self.adapter, self.root)
        for nid in sorted(keep):
            if nid in self._nodes:
                out.add_node(self._nodes[nid])
        for src, dst, types in self.edges():
            if src in keep and dst in keep:
                for t in sorted(types):
                    out.add_edge(src, dst, t)
        return out


def back_edges(ids: Iterable[str], successors: Callable[[str], Iterable[str]]) -> Iterator[tuple[list[str], str]]:
    """Each edge that closes a cycle in a depth-first walk, as ``(path, target)``.

    ``path[-1] -> target`` is the edge and ``target`` is on ``path`` (the walk's current
    chain, shared between yields: copy what you keep). Iterative, so a 100,000-long
    chain cannot overflow the stack; cycle reports and graph layouts both use it.
    """
    white, grey, black = 0, 1, 2
    color: dict[str, int] = {}
    for start in ids:
        if color.get(start, white) != white:
            continue
        color[start] = grey
        path = [start]
        stack: list[Iterator[str]] = [iter(successors(start))]
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                color[path.pop()] = black
                stack.pop()
            elif color.get(nxt, white) == grey:
                yield path, nxt
            elif color.get(nxt, white) == white:
                color[nxt] = grey
                path.append(nxt)
                stack.append(iter(successors(nxt)))
