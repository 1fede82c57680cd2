"""The interface every build system implements (like httpx's BaseTransport).

An adapter knows one build system: how to recognise its workspace, how to build a
``BuildGraph`` (by asking the real tool, or by reading the manifests itself), how
to turn what a user types (a label, a package name, a file path) into node ids,
which nodes are tests, and how that tool spells "run these tests". Commands hold an
``Adapter`` and never ask which one it is.
"""

from __future__ import annotations

import os
import shutil
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Iterable, Sequence

from ctxsel.cache import InputTracker
from ctxsel.errors import ToolError, UnknownTargetError, UserError
from ctxsel.graph import BuildGraph

if TYPE_CHECKING:
    from ctxsel.affected import ChangeSet

SOURCES = ("auto", "tool", "static")
#: the target/task/script ``ctxsel tests`` runs unless ``--target`` names others
DEFAULT_TARGETS: tuple[str, ...] = ("test",)


@dataclass
class AdapterOptions:
    """What the user chose on the command line that changes how a graph is built."""

    source: str = "auto"  # auto | tool | static
    query_file: str | None = None  # a saved tool output to read instead of running the tool
    extra: dict[str, str] = field(default_factory=dict)
    #: False with --no-cache: adapters must not reuse their own caches either (not part of cache_token)
    use_cache: bool = True
    #: the directory the user named (``--repo DIR``, ``Workspace.open(DIR)``), which may lie below the
    #: workspace root: relative specs are also read from there, as ``cd DIR && bazel query :x`` or
    #: ``git -C DIR`` read them (not part of cache_token: the graph is the same from any directory)
    start: Path | None = None

    def cache_token(self) -> str:
        parts = [self.source]
        if self.query_file:
            parts.append(os.path.abspath(self.query_file))
        parts += [f"{k}={v}" for k, v in sorted(self.extra.items())]
        return "|".join(parts)


class Adapter(ABC):
    """One build system. Subclasses set ``name`` and ``tools`` and implement ``detect``,
    ``load_static``, ``load_tool`` and ``test_command``; the rest has sensible defaults."""

    name: ClassVar[str]
    #: executables that answer for this build system, most preferred first
    tools: ClassVar[tuple[str, ...]] = ()
    #: what static mode reads ("parsing the BUILD files"), when ``--source auto`` hands over
    #: to it after the tool failed (``ToolError``) with the tool's message as a warning; empty:
    #: the tool's error stands. For tools that refuse a repository their static reading
    #: answers for: Bazel loading offline, pnpm 12 and an older lockfile.
    static_fallback: ClassVar[str] = ""

    def __init__(self, root: Path, options: AdapterOptions | None = None) -> None:
        self.root = root
        self.options = options or AdapterOptions()
        self.warnings: list[str] = []

    # ------------------------------------------------------------ workspace
    @classmethod
    @abstractmethod
    def detect(cls, root: Path) -> bool:
        """True when ``root`` is the root of a workspace of this build system."""

    def find_tool(self) -> str | None:
        """The real tool's executable: the repo's ``node_modules/.bin`` first, then PATH."""
        for name in self.tools:
            local = self.root / "node_modules" / ".bin" / name
            if local.is_file() and os.access(local, os.X_OK):
                return str(local)
            found = shutil.which(name)
            if found:
                return found
        return None

    def resolved_source(self) -> str:
        """``auto`` means the tool when it is installed, else static parsing."""
        src = self.options.source
        if src not in SOURCES:
            raise UserError(f"unknown --source {src!r} (choose auto, tool or static)")
        if src == "auto":
            return "tool" if (self.options.query_file or self.find_tool()) else "static"
        return src

    # ------------------------------------------------------------ graph
    def load(self, tracker: InputTracker) -> BuildGraph:
        source = self.resolved_source()
        if source == "tool":
            if not self.options.query_file and not self.find_tool():
                raise UserError(
                    f"--source tool needs {' or '.join(self.tools) or 'the build tool'} on PATH",
                    hint="use --source static to parse the manifests without it",
                )
            try:
                graph = self.load_tool(tracker)
            except ToolError as exc:
                if not self.static_fallback or self.options.source != "auto" or self.options.query_file:
                    raise
                for path in self.fallback_inputs():
                    tracker.note(path)
                graph = self.load_static(tracker)
                # on the graph, so a cached copy still says where it came from
                graph.warnings.insert(0, f"{exc.message}; fell back to {self.static_fallback} (--source static)")
        else:
            graph = self.load_static(tracker)
        graph.adapter = self.name
        graph.root = str(self.root)
        return graph

    def fallback_inputs(self) -> tuple[Path, ...]:
        """Files whose edit may let the tool answer again: a cached fallback graph expires with them."""
        return ()

    @abstractmethod
    def load_static(self, tracker: InputTracker) -> BuildGraph:
        """Parse the manifests/BUILD files without the tool; must equal the tool's answer."""

    @abstractmethod
    def load_tool(self, tracker: InputTracker) -> BuildGraph:
        """Ask the real tool once for the whole graph (or read ``options.query_file``)."""

    def cache_key(self) -> str:
        """A file-name-safe key for the graph cache of this adapter and its options."""
        token = self.options.cache_token()
        if token not in SOURCES:  # a query file or extra options: hash them into the name
            # imported only here: hashlib loads OpenSSL (~2 ms of a warm run, measured);
            # with the default options the token is the source name, safe as it is
            import hashlib

            token = hashlib.sha1(token.encode()).hexdigest()[:12]
        return f"{self.name}-{self.resolved_source()}-{token}"

    # ------------------------------------------------------------ inputs
    def resolve(self, graph: BuildGraph, spec: str) -> list[str]:
        """Node ids for what the user typed: a node id, or a path to a file or directory.

        Raises ``UnknownTargetError`` (with close matches) when nothing fits.
        """
        if spec in graph:
            return [spec]
        rel = self.relative_path(spec)
        if rel is not None:
            ids = self.nodes_for_file(graph, rel)
            if ids:
                return ids
        raise UnknownTargetError(spec, self.reportable_ids(graph), what=self.node_noun)

    #: what a node is called in messages ("target", "package", "project")
    node_noun: ClassVar[str] = "target"

    def spec_directories(self) -> tuple[Path, ...]:
        """The directories a relative spec (a path, a Bazel ``:x``) is read against, first match
        wins: the shell's directory, then the directory ``--repo`` named, then the workspace
        root. ``--repo ws/core`` run from elsewhere read ``core.h`` and ``:core`` from the shell's
        directory and the root only, and answered "unknown target"; the answers that worked
        before (found from the shell's directory or the root) keep their place in the order,
        except that ``--repo DIR``'s own directory now comes before the root, as the tools read it."""
        dirs = [Path.cwd()]
        if self.options.start is not None:
            dirs.append(Path(os.path.abspath(self.options.start)))
        dirs.append(self.root)
        return tuple(dict.fromkeys(dirs))

    def relative_path(self, spec: str) -> str | None:
        """``spec`` as a repo-relative POSIX path if it names something inside the repo."""
        for base in self.spec_directories():
            p = (base / spec).resolve() if not os.path.isabs(spec) else Path(spec).resolve()
            try:
                rel = p.relative_to(self.root.resolve())
            except ValueError:
                continue
            if p.exists():
                return rel.as_posix() if str(rel) != "." else ""
        return None

    def nodes_for_file(self, graph: BuildGraph, path: str) -> list[str]:
        """Nodes owning a repo-relative file: declared srcs, else the nearest package's nodes."""
        owners = graph.owners_of_file(path)
        if owners:
            return owners
        package = self.package_of(graph, path)
        return graph.nodes_in_package(package) if package is not None else []

    def package_of(self, graph: BuildGraph, path: str) -> str | None:
        """Longest package directory that contains ``path`` ("" is the root package)."""
        packages = graph.packages()
        probe = path.strip("/")
        while True:
            if probe in packages:
                return probe
            if not probe:
                return None
            probe = probe.rsplit("/", 1)[0] if "/" in probe else ""

    # ------------------------------------------------------------ answers
    def reportable(self, graph: BuildGraph, node_id: str) -> bool:
        """Whether a node appears in a blast radius (external repos/packages do not)."""
        return not graph.node(node_id).external

    def reportable_ids(self, graph: BuildGraph) -> list[str]:
        return [n for n in graph if self.reportable(graph, n)]

    def blast_radius(self, graph: BuildGraph, roots: Iterable[str], depth: int | None = None) -> dict[str, int]:
        """Reverse closure as this tool computes it (adapters override for tool quirks)."""
        return graph.rdeps(roots, depth)

    #: whether the tool runs a named target/task/script other than ``test`` (``--target``):
    #: the JS tools do (``nx run-many -t lint``, ``turbo run lint``, ``pnpm lint``) and say so;
    #: Bazel has no such name (``bazel test`` runs test rules), and an adapter written before
    #: ``--target`` would answer its tests for any name, so the default is no
    named_targets: ClassVar[bool] = False
    #: whether one command of the tool runs several targets (``nx run-many -t a,b``, ``turbo run
    #: a b``); otherwise ``targets_command`` chains one command per target
    several_targets_per_command: ClassVar[bool] = False

    def check_targets(self, targets: Sequence[str]) -> tuple[str, ...]:
        """``targets`` as the adapter runs them (deduplicated, in order), or a ``UserError`` for
        names no tool of this kind accepts: an empty name, or any but ``test`` where the build
        system has no named targets (Bazel)."""
        chosen = tuple(dict.fromkeys(targets)) or DEFAULT_TARGETS
        bad = next((t for t in chosen if not t or t != t.strip() or "," in t), None)
        if bad is not None:
            raise UserError(f"--target {bad!r} is no target name", hint="e.g. --target lint or -t unit-test,lint")
        if not self.named_targets and chosen != DEFAULT_TARGETS:
            raise UserError(f"--target {','.join(chosen)}: {self.name} has no named targets to run, only its tests "
                            "(leave out --target)")
        return chosen

    def test_nodes(self, graph: BuildGraph, ids: Iterable[str], targets: Sequence[str] = DEFAULT_TARGETS) -> list[str]:
        """The nodes among ``ids`` where this tool would run one of ``targets`` (sorted)."""
        return sorted(i for i in ids if graph.node(i).is_test)

    def suite_tests(self, graph: BuildGraph, roots: Iterable[str]) -> list[str]:
        """The tests that inputs naming a group of tests stand for (Bazel's ``test_suite``).

        Only the inputs are expanded: a suite the blast radius merely reaches is no reason to
        run every test it lists (``tests(rdeps(...))`` over-selects that way). Default: none.
        """
        return []

    def change_tests(self, graph: BuildGraph, changes: "ChangeSet", targets: Sequence[str] = DEFAULT_TARGETS) -> list[str] | None:
        """The tests the tool itself selects for a change, when it selects by more than the graph.

        None (the default): the test nodes in the change's blast radius. Nx 24 overrides it:
        it picks tasks by their inputs, so a test file's change does not re-run dependents.
        """
        return None

    def root_package_node(self, graph: BuildGraph) -> str | None:
        """The node a changed file *outside every package* changes without starting a blast
        radius, when the tool has one: Turborepo's root package ``//``. turbo maps such a file
        (a root README, the lockfile, turbo.json, a deleted package's files) to ``//``;
        ``turbo ls --filter=...[ref]`` never lists it and follows none of its dependents, but
        ``turbo run test --filter=...[ref]`` runs ``//#test`` (measured, turbo 2.11.11). The
        change set keeps it apart (``ChangeSet.hidden``) so blast radii stay as the tool lists
        them while test selections gain its test. None (the default): no such node.
        """
        return None

    def compared_files(self) -> tuple[str, ...]:
        """Repo-relative files whose change the tool judges by comparing their two versions
        over a git range (``nodes_for_file_versions``): turbo 2's lockfile, Nx's root
        tsconfig. A change set reads both sides only for these (``--files`` has no old
        side: then they count as any other file, or as global files). None by default."""
        return ()

    def nodes_for_file_versions(self, graph: BuildGraph, path: str, before: str | None, after: str | None) -> list[str] | None:
        """The nodes a change of ``path`` (one of ``compared_files()``) from ``before`` to
        ``after`` changes (None for a side: absent there). None as the answer: the tool sees
        no finer change than the whole file, which then counts as usual (global when it is
        one of ``global_files()``)."""
        return None

    @abstractmethod
    def test_command(self, tests: list[str], targets: Sequence[str] = DEFAULT_TARGETS) -> list[str]:
        """argv that runs exactly these tests with the repo's own tool; with ``targets`` (passed
        only for a ``--target``, to adapters with ``named_targets``), those targets of these
        nodes: all of them when ``several_targets_per_command``, else the one.

        ``test_nodes``, ``change_tests`` and ``test_command_warnings`` get ``targets`` the same
        way: never for the default ``test``, so an adapter written before ``--target`` keeps
        its signatures."""

    def targets_command(self, graph: BuildGraph, tests: list[str], targets: Sequence[str] = DEFAULT_TARGETS) -> list[str]:
        """argv that runs ``targets`` of ``tests``: ``test_command`` itself when the tool takes
        them all at once, else one ``test_command`` per target over the nodes having it, joined
        with ``&&`` (``npm run`` and ``yarn run`` take one script name, and pnpm reads a second
        one as an argument of the first: ``pnpm --filter a lint test`` runs ``lint test``,
        pnpm 12.4.2, measured). Empty without tests."""
        if not tests:
            return []
        if tuple(targets) == DEFAULT_TARGETS:
            return self.test_command(tests)  # the signature adapters written before --target have
        if len(targets) == 1 or self.several_targets_per_command:
            return self.test_command(tests, targets)
        import shlex

        steps = [self.test_command(own, (t,)) for t in targets for own in [self.test_nodes(graph, tests, (t,))] if own]
        if len(steps) == 1:
            return steps[0]
        # a step that is already a shell chain (yarn 1's one ``yarn workspace`` per package) joins as its text
        texts = [s[2] if s[:2] == ["sh", "-c"] else shlex.join(s) for s in steps]
        return ["sh", "-c", " && ".join(texts)]

    def unknown_target_warnings(self, graph: BuildGraph, targets: Sequence[str]) -> list[str]:
        """A warning for each of ``targets`` that no node of the workspace has, so an empty
        answer is not read as "nothing affected" (``nx run-many -t nope`` says "No tasks were
        run", exit 0; ``pnpm --filter a nope`` "None of the selected packages has a "nope"
        script", exit 1; measured with nx 24 and pnpm 12.4.2). Only asked for a ``--target``."""
        every = list(graph)
        return [f"no {self.node_noun} of this workspace has a {t!r} {self.target_noun}" for t in targets
                if not self.test_nodes(graph, every, (t,))]

    #: what the named thing ``--target`` picks is called by this tool ("target", "task", "script")
    target_noun: ClassVar[str] = "target"

    def test_command_warnings(self, graph: BuildGraph, tests: list[str], targets: Sequence[str] = DEFAULT_TARGETS) -> list[str]:
        """Why the tool would refuse ``test_command(tests)``, if it would: a command that
        fails in a pre-commit hook must say so where it is printed."""
        return []

    def global_files(self) -> tuple[str, ...]:
        """Repo-relative paths (path globs: ``*`` stays in one directory, ``**`` crosses them, ``{a,b}`` and ``!`` as in Turborepo) whose change affects every node."""
        return ()

    # ------------------------------------------------------------ changes (--since/--base/--staged)
    #: whether a moved file also changes the package it moved *from*. Nx and Turborepo
    #: count both; pnpm's ``[ref]`` filter only the destination (its ``git diff`` shows
    #: the new name alone), so the pnpm adapter sets this to False.
    rename_counts_old_path: ClassVar[bool] = True
    #: whether a change that removes a node (its file and owner deleted) changes the
    #: node's former dependents; Turborepo maps changed paths through the head revision's
    #: packages only, so a deleted package changes none of them
    removed_owner_changes_dependents: ClassVar[bool] = True
    #: whether a file matching ``global_files()`` inside a package is still a global
    #: change. Turborepo maps files to packages first and reads ``globalDependencies``
    #: only for the rest, so by default a package's file is that package's change; Bazel
    #: reads an imported rc file (``tools/ci.bazelrc``) wherever it lies.
    global_files_inside_packages: ClassVar[bool] = False

    def nodes_for_changed_file(self, graph: BuildGraph, path: str) -> list[str]:
        """Nodes a *change* to ``path`` affects directly (the roots of its blast radius).

        Differs from ``nodes_for_file`` (what a user means by typing a path) for
        manifests: a changed BUILD file changes its package's rules, a changed
        ``.bzl`` every package that loads it, a root file only what the tool says.
        Adapters override it for those; the default is ``nodes_for_file``. ``graph``
        may be an older revision's graph (for deleted files).
        """
        return self.nodes_for_file(graph, path)

    def manifest_patterns(self) -> tuple[str, ...]:
        """fnmatch patterns (file name or repo path) of every file ``load_static`` reads.

        Lets an old revision be parsed from its manifests alone, with empty
        placeholders for the other files. ``()`` means "unknown": every file is
        written with its content, which is correct but slower.
        """
        return ()
