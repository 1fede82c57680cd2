"""The Python API: one object per repository; the CLI and the MCP server are thin layers on it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

from ctxsel.adapters import Adapter, AdapterOptions, adapter_class, find_workspace

from .cache import cached_graph
from .errors import UserError
from .graph import BuildGraph


@dataclass
class Affected:
    """One node of a blast radius. ``path`` runs from this node to the root that put it there."""

    id: str
    kind: str
    distance: int
    path: list[str] = field(default_factory=list)


@dataclass
class BlastRadius:
    adapter: str
    roots: list[str]
    affected: list[Affected]
    warnings: list[str] = field(default_factory=list)

    @property
    def ids(self) -> list[str]:
        return [a.id for a in self.affected]


@dataclass
class TestSelection:
    adapter: str
    roots: list[str]
    tests: list[str]
    argv: list[str]
    warnings: list[str] = field(default_factory=list)

    @property
    def command(self) -> str:
        import shlex

        return shlex.join(self.argv) if self.argv else ""


class Workspace:
    """A repository, its adapter and its (cached) build graph."""

    def __init__(self, root: Path, adapter: Adapter, graph: BuildGraph) -> None:
        self.root = root
        self.adapter = adapter
        self.graph = graph
        self.warnings: list[str] = list(graph.warnings)

    @classmethod
    def open(
        cls,
        path: str | Path | None = None,
        adapter: str = "auto",
        source: str = "auto",
        query_file: str | None = None,
        use_cache: bool = True,
        extra: dict[str, str] | None = None,
    ) -> "Workspace":
        """Find the workspace at or above ``path`` and load its graph (from cache when fresh)."""
        start = Path(path) if path is not None else Path.cwd()
        if not start.exists():
            raise UserError(f"no such directory: {start}")
        root, name = find_workspace(start, adapter)
        options = AdapterOptions(source=source, query_file=query_file, extra=dict(extra or {}))
        impl = adapter_class(name)(root, options)
        graph = cached_graph(root, impl.cache_key(), impl.load, use_cache=use_cache)
        ws = cls(root, impl, graph)
        ws.warnings.extend(impl.warnings)
        return ws

    # ------------------------------------------------------------ inputs
    def resolve(self, inputs: Iterable[str]) -> list[str]:
        """Node ids for labels, package names or file paths (sorted, unique)."""
        roots: set[str] = set()
        for spec in inputs:
            roots.update(self.adapter.resolve(self.graph, spec))
        if not roots:
            raise UserError("nothing to start from: give at least one target, package or file")
        return sorted(roots)

    # ------------------------------------------------------------ answers
    def blast_radius(self, inputs: Sequence[str] = (), depth: int | None = None, roots: Sequence[str] | None = None) -> BlastRadius:
        """Everything that transitively depends on the inputs, nearest first, with the path why."""
        root_ids = sorted(roots) if roots is not None else self.resolve(inputs)
        dist = self.adapter.blast_radius(self.graph, root_ids, depth)
        paths = self.graph.paths_to(root_ids, depth)
        affected = [
            Affected(id=n, kind=self.graph.node(n).kind, distance=d, path=paths.get(n, [n]))
            for n, d in dist.items()
            if self.adapter.reportable(self.graph, n)
        ]
        affected.sort(key=lambda a: (a.distance, a.id))
        return BlastRadius(self.adapter.name, root_ids, affected, list(self.warnings))

    def tests(self, inputs: Sequence[str] = (), depth: int | None = None, roots: Sequence[str] | None = None) -> TestSelection:
        """The test nodes in the blast radius and the tool's own command to run them."""
        radius = self.blast_radius(inputs, depth, roots)
        tests = self.adapter.test_nodes(self.graph, radius.ids)
        argv = self.adapter.test_command(tests) if tests else []
        return TestSelection(self.adapter.name, radius.roots, tests, argv, radius.warnings)
