"""Yarn workspaces: yarn 1 (classic) and yarn 2+ ("berry"), read the way each yarn reads them.

Both yarns print their workspace graph: ``yarn workspaces info`` (yarn 1) and ``yarn
workspaces list -v --json`` (berry) list each workspace's ``workspaceDependencies``, and
berry's ``--since``/``-R`` and ``foreach`` walk exactly those edges. Static mode reproduces
those lists (measured with yarn 1.22.22 and @yarnpkg/cli-dist 4.18.1 by randomized
differential testing, rules read in their sources):

yarn 1 (``Config.resolveWorkspaces`` and ``workspaces info``)
  - workspaces are the root globs' directories with a package.json *with a name and a
    version* (others are ignored with a warning); ``!negations`` are ignored (node-glob);
    the root must be ``private`` (else yarn stops); nested ``workspaces`` fields are not read;
  - an edge where ``dependencies``, ``devDependencies`` or ``optionalDependencies`` (never
    ``peerDependencies``) name a workspace with a range its version satisfies; a spec that
    is no semver range (``workspace:*``, ``link:``, ``file:``, ``latest``) is "mismatched",
    no edge; a version yarn cannot parse (``1.0``) makes it stop ("Invalid Version").
    The root is no workspace for ``workspaces info``; its dependencies follow the same rule.

berry (``Project.tryWorkspaceByDescriptor``, ``Workspace.accepts``)
  - the root is a workspace; each workspace's own ``workspaces`` globs add nested ones;
    a ``!negation`` removes its matches whatever its position; unnamed workspaces count;
  - an edge where ``dependencies`` (``optionalDependencies`` merged in, winning a shared
    name) or ``devDependencies`` name a workspace that accepts the range:
    ``workspace:*``/``^``/``~``, ``workspace:<its path from the root>`` (whatever the name),
    ``workspace:<range>`` (a missing version is 0.0.0), or -- with
    ``enableTransparentWorkspaces`` (the default) -- a plain range its version satisfies;
  - ``--since REF``: files changed since the merge-base (working tree and untracked files
    included) belong to the deepest workspace holding them, the root's included; yarn.lock
    and yarn's install files (``.pnp.cjs``, ``.yarn/install-state.gz``; ``.yarn/cache`` only
    without a global cache) change nothing.

yarn 2 and 3 (``BerryRules``; measured with @yarnpkg/cli-dist 2.4.2 and 3.8.7) differ from 4 in
three places: a ``!negation`` drops only what patterns *before* it matched (globby); a
dependency's workspace is found by name only, so ``workspace:<path>`` links no other name;
and yarn 2 has no ``workspace:^``/``workspace:~``. A berry repo that pins no version gets 4's.

Which yarn runs a repository (``yarn_is_berry``): ``packageManager: yarn@N`` (corepack;
yarn 1 refuses any other), then the release ``yarnPath`` names, then the lockfile format,
then a ``.yarnrc.yml``; yarn 1 otherwise.

Tool mode (``--source tool``) runs that yarn: the repo's ``yarnPath`` release with node
when there is one, else ``yarn`` on PATH, whose major version must match the repo's.
``auto`` never runs yarn: static mode answers as both yarns do on every differential test,
a yarn on PATH is often another major than the repo's (yarn 1 refuses a repo pinning
yarn 4; corepack may go to the network to fetch the pinned one), and a cold yarn costs
0.2-1 s.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import shlex
import shutil
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar, Iterator, Sequence

from ctxsel.adapters.base import DEFAULT_TARGETS
from ctxsel.cache import InputTracker
from ctxsel.errors import Location, ParseError, ToolError
from ctxsel.graph import DEP, DEV, OPTIONAL, BuildGraph
from ctxsel.paths import read_text

from . import semver
from .npm import _declares_workspaces
from .packages import PackageGraphAdapter, dir_selector
from .workspace import (
    MANIFEST,
    PNPM_WORKSPACE,
    JsPackage,
    JsWorkspace,
    detect_manager,
    expand_berry_globs,
    expand_globs,
    key_line,
    read_package,
    require_unique_names,
    root_manifest,
    yarn_is_berry,
    yarn_major,
    yarn_release,
    yarnrc_settings,
)

#: how a package named by its directory starts (``dir_selector``)
DIR_PREFIX = dir_selector("x").removesuffix("x")
#: dependency fields each yarn links workspaces through (peers never), in the order an
#: edge's type is named; berry reads ``optionalDependencies`` into ``dependencies``
YARN_FIELDS: tuple[tuple[str, str], ...] = (("dependencies", DEP), ("optionalDependencies", OPTIONAL), ("devDependencies", DEV))
WORKSPACE = "workspace:"
_GLOB_MAGIC = re.compile(r"[*?\[\]{}()!]")
#: path prefixes berry's ``--since`` never maps to a workspace (``gitUtils.fetchChangedWorkspaces``:
#: the lockfile, installStatePath, virtualFolder and the PnP files; their settings and defaults)
BERRY_INSTALL_FILES = (("", "yarn.lock"), ("installStatePath", "./.yarn/install-state.gz"),
                       ("virtualFolder", "./.yarn/__virtual__"), ("pnpUnpluggedFolder", "./.yarn/unplugged"),
                       ("", ".pnp.cjs"), ("", ".pnp.data.json"), ("", ".pnp.loader.mjs"))
YARN_ENV = {"YARN_ENABLE_TELEMETRY": "0", "YARN_ENABLE_PROGRESS_BARS": "false", "YARN_IGNORE_PATH": "1",
            "SKIP_YARN_COREPACK_CHECK": "1", "COREPACK_ENABLE_NETWORK": "0", "COREPACK_ENABLE_DOWNLOAD_PROMPT": "0"}

# node-semver's strict ``SemVer`` (no ``loose``): one optional ``v``, no leading zeros
_NUM = r"(?:0|[1-9]\d*)"
_PRE_ID = rf"(?:{_NUM}|\d*[A-Za-z-][0-9A-Za-z-]*)"
_STRICT = re.compile(rf"v?({_NUM})\.({_NUM})\.({_NUM})(?:-({_PRE_ID}(?:\.{_PRE_ID})*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?")


def strict_version(text: Any) -> semver.Version | None:
    """A version as ``new SemVer(text)`` reads it (both yarns' semver, not loose), or None."""
    if not isinstance(text, str):
        return None
    m = _STRICT.fullmatch(text.strip())
    if not m:
        return None
    pre = tuple(int(p) if p.isdigit() else p for p in m.group(4).split(".")) if m.group(4) else ()
    return (int(m.group(1)), int(m.group(2)), int(m.group(3)), pre)


def valid_range(text: str) -> bool:
    """``new Range(text)`` succeeds: a semver range (berry's ``validRange`` also refuses any ``:``)."""
    return ":" not in text and semver.parse_range(text) is not None


def range_test(version: Any, range_text: str) -> bool:
    """semver's ``Range.test``: False for an empty or unparsable version (berry's behaviour)."""
    v = strict_version(version) if version else None
    return v is not None and bool(semver.satisfies_version(v, range_text))


class YarnAdapter(PackageGraphAdapter):
    name: ClassVar[str] = "yarn"
    tools: ClassVar[tuple[str, ...]] = ("yarn",)
    #: berry's ``--since`` reads ``git diff --name-only`` (plus untracked files), which names a
    #: moved file at its new path only, and maps each path through the working tree's
    #: workspaces: the workspace a file moved out of is no change, nor are the workspaces
    #: that still declare a deleted one (4.18.1 and 3.8.7, measured; 2.4.2 has no
    #: ``--since``). yarn 1 has no change query; it is read the same way.
    rename_counts_old_path: ClassVar[bool] = False
    removed_owner_changes_dependents: ClassVar[bool] = False

    @classmethod
    def detect(cls, root: Path) -> bool:
        if (root / PNPM_WORKSPACE).is_file() or not _declares_workspaces(root):
            return False
        return detect_manager(root) == "yarn"

    @cached_property
    def berry(self) -> bool:
        """Whether yarn 2+ runs this repo (``yarn_is_berry``), read once per run."""
        return yarn_is_berry(self.root)

    @cached_property
    def rules(self) -> "BerryRules":
        """The berry major's rules; the newest (4) when the repo pins no version (``yarn_major``)."""
        return BerryRules.of(yarn_major(self.root) or 4)

    def manifest_patterns(self) -> tuple[str, ...]:
        return ("package.json", ".yarnrc.yml", ".yarnrc", "yarn.lock")

    # ------------------------------------------------------------ workspaces
    def workspace(self, tracker: InputTracker) -> JsWorkspace:
        """The root package and the packages this yarn calls workspaces (module docstring)."""
        for name in ("yarn.lock", ".yarnrc.yml", ".yarnrc"):  # which yarn runs (``yarn_is_berry``) reads them
            tracker.note(self.root / name)
        root_pkg = read_package(self.root, "", tracker, is_root=True)
        declared = root_pkg.manifest.get("workspaces")
        warnings: list[str] = []
        if self.berry:
            dirs = self._berry_dirs(root_pkg, tracker, warnings)
        else:
            if declared is not None and not yarn1_workspace_root(declared):
                line = key_line(tracker.read_text(self.root / MANIFEST), "workspaces")
                warnings.append(f"{MANIFEST}:{line}: yarn 1 reads no workspaces here (\"workspaces\" has no \"packages\" "
                                "list), so `yarn workspace NAME` fails: only the root package")
            globs = [g for g in _globs(declared) if not g.startswith("!")]  # node-glob: a negation matches nothing
            if globs and not _truthy(root_pkg.manifest.get("private")):
                raise ParseError("yarn 1 enables workspaces only in a private project: add \"private\": true",
                                 Location("package.json"))
            dirs = expand_globs(self.root, globs, tracker, warnings, "package.json", "yarn1", follow_links=True)
        packages = [root_pkg]
        for rel in sorted(d for d in dirs if d):
            pkg = read_package(self.root, rel, tracker)
            if not self.berry and not (_truthy(pkg.manifest.get("name")) and _truthy(pkg.manifest.get("version"))):
                what = "name" if not _truthy(pkg.manifest.get("name")) else "version"
                warnings.append(f"{rel}/package.json: yarn 1 ignores a workspace without a {what}")
                continue
            packages.append(pkg)
        ws = JsWorkspace(self.root, "yarn", _globs(declared), packages, warnings=warnings)
        require_unique_names(ws, "yarn needs unique workspace names")
        if self.berry and root_pkg.name and root_pkg.name in {p.name for p in packages[1:]}:
            other = next(p for p in packages[1:] if p.name == root_pkg.name)
            raise ParseError(f"yarn needs unique workspace names, and {root_pkg.name!r} is the root's and {other.dir}'s",
                             Location(f"{other.dir}/package.json"))
        return ws

    def _berry_dirs(self, root_pkg: JsPackage, tracker: InputTracker, warnings: list[str]) -> set[str]:
        """Berry's workspaces: each workspace's globs, from its own directory, nested ones included."""
        found: set[str] = set()
        queue = [("", root_pkg.manifest)]
        while queue:
            base, manifest = queue.pop()
            source = f"{base}/package.json" if base else "package.json"
            for rel in expand_berry_globs(self.root / base if base else self.root, _globs(manifest.get("workspaces")),
                                          tracker, warnings, source, ordered_negations=self.rules.ordered_negations):
                full = posixpath.join(base, rel) if base else rel
                if full and full not in found and not _under_yarn_dir(full):
                    found.add(full)
                    queue.append((full, read_package(self.root, full, tracker).manifest))
        return found

    # ------------------------------------------------------------ edges
    def load_static(self, tracker: InputTracker) -> BuildGraph:
        ws = self.workspace(tracker)
        graph = self.build_graph(ws, tracker, edges=False)
        ids = self.assign_ids(ws)
        for pkg in ws.packages:
            for target, edge_type in self.links(pkg, ws, tracker):
                graph.add_edge(ids[pkg.dir], ids[target.dir], edge_type)
        return graph

    def links(self, pkg: JsPackage, ws: JsWorkspace, tracker: InputTracker) -> Iterator[tuple[JsPackage, str]]:
        """(workspace, edge type) for each dependency of ``pkg`` this yarn resolves to a workspace."""
        names = {p.name: p for p in ws.packages if p.name and (self.berry or not p.is_root)}
        dirs = ws.by_dir()
        transparent = self._transparent(tracker) if self.berry else True
        for edge_type, dep_name, spec in self._entries(pkg):
            if self.berry:
                target = _berry_target(dep_name, spec, names, dirs, transparent, self.rules)
            else:
                target = _classic_target(pkg, dep_name, spec, names)
            if target is not None and target.dir != pkg.dir:
                yield target, edge_type

    def _entries(self, pkg: JsPackage) -> Iterator[tuple[str, str, str]]:
        """(edge type, name, spec) of each dependency this yarn reads (``--prod`` drops dev)."""
        active = {f for f, _ in self.active_fields()}

        def table(field: str, edge_type: str) -> dict[str, tuple[str, Any]]:
            declared = pkg.manifest.get(field)
            ok = isinstance(declared, dict) and field in active
            return {n: (edge_type, s) for n, s in declared.items()} if ok else {}  # type: ignore[union-attr]

        deps, optional, dev = (table(f, t) for f, t in YARN_FIELDS)
        if self.berry:
            yield from _specs([{**deps, **optional}, dev])
            return
        # yarn 1's manifest normalisation (``cleanDependencies``): a name stays in the first of
        # optional, dependencies, dev that declares it, with the first spec other than "" and "*"
        tables = [optional, deps, dev]
        chosen: dict[str, Any] = {}
        for entries in tables:
            for dep_name, (_, spec) in entries.items():
                if dep_name not in chosen and spec and spec != "*":
                    chosen[dep_name] = spec
        seen: set[str] = set()
        for entries in tables:
            kept = {n: (t, chosen.get(n, s)) for n, (t, s) in entries.items() if n not in seen}
            seen.update(kept)
            yield from _specs([kept])

    def _transparent(self, tracker: InputTracker) -> bool:
        """berry's ``enableTransparentWorkspaces`` (.yarnrc.yml, or its environment variable), default true."""
        env = os.environ.get("YARN_ENABLE_TRANSPARENT_WORKSPACES")
        if env is not None:
            return env.strip().lower() in ("1", "true")
        value = yarnrc_settings(self.root, tracker).get("enableTransparentWorkspaces", True)
        return value is not False and str(value).lower() != "false"

    # ------------------------------------------------------------ changes
    def nodes_for_changed_file(self, graph: BuildGraph, path: str) -> list[str]:
        """berry's ``--since`` skips the lockfile and yarn's install files (``_install_files``:
        a plain prefix test, as yarn's ``startsWith``); the rest by location."""
        if self.berry and path.startswith(self._install_files):
            return []
        return super().nodes_for_changed_file(graph, path)

    @cached_property
    def _install_files(self) -> tuple[str, ...]:
        """The prefixes berry skips, from .yarnrc.yml's settings. ``.yarn/cache`` is among them only
        with ``enableGlobalCache: false`` (yarn 4's default is true, yarn 2 and 3's false:
        with a global cache, a changed ``.yarn/cache/x.zip`` changes the root, measured)."""
        settings = yarnrc_settings(self.root)
        out = [str(settings.get(key) or default) for key, default in BERRY_INSTALL_FILES]
        env = os.environ.get("YARN_ENABLE_GLOBAL_CACHE")
        global_cache = settings.get("enableGlobalCache", self.rules.global_cache)
        if env is not None:
            global_cache = env.strip().lower() in ("1", "true")
        if global_cache is False or str(global_cache).lower() == "false":
            out.append(str(settings.get("cacheFolder") or "./.yarn/cache"))
        return tuple(posixpath.normpath(p) for p in out if not os.path.isabs(p))

    # ------------------------------------------------------------ tool mode
    def resolved_source(self) -> str:
        """``auto`` is static: yarn is never run unasked (module docstring)."""
        if self.options.source == "auto" and not self.options.query_file:
            return "static"
        return super().resolved_source()

    def find_tool(self) -> str | None:
        release = self._release()
        if release is not None:
            return release
        return super().find_tool()

    def _release(self) -> str | None:
        """The repo's own yarn (``yarnPath`` in .yarnrc.yml or .yarnrc), when it exists."""
        path = yarn_release(self.root)
        if path and (self.root / path).is_file():
            return str(self.root / path)
        return None

    def _argv(self, *args: str) -> list[str]:
        tool = self.find_tool()
        assert tool is not None  # load() checked
        if tool.endswith((".js", ".cjs", ".mjs")):
            node = shutil.which("node")
            if node is None:
                raise ToolError(f"running the repo's yarn ({tool}) needs node on PATH", hint="use --source static")
            return [node, tool, *args]
        return [tool, *args]

    def load_tool(self, tracker: InputTracker) -> BuildGraph:
        """The graph from yarn itself: ``workspaces info`` (yarn 1) or ``workspaces list -v --json`` (berry).

        Workspaces and edges are yarn's; edge types come from the declaring fields. yarn 1
        does not list the root, whose edges follow its rule (module docstring).
        """
        berry = self.berry
        if not self.options.query_file:
            version = self.run_tool(self._argv("--version"), YARN_ENV).strip()
            if (version.split(".", 1)[0] not in ("0", "1")) != berry:
                want = "yarn 2 or later (berry)" if berry else "yarn 1 (classic)"
                raise ToolError(f"this repository uses {want}, and the yarn found is {version or 'unknown'}",
                                hint="run the repo's own yarn (corepack enable), or use --source static")
        args = ("workspaces", "list", "-v", "--json") if berry else ("--silent", "workspaces", "info")
        ws = self.workspace(tracker)
        try:
            text = self.options_output(args)
        except ToolError as exc:
            # yarn 1 outside a workspace root: the root package alone, as static mode says
            if berry or yarn1_workspace_root(ws.packages[0].manifest.get("workspaces")) \
                    or "Cannot find the root of your workspace" not in exc.message:
                raise
            text = "{}"
        listed = _parse_berry(text) if berry else _parse_classic(text)
        known = {p.dir for p in ws.packages}
        by_dir = {p.dir: p for p in ws.packages}
        for rel, _name in listed.items():
            if rel not in known:  # yarn found a workspace static discovery did not: read it too
                pkg = read_package(self.root, rel, tracker)
                ws.packages.append(pkg)
                by_dir[rel] = pkg
        graph = self.build_graph(ws, tracker, edges=False)
        ids = self.assign_ids(ws)
        for rel, (_name, deps) in listed.items():
            static = {}
            for target, edge_type in self.links(by_dir[rel], ws, tracker):
                static.setdefault(target.dir, set()).add(edge_type)
            for dep in deps:
                if dep in ids and dep != rel:
                    for edge_type in static.get(dep, {DEP}):
                        graph.add_edge(ids[rel], ids[dep], edge_type)
        if not berry:
            for target, edge_type in self.links(ws.packages[0], ws, tracker):
                graph.add_edge(ids[""], ids[target.dir], edge_type)
        return graph

    def options_output(self, args: tuple[str, ...]) -> str:
        """yarn's answer, or the saved answer in ``--query-file``."""
        if self.options.query_file:
            return self.tool_output([], {})
        return self.run_tool(self._argv(*args), YARN_ENV)

    # ------------------------------------------------------------ commands
    def test_command(self, tests: list[str], targets: Sequence[str] = DEFAULT_TARGETS) -> list[str]:
        """berry: ``yarn workspaces foreach --all --include <name or path> ... run test``
        (``--include`` matches a workspace's name or its path from the root, ``.`` for the
        root; a node named by its directory is passed as that path). yarn 1 has no
        multi-workspace filter: one ``yarn workspace NAME test`` per package, chained with
        ``&&``, and plain ``yarn test`` for the root. Yarn 2 and 3 have ``foreach`` only with the
        workspace-tools plugin (``_has_foreach``); without it they get yarn 1's chain, which
        berry runs the same way. Another script (``--target lint``) is run with ``run`` (``yarn
        workspace a run lint``): a script named like a yarn command (``pack``, ``info``) would
        run that command instead."""
        (target,) = targets
        script = ["test"] if target == "test" else ["run", target]
        root_id = self._root_id()
        if self._has_foreach:
            argv = ["yarn", "workspaces", "foreach", "--all"]
            for t in tests:
                argv += ["--include", "." if t == root_id else t.removeprefix("./")]
            return argv + ["run", target]
        steps: list[list[str] | str] = []
        for t in tests:
            if t == root_id:
                steps.append(["yarn", *script])
            elif t.startswith(DIR_PREFIX):  # an unnamed berry workspace: ``yarn workspace`` needs a name
                steps.append(f"(cd {shlex.quote(t.removeprefix(DIR_PREFIX))} && {shlex.join(['yarn', *script])})")
            else:
                steps.append(["yarn", "workspace", t, *script])
        if len(steps) == 1 and isinstance(steps[0], list):
            return steps[0]
        return ["sh", "-c", " && ".join(s if isinstance(s, str) else shlex.join(s) for s in steps)]

    def name_selects_itself(self, pkg: JsPackage, ws: JsWorkspace) -> bool:
        """berry's ``--include`` is a micromatch glob tried on each workspace's name *and* path,
        so a name with glob characters, or one that is another workspace's path, would select
        more than its package; such a package is named by its directory. yarn 1's
        ``yarn workspace NAME`` takes the name as it is."""
        if pkg.is_root or not self._has_foreach:
            return True
        return not _GLOB_MAGIC.search(pkg.name) and not any(p.dir == pkg.name and p is not pkg for p in ws.packages)

    @cached_property
    def _has_foreach(self) -> bool:
        """``yarn workspaces foreach`` exists: built into yarn 4; in yarn 2 and 3 only when
        .yarnrc.yml's ``plugins`` list @yarnpkg/plugin-workspace-tools (3.8.7 and 2.4.2 answer
        "Command not found" without it, measured). A text search, not YAML: this runs on the
        fast path of ``tests`` (``yarn_release``)."""
        if not self.berry:
            return False
        if self.rules.foreach_built_in:
            return True
        try:
            return "plugin-workspace-tools" in read_text(self.root / ".yarnrc.yml", errors="replace")
        except OSError:
            return False

    def _root_id(self) -> str:
        name = root_manifest(self.root).get("name")
        return name if isinstance(name, str) and name else dir_selector("")


# ---------------------------------------------------------------------- rules
def _specs(tables: list[dict[str, tuple[str, Any]]]) -> Iterator[tuple[str, str, str]]:
    """(edge type, name, spec) of each string spec in ``tables`` (name -> (edge type, spec))."""
    for entries in tables:
        for dep_name, (edge_type, spec) in entries.items():
            if isinstance(spec, str):
                yield edge_type, dep_name, spec


def _truthy(value: Any) -> bool:
    """JavaScript truthiness of a JSON value."""
    return value not in (None, False, 0, "", 0.0)


def yarn1_workspace_root(declared: Any) -> bool:
    """Whether yarn 1 takes a root with this ``workspaces`` value as a workspace root, as its
    ``extractWorkspaces`` and ``findWorkspaceRoot`` read it (yarn 1.22.22's lib/cli.js): an
    array (``[]`` too), or an object with a ``packages`` array, or with a ``nohoist`` array
    beside any truthy ``packages``. Anything else -- measured: ``{"nohoist": [...]}`` alone --
    makes a plain package: ``yarn test`` and ``yarn install`` run for the root alone, and
    ``yarn workspaces info`` and ``yarn workspace NAME`` fail with "Cannot find the root of
    your workspace"."""
    if isinstance(declared, list):
        return True
    if not isinstance(declared, dict):
        return False
    packages = declared.get("packages")
    return isinstance(packages, list) or (isinstance(declared.get("nohoist"), list) and _truthy(packages))


def _globs(declared: Any) -> list[str]:
    """The ``workspaces`` globs: a list, or yarn's ``{"packages": [...], "nohoist": [...]}``."""
    if isinstance(declared, dict):
        declared = declared.get("packages")
    return [g for g in declared if isinstance(g, str)] if isinstance(declared, list) else []


def _under_yarn_dir(rel: str) -> bool:
    """berry's workspace globs ignore ``**/.git`` and ``**/.yarn``."""
    return any(part in (".git", ".yarn") for part in rel.split("/"))


def _classic_target(pkg: JsPackage, dep_name: str, spec: str, names: dict[str, JsPackage]) -> JsPackage | None:
    """yarn 1: the workspace named ``dep_name`` when ``semver.satisfies(version, spec)``."""
    target = names.get(dep_name)
    if target is None or not valid_range(spec):
        return None
    version = target.manifest.get("version")
    # yarn 1 cleans the version loosely (``semver.clean``: `` v1.0.0`` is 1.0.0), then tests it
    parsed = semver.parse_version(version) if isinstance(version, str) else None
    if parsed is None:
        if pkg.is_root:
            return None  # the root is not in ``workspaces info``: no answer to reproduce
        raise ParseError(f"yarn 1 stops on the version {version!r} of {dep_name!r} (Invalid Version), "
                         f"which {pkg.dir}/package.json depends on", Location(f"{target.dir}/package.json"))
    return target if semver.satisfies_version(parsed, spec) else None


@dataclass(frozen=True)
class BerryRules:
    """Where yarn 2, 3 and 4 read the same ``workspaces`` and ``dependencies`` differently
    (measured with @yarnpkg/cli-dist 2.4.2, 3.8.7 and 4.18.1, rules read in their bundles)."""

    #: the ``workspace:X`` ranges any workspace accepts: ``^`` and ``~`` arrived in yarn 3
    shorthands: tuple[str, ...]
    #: ``workspace:<path>`` finds the workspace at that path whatever the dependency's name (yarn 4)
    path_lookup: bool
    #: a ``!negation`` drops only what patterns before it matched (yarn 2-3 glob with globby)
    ordered_negations: bool
    #: ``yarn workspaces foreach`` needs no plugin (yarn 4)
    foreach_built_in: bool
    #: ``enableGlobalCache``'s default: true from yarn 4, false in 2 and 3
    global_cache: bool

    @classmethod
    def of(cls, major: int) -> "BerryRules":
        return cls(shorthands=("*",) if major <= 2 else ("*", "^", "~"), path_lookup=major >= 4,
                   ordered_negations=major <= 3, foreach_built_in=major >= 4, global_cache=major >= 4)


def _berry_target(dep_name: str, spec: str, names: dict[str, JsPackage], dirs: dict[str, JsPackage],
                  transparent: bool, rules: BerryRules) -> JsPackage | None:
    """berry's ``Project.tryWorkspaceByDescriptor``."""
    shorthands = rules.shorthands
    if spec.startswith(WORKSPACE) and rules.path_lookup:
        rest = spec[len(WORKSPACE):]
        if rest not in shorthands and not valid_range(rest):
            rel = posixpath.normpath(rest).rstrip("/")
            return dirs.get("" if rel == "." else rel) if not rel.startswith("/") else None
    target = names.get(dep_name)
    if target is None:
        return None
    return target if _accepts(target, spec, transparent, shorthands) else None


def _accepts(ws: JsPackage, spec: str, transparent: bool, shorthands: tuple[str, ...]) -> bool:
    """berry's ``Workspace.accepts``."""
    protocol, sep, rest = spec.partition(":")
    protocol, rest = (protocol + ":", rest) if sep else (None, spec)
    if protocol == WORKSPACE and (rest in shorthands or posixpath.normpath(rest) == (ws.dir or ".")):
        return True
    if not valid_range(rest):
        return False
    version = ws.manifest.get("version")
    version = version if isinstance(version, str) else None
    if protocol == WORKSPACE:
        return range_test(version if version is not None else "0.0.0", rest)
    return transparent and version is not None and range_test(version, rest)


def _parse_classic(text: str) -> dict[str, tuple[str, list[str]]]:
    """``yarn workspaces info``: dir -> (name, dependency dirs)."""
    try:
        data = json.loads(text[text.index("{"): text.rindex("}") + 1])
    except ValueError:
        raise ToolError(f"yarn workspaces info did not print JSON: {text.strip()[:200]!r}") from None
    if not isinstance(data, dict):
        raise ToolError("yarn workspaces info did not print an object")
    loc = {name: str(info.get("location", "")) for name, info in data.items() if isinstance(info, dict)}
    return {loc[name]: (name, [loc[d] for d in info.get("workspaceDependencies", []) if d in loc])
            for name, info in data.items() if isinstance(info, dict)}


def _parse_berry(text: str) -> dict[str, tuple[str, list[str]]]:
    """``yarn workspaces list -v --json`` (one JSON object a line): dir -> (name, dependency dirs)."""
    out: dict[str, tuple[str, list[str]]] = {}
    for line in text.splitlines():
        if not line.startswith("{"):
            continue
        try:
            item = json.loads(line)
        except ValueError:
            raise ToolError(f"yarn workspaces list printed a line that is not JSON: {line[:200]!r}") from None
        if "workspaceDependencies" not in item:
            raise ToolError("yarn workspaces list -v --json printed no workspaceDependencies (yarn too old?)",
                            hint="use --source static")
        rel = "" if item.get("location") == "." else str(item.get("location", ""))
        deps = ["" if d == "." else str(d) for d in item["workspaceDependencies"]]
        out[rel] = (str(item.get("name") or ""), deps)
    if not out:
        raise ToolError(f"yarn workspaces list printed no workspace: {text.strip()[:200]!r}")
    return out


__all__ = ["YarnAdapter"]
