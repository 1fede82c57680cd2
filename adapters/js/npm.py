"""npm workspaces (``workspaces`` in the root package.json).

Static mode reads the manifests the way npm's installer (arborist) links packages: a
dependency on a workspace package's name is a link to that package when the workspace
version satisfies the range; otherwise npm goes to the registry for it (measured with npm 11 ``install --package-lock-only
--offline``: ``^1.0.0`` on a 1.0.0 workspace links, ``^2.0.0`` and ``latest`` ask the
registry, ``*`` links even a workspace without a version). All four dependency fields
link, peers included (npm 7+ installs peers). Paths to a workspace directory link
(``npm_path_in_spec``: ``file:``, bare ``../a``, absolute); yarn's ``link:``/``portal:``
and yarn berry's ``workspace:`` protocol link as pnpm's do (npm 11 refuses all three
with EUNSUPPORTEDPROTOCOL; bun, which ctxsel reads as npm, takes ``workspace:``).

Tool mode (npm only) asks ``npm query`` for the links npm really made; it needs an
installed tree, so ``auto`` uses it only where ``npm install`` has run.

Yarn reads workspaces its own way (no peers, no ``workspace:`` in yarn 1): ``yarn.py``.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
from collections import Counter
from pathlib import Path
from typing import Any, ClassVar, Sequence

from ctxsel.adapters.base import DEFAULT_TARGETS
from ctxsel.cache import InputTracker
from ctxsel.errors import Location, ParseError, ToolError
from ctxsel.graph import BuildGraph

from . import semver
from .packages import WORKSPACE_PROTOCOL, PackageGraphAdapter, path_target, workspace_target
from .workspace import (
    MANIFEST, PNPM_WORKSPACE, JsPackage, JsWorkspace, key_line, require_unique_names, root_manifest,
)

#: specs npm links to a workspace package whatever its version (even none, or ``1.0``);
#: ``x`` is an ordinary range there, which a version that is not semver fails (npm 11, measured)
ANY_RANGE = ("", "*")
NPM_HIDDEN_LOCKFILE = "node_modules/.package-lock.json"
#: npm query never needs the network; keep it from checking for updates or auditing
NPM_ENV = {"npm_config_update_notifier": "false", "npm_config_audit": "false", "npm_config_fund": "false", "npm_config_offline": "true"}


def name_from_folder(rel_dir: str) -> str:
    """npm's ``@npmcli/name-from-folder``: the folder's name, with its ``@scope/`` parent if it has one."""
    parent, _, base = rel_dir.rstrip("/").rpartition("/")
    scope = parent.rpartition("/")[2]
    return f"{scope}/{base}" if scope.startswith("@") else base


#: ``user/repo`` (and ``user/repo#ref``): npm-package-arg reads it as a GitHub repository, not a path
_GITHUB_SHORTHAND = re.compile(r"[^:@%/\s.-][^:@%/\s]*/[^:@\s/%]+(?:#.*)?")
_TARBALL = re.compile(r"\.(?:tgz|tar\.gz|tar)$", re.I)


def npm_path_in_spec(spec: str) -> str | None:
    """The directory an npm dependency spec names (npm-package-arg's directory specs), or None.

    Measured with npm 11.19.1 (``install --offline`` then ``npm query``): ``file:<path>``, a
    bare spec starting with ``.`` or ``/`` (``../a``, ``/abs/p/a``) and a bare spec with
    slashes that is no ``user/repo`` shorthand (``x/../../a``) link a workspace directory;
    ``file:/../a`` and ``file://../a`` are ``../a`` (npm-package-arg's compatibility with
    old ``file:`` specs) and ``file:///abs`` is ``/abs``. Not read as paths: blanks around
    the spec, ``~/``, backslashes, ``FILE:``, percent escapes, tarball names (``x.tgz``).
    """
    if spec.startswith("file:"):
        rest = spec[len("file:"):]
        if rest.startswith("//") and not rest.startswith("///"):
            rest = "/" + rest  # a "host" is read as the first path segment
        if re.match(r"/{1,3}\.\.?(?:/|$)", rest):
            rest = rest.lstrip("/")
        return rest
    if spec.startswith((".", "/")):
        return spec
    if "/" in spec and ":" not in spec and not spec.startswith("~") and not _GITHUB_SHORTHAND.fullmatch(spec) and not _TARBALL.search(spec):
        return spec
    return None


#: a package name npm-package-arg accepts in an alias (validate-npm-package-name's rules for old
#: packages): URL-safe characters, no leading ``.`` or ``_``, optionally ``@scope/``
_ALIAS_NAME = re.compile(r"(?:@[A-Za-z0-9\-_.!~*'()]+/)?[A-Za-z0-9\-!~*'()][A-Za-z0-9\-_.!~*'()]*")


def npm_alias_range(spec: str) -> str | None:
    """The range of an ``npm:<name>[@<range>]`` alias (``*`` without one), or None when ``spec``
    is no alias npm accepts.

    npm 11.19.1 (measured, ``install --offline`` + ``npm query``) resolves an aliased dependency
    ``a: npm:<name>@<range>`` by the dependency's own name: the workspace ``a`` linked at
    ``node_modules/a`` satisfies it when its version satisfies ``<range>``, *whatever
    ``<name>`` says* (``npm:a@^1.0.0``, ``npm:b@^1.0.0``, ``npm:@s/zz@^1``, ``npm:a`` and
    ``npm:a@1.x`` all link workspace ``a`` at 1.0.0; ``npm:a@^2.0.0`` and ``npm:a@latest`` go to
    the registry). ``npm:^1.0.0`` (no name) and `` npm:a@1`` (a leading blank) are no alias.
    """
    if not spec.startswith("npm:"):
        return None
    rest = spec[len("npm:"):]
    at = rest.find("@", 1)
    name, wanted = (rest[:at], rest[at + 1:]) if at > 0 else (rest, "")
    if name in ("node_modules", "favicon.ico") or not _ALIAS_NAME.fullmatch(name):
        return None
    return wanted or "*"


def _packages_at_or_below(ws: JsWorkspace) -> Counter[str]:
    """directory -> how many workspace packages (the root aside) are in it or below it."""
    counts: Counter[str] = Counter()
    for pkg in ws.packages:
        if not pkg.is_root:
            parts = pkg.dir.split("/")
            counts.update("/".join(parts[: i + 1]) for i in range(len(parts)))
    return counts


def _declares_workspaces(root: Path) -> bool:
    """Any ``workspaces`` but null: npm reads every other value, and refuses the wrong ones
    (``npm_workspaces_problem``)."""
    return root_manifest(root).get("workspaces") is not None


def npm_workspaces_problem(declared: Any) -> str | None:
    """Why npm refuses a root ``workspaces`` value, in its words, or None.

    ``@npmcli/map-workspaces`` takes ``workspaces.packages`` when that is an array, else
    ``workspaces`` itself, and fails unless that is an array of strings (npm 11.19.1,
    measured: ``"packages/*"``, ``{}``, ``{"nohoist": [...]}``, ``0`` and ``""`` give
    EWORKSPACESCONFIG, a number among the globs "pattern.match is not a function";
    ``null`` and ``[]`` are no workspaces).
    """
    if declared is None:
        return None
    packages = declared.get("packages") if isinstance(declared, dict) else None
    patterns = packages if isinstance(packages, list) else declared
    if not isinstance(patterns, list):
        return "npm: workspaces config expects an Array (EWORKSPACESCONFIG)"
    bad = [p for p in patterns if not isinstance(p, str)]
    if bad:
        return f"npm: every workspaces entry must be a glob string, not {json.dumps(bad[0])} (\"pattern.match is not a function\")"
    return None


def npm_override_conflicts(manifest: dict[str, Any], workspace_names: set[str]) -> list[str]:
    """The workspaces whose name the root's ``overrides`` give another spec: ``npm install``
    refuses every one of them, as arborist allows no override of the project root's direct
    dependencies and the root depends on each workspace (``file:<dir>``).

    arborist's ``OverrideSet`` matches a key ``a`` or ``a@range`` to the root's ``file:`` edge
    whatever the range, and its value (a string, or an object's ``"."``; else the key's range)
    conflicts unless it is ``""`` or ``"*"``; a ``$ref`` resolves to the root's declared spec,
    never ``file:``, or fails (npm 11.19.1, measured with ``npm install --offline``: values
    ``"1.0.0"``, ``{".": "1.0.0"}``, ``"file:packages/a"``, ``"$a"`` and key ``a@2`` fail with
    EOVERRIDE or "Unable to resolve reference"; ``"*"``, ``""``, ``{"c": "1.0.0"}`` and the
    nested ``{"b": {"a": "1.0.0"}}`` install). ``npm run --workspace`` still runs, and a tree
    installed before the override still answers ``npm query`` with the manifests' links.
    """
    overrides = manifest.get("overrides")
    if not isinstance(overrides, dict):
        return []
    conflicts = []
    for key, value in overrides.items():
        at = key.find("@", 1)  # "@scope/a@2": the version part starts at the second "@"
        name, key_range = (key[:at], key[at + 1:]) if at > 0 else (key, "")
        if name not in workspace_names:
            continue
        if isinstance(value, dict):
            value = value.get(".") or key_range
        if isinstance(value, str) and value not in ANY_RANGE and name not in conflicts:
            conflicts.append(name)
    return conflicts


class NpmAdapter(PackageGraphAdapter):
    name: ClassVar[str] = "npm"
    tools: ClassVar[tuple[str, ...]] = ("npm",)

    @classmethod
    def detect(cls, root: Path) -> bool:
        return not (root / PNPM_WORKSPACE).is_file() and _declares_workspaces(root)

    _below: tuple[JsWorkspace, Counter[str]] | None = None  # ``name_selects_itself``'s cache

    #: npm (``@npmcli/map-workspaces``) names a workspace without a ``name`` after its folder
    names_unnamed_by_folder: ClassVar[bool] = True
    negation_rule: ClassVar[str] = "npm"

    def workspace(self, tracker: InputTracker) -> JsWorkspace:
        problem = npm_workspaces_problem(root_manifest(self.root).get("workspaces")) if self.name == "npm" else None
        if problem:
            raise ParseError(problem, Location(MANIFEST, key_line(tracker.read_text(self.root / MANIFEST), "workspaces")))
        ws = super().workspace(tracker)
        if self.names_unnamed_by_folder:
            for pkg in ws.packages:
                if not pkg.name and not pkg.is_root:
                    pkg.name = name_from_folder(pkg.dir)
        # npm's EDUPLICATEWORKSPACE and yarn's "Duplicate workspace name"; the root is no workspace for npm
        require_unique_names(ws, f"{self.name} needs unique workspace names")
        self._root_link = self.root_link_name(ws)
        self._unlinked = self.case_shadowed(ws)
        self.warn_override_conflicts(ws, tracker)
        return ws

    def warn_override_conflicts(self, ws: JsWorkspace, tracker: InputTracker) -> None:
        """Warn, naming package.json's ``overrides`` line, when ``npm install`` cannot install the
        workspace (``npm_override_conflicts``). A warning, not an error: the ``npm run`` commands
        ctxsel prints still run, and the links read from the manifests are the ones an earlier
        install made (npm 11.19.1, measured)."""
        root = ws.root_package
        if self.name != "npm" or root is None:
            return
        names = {p.name for p in ws.packages if not p.is_root and p.name}
        conflicts = npm_override_conflicts(root.manifest, names)
        if conflicts:
            line = key_line(tracker.read_text(self.root / MANIFEST), "overrides")
            self.warnings.append(
                f"{MANIFEST}:{line}: npm install refuses these overrides of workspace "
                f"{', '.join(map(repr, conflicts))} (EOVERRIDE: the root depends on every workspace, and a direct "
                "dependency cannot be overridden): the workspace cannot be installed; links are read from the manifests")

    #: dirs of workspaces npm never installs (``case_shadowed``); set by ``workspace``
    _unlinked: frozenset[str] = frozenset()

    def case_shadowed(self, ws: JsWorkspace) -> frozenset[str]:
        """Workspaces npm does not install because a later one has the same name but for case.

        ``@npmcli/map-workspaces`` keeps ``a`` and ``A`` apart, but arborist files the root's
        workspace edges in a case-insensitive map, so only the last of them in map-workspaces'
        order (paths sorted, as ``ws.packages`` is) is linked (npm 11.19.1, measured: ``p/a``
        named ``a`` beside ``p/big`` named ``A`` linked ``node_modules/A -> p/big`` alone, a
        dependency on ``a`` went to the registry, and ``p/a``'s own dependencies were not
        linked; named the other way round, ``p/big`` won again). ``npm run --workspace=a``
        still runs it, so it stays a package, with no edges."""
        if self.name != "npm":
            return frozenset()
        last: dict[str, JsPackage] = {}
        shadowed: set[str] = set()
        for pkg in ws.packages:
            if pkg.is_root or not pkg.name:
                continue
            earlier = last.get(pkg.name.lower())
            if earlier is not None:
                shadowed.add(earlier.dir)
                self.warnings.append(f"{earlier.dir}/package.json: npm installs only the last workspace named "
                                     f"{pkg.name!r} but for case ({pkg.dir}): {earlier.name!r} is not linked")
            last[pkg.name.lower()] = pkg
        return frozenset(shadowed)

    def declared_dependencies(self, pkg: JsPackage) -> dict[str, tuple[str, str]]:
        """A workspace npm does not install (``case_shadowed``) links nothing."""
        return {} if pkg.dir in self._unlinked else super().declared_dependencies(pkg)

    #: the name npm links the root package at (``node_modules/<name>``), None when it links none
    #: (``root_link_name``); set by ``workspace``, read by ``workspace_named``
    _root_link: str | None = None

    def root_link_name(self, ws: JsWorkspace) -> str | None:
        """The name under which npm links the root package into ``node_modules``, or None.

        npm links the root only when a workspace glob lists the root directory itself (``"."``),
        under its ``name`` or, unnamed, its folder's name (``@npmcli/map-workspaces``), and a
        workspace depending on that name gets the root (npm 11.19.1, measured: ``"workspaces":
        [".", "packages/*"]`` made ``node_modules/root -> ..`` and ``b -> root``, with an unnamed
        root ``node_modules/<folder> -> ..``). Without that glob a dependency on the root's name
        goes to the registry (``install --offline``: ENOTCACHED), like any other name."""
        root = ws.root_package
        if self.name != "npm" or not ws.root_in_globs or root is None:
            return None
        return root.name or name_from_folder(os.path.realpath(self.root))

    def workspace_named(self, names: dict[str, list[JsPackage]], dirs: dict[str, JsPackage], name: str) -> JsPackage | None:
        """The package npm links at ``node_modules/<name>``: a workspace, or the root (``root_link_name``)."""
        if name == self._root_link and "" in dirs:
            return dirs[""]
        return next((p for p in names.get(name, ()) if not p.is_root and p.dir not in self._unlinked), None)

    def name_selects_itself(self, pkg: JsPackage, ws: JsWorkspace) -> bool:
        """npm's ``--workspace=X`` selects the workspace named X *and* every workspace in the
        directory X (npm 11, measured: a package named ``lib`` next to ``lib/x`` and ``lib/y``
        ran all three), and ``--workspace=!x`` ran every workspace; such names are ids only
        where no directory selector would do better (the root is ``--include-workspace-root``)."""
        if pkg.is_root or self.name != "npm":
            return True
        if pkg.name.startswith("!"):
            return False
        as_dir = posixpath.normpath(pkg.name)
        own = pkg.dir == as_dir or pkg.dir.startswith(as_dir + "/")
        if self._below is None or self._below[0] is not ws:  # once per workspace, not per package
            self._below = (ws, _packages_at_or_below(ws))
        return self._below[1].get(as_dir, 0) - own == 0

    def link_target(
        self, pkg: JsPackage, dep_name: str, spec: str, names: dict[str, list[JsPackage]], dirs: dict[str, JsPackage]
    ) -> JsPackage | None:
        """What npm links ``dep_name: spec`` of ``pkg`` to.

        npm links every workspace at ``node_modules/<name>``, and the root package's own
        dependency on a workspace's name resolves there whatever its spec (npm 11.19.1,
        measured: ``^5.0.0``, ``latest``, ``file:./other``, ``npm:zz@^1`` and ``github:x/y`` on a
        1.0.0 workspace all install offline as that link); other packages follow the spec.
        """
        if pkg.is_root and self.name == "npm":
            workspace = self.workspace_named(names, dirs, dep_name)
            if workspace is not None and not workspace.is_root:
                return workspace
        path = npm_path_in_spec(spec)
        if path is not None:
            return path_target(pkg, path, dirs, self.root, backslash=False)
        if self.name == "npm" and spec.startswith("npm:"):
            aliased = npm_alias_range(spec)
            if aliased is None:
                return None
            spec = aliased  # checked against the workspace the dependency names (``npm_alias_range``)
        spec = spec.strip()  # npm-package-arg trims a range: " *" links like "*" (measured)
        if spec.startswith(WORKSPACE_PROTOCOL):
            return workspace_target(pkg, dep_name, spec, names, dirs)
        protocol, sep, rest = spec.partition(":")
        if sep and protocol in ("link", "portal"):  # yarn's protocols (npm 11 refuses them)
            return path_target(pkg, rest, dirs, self.root)
        if sep:
            return None  # git, http, catalog: ... come from elsewhere
        target = self.workspace_named(names, dirs, dep_name)
        if target is None:
            return None
        if spec in ANY_RANGE:
            return target
        return target if semver.satisfies(target.version or "", spec) else None

    # ------------------------------------------------------------ tool mode
    def installed(self) -> bool:
        """npm answers from the installed tree; ``.package-lock.json`` is what ``npm install`` leaves."""
        return (self.root / NPM_HIDDEN_LOCKFILE).is_file()

    def resolved_source(self) -> str:
        """``auto`` asks npm only in an installed workspace; elsewhere npm knows no more than the manifests."""
        if self.options.source == "auto" and not self.options.query_file:
            return "tool" if self.find_tool() and self.installed() else "static"
        return super().resolved_source()

    def load_tool(self, tracker: InputTracker) -> BuildGraph:
        """Edges as npm actually linked them: ``npm query ':root, .workspace' --json``.

        Each node's ``to`` lists the locations its dependency edges resolve to; a
        workspace dependency resolves to the top-level link ``node_modules/<name>``.
        Only an installed workspace can answer (npm query reads node_modules); the
        root's implicit edges to every workspace are dropped unless its package.json
        declares them. Edge types come from the declaring field.
        """
        tracker.note(self.root / NPM_HIDDEN_LOCKFILE)
        if not self.options.query_file and not self.installed():
            raise ToolError(
                "npm query reads the installed node_modules, and this workspace is not installed",
                hint="run npm install, or use --source static",
            )
        listed = self.parse_tool_json(self.tool_output(["query", ":root, .workspace", "--json"], NPM_ENV), "npm query")
        if not isinstance(listed, list):
            raise ToolError("npm query did not print a list of packages")
        ws = self.workspace(tracker)
        graph = self.build_graph(ws, tracker, edges=False)
        ids = self.assign_ids(ws)
        by_dir, names = ws.by_dir(), ws.by_name()
        for item in listed:
            src_dir = str(item.get("location", "")).strip("/")
            if src_dir not in by_dir:
                continue
            declared = self.declared_dependencies(by_dir[src_dir])
            for loc in item.get("to") or []:
                head, _, dep_name = str(loc).partition("node_modules/")
                if head or dep_name not in declared:
                    continue  # nested copies come from the registry; root edges only where declared
                target = self.workspace_named(names, by_dir, dep_name)
                if target is not None and target.dir != src_dir:
                    graph.add_edge(ids[src_dir], ids[target.dir], declared[dep_name][1])
        return graph

    def test_command(self, tests: list[str], targets: Sequence[str] = DEFAULT_TARGETS) -> list[str]:
        """``npm run test --workspace=a ...`` (``--target lint``: ``npm run lint ...``); the root
        is not a workspace, so it joins with ``--include-workspace-root`` -- unless a selected
        workspace has the root's name, where that flag runs nothing more (``root_test_shadowed``)."""
        (target,) = targets
        argv = ["npm", "run", target]
        root_id = self._root_id(self._command_graph)
        for t in tests:
            if t == root_id:
                if not self.root_test_shadowed(tests, self._command_graph):
                    argv.append("--include-workspace-root")
            else:
                argv.append(f"--workspace={t}")
        return argv

    #: the graph ``targets_command`` is rendering a command for, which ``test_command`` (given ids
    #: only, as every adapter's is) reads package names from; None outside that call
    _command_graph: BuildGraph | None = None

    def targets_command(self, graph: BuildGraph, tests: list[str], targets: Sequence[str] = DEFAULT_TARGETS) -> list[str]:
        """The command as ``PackageGraphAdapter`` renders it, its package names read from ``graph``:
        a warm cache must give what ``--no-cache`` gives with the same graph, whatever the files
        on disk say by now (an edit the cache's (mtime, size) stamps miss changed the command)."""
        self._command_graph = graph
        try:
            return super().targets_command(graph, tests, targets)
        finally:
            self._command_graph = None

    def root_test_shadowed(self, tests: list[str], graph: BuildGraph | None = None) -> bool:
        """Whether npm would drop the root's test from ``test_command(tests)``: npm files the
        packages it runs a script in by name (a Map of name -> path in its workspace lookup), so a
        selected workspace named like the root replaces it. Measured with npm 11.19.1: root and
        ``packages/a`` both named ``insomnia`` (Kong/insomnia's layout): ``npm run test
        --workspace=./packages/a --include-workspace-root`` runs the workspace's test only; with
        another workspace selected instead, both run. Names come from ``graph`` when given."""
        root_id = self._root_id(graph)
        if root_id not in tests:
            return False
        names = self._package_names(tests, graph, root_id)
        return bool(names.get(root_id)) and any(names.get(t) == names[root_id] for t in tests if t != root_id)

    def _package_names(self, ids: list[str], graph: BuildGraph | None, root_id: str) -> dict[str, str]:
        """node id -> its package.json ``name``: from the graph's nodes, else (a caller with ids
        alone) from the manifests, where a workspace named like another package has a ``./dir`` id."""
        if graph is not None:
            return {i: graph.node(i).meta.get("name") or "" for i in ids if i in graph}
        names = {}
        for i in ids:
            manifest = root_manifest(self.root) if i == root_id else \
                root_manifest(self.root / i[2:]) if i.startswith("./") else {"name": i}
            name = manifest.get("name")
            names[i] = name if isinstance(name, str) else ""
        return names

    def test_command_warnings(self, graph: BuildGraph, tests: list[str], targets: Sequence[str] = DEFAULT_TARGETS) -> list[str]:
        if not self.root_test_shadowed(tests, graph):
            return []
        root_id = self._root_id(graph)
        script = "test" if tuple(targets) == DEFAULT_TARGETS else " / ".join(targets)
        run = " && ".join(f"npm run {t}" for t in targets if t in graph.node(root_id).meta.get("scripts", {}))
        return [f"npm runs one script per package name, and a selected workspace is named like the root "
                f"({root_id}): the command cannot run the root's {script}; run `{run or 'npm run test'}` in the "
                "workspace root as well"]

    def _root_id(self, graph: BuildGraph | None = None) -> str:
        """The root package's node id: the graph's root node, else (no graph at hand) its name as
        ``assign_ids`` gives it, read from package.json."""
        if graph is not None:
            found = next((n.id for n in graph.nodes() if n.kind == "root"), None)
            if found is not None:
                return found
        name = root_manifest(self.root).get("name")
        return name if isinstance(name, str) and name else "."

