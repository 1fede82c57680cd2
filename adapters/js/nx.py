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

Changes (``nx show projects --affected``, ``nx affected -t test``, Nx 24): a project is
touched by its own files, by ``{workspaceRoot}`` files its targets' inputs name, and every
project by a deleted package.json/project.json; over a git range a root tsconfig change
confined to ``compilerOptions.paths`` touches only the projects the changed mappings point
into (``root_tsconfig_touched``). Tests are chosen per *task* from the
``test`` target's inputs (``TaskSelection``: namedInputs, targetDefaults, ``^production``,
``!`` patterns, ``dependentTasksOutputFiles``, ``json`` inputs' fields), unless nx.json says
``affected.legacy``; any change of a root tsconfig.json beside tsconfig.base.json selects every
task (``second_root_tsconfig``).
A lockfile change touches every project, unless ``projectsAffectedByDependencyUpdates`` is
``"auto"``: then only the npm packages whose locked versions moved count, and the projects
that declare or import them (through the packages depending on them) are touched
(``moved_packages``, ``users_of``; npm, pnpm, yarn 1, yarn berry and text bun.lock lockfiles).

Targets that nx.json ``plugins`` infer: ``nx_plugins`` models ``@nx/vitest`` and
``@nx/jest/plugin`` (the ``test`` targets real repos get from them); other plugins' targets
(and the projects they might add) are unknown statically -- a warning names each one.
npm packages (external nodes) are not modelled.
Every public package.json project gets Nx's implicit ``nx-release-publish`` target when
``@nx/js`` resolves from the workspace's ``node_modules`` (``nx_workspace.NxJsLookup``); an
``@nx/js`` beside an nx installed outside the workspace is the case a static read cannot see.

Tool mode runs ``nx graph --file`` once, with the daemon, Nx Cloud and the TUI off and
Nx's state directory in a temporary directory, so nothing is written into the repo.
"""

from __future__ import annotations

import json
import os
import tempfile
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Collection, Iterable, Iterator, Sequence

from ctxsel import safepickle
from ctxsel.adapters.base import DEFAULT_TARGETS, Adapter
from ctxsel.cache import CACHE_DIR, InputTracker
from ctxsel.paths import read_text
from ctxsel.process import run_tool
from ctxsel.errors import Location, ParseError, ToolError
from ctxsel.graph import IMPLICIT, BuildGraph, Node

if TYPE_CHECKING:  # the parsing modules load when a graph is built, not on every CLI start
    from ctxsel.affected import ChangeSet
    from .nx_imports import FileImports
    from .nx_workspace import JsonInput, NpmPackages, NxProject, NxWorkspace, TaskInputs

    PackageOf = Callable[[BuildGraph, str], "str | None"]

STATIC, DYNAMIC = "static", "dynamic"
#: files Nx scans for imports
MODULE_EXTENSIONS = (".ts", ".js", ".tsx", ".jsx", ".mts", ".mjs", ".cjs", ".cts", ".vue")
#: root-package.json dependencies that switch Nx's source-import analysis on
NX_JS_PACKAGES = ("@nx/workspace", "@nx/js", "@nx/node", "@nx/next", "@nx/react", "@nx/angular", "@nx/web")
TOOL_TIMEOUT = 300.0
#: project configuration files Nx 24 globs for (its default plugins' ``createNodes`` patterns)
PROJECT_CONFIG_FILES = ("package.json", "project.json")
#: bump when the inputs kept in node meta change shape (part of the graph cache key)
INPUTS_META_FORMAT = 5
#: the root manifest, whose dependency changes Nx reads over a git range (``root_manifest_touched``)
ROOT_MANIFEST = "package.json"
#: lockfiles whose change affects every project (Nx's AUTO_AFFECTED_LOCK_FILES)
LOCKFILES = ("yarn.lock", "package-lock.json", "pnpm-lock.yaml", "pnpm-lock.yml", "bun.lockb", "bun.lock")
#: the root ignore files: they filter every change (``ignored_change``), and any change of one
#: selects every task in ``nx affected`` -- a comment line added too -- while ``nx show
#: projects --affected`` marks no project (measured with nx 24.0.6, ``--files`` and git ranges;
#: nested ones, ``libs/.nxignore`` or a project's ``.gitignore``, are ordinary files)
ROOT_IGNORE_FILES = (".gitignore", ".nxignore")
#: what nx prints when it could not build the whole project graph (exit code 0 nevertheless):
#: "An error occurred while processing the project graph", or with two plugins failing
#: "2 errors occurred while processing the project graph. Showing partial graph." (measured
#: with nx 24.0.6: then ``nx show projects --affected`` and ``nx affected`` exit 1)
GRAPH_FAILURE_MARKERS = ("occurred while processing the project graph", "Failed to process project graph")
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
        from .nx_workspace import (
            InvalidProjectPattern, discover_projects, has_outputs, implicit_dependencies, invalid_implicit,
            project_kind, target_depends_on, target_inputs, target_names, target_runnable, target_spec,
        )

        ws = discover_projects(self.root, tracker)
        self.warnings.extend(ws.warnings)  # naming the nx.json plugins nx_plugins does not model
        graph = BuildGraph(self.name, str(self.root))
        file_set = set(ws.files)
        externals: dict[str, set[str]] = {}
        origins: dict[str, list[tuple[str, str]]] = {}
        file_edges = self._file_edges(ws, tracker, externals, origins)
        for project in ws.projects.values():
            targets = sorted(t for t in target_names(project) if target_runnable(project, t, ws.nx_json, ws.projects))
            graph.add_node(Node(
                id=project.name,
                kind=project_kind(project, file_set),
                package=project.package,
                tags=tuple(project.tags),
                meta={
                    "root": project.root,
                    "targets": targets,
                    "has_test": "test" in targets,
                    "package_name": None if project.plugin_only else (project.manifest or {}).get("name"),
                    "externals": sorted(externals.get(project.name, ())),
                    "with_outputs": [t for t in targets if has_outputs(t, target_spec(project, t, ws.nx_json, ws.projects))],
                    **_inputs_meta(
                        {t: target_inputs(project, t, ws.nx_json, ws.projects) for t in targets}, project.named_inputs,
                        {t: target_depends_on(project, t, ws.nx_json, ws.projects) for t in targets},
                    ),
                },
            ))
        def implicit_location(project: NxProject, entry: str) -> Location:
            where = project.implicit_source or (project.config_files[-1] if project.config_files else project.root)
            return Location(where, _line_of(self.root / where, entry, tracker))

        try:
            invalid = [(project, invalid_implicit(name, ws.projects)) for name, project in ws.projects.items()]
        except InvalidProjectPattern:
            # Nx's assertWorkspaceValidity gives up on a pattern findMatchingProjects throws on and
            # reports nothing (it keeps only WorkspaceValidityErrors); the pattern fails below
            invalid = []
        for project, bad in invalid:
            if bad:
                raise ParseError(
                    f"implicitDependencies of {project.name!r} name no project: {', '.join(bad)}",
                    implicit_location(project, bad[0]),
                    hint="Nx refuses this workspace too ('implicitDependencies point to non-existent project(s)')",
                )
        removed: dict[str, set[str]] = {}
        implicit: list[tuple[str, str]] = []
        for name, project in ws.projects.items():
            try:
                added, dropped = implicit_dependencies(name, ws.projects)
            except InvalidProjectPattern as exc:
                raise ParseError(f"implicitDependencies of {name!r}: {exc}", implicit_location(project, exc.pattern),
                                 hint="Nx fails on this workspace too ('Invalid glob pattern')") from None
            implicit += [(name, target) for target in added]
            removed[name] = set(dropped)
        for (source, target), kinds in sorted(file_edges.items()):
            if target in removed.get(source, ()):
                continue
            for kind in sorted(kinds):
                graph.add_edge(source, target, kind)
        for source, target in implicit:
            graph.add_edge(source, target, IMPLICIT)
        for name in ws.projects:
            graph.node(name).meta["dependency_order"] = nx_dependency_order(
                [t for s, t in implicit if s == name], origins.get(name, []), set(graph.dependencies(name)))
        return graph

    def _file_edges(self, ws: NxWorkspace, tracker: InputTracker, externals: dict[str, set[str]] | None = None,
                    origins: dict[str, list[tuple[str, str]]] | None = None) -> dict[tuple[str, str], set[str]]:
        """Edges Nx derives from files: package.json dependencies and source imports.
        ``externals`` gains, per project, the npm package names those name that no project is
        (Nx's edges to ``npm:`` nodes, which the lockfile decides exist: ``NpmPackages.closure``);
        ``origins``, per project, (file, target) of each edge in the order the file names it."""
        from .nx_resolve import ProjectLocator
        from .nx_workspace import read_jsonc

        npm = externals if externals is not None else {}
        config = js_plugin_config(ws.nx_json, ws.root_manifest)
        # Nx reads compilerOptions.paths from the root tsconfig itself, ignoring "extends"
        tsconfig = None
        for candidate in ("tsconfig.base.json", "tsconfig.json"):
            if tracker.exists(self.root / candidate):
                tsconfig = read_jsonc(self.root / candidate, tracker, self.root)
                break
        locator = ProjectLocator(ws.projects, tsconfig, set(ws.files), self.root, tracker)
        edges: dict[tuple[str, str], set[str]] = {}

        def add(source: str, target: str | None, kind: str, file: str) -> None:
            if target is not None and target != source:
                edges.setdefault((source, target), set()).add(kind)
                if origins is not None:
                    origins.setdefault(source, []).append((file, target))

        if config["analyzePackageJson"]:
            for project in ws.projects.values():
                manifest = project.manifest
                if manifest is None:
                    continue
                manifest_path = "package.json" if project.root == "." else f"{project.root}/package.json"
                for dep, spec in _declared_dependencies(manifest).items():
                    target = locator.project_of_dependency(manifest_path, dep, spec)
                    add(project.name, target, STATIC, manifest_path)
                    if target is None:
                        npm.setdefault(project.name, set()).add(dep)
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
                        if target is None and (package := npm_package_of(spec)):
                            npm.setdefault(source, set()).add(package)
                        # Nx drops import edges into the root project unless they start there
                        if target is not None and target == root_project and source != root_project:
                            continue
                        add(source, target, kind, rel)
            cache.save()
        return edges

    # ------------------------------------------------------------ tool
    def load_tool(self, tracker: InputTracker) -> BuildGraph:
        """The project graph from one ``nx graph --file`` call (or ``--query-file``)."""
        if self.options.query_file:
            path = Path(self.options.query_file)
            try:
                data = json.loads(read_text(path))
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
        graph = graph_from_nx_json(data, self.name, str(self.root))
        # ``nx graph --file`` leaves npm nodes out: what each project declares stands in for
        # its edges to them (imports of undeclared packages are not known here)
        for project in ws.projects.values():
            if project.name in graph and project.manifest:
                graph.node(project.name).meta["externals"] = sorted(_declared_dependencies(project.manifest))
        return graph

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
    named_targets: ClassVar[bool] = True  # nx affected -t lint
    several_targets_per_command: ClassVar[bool] = True  # nx run-many -t lint,test

    def test_nodes(self, graph: BuildGraph, ids: Iterable[str], targets: Sequence[str] = DEFAULT_TARGETS) -> list[str]:
        """Projects with one of ``targets`` (what ``nx run-many -t test`` would run), inferred
        targets included: the node's ``targets`` are the project's own and its plugins'."""
        return sorted(i for i in ids if any(has_target(graph.node(i), t) for t in targets))

    def test_command(self, tests: list[str], targets: Sequence[str] = DEFAULT_TARGETS) -> list[str]:
        """``nx run-many -t a,b -p x,y``: Nx runs each target on the listed projects having it."""
        return ["nx", "run-many", "-t", ",".join(targets), "-p", ",".join(tests)]

    def test_command_warnings(self, graph: BuildGraph, tests: list[str], targets: Sequence[str] = DEFAULT_TARGETS) -> list[str]:
        """Nx refuses to run (or select) a ``test`` task whose ``externalDependencies`` input names
        a package no external node stands for: measured, ``nx affected -t test`` and the run
        fail with "The externalDependency 'x' for 'b:test' could not be found" -- for a package
        missing from the lockfile, and for every package when there is no lockfile.

        The command itself must be one Nx builds a task graph for: ParseError when a legacy
        ``dependsOn`` entry sits in these tests' task graph (``check_depends_on``; measured with
        nx 24.0.6: ``nx run-many -t test -p y`` runs although x's test carries one, ``-p x``
        and ``-p w``, whose test reaches such an entry through ``^build``, fail). A change's
        selection checked every test already (``change_tests``); ``ctxsel tests X`` is checked here.
        With ``--target``: each target's tasks of the projects having it."""
        try:
            for target, projects in self.tasks_by_target(graph, tests, targets):
                self.task_selection(graph).check_depends_on(projects, target)
        except InvalidInputsError as exc:
            raise self._input_error(exc) from None
        pending = self.__dict__.pop("_affected_warnings", [])
        return list(dict.fromkeys([*self.unlocked_pins(graph, tests, targets), *pending]))

    def tasks_by_target(self, graph: BuildGraph, projects: Iterable[str],
                        targets: Sequence[str]) -> list[tuple[str, list[str]]]:
        """(target, those of ``projects`` having it) for each of ``targets``: the tasks
        ``nx run-many -t a,b -p ...`` runs (Nx skips a listed project without the target)."""
        chosen = list(projects)
        return [(t, [p for p in chosen if has_target(graph.node(p), t)]) for t in targets]

    def unlocked_pins(self, graph: BuildGraph, tests: Iterable[str], targets: Sequence[str] = DEFAULT_TARGETS) -> list[str]:
        """A warning for each ``externalDependencies`` entry of these projects' ``test`` tasks
        (``targets``' tasks) that names a package the lockfile does not lock (``test_command_warnings``)."""
        selection = self.task_selection(graph)
        pins: list[tuple[str, str, str]] = []
        for target, projects in self.tasks_by_target(graph, tests, targets):
            for project in projects:
                try:
                    pins.extend((project, target, name) for name in selection.task_inputs(project, target).pinned_externals)
                except InvalidInputsError:
                    continue
        # the lockfile is parsed only when some test pins a package: a large one costs a second
        locked = self.locked_packages() if pins else None
        if locked is None:
            return []
        out: list[str] = []
        for project, target, name in pins:
            if name not in locked:
                where, line = _input_location(self.root, selection.root_of(project), name)
                out.append(f"{where}{f':{line}' if line else ''}: nx fails on {project}:{target}: its externalDependencies "
                           f"input names {name!r}, which the lockfile does not lock (\"The externalDependency "
                           f"'{name}' for '{project}:{target}' could not be found\")")
        return out

    def locked_packages(self) -> "set[str] | None":
        """The npm package names Nx has external nodes for: those of the lockfile of the package
        manager it detects (bun, pnpm, yarn, npm, in that order); none without one; None when
        ctxsel cannot read it (a binary bun.lockb alone, a broken file)."""
        packages = self.current_npm_packages()
        return None if packages is None else set(packages.fingerprints) if packages else set()

    def current_npm_packages(self) -> "NpmPackages | None | bool":
        """The working tree's lockfile, of the package manager Nx detects (bun, pnpm, yarn, npm,
        in that order), read: Nx's external nodes; False without a lockfile; None when ctxsel
        cannot read it (a binary bun.lockb alone, a broken file)."""
        from .nx_workspace import NpmUnreadable

        if (self.root / "bun.lockb").exists() and not (self.root / "bun.lock").exists():
            return None
        lockfile = self.npm_lockfile()
        if lockfile is None:
            return False
        try:
            return self.npm_packages(lockfile, read_text(self.root / lockfile))
        except (OSError, NpmUnreadable):
            return None

    def npm_lockfile(self) -> str | None:
        """The lockfile Nx reads its external nodes from: bun.lock, pnpm-lock.yaml, yarn.lock,
        package-lock.json, the first there is."""
        from .nx_workspace import NPM_LOCKFILES

        return next((f for f in NPM_LOCKFILES if (self.root / f).is_file()), None)

    def cache_key(self) -> str:
        """Graphs cached before nodes carried their targets' inputs must not be reused; nor a graph
        read with other node folders (``NODE_PATH``, ``~/.node_modules``: where nx.json's
        ``extends`` and ``@nx/js`` resolve, ``node_global_dirs``), which no file stamp shows."""
        from zlib import crc32

        from .nx_workspace import node_global_dirs

        folders = os.pathsep.join(map(str, node_global_dirs()))
        return super().cache_key() + f"-inputs{INPUTS_META_FORMAT}-node{crc32(folders.encode()):08x}"

    # ------------------------------------------------------------ changes
    def nx_json(self) -> dict[str, Any]:
        """nx.json as it is now (read once per adapter; ``{}`` when absent)."""
        cached = getattr(self, "_nx_json", None)
        if cached is None:
            from .nx_workspace import read_nx_config

            path = self.root / "nx.json"
            cached = read_nx_config(self.root, "nx.json", InputTracker(self.root)) if path.is_file() else {}
            self._nx_json = cached
        return cached

    def task_selection(self, graph: BuildGraph) -> "TaskSelection":
        """One ``TaskSelection`` per graph (a change set asks it once per file)."""
        cached = getattr(self, "_task_selection", None)
        if cached is None or cached.graph is not graph:
            self.check_input_entries(graph)
            cached = TaskSelection(graph, self.nx_json(), self.package_of)
            self._task_selection = cached
        return cached

    def check_input_entries(self, graph: BuildGraph) -> None:
        """ParseError for a target ``inputs`` entry Nx's native code refuses (``input_entry_valid``):
        Nx then answers no affected question at all, whatever changed."""
        from .nx_workspace import input_entry_valid

        for node in graph.nodes():
            for target, inputs in sorted((node.meta.get("inputs") or {}).items()):
                for entry in inputs if isinstance(inputs, list) else ():
                    if not input_entry_valid(entry):
                        text = json.dumps(entry)
                        key = next(iter(entry), "inputs") if isinstance(entry, dict) else "inputs"
                        where, line = _input_location(self.root, str(node.meta.get("root") or "."), key)
                        raise ParseError(f"inputs of {node.id}:{target}: {text} is no input Nx takes "
                                         "(a string, or an object such as {\"fileset\": \"...\"}, "
                                         "{\"externalDependencies\": [...]})", Location(where, line))

    def ignored_change(self, path: str) -> bool:
        """Whether Nx drops ``path`` from a change: it filters changed files (``--files`` and git
        ranges alike) through the root .gitignore and .nxignore, read as one list
        (``calculateFileChanges``/``getIgnoreObject``; nested ignore files do not count here)."""
        rules = getattr(self, "_change_ignore", None)
        if rules is None:
            from ctxsel.files import IgnoreRules

            rules = IgnoreRules()
            for name in ROOT_IGNORE_FILES:
                try:
                    text = read_text(self.root / name, errors="replace")
                except OSError:
                    continue
                for line in text.splitlines():
                    rules.add(line)
            self._change_ignore = rules
        return bool(rules) and rules.ignored(path)

    def config_gone(self, path: str) -> bool:
        """A project.json/package.json path that does not exist now: Nx's test for a deleted
        project configuration is the working tree (``isDeletedFile``), for ``--files`` too."""
        return path.rsplit("/", 1)[-1] in PROJECT_CONFIG_FILES and not (self.root / path).exists()

    def nodes_for_changed_file(self, graph: BuildGraph, path: str) -> list[str]:
        """The projects ``nx show projects --affected`` counts as touched by ``path``.

        None for a file the root .gitignore/.nxignore ignores; else, besides the project
        owning it (measured with Nx 24):
        - a ``package.json``/``project.json`` that no longer exists -- deleted, or moved
          away -- touches *every* project (Nx re-reads all project configuration then);
        - a file matching a ``{workspaceRoot}/...`` fileset in the inputs a project's
          targets set (directly or through named inputs, not through ``^`` dependency
          inputs, not Nx's default inputs) touches that project: ``sharedGlobals`` does.
        """
        if self.ignored_change(path):
            return []
        if self.config_gone(path):
            return self.reportable_ids(graph)
        owned = super().nodes_for_changed_file(graph, path)
        selection = self.task_selection(graph)
        touched = selection.implicitly_touched(path) | selection.dependency_update_projects
        return sorted(set(owned) | touched) if touched else owned

    def change_tests(self, graph: BuildGraph, changes: "ChangeSet", targets: Sequence[str] = DEFAULT_TARGETS) -> list[str] | None:
        """The projects whose ``test`` task ``nx affected -t test`` selects for the change
        (``targets``: those whose task of one of them ``nx affected -t a,b`` selects).

        Nx 24 selects tasks by their inputs unless nx.json sets ``affected.legacy`` (or
        ``NX_LEGACY_AFFECTED=true``): a ``*.spec.ts`` outside ``production`` re-runs its
        own project's tests, not its dependents'. Global files (nx.json, lockfiles, the
        root tsconfig -- unless only its ``paths`` changed, which no task hashes), any change
        of a root tsconfig.json beside tsconfig.base.json (``second_root_tsconfig``) or of a root
        .gitignore/.nxignore (``ROOT_IGNORE_FILES``) and a deleted project configuration select
        every test. Npm dependencies that moved -- a
        lockfile, a dependency removed from the root package.json -- select every task not
        pinning its ``externalDependencies``; a root package.json dependency added or changed
        selects the tasks of the project of that name, or moves the locked npm package of that
        name (``root_manifest_touched``); with ``projectsAffectedByDependencyUpdates``
        a list, a lockfile change selects the tasks of the projects it lists; with ``"auto"``,
        a lockfile change that moved some package selects every task hashing every package (no
        ``externalDependencies``) or one that moved, and none when it moved no package (measured).
        Nx reads every test task's inputs first and fails on one it cannot read: so does ctxsel.
        """
        from .nx_workspace import _js_truthy

        nx_json = self.nx_json()
        legacy = os.environ.get("NX_LEGACY_AFFECTED")
        if legacy == "true" or (legacy != "false" and isinstance(nx_json.get("affected"), dict)
                                and _js_truthy(nx_json["affected"].get("legacy"))):
            return None
        tasks = self.tasks_by_target(graph, graph, targets)
        having = {p for _, projects in tasks for p in projects}
        tests = [p for p in graph if p in having]
        # nx affected -t test hashes every test task, and fails on any of them it cannot hash
        # (measured: a change outside b, b's test pinning an unlocked package): said once the
        # selection's own warnings are asked for (``test_command_warnings``)
        self._affected_warnings = self.unlocked_pins(graph, tests, targets)
        paths = [p for f in changes.files for p in (f.path, f.old_path) if p and not self.ignored_change(p)]
        selection = self.task_selection(graph)
        updates = dependency_updates(nx_json)
        lockfiles = [g for g in changes.global_files if g in LOCKFILES]
        try:
            for target, projects in tasks:
                selection.check_inputs(projects, target)
                selection.check_depends_on(projects, target)
                selection.check_dependency_inputs(projects, target)
            if (len(lockfiles) < len(changes.global_files) or any(self.config_gone(p) for p in paths)
                    or self.second_root_tsconfig() in paths or any(p in ROOT_IGNORE_FILES for p in paths)):
                return sorted(tests)
            named = self.root_manifest_change(graph, changes)
            always = set(named[0]) if named else set()
            if isinstance(updates, list) and any(p in LOCKFILES for p in paths):
                always |= selection.dependency_update_projects
            moved, packages = self.lockfile_moves(changes) if updates == "auto" and not lockfiles else (frozenset(), None)
            nodes: frozenset[str] = frozenset()
            if named and named[1]:
                packages = packages or self.current_npm_packages() or None
                by_name, nodes = packages.manifest_moves(named[1] - moved) if packages else (named[1], frozenset())
                moved = moved | by_name
            picked: set[str] = set()
            for target, projects in tasks:
                picked |= selection.affected(projects, paths, target, always=always,
                                             npm_changed=named is None or bool(lockfiles), npm_moved=moved,
                                             npm_packages=packages, npm_nodes=nodes, json_changed=self.json_changed(changes))
            return sorted(picked)
        except InvalidInputsError as exc:
            raise self._input_error(exc) from None

    def _input_error(self, exc: "InvalidInputsError") -> ParseError:
        """The user-facing error for a task configuration Nx refuses, located in its project's file."""
        return ParseError(str(exc.args[0]), Location(*_input_location(self.root, exc.args[1], exc.args[2])))

    def json_changed(self, changes: "ChangeSet") -> Callable[["JsonInput"], bool]:
        """Whether a changed file changed in the part a ``json`` input names
        (``json_fields_changed``, the file's two versions over the change set's git range; the
        new side is git's index for a staged change). Without a range (``--files``) the whole
        file changed; so did a file moved away (no version of it at the head)."""
        from ctxsel.affected import _contents_at

        def changed(key: "JsonInput") -> bool:
            if not changes.base_rev:
                return True
            for f in changes.files:
                if f.path == key[0]:
                    before = _contents_at(self.root, changes.base_rev, f.old_path or f.path)
                    after = _contents_at(self.root, ":" if changes.staged else changes.head_rev, f.path)
                    return json_fields_changed(before, after, key[1], key[2])
            return True

        return changed

    def lockfile_moves(self, changes: "ChangeSet") -> tuple[frozenset[str], "NpmPackages | None"]:
        """The npm packages that lockfile changes over the change set's git range moved (``"auto"``,
        each lockfile narrowed: ``moved_packages``), and the newest lockfile's packages."""
        from ctxsel.affected import _contents_at
        from ctxsel.changes import DELETED

        moved: set[str] = set()
        packages = None
        for f in changes.files:
            if f.path in LOCKFILES and f.status != DELETED and changes.base_rev and not self.ignored_change(f.path):
                after = _contents_at(self.root, ":" if changes.staged else changes.head_rev, f.path)
                found = self.moved_packages(f.path, _contents_at(self.root, changes.base_rev, f.old_path or f.path), after)
                if found and after is not None:
                    moved |= found
                    packages = self.npm_packages(f.path, after)
        return frozenset(moved), packages

    def root_manifest_change(self, graph: BuildGraph, changes: "ChangeSet") -> "tuple[set[str], frozenset[str]] | None":
        """What the root package.json's change over the change set's git range names
        (``root_manifest_touched``): (projects, npm packages), or None for "every npm dependency moved".

        The new side is ``head_rev``, git's index for a staged change, else the working tree.
        Without a git range (``--files``) Nx has no old side: the whole file changed, which
        touches every npm node there is -- None when the lockfile locks any package (measured:
        root package.json declaring vitest, vitest locked, ``--files=package.json`` selects
        every test hashing npm packages), else nothing."""
        from ctxsel.affected import _contents_at
        from ctxsel.changes import DELETED

        if self.ignored_change(ROOT_MANIFEST):
            return set(), frozenset()
        if not changes.base_rev:
            whole = any(f.path == ROOT_MANIFEST and f.status != DELETED for f in changes.files)
            return None if whole and self.locked_packages() != set() else (set(), frozenset())
        for f in changes.files:
            if f.path == ROOT_MANIFEST and f.status != DELETED:
                return self.manifest_touched(graph, _contents_at(self.root, changes.base_rev, f.old_path or f.path),
                                             _contents_at(self.root, ":" if changes.staged else changes.head_rev, f.path))
        return set(), frozenset()

    def manifest_touched(self, graph: BuildGraph, before: str | None,
                         after: str | None) -> "tuple[set[str], frozenset[str]] | None":
        """``root_manifest_touched`` with this workspace's projects, locked npm packages (the
        working tree's lockfile: Nx's external nodes) and global packages (nx.json plugins)."""
        from .nx_plugins import plugin_entries
        from .nx_resolve import package_name_of

        packages = self.current_npm_packages()
        locked = set(packages.fingerprints) if packages else set()
        plugins = {package_name_of(e.name) for e in plugin_entries(self.nx_json())} | {"nx"}
        return root_manifest_touched(before, after, set(graph), locked, plugins)

    def manifest_patterns(self) -> tuple[str, ...]:
        """Everything ``load_static`` reads: configs, ignore files, and the source files Nx scans."""
        configs = ("package.json", "project.json", "nx.json", "tsconfig*.json", "pnpm-workspace.yaml", "lerna.json",
                   ".gitignore", ".nxignore")
        return configs + tuple(f"*{ext}" for ext in MODULE_EXTENSIONS)

    def global_files(self) -> tuple[str, ...]:
        """Files whose change marks every project affected in ``nx show projects --affected``.

        Measured with ``--files``: nx.json, each lockfile Nx knows (unless
        ``projectsAffectedByDependencyUpdates`` lists the projects it touches), and the root tsconfig
        (with a git range Nx narrows a ``paths``-only change of it: ``nodes_for_file_versions``).
        The root package.json and pnpm-workspace.yaml mark nothing.
        """
        lockfiles = () if isinstance(dependency_updates(self.nx_json()), list) else LOCKFILES
        return ("nx.json", *lockfiles, self.root_tsconfig())

    def second_root_tsconfig(self) -> str | None:
        """A root ``tsconfig.json`` beside ``tsconfig.base.json``: a file every *task* hashes in full.

        Nx 24's task selection takes both root names for the ``TsConfiguration`` every task
        hashes, but compares by parts (``paths`` apart from the rest, whitespace aside) only the
        root tsconfig it reads, ``tsconfig.base.json``. Any change of the other -- its ``paths``,
        whitespace, adding or deleting it -- selects every task (measured: build, lint and test
        tasks of projects with no tsconfig of their own), although ``nx show projects
        --affected`` marks no project for it."""
        return "tsconfig.json" if self.root_tsconfig() != "tsconfig.json" else None

    def root_tsconfig(self) -> str:
        """``tsconfig.base.json``, else ``tsconfig.json`` (Nx's ``getRootTsConfigFileName``)."""
        return "tsconfig.base.json" if (self.root / "tsconfig.base.json").is_file() else "tsconfig.json"

    def compared_files(self) -> tuple[str, ...]:
        """The root tsconfig and package.json; the lockfiles too with ``projectsAffectedByDependencyUpdates:
        "auto"``, where Nx narrows a lockfile change to the npm packages that moved (``moved_packages``)."""
        lockfiles = LOCKFILES if dependency_updates(self.nx_json()) == "auto" else ()
        return (self.root_tsconfig(), ROOT_MANIFEST, *lockfiles)

    def moved_packages(self, lockfile: str, before: str | None, after: str | None) -> frozenset[str] | None:
        """The npm packages whose locked versions or hashes differ between two versions of
        ``lockfile`` (Nx's ``changedExternalNodes`` for ``"auto"``); None where Nx takes every
        package as moved: a side missing or unparsable (Nx warns then), or a changed package no
        longer locked (it has no external node to start from)."""
        from .nx_workspace import NpmUnreadable

        if before is None or after is None:
            return None
        try:
            old, new = self.npm_packages(lockfile, before), self.npm_packages(lockfile, after)
        except NpmUnreadable:
            return None
        changed = old.changed(new)
        return frozenset(changed) if all(name in new.fingerprints for name in changed) else None

    def npm_packages(self, lockfile: str, text: str) -> "NpmPackages":
        """``read_npm_packages``, once per lockfile text (a change set asks per file and per task)."""
        from .nx_workspace import read_npm_packages

        cache: dict[tuple[str, str], NpmPackages] = self.__dict__.setdefault("_npm_packages", {})
        if (lockfile, text) not in cache:
            cache[(lockfile, text)] = read_npm_packages(lockfile, text)
        return cache[(lockfile, text)]

    def users_of(self, graph: BuildGraph, packages: "NpmPackages", moved: frozenset[str]) -> set[str]:
        """The projects whose npm dependencies (declared or imported), followed through the
        lockfile, reach one of ``moved``: where Nx's reverse walk from the moved external nodes
        enters the project graph (their dependents follow as for any touched project)."""
        return {n.id for n in graph.nodes() if moved & packages.closure(n.meta.get("externals") or ())}

    def nodes_for_file_versions(self, graph: BuildGraph, path: str, before: str | None, after: str | None) -> list[str] | None:
        """The projects a root tsconfig change over a git range touches (``root_tsconfig_touched``,
        plus those whose inputs name it); None -- every project, and every test task -- for any
        other change of it. For the root package.json: what owns it plus what its dependency
        changes name (``root_manifest_touched``)."""
        if path in LOCKFILES:
            moved = self.moved_packages(path, before, after) if dependency_updates(self.nx_json()) == "auto" else None
            if moved is None or after is None:
                return None
            return sorted(set(self.nodes_for_changed_file(graph, path))
                          | self.users_of(graph, self.npm_packages(path, after), moved))
        if path == ROOT_MANIFEST:
            if self.ignored_change(path):
                return []
            named = self.manifest_touched(graph, before, after)
            if named is None:
                return self.reportable_ids(graph)
            packages = self.current_npm_packages()
            users: set[str] = set()
            if named[1] and packages:
                # Nx finds the package by name among its external nodes, the first that matches
                # (``NpmPackages.manifest_node``): with bun.lock a versioned node no project reaches
                by_name, nodes = packages.manifest_moves(named[1])
                users = self.users_of(graph, packages, by_name)
                users |= {n.id for n in graph.nodes() if nodes and packages.reaches(n.meta.get("externals") or (), nodes)}
            return sorted(set(self.nodes_for_changed_file(graph, path)) | named[0] | users)
        if path != self.root_tsconfig():
            return None
        roots = {n.id: str(n.meta.get("root") or ".") for n in graph.nodes() if self.reportable(graph, n.id)}
        touched = root_tsconfig_touched(before, after, roots)
        # the projects whose inputs name the file ({workspaceRoot}/tsconfig.base.json in
        # sharedGlobals) count it as for any other file, whatever changed in it (measured with
        # nx 24.0.6: a paths-only or whitespace-only change still marks them affected)
        return None if touched is None else sorted(touched | set(self.nodes_for_changed_file(graph, path)))


def root_tsconfig_touched(before: str | None, after: str | None, roots: dict[str, str]) -> set[str] | None:
    """The projects (of ``roots``: project -> root directory) that Nx 24 counts as touched by
    the root tsconfig going from ``before`` to ``after`` over a git range; None when the change
    is more than ``compilerOptions.paths`` (every project is touched, and every task: each
    task's hash holds the root tsconfig without its ``paths``).

    Nx compares the two versions (``tsconfig-json-changes.js``, measured with 24.0.6):
    - anything outside ``compilerOptions.paths`` changed (a side missing or no JSON, even
      with comments allowed): None;
    - else, when a side is not *strict* JSON (a comment, a trailing comma), Nx has no diff
      and counts a whole-file change: every project (but no test task: paths are not hashed);
    - else each changed array element of a ``paths`` entry (``paths.<key>.<i>``): removed --
      an entry, an element, ``paths`` itself -- touches every project; added or modified, the
      projects whose root is the old or new value, or contains it (``./`` dropped);
    - a whitespace or comment-only change touches nothing.
    """
    from .nx_workspace import _strip_jsonc

    if before is None or after is None:
        return None
    lenient = []
    for text in (before, after):
        try:
            lenient.append(json.loads(_strip_jsonc(text.removeprefix("\ufeff"))))
        except ValueError:
            return None
    if _without_paths(lenient[0]) != _without_paths(lenient[1]):
        return None
    try:
        old, new = json.loads(before), json.loads(after)
    except ValueError:
        return set(roots)
    touched: set[str] = set()
    for kind, path, value in _json_changes(old, new, ()):
        if len(path) != 4:
            continue
        if kind == "deleted":
            return set(roots)
        for candidate in value:
            if not isinstance(candidate, str):
                continue
            target = candidate[2:] if candidate.startswith("./") else candidate
            for project, root in roots.items():
                root = root[:-1] if root.endswith("/") else root
                if (target and root and target.startswith(root + "/")) or target == root:
                    touched.add(project)
    return touched


def root_manifest_touched(before: str | None, after: str | None, projects: set[str], locked: Collection[str] = (),
                          global_packages: Collection[str] = ()) -> tuple[set[str], frozenset[str]] | None:
    """The projects (of ``projects``) and locked npm packages (of ``locked``) that Nx 24 counts as
    touched by the root package.json going from ``before`` to ``after`` over a git range; None:
    every project, and every test task that does not pin its ``externalDependencies``.

    Nx diffs the two versions (``npm-packages.js``' ``touchedNpmPackages``, measured with 24.0.6):
    - a ``dependencies``/``devDependencies`` entry removed: None (it cannot tell what used it);
    - one added or changed: the workspace project of that *project* name, else the locked npm
      package of that name (and for ``@types/x`` also ``x``) -- a global package (an nx.json
      plugin's, or ``nx``) None (measured: ``left-pad``'s range changed in the root
      package.json, nothing else: the projects depending on left-pad and their dependents, the
      tests hashing every npm package);
    - an ``overrides``/``resolutions``/``pnpm.overrides`` value changed: None, since its
      selector names no external node Nx knows without an installed lockfile;
    - anything else (scripts, peerDependencies, ...) touches nothing, and so does a side that
      is absent or not strict JSON (a whole-file change touches every *npm* node: none here).
    """
    if before is None or after is None:
        return set(), frozenset()
    try:
        old, new = json.loads(before), json.loads(after)
    except ValueError:
        return set(), frozenset()
    touched: set[str] = set()
    npm: set[str] = set()
    for kind, path, value in _json_changes(old, new, ()):
        if len(path) == 2 and path[0] in ("dependencies", "devDependencies"):
            if kind == "deleted":
                return None
            if path[1] in projects:
                touched.add(path[1])
            elif path[1] in locked:
                if path[1] in global_packages:
                    return None
                npm.add(path[1])
                if path[1].startswith("@types/") and path[1][7:] in locked:
                    npm.add(path[1][7:])
        elif path[:1] in (("overrides",), ("resolutions",)) or (path[:2] == ("pnpm", "overrides") and len(path) > 2):
            at = 2 if path[0] == "pnpm" else len(path) - 1
            selector = path[at - 1] if path[at] == "." else path[at]
            if selector and any(isinstance(v, str) for v in value):
                return None
    return touched, frozenset(npm)


def _without_paths(config: Any) -> Any:
    """A tsconfig without ``compilerOptions.paths`` (what Nx hashes into every task)."""
    if isinstance(config, dict) and isinstance(config.get("compilerOptions"), dict):
        options = {k: v for k, v in config["compilerOptions"].items() if k != "paths"}
        return {**config, "compilerOptions": options}
    return config


def json_fields_changed(before: str | None, after: str | None, fields: tuple[str, ...], exclude: tuple[str, ...]) -> bool:
    """Whether a ``{"json": f, "fields": [...], "excludeFields": [...]}`` input's part of ``f``
    differs between two versions: a change Nx's ``diffJson`` lists (``_json_changes``) on a path
    that contains a field or lies inside one, and inside no excluded field (measured over a git
    range: a ``compilerOptions`` change selects the task, another field's or whitespace does
    not; field ``n.x`` is hit by a change of ``n.x.z`` and of ``n`` -- also ``n.x.z`` by a change
    of ``n.x`` --, not of ``n.y``; excludeFields ``n.y`` leaves a change of ``n.y`` out of field
    ``n``). No fields: the whole file. A side missing or not JSON(C) counts as changed."""
    from .nx_workspace import _strip_jsonc

    if before is None or after is None:
        return True
    try:
        old, new = json.loads(_strip_jsonc(before)), json.loads(_strip_jsonc(after))
    except ValueError:
        return True
    wanted = [tuple(f.split(".")) for f in fields]
    excluded = [tuple(f.split(".")) for f in exclude]
    for _, path, _ in _json_changes(old, new, ()):
        if any(path[:len(e)] == e for e in excluded):
            continue
        if not wanted or any(path[:len(f)] == f or f[:len(path)] == path for f in wanted):
            return True
    return False


def _json_changes(old: Any, new: Any, path: tuple[str, ...]) -> Iterable[tuple[str, tuple[str, ...], tuple[Any, ...]]]:
    """(kind, key path, (old value, new value)) of each changed node, as Nx's ``diffJson`` lists
    them: objects by key, arrays by index; everything below a removed (added) node is removed
    (added) too. Containers that merely hold a change are not listed: no caller needs them."""
    if isinstance(old, dict) and isinstance(new, dict):
        pairs = [(str(k), old.get(k, _MISSING), new.get(k, _MISSING)) for k in dict.fromkeys([*old, *new])]
    elif isinstance(old, list) and isinstance(new, list):
        pairs = [(str(i), old[i] if i < len(old) else _MISSING, new[i] if i < len(new) else _MISSING)
                 for i in range(max(len(old), len(new)))]
    else:
        if old != new or type(old) is not type(new):
            if isinstance(old, (dict, list)) or isinstance(new, (dict, list)):  # a container replaced
                yield from _subtree("deleted", old, path)
                yield from _subtree("added", new, path)
            else:
                yield "modified", path, (old, new)
        return
    for key, a, b in pairs:
        if a is _MISSING:
            yield from _subtree("added", b, (*path, key))
        elif b is _MISSING:
            yield from _subtree("deleted", a, (*path, key))
        else:
            yield from _json_changes(a, b, (*path, key))


def _subtree(kind: str, value: Any, path: tuple[str, ...]) -> Iterable[tuple[str, tuple[str, ...], tuple[Any, ...]]]:
    yield kind, path, (value,)
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in children:
        yield from _subtree(kind, child, (*path, str(key)))


_MISSING = object()


class InvalidInputsError(Exception):
    """(message, project root, the offending text): an ``inputs`` entry Nx refuses."""


class TaskSelection:
    """Which tasks a set of changed files affects, from each target's inputs (Nx 24's
    ``affected -t``), and which projects ``{workspaceRoot}`` inputs touch.

    A task of project P is affected by a changed file F when (``hasher/task-hasher.js``'s
    split of inputs, measured against ``nx show projects --affected -t``):
    - F belongs to P and is one of P's ``{projectRoot}`` filesets (every file of P when
      the target sets no inputs), or is P's project.json/package.json;
    - F matches one of the task's ``{workspaceRoot}`` filesets;
    - F belongs to a transitive dependency D of P and is in the ``^`` named inputs
      (``^production``) expanded with D's own namedInputs, or matches their
      ``{workspaceRoot}`` filesets;
    - F is the file of one of the task's ``json`` inputs -- its own, through named inputs, or
      through ``^`` named inputs of a dependency, ``{projectRoot}`` that project's root -- and
      changed in the fields it names (``json_fields_changed``; with ``--files``, at all);
    - the task reads the outputs of the tasks it ``dependsOn`` (``dependentTasksOutputFiles``;
      ``transitive``: of all tasks below it) and one of those is affected: Nx carries a
      change along such edges only (a ``^build`` dependency alone carries nothing).
    """

    def __init__(self, graph: BuildGraph, nx_json: dict[str, Any], package_of: "PackageOf") -> None:
        self.graph = graph
        named = nx_json.get("namedInputs")
        self.named_global: dict[str, Any] = dict(named) if isinstance(named, dict) else {}
        self.package_of = package_of
        self.by_package = {n.package: n.id for n in graph.nodes() if not n.external}
        self._named: dict[tuple[str, tuple[str, ...]], tuple[tuple[str, ...], tuple[str, ...], tuple[JsonInput, ...]]] = {}
        self._touch_index: dict[tuple[str, ...], set[str]] | None = None
        self._target_names: list[str] | None = None
        self._dependency_externals: dict[str, frozenset[str]] = {}
        self.matchable = matchable_projects(graph)
        updates = dependency_updates(nx_json)
        #: what a list-valued ``projectsAffectedByDependencyUpdates`` matches: Nx's lockfile
        #: locator returns them for *every* change, the lockfile changed or not
        #: (``getTouchedProjectsFromLockFile``; measured: ``a``'s source changed, ``d`` listed,
        #: ``nx show projects --affected`` gives ``a``'s dependents and ``d``); a lockfile
        #: change then touches only them
        self.dependency_update_projects: set[str] = set()
        from .nx_plugins import project_config_patterns

        #: nx.json plugins' createNodes globs: files a project owns that match one count as its configuration
        self.config_patterns = project_config_patterns(nx_json)
        if isinstance(updates, list) and updates:
            from .nx_workspace import InvalidProjectPattern, match_projects

            try:
                self.dependency_update_projects = set(match_projects(updates, self.matchable))
            except InvalidProjectPattern:
                # measured with nx 24.0.6, ["#x"]: `nx affected -t test` selects as if it matched
                # nothing, `nx show projects --affected` fails ("Invalid glob pattern #x"); not modelled
                pass

    def named_inputs(self, project: str) -> dict[str, Any]:
        from .nx_workspace import DEFAULT_NAMED_INPUTS

        return {**DEFAULT_NAMED_INPUTS, **self.named_global, **(self.graph.node(project).meta.get("named_inputs") or {})}

    def is_config(self, path: str, root: str) -> bool:
        """``path`` (owned by the project at ``root``) configures that project: its package.json or
        project.json, or a file an nx.json plugin's createNodes glob matches (measured: with
        ``@nx/vitest``/``@nx/jest/plugin``, changing ``vitest.config.mts``/``jest.config.js``
        selects the project's test whose inputs name only ``src/``)."""
        if path in config_files(root):
            return True
        if not self.config_patterns:
            return False
        from .nx_workspace import _minimatch

        return any(_minimatch(pattern, path) for pattern in self.config_patterns)

    def owner(self, path: str) -> str | None:
        package = self.package_of(self.graph, path)
        return self.by_package.get(package) if package is not None else None

    def task_inputs(self, project: str, target: str) -> "TaskInputs":
        """One task's inputs, expanded with its project's named inputs (``InvalidInputsError`` where Nx refuses them)."""
        from .nx_workspace import InvalidInputs, expand_task_inputs

        inputs = (self.graph.node(project).meta.get("inputs") or {}).get(target)
        try:
            return expand_task_inputs(inputs, self.named_inputs(project), self.root_of(project))
        except InvalidInputs as exc:
            raise InvalidInputsError(f"inputs of {project}:{target}: {exc}", self.graph.node(project).meta.get("root", "."),
                                     _quoted(str(exc))) from None

    def dependency_filesets(self, dep: str,
                            names: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...], tuple[JsonInput, ...]]:
        """(project filesets, workspace filesets, json inputs) that ``^names`` contributes for dependency ``dep``."""
        from .nx_workspace import InvalidInputs, expand_named

        key = (dep, names)
        if key not in self._named:
            try:
                self._named[key] = expand_named(names, self.named_inputs(dep), self.root_of(dep))
            except InvalidInputs as exc:
                raise InvalidInputsError(f"inputs of {dep} (as a dependency): {exc}",
                                         self.graph.node(dep).meta.get("root", "."), _quoted(str(exc))) from None
        return self._named[key]

    def check_inputs(self, projects: Iterable[str], target: str) -> None:
        """Raise ``InvalidInputsError`` where Nx refuses to plan one of these tasks: it reads the
        inputs of every task of the target, and of every dependency a ``^`` input reaches, before
        it selects any (measured: "Input 'production' is not defined" with only a project's own
        files changed, and with every test selected by a deleted project)."""
        by_names: dict[tuple[str, ...], set[str]] = {}  # ^ named inputs -> the projects reading them
        for project in projects:
            inputs = self.task_inputs(project, target)
            if inputs.dep_inputs:
                by_names.setdefault(inputs.dep_inputs, set()).add(project)
        for names, readers in by_names.items():  # one walk per set of names, not one per task
            direct = {d for p in readers for d in self.graph.dependencies(p) if d != p}
            for dep in self.graph.deps(direct):
                self.dependency_filesets(dep, names)

    def check_depends_on(self, projects: Iterable[str], target: str) -> None:
        """Raise ``InvalidInputsError`` where Nx refuses to build the task graph: a ``dependsOn``
        entry with the Nx 15 ``"projects": "self"`` or ``"dependencies"`` (no project of that
        name), in any task of the target or below one. Measured with nx 24.0.6: ``nx affected -t
        test`` fails with "has a dependsOn entry using projects: 'dependencies', which is no
        longer supported" whatever changed, an unaffected project's test carrying it too."""
        for project, name in self.task_graph(projects, target):
            for entry in (self.graph.node(project).meta.get("depends_on") or {}).get(name) or ():
                legacy = entry.get("projects") if isinstance(entry, dict) else None
                if legacy in ("self", "dependencies") and legacy not in self.matchable:
                    raise InvalidInputsError(
                        f"dependsOn of {project}:{name}: {json.dumps(entry)} uses projects: {legacy!r}, which Nx 24 "
                        f"no longer takes (write \"^{entry.get('target')}\" or the target's name; `nx repair` does)",
                        self.root_of(project), f'projects": "{legacy}')

    def check_dependency_inputs(self, projects: Iterable[str], target: str) -> None:
        """``check_inputs`` for the tasks below these projects' ``target`` tasks: Nx plans every task
        of the task graph before it selects any (measured with nx 24.0.6: a test ``dependsOn``
        ``build``, whose targetDefaults inputs name ``production``, a named input its project
        lacks -- ``nx affected -t test`` fails with "\"production\" is an invalid fileset"
        whatever changed)."""
        roots = set(projects)
        for project, name in self.task_graph(roots, target):
            if name != target or project not in roots:
                self.check_inputs([project], name)

    def task_graph(self, projects: Iterable[str], target: str) -> Iterator[tuple[str, str]]:
        """Each task of ``target`` for these projects and each task below them (``dependsOn``),
        once, a task before those it depends on (a caller raising on one stops the walk there)."""
        seen: set[tuple[str, str]] = set()
        stack = [(project, target) for project in projects]
        while stack:
            task = stack.pop()
            if task in seen:
                continue
            seen.add(task)
            yield task
            stack.extend(self.task_dependencies(task))

    def implicitly_touched(self, path: str) -> set[str]:
        """Projects whose targets' own (non-``^``) inputs name ``path`` through a ``{workspaceRoot}`` fileset."""
        from .nx_workspace import UnparsableGlob, fileset_matches

        if self._touch_index is None:
            index: dict[tuple[str, ...], set[str]] = {}
            for node in self.graph.nodes():
                for target in node.meta.get("inputs") or {}:
                    try:
                        workspace = self.task_inputs(node.id, target).workspace
                    except InvalidInputsError:  # Nx's project-level answer skips what it cannot read
                        continue
                    if workspace:
                        index.setdefault(workspace, set()).add(node.id)
            self._touch_index = index
        touched: set[str] = set()
        for workspace, projects in self._touch_index.items():
            try:
                if fileset_matches(workspace, path):
                    touched |= projects
            except UnparsableGlob:  # nx show projects --affected answers (measured): no match
                continue
        return touched

    def affected(self, projects: list[str], paths: list[str], target: str, always: set[str] = frozenset(),
                 npm_changed: bool = False, npm_moved: frozenset[str] = frozenset(),
                 npm_packages: "NpmPackages | None" = None, npm_nodes: frozenset[str] = frozenset(),
                 json_changed: Callable[[JsonInput], bool] | None = None) -> set[str]:
        """Those of ``projects`` (all having ``target``) whose ``target`` task the changed ``paths`` affect.

        ``always``: projects whose every task counts as touched (Nx's ``alwaysTouchedTaskIds``:
        the root package.json, or ``projectsAffectedByDependencyUpdates`` with a lockfile
        change, named them); ``npm_changed``: npm dependencies moved in a way Nx
        cannot pin down, which touches every task that does not pin its ``externalDependencies``
        to none (measured: a test pinning ``["left-pad"]`` is selected too); ``npm_moved``: the
        packages a narrowed (``"auto"``) lockfile change moved, looked up in ``npm_packages``;
        ``npm_nodes``: external nodes (not names) a root package.json change moved
        (``NpmPackages.manifest_node``), which a pinning task hashes only if its pins lead to them
        (measured: root dependency is-odd added, bun.lock unchanged, a test pinning is-odd not
        selected -- the moved node is the versioned ``npm:is-odd@1.0.0`` -- the others selected);
        ``json_changed``: whether a changed file's part a ``json`` input names changed (a git range
        can leave it as it was); every part of a changed file changed when None.
        """
        from .nx_workspace import UnparsableGlob, fileset_matches

        changed_paths = set(paths)
        by_owner: dict[str | None, list[str]] = {}
        for path in dict.fromkeys(paths):
            by_owner.setdefault(self.owner(path), []).append(path)
        any_match: dict[tuple[str, ...], bool] = {}

        def workspace_hit(filesets: tuple[str, ...]) -> bool:
            if filesets and filesets not in any_match:
                any_match[filesets] = any(fileset_matches(filesets, p) for p in paths)
            return bool(filesets) and any_match[filesets]

        json_memo: dict[JsonInput, bool] = {}

        def json_hit(json_inputs: tuple[JsonInput, ...]) -> bool:
            for key in json_inputs:
                if key[0] in changed_paths and key not in json_memo:
                    json_memo[key] = json_changed is None or json_changed(key)
            return any(json_memo.get(key, False) for key in json_inputs)

        touched_memo: dict[tuple[str, str], bool] = {}

        def npm_hit(project: str, inputs: "TaskInputs") -> bool:
            """The task hashes an npm package that moved: every package (no ``externalDependencies``
            input) or those it names, followed through the lockfile (measured: a test pinning
            ``is-odd`` is selected when ``left-pad``, which is-odd depends on, moved); with a ``^``
            input also the npm dependencies of its project and of the projects below it
            (``dependency_externals``), pins or not."""
            below = self.dependency_externals(project) if inputs.dep_inputs or inputs.dep_filesets else frozenset()
            if npm_changed:
                return not inputs.pins_externals or bool(inputs.pinned_externals) or bool(below)
            if not npm_moved and not npm_nodes:
                return False
            if not inputs.pins_externals or npm_packages is None:
                return True
            hashed = (*inputs.pinned_externals, *below)
            return (bool(npm_moved & npm_packages.closure(hashed))
                    or bool(npm_nodes) and npm_packages.reaches(hashed, npm_nodes))

        def touched(task: tuple[str, str]) -> bool:
            """The task's own inputs name a changed file (``InvalidInputsError`` where Nx fails
            matching one against a glob it cannot parse, ``UnparsableGlob``)."""
            if task not in touched_memo:
                project, name = task
                inputs = self.task_inputs(project, name)
                root = self.root_of(project)
                own = by_owner.get(project, ())
                try:
                    touched_memo[task] = bool(
                        project in always or npm_hit(project, inputs)
                        or (own and (inputs.all_files or any(fileset_matches(inputs.project, p, root) or self.is_config(p, root)
                                                             for p in own)))
                        or workspace_hit(inputs.workspace) or json_hit(inputs.json_inputs)
                        or self._through_dependencies(project, inputs, by_owner, workspace_hit, json_hit)
                    )
                except UnparsableGlob as exc:
                    raise InvalidInputsError(f"inputs of {project}:{name}: {exc}", root, exc.glob) from None
            return touched_memo[task]

        reached_memo: dict[tuple[str, str], bool] = {}
        whole: list[dict[tuple[str, str], list[tuple[str, str]]] | None] = []  # built on first need

        def below(task: tuple[str, str]) -> list[tuple[str, str]]:
            """The tasks whose outputs ``task`` reads (none without a dependentTasksOutputFiles
            input; only tasks that have outputs, ``has_outputs``)."""
            inputs = self.task_inputs(*task)
            if not inputs.dep_outputs:
                return []
            if not whole:
                whole.append(self.whole_task_graph(projects, target))
            graph = whole[0]
            dependencies = (lambda t: graph.get(t, [])) if graph is not None else self.task_dependencies
            direct = dependencies(task)
            seen = set(direct)
            if inputs.transitive_outputs:
                stack = list(direct)
                while stack:
                    for more in dependencies(stack.pop()):
                        if more not in seen:
                            seen.add(more)
                            stack.append(more)
            return sorted(t for t in seen if t[1] in (self.graph.node(t[0]).meta.get("with_outputs") or ()))

        def reached(start: tuple[str, str]) -> bool:
            """Touched, or carried to through the outputs of a task it dependsOn that was reached.
            Depth first and iterative (a chain of 3,000 ``^build`` tasks must not overflow the
            stack); a task being decided counts as not reached, so a dependsOn cycle ends there."""
            frames: list[tuple[tuple[str, str], Iterator[tuple[str, str]]]] = []
            result: bool | None = None  # the answer for the task just decided, for its caller

            def enter(task: tuple[str, str]) -> bool | None:
                if task in reached_memo:
                    return reached_memo[task]
                reached_memo[task] = touched(task)
                if reached_memo[task]:
                    return True
                frames.append((task, iter(below(task))))
                return None

            result = enter(start)
            while frames:
                task, pending = frames[-1]
                if result:
                    reached_memo[task] = True
                    frames.pop()
                    continue
                nxt = next(pending, None)
                if nxt is None:
                    frames.pop()
                    result = False
                else:
                    result = enter(nxt)
            return reached_memo[start]

        return {project for project in projects if reached((project, target))}

    def task_dependencies(self, task: tuple[str, str]) -> list[tuple[str, str]]:
        """The tasks ``task`` dependsOn (targets of projects that have them), never ``task`` itself:
        Nx records no edge from a task to itself (``processTasksForSingleProject``; measured with
        nx 24.0.6: test ``dependsOn`` the target glob ``"!(build)"``, which names test too)."""
        from .nx_workspace import task_dependencies

        project, target = task
        depends_on = (self.graph.node(project).meta.get("depends_on") or {}).get(target)
        if not depends_on:
            return []
        found = task_dependencies(depends_on, project, self.graph.dependencies, self.has_target,
                                  partial(self.match_projects, project), self.target_names())
        return [t for t in found if t != task]

    def match_projects(self, project: str, patterns: list[str]) -> list[str]:
        """A ``dependsOn`` entry's ``projects`` patterns of one of ``project``'s tasks, as Nx's
        ``findMatchingProjects`` resolves them (``InvalidInputsError`` where it fails)."""
        from .nx_workspace import InvalidProjectPattern, match_projects

        try:
            return match_projects(patterns, self.matchable)
        except InvalidProjectPattern as exc:
            raise InvalidInputsError(f"dependsOn of {project}: {exc}", self.root_of(project), exc.pattern) from None

    def has_target(self, project: str, target: str) -> bool:
        return project in self.graph and target in (self.graph.node(project).meta.get("targets") or ())

    def target_names(self) -> list[str]:
        if self._target_names is None:
            self._target_names = sorted({t for n in self.graph.nodes() for t in n.meta.get("targets") or ()})
        return self._target_names

    def whole_task_graph(self, projects: list[str], target: str) -> dict[tuple[str, str], list[tuple[str, str]]] | None:
        """Nx's one task graph of ``target`` over ``projects`` with dummies on a marked cycle path
        removed (``nx_task_graph``), or None when it equals each task's own ``task_dependencies``.
        Built in Nx's orders: project graph nodes (``nx_node_order``) and each project's
        dependencies (``dependency_order``)."""
        from .nx_workspace import depends_on_configs, nx_node_order, nx_task_graph

        order = nx_node_order({p: self.root_of(p) for p in projects})

        def configs(project: str, name: str) -> list[tuple[bool, str, list[str]]]:
            depends_on = (self.graph.node(project).meta.get("depends_on") or {}).get(name)
            return depends_on_configs(depends_on, project, self.has_target, partial(self.match_projects, project),
                                      self.target_names())

        return nx_task_graph(order, target, configs, self.dependency_order, self.has_target)

    def dependency_order(self, project: str) -> list[str]:
        """``project``'s dependencies in the order of Nx's project graph (``dependency_order`` meta:
        edges without a source file -- implicit ones -- first, then those from files); sorted
        for a graph that does not record it."""
        recorded = self.graph.node(project).meta.get("dependency_order")
        return [d for d in recorded if d in self.graph] if isinstance(recorded, list) else self.graph.dependencies(project)

    def root_of(self, project: str) -> str:
        return str(self.graph.node(project).meta.get("root") or ".")

    def dependency_externals(self, project: str) -> frozenset[str]:
        """The npm packages ``project`` and the projects below it depend on: what a task with a
        ``^`` input hashes besides its ``externalDependencies`` (Nx's hash planner adds each
        external node a dependency input meets; measured with ``nx affected -t test --explain``:
        "depends on npm:left-pad, whose version changes" for a test pinning vitest whose
        project's dependency's dependency uses left-pad)."""
        memo = self._dependency_externals
        if project not in memo:
            memo[project] = frozenset(e for d in self.graph.deps([project])
                                      for e in self.graph.node(d).meta.get("externals") or ())
        return memo[project]

    def _through_dependencies(self, project: str, inputs: "TaskInputs", by_owner: dict[str | None, list[str]],
                              workspace_hit: Callable[[tuple[str, ...]], bool],
                              json_hit: Callable[[tuple["JsonInput", ...]], bool]) -> bool:
        """Whether a change reaches the task through what it reads of other projects."""
        from .nx_workspace import fileset_matches, match_projects

        if not (inputs.dep_inputs or inputs.dep_filesets or inputs.project_inputs):
            return False
        deps = [d for d in self.graph.deps([project]) if d != project]
        for dep in deps:
            changed = by_owner.get(dep, ())
            root = self.root_of(dep)
            # a ^ input hashes each dependency's project configuration too (measured: inputs
            # ["{projectRoot}/src/**/*", "^{projectRoot}/src/**/*"], a dependency's package.json
            # description changed: the dependents' tests are selected)
            if (inputs.dep_inputs or inputs.dep_filesets) and any(self.is_config(p, root) for p in changed):
                return True
            if inputs.dep_inputs:
                project_sets, workspace_sets, json_sets = self.dependency_filesets(dep, inputs.dep_inputs)
                if (any(fileset_matches(project_sets, p, root) for p in changed) or workspace_hit(workspace_sets)
                        or json_hit(json_sets)):
                    return True
            if any(fileset_matches(inputs.dep_filesets, p, root) for p in changed):
                return True
        if inputs.project_inputs:
            for name, patterns in inputs.project_inputs:
                for other in match_projects(list(patterns), self.matchable, native=True):
                    project_sets, workspace_sets, json_sets = self.dependency_filesets(other, (name,))
                    root = self.root_of(other)
                    if (any(fileset_matches(project_sets, p, root) for p in by_owner.get(other, ()))
                            or workspace_hit(workspace_sets) or json_hit(json_sets)):
                        return True
        return False


def config_files(root: str) -> tuple[str, str]:
    """A project's configuration files (whose change reaches every task of it, and every task
    that reads it through ``^`` inputs): ``<root>/package.json`` and ``<root>/project.json``."""
    prefix = "" if root == "." else root + "/"
    return f"{prefix}package.json", f"{prefix}project.json"


def dependency_updates(nx_json: dict[str, Any]) -> str | list[str]:
    """nx.json ``pluginsConfig["@nx/js"].projectsAffectedByDependencyUpdates``: ``"all"``
    (the default), ``"auto"`` or a list of project patterns (Nx's ``jsPluginConfig``)."""
    config = nx_json.get("pluginsConfig")
    js = config.get("@nx/js") if isinstance(config, dict) else None
    value = js.get("projectsAffectedByDependencyUpdates", "all") if isinstance(js, dict) else "all"
    return [str(v) for v in value] if isinstance(value, list) else str(value)


def matchable_projects(graph: BuildGraph) -> dict[str, "NxProject"]:
    """The graph's projects as Nx's project patterns (``match_projects``) see them: name, root, tags."""
    from .nx_workspace import NxProject

    return {n.id: NxProject(n.id, str(n.meta.get("root") or "."), tags=list(n.tags)) for n in graph.nodes()}


def _quoted(message: str) -> str:
    """The first quoted piece of an error message (what to look for in the config files)."""
    for quote in ('"', "'"):
        start = message.find(quote)
        end = message.find(quote, start + 1) if start >= 0 else -1
        if end > start:
            return message[start + 1:end]
    return ""


def _input_location(root: Path, project_root: str, needle: str) -> tuple[str, int | None]:
    """Where an invalid input is written: nx.json, else the project's project.json/package.json."""
    from .nx_workspace import _first_line_with

    prefix = "" if project_root in (".", "") else project_root + "/"
    for rel in ("nx.json", f"{prefix}project.json", f"{prefix}package.json"):
        try:
            text = read_text(root / rel, errors="replace")
        except OSError:
            continue
        line = _first_line_with(text, f'"{needle}"') if needle else None
        if line is not None:
            return rel, line
    return "nx.json", None


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


def has_target(node: Node, target: str) -> bool:
    """Whether project ``node`` has ``target`` (its own or a plugin's inferred one), from the
    graph's node data, so a cached graph answers for any target name (``--target``)."""
    if target == "test":
        return bool(node.meta.get("has_test"))
    return target in (node.meta.get("targets") or ())


def graph_from_nx_json(data: dict[str, Any], adapter: str, root: str) -> BuildGraph:
    """A BuildGraph from ``nx graph --file`` output (npm: external nodes left out)."""
    from .nx_workspace import has_outputs

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
                "with_outputs": [t for t in targets if has_outputs(t, (project.get("targets") or {}).get(t))],
                **_inputs_meta(
                    {t: spec.get("inputs") for t, spec in (project.get("targets") or {}).items() if isinstance(spec, dict)},
                    project.get("namedInputs"),
                    {t: spec.get("dependsOn") for t, spec in (project.get("targets") or {}).items() if isinstance(spec, dict)},
                ),
            },
        ))
    for source, deps in sorted((body.get("dependencies") or {}).items()):
        for dep in deps or ():
            target = dep.get("target")
            if source in graph and target in graph and source != target:
                graph.add_edge(source, target, str(dep.get("type") or STATIC))
                order = graph.node(source).meta.setdefault("dependency_order", [])
                if target not in order:
                    order.append(target)
    return graph


def nx_dependency_order(implicit: list[str], origins: list[tuple[str, str]], kept: set[str]) -> list[str]:
    """A project's dependencies in the order of Nx 24's project graph, which its task graph
    follows: ``getUpdatedProjectGraph`` lists the edges added without a source file (implicit
    dependencies) first, then those of each file the project owns in file order (a package.json
    in ``readDeps`` order: optional, peer, dev, then dependencies), each target once; ``kept``:
    the edges the graph has (an ``!`` implicit dependency removes one)."""
    by_file = sorted(range(len(origins)), key=lambda i: origins[i][0])  # stable: a file's own order kept
    ordered = [*implicit, *(origins[i][1] for i in by_file)]
    return [d for d in dict.fromkeys(ordered) if d in kept]


def _inputs_meta(inputs: dict[str, Any], named: Any, depends_on: dict[str, Any]) -> dict[str, Any]:
    """Node meta for affected-task selection: each target's ``inputs`` and ``dependsOn``
    (targetDefaults applied; only targets that set them) and the project's own ``namedInputs``."""
    return {
        "inputs": {t: v for t, v in inputs.items() if v is not None},
        "named_inputs": dict(named) if isinstance(named, dict) else {},
        "depends_on": {t: v for t, v in depends_on.items() if v},
    }


def npm_package_of(specifier: str) -> str | None:
    """The npm package a bare import names (``@s/a/x`` -> ``@s/a``); None for relative,
    absolute and ``node:`` specifiers. Whether it is a package is for the lockfile to say."""
    if not specifier or specifier.startswith((".", "/")) or ":" in specifier:
        return None
    parts = specifier.split("/")
    if specifier.startswith("@"):
        return "/".join(parts[:2]) if len(parts) > 1 and parts[1] else None
    return parts[0]


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
