"""Turborepo, answering like ``turbo ls --filter=...X`` and ``turbo run test`` (turbo 2).

Turborepo builds its own package graph on top of the package manager's workspace, with
rules that differ from pnpm's (each measured against turbo 2.11.11):

- ``peerDependencies`` are not edges; the other three dependency fields are.
- ``workspace:`` specs always link, *whatever the range* (``workspace:^2.0.0`` on a
  1.0.0 package links -- pnpm would not); aliases and ``workspace:../dir`` paths too.
- Everything else links only when the workspace "links workspace packages": always
  for npm/yarn/bun, for pnpm only with ``link-workspace-packages=true`` in ``.npmrc`` or
  ``linkWorkspacePackages`` in pnpm-workspace.yaml (turbo reads both; pnpm 12 only the
  latter). Then ``link:``/``file:`` paths to a workspace dir link, and a name link
  when the version satisfies the range -- or when either side is not semver (``latest``
  links, measured), and ``npm:<range>`` is read as its range.
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
from ctxsel.errors import ToolError
from ctxsel.graph import DEP, DEV, IMPLICIT, OPTIONAL, BuildGraph

from .packages import WORKSPACE_PROTOCOL, PackageGraphAdapter, resolve_path, workspace_target

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
        """turbo leaves out a package without a ``name`` (``turbo ls`` does not list it, measured)."""
        ws = super().workspace(tracker)
        unnamed = [p for p in ws.packages if not p.name and not p.is_root]
        if unnamed:
            ws.packages = [p for p in ws.packages if p.name or p.is_root]
            ws.warnings.append("turbo ignores packages without a name: " + ", ".join(p.dir for p in unnamed))
        return ws

    def prepare(self, ws: JsWorkspace, tracker: InputTracker) -> None:
        from .workspace import read_jsonc  # only while building a graph (see ``packages``)

        self.root_tasks = turbo_tasks(read_jsonc(self.root / TURBO_JSON, tracker))
        self.package_tasks = {}
        for pkg in ws.packages:
            own = self.root / pkg.dir / TURBO_JSON
            if pkg.dir and tracker.exists(own):
                self.package_tasks[pkg.dir] = turbo_tasks(read_jsonc(own, tracker))
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

    def assign_ids(self, ws: JsWorkspace) -> dict[str, str]:
        ids = super().assign_ids(ws)
        ids[""] = ROOT_ID
        return ids

    def link_target(
        self, pkg: JsPackage, dep_name: str, spec: str, names: dict[str, list[JsPackage]], dirs: dict[str, JsPackage]
    ) -> JsPackage | None:
        if spec.startswith(WORKSPACE_PROTOCOL):
            return workspace_target(pkg, dep_name, spec, names, dirs, check_range=False)
        if not self.link_workspace_packages:
            return None
        protocol, sep, rest = spec.partition(":")
        if sep and protocol in ("file", "link"):
            return dirs.get(resolve_path(pkg, rest))
        if sep and protocol != "npm":
            return None
        wanted = rest if sep else spec
        found = names.get(dep_name)
        if not found:
            return None
        target = found[0]
        from . import semver  # only while building a graph (see ``packages``)

        ok = semver.satisfies(target.version or "", wanted)
        return target if ok is None or ok else None

    def finish(self, graph: BuildGraph, ws: JsWorkspace, ids: dict[str, str]) -> None:
        for pkg in ws.packages:
            nid = ids[pkg.dir]
            if not pkg.is_root and not graph.dependencies(nid):
                graph.add_edge(nid, ROOT_ID, IMPLICIT)

    def has_test(self, pkg: JsPackage) -> bool:
        if pkg.is_root or "test" not in pkg.scripts:
            return False
        if "test" in self.root_tasks or f"{pkg.name}#test" in self.root_tasks:
            return True
        return "test" in self.package_tasks.get(pkg.dir, {})

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
