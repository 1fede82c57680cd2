"""pnpm workspaces, answering like ``pnpm --filter '...X'`` (pnpm 12).

Linking rules, each measured against pnpm 12.4.2 (tests/test_js_pnpm.py re-checks them):

- ``dependencies``, ``devDependencies``, ``optionalDependencies`` and ``peerDependencies``
  are all edges (peers because ``autoInstallPeers`` links them).
- ``workspace:*``, ``workspace:^``, ``workspace:~`` link to the package of that name;
  ``workspace:<range>`` only when its version satisfies the range (``workspace:^2.0.0``
  on a 1.0.0 package is no edge); ``workspace:@scope/name@*`` aliases and
  ``workspace:../dir`` paths link too; ``link:``/``file:`` paths to a workspace directory link.
- A plain range (``^1.0.0``) on a workspace name links only with
  ``linkWorkspacePackages: true`` in ``pnpm-workspace.yaml`` -- pnpm 12 ignores
  ``link-workspace-packages`` in ``.npmrc`` (measured) -- and then only when satisfied;
  tags (``latest``) and ``npm:`` aliases never link.
- Two packages with one name: a dependency links to the highest version satisfying it.
- A ``version`` pnpm cannot parse (``1.0``, ``=1.0.0``) links for no spec; a missing one
  for every ``workspace:`` spec but no plain range (``packages.highest``).
- The root package is a project: ``--filter '...X'`` lists it when it depends on X
  (without a root package.json there is no root project, as in pnpm).
- ``AdapterOptions(extra={"prod": "1"})`` drops devDependencies edges, like
  ``--filter-prod``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from ctxsel.adapters.base import AdapterOptions
from ctxsel.cache import InputTracker
from ctxsel.errors import Location, ParseError, ToolError
from ctxsel.graph import BuildGraph

from . import PNPM_WORKSPACE
from .packages import WORKSPACE_PROTOCOL, PackageGraphAdapter, highest, resolve_path, workspace_target

if TYPE_CHECKING:  # pragma: no cover
    from .workspace import JsPackage, JsWorkspace

#: environment for pnpm calls: never resolve the ``packageManager`` pnpm from the registry
#: (pnpm 12 would otherwise hang ~70 s offline and write a lockfile into the repo)
PNPM_ENV = {"pnpm_config_pm_on_fail": "ignore", "pnpm_config_update_notifier": "false"}


class PnpmAdapter(PackageGraphAdapter):
    name: ClassVar[str] = "pnpm"
    tools: ClassVar[tuple[str, ...]] = ("pnpm",)
    #: ``--filter '...[ref]'`` reads ``git diff``, which shows a moved file at its new path only
    rename_counts_old_path: ClassVar[bool] = False
    #: pnpm also takes a ``package.yaml`` project (``workspace.PNPM_MANIFESTS``)
    manifest_files: ClassVar[tuple[str, ...]] = ("package.json", "package.yaml")
    negation_rule: ClassVar[str] = "pnpm"
    root_answers_to_name: ClassVar[bool] = True

    def __init__(self, root: Path, options: AdapterOptions | None = None) -> None:
        super().__init__(root, options)
        self.link_workspace_packages = False

    @classmethod
    def detect(cls, root: Path) -> bool:
        return (root / PNPM_WORKSPACE).is_file()

    def prepare(self, ws: JsWorkspace, tracker: InputTracker) -> None:
        """``linkWorkspacePackages``: ``true``/``"deep"`` link plain ranges; pnpm 12 refuses any
        other value but ``null`` (``'true'``, ``1``: "expected true, false, or "deep"",
        measured), so ctxsel does too."""
        value = ws.settings.get("linkWorkspacePackages")
        if not (value is None or isinstance(value, bool) or value == "deep"):  # null: unset, as in pnpm
            raise ParseError(
                f"linkWorkspacePackages must be true, false or \"deep\", not {value!r}", Location(PNPM_WORKSPACE)
            )
        self.link_workspace_packages = value in (True, "deep")

    def link_target(
        self, pkg: JsPackage, dep_name: str, spec: str, names: dict[str, list[JsPackage]], dirs: dict[str, JsPackage]
    ) -> JsPackage | None:
        if spec.startswith(WORKSPACE_PROTOCOL):
            return workspace_target(pkg, dep_name, spec, names, dirs)
        if spec.startswith(("link:", "file:")):
            return dirs.get(resolve_path(pkg, spec.split(":", 1)[1]))
        from . import semver  # only while building a graph (see ``packages``)

        if not self.link_workspace_packages or ":" in spec or semver.parse_range(spec) is None:
            return None
        return highest(names.get(dep_name, ()), spec, plain=True)

    # ------------------------------------------------------------ tool mode
    def load_tool(self, tracker: InputTracker) -> BuildGraph:
        """Projects from ``pnpm ls -r --json --depth -1``; edges from their manifests.

        pnpm prints a project's dependencies only after an install (``--depth 0`` reads
        node_modules), and the only offline alternative writes ``pnpm-lock.yaml`` into the
        repo. So the tool decides *which* projects exist (globs, negations, the root) and
        the edges come from those projects' package.json files with pnpm's linking rules
        above. Static discovery also runs, to keep the cache's file stamps and to warn
        when pnpm sees a different set of projects than ctxsel's glob reading does.
        """
        from .workspace import JsWorkspace, discover, read_package

        out = self.tool_output(["ls", "-r", "--json", "--depth", "-1"], PNPM_ENV)
        listed = self.parse_tool_json(out, "pnpm ls")
        if not isinstance(listed, list):
            raise ToolError(f"pnpm ls printed {type(listed).__name__}, expected a list of projects")
        static = discover(self.root, tracker, self.negation_rule, self.manifest_files)
        root = self.root.resolve()
        dirs: set[str] = set()
        for project in listed:
            path = Path(str(project.get("path", ""))).resolve()
            try:
                rel = path.relative_to(root).as_posix()
            except ValueError:
                continue
            dirs.add("" if rel == "." else rel)
        known = {p.dir for p in static.packages}
        for missing in sorted(dirs - known):
            self.warnings.append(f"pnpm lists {missing or '.'} but the workspace globs do not match it")
        for extra in sorted(known - dirs):
            self.warnings.append(f"the workspace globs match {extra or '.'} but pnpm does not list it")
        by_dir = static.by_dir()
        packages = [
            by_dir.get(d) or read_package(self.root, d, tracker, is_root=(d == ""), manifests=self.manifest_files)
            for d in sorted(dirs)
        ]
        packages.sort(key=lambda p: (not p.is_root, p.dir))
        ws = JsWorkspace(self.root, "pnpm", static.globs, packages, static.settings, static.warnings)
        return self.build_graph(ws, tracker)

    def manifest_patterns(self) -> tuple[str, ...]:
        return (*super().manifest_patterns(), "package.yaml")

    # ------------------------------------------------------------ answers
    def test_command(self, tests: list[str]) -> list[str]:
        argv = ["pnpm"]
        for t in tests:
            argv += ["--filter", t]
        return argv + ["test"]

    def global_files(self) -> tuple[str, ...]:
        """None: pnpm has no files that affect every project.

        ``pnpm --filter '...[ref]'`` maps a changed root-level file (README, tsconfig,
        pnpm-workspace.yaml, pnpm-lock.yaml, the root package.json) to the root project
        only, which longest-prefix file matching already does (the root owns "").
        """
        return ()


__all__ = ["PnpmAdapter"]
