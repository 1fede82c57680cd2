"""Turborepo, answering like ``turbo ls --filter=...X`` and ``turbo run test`` (turbo 2).

Turborepo builds its own package graph on top of the package manager's workspace, with
rules that differ from pnpm's (each measured against turbo 2.11.11):

- ``peerDependencies`` are not edges; the other three dependency fields are.
- ``workspace:`` specs always link, *whatever the range* (``workspace:^2.0.0`` on a
  1.0.0 package links -- pnpm would not); ``workspace:../dir`` paths too; aliases
  (``workspace:@p/a@^1``) only when their range is satisfied (``turbo_workspace_target``).
- Everything else links only when the workspace "links workspace packages": always
  for npm/yarn/bun, for pnpm only with ``link-workspace-packages=true`` in ``.npmrc`` or
  ``linkWorkspacePackages`` in pnpm-workspace.yaml (turbo reads both; pnpm 12 only the
  latter). Then ``link:``/``file:`` specs link to the package the dependency names
  (the path is not checked), and a name links
  when the version satisfies the range -- or when either side is not semver (``latest``
  links, measured), and ``npm:<range>`` is read as its range; ``*`` links any version,
  and a package without a version links for ``*`` only (``version_links``).
- The root package is a node ``//``: every package without workspace dependencies
  depends on ``//``, and ``//`` depends on what the root package.json lists. So a
  package the root depends on has every package as a dependent. ``//`` itself never
  appears in ``turbo ls`` output, and filtering on it selects nothing.
- A package has a ``test`` task only when it has ``scripts.test`` *and* turbo.json
  defines ``test`` (v2 ``tasks``, v1 ``pipeline``; also ``<pkg>#test`` or the package's
  own turbo.json); ``turbo run test`` lists the others with command ``<NONEXISTENT>``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Iterable

from ctxsel.adapters.base import AdapterOptions
from ctxsel.cache import InputTracker
from ctxsel.errors import Location, ParseError, ToolError
from ctxsel.graph import DEP, DEV, IMPLICIT, OPTIONAL, BuildGraph

from .packages import WORKSPACE_PROTOCOL, PackageGraphAdapter, resolve_path

if TYPE_CHECKING:  # pragma: no cover
    from .workspace import JsPackage, JsWorkspace

TURBO_JSON = "turbo.json"
ROOT_ID = "//"
QUERY = "{ packages { items { name path directDependencies { items { name } } } } }"


def turbo_env() -> dict[str, str]:
    """Environment for turbo calls: no telemetry banner or file, no update check, no daemon,
    and its cache outside the repo (turbo creates ``.turbo/cache`` even for a query).

    A function, not a constant, so that importing the adapter (every warm run, which
    never calls turbo) does not import ``tempfile`` (and ``random``) for the directory.
    """
    import tempfile

    return {
        "TURBO_TELEMETRY_DISABLED": "1",
        "DO_NOT_TRACK": "1",
        "TURBO_NO_UPDATE_NOTIFIER": "1",
        "TURBO_DAEMON": "false",
        "TURBO_CACHE_DIR": str(Path(tempfile.gettempdir()) / "ctxsel-turbo-cache"),
    }


def turbo_tasks(config: dict[str, Any]) -> dict[str, Any]:
    """The task definitions of a turbo.json: v2 ``tasks`` or v1 ``pipeline``."""
    tasks = config.get("tasks", config.get("pipeline"))
    return tasks if isinstance(tasks, dict) else {}


#: package.json fields turbo 2 parses with a type: a value of another type (``null`` too) makes
#: every turbo command fail with "Unable to parse package.json" (measured)
TYPED_STRING_FIELDS = ("name", "version", "packageManager")
TYPED_MAP_FIELDS = (
    "scripts", "dependencies", "devDependencies", "optionalDependencies", "peerDependencies", "resolutions",
)


def manifest_problem(manifest: dict[str, Any], is_root: bool) -> str | None:
    """Why turbo refuses this package.json, or None when it reads it."""
    for key in TYPED_STRING_FIELDS:
        if key in manifest and not isinstance(manifest[key], str):
            return f"turbo expects {key!r} to be a string"
    for key in TYPED_MAP_FIELDS:
        if key in manifest:
            value = manifest[key]
            if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
                return f"turbo expects {key!r} to map names to strings"
    if not is_root and manifest.get("name") == "":
        return "turbo requires a non-empty 'name' (a missing name leaves the package out)"
    return None


def turbo_workspace_target(
    pkg: JsPackage, dep_name: str, spec: str, names: dict[str, list[JsPackage]], dirs: dict[str, JsPackage]
) -> JsPackage | None:
    """Where turbo 2 links a ``workspace:`` spec (measured):

    - ``workspace:../dir`` -- the package in that directory;
    - ``workspace:<alias>@<range>`` (split at the *last* ``@``) -- the package named
      ``alias`` when ``version_links`` accepts the range: ``workspace:@p/a@^9`` on 1.0.0 is
      no edge, nor are ``workspace:@p/a@`` and ``workspace:@p/a`` (an empty alias);
    - anything else (``*``, ``^9``, ``latest``) -- the package named ``dep_name``,
      whatever the range.
    """
    rest = spec[len(WORKSPACE_PROTOCOL):]
    if rest.startswith((".", "/")):
        return dirs.get(resolve_path(pkg, rest))
    if "@" in rest:
        alias, _, wanted = rest.rpartition("@")
        found = names.get(alias)
        return found[0] if found and wanted and version_links(found[0].version, wanted) else None
    found = names.get(dep_name)
    return found[0] if found else None


def version_links(version: str | None, wanted: str) -> bool:
    """Does a plain (or ``npm:``) spec ``wanted`` link to a workspace package at ``version``?

    turbo 2, measured: ``*`` always links (prereleases too); a package without a version
    (or with ``""``) links for nothing else; otherwise the range must be satisfied --
    unless either side is not semver (``latest``, ``1.0``), which turbo counts as a link.
    """
    if wanted == "*":
        return True
    if not version:
        return False
    from . import semver  # only while building a graph (see ``packages``)

    ok = semver.satisfies(version, wanted)
    return ok is None or ok


class TurboAdapter(PackageGraphAdapter):
    name: ClassVar[str] = "turbo"
    tools: ClassVar[tuple[str, ...]] = ("turbo",)
    edge_fields: ClassVar[tuple[tuple[str, str], ...]] = (
        ("devDependencies", DEV),
        ("optionalDependencies", OPTIONAL),
        ("dependencies", DEP),
    )

    negation_rule: ClassVar[str] = "turbo"

    def __init__(self, root: Path, options: AdapterOptions | None = None) -> None:
        super().__init__(root, options)
        self.link_workspace_packages = True
        self.root_tasks: dict[str, Any] = {}
        self.package_tasks: dict[str, dict[str, Any]] = {}

    @classmethod
    def detect(cls, root: Path) -> bool:
        return (root / TURBO_JSON).is_file() and (root / "package.json").is_file()

    # ------------------------------------------------------------ graph
    def workspace(self, tracker: InputTracker) -> JsWorkspace:
        """turbo leaves out a package without a ``name`` (``turbo ls`` does not list it, measured),
        and refuses to run at all on a package.json whose known fields have the wrong type."""
        ws = super().workspace(tracker)
        for pkg in ws.packages:
            problem = manifest_problem(pkg.manifest, pkg.is_root)
            if problem:
                where = f"{pkg.dir}/package.json" if pkg.dir else "package.json"
                raise ParseError(problem, Location(where))
        unnamed = [p for p in ws.packages if not p.name and not p.is_root]
        if unnamed:
            ws.packages = [p for p in ws.packages if p.name or p.is_root]
            ws.warnings.append("turbo ignores packages without a name: " + ", ".join(p.dir for p in unnamed))
        from .workspace import require_unique_names

        # turbo 2 stops ("Failed to add workspace ... it already exists", measured); the root is ``//``
        require_unique_names(ws, "turbo needs unique package names")
        return ws

    def prepare(self, ws: JsWorkspace, tracker: InputTracker) -> None:
        from .workspace import read_jsonc  # only while building a graph (see ``packages``)

        config = read_jsonc(self.root / TURBO_JSON, tracker)
        self.root_tasks = turbo_tasks(config)
        if "pipeline" in config:
            # read as v1 tasks on purpose (a turbo 1 repo), but turbo 2 refuses the file (measured)
            self.warn(f'{TURBO_JSON}: turbo 2 refuses "pipeline" (renamed "tasks" in 2.0); read as turbo 1 tasks')
        self.package_tasks = {}
        for pkg in ws.packages:
            own = self.root / pkg.dir / TURBO_JSON
            if pkg.dir and tracker.exists(own):
                config = read_jsonc(own, tracker)
                if "extends" not in config:
                    # turbo 2 stops every command here ('No "extends" key found', measured); a
                    # warning rather than an error, so the answer still shows what the file means
                    self.warn(f'{pkg.dir}/{TURBO_JSON}: turbo refuses a package turbo.json without "extends": ["//"]')
                self.package_tasks[pkg.dir] = turbo_tasks(config)
        if ws.manager != "pnpm":
            self.link_workspace_packages = True
            return
        npmrc = self.root / ".npmrc"
        from_npmrc = False
        if tracker.exists(npmrc):
            for line in tracker.read_text(npmrc).splitlines():
                key, _, value = line.partition("=")
                if key.strip() == "link-workspace-packages":
                    from_npmrc = value.strip().lower() in ("true", "deep")
        from_yaml = ws.settings.get("linkWorkspacePackages") in (True, "true", "deep")
        self.link_workspace_packages = from_npmrc or from_yaml

    def warn(self, text: str) -> None:
        """A warning carried with the graph (so a cache hit prints it too), once."""
        if text not in self.warnings:
            self.warnings.append(text)

    def assign_ids(self, ws: JsWorkspace) -> dict[str, str]:
        ids = super().assign_ids(ws)
        ids[""] = ROOT_ID
        return ids

    def link_target(
        self, pkg: JsPackage, dep_name: str, spec: str, names: dict[str, list[JsPackage]], dirs: dict[str, JsPackage]
    ) -> JsPackage | None:
        if spec.startswith(WORKSPACE_PROTOCOL):
            return turbo_workspace_target(pkg, dep_name, spec, names, dirs)
        if not self.link_workspace_packages:
            return None
        protocol, sep, rest = spec.partition(":")
        if sep and protocol in ("file", "link"):
            # turbo 2 links the package the dependency *names*, wherever the path points
            # (``"@p/a": "link:../b"`` is an edge to @p/a, ``link:`` alone too; measured)
            found = names.get(dep_name)
            return found[0] if found else None
        if sep and protocol != "npm":
            return None
        wanted = rest if sep else spec
        found = names.get(dep_name)
        if not found:
            return None
        return found[0] if version_links(found[0].version, wanted) else None

    def finish(self, graph: BuildGraph, ws: JsWorkspace, ids: dict[str, str]) -> None:
        for pkg in ws.packages:
            nid = ids[pkg.dir]
            if not pkg.is_root and not graph.dependencies(nid):
                graph.add_edge(nid, ROOT_ID, IMPLICIT)

    def has_test(self, pkg: JsPackage) -> bool:
        """``scripts.test`` plus a ``test`` task; the root (``//``) runs one only as ``//#test``."""
        if "test" not in pkg.scripts:
            return False
        if pkg.is_root:
            return f"{ROOT_ID}#test" in self.root_tasks
        own = self.package_tasks.get(pkg.dir, {})
        if own.get("test") == {"extends": False}:
            return False  # the package opts out of the root's task (turbo 2.11, measured)
        return "test" in own or "test" in self.root_tasks or f"{pkg.name}#test" in self.root_tasks

    # ------------------------------------------------------------ tool mode
    def load_tool(self, tracker: InputTracker) -> BuildGraph:
        """The whole package graph from one ``turbo query`` call.

        turbo's answer decides the packages and the edges (``//`` included); scripts and
        turbo.json tasks, which decide the test nodes, are read from the manifests,
        which also stamps them for the graph cache.
        """
        from .workspace import JsWorkspace

        out = self.tool_output(["query", QUERY], turbo_env())
        data = self.parse_tool_json(out, "turbo query")
        try:
            items = data["data"]["packages"]["items"]
        except (KeyError, TypeError):
            errors = data.get("errors") if isinstance(data, dict) else None
            raise ToolError(f"turbo query returned no packages: {errors or str(data)[:200]}") from None
        static = self.workspace(tracker)
        by_dir = static.by_dir()
        tool_dirs = {str(item.get("path", "")).strip("/") for item in items}
        packages = [p for p in static.packages if p.dir in tool_dirs]
        for d in sorted(tool_dirs - set(by_dir)):
            self.warnings.append(f"turbo lists {d or '.'} but the workspace globs do not match it")
        ws = JsWorkspace(self.root, static.manager, static.globs, packages, static.settings, static.warnings)
        graph = self.build_graph(ws, tracker, edges=False)
        ids = self.assign_ids(ws)
        # turbo names packages by name and the root "//"; map both to our node ids by path
        id_of_name = {
            str(item.get("name")): ids.get(str(item.get("path", "")).strip("/")) for item in items
        }
        for item in items:
            src = id_of_name.get(str(item.get("name")))
            for dep in (item.get("directDependencies") or {}).get("items", []):
                dst = id_of_name.get(str(dep.get("name")))
                if src and dst and src != dst:
                    graph.add_edge(src, dst, IMPLICIT if dst == ROOT_ID else DEP)
        return graph

    # ------------------------------------------------------------ answers
    def reportable(self, graph: BuildGraph, node_id: str) -> bool:
        return node_id != ROOT_ID and super().reportable(graph, node_id)

    def test_nodes(self, graph: BuildGraph, ids: Iterable[str]) -> list[str]:
        """The packages' tests, and ``//#test`` when ``//`` is a dependent too.

        ``//`` is never reported in a blast radius (``turbo ls`` hides it), but
        ``turbo run test --filter=...X`` runs ``//#test`` when the root depends on X
        (measured). ``ids`` lacks ``//``, so it is a dependent exactly when one of the
        root's own dependencies is among ``ids``.
        """
        ids = set(ids)
        tests = super().test_nodes(graph, ids)
        if ROOT_ID in graph and graph.node(ROOT_ID).is_test and ids & set(graph.dependencies(ROOT_ID)):
            tests = sorted([*tests, ROOT_ID])
        return tests

    def blast_radius(self, graph: BuildGraph, roots: Iterable[str], depth: int | None = None) -> dict[str, int]:
        """``turbo ls --filter=...//`` selects nothing, so a change owned by ``//`` (a root
        file) reaches no package; turbo.json and ``globalDependencies`` are global files."""
        return graph.rdeps([r for r in roots if r != ROOT_ID], depth)

    def nodes_for_changed_file(self, graph: BuildGraph, path: str) -> list[str]:
        """A changed file outside every package (root README, tsconfig, package.json)
        marks nothing in turbo (``--filter=...[ref]``, measured); turbo.json and
        ``globalDependencies`` are handled as global files before this is asked."""
        return [n for n in self.nodes_for_file(graph, path) if n != ROOT_ID]

    def test_command(self, tests: list[str]) -> list[str]:
        return ["turbo", "run", "test", *(f"--filter={t}" for t in tests)]

    def global_files(self) -> tuple[str, ...]:
        """turbo.json and its ``globalDependencies`` globs: turbo marks every package when they change."""
        import json

        from .workspace import strip_jsonc

        try:
            config = json.loads(strip_jsonc((self.root / TURBO_JSON).read_text(encoding="utf-8")))
        except (OSError, ValueError):
            return (TURBO_JSON,)
        deps = config.get("globalDependencies") if isinstance(config, dict) else None
        extra = tuple(str(p).removeprefix("./") for p in deps) if isinstance(deps, list) else ()
        return (TURBO_JSON, *extra)
