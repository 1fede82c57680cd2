"""Which project an import specifier or a package.json dependency points at, as Nx decides it.

A port of Nx 24's ``TargetProjectLocator`` (without npm packages, which ctxsel does not
model) that reads the file system instead of asking node and TypeScript:

1. a relative specifier (``./x``, ``../../libs/a/src``) is joined to the importing file's
   directory and mapped to the project with the longest matching root; no file needs to exist;
2. a specifier matching a root tsconfig ``compilerOptions.paths`` key (exact, else the
   ``*`` pattern with the longest prefix) maps through each listed path in turn;
3. Node built-ins (``fs``, ``node:path``) resolve to nothing;
4. a non-relative specifier under the root tsconfig's ``baseUrl`` that names an existing file
   (TypeScript's own resolution);
5. when dependencies are installed: a package that node_modules links to a workspace
   directory (pnpm/npm/yarn workspaces), for its name or any existing file below it;
6. a workspace package's entry points: its name when it has ``main`` or ``exports``, and
   ``name/sub`` only when ``exports`` declares ``./sub`` (or a ``./*`` pattern). A deep import
   ``pkg/lib/x`` of a package without such an export is no edge, as in ``nx graph``.

package.json dependencies name a workspace project when the spec uses ``workspace:``, is
``*``, is ``file:`` the project's own directory, or is a semver range the project's version
satisfies. Anything else would be an npm package, which ctxsel does not model.
"""

from __future__ import annotations

import operator
import os
import posixpath
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxsel.cache import InputTracker

from . import semver
from .nx_workspace import NxProject

NODE_BUILTINS = frozenset(
    "assert async_hooks buffer child_process cluster console constants crypto dgram diagnostics_channel dns "
    "domain events fs http http2 https inspector module net os path perf_hooks process punycode querystring "
    "readline repl stream string_decoder sys timers tls trace_events tty url util v8 vm wasi worker_threads zlib".split()
)
#: what TypeScript / require.resolve try after a deep import path into an installed package
RESOLVE_EXTENSIONS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".json")
#: the extensions TypeScript tries for a bare path under baseUrl, in its order
TS_EXTENSIONS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", "/index.ts", "/index.tsx", "/index.d.ts", "/index.js", "/index.jsx")


def package_name_of(specifier: str) -> str:
    """``@scope/pkg/deep`` -> ``@scope/pkg``; ``pkg/deep`` -> ``pkg``."""
    parts = specifier.split("/")
    return "/".join(parts[:2]) if specifier.startswith("@") else parts[0]


def is_builtin(specifier: str) -> bool:
    if specifier.startswith("node:") or specifier == "bun" or specifier.startswith("bun:"):
        return True
    return package_name_of(specifier) in NODE_BUILTINS


def is_relative(specifier: str) -> bool:
    return specifier in (".", "..") or specifier.startswith("./") or specifier.startswith("../")


@dataclass
class _PathPattern:
    key: str
    prefix: str
    suffix: str


@dataclass
class ProjectLocator:
    """Maps import specifiers and dependency specs to project names."""

    projects: dict[str, NxProject]
    tsconfig: dict[str, Any] | None
    files: set[str]
    #: the workspace root and the tracker, to look into installed node_modules (None: never)
    root: Path | None = None
    tracker: InputTracker | None = None
    _roots: dict[str, str] = field(init=False)
    _paths: dict[str, list[str]] = field(init=False)
    _patterns: list[_PathPattern] = field(init=False)
    _base_url: str | None = field(init=False)
    _by_package: dict[str, NxProject] = field(init=False)
    _entry_points: dict[str, str] = field(init=False)
    _wildcard_entry_points: list[tuple[str, str]] = field(init=False)

    def __post_init__(self) -> None:
        self._roots = {p.root: p.name for p in self.projects.values()}
        options = (self.tsconfig or {}).get("compilerOptions") or {}
        paths = options.get("paths") if isinstance(options, dict) else None
        self._paths = {k: [str(x) for x in v] for k, v in paths.items() if isinstance(v, list)} if isinstance(paths, dict) else {}
        self._patterns = []
        for key in self._paths:
            parts = key.split("*")
            if len(parts) == 2:
                self._patterns.append(_PathPattern(key, parts[0], parts[1]))
        base_url = options.get("baseUrl") if isinstance(options, dict) else None
        self._base_url = posixpath.normpath(base_url) if isinstance(base_url, str) else None
        self._node_modules: dict[str, bool] = {}
        self._installed: dict[tuple[str, str], str | None] = {}
        self._real_root = os.path.realpath(self.root) if self.root is not None else ""
        self._by_package = {}
        self._entry_points = {}
        self._wildcard_entry_points = []
        for project in self.projects.values():
            manifest = project.manifest
            if manifest is None or not isinstance(manifest.get("name"), str) or project.plugin_only:
                continue
            name = manifest["name"]
            self._by_package[name] = project
            if not project.in_workspaces:
                continue
            exports = manifest.get("exports")
            if exports:
                if isinstance(exports, str):
                    self._entry_points[name] = project.name
                elif isinstance(exports, dict):
                    for entry, target in exports.items():
                        if target is None:
                            continue
                        if entry.startswith("."):
                            joined = posixpath.normpath(posixpath.join(name, entry))
                            if "*" in entry:
                                self._wildcard_entry_points.append((joined, project.name))
                            else:
                                self._entry_points[joined] = project.name
                        else:
                            self._entry_points[name] = project.name
            elif manifest.get("main"):
                self._entry_points[name] = project.name

    # ------------------------------------------------------------ paths -> projects
    def project_of_path(self, path: str) -> str | None:
        """Longest project root containing ``path`` (Nx's ``findProjectForPath``)."""
        probe = posixpath.normpath(path) if path else "."
        if probe.startswith("./"):
            probe = probe[2:]
        while True:
            name = self._roots.get(probe)
            if name is not None:
                return name
            parent = posixpath.dirname(probe)
            if parent in ("", probe):
                return self._roots.get(".")
            probe = parent

    def _project_of_module(self, path: str) -> str | None:
        if path.startswith("node_modules/") or "/node_modules/" in path:
            return None
        return self.project_of_path(path.rstrip("/") or ".")

    # ------------------------------------------------------------ imports
    def _tsconfig_paths(self, specifier: str) -> tuple[list[str], str | None] | None:
        if specifier in self._paths:
            return self._paths[specifier], None
        best: _PathPattern | None = None
        for pattern in self._patterns:
            if (
                (best is None or len(pattern.prefix) > len(best.prefix))
                and len(specifier) >= len(pattern.prefix) + len(pattern.suffix)
                and specifier.startswith(pattern.prefix)
                and specifier.endswith(pattern.suffix)
            ):
                best = pattern
        if best is None:
            return None
        star = specifier[len(best.prefix) : len(specifier) - len(best.suffix)]
        return self._paths[best.key], star

    def _base_url_file(self, specifier: str) -> str | None:
        if self._base_url is None:
            return None
        stem = posixpath.normpath(posixpath.join(self._base_url, specifier))
        if stem.startswith("../"):
            return None
        for ext in ("", *TS_EXTENSIONS):
            candidate = stem + ext
            if candidate in self.files and (ext or candidate.endswith((".ts", ".tsx", ".js", ".jsx", ".d.ts"))):
                return candidate
        return None

    def _workspace_entry_point(self, specifier: str) -> str | None:
        found = self._entry_points.get(specifier)
        if found is not None:
            return found
        for key, project in self._wildcard_entry_points:
            head, _, tail = key.partition("*")
            if head == specifier or not specifier.startswith(head):
                continue
            if tail and (not specifier.endswith(tail) or len(specifier) < len(key)):
                continue
            return project
        return None

    def project_of_import(self, specifier: str, file: str, source_project: str) -> str | None:
        """The project ``file`` (of ``source_project``) reaches by importing ``specifier``."""
        if is_relative(specifier):
            return self._project_of_module(posixpath.normpath(posixpath.join(posixpath.dirname(file), specifier)))
        mapped = self._tsconfig_paths(specifier)
        if mapped is not None:
            targets, star = mapped
            for target in targets:
                path = target.replace("*", star, 1) if star else target
                if path.lower().startswith("${configdir}"):
                    source_root = self.projects[source_project].root if source_project in self.projects else "."
                    path = posixpath.join(source_root, "./" + path[len("${configDir}"):].lstrip("/"))
                found = self._project_of_module(posixpath.normpath(path))
                if found:
                    return found
        if is_builtin(specifier):
            return None
        base_url_file = self._base_url_file(specifier)
        if base_url_file is not None:
            found = self._project_of_module(base_url_file)
            if found:
                return found
        installed = self._installed_workspace_file(specifier, file)
        if installed is not None:
            found = self._project_of_module(installed)
            if found:
                return found
        return self._workspace_entry_point(specifier)

    # ------------------------------------------------------------ installed node_modules
    def _has_node_modules(self, directory: str) -> bool:
        known = self._node_modules.get(directory)
        if known is None:
            path = self.root / directory / "node_modules" if directory else self.root / "node_modules"
            if self.tracker is not None:
                self.tracker.note(path)
            known = self._node_modules[directory] = path.is_dir()
        return known

    def _installed_package_dir(self, package: str, directory: str) -> str | None:
        """Where node would find ``package`` from ``directory``, if that is a workspace directory.

        pnpm, npm and yarn link workspace packages into node_modules; TypeScript and
        ``require.resolve`` follow the link to the package's real directory, which is how
        Nx turns ``@scope/pkg/deep/file`` into an edge once dependencies are installed.
        A package installed from the registry (a real directory) is no project.
        """
        key = (package, directory)
        if key in self._installed:
            return self._installed[key]
        found: str | None = None
        probe = directory
        while True:
            if self._has_node_modules(probe):
                link = self.root / probe / "node_modules" / package
                if self.tracker is not None:
                    self.tracker.note(link)
                if link.exists():
                    rel = os.path.relpath(os.path.realpath(link), self._real_root).replace(os.sep, "/")
                    inside = not rel.startswith("../") and rel != ".." and "node_modules" not in rel.split("/")
                    found = rel if inside else None
                    break
            if not probe:
                break
            probe = posixpath.dirname(probe)
        self._installed[key] = found
        return found

    def _installed_workspace_file(self, specifier: str, file: str) -> str | None:
        """The workspace path an installed (linked) package import resolves to, or None."""
        if self.root is None:
            return None
        package = package_name_of(specifier)
        package_dir = self._installed_package_dir(package, posixpath.dirname(file))
        if package_dir is None:
            return None
        sub = specifier[len(package):].lstrip("/")
        if not sub:
            return package_dir
        target = posixpath.join(package_dir, sub)
        base = self.root / target
        candidates = [base, *(Path(f"{base}{ext}") for ext in RESOLVE_EXTENSIONS), *(base / f"index{ext}" for ext in RESOLVE_EXTENSIONS)]
        return target if any(c.is_file() for c in candidates) else None

    # ------------------------------------------------------------ package.json
    def project_of_dependency(self, manifest_path: str, dep: str, spec: str) -> str | None:
        """The workspace project a package.json dependency ``dep: spec`` links to, or None."""
        project = self._by_package.get(dep)
        if project is None or not isinstance(spec, str):
            return None
        if spec.startswith("workspace:"):
            return project.name
        if spec == "*":
            return project.name
        if spec.startswith("file:"):
            target = node_posix_join(posixpath.dirname(manifest_path) or ".", spec[len("file:"):])
            if target == project.root:
                return project.name
        version = project.manifest.get("version") if project.manifest else None
        if isinstance(version, str) and satisfies_including_prereleases(version, spec):
            return project.name
        return None


def node_posix_join(*parts: str) -> str:
    """Node's ``path.posix.join``, which Nx compares ``file:`` specs with, byte for byte.

    Unlike ``posixpath.join`` it never restarts at an absolute part, and it keeps a
    trailing slash: ``file:../core/`` joins to ``packages/core/``, which is not the root
    ``packages/core``, so Nx draws no edge for it (measured with Nx 24).
    """
    joined = "/".join(p for p in parts if p)
    if not joined:
        return "."
    norm = posixpath.normpath(joined)
    if norm.startswith("//"):  # POSIX keeps a leading "//"; node does not
        norm = "/" + norm.lstrip("/")
    return norm + "/" if joined.endswith("/") and not norm.endswith("/") else norm


_COMPARE = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "=": operator.eq}


def satisfies_including_prereleases(version: str, range_text: str) -> bool:
    """node-semver ``satisfies(v, r, {includePrerelease: true})``, the option Nx passes.

    Without the option a prerelease such as ``1.1.0-beta.1`` satisfies only ranges naming
    a prerelease of 1.1.0; with it, ``^1.0.0`` matches too.
    """
    if semver.satisfies(version, range_text):
        return True
    parsed = semver.parse_version(version)
    sets = semver.parse_range(range_text)
    if parsed is None or sets is None or not parsed[3]:
        return False
    key = semver.version_key(parsed)
    return any(all(_COMPARE[op](key, semver.version_key(bound)) for op, bound in comps) for comps in sets)
