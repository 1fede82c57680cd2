"""The Bazel adapter: labels in, rule targets out, ``bazel test`` as the command.

Sources (``--source``): ``tool`` runs one ``bazel query '//...:*'`` (or reads
``--query-file``); ``static`` evaluates the BUILD files itself; ``auto`` uses the
tool when ``bazel``/``bazelisk`` is on PATH and falls back to static parsing when
the tool fails. ``CTXSEL_BAZEL=/path/to/bazel`` picks the executable explicitly
(tests point it at a wrapper with offline flags); ``CTXSEL_BAZEL_TIMEOUT`` bounds
the query (seconds, default 600).
"""

from __future__ import annotations

import os
import posixpath
import re
from pathlib import Path
from typing import Iterable

from ctxsel.adapters.base import Adapter, AdapterOptions
from ctxsel.cache import InputTracker, ensure_cache_dir
from ctxsel.errors import Location, ToolError, UnknownTargetError, UserError
from ctxsel.graph import TESTS, BuildGraph

from .labels import BUILD_NAMES, NON_RULE_KINDS, LabelError, parse_label, valid_package_name, workspace_name

GLOBAL_FILES = ("WORKSPACE", "WORKSPACE.bazel", "MODULE.bazel", ".bazelrc", ".bazelversion")
#: graph warnings that mean targets may be missing (tool mode's partial query, static mode's lost statements)
_LOST_TARGETS = re.compile(r"graph is partial|could not be evaluated|bazel query fails")
# Past this, `bazel test a b c ...` risks the OS argv limit; Bazel reads patterns from a file.
MAX_INLINE_TARGETS = 500
MAX_INLINE_CHARS = 32_000


class BazelAdapter(Adapter):
    name = "bazel"
    tools = ("bazel", "bazelisk")
    node_noun = "target"
    global_files_inside_packages = True  # an imported rc file in //tools is still everyone's
    static_fallback = "parsing the BUILD files"  # e.g. external repositories Bazel cannot fetch offline

    def __init__(self, root: Path, options: AdapterOptions | None = None) -> None:
        super().__init__(root, options)
        self._outputs: tuple[BuildGraph, dict[str, str]] | None = None
        self._main_name: str | None = None
        self._workspace_bzl: set[str] | None = None
        self._rc_imports: tuple[str, ...] | None = None

    @classmethod
    def detect(cls, root: Path) -> bool:
        return any((root / f).is_file() for f in ("MODULE.bazel", "WORKSPACE", "WORKSPACE.bazel"))

    def find_tool(self) -> str | None:
        explicit = os.environ.get("CTXSEL_BAZEL")
        if explicit:
            return explicit if os.path.isfile(explicit) and os.access(explicit, os.X_OK) else None
        return super().find_tool()

    # ------------------------------------------------------------ loading
    def load(self, tracker: InputTracker) -> BuildGraph:
        graph = super().load(tracker)
        cycle = graph.find_cycle()
        if cycle:
            # Answers stay complete (the closures tolerate cycles), but Bazel will not build these.
            graph.warnings.append("dependency cycle: " + " -> ".join(cycle) + " (bazel build would fail on it)")
        return graph

    def load_static(self, tracker: InputTracker) -> BuildGraph:
        from .static import load_static

        return load_static(self.root, tracker)

    def load_tool(self, tracker: InputTracker) -> BuildGraph:
        from .query import load_query_output, run_query, timeout_from_env
        from .static import default_visibility_by_package, find_build_files

        main = workspace_name(self.root, tracker)
        # also stamps BUILD/.bzl files, so an edit drops the cached graph
        packages, _ = find_build_files(self.root, tracker)
        defaults = default_visibility_by_package(self.root, packages, main, tracker)
        if self.options.query_file:
            path = Path(self.options.query_file)
            try:
                text = tracker.read_text(path)
            except OSError as exc:
                raise UserError(f"cannot read --query-file: {exc.strerror}", Location(str(path))) from None
            return load_query_output(text, str(path), str(self.root), main, default_visibility=defaults)
        tool = self.find_tool()
        assert tool is not None  # Adapter.load checked
        before = len(self.warnings)
        text, fmt = run_query(tool, self.root, timeout_from_env(), self.warnings)
        graph = load_query_output(text, f"bazel query --output={fmt}", str(self.root), main, fmt, defaults)
        if len(self.warnings) > before and not any(not n.external for n in graph.nodes()):
            # exit 3 and not one target: no partial graph but a failed query (a WORKSPACE
            # load that fails offline, a MODULE.bazel-only repository on an older Bazel:
            # "Skipping '//...:*': no targets found beneath ''"); auto mode then reads the
            # BUILD files instead of answering "unknown target" for everything
            cause = self.warnings.pop().split("the graph is partial.", 1)[-1].strip()
            raise ToolError(f"bazel query loaded no target of the workspace (exit 3){': ' + cause if cause else ''}",
                            hint="use --source static to parse the BUILD files without Bazel")
        graph.warnings.extend(self.warnings)
        self.warnings.clear()
        return graph

    # ------------------------------------------------------------ inputs
    def resolve(self, graph: BuildGraph, spec: str) -> list[str]:
        """Labels (``//pkg:name``, ``//pkg``, ``//pkg/...``, ``//pkg:all``, ``:name``),
        output-file labels (their generating rule), and file or directory paths.

        An unknown target on a graph that lost targets (a package Bazel could not load, a
        statement static mode could not evaluate) says so: the lost target is the likely
        one, and the warning that explains it is otherwise never printed.
        """
        try:
            return self._resolve(graph, spec)
        except UnknownTargetError as exc:
            lost = [w for w in graph.warnings if _LOST_TARGETS.search(w)]
            if lost:
                exc.hint = "; ".join(filter(None, [exc.hint, "the graph may be missing it: " + lost[0]]))
                exc.args = (exc.render(),)
            raise

    def relative_path(self, spec: str) -> str | None:
        """``spec`` as a repo-relative path, read as Bazel names files: a symlink is a file of
        the package it lies in, under its own path (rules_nixpkgs' ``nixpkgs/BUILD.pkg ->
        ../core/BUILD.bazel.tpl`` is ``//nixpkgs:BUILD.pkg``, which ``//nixpkgs:srcs`` globs;
        resolving it named ``//core``'s rules). Only the workspace root itself is resolved."""
        roots = dict.fromkeys((Path(os.path.abspath(self.root)), self.root.resolve()))
        for base in self.spec_directories():
            path = Path(os.path.abspath(spec if os.path.isabs(spec) else base / spec))
            for root in roots:
                try:
                    rel = path.relative_to(root)
                except ValueError:
                    continue
                if os.path.lexists(path):
                    return "" if str(rel) == "." else rel.as_posix()
        return super().relative_path(spec)

    def _resolve(self, graph: BuildGraph, spec: str) -> list[str]:
        if spec in graph:  # an external label too: "what depends on @zlib?" is a fair question
            return [spec]
        if spec.startswith(("//", "@", ":")):
            return self._resolve_label(graph, spec)
        rel = self.relative_path(spec)
        if rel is not None:
            ids = self.nodes_for_file(graph, rel)
            if ids:
                return ids
        else:
            target = self._relative_target(graph, spec)
            if target is not None:
                return [target]
            ids = self._relative_pattern(graph, spec)
            if ids:
                return ids
            if not os.path.isabs(spec):
                ids = self.nodes_for_file(graph, spec.strip("/"))  # a path that no longer exists (a deleted file) still has owners
                if ids:
                    return ids
        raise UnknownTargetError(spec, self.reportable_ids(graph), what=self.node_noun)

    def _relative_target(self, graph: BuildGraph, spec: str) -> str | None:
        """``a`` or ``sub/x`` that names no file: Bazel's relative target pattern, read from
        the current directory. ``bazel query 'rdeps(//..., a)'`` run in ``p/`` means
        ``//p/a:a`` when ``p/a`` is a package, else ``//p:a`` (the longest package prefix);
        ctxsel took it as a path from the workspace root and found nothing (or the wrong package).
        """
        if os.path.isabs(spec) or ":" in spec:
            return None
        for directory in self._working_directories():
            full = posixpath.normpath(f"{directory}/{spec}" if directory else spec).strip("/")
            if full in ("", ".") or full.startswith(".."):
                continue
            if full in graph.packages():
                candidate = f"//{full}:{full.rsplit('/', 1)[-1]}"
            else:
                package = self.package_of(graph, full)
                if package is None:
                    continue
                candidate = f"//{package}:{full[len(package):].lstrip('/')}"
            found = candidate if candidate in graph else self._output_index(graph).get(candidate)
            if found:
                return found
        return None

    def _relative_pattern(self, graph: BuildGraph, spec: str) -> list[str]:
        """``sub:x``, ``...`` or ``sub/...``: Bazel 4.2.3 run in ``data/`` reads ``nested:n.txt`` as
        ``//data/nested:n.txt`` and ``nested/...`` as ``//data/nested/...`` (measured); ctxsel
        answered "unknown target" from every directory. Read from each working directory in turn."""
        parts = spec.split(":", 1)[0].split("/")
        if os.path.isabs(spec) or ".." in parts or not (":" in spec or parts[-1] == "..."):
            return []  # Bazel refuses ``../core:core`` ("invalid package name")
        for directory in self._working_directories():
            full = posixpath.normpath(f"{directory}/{spec}" if directory else spec)
            if full.startswith(("..", "/")):
                continue
            try:
                return self._resolve_absolute_label(graph, f"//{full}", spec)
            except UnknownTargetError:
                continue
        return []

    def _working_directories(self) -> list[str]:
        """The shell's directory and ``--repo DIR`` where they lie inside the workspace,
        workspace-relative ("" is the root): where Bazel would read a relative label or pattern
        from, had it been started there. A shell outside the workspace is skipped (Bazel would
        refuse to run); with neither inside, the root, as before ``--repo DIR`` counted. The root
        is no further fallback: from ``core/``, Bazel refuses a ``:x`` only the root package has."""
        real_root = self.root.resolve()
        found: list[str] = []
        start = self.options.start
        for base in (Path.cwd(), *([Path(os.path.abspath(start))] if start is not None else [])):
            try:
                rel = base.resolve().relative_to(real_root).as_posix()
            except ValueError:
                continue
            found.append("" if rel == "." else rel)
        return list(dict.fromkeys(found)) or [""]

    def _resolve_label(self, graph: BuildGraph, spec: str) -> list[str]:
        if spec.startswith(":"):
            # ``:x`` from each working directory's package in turn (the shell's, --repo's, the root's)
            packages = dict.fromkeys(self.package_of(graph, d) or "" for d in self._working_directories())
            for package in list(packages)[:-1]:
                try:
                    return self._resolve_absolute_label(graph, f"//{package}{spec}", spec)
                except UnknownTargetError:
                    continue
            return self._resolve_absolute_label(graph, f"//{list(packages)[-1]}{spec}", spec)
        return self._resolve_absolute_label(graph, spec, spec)

    def _resolve_absolute_label(self, graph: BuildGraph, text: str, spec: str) -> list[str]:
        """``text`` (a ``//`` or ``@`` label or pattern) as node ids; errors name ``spec``, as typed."""
        if text.endswith("/...") or text == "//..." or text.endswith(("/...:all", "/...:*", "/...:all-targets")):
            prefix = text[2:].split("...", 1)[0].rstrip("/")
            ids = [n.id for n in graph.nodes() if not n.external and (not prefix or n.package == prefix or n.package.startswith(prefix + "/"))]
            if ids:
                return sorted(ids)
            raise UnknownTargetError(spec, self.reportable_ids(graph), what="package")
        package, _, name = text[2:].rpartition(":") if text.startswith("//") else ("", "", "")
        if name in ("all", "*", "all-targets") and text not in graph:
            ids = graph.nodes_in_package(package)
            if ids:
                return ids
        try:
            main = self._main_repo_name()
            label = parse_label(text, "", main)
        except LabelError:
            raise UnknownTargetError(spec, self.reportable_ids(graph), what=self.node_noun) from None
        canonical = str(label)
        if canonical in graph:
            return [canonical]
        if not label.external:
            producer = self._output_index(graph).get(canonical)
            if producer:
                return [producer]
            owners = graph.owners_of_file(label.path)
            if not owners and (self.root / label.path).is_file():
                owners = self.nodes_for_file(graph, label.path)  # a BUILD/.bzl file, or an unlisted source
            if owners:
                return owners
        raise UnknownTargetError(spec, self.reportable_ids(graph), what=self.node_noun)

    def nodes_for_file(self, graph: BuildGraph, path: str) -> list[str]:
        """Rules listing the file; for a BUILD file also its package's rules, for a .bzl also
        the rules of every package loading it (``rbuildfiles`` then ``//pkg:all``)."""
        owners = graph.owners_of_file(path)
        loaders = self._loader_roots(graph, path)
        if loaders is not None:
            ids = sorted({*owners, *loaders})
            if not ids and path.endswith(".bzl"):
                self.warnings.append(f"{path}: no BUILD file loads this .bzl file")
            return ids
        if owners:
            return owners
        target = self._file_target(graph, path)
        if target:
            return [target]
        package = self.package_of(graph, path)
        if package is not None:
            ids = graph.nodes_in_package(package)
            if ids and path != package and not (self.root / path).is_dir():
                self.warnings.append(
                    f"{path}: no rule lists this file; using every rule of package //{package} "
                    "(bazel query would answer nothing for it)"
                )
            return ids
        return []

    def _output_index(self, graph: BuildGraph) -> dict[str, str]:
        """Output-file label -> generating rule (a dependency on gen.h is on its genrule).
        Built once per graph: a change set may resolve thousands of paths."""
        if self._outputs is None or self._outputs[0] is not graph:
            index: dict[str, str] = {}
            for node in graph.nodes():
                for out in node.meta.get("outs", ()):
                    index.setdefault(f"//{node.package}:{out}", node.id)
            self._outputs = (graph, index)
        return self._outputs[1]

    def _main_repo_name(self) -> str:
        if self._main_name is None:
            self._main_name = workspace_name(self.root, InputTracker(self.root))
        return self._main_name

    def reportable(self, graph: BuildGraph, node_id: str) -> bool:
        """Rules, as ``kind(rule, rdeps(//..., X))``: a package group is a node (visibility
        leads through it) but never an answer, like the source files."""
        return super().reportable(graph, node_id) and graph.node(node_id).kind not in NON_RULE_KINDS

    # ------------------------------------------------------------ answers
    def test_command(self, tests: list[str]) -> list[str]:
        """``bazel test`` with the labels, or ``--target_pattern_file`` when the list is long."""
        if len(tests) <= MAX_INLINE_TARGETS and sum(len(t) + 1 for t in tests) <= MAX_INLINE_CHARS:
            return ["bazel", "test", "--", *tests]
        base = ensure_cache_dir(self.root)
        if base is None:
            return ["bazel", "test", "--", *tests]
        path = base / "bazel-test-targets.txt"
        path.write_text("".join(t + "\n" for t in tests))
        return ["bazel", "test", f"--target_pattern_file={path}"]

    def test_nodes(self, graph: BuildGraph, ids: Iterable[str]) -> list[str]:
        """``*_test`` rules as ``bazel test //...`` runs them: not ``manual`` ones, unless a
        ``test_suite`` that ``//...`` matches (one not tagged ``manual``) expands to them.

        Bazel 4.2.3, measured (``bazel test --nobuild //...``, the targets it configures): a
        manual test listed by a plain suite runs, directly, through a nested manual suite or
        from another package; one listed only by a manual suite, or filtered out by the
        suite's tags (``-manual``), does not.
        """
        tests = {i for i in ids if graph.node(i).is_test}
        manual = {i for i in tests if "manual" in graph.node(i).tags}
        if manual:
            manual -= _wildcard_suite_tests(graph)
        return sorted(tests - manual)

    def suite_tests(self, graph: BuildGraph, roots: Iterable[str]) -> list[str]:
        """The tests ``bazel test //p:suite`` runs for each ``test_suite`` among ``roots``.

        As Bazel 4.2.3 expands a suite (measured): its tests (those it lists, or every
        non-manual test of its package when it lists none) that carry all of its positive
        tags and none of its ``-tags``, a test's ``size`` (default ``medium``) counting as a
        tag and the suite's own ``manual`` as none; a listed manual test stays; a nested
        suite adds its whole expansion, unfiltered by the outer tags; a listed ``alias``
        adds nothing.
        """
        found: set[str] = set()
        seen: set[str] = set()
        for root in roots:
            if root in graph and graph.node(root).kind == "test_suite":
                found |= _expand_suite(graph, root, seen)
        return sorted(found)

    def global_files(self) -> tuple[str, ...]:
        """``GLOBAL_FILES`` plus the rc files .bazelrc imports: they hold the same options
        (``--deleted_packages``, flags every build and test reads), so an edit to
        ``tools/ci.bazelrc`` is as global as one to .bazelrc. Escaped: these are globs."""
        return GLOBAL_FILES + tuple(re.sub(r"([\\*?\[\]{}!])", r"\\\1", p) for p in self.imported_rc_files())

    def imported_rc_files(self) -> tuple[str, ...]:
        """The workspace-relative rc files .bazelrc imports (``import``/``try-import
        %workspace%/...``, nested ones too), read once per run."""
        if self._rc_imports is None:
            from .static import workspace_rc

            self._rc_imports = tuple(workspace_rc(self.root, InputTracker(self.root)).imported)
        return self._rc_imports

    # ------------------------------------------------------------ BUILD/.bzl changes
    def nodes_for_changed_file(self, graph: BuildGraph, path: str) -> list[str]:
        """The roots ``bazel query rdeps`` would use for a changed file.

        A BUILD file changes every rule of its package, a ``.bzl`` every rule of every
        package that loads it (``rbuildfiles``), each besides the rules that list it; a
        source file changes the rules that list it (or the genrule that outputs it), and
        none when no rule does: rdeps of an unreferenced file is empty, unlike
        ``nodes_for_file``'s package fallback.
        """
        owners = graph.owners_of_file(path)
        loaders = self._loader_roots(graph, path)
        if loaders is not None:
            return sorted({*owners, *loaders})
        if owners:
            return owners
        target = self._file_target(graph, path)
        return [target] if target else []

    def _loader_roots(self, graph: BuildGraph, path: str) -> list[str] | None:
        """The rules a change to a BUILD or .bzl file reaches through evaluation (None for
        any other file): its package's rules, or every rule of every package loading the
        .bzl (``rbuildfiles``), all of them when WORKSPACE loads it.

        Callers add the rules that *list* the file: a .bzl named by a ``bzl_library``,
        a stardoc input or a ``filegroup`` glob is both loaded and a source, and its change
        reaches both sets (rules_pkg's ``pkg/private/tar/tar.bzl``: ctxsel answered only
        the doc rules listing it for the path, only the loading packages for ``--files``).
        """
        if self.is_build_file(path):
            return graph.nodes_in_package(path.rpartition("/")[0])
        if not path.endswith(".bzl"):
            return None
        if self.loaded_by_workspace(path):
            return sorted(self.reportable_ids(graph))
        return sorted({n for pkg in self.packages_loading(graph, path) for n in graph.nodes_in_package(pkg)})

    def is_build_file(self, path: str) -> bool:
        """Whether ``path`` is the file Bazel reads for its directory's package.

        A ``BUILD`` next to a ``BUILD.bazel`` is not (Bazel reads only ``BUILD.bazel``), nor
        is one in a directory that can be no package (``café/BUILD``): both are plain
        source files, whose change reaches only the rules listing them (``rdeps`` of the
        file, measured with 4.2.3), where ctxsel changed every rule of the package.
        """
        directory, _, name = path.rpartition("/")
        if name not in BUILD_NAMES or not valid_package_name(directory):
            return False
        return name == BUILD_NAMES[0] or not (self.root / directory / BUILD_NAMES[0]).is_file()

    def _file_target(self, graph: BuildGraph, path: str) -> str | None:
        """The rule the file's label ``//pkg:rel/path`` names, when one does: a rule of
        that name (``filegroup(name = "a.txt")`` next to a source ``a.txt``: Bazel gives the
        label to the rule, so ``srcs = ["a.txt"]`` and ``rdeps(//..., p/a.txt)`` both mean
        the rule, measured with 4.2.3), else the rule generating that output. No rule lists
        such a file as a source, so ctxsel found no owner and answered nothing."""
        package = self.package_of(graph, path)
        if package is None:
            return None
        label = f"//{package}:{path[len(package):].lstrip('/')}"
        if label in graph and not graph.node(label).external:
            return label
        return self._output_index(graph).get(label)

    def manifest_patterns(self) -> tuple[str, ...]:
        """What the static loader reads: BUILD/.bzl/WORKSPACE/MODULE files (sources only as paths, for globs)."""
        # "*.bazelrc": the rc files .bazelrc imports can hold --deleted_packages too
        return ("BUILD", "*.bazel", "*.bzl", "WORKSPACE", ".bazelignore", "*.bazelrc", ".bazelversion")

    def packages_loading(self, graph: BuildGraph, path: str) -> set[str]:
        """Packages whose BUILD file loads ``path`` (a .bzl, repo-relative or a label),
        directly or through other .bzl files: ``rbuildfiles`` for the change-aware helper.

        A static graph carries each package's transitive loads; a tool graph does not,
        so the BUILD files' load() statements are read here instead.
        """
        rel = self._bzl_path(path)
        found: set[str] = set()
        have_meta = False
        for node in graph.nodes():
            loads = node.meta.get("loads")
            if loads is not None:
                have_meta = True
                if rel in loads:
                    found.add(node.package)
        if have_meta:
            return found
        from .static import transitive_loads_by_package

        return {pkg for pkg, loads in transitive_loads_by_package(self.root).items() if rel in loads}

    def loaded_by_workspace(self, path: str) -> bool:
        """Whether the WORKSPACE file loads the .bzl ``path``, directly or through other
        .bzl files: then a change to it affects every target, as one to WORKSPACE does."""
        if self._workspace_bzl is None:
            from .static import workspace_loads

            self._workspace_bzl = workspace_loads(self.root)
        return self._bzl_path(path) in self._workspace_bzl

    def _bzl_path(self, path: str) -> str:
        if path.startswith(("//", "@//")):
            try:
                return parse_label(path).path
            except LabelError:
                raise UserError(f"invalid label {path!r}") from None
        rel = self.relative_path(path)
        return rel if rel is not None else path.strip("/")


__all__ = ["BazelAdapter", "GLOBAL_FILES"]


def _wildcard_suite_tests(graph: BuildGraph) -> set[str]:
    """The tests the workspace's test_suites not tagged ``manual`` expand to: what ``//...``
    makes ``bazel test`` run beyond its non-manual tests (``BazelAdapter.test_nodes``)."""
    seen: set[str] = set()
    found: set[str] = set()
    for node in graph.nodes():
        if node.kind == "test_suite" and node.id.startswith("//") and "manual" not in node.tags:
            found |= _expand_suite(graph, node.id, seen)
    return found


def _expand_suite(graph: BuildGraph, suite: str, seen: set[str]) -> set[str]:
    """``suite_tests`` for one suite; ``seen`` ends a cycle of suites (Bazel refuses one)."""
    if suite in seen:
        return set()
    seen.add(suite)
    tags = graph.node(suite).tags
    wanted = {t for t in tags if not t.startswith("-") and t != "manual"}
    unwanted = {t[1:] for t in tags if t.startswith("-")}
    found: set[str] = set()
    for dep in graph.dependencies(suite):
        if TESTS not in graph.edge_types(suite, dep):
            continue
        node = graph.node(dep)
        if node.kind == "test_suite":
            found |= _expand_suite(graph, dep, seen)
        elif node.is_test:
            has = {*node.tags, str(node.meta.get("size", "medium"))}
            if wanted <= has and not unwanted & has:
                found.add(dep)
    return found
