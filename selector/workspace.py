"""The Python API: one object per repository; the CLI and the MCP server are thin layers on it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Sequence

from ctxsel.adapters import Adapter, AdapterOptions, adapter_class, find_workspace
from ctxsel.adapters.base import DEFAULT_TARGETS

from .cache import InputTracker, cached_graph
from .errors import UserError
from .graph import BuildGraph

if TYPE_CHECKING:  # pragma: no cover
    from .affected import ChangeSet
    from .codeowners import CodeOwners, OwnersReport
    from .select import Selection


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
    dropped_by_owner: int | None = None  # set when ``owners=`` filtered the answer
    truncated: int | None = None  # set by ``truncate``: how many farther nodes were left out
    #: nodes of the radius the tool never lists (``adapter.reportable``: turbo's ``//``, Bazel's
    #: external repos): not in the answer, but a test among them still runs (``//#test``)
    unreported: list[str] = field(default_factory=list)

    @property
    def ids(self) -> list[str]:
        return [a.id for a in self.affected]

    def truncate(self, limit: int) -> None:
        """Keep the ``limit`` nearest nodes: a core library's radius can be thousands of nodes,
        megabytes of JSON that would swamp an agent's context (``--limit``, MCP ``limit``).
        ``truncated`` is set only when something was left out."""
        if len(self.affected) > limit:
            self.truncated = len(self.affected) - limit
            del self.affected[limit:]

    def as_json(self) -> dict:
        """The ``--format json`` body (schema ``blast-radius.json``); CLI, MCP and API share it."""
        return {
            "adapter": self.adapter,
            "roots": self.roots,
            "affected": [{"id": a.id, "kind": a.kind, "distance": a.distance, "path": a.path} for a in self.affected],
            **({"dropped_by_owner": self.dropped_by_owner} if self.dropped_by_owner is not None else {}),
            **({"truncated": self.truncated} if self.truncated is not None else {}),
        }


@dataclass
class TestSelection:
    adapter: str
    roots: list[str]
    tests: list[str]
    argv: list[str]
    warnings: list[str] = field(default_factory=list)
    dropped_by_owner: int | None = None  # set when ``owners=`` filtered the answer
    #: the targets/tasks/scripts run (``--target``; ``test`` by default): ``tests`` are the
    #: nodes having one of them, ``argv`` runs them
    targets: list[str] = field(default_factory=lambda: list(DEFAULT_TARGETS))

    @property
    def command(self) -> str:
        import shlex

        return shlex.join(self.argv) if self.argv else ""

    def as_json(self) -> dict:
        """The ``--format json`` body (schema ``tests.json``); CLI, MCP and API share it."""
        body = {"adapter": self.adapter, "targets": self.targets, "roots": self.roots, "tests": self.tests,
                "command": self.command}
        if self.dropped_by_owner is not None:
            body["dropped_by_owner"] = self.dropped_by_owner
        return body


def _load_keeping_warnings(adapter: Adapter, tracker: InputTracker) -> BuildGraph:
    """The adapter's graph, carrying the warnings its loading gave (an nx.json plugin static mode
    does not model, a workspace glob matching nothing): a cache hit skips loading, and the same
    files must warn the same on every run, not only on the first."""
    before = len(adapter.warnings)
    graph = adapter.load(tracker)
    graph.warnings.extend(w for w in adapter.warnings[before:] if w not in graph.warnings)
    del adapter.warnings[before:]
    return graph


def _one_or_many(values: str | Iterable[str]) -> list[str]:
    """A list of inputs from a list, or from one string: ``ws.tests("//core:core")`` means that
    one target, not its characters (which read as "unknown target '/'")."""
    return [values] if isinstance(values, str) else list(values)


def _targets_argument(targets: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """``targets=`` for the adapter's test methods, left out for the default ``test``: an
    adapter written before ``--target`` (a plugin's) keeps its old signatures."""
    return {} if tuple(targets) == DEFAULT_TARGETS else {"targets": tuple(targets)}


class Workspace:
    """A repository, its adapter and its (cached) build graph."""

    use_cache: bool = True  # also for the graphs of past revisions (``changes``)

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
        options = AdapterOptions(source=source, query_file=query_file, extra=dict(extra or {}), use_cache=use_cache,
                                 start=start if path is not None else None)
        impl = adapter_class(name)(root, options)
        graph = cached_graph(root, impl.cache_key(), lambda tracker: _load_keeping_warnings(impl, tracker),
                             use_cache=use_cache)
        ws = cls(root, impl, graph)
        ws.use_cache = use_cache
        ws.warnings.extend(impl.warnings)
        return ws

    # ------------------------------------------------------------ inputs
    def resolve(self, inputs: str | Iterable[str]) -> list[str]:
        """Node ids for labels, package names or file paths (sorted, unique; one string is one input)."""
        roots: set[str] = set()
        before = len(self.adapter.warnings)
        for spec in _one_or_many(inputs):
            try:
                roots.update(self.adapter.resolve(self.graph, spec))
            except UserError as exc:
                exc.warnings = list(dict.fromkeys(self.warnings + self.adapter.warnings[before:]))
                raise
        self.warnings.extend(self.adapter.warnings[before:])  # e.g. "no rule lists this file"
        if not roots:
            raise UserError("nothing to start from: give at least one target, package or file")
        return sorted(roots)

    def changes(
        self,
        since: str | None = None,
        base: str | None = None,
        head: str | None = None,
        staged: bool = False,
        files: str | Sequence[str] | None = None,
        untracked: bool = True,
    ) -> "ChangeSet":
        """The nodes a git change touches (the roots of its blast radius), and why.

        Exactly one selector: ``since`` (merge-base vs working tree), ``base``/``head``
        (merge-base(base, head)..head), ``staged`` (index vs HEAD) or ``files``.
        """
        from .affected import change_set
        from .changes import changed_files
        from .revision import revision_graph

        files = _one_or_many(files) if files is not None else None
        found = changed_files(self.root, since=since, base=base, head=head, staged=staged, files=files, untracked=untracked,
                              directories=self.adapter.spec_directories())
        result = change_set(
            self.adapter, self.graph, found, old_graph=lambda rev, paths: revision_graph(self.adapter, rev, paths, self.use_cache)
        )
        return result

    def roots(
        self,
        targets: str | Sequence[str] = (),
        since: str | None = None,
        base: str | None = None,
        head: str | None = None,
        staged: bool = False,
        files: str | Sequence[str] = (),
    ) -> tuple[list[str], "ChangeSet | None"]:
        """The roots of a blast radius: resolved targets plus the nodes a git change touches.

        Pass the roots on as ``blast_radius(roots=...)``/``tests(roots=...)``; the ChangeSet
        (None without a change selector) says which files put each root there.
        """
        targets, files = _one_or_many(targets), _one_or_many(files)
        changed = bool(since or base or head or staged or files)
        if not targets and not changed:
            raise UserError(
                "nothing to start from: give targets/packages/files, or a change selector",
                hint="e.g. --since main, --base origin/main --head HEAD, --staged, --files path/to/file",
            )
        found: set[str] = set(self.resolve(targets)) if targets else set()
        change = None
        if changed:
            change = self.changes(since=since, base=base, head=head, staged=staged, files=list(files) or None)
            found.update(change.nodes)
        return sorted(found), change

    # ------------------------------------------------------------ answers
    def blast_radius(
        self, inputs: str | Sequence[str] = (), depth: int | None = None, roots: str | Sequence[str] | None = None,
        owners: Sequence[str] = (), with_paths: bool = True,
    ) -> BlastRadius:
        """Everything that transitively depends on the inputs, nearest first, with the path why.

        ``owners``: keep only nodes a CODEOWNERS owner among them owns (``codeowners.owned_nodes``).
        ``with_paths=False`` leaves each ``path`` as just the node: the paths cost the sum of
        all depths (quadratic on a long chain) and a test selection never shows them.
        """
        if depth is not None and depth < 0:  # the CLI's --depth and the MCP schema refuse it too
            raise UserError(f"depth must be 0 or more, not {depth}", hint="0 = the inputs themselves; None = every depth")
        root_ids = sorted(_one_or_many(roots)) if roots is not None else self.resolve(inputs)
        dist = self.adapter.blast_radius(self.graph, root_ids, depth)
        affected: list[Affected] = []
        unreported: list[str] = []
        for n, d in dist.items():
            if self.adapter.reportable(self.graph, n):
                affected.append(Affected(id=n, kind=self.graph.node(n).kind, distance=d, path=[n]))
            else:
                unreported.append(n)
        affected.sort(key=lambda a: (a.distance, a.id))
        result = BlastRadius(self.adapter.name, root_ids, affected, list(self.warnings), unreported=sorted(unreported))
        if owners:
            kept, dropped, notes = self._owned([a.id for a in affected], owners)
            keep = set(kept)
            result.affected = [a for a in affected if a.id in keep]
            result.dropped_by_owner = len(dropped)
            result.warnings.extend(notes)
        if with_paths:
            self.add_paths(result, depth)
        return result

    def add_paths(self, radius: BlastRadius, depth: int | None = None) -> None:
        """Give each node of ``radius`` (from ``blast_radius(with_paths=False)``) its "why" path.

        Only the nodes still in it get one: after ``truncate`` (``--limit``, MCP ``limit``)
        that is the N shown, not the whole radius (``depth``: the one the radius was asked with).
        """
        paths = self.graph.paths_to(radius.roots, depth, only=radius.ids)
        for a in radius.affected:
            a.path = paths.get(a.id, [a.id])

    def tests(
        self, inputs: str | Sequence[str] = (), depth: int | None = None, roots: str | Sequence[str] | None = None,
        owners: Sequence[str] = (), target: str | Sequence[str] = "test",
    ) -> TestSelection:
        """The test nodes in the blast radius and the tool's own command to run them.

        ``owners`` filters the selected tests (not the radius they come from): a team's
        tests that a change elsewhere can break are still that team's to run. ``target``
        (``--target``; ``"lint"``, ``"unit-test,lint"`` or a list): the nodes having one of these
        targets/tasks/scripts instead of ``test``
        (``nx affected -t lint``), read from the graph's node data, so a cached graph answers any.
        """
        names = target.split(",") if isinstance(target, str) else list(target)
        chosen = self.adapter.check_targets(names)
        named = _targets_argument(chosen)
        radius = self.blast_radius(inputs, depth, roots, with_paths=False)
        tests = self.adapter.test_nodes(self.graph, [*radius.ids, *radius.unreported], **named)
        suites = self.adapter.suite_tests(self.graph, radius.roots)  # `bazel test //p:suite` runs these
        if suites:
            tests = sorted(set(tests) | set(suites))
        dropped: list[str] | None = None
        if owners:
            tests, dropped, notes = self._owned(tests, owners)
            radius.warnings.extend(notes)
        argv = self.adapter.targets_command(self.graph, tests, chosen)
        radius.warnings.extend(self.adapter.test_command_warnings(self.graph, tests, **named))
        if named:
            radius.warnings.extend(self.adapter.unknown_target_warnings(self.graph, chosen))
        selection = TestSelection(self.adapter.name, radius.roots, tests, argv, radius.warnings, targets=list(chosen))
        if dropped is not None:
            selection.dropped_by_owner = len(dropped)
        return selection

    def tests_for_change(
        self, sel: TestSelection, changes: "ChangeSet", inputs: Sequence[str] = (),
        depth: int | None = None, owners: Sequence[str] = (),
    ) -> TestSelection:
        """``sel`` (``tests`` for the change's roots) with the tests the tool itself picks for ``changes``.

        Most tools run the tests of every node in the blast radius; Nx 24 picks test tasks
        by their inputs (``adapter.change_tests``), which can leave out dependents (a spec
        file outside ``production``) or add projects (a ``{workspaceRoot}`` input). Tests of
        named ``inputs`` stay; ``depth`` still bounds the answer; ``owners`` filter it as
        ``tests`` does; ``sel.targets`` are the targets run. Every command answering "which
        tests" for a change goes through it.

        The change's ``hidden`` nodes add their own tests and their dependents' (within
        ``depth``): a root file, the lockfile or turbo.json touches Turborepo's ``//``, and
        ``turbo run test --filter=...[ref]`` runs ``//#test`` for it (measured).
        """
        targets = tuple(sel.targets)
        named = _targets_argument(targets)
        picked = self.adapter.change_tests(self.graph, changes, **named)
        # and the dependents of a hidden node: a package declaring the root package
        # (``"root": "workspace:../.."``) is run for a root file's change (turbo, measured)
        reached = self.adapter.blast_radius(self.graph, changes.hidden, depth) if changes.hidden else {}
        touched = set(self.adapter.test_nodes(self.graph, reached, **named)) - set(sel.tests)
        if picked is None and not touched:
            return sel
        if picked is None:
            chosen, prior = set(sel.tests), sel.dropped_by_owner or 0  # already bounded and filtered
        else:
            chosen, prior = set(picked), 0
            if inputs:
                chosen |= set(self.tests(inputs, depth, target=targets).tests)
            if depth is not None:
                chosen &= set(self.tests(roots=sel.roots, depth=depth, target=targets).tests)
        tests = sorted(chosen | touched)
        if owners:
            tests, dropped, _ = self._owned(tests, owners)  # its warnings are in sel already
            sel.dropped_by_owner = prior + len(dropped)
        sel.tests = tests
        sel.argv = self.adapter.targets_command(self.graph, tests, targets)
        sel.warnings.extend(w for w in self.adapter.test_command_warnings(self.graph, tests, **named) if w not in sel.warnings)
        return sel

    # ------------------------------------------------------------ CODEOWNERS
    def codeowners(self, path: str | Path | None = None, syntax: str | None = None) -> "CodeOwners":
        """The repository's CODEOWNERS, parsed once; ``path``/``syntax`` as ``--codeowners``/``--codeowners-syntax``.

        Called without arguments it returns the file loaded last (or finds the default one),
        so a caller can choose the file once and then ask ``blast_radius(owners=...)``.
        """
        from .codeowners import load_for

        cached = getattr(self, "_codeowners", None)
        if cached is not None and (path is None and syntax is None or cached[0] == (path, syntax or "auto")):
            return cached[1]
        rules = load_for(self.root, path, syntax or "auto")
        self._codeowners = ((path, syntax or "auto"), rules)
        return rules

    def owners_of(self, paths: Sequence[str]) -> "OwnersReport":
        """CODEOWNERS owners of workspace-relative paths (keys relative to the CODEOWNERS root)."""
        from .codeowners import owners_report, workspace_prefix

        rules = self.codeowners()
        prefix = workspace_prefix(self.root, rules)
        return owners_report(rules, [prefix + p.lstrip("/") for p in paths])

    owners = owners_of  # the MCP server's name for it

    # ------------------------------------------------------------ context selection
    def select(
        self,
        query: str = "",
        targets: Sequence[str] = (),
        seeds: Sequence[str] = (),
        since: str | None = None,
        base: str | None = None,
        head: str | None = None,
        staged: bool = False,
        files: Sequence[str] = (),
        owners: Sequence[str] = (),
        budget: int = 8000,
        scope: str | None = None,
        dense: bool | None = None,
    ) -> "Selection":
        """The code that matters for a change, packed into ``budget`` tokens (``ctxsel select``).

        ``.markdown()`` is the packed context, ``.as_json()`` the chunk list with reasons.
        """
        from .select import SelectRequest, select

        request = SelectRequest(
            query=query, targets=list(targets), seeds=list(seeds), since=since, base=base, head=head, staged=staged,
            files=list(files), owners=list(owners), budget=budget, scope=scope, dense=dense,
        )
        options = self.adapter.options
        reopen = {"adapter": self.adapter.name, "source": options.source, "query_file": options.query_file,
                  "use_cache": self.use_cache, "extra": dict(options.extra)}
        return select(self.root, request, reopen)

    def _owned(self, ids: Sequence[str], owners: Sequence[str]) -> tuple[list[str], list[str], list[str]]:
        """(kept, dropped, warnings) for ``owners`` filtering with the current CODEOWNERS."""
        from .codeowners import owned_nodes, unknown_owners, workspace_prefix

        rules = self.codeowners()
        kept, dropped = owned_nodes(self.graph, ids, owners, rules, workspace_prefix(self.root, rules))
        notes = list(rules.warnings)
        for o in unknown_owners(rules, owners):
            notes.append(f"{rules.source} names no owner {o!r}; nothing can be owned by it")
        return kept, dropped, notes
