"""Nx workspaces, answering like ``nx show projects --affected`` (Nx 24).

Static mode reproduces ``nx graph``'s project edges without node:

- projects: ``project.json`` files and package.json files under the package manager's
  globs (``nx_workspace``);
- "static" edges from package.json dependencies of every field (``workspace:``, ``*``, a
  ``file:`` path to the project, or a semver range the project's version satisfies --
  Nx links a plain ``^1.0.0``, pnpm does not);
- "static"/"dynamic" edges from source imports (``nx_imports`` finds them the way Nx's
  scanner does, ``nx_resolve`` maps them through tsconfig ``paths``, relative paths and
  package entry points). Nx only reads imports when the ``@nx/js`` plugin config asks for it
  (``pluginsConfig["@nx/js"]`` in nx.json, or ``@nx/js``/``@nx/workspace``/... in the root
  package.json) *and* typescript is installed; ctxsel assumes typescript is there;
- "implicit" edges from ``implicitDependencies`` (names, globs, ``tag:``, directories), whose
  ``!name`` entries also remove package.json and import edges.

Not known statically: targets and edges that Nx plugins listed in nx.json ``plugins``
infer (``@nx/jest/plugin`` adding ``test``, ...) -- a warning says so when plugins exist --
and npm packages (external nodes), which ctxsel does not model.

Tool mode runs ``nx graph --file`` once, with the daemon, Nx Cloud and the TUI off and
Nx's state directory in a temporary directory, so nothing is written into the repo.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Iterable

from ctxsel import safepickle
from ctxsel.adapters.base import Adapter
from ctxsel.cache import CACHE_DIR, InputTracker
from ctxsel.process import run_tool
from ctxsel.errors import Location, ParseError, ToolError
from ctxsel.graph import IMPLICIT, BuildGraph, Node

if TYPE_CHECKING:  # the parsing modules load when a graph is built, not on every CLI start
    from .nx_imports import FileImports
    from .nx_workspace import NxWorkspace

STATIC, DYNAMIC = "static", "dynamic"
#: files Nx scans for imports
MODULE_EXTENSIONS = (".ts", ".js", ".tsx", ".jsx", ".mts", ".mjs", ".cjs", ".cts", ".vue")
#: root-package.json dependencies that switch Nx's source-import analysis on
NX_JS_PACKAGES = ("@nx/workspace", "@nx/js", "@nx/node", "@nx/next", "@nx/react", "@nx/angular", "@nx/web")
TOOL_TIMEOUT = 300.0
#: lockfiles whose change affects every project (Nx's AUTO_AFFECTED_LOCK_FILES)
LOCKFILES = ("yarn.lock", "package-lock.json", "pnpm-lock.yaml", "pnpm-lock.yml", "bun.lockb", "bun.lock")
#: what nx prints when it could not build the whole project graph (exit code 0 nevertheless)
GRAPH_FAILURE_MARKERS = ("error occurred while processing the project graph", "Failed to process project graph")
NX_TOOL_ENV = {
    "NX_DAEMON": "false",
    "NX_NO_CLOUD": "true",
    "NX_TUI": "false",
    "NX_SKIP_NX_CACHE": "true",
    "NX_CACHE_PROJECT_GRAPH": "false",
    "NX_VERBOSE_LOGGING": "false",
}


def js_plugin_config(nx_json: dict[str, Any], root_manifest: dict[str, Any] | None) -> dict[str, bool]:
    """Nx's ``jsPluginConfig``: whether package.json files and source files are analysed."""
    plugins_config = nx_json.get("pluginsConfig")
    configured = plugins_config.get("@nx/js") if isinstance(plugins_config, dict) else None
    if isinstance(configured, dict):
        return {
            "analyzePackageJson": configured.get("analyzePackageJson", True) is not False,
            "analyzeSourceFiles": configured.get("analyzeSourceFiles", True) is not False,
        }
    if root_manifest is None:
        return {"analyzePackageJson": False, "analyzeSourceFiles": False}
    declared: dict[str, Any] = {}
    for field_name in ("dependencies", "devDependencies"):
        if isinstance(root_manifest.get(field_name), dict):
            declared.update(root_manifest[field_name])
    return {"analyzePackageJson": True, "analyzeSourceFiles": any(p in declared for p in NX_JS_PACKAGES)}


class NxAdapter(Adapter):
    name: ClassVar[str] = "nx"
    tools: ClassVar[tuple[str, ...]] = ("nx",)
    node_noun: ClassVar[str] = "project"

    @classmethod
    def detect(cls, root: Path) -> bool:
        return (root / "nx.json").is_file()

    def resolved_source(self) -> str:
        """``auto`` asks nx only when the repo has its own ``node_modules/nx``.

        A global nx on a checkout without node_modules cannot load the repo's plugins
        or lockfile parser and fails (measured on every real repo tried), while static
        mode gives the same edges; ``--source tool`` still forces the global nx.
        """
        source = super().resolved_source()
        if (
            source == "tool"
            and self.options.source == "auto"
            and not self.options.query_file
            and not (self.root / "node_modules" / "nx").is_dir()
        ):
            return "static"
        return source

    # ------------------------------------------------------------ static
    def load_static(self, tracker: InputTracker) -> BuildGraph:
        from .nx_workspace import discover_projects, implicit_dependencies, invalid_implicit, project_kind

        ws = discover_projects(self.root, tracker)
        self.warnings.extend(ws.warnings)
        plugins = ws.nx_json.get("plugins")
        if plugins:
            self.warnings.append(
                "nx.json lists plugins; targets (and edges) they infer are unknown to --source static "
                "(install node_modules and use --source tool for them)"
            )
        graph = BuildGraph(self.name, str(self.root))
        file_set = set(ws.files)
        for project in ws.projects.values():
            targets = sorted(project.targets)
            graph.add_node(Node(
                id=project.name,
                kind=project_kind(project, file_set),
                package=project.package,
                tags=tuple(project.tags),
                meta={
                    "root": project.root,
                    "targets": targets,
                    "has_test": "test" in project.targets,
                    "package_name": (project.manifest or {}).get("name"),
                },
            ))
        for name, project in ws.projects.items():
            bad = invalid_implicit(name, ws.projects)
            if bad:
                where = project.implicit_source or (project.config_files[-1] if project.config_files else project.root)
                raise ParseError(
                    f"implicitDependencies of {name!r} name no project: {', '.join(bad)}",
                    Location(where, _line_of(self.root / where, bad[0], tracker)),
                    hint="Nx refuses this workspace too ('implicitDependencies point to non-existent project(s)')",
                )
        file_edges = self._file_edges(ws, tracker)
        removed: dict[str, set[str]] = {}
        implicit: list[tuple[str, str]] = []
        for name in ws.projects:
            added, dropped = implicit_dependencies(name, ws.projects)
            implicit += [(name, target) for target in added]
            removed[name] = set(dropped)
        for (source, target), kinds in sorted(file_edges.items()):
            if target in removed.get(source, ()):
                continue
            for kind in sorted(kinds):
                graph.add_edge(source, target, kind)
        for source, target in implicit:
            graph.add_edge(source, target, IMPLICIT)
        return graph

    def _file_edges(self, ws: NxWorkspace, tracker: InputTracker) -> dict[tuple[str, str], set[str]]:
        """Edges Nx derives from files: package.json dependencies and source imports."""
        from .nx_resolve import ProjectLocator
        from .nx_workspace import read_jsonc

        config = js_plugin_config(ws.nx_json, ws.root_manifest)
        # Nx reads compilerOptions.paths from the root tsconfig itself, ignoring "extends"
        tsconfig = None
        for candidate in ("tsconfig.base.json", "tsconfig.json"):
            if tracker.exists(self.root / candidate):
                tsconfig = read_jsonc(self.root / candidate, tracker, self.root)
                break
        locator = ProjectLocator(ws.projects, tsconfig, set(ws.files), self.root, tracker)
        edges: dict[tuple[str, str], set[str]] = {}

        def add(source: str, target: str | None, kind: str) -> None:
            if target is not None and target != source:
                edges.setdefault((source, target), set()).add(kind)

        if config["analyzePackageJson"]:
            for project in ws.projects.values():
                manifest = project.manifest
                if manifest is None:
                    continue
                manifest_path = "package.json" if project.root == "." else f"{project.root}/package.json"
                for dep, spec in _declared_dependencies(manifest).items():
                    add(project.name, locator.project_of_dependency(manifest_path, dep, spec), STATIC)
        if config["analyzeSourceFiles"]:
            root_project = locator.project_of_path(".") if "." in {p.root for p in ws.projects.values()} else None
            cache = ImportCache.open(self.root, self.options.use_cache)
            for rel in ws.files:
                if not rel.endswith(MODULE_EXTENSIONS):
                    continue
                source = locator.project_of_path(rel)
                if source is None:
                    continue
                found = cache.imports(self.root / rel, rel, tracker)
                if found is None:
                    continue
                for kind, specifiers in ((STATIC, found.static), (DYNAMIC, found.dynamic)):
                    for spec in specifiers:
                        target = locator.project_of_import(spec, rel, source)
                        # Nx drops import edges into the root project unless they start there
                        if target is not None and target == root_project and source != root_project:
                            continue
                        add(source, target, kind)
            cache.save()
        return edges

    # ------------------------------------------------------------ tool
    def load_tool(self, tracker: InputTracker) -> BuildGraph:
        """The project graph from one ``nx graph --file`` call (or ``--query-file``)."""
        if self.options.query_file:
            path = Path(self.options.query_file)
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise ToolError(f"cannot read --query-file {path}: {exc}") from None
        else:
            data = self._run_nx_graph()
        # the graph depends on the files static mode reads: stamp them so the cache notices edits
        from .nx_workspace import discover_projects

        ws = discover_projects(self.root, tracker)
        for rel in ws.files:
            if rel.endswith(MODULE_EXTENSIONS) or rel.startswith("tsconfig"):
                tracker.note(self.root / rel)
        return graph_from_nx_json(data, self.name, str(self.root))

    def _run_nx_graph(self) -> dict[str, Any]:
        tool = self.find_tool()
        if tool is None:
            raise ToolError("nx is not installed", hint="use --source static to read the workspace without it")
        with tempfile.TemporaryDirectory(prefix="ctxsel-nx-") as tmp:
            out = Path(tmp) / "graph.json"
            env = dict(os.environ)
            env.update(NX_TOOL_ENV)
            env["NX_WORKSPACE_DATA_DIRECTORY"] = str(Path(tmp) / "workspace-data")
            env["NX_CACHE_DIRECTORY"] = str(Path(tmp) / "cache")
            env["NX_WORKSPACE_ROOT_PATH"] = str(self.root)
            env.update(node_path_env(tool, self.root, env.get("NODE_PATH")))
            argv = [tool, "graph", f"--file={out}"]
            timeout = float(self.options.extra.get("timeout", TOOL_TIMEOUT))
            proc = run_tool(argv, self.root, timeout, env=env, hint="use --source static to read the workspace without nx")
            # nx exits 0 and writes a partial graph when the project graph fails (an
            # implicit dependency on a missing project): the message is on stderr
            text = (proc.stderr or "") + (proc.stdout or "")
            failed = any(marker in text for marker in GRAPH_FAILURE_MARKERS)
            if proc.returncode != 0 or failed or not out.is_file():
                lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("at ")]
                raise ToolError(
                    f"nx graph failed (exit {proc.returncode}): " + " | ".join(lines[:4])[:600],
                    hint="use --source static to read the workspace without nx",
                )
            try:
                return json.loads(out.read_text(encoding="utf-8"))
            except ValueError as exc:
                raise ToolError(f"nx graph wrote invalid JSON: {exc}") from None

    # ------------------------------------------------------------ inputs
    def resolve(self, graph: BuildGraph, spec: str) -> list[str]:
        """A project name, the package.json name of a project (``@scope/utils`` for project
        ``utils``), or a path inside a project."""
        if spec not in graph:
            named = sorted(n.id for n in graph.nodes() if n.meta.get("package_name") == spec)
            if named:
                return named
        return super().resolve(graph, spec)

    # ------------------------------------------------------------ answers
    def test_nodes(self, graph: BuildGraph, ids: Iterable[str]) -> list[str]:
        """Projects with a ``test`` target (what ``nx run-many -t test`` would run)."""
        return sorted(i for i in ids if graph.node(i).meta.get("has_test"))

    def test_command(self, tests: list[str]) -> list[str]:
        return ["nx", "run-many", "-t", "test", "-p", ",".join(tests)]

    def manifest_patterns(self) -> tuple[str, ...]:
        """Everything ``load_static`` reads: configs, ignore files, and the source files Nx scans."""
        configs = ("package.json", "project.json", "nx.json", "tsconfig*.json", "pnpm-workspace.yaml", "lerna.json",
                   ".gitignore", ".nxignore")
        return configs + tuple(f"*{ext}" for ext in MODULE_EXTENSIONS)

    def global_files(self) -> tuple[str, ...]:
        """Files whose change marks every project affected in ``nx show projects --affected``.

        Measured with ``--files``: nx.json, each lockfile Nx knows, and the root tsconfig
        (``tsconfig.base.json``, else ``tsconfig.json``; with a git range Nx narrows a
        ``paths``-only change to the projects named there, which ctxsel does not). The
        root package.json and pnpm-workspace.yaml mark nothing.
        """
        tsconfig = "tsconfig.base.json" if (self.root / "tsconfig.base.json").is_file() else "tsconfig.json"
        return ("nx.json", *LOCKFILES, tsconfig)


class ImportCache:
    """The imports of each source file, kept between graph rebuilds.

    Editing one file invalidates the whole cached graph (its stamp changed), and
    rescanning every import of a large workspace costs seconds (typescript-eslint: 2,700
    files). Files whose (mtime, size) did not change reuse their scan. Lives next to the
    graph cache, only when that cache is in use (never with ``--no-cache``).
    """

    FORMAT = 1  # bump when the scanner's answers change

    def __init__(self, path: Path | None, entries: dict[str, tuple[int, int, FileImports]], root: Path) -> None:
        self.path = path  # None: caching is off
        self.root = root  # safepickle checks the file stays inside it, through no symlink
        self.entries = entries
        self.seen: set[str] = set()
        self.dirty = False

    @classmethod
    def open(cls, root: Path, enabled: bool) -> "ImportCache":
        path = root / CACHE_DIR / "cache" / "nx-imports.pickle"
        if not enabled or not path.parent.is_dir():
            return cls(None, {}, root)
        try:  # safepickle: None (absent, or not written by this user's ctxsel) fails to unpack
            fmt, entries = safepickle.load(path, root)  # type: ignore[misc]
            if fmt == cls.FORMAT and isinstance(entries, dict):
                return cls(path, entries, root)
        except Exception:  # absent, truncated or from another version: start over
            pass
        return cls(path, {}, root)

    def imports(self, path: Path, rel: str, tracker: InputTracker) -> FileImports | None:
        try:
            st = os.stat(path)
        except OSError:
            return None
        tracker.note(path)
        self.seen.add(rel)
        hit = self.entries.get(rel)
        if hit is not None and hit[0] == st.st_mtime_ns and hit[1] == st.st_size:
            return hit[2]
        from .nx_imports import find_imports

        try:
            found = find_imports(tracker.read_text(path))
        except OSError:
            return None
        self.entries[rel] = (st.st_mtime_ns, st.st_size, found)
        self.dirty = True
        return found

    def save(self) -> None:
        if self.path is None or not (self.dirty or len(self.seen) != len(self.entries)):
            return
        self.entries = {rel: entry for rel, entry in self.entries.items() if rel in self.seen}  # drop deleted files
        safepickle.dump((self.FORMAT, self.entries), self.path, self.root)


def graph_from_nx_json(data: dict[str, Any], adapter: str, root: str) -> BuildGraph:
    """A BuildGraph from ``nx graph --file`` output (npm: external nodes left out)."""
    body = data.get("graph", data)
    nodes = body.get("nodes") or {}
    graph = BuildGraph(adapter, root)
    for name, node in sorted(nodes.items()):
        project = node.get("data") or {}
        proj_root = str(project.get("root") or ".")
        targets = sorted(project.get("targets") or {})
        graph.add_node(Node(
            id=name,
            kind=str(node.get("type") or "project"),
            package="" if proj_root == "." else proj_root.strip("/"),
            tags=tuple(project.get("tags") or ()),
            meta={
                "root": proj_root,
                "targets": targets,
                "has_test": "test" in targets,
                "package_name": ((project.get("metadata") or {}).get("js") or {}).get("packageName"),
            },
        ))
    for source, deps in sorted((body.get("dependencies") or {}).items()):
        for dep in deps or ():
            target = dep.get("target")
            if source in graph and target in graph and source != target:
                graph.add_edge(source, target, str(dep.get("type") or STATIC))
    return graph


def _declared_dependencies(manifest: dict[str, Any]) -> dict[str, str]:
    """name -> spec, the most important field winning (Nx's ``readDeps`` order)."""
    deps: dict[str, str] = {}
    for field_name in ("optionalDependencies", "peerDependencies", "devDependencies", "dependencies"):
        declared = manifest.get(field_name)
        if isinstance(declared, dict):
            for name, spec in declared.items():
                if isinstance(spec, str):
                    deps[name] = spec
    return deps


def node_path_env(tool: str, root: Path, current: str | None) -> dict[str, str]:
    """Let an nx installed outside the repo find itself (it refuses to run otherwise).

    Nx's launcher insists on resolving ``nx`` from the workspace; a workspace without
    node_modules (a fresh clone, a CI checkout before install) makes it exit with "Could
    not find Nx modules". Adding the directory that holds the running nx to NODE_PATH
    lets it resolve itself; a repo with its own node_modules/nx is left alone.
    """
    if (root / "node_modules" / "nx").exists():
        return {}
    real = Path(os.path.realpath(tool))
    for parent in real.parents:
        if parent.name == "node_modules" and (parent / "nx").is_dir():
            value = str(parent) if not current else f"{current}{os.pathsep}{parent}"
            return {"NODE_PATH": value}
    return {}


def _line_of(path: Path, needle: str, tracker: InputTracker) -> int | None:
    """First line of ``path`` mentioning ``needle`` (for error locations)."""
    try:
        for number, line in enumerate(tracker.read_text(path).splitlines(), 1):
            if f'"{needle}"' in line:
                return number
    except OSError:
        return None
    return None


__all__ = ["NxAdapter", "graph_from_nx_json", "js_plugin_config", "node_path_env"]
