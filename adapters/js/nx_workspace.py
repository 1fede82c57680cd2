"""Which projects an Nx workspace has, read the way Nx 24 reads them (without running node).

Nx finds projects in two places and merges them by root directory:
``project.json`` files anywhere in the workspace, and ``package.json`` files that the
package manager's workspace globs select (pnpm-workspace.yaml, ``workspaces`` in the root
package.json, lerna.json) or that sit next to a ``project.json``. The root package.json is a
project only when it has an ``nx`` key (or a root project.json exists). A project.json name
wins over a package.json name; without either a project is named after its directory.

Files are listed the way Nx's walker lists them: ``node_modules``, ``.git`` and Nx's own
state are skipped, and ``.gitignore``/``.nxignore`` rules are honoured, nested ones too and
also outside a git repository (``ctxsel.files.IgnoreRules``' subset of gitignore). ``dist/``
is not special: Nx lists a build output that no ignore file excludes (measured).

Targets are read as Nx merges them (package.json scripts and ``nx.targets``, then
project.json, then nx.json ``targetDefaults``; below all of them the targets nx.json
``plugins`` infer, ``nx_plugins``, see ``target_layers``), far enough to know which targets exist and
their ``inputs``/``dependsOn``; ``expand_task_inputs`` and ``fileset_matches`` read inputs
the way Nx's task hasher splits them, for affected-task selection (``nx.TaskSelection``).
"""

from __future__ import annotations

import itertools
import json
import os
import re
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache, partial
from pathlib import Path
from typing import Any, Callable, Collection, Iterable, Iterator, Sequence

from ctxsel.cache import CACHE_DIR, InputTracker
from ctxsel.errors import Location, ParseError
from ctxsel.files import IgnoreRules
from ctxsel.globs import GIT, closing_brace, glob_regex, split_alternatives

from .workspace import _expand_braces, expand_globs, yaml12_loader

#: never listed by Nx's file walker (plus ctxsel's own cache, which ignores itself anyway)
ALWAYS_SKIPPED = frozenset({"node_modules", ".git", CACHE_DIR})
#: Nx state directories (``.nx/cache``, ``.nx/workspace-data``) and yarn's cache
SKIPPED_PATHS = frozenset({".nx/cache", ".nx/workspace-data", ".yarn/cache"})


# ---------------------------------------------------------------------- JSON with comments
def _strip_jsonc(text: str) -> str:
    """JSONC -> JSON: comments and trailing commas blanked, line breaks kept for error lines."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j == -1 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j == -1 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif c == ",":
            j = i + 1
            while j < n and text[j] in " \t\r\n":
                j += 1
            # a comment between the comma and the closer is still a trailing comma
            rest = _strip_jsonc(text[j:j + 200]).lstrip() if j < n and text[j] == "/" else text[j:j + 1]
            out.append(" " if rest[:1] in ("}", "]") else ",")
            i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def display_path(path: Path, root: Path) -> str:
    try:
        return Path(path).relative_to(root).as_posix()
    except ValueError:
        return str(path)


def read_jsonc(path: Path, tracker: InputTracker, root: Path) -> dict[str, Any]:
    """A JSON object from a file Nx reads leniently (project.json, tsconfig, nx.json)."""
    text = tracker.read_text(path)
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        data = json.loads(_strip_jsonc(text))
    except json.JSONDecodeError as exc:
        raise ParseError(f"invalid JSON: {exc.msg}", Location(display_path(path, root), exc.lineno)) from None
    if not isinstance(data, dict):
        raise ParseError("expected a JSON object", Location(display_path(path, root), 1))
    return data


# ---------------------------------------------------------------------- ignore files
def _ignored(rules: list[tuple[str, IgnoreRules]], rel: str, is_dir: bool) -> bool:
    """Whether an ignore file in one of ``rel``'s ancestor directories excludes it.

    Each file's own ``!`` re-inclusions apply; a deeper file re-including what a parent
    file excluded (rare) is not modelled.
    """
    for base, ruleset in rules:
        if base and not rel.startswith(base + "/"):
            continue
        if ruleset.ignored(rel[len(base) + 1 :] if base else rel, is_dir):
            return True
    return False


def list_files(root: Path, tracker: InputTracker) -> list[str]:
    """Every file Nx would see, repo-relative POSIX paths, sorted."""
    files: list[str] = []
    stack: list[tuple[str, list[tuple[str, IgnoreRules]]]] = [("", [])]
    while stack:
        rel, rules = stack.pop()
        base = root / rel if rel else root
        entries = tracker.scandir(base)
        names = {e.name for e in entries}
        local = IgnoreRules()
        for ignore_file in (".gitignore", ".nxignore"):
            if ignore_file in names:
                for line in tracker.read_text(base / ignore_file).splitlines():
                    local.add(line)
        if local:
            rules = rules + [(rel, local)]
        for entry in entries:
            child = f"{rel}/{entry.name}" if rel else entry.name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir:
                if entry.name in ALWAYS_SKIPPED or child in SKIPPED_PATHS or _ignored(rules, child, True):
                    continue
                stack.append((child, rules))
            elif not _ignored(rules, child, False):
                files.append(child)
    files.sort()
    return files


# ---------------------------------------------------------------------- projects
@dataclass
class NxProject:
    """One project as Nx configures it (the parts ctxsel needs)."""

    name: str
    root: str  # repo-relative POSIX, "." for the workspace root (Nx's spelling)
    project_type: str | None = None  # "library" | "application" | None
    targets: dict[str, Any] = field(default_factory=dict)
    tags: list[str] = field(default_factory=list)
    implicit: list[str] = field(default_factory=list)
    implicit_source: str = ""  # the file that declared the implicit dependencies (for errors)
    manifest: dict[str, Any] | None = None  # package.json at the root, when it is one of Nx's inputs
    in_workspaces: bool = False  # selected by the package manager's globs (package exports count)
    config_files: list[str] = field(default_factory=list)
    named_inputs: dict[str, Any] = field(default_factory=dict)  # project-level ``namedInputs``
    #: targets nx.json plugins infer (``nx_plugins``): name -> (plugin, config), below targetDefaults
    inferred: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)
    #: each target as package.json, then project.json configure it (``targets`` merges them)
    own_layers: dict[str, list[Any]] = field(default_factory=dict)
    #: made by a plugin alone (its package.json outside the globs): Nx gives it no package name
    #: (``metadata.js.packageName``), so no package.json dependency or import resolves to it
    plugin_only: bool = False

    @property
    def package(self) -> str:
        """The project root as ctxsel spells directories ("" for the workspace root)."""
        return "" if self.root == "." else self.root


@dataclass
class NxWorkspace:
    root: Path
    nx_json: dict[str, Any]
    root_manifest: dict[str, Any] | None
    projects: dict[str, NxProject]  # by name
    files: list[str]
    warnings: list[str] = field(default_factory=list)


def package_json_globs(root: Path, tracker: InputTracker, warnings: list[str] | None = None) -> list[str]:
    """Nx's ``getGlobPatternsFromPackageManagerWorkspaces``: the root package.json's
    ``workspaces``, then pnpm-workspace.yaml's ``packages``, then lerna.json's.

    Nx reads pnpm-workspace.yaml with js-yaml's default (YAML 1.2 core) schema, not as pnpm
    does: ``y``, ``n``, ``yes``, ``on`` are the directory names they spell (pnpm 12 reads
    booleans). A file it cannot use -- not YAML, a duplicate key, ``packages`` not a list, an
    entry that is no string (``true``, ``1``, empty) -- gives a warning ("Unable to parse
    pnpm-workspace.yaml") and no pnpm globs at all (measured with Nx 24.0.6); ``warnings``
    gains the same."""
    from .workspace import read_json

    patterns: list[str] = []
    if tracker.exists(root / "package.json"):
        declared = read_json(root / "package.json", tracker).get("workspaces")
        if isinstance(declared, dict):
            declared = declared.get("packages")
        if isinstance(declared, list):
            patterns += [str(p) for p in declared]
    pnpm_file = root / "pnpm-workspace.yaml"
    if tracker.exists(pnpm_file):
        try:
            patterns += _pnpm_packages_as_nx_reads_them(tracker.read_text(pnpm_file))
        except ValueError as exc:
            if warnings is not None:
                warnings.append(f"pnpm-workspace.yaml: {exc}; Nx says \"Unable to parse pnpm-workspace.yaml\" and "
                                "takes no projects from it, nor does ctxsel")
    lerna = root / "lerna.json"
    if tracker.exists(lerna):
        packages = read_jsonc(lerna, tracker, root).get("packages")
        patterns += [str(p) for p in packages] if isinstance(packages, list) and packages else ["packages/*"]
    return patterns


def _pnpm_packages_as_nx_reads_them(text: str) -> list[str]:
    """pnpm-workspace.yaml's ``packages`` as Nx's ``normalizePatterns`` accepts them; ValueError
    (saying why) where js-yaml or Nx throws."""
    import yaml

    try:
        data = yaml.load(text, Loader=yaml12_loader(numbers=True))  # noqa: S506 -- a SafeLoader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise ValueError(f"not valid YAML{where}: {getattr(exc, 'problem', None) or exc}") from None
    packages = data.get("packages") if isinstance(data, dict) else None
    if packages is None or (isinstance(packages, (bool, int, float, str)) and not packages):  # falsy in JS
        return []
    if not isinstance(packages, list):
        raise ValueError("'packages' is not a list")
    for index, entry in enumerate(packages):
        if not isinstance(entry, str):
            raise ValueError(f"'packages' entry {index + 1} is {'null' if entry is None else type(entry).__name__}, not a string")
    return list(packages)




def _to_project_name(root: str) -> str:
    return root.rsplit("/", 1)[-1].lower()


def _targets_from_manifest(manifest: dict[str, Any], sibling: dict[str, Any] | None = None) -> dict[str, Any]:
    """package.json targets: scripts (or ``nx.includedScripts``) plus ``nx.targets``.

    A script that the ``project.json`` next to it (``sibling``) runs differently -- a
    ``command``, another executor, another script -- is no target here (Nx's
    ``buildProjectConfigurationFromPackageJson`` deletes it), so ``nx.targets`` of that name
    merge into the project.json target (measured: a ``{"command": ...}`` or explicit
    ``nx:run-commands`` test kept package.json's ``nx.targets.test.inputs``)."""
    scripts = manifest.get("scripts") if isinstance(manifest.get("scripts"), dict) else {}
    nx = manifest.get("nx") if isinstance(manifest.get("nx"), dict) else {}
    shadowed: set[str] = set()
    sibling_targets = sibling.get("targets") if isinstance(sibling, dict) else None
    for target, spec in (sibling_targets.items() if isinstance(sibling_targets, dict) else ()):
        spec = spec if isinstance(spec, dict) else {}
        options = spec.get("options") if isinstance(spec.get("options"), dict) else {}
        executor = spec.get("executor")
        if _js_truthy(spec.get("command")) or (_js_truthy(executor) and (
                executor != "nx:run-script" or options.get("script") != target)):
            shadowed.add(str(target))
    scripts = {k: v for k, v in scripts.items() if k not in shadowed}
    included = nx.get("includedScripts")
    names = included if isinstance(included, list) else list(scripts)
    targets: dict[str, Any] = {str(s): {"script": s} for s in names}
    if isinstance(nx.get("targets"), dict):
        for name, spec in nx["targets"].items():
            targets[str(name)] = merge_target(spec, targets.get(str(name)))
    return targets


#: the target Nx 24 adds to every public package.json project once ``@nx/js`` is installed
RELEASE_PUBLISH = "nx-release-publish"
RELEASE_PUBLISH_EXECUTOR = "@nx/js:release-publish"


@dataclass
class NxJsLookup:
    """Whether ``@nx/js`` resolves for a project, as Nx's ``hasNxJsPlugin`` asks Node:
    ``require.resolve('@nx/js/package.json', {paths: [projectRoot, <root>/.nx/installation,
    <root>, <nx's own directory>]})``. Node looks in ``node_modules`` of each path and its
    ancestors, then in ``NODE_PATH`` and ``~/.node_modules``/``~/.node_libraries``.

    Measured with nx 24.0.6: a stub ``node_modules/@nx/js/package.json`` at the workspace root
    is enough (the target appears; without it, it does not). nx's own directory is the one
    place a static read cannot see: an nx installed outside the workspace (globally, or
    ctxsel's test oracles) next to an ``@nx/js`` gives every public package the target too.
    """

    root: Path
    tracker: InputTracker
    _seen: dict[Path, bool] = field(default_factory=dict)

    def resolves(self, project_root: str) -> bool:
        starts = (self.root / project_root, self.root / ".nx" / "installation", self.root)
        return any(self._in_tree(start) for start in starts) or any(
            self.tracker.exists(d / "@nx" / "js" / "package.json") for d in node_global_dirs())

    def _in_tree(self, start: Path) -> bool:
        """``node_modules/@nx/js`` in ``start`` or an ancestor (Node's ``_nodeModulePaths``,
        which skips directories that are themselves named node_modules)."""
        for directory in (start, *start.parents):
            if directory not in self._seen:
                self._seen[directory] = directory.name != "node_modules" and self.tracker.exists(
                    directory / "node_modules" / "@nx" / "js" / "package.json")
            if self._seen[directory]:
                return True
        return False



def node_global_dirs() -> list[Path]:
    """The folders node searches after every ``node_modules`` (its ``Module.globalPaths``, less
    ``<node prefix>/lib/node``): ``NODE_PATH``'s entries, then ``~/.node_modules`` and
    ``~/.node_libraries``. Read from this process's environment, as the nx ctxsel runs sees it."""
    home = os.environ.get("HOME", "")
    extra = [os.path.join(home, ".node_modules"), os.path.join(home, ".node_libraries")] if home else []
    return [Path(d) for d in os.environ.get("NODE_PATH", "").split(os.pathsep) if d] + [Path(d) for d in extra]


def node_lookup_dirs(starts: Sequence[Path]) -> list[Path]:
    """The directories node's ``require.resolve(bare, {paths: starts})`` searches, in order: the
    ``node_modules`` of each start and of its ancestors (``Module._nodeModulePaths``, which skips
    a directory itself named node_modules), each once, then ``node_global_dirs``."""
    found: list[Path] = []
    for start in starts:
        for directory in (start, *start.parents):
            if directory.name != "node_modules" and directory / "node_modules" not in found:
                found.append(directory / "node_modules")
    return found + [d for d in node_global_dirs() if d not in found]


def release_publish_target(manifest: dict[str, Any], targets: dict[str, Any], nx_json: dict[str, Any],
                           has_nx_js: Callable[[], bool]) -> dict[str, Any] | None:
    """The ``nx-release-publish`` target Nx's ``readTargetsFromPackageJson`` adds to a package.json
    project, or None: only when the package is not ``private`` (JavaScript truthiness: measured,
    ``"private": "false"`` gets none, ``0`` gets it), has no target of that name from its scripts or
    ``nx.targets``, and ``@nx/js`` resolves. nx.json's catch-all targetDefaults for it are spread
    in, their ``dependsOn`` after ``^nx-release-publish`` (measured: ``["^nx-release-publish",
    "build"]`` under a targetDefaults ``dependsOn: ["build"]``); entries with a ``projects``
    filter do not apply here, as Nx reads them without a project."""
    if _js_truthy(manifest.get("private")) or RELEASE_PUBLISH in targets or not has_nx_js():
        return None
    spec = {"executor": RELEASE_PUBLISH_EXECUTOR}
    nobody = NxProject(name="", root=".")
    default = target_default(nx_json, RELEASE_PUBLISH, spec, nobody, {}, below_own=False) or {}
    extra = default.get("dependsOn") if isinstance(default.get("dependsOn"), list) else []
    options = default.get("options") if isinstance(default.get("options"), dict) else {}
    return {**spec, **default, "dependsOn": [f"^{RELEASE_PUBLISH}", *extra], "options": dict(options)}


def _string_list(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def _js_truthy(value: Any) -> bool:
    """JavaScript truthiness (``"false"`` is true, ``0`` and ``""`` are false), as Nx tests fields."""
    return value not in (None, False, 0, "") if not isinstance(value, float) or value == value else False


def manifest_tags(manifest: dict[str, Any]) -> list[str]:
    """Nx's ``getTagsFromPackageJson``: ``npm:private``/``npm:public``, ``npm:<keyword>``, then ``nx.tags``.

    These are real tags: ``implicitDependencies: ["tag:npm:public"]`` and ``nx show projects
    -p tag:npm:*`` select package.json projects by them (measured with Nx 24).
    """
    tags = ["npm:private" if _js_truthy(manifest.get("private")) else "npm:public"]
    keywords = manifest.get("keywords")
    if isinstance(keywords, list):
        tags += [f"npm:{k}" for k in keywords if isinstance(k, str)]
    nx = manifest.get("nx") if isinstance(manifest.get("nx"), dict) else {}
    return tags + _string_list(nx.get("tags"))


def read_nx_config(root: Path, rel: str, tracker: InputTracker) -> dict[str, Any]:
    """nx.json or a project.json as Nx 24 reads it (measured with nx 24.0.6): a BOM, a syntax
    error, an empty file or ``null`` fail every command; another value that is no object
    (``[]``, ``5``, ``"x"``) is an empty configuration (for a project.json: a project named after
    its directory). A project.json's fields are checked by ``check_config_shapes``; nx.json's
    ``plugins`` must be a list or null ("pluginConfigurations.map is not a function"), and no
    ``targetDefaults`` key may list a null entry (``{"test": [null]}``, whatever target the key
    names: "Cannot read properties of null (reading 'filter')"; ``{"test": null}`` is taken)."""
    refuse_bom(root, rel, tracker)
    text = tracker.read_text(root / rel)
    try:
        data = json.loads(_strip_jsonc(text))
    except json.JSONDecodeError as exc:
        raise ParseError(f"invalid JSON: {exc.msg}", Location(rel, exc.lineno)) from None
    if data is None:
        raise ParseError("null is no configuration (Nx fails on it)", Location(rel, 1))
    if not isinstance(data, dict):
        return {}
    if rel == "nx.json":
        data = _with_extended_nx_json(root, data, text, tracker)
        if data.get("plugins") is not None and not isinstance(data["plugins"], list):
            raise ParseError(f"plugins: {json.dumps(data['plugins'])} is no list (Nx fails on it: "
                             "'pluginConfigurations.map is not a function')",
                             Location(rel, _first_line_with(text, '"plugins"') or 1))
        defaults = data.get("targetDefaults")
        for key, value in defaults.items() if isinstance(defaults, dict) else ():
            if isinstance(value, list) and None in value:
                raise ParseError(f"targetDefaults {json.dumps(key)}: a null entry, which Nx cannot read "
                                 "('Cannot read properties of null (reading 'filter')')",
                                 Location(rel, _first_line_with(text, json.dumps(key)) or 1),
                                 hint="remove the null, or write {} for an entry that sets nothing")
    else:
        check_config_shapes(rel, text, data, ("tags", "implicitDependencies"))
    return data


#: the presets Nx 24 ships (``nx/presets/<name>.json``), for an ``extends`` that names one when
#: no nx is installed in the workspace; ``npm`` is what ``create-nx-workspace --preset=npm`` writes
NX_PRESETS: dict[str, dict[str, Any]] = {
    "npm": {"pluginsConfig": {"@nx/js": {"analyzeSourceFiles": False}}},
    "core": {},
}
_NX_PRESET = re.compile(r"nx/presets/(\w+)(?:\.json)?")


def _with_extended_nx_json(root: Path, data: dict[str, Any], text: str, tracker: InputTracker) -> dict[str, Any]:
    """nx.json merged over the file its ``extends`` names, as Nx 24's ``readNxJson`` does.

    Nx resolves ``extends`` with node's ``require.resolve`` from the workspace root and spreads
    that file's object under nx.json's (a shallow merge: nx.json's own ``pluginsConfig`` replaces
    the base's whole). Measured with nx 24.0.6: ``"nx/presets/npm.json"`` (also without
    ``.json``) turns off source-file analysis, so salesforce/lwc has no import edges; a base's own
    ``extends`` is not followed; an empty string, ``0`` or ``null`` is no ``extends``; a module
    that cannot be found, a non-string value or a base that is no JSON fails every command.
    """
    spec = data.get("extends")
    if not spec and not isinstance(spec, (list, dict)):
        return data
    line = _first_line_with(text, '"extends"') or 1
    if not isinstance(spec, str):
        raise ParseError(f"extends: {json.dumps(spec)} is no module name (Nx fails on it: "
                         "'The \"request\" argument must be of type string')", Location("nx.json", line))
    base_path = _resolve_extends(root, spec, tracker)
    if base_path is None:
        preset = _NX_PRESET.fullmatch(spec)
        if preset is None or preset.group(1) not in NX_PRESETS:
            relative_exists = not spec.startswith((".", "/")) and tracker.exists(root / spec)
            raise ParseError(f"extends: cannot find module {spec!r} (Nx fails on it)", Location("nx.json", line),
                             hint=f"write ./{spec}: node reads a bare name as a package" if relative_exists else None)
        return {**NX_PRESETS[preset.group(1)], **data}
    shown = os.path.relpath(base_path, root)
    base_text = tracker.read_text(base_path)
    if base_text.startswith("\ufeff"):
        raise ParseError("starts with a byte order mark, which Nx cannot parse ('InvalidSymbol at 1:1')",
                         Location(shown, 1), hint="save the file as UTF-8 without a BOM")
    try:
        base = json.loads(_strip_jsonc(base_text))
    except json.JSONDecodeError as exc:
        raise ParseError(f"invalid JSON (nx.json extends it): {exc.msg}", Location(shown, exc.lineno)) from None
    return {**base, **data} if isinstance(base, dict) else data


def _resolve_extends(root: Path, spec: str, tracker: InputTracker) -> Path | None:
    """The file node's ``require.resolve(spec, {paths: [<root>/.nx/installation, root]})`` finds
    (Nx's ``getNxRequirePaths``): a path (``./base.json``, ``../x``, absolute) from those two, a
    bare name in the ``node_modules`` node searches from them (``node_lookup_dirs``: the root's,
    its parents', then ``NODE_PATH``); each with node's extension tries (``.js``, ``.json``) --
    except in a package whose package.json has ``exports``, which alone maps its subpaths
    (``exports_target``) and ends the search. Measured with nx 24.0.6: a base in the parent
    directory's node_modules or in a ``NODE_PATH`` folder is found."""
    def as_file(stem: Path) -> Path | None:
        for candidate in (stem, stem.with_name(stem.name + ".js"), stem.with_name(stem.name + ".json")):
            if tracker.exists(candidate) and candidate.is_file():
                return candidate
        return None

    starts = (root / ".nx" / "installation", root)
    if spec.startswith(("./", "../", "/")) or spec in (".", ".."):
        stems = [Path(spec)] if os.path.isabs(spec) else [start / spec for start in starts]
        return next((found for found in map(as_file, stems) if found is not None), None)
    from .nx_resolve import package_name_of  # nx_resolve imports this module

    package = package_name_of(spec)
    for modules in node_lookup_dirs(starts):
        package_dir = modules / package
        try:
            manifest = json.loads(tracker.read_text(package_dir / "package.json"))
        except (OSError, ValueError):
            manifest = None
        if isinstance(manifest, dict) and manifest.get("exports") is not None:
            target = exports_target(manifest["exports"], "." + spec[len(package):])
            found = package_dir / target if target is not None else None
            return found if found is not None and tracker.exists(found) and found.is_file() else None
        found = as_file(modules / spec)
        if found is not None:
            return found
    return None


#: the conditions node's ``require`` matches in an ``exports`` map (``import`` is ESM only)
REQUIRE_CONDITIONS = ("require", "node", "node-addons", "default")


def exports_target(exports: Any, subpath: str) -> str | None:
    """The file (relative to the package) that a package.json ``exports`` map gives ``subpath``
    (``.`` or ``./x/y.json``) under ``require``, or None when node refuses it ("Package subpath
    ... is not defined by exports"): Shopify/cli's nx.json extends ``@nx/workspace/presets/npm.json``,
    which @nx/workspace maps ``./presets/*.json`` -> ``./dist/presets/*.json`` (nx 24.0.6
    follows it, measured). A ``*`` pattern key matches with the longest prefix before ``*``
    winning, then the longer key, as node's PATTERN_KEY_COMPARE orders them."""
    if isinstance(exports, (str, list)) or (isinstance(exports, dict) and not any(str(k).startswith(".") for k in exports)):
        exports = {".": exports}  # sugar: the whole value is the "." entry
    if not isinstance(exports, dict):
        return None
    target, star = exports.get(subpath), None
    if target is None and "*" not in subpath:
        best: tuple[int, int] | None = None
        for key, value in exports.items():
            head, sep, tail = str(key).partition("*")
            if (sep and "*" not in tail and subpath.startswith(head) and subpath.endswith(tail)
                    and len(subpath) >= len(head) + len(tail) and (best is None or (len(head), len(key)) > best)):
                best, target, star = (len(head), len(key)), value, subpath[len(head):len(subpath) - len(tail)]
    chosen = _exports_condition(target)
    if chosen is None or not chosen.startswith("./"):
        return None
    return chosen.replace("*", star) if star is not None else chosen


def _exports_condition(target: Any) -> str | None:
    """The path an ``exports`` value gives ``require``: a string; the first matching condition of
    an object (in its own key order, nested; a nested object matching nothing lets the next
    condition try, a null stops); the first usable entry of an array."""
    if isinstance(target, str):
        return target
    if isinstance(target, list):
        return next((t for t in map(_exports_condition, target) if t is not None), None)
    if isinstance(target, dict):
        for condition, value in target.items():
            if condition in REQUIRE_CONDITIONS:
                found = _exports_condition(value)
                if found is not None or value is None:
                    return found
    return None


def discover_projects(root: Path, tracker: InputTracker) -> NxWorkspace:
    """All projects of the Nx workspace at ``root``."""
    from .workspace import read_json

    nx_json = read_nx_config(root, "nx.json", tracker) if tracker.exists(root / "nx.json") else {}
    files = list_files(root, tracker)
    file_set = set(files)
    if "package.json" in file_set:
        refuse_bom(root, "package.json", tracker)
    root_manifest = read_json(root / "package.json", tracker) if "package.json" in file_set else None

    in_globs: set[str] = set()
    pm_dirs: set[str] = set()  # what the package manager's globs select, the root included
    warnings: list[str] = []
    if root_manifest is not None:
        dirs = expand_globs(root, package_json_globs(root, tracker, warnings), tracker)
        in_globs = {d or "." for d in dirs}
        pm_dirs = set(in_globs)
        if "nx" in root_manifest:
            in_globs.add(".")
        else:
            in_globs.discard(".")

    by_root: dict[str, NxProject] = {}
    nx_js = NxJsLookup(root, tracker)
    project_jsons: dict[str, tuple[str, dict[str, Any]]] = {}
    for f in files:
        if f == "project.json" or f.endswith("/project.json"):
            config = read_nx_config(root, f, tracker)
            proj_root = str(config.get("root") or (f.rsplit("/", 1)[0] if "/" in f else ".")).strip("/") or "."
            project_jsons[proj_root] = (f, config)
    # the project.json in each directory, whatever root it names (Nx's ``siblingProjectJson``)
    sibling = {(f.rsplit("/", 1)[0] if "/" in f else "."): config for f, config in project_jsons.values()}
    for f in files:
        if not (f == "package.json" or f.endswith("/package.json")):
            continue
        proj_root = f.rsplit("/", 1)[0] if "/" in f else "."
        if proj_root not in in_globs and proj_root not in project_jsons:
            continue
        if f != "package.json":
            refuse_bom(root, f, tracker)
        manifest = root_manifest if f == "package.json" else read_json(root / f, tracker)
        nx = manifest.get("nx") if isinstance(manifest.get("nx"), dict) else {}
        text = tracker.read_text(root / f)
        check_config_shapes(f, text, {"name": manifest.get("name")}, ())
        check_config_shapes(f, text, nx, ("implicitDependencies",), within="nx")
        if proj_root == "." and not _js_truthy(manifest.get("name")) and not _js_truthy(nx.get("name")):
            raise ParseError(
                "Nx requires the root package.json to specify a name if it is being used as an Nx project",
                Location("package.json", _first_line_with(tracker.read_text(root / f), '"nx"') or 1),
                hint='add a "name" (Nx fails on this workspace too)',
            )
        name = nx.get("name") or manifest.get("name") or _to_project_name(proj_root)
        targets = _targets_from_manifest(manifest, sibling.get(proj_root))
        publish = release_publish_target(manifest, targets, nx_json, partial(nx_js.resolves, proj_root))
        if publish is not None:
            targets[RELEASE_PUBLISH] = publish
        project = NxProject(
            name=str(name),
            root=proj_root,
            project_type=nx.get("projectType"),
            targets=targets,
            tags=manifest_tags(manifest),
            implicit=_string_list(nx.get("implicitDependencies")),
            implicit_source=f if nx.get("implicitDependencies") else "",
            manifest=manifest,
            in_workspaces=proj_root in in_globs,
            config_files=[f],
            named_inputs=dict(nx["namedInputs"]) if isinstance(nx.get("namedInputs"), dict) else {},
        )
        layout = nx_json.get("workspaceLayout") if isinstance(nx_json.get("workspaceLayout"), dict) else {}
        apps, libs = layout.get("appsDir"), layout.get("libsDir")
        if project.project_type is None:
            if apps and apps != libs and proj_root.startswith(apps):
                project.project_type = "application"
            elif libs is not None and proj_root.startswith(libs):
                project.project_type = "library"
        project.own_layers = {t: [spec] for t, spec in project.targets.items()}
        by_root[proj_root] = project
    for proj_root, (f, config) in project_jsons.items():
        project = by_root.get(proj_root)
        if project is None:
            project = NxProject(name=str(config.get("name") or _to_project_name(proj_root)), root=proj_root)
            by_root[proj_root] = project
        elif config.get("name"):
            project.name = str(config["name"])
        project.config_files.append(f)
        if config.get("projectType"):
            project.project_type = str(config["projectType"])
        if isinstance(config.get("targets"), dict):
            for target, spec in config["targets"].items():
                project.targets[str(target)] = merge_target(spec, project.targets.get(str(target)))
                project.own_layers.setdefault(str(target), []).append(spec)
        if isinstance(config.get("namedInputs"), dict):
            project.named_inputs.update(config["namedInputs"])
        project.tags += _string_list(config.get("tags"))
        if config.get("implicitDependencies"):
            project.implicit += _string_list(config["implicitDependencies"])
            project.implicit_source = f
    if nx_json.get("plugins"):
        _add_plugin_targets(root, tracker, nx_json, files, by_root, pm_dirs, warnings)
    projects: dict[str, NxProject] = {}
    for project in sorted(by_root.values(), key=lambda p: p.root):
        other = projects.get(project.name)
        if other is not None:
            raise ParseError(
                f"two Nx projects are named {project.name!r}: {other.root} and {project.root}",
                Location(project.config_files[-1]),
                hint="give one of them a different \"name\" (Nx refuses duplicate project names too)",
            )
        projects[project.name] = project
    return NxWorkspace(root, nx_json, root_manifest, projects, files, warnings)


def _add_plugin_targets(root: Path, tracker: InputTracker, nx_json: dict[str, Any], files: list[str],
                        by_root: dict[str, NxProject], pm_dirs: set[str], warnings: list[str]) -> None:
    """The targets (and projects) nx.json ``plugins`` infer, where ``nx_plugins`` models them."""
    from .nx_plugins import infer, plugin_project

    inference = infer(root, tracker, nx_json, files, set(by_root), pm_dirs)
    warnings.extend(inference.warnings)
    for proj_root, config in inference.new_roots.items():
        by_root[proj_root] = plugin_project(root, tracker, proj_root, config)
    for proj_root, targets in inference.targets.items():
        by_root[proj_root].inferred.update(targets)


def _first_line_with(text: str, needle: str) -> int | None:
    """1-based line of the first occurrence of ``needle`` (for error locations)."""
    at = text.find(needle)
    return text.count("\n", 0, at) + 1 if at >= 0 else None


def refuse_bom(root: Path, rel: str, tracker: InputTracker) -> None:
    """Nx 24 parses nx.json, project.json and the projects' package.json with a JSON parser that
    takes no byte order mark (measured with nx 24.0.6: "InvalidSymbol in <file> at 1:1", every
    command fails), so ctxsel refuses one too where other tools would read past it."""
    if tracker.read_text(root / rel).startswith("\ufeff"):
        raise ParseError("starts with a byte order mark, which Nx cannot parse ('InvalidSymbol at 1:1')",
                         Location(rel, 1), hint="save the file as UTF-8 without a BOM")


def _js_entries(value: Any) -> list[Any]:
    """The values JavaScript's ``Object.entries`` gives: a string's characters, a list's items,
    an object's values, nothing for numbers, booleans and null."""
    if isinstance(value, str):
        return list(value)
    if isinstance(value, list):
        return value
    return list(value.values()) if isinstance(value, dict) else []


def check_config_shapes(rel: str, text: str, config: dict[str, Any], fields: tuple[str, ...], within: str = "") -> None:
    """Refuse (exit 2, naming ``rel`` and the field's line) the project configuration values
    on which Nx 24's project graph fails, measured with nx 24.0.6 (every command fails then):
    - a ``name`` that is no string (number, boolean, object: "Failed to convert JavaScript value
      ... into rust type `String`"); null is no name;
    - ``targets`` whose entries (``Object.entries``: a string's characters too) are not objects:
      ``"targets": "build"``, ``[1]``, ``{"test": "echo"}`` ("Cannot use 'in' operator");
      ``"targets"`` given as a number, ``true`` or ``[]`` is taken;
    - a null target (``{"test": null}``): "Cannot read properties of null (reading 'executor')"
      from package.json's ``nx``, "could not be merged into the project graph" from project.json
      (only ``nx graph`` exits 0 then, printing a partial graph without the project's edges);
    - in ``fields``, each that is set (not null) but no list (``tags``, ``implicitDependencies``:
      "forEach is not a function").
    ``within``: the key ``config`` is the value of (package.json's ``"nx"``), for the line.
    """
    start = max(text.find(f'"{within}"'), 0) if within else 0

    def refuse(key: str, what: str) -> None:
        line = _first_line_with(text[start:], f'"{key}"')
        raise ParseError(f"{key}: {what}, which Nx cannot read (its project graph fails on it)",
                         Location(rel, line + text.count("\n", 0, start) if line else 1))

    name = config.get("name")
    if name is not None and not isinstance(name, str):
        refuse("name", f"{json.dumps(name)} is no string")
    for value in _js_entries(config.get("targets")):
        if not isinstance(value, (dict, list)):
            refuse("targets", f"a target {json.dumps(value)} is no object")
    for key in fields:
        if config.get(key) is not None and not isinstance(config[key], list):
            refuse(key, f"{json.dumps(config[key])} is no list")


def project_kind(project: NxProject, files: set[str]) -> str:
    """Nx's ``getProjectType``: lib / app / e2e, from projectType or the files at the root."""
    if project.project_type:
        if project.project_type == "library":
            return "lib"
        return "e2e" if project.name.endswith("-e2e") or project.name == "e2e" else "app"
    prefix = "" if project.root == "." else project.root + "/"
    if prefix + "tsconfig.lib.json" in files:
        return "lib"
    if prefix + "tsconfig.app.json" in files:
        return "app"
    manifest = project.manifest
    if manifest is not None and not any(k in manifest for k in ("exports", "main", "module", "bin")):
        return "app"
    return "lib"


# ---------------------------------------------------------------------- project patterns
_GLOB_CHARS = frozenset("*|{}()[")
#: ``minimatch(value, pattern, {dot: true})`` after ``_expand_braces``: git's reading of ``?``
#: and classes, ``**`` a globstar only as a whole segment (``a**`` and ``***`` are ``*``,
#: measured with Nx 24's minimatch), extglobs (``_extglob_regex``); an unclosed ``[`` or a
#: trailing ``\`` is a literal character rather than no match
_PROJECT_PATTERN = replace(GIT, star_runs=False, globstar_after_prefix=False, unclosed_class="literal",
                           trailing_backslash="literal")
#: ``minimatch.makeRe(pattern, {dot: true})``, which ``findMatchingProjects`` tests names,
#: roots and tags with: unlike ``minimatch()``, a trailing ``/**`` also matches the
#: directory itself (``apps/**`` selects a project rooted at ``apps``)
_MAKE_RE = replace(_PROJECT_PATTERN, tail_parent=True)


def _minimatch(pattern: str, value: str, make_re: bool = False, negate: bool = False) -> bool:
    """minimatch with ``dot: true``; ``make_re``: as the regex ``minimatch.makeRe`` builds, as
    Nx's project patterns (``-p``, ``implicitDependencies``, ``filter.projects``) match.

    makeRe reads leading ``!`` as minimatch does (``parseNegate``): an odd run negates the
    rest, which then matches every non-empty value it does not match -- so the project
    pattern ``!!(x)`` (Nx strips its own exclude ``!`` first) excludes every project
    (measured with Nx 24's minimatch 10.2.5: ``makeRe("!(ui/data)")`` is
    ``^(?!^\\(ui\\/data\\)$).+$``). ``negate``: the same reading for a plain ``minimatch()``
    call, as Nx matches target names with target globs (``target_glob_matches``)."""
    if value == pattern:
        return True
    negated = False
    if make_re or negate:
        body = pattern.lstrip("!")
        negated, pattern = (len(pattern) - len(body)) % 2 == 1, body
    hit = any(rx.fullmatch(value) for rx in _minimatch_regexes(pattern, make_re))
    return (bool(value) and not hit) if negated else hit


def target_glob_matches(pattern: str, target: str) -> bool:
    """Whether a target glob -- a targetDefaults key, a ``dependsOn`` target such as ``"^build*"``
    -- names ``target``: Nx 24 tests target names with ``minimatch(name, glob)``, which reads a
    leading ``!`` as negation, not as an extglob (measured with nx 24.0.6: ``"!b*"`` is every
    target not starting with ``b``; ``"!(build)"`` negates the literal ``(build)``, so it names
    ``build`` too; a task's dependency on itself is then dropped)."""
    return _minimatch(pattern, target, negate=True)


@lru_cache(maxsize=1024)
def _minimatch_regexes(pattern: str, make_re: bool = False) -> tuple[re.Pattern[str], ...]:
    """``pattern``'s brace alternatives, compiled once (plugin globs are matched against every file)."""
    if not make_re:
        glob = partial(glob_regex, dialect=_PROJECT_PATTERN)
        return tuple(re.compile(_extglob_regex(alt, glob)) for alt in _expand_braces(pattern))
    return tuple(re.compile(_extglob_regex(_make_re_extglobs(_make_re_segments(alt)), _make_re_glob))
                 for alt in _expand_braces(pattern))


#: a negated class as ``_wildmatch_class`` writes it (``[^/...]``), not ``?``'s ``[^/]``
_NEGATED_CLASS = re.compile(r"\[\^/(?!\])")


def _make_re_glob(text: str) -> str:
    """makeRe's regex for glob text between extglobs: git's reading, except that a negated
    class (``[!a]``) also matches ``/`` -- minimatch writes it as a JS ``[^a]`` (measured:
    ``makeRe("[!a]pp")`` is ``[^a]pp``, so ``[!a]pp`` names a project ``x/pp``)."""
    return _NEGATED_CLASS.sub("[^", glob_regex(text, dialect=_MAKE_RE))


def _make_re_extglobs(pattern: str) -> str:
    """``pattern`` with its extglobs read segment by segment, as minimatch reads them.

    minimatch splits the pattern on ``/`` before it parses extglobs, so a group whose ``)``
    lies in a later segment is no group: its ``(`` is a literal character (escaped here),
    while a ``?``/``*`` before it keeps its glob meaning and ``+``/``@``/``!`` are literal
    (measured: ``+(apps/app|x)`` matches only itself, ``*(li[a-z]/web)`` is
    ``[^/]*?\\(li[a-z]\\/web\\)``). Inside a group ``**`` is no globstar: ``@(**)`` matches one
    segment (``[^/]+?``)."""
    segments: list[str] = []
    for segment in pattern.split("/"):
        out: list[str] = []
        i = 0
        while (found := _EXTGLOB.search(segment, i)) is not None:
            start = found.start()
            end = closing_brace(segment, start + 1, "()")
            if end < 0:
                out.append(segment[i:start + 1] + "\\(")
                i = found.end()
                continue
            out.append(segment[i:start + 2] + re.sub(r"\*{2,}", "*", segment[start + 2:end]) + ")")
            i = end + 1
        out.append(segment[i:])
        segments.append("".join(out))
    return "/".join(segments)


def _make_re_segments(pattern: str) -> str:
    """``pattern`` without the globstars ``minimatch.makeRe`` drops.

    makeRe folds ``x/**/y`` into one regex piece and marks ``y`` as a globstar, so a ``**``
    segment right after ``y`` sees a globstar before it and is skipped: ``a/**/b/**`` is
    ``a/**/b`` (it matches ``a/x/b`` but not ``a/b/c``) and ``a/**/b/**/c`` is ``a/**/b/c``
    (measured with Nx 24's minimatch, whose ``minimatch()`` matches both)."""
    segments: list[str] = []
    for segment in pattern.split("/"):
        if not (segment == "**" and segments and segments[-1] == "**"):
            segments.append(segment)  # "**/**" is "**"
    folded: set[int] = set()  # the "y" of an "x/**/y"
    dropped: set[int] = set()
    for i, segment in enumerate(segments):
        if segment != "**" or i in folded:
            continue
        if i and (i - 1) in folded:
            dropped.add(i)
        elif 0 < i < len(segments) - 1 and segments[i + 1] != "**":
            folded.add(i + 1)
    return "/".join(s for i, s in enumerate(segments) if i not in dropped)


class InvalidProjectPattern(ValueError):
    """A project pattern Nx's ``findMatchingProjects`` fails on ("Invalid glob pattern")."""

    def __init__(self, pattern: str) -> None:
        super().__init__(f"{json.dumps(pattern)} is an invalid glob pattern for Nx")
        self.pattern = pattern


def _no_regex(value: str) -> bool:
    """Whether ``minimatch.makeRe(value, {dot: true})`` gives ``false``, on which Nx's
    ``getMatchingStringsWithCache`` throws: an empty pattern (``"!"`` once Nx strips its exclude
    ``!``, ``"directory:"``), a comment (``"#x"``), braces expanding to nothing but empty
    strings (``"{,}"``). measured with minimatch 10.2.5; ``"!#x"`` and ``"!"`` do give a regex."""
    return not value.startswith("!") and (value.startswith("#") or not any(_expand_braces(value)))


def match_projects(patterns: list[str], projects: dict[str, NxProject], native: bool = False) -> list[str]:
    """Nx's ``findMatchingProjects``: names, globs, ``tag:``/``name:``/``directory:``, ``!`` exclusions.

    A plain word that is not a project name matches names containing it as a
    hyphen-delimited word ("core" matches "@ws/core" but not "core-e2e"), as Nx does.
    A first ``!`` pattern starts from every project. ``native``: the Rust port Nx 24's hash
    planner matches ``{"input": x, "projects": [...]}`` task inputs with, which does neither
    (measured: ``["!other"]`` selects nothing there, ``["dependencies"]`` not ``@x/dependencies``).

    ``InvalidProjectPattern`` where Nx throws "Invalid glob pattern": a pattern that has no
    regex (``_no_regex``) once Nx gets to matching it as a glob -- a name glob, a tag glob some
    project's tags do not hold as such, a directory (measured with nx 24.0.6: ``"!"``, ``"#x"``
    and ``"directory:"`` in a ``dependsOn`` entry's ``projects``, ``"#x"`` in targetDefaults
    ``filter.projects``, ``["a", "!"]`` in implicitDependencies fail the command).
    """
    patterns = [p for p in patterns if p]
    if not patterns:
        return []
    if patterns[0].startswith("!") and not native:
        patterns = ["*", *patterns]
    names = list(projects)
    matched: dict[str, None] = {}

    def apply(name: str, exclude: bool) -> None:
        if exclude:
            matched.pop(name, None)
        else:
            matched[name] = None

    for raw in patterns:
        if raw.startswith("nx-cloud:"):
            continue
        exclude = raw.startswith("!")
        value = raw[1:] if exclude else raw
        kind = "unlabeled"
        if value not in projects and ":" in value:
            label, rest = value.split(":", 1)
            if label in ("name", "tag", "directory", "unlabeled"):
                kind, value = label, rest
        elif value in projects:
            kind = "name"
        if value == "*":
            for n in names:
                apply(n, exclude)
            continue
        invalid = not native and _no_regex(value)
        if kind == "tag":
            if invalid and any(c in _GLOB_CHARS for c in value) and any(value not in projects[n].tags for n in names):
                raise InvalidProjectPattern(raw)
            for n in names:
                tags = projects[n].tags
                if value in tags or (any(c in _GLOB_CHARS for c in value)
                                     and any(_minimatch(value, t, make_re=not native) for t in tags)):
                    apply(n, exclude)
            continue
        before = set(matched)
        if kind in ("name", "unlabeled"):
            if value in projects:
                apply(value, exclude)
            elif any(c in _GLOB_CHARS for c in value) or native:
                if invalid:
                    raise InvalidProjectPattern(raw)
                for n in names:
                    if _minimatch(value, n, make_re=not native):
                        apply(n, exclude)
            else:
                rx = re.compile(rf"(?<![@a-zA-Z0-9-]){re.escape(value)}(?![@a-zA-Z0-9-])", re.IGNORECASE)
                for n in names:
                    if rx.search(n):
                        apply(n, exclude)
            if kind == "name" or set(matched) != before:
                continue
        if invalid and names:
            raise InvalidProjectPattern(raw)
        for n in names:  # directory patterns (and unlabeled ones that matched no name)
            if _minimatch(value, projects[n].root, make_re=not native):
                apply(n, exclude)
    return list(matched)


def implicit_dependencies(source: str, projects: dict[str, NxProject]) -> tuple[list[str], list[str]]:
    """``(added, removed)`` project names for one project's ``implicitDependencies``.

    Nx's ``normalizeImplicitDependencies``: positive patterns select projects unless a
    negative pattern excludes them; every project a ``!pattern`` names is also removed
    from the source's dependencies, including edges found in package.json or imports.
    """
    raw = projects[source].implicit
    positive = [p for p in raw if not p.startswith("!")]
    negative = [p for p in raw if p.startswith("!")]
    added = [n for n in match_projects(positive + negative, projects) if n != source] if positive else []
    removed = match_projects([p[1:] for p in negative], projects)
    return added, removed


def invalid_implicit(source: str, projects: dict[str, NxProject]) -> list[str]:
    """The implicitDependencies entries that name no project (Nx refuses the workspace then)."""
    bad = []
    for entry in projects[source].implicit:
        name = entry[1:] if entry.startswith("!") else entry
        if name.startswith("nx-cloud:") or name in projects:
            continue
        if not match_projects([entry], projects):
            bad.append(entry)
    return bad


# ---------------------------------------------------------------------- target inputs
#: Nx's ``namedInputs.default`` when nx.json does not define it (``getNamedInputs``)
DEFAULT_NAMED_INPUTS: dict[str, Any] = {"default": ["{projectRoot}/**/*"]}
PROJECT_ROOT, WORKSPACE_ROOT = "{projectRoot}", "{workspaceRoot}"
SPREAD = "..."  # Nx's merge token: "the lower layer's value goes here"


class InvalidInputs(ValueError):
    """An ``inputs`` entry Nx refuses (an invalid fileset, an undefined named input)."""


class UnparsableGlob(InvalidInputs):
    """A fileset glob Nx's native parser rejects (``native_globs`` is None), met by a changed
    file below its literal directory: Nx plans the task, then fails matching that file against
    it (measured, nx 24.0.6: ``{projectRoot}/@(src/x|lib)/**`` makes ``nx affected -t test``
    exit with "Could not parse the glob" for any file of the project, its package.json
    included; ``{workspaceRoot}/tools/@(x/y|z).txt`` for ``tools/q.txt`` but not for
    ``README.md``; ``nx show projects --affected`` answers in all three cases)."""

    def __init__(self, glob: str) -> None:
        super().__init__(f"Nx cannot parse the glob {glob!r} (an extglob group must end in its own path segment)")
        self.glob = glob


def target_executor(spec: Any) -> str | None:
    """The executor Nx gives a target: its own, ``nx:run-commands`` for ``command``, ``nx:run-script`` for a script."""
    if not isinstance(spec, dict):
        return None
    if isinstance(spec.get("executor"), str):
        return spec["executor"]
    if "command" in spec:
        return "nx:run-commands"
    if "script" in spec:
        return "nx:run-script"
    return None


def _compatible(a: Any, b: Any, identity: bool = False) -> bool:
    """Nx's ``isCompatibleTarget``: executors agree (or one is unset); with ``identity`` also
    the command of two ``nx:run-commands`` targets and the script of two ``nx:run-script``
    ones (one unset: compatible). Measured: a project.json ``{"command": "echo own"}`` test
    replaces ``@nx/jest/plugin``'s ``jest`` test, inputs and all. (targetDefaults entries are
    checked on the executor only: Nx compares them with the command outside ``options``.)"""
    ea, eb = target_executor(a), target_executor(b)
    if ea is None or eb is None:
        return True
    if ea != eb:
        return False
    if identity and ea in ("nx:run-commands", "nx:run-script"):
        ia, ib = _identity(a, ea), _identity(b, eb)
        return not ia or not ib or ia == ib
    return True


def _identity(spec: dict[str, Any], executor: str) -> Any:
    """The command a run-commands target runs, or the script a run-script target runs."""
    options = spec.get("options") if isinstance(spec.get("options"), dict) else {}
    if executor == "nx:run-script":
        return options.get("script") or spec.get("script")
    if spec.get("command"):
        return spec["command"]
    commands = options.get("commands")
    joined = " && ".join(str(c) for c in commands) if isinstance(commands, list) else None
    return options.get("command") or joined


def merge_inputs(high: Any, low: Any, final: bool = False) -> Any:
    """An ``inputs``/``dependsOn`` list over a lower layer's: ``"..."`` spreads the lower one in place.

    Without a lower value the ``"..."`` stays for the next layer down (Nx defers it), unless
    this is the ``final`` merge, where it spreads nothing.
    """
    if not isinstance(high, list):
        return low if high is None else high
    if SPREAD not in high or (low is None and not final):
        return high
    out: list[Any] = []
    for entry in high:
        out.extend(low if entry == SPREAD and isinstance(low, list) else [] if entry == SPREAD else [entry])
    return out


def merge_target(high: Any, low: Any) -> Any:
    """A target configured twice for one root (package.json, then project.json):
    compatible targets merge field by field (``mergeTargetConfigurations``), others replace."""
    if not isinstance(high, dict) or not isinstance(low, dict) or not _compatible(high, low, identity=True):
        return high
    merged = {**low, **high}
    for key in ("inputs", "dependsOn"):
        if key in high or key in low:
            merged[key] = merge_inputs(high.get(key), low.get(key))
    return merged


def target_default(nx_json: dict[str, Any], target: str, spec: Any, project: NxProject,
                   projects: dict[str, NxProject], source_plugin: str | None = None,
                   below_own: bool = True) -> dict[str, Any] | None:
    """The nx.json ``targetDefaults`` that apply to one target (``resolveTargetDefault``).

    Keys in Nx's order: the target's executor, its exact name, then glob keys longest
    first; the first key with a matching entry wins. A key's value is one object or a list
    of entries with ``filter`` (``projects``/``executor``; a ``plugin`` filter matches only
    a target ``source_plugin`` made); matching entries merge in order, later winning.
    An entry whose executor disagrees with the target's is dropped, as Nx drops it, and so,
    ``below_own`` (the target's own configuration merges over the defaults, no plugin made
    it), is one that configuration replaces (``_default_replaced``); the key stays chosen.
    """
    defaults = nx_json.get("targetDefaults")
    if not isinstance(defaults, dict):
        return None
    executor = target_executor(spec)
    keys: list[str] = []
    if executor and executor in defaults:
        keys.append(executor)
    if target in defaults and target != executor:
        keys.append(target)
    keys += sorted((k for k in defaults if k not in (target, executor) and any(c in _GLOB_CHARS for c in k)
                    and target_glob_matches(k, target)), key=len, reverse=True)
    for key in keys:
        entries = defaults[key] if isinstance(defaults[key], list) else [defaults[key] or {}]
        matching = [{k: v for k, v in entry.items() if k != "filter"} for entry in entries
                    if isinstance(entry, dict) and _filter_matches(entry.get("filter"), executor, project, projects,
                                                                   source_plugin)]
        if not matching:
            continue  # only a key whose filters all fail gives way to the next one
        merged: dict[str, Any] | None = None
        for config in matching:
            if _compatible(spec, config) and not (below_own and _default_replaced(spec, config)):
                merged = config if merged is None else merge_target(config, merged)
        return merged
    return None


def _default_replaced(spec: Any, config: dict[str, Any]) -> bool:
    """Whether the target's own configuration replaces this targetDefaults entry when Nx
    merges it over the entry: a run-commands entry naming its ``executor`` and another
    command than the target's, a run-script entry another script (measured with nx 24.0.6:
    the entry's ``inputs`` are then lost; an entry with a bare ``command`` or ``options``
    and no executor merges, as Nx drops the executor it would stamp on it)."""
    executor = target_executor(spec)
    if executor not in ("nx:run-commands", "nx:run-script") or not isinstance(spec, dict):
        return False
    if executor == "nx:run-commands" and not isinstance(config.get("executor"), str):
        return False
    own, default = _identity(spec, executor), _identity(config, executor)
    return bool(own) and bool(default) and own != default


def filter_projects(value: Any) -> list[Any]:
    """A targetDefaults entry's truthy ``filter.projects`` as Nx 24 reads it, ``[...filter.projects]``:
    a list as it is, a string as its characters (measured with nx 24.0.6: ``"p1"`` applies to
    projects named ``p`` or ``1``, not to ``p1``); a number, ``true`` or an object fail every
    command ("filter.projects is not iterable"), so ctxsel exits 2. A falsy one (``""``) is no filter."""
    if isinstance(value, (list, str)):
        return list(value)
    raise ParseError(f"targetDefaults filter.projects {json.dumps(value)} is not iterable (Nx fails on it too)",
                     Location("nx.json"), hint='write a list of project patterns, e.g. "projects": ["p1"]')


def _filter_matches(flt: Any, executor: str | None, project: NxProject, projects: dict[str, NxProject],
                    source_plugin: str | None = None) -> bool:
    if not isinstance(flt, dict):
        return True
    if _js_truthy(flt.get("projects")):
        wanted = filter_projects(flt["projects"])
        try:
            if project.name not in match_projects([str(p) for p in wanted], projects):
                return False
        except InvalidProjectPattern as exc:  # measured with nx 24.0.6: every command fails
            raise ParseError(f"targetDefaults filter.projects: {exc}", Location("nx.json"),
                             hint="Nx fails on it too ('Invalid glob pattern')") from None
    if flt.get("plugin") and flt["plugin"] != source_plugin:
        return False
    return not (flt.get("executor") and flt["executor"] != executor)


@dataclass(frozen=True)
class TargetLayers:
    """One target's configuration: package.json/project.json merged (``own``) over nx.json
    targetDefaults (``default``); or, for a target a plugin inferred, every layer merged in
    Nx's order (``chain``)."""

    own: Any
    default: dict[str, Any] | None
    chain: dict[str, Any] | None = None

    def merged(self, name: str) -> Any:
        """``inputs``/``dependsOn`` merged down the layers (``"..."`` spreads the next layer's)."""
        if self.chain is not None:
            return merge_inputs(self.chain.get(name), None, final=True)
        own = self.own.get(name) if isinstance(self.own, dict) else None
        # a "..." of the defaults themselves spreads nothing (measured: targetDefaults inputs
        # ["!{projectRoot}/**/*.spec.ts", "..."] under a target without inputs: Nx keeps the first)
        return merge_inputs(merge_inputs(own, self.default.get(name) if self.default else None), None, final=True)

    def runnable(self) -> bool:
        """An executor (``command``, a script) in some layer, or a ``dependsOn`` that is not empty
        once merged (``nx:noop``; measured: ``{"dependsOn": ["..."]}`` over nothing is no target)."""
        return any(
            isinstance(layer, dict) and target_executor(layer) is not None
            for layer in ((self.chain,) if self.chain is not None else (self.own, self.default))
        ) or bool(self.merged("dependsOn"))


def target_layers(project: NxProject, target: str, nx_json: dict[str, Any], projects: dict[str, NxProject]) -> TargetLayers:
    """A target's layers. For a plugin's target, Nx 24's order (``mergeCreateNodesResults``):
    the inferred target, then targetDefaults, then package.json's, then project.json's, each
    merging over the result so far or replacing it when the executor/command differs.

    Measured: a project.json ``{"command": "echo own"}`` test over ``@nx/vitest``'s replaces it
    *and* the package.json ``nx.targets.test.inputs`` that had merged into it (without the
    plugin those inputs stay). targetDefaults are looked up for the executor that wins; a
    ``filter.plugin`` entry matches when the plugin gave the target its executor."""
    own = project.targets.get(target)
    made = project.inferred.get(target)
    if made is None:
        return TargetLayers(own, target_default(nx_json, target, own, project, projects))
    plugin, inferred = made
    replaced = own is not None and not _compatible(own, inferred, identity=True)
    effective = own if replaced else {**inferred, **(own if isinstance(own, dict) else {})}
    source = plugin if target_executor(own) is None else None
    default = target_default(nx_json, target, effective, project, projects, source, below_own=False)
    chain: dict[str, Any] = inferred
    if default is not None:
        # Nx stamps the default with the winning executor: it merges into the inferred
        # target, or replaces it when project config will replace it anyway
        chain = default if replaced else merge_target(default, chain)
    for layer in project.own_layers.get(target, ()):
        chain = merge_target(layer, chain)
    return TargetLayers(own, default, chain)


def target_names(project: NxProject) -> set[str]:
    """Every target a project has configured or inferred (runnable or not)."""
    return set(project.targets) | set(project.inferred)


def target_runnable(project: NxProject, target: str, nx_json: dict[str, Any], projects: dict[str, NxProject]) -> bool:
    """Whether Nx keeps a configured target: it needs an executor (``command``, a script), or a
    non-empty ``dependsOn`` (then it is ``nx:noop``), from its own config or targetDefaults.

    Measured with Nx 24: ``"nx": {"targets": {"test": {"inputs": [...]}}}`` alone is no
    target (``nx show projects --with-target test`` leaves the project out).
    """
    return target_layers(project, target, nx_json, projects).runnable()


def target_inputs(project: NxProject, target: str, nx_json: dict[str, Any], projects: dict[str, NxProject]) -> Any:
    """A target's ``inputs`` after nx.json's targetDefaults (project config wins, ``"..."`` spreads); None: none set."""
    return target_layers(project, target, nx_json, projects).merged("inputs")


def target_depends_on(project: NxProject, target: str, nx_json: dict[str, Any], projects: dict[str, NxProject]) -> Any:
    """A target's ``dependsOn`` after nx.json's targetDefaults (the project's own wins, ``"..."`` spreads)."""
    return target_layers(project, target, nx_json, projects).merged("dependsOn")


def target_spec(project: NxProject, target: str, nx_json: dict[str, Any], projects: dict[str, NxProject]) -> Any:
    """A target's configuration with nx.json's targetDefaults merged under it."""
    layers = target_layers(project, target, nx_json, projects)
    if layers.chain is not None:
        return layers.chain
    return merge_target(layers.own, layers.default) if layers.own is not None else layers.default


_OUTPUT_TOKEN = re.compile(r"{(projectRoot|workspaceRoot|(options.*))}")


def has_outputs(target: str, spec: Any) -> bool:
    """Whether Nx caches outputs for this task (``getOutputsForTargetAndConfiguration``): its
    ``outputs`` (an entry whose ``{options.x}`` no option fills is dropped), else an
    ``options.outputPath``, else the default folders of a ``build``/``prepare`` target.
    A ``dependentTasksOutputFiles`` input reads nothing from a task without outputs
    (measured with nx 24.0.6: ``^test`` and ``^lint`` tasks with none carry no change to
    the test reading them, ``^build`` ones do)."""
    spec = spec if isinstance(spec, dict) else {}
    options = spec.get("options") if isinstance(spec.get("options"), dict) else {}
    if spec.get("outputs"):
        return any(isinstance(o, str) and not _OUTPUT_TOKEN.search(_fill_options(o, options))
                   for o in spec["outputs"])
    if isinstance(spec.get("outputs"), list):
        return False
    return bool(options.get("outputPath")) or target in ("build", "prepare")


def _fill_options(output: str, options: dict[str, Any]) -> str:
    """``output`` with ``{projectRoot}``/``{workspaceRoot}`` and each ``{options.x}`` that
    ``options`` gives resolved (only whether a token stays matters)."""
    def fill(match: re.Match[str]) -> str:
        key = match.group(1)
        if key in ("projectRoot", "workspaceRoot"):
            return "."
        value = options.get(key[len("options."):])
        return str(value) if value not in (None, "") else match.group(0)

    return re.sub(r"{(projectRoot|workspaceRoot|options\.[^}]*)}", fill, output)


#: a stand-in for a task of a dependency that lacks the target (Nx's ``__nx_dummy_task__``)
_DUMMY = "\0dummy"


def depends_on_configs(depends_on: Any, project: str, has_target: Callable[[str, str], bool],
                       matching: Callable[[list[str]], list[str]] = lambda patterns: patterns,
                       target_names: Iterable[str] = ()) -> list[tuple[bool, str, list[str]]]:
    """A task's ``dependsOn`` read as Nx's ``getDependencyConfigs``, in order: (from the
    dependencies of the project it derives from, target, fixed projects) per entry."""
    configs: list[tuple[bool, str, list[str]]] = []  # (from dependencies, target, fixed projects)
    for entry in depends_on if isinstance(depends_on, list) else []:
        if isinstance(entry, str):
            upstream, name = entry.startswith("^"), entry.lstrip("^")
            candidates = [project]
            other, _, target = name.rpartition(":")
            if not upstream and other and not has_target(project, name) and has_target(other, target):
                candidates, name = [other], target  # "project:target"
        elif isinstance(entry, dict) and isinstance(entry.get("target"), str):
            name, wanted = entry["target"], entry.get("projects")
            upstream = False
            if isinstance(wanted, str) and wanted not in ("self", "dependencies"):
                wanted = [wanted]
            if isinstance(wanted, list):
                candidates = matching([str(p) for p in wanted])  # projects win over "dependencies"
            else:
                upstream = bool(entry.get("dependencies")) or wanted == "dependencies"
                candidates = [project]
        else:
            continue
        if any(c in _GLOB_CHARS for c in name):
            configs += [(upstream, t, candidates) for t in dict.fromkeys(target_names) if target_glob_matches(name, t)]
        else:
            configs.append((upstream, name, candidates))
    return configs


def task_dependencies(depends_on: Any, project: str, dependencies_of: Callable[[str], list[str]],
                      has_target: Callable[[str, str], bool],
                      matching: Callable[[list[str]], list[str]] = lambda patterns: patterns,
                      target_names: Iterable[str] = ()) -> list[tuple[str, str]]:
    """(project, target) of the tasks a task ``dependsOn``: ``"build"`` is the project's own,
    ``"^build"`` each direct dependency's, ``"lib:build"`` lib's, objects with ``target`` and
    ``dependencies``/``projects`` (project patterns, which ``matching`` resolves: names, globs,
    ``tag:``). A target glob (``"^build*"``) stands for every target name in the workspace
    (``target_names``) it matches (Nx's ``expandWildcardTargetConfiguration``).

    A dependency without the target is looked through, as Nx's ``createTaskGraph`` does: it
    stands in a dummy task that applies every ``dependsOn`` entry of the task again, the
    ``^`` ones to *that* project's dependencies, so ``^build`` reaches the nearest projects
    below that have ``build`` (measured: ``e2e -> docs (no build) -> core``, ``e2e:test``
    depends on ``core:build``). Dummies then give way to the real tasks below them; a dummy
    on a cycle Nx's ``findCycles`` reports gives nothing (``getNonDummyDeps``).
    """
    configs = depends_on_configs(depends_on, project, has_target, matching, target_names)
    Edge = tuple[str, str, str]  # (kind, project, target): kind "" for a real task
    root: Edge = ("\0root", project, "")
    edges: dict[Edge, list[Edge]] = {root: []}

    def expand(task: Edge, derive: str) -> Iterator[tuple[Edge, str]]:
        """Fill ``edges[task]``; yield each dummy (and the project it derives from) to expand next."""
        for upstream, name, candidates in configs:
            if not upstream:
                edges[task] += [("", p, name) for p in candidates if has_target(p, name)]
                continue
            for dep in dependencies_of(derive):
                if has_target(dep, name):
                    edges[task].append(("", dep, name))
                else:
                    dummy = (_DUMMY, dep, name)
                    edges[task].append(dummy)
                    edges.setdefault(dummy, [])
                    yield dummy, dep

    # depth first, iteratively: a chain of 3,000 projects without the target must not
    # overflow the stack (each dummy is expanded before the next edge of its parent)
    seen: set[tuple[Edge, str]] = {(root, project)}
    stack = [expand(root, project)]
    while stack:
        step = next(stack[-1], None)
        if step is None:
            stack.pop()
        elif step not in seen:
            seen.add(step)
            stack.append(expand(*step))
    cycles = _find_cycles(edges) if len(edges) > 1 else set()
    # the real tasks the root reaches, dummies replaced by what they reach (in order)
    found: list[Edge] = []
    visited: set[Edge] = {root}
    pending = [iter(edges[root])]
    while pending:
        edge = next(pending[-1], None)
        if edge is None:
            pending.pop()
        elif edge[0] != _DUMMY:
            found.append(edge)
        elif edge not in visited:
            visited.add(edge)
            if edge not in cycles:
                pending.append(iter(edges[edge]))
    return list(dict.fromkeys((p, t) for _, p, t in found))


def _find_cycles(edges: dict[Any, list[Any]]) -> set[Any]:
    """Nx's ``findCycles``: from each task in order, the depth-first path to the first cycle it
    meets (the path's start included, as Nx marks it), sharing one visited set. Iterative."""
    visited: set[Any] = set()
    cycles: set[Any] = set()
    for start in list(edges):
        if start in visited:
            continue
        visited.add(start)
        path, on_path = [start], {start}
        pending = [iter(edges.get(start, ()))]
        while pending:
            dep = next(pending[-1], _NO_EDGE)
            if dep is _NO_EDGE:
                pending.pop()
                on_path.discard(path.pop())
            elif dep in on_path:
                cycles.update(path)
                cycles.add(dep)
                break
            elif dep not in visited:
                visited.add(dep)
                path.append(dep)
                on_path.add(dep)
                pending.append(iter(edges.get(dep, ())))
    return cycles


_NO_EDGE = object()


def _utf16(text: str) -> bytes:
    return text.encode("utf-16-be", "surrogatepass")


def nx_node_order(roots: dict[str, str]) -> list[str]:
    """Project names (name -> root) in the order of Nx 24's project graph nodes, which its task
    graph visits: ``normalizeProjectNodes`` sorts the names (JavaScript's default sort, by UTF-16
    code units), then by root length, longest first. Its comparator answers "after" for equal
    lengths both ways, but V8's TimSort only asks "before?", so equal lengths keep name order
    (measured with nx 24.0.6: ``packages/0h packages/b tools/x/d apps/a0 libs/c apps/e zz/f aa/g``)."""
    names = sorted(roots, key=_utf16)
    return sorted(names, key=lambda name: -(len(_utf16(roots[name])) // 2))


def nx_task_graph(candidates: list[str], target: str, configs_of: Callable[[str, str], list[tuple[bool, str, list[str]]]],
                  dependencies_of: Callable[[str], list[str]],
                  has_target: Callable[[str, str], bool]) -> dict[tuple[str, str], list[tuple[str, str]]] | None:
    """Nx 24's one task graph for ``target`` over ``candidates`` (``createTaskGraph`` as
    ``nx affected`` builds it: every project having the target, in project graph order), after
    ``filterDummyTasks``: each real task -> the real tasks it depends on. None when no dummy task
    lies on a path ``findCycles`` marks; then each task's dependencies are what
    ``task_dependencies`` gives it alone.

    Why one graph: ``findCycles`` marks the whole depth-first path that led it to a cycle, from
    the first task it starts at, sharing one visited set across the graph. A dummy on such a path
    gives its task nothing below it (session 21's seed 248: ``p2:test -> dummy(p3) -> p0:build ->
    dummy(p3) -> p0:build`` costs ``p2:test`` the ``p5:build`` its transitive
    ``dependentTasksOutputFiles`` read), which only this order of task creation reproduces:
    candidates first, then each one depth first, a ``^`` dependency's edge before its task is
    processed, a same-project or ``projects`` dependency's task processed before its edge.
    ``dependencies_of`` must give Nx's order of each project's dependencies.
    """
    Key = tuple[str, ...]  # ("", project, target) or (_DUMMY, project, from project, from target, target)
    deps: dict[Key, list[Key]] = {("", c, target): [] for c in candidates}
    seen: set[tuple[Key, str]] = set()
    Step = tuple[Key, tuple[str, str], str]

    def process(key: Key, origin: tuple[str, str], derive: str) -> Iterator[Step]:
        """``ProcessTasks.processTask``: yields each task to process before going on."""
        if (key, derive) in seen:
            return
        seen.add((key, derive))
        for upstream, name, fixed in configs_of(*origin):
            if not upstream:
                for project in fixed:
                    if not has_target(project, name):
                        continue
                    real = ("", project, name)
                    if real not in deps:
                        deps[real] = []
                        yield real, (project, name), project
                    if real != key:
                        deps[key].append(real)
                continue
            for dep in dependencies_of(derive):
                if has_target(dep, name):
                    real = ("", dep, name)
                    if real != key:
                        deps[key].append(real)
                    if real not in deps:
                        deps[real] = []
                        yield real, (dep, name), dep
                else:
                    dummy = (_DUMMY, dep, origin[0], origin[1], name)
                    deps[key].append(dummy)
                    deps.setdefault(dummy, [])
                    yield dummy, origin, dep

    for candidate in candidates:  # depth first, iteratively (long chains must not overflow)
        stack = [process(("", candidate, target), (candidate, target), candidate)]
        while stack:
            step = next(stack[-1], None)
            if step is None:
                stack.pop()
            else:
                stack.append(process(*step))
    cycles = _find_cycles(deps)
    if not any(key[0] == _DUMMY for key in cycles):
        return None
    graph: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for key, edges in deps.items():
        if key[0] == _DUMMY:
            continue
        found: list[tuple[str, str]] = []
        for edge in edges:  # getNonDummyDeps, one seen set per edge
            visited: set[Key] = {key}
            pending = [iter([edge])]
            while pending:
                current = next(pending[-1], None)
                if current is None:
                    pending.pop()
                elif current in visited:
                    continue
                elif current[0] != _DUMMY:
                    found.append((current[1], current[2]))
                else:
                    visited.add(current)
                    if current not in cycles:
                        pending.append(iter(deps[current]))
        graph[(key[1], key[2])] = list(dict.fromkeys(found))
    return graph


@dataclass(frozen=True)
class TaskInputs:
    """One target's inputs split the way Nx's hash planner splits them (``splitInputsIntoSelfAndDependencies``).

    ``all_files``: the target sets no ``inputs``; Nx 24's affected-task selection then
    counts every file of the project itself (not only ``default``'s, measured) and
    ``^default`` for its dependencies.
    """

    project: tuple[str, ...] = ()  # {projectRoot} filesets over the project's own files, "!" kept
    workspace: tuple[str, ...] = ()  # {workspaceRoot} filesets over every file, "!" kept
    dep_inputs: tuple[str, ...] = ()  # named inputs each (transitive) dependency contributes: "^production"
    dep_filesets: tuple[str, ...] = ()  # "^{projectRoot}/..." filesets, expanded with each dependency's root
    project_inputs: tuple[tuple[str, tuple[str, ...]], ...] = ()  # {"input": x, "projects": [...]}
    dep_outputs: bool = False  # {"dependentTasksOutputFiles": ...}: outputs of the tasks it dependsOn
    all_files: bool = False
    transitive_outputs: bool = False  # ... "transitive": true: of every task below it, not only the direct ones
    pins_externals: bool = False  # an {"externalDependencies": [...]} input: it hashes those npm packages only
    pinned_externals: tuple[str, ...] = ()  # ... the packages those inputs name
    #: {"json": "{workspaceRoot}/f" or "{projectRoot}/f", "fields": [...]} inputs, their own and
    #: through named inputs: (f from the workspace root, fields, excludeFields). The task is
    #: affected by f changing in those fields (any change of f with --files; measured)
    json_inputs: tuple[JsonInput, ...] = ()


#: the object inputs Nx 24's native task hasher takes: (key, its type, optional keys and
#: theirs); "strs" is a list of strings, ("str", "strs") either (``index.d.ts``)
INPUT_SHAPES: tuple[tuple[str, Any, dict[str, Any]], ...] = (
    ("input", "str", {"dependencies": "bool", "projects": ("str", "strs")}),
    ("fileset", "str", {"dependencies": "bool", "includeIgnored": "bool"}),
    ("runtime", "str", {}),
    ("env", "str", {}),
    ("externalDependencies", "strs", {}),
    ("dependentTasksOutputFiles", "str", {"transitive": "bool"}),
    ("workingDirectory", "str", {}),
    ("json", "str", {"fields": "strs", "excludeFields": "strs", "always": "bool"}),
)


def _of_type(value: Any, kind: Any) -> bool:
    if isinstance(kind, tuple):
        return any(_of_type(value, k) for k in kind)
    if kind == "str":
        return isinstance(value, str)
    if kind == "bool":
        return isinstance(value, bool)
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def input_entry_valid(entry: Any) -> bool:
    """Whether Nx's native code takes ``entry`` of a target's ``inputs``: a string, or an object
    of one of ``INPUT_SHAPES`` (other keys are ignored; an optional key may be null). Measured:
    ``{"externalDependencies": null}``, ``{"externalDependencies": "x"}``, ``{"foo": 1}``, ``{}``,
    ``1``, ``null`` fail every ``nx show projects --affected`` ("Value is non of these types")."""
    if isinstance(entry, str):
        return True
    if not isinstance(entry, dict):
        return False
    return any(
        _of_type(entry.get(key), kind)
        and all(entry.get(k) is None or _of_type(entry[k], t) for k, t in optional.items())
        for key, kind, optional in INPUT_SHAPES
    )


#: a ``json`` input: (its file from the workspace root, ``fields``, ``excludeFields``)
JsonInput = tuple[str, tuple[str, ...], tuple[str, ...]]


def _json_input(entry: dict[str, Any], root: str) -> JsonInput | None:
    """A ``{"json": ...}`` input entry as a ``JsonInput``, ``{projectRoot}`` resolved with the root
    of the project whose inputs name it (measured: ``{projectRoot}/cfg.json`` with ``fields``
    selects the task, and through ``^named`` its dependents', when that field of the project's
    file changed); None for a file named otherwise."""
    name = entry.get("json")
    if not isinstance(name, str):
        return None
    if name.startswith(WORKSPACE_ROOT + "/"):
        path = name[len(WORKSPACE_ROOT) + 1:]
    elif name.startswith(PROJECT_ROOT + "/"):
        rest = name[len(PROJECT_ROOT) + 1:]
        path = rest if root in (".", "") else f"{root}/{rest}"
    else:
        return None
    return path, tuple(map(str, entry.get("fields") or ())), tuple(map(str, entry.get("excludeFields") or ()))


def _add_fileset(pattern: str, project: list[str], workspace: list[str]) -> None:
    bare = pattern[1:] if pattern.startswith("!") else pattern
    if bare.startswith(PROJECT_ROOT):
        project.append(pattern)
    elif bare.startswith(WORKSPACE_ROOT):
        workspace.append(pattern)
    else:
        raise InvalidInputs(
            f'"{pattern}" is an invalid fileset: Nx wants filesets to start with {{workspaceRoot}} or '
            "{projectRoot}, or a named input defined in nx.json"
        )


def _expand_named(name: str, named: dict[str, Any], project: list[str], workspace: list[str],
                  seen: tuple[str, ...] = (), flags: set[str] | None = None,
                  json_inputs: list[JsonInput] | None = None, root: str = ".") -> bool:
    """Nx's ``expandNamedInput``; True when the expansion reads dependency outputs.
    ``flags`` gains ``"externals"`` when it names ``externalDependencies``; ``json_inputs`` the
    ``json`` inputs, resolved for the project at ``root`` (measured: a named input holding a
    ``json`` input selects the task reading it when that field changed)."""
    if not isinstance(named.get(name), list):
        raise InvalidInputs(f"input {name!r} is not defined in namedInputs")
    if name in seen:
        raise InvalidInputs(f"namedInputs {' -> '.join((*seen, name))} refer to each other in a cycle")
    outputs = False
    for entry in named[name]:
        if isinstance(entry, str):
            if entry.startswith("^"):
                raise InvalidInputs(f"namedInputs definitions cannot start with ^ ({entry!r} in {name!r})")
            if isinstance(named.get(entry), list):
                outputs |= _expand_named(entry, named, project, workspace, (*seen, name), flags, json_inputs, root)
            else:
                _add_fileset(entry, project, workspace)
        elif isinstance(entry, dict):
            if entry.get("projects") or entry.get("dependencies"):
                raise InvalidInputs(f"namedInputs {name!r} may only refer to named inputs of the same project")
            if isinstance(entry.get("fileset"), str):
                _add_fileset(entry["fileset"], project, workspace)
            elif "dependentTasksOutputFiles" in entry:
                outputs = True
            elif isinstance(entry.get("input"), str):
                outputs |= _expand_named(entry["input"], named, project, workspace, (*seen, name), flags, json_inputs, root)
            elif "externalDependencies" in entry and flags is not None:
                _pin_externals(entry["externalDependencies"], flags)
            elif json_inputs is not None and (found := _json_input(entry, root)) is not None:
                json_inputs.append(found)
    return outputs


def expand_named(names: tuple[str, ...], named: dict[str, Any],
                 root: str = ".") -> tuple[tuple[str, ...], tuple[str, ...], tuple[JsonInput, ...]]:
    """(project filesets, workspace filesets, json inputs) of named inputs, expanded with the
    namedInputs of the project at ``root``."""
    project: list[str] = []
    workspace: list[str] = []
    json_inputs: list[JsonInput] = []
    for name in names:
        _expand_named(name, named, project, workspace, json_inputs=json_inputs, root=root)
    return tuple(project), tuple(workspace), tuple(json_inputs)


def expand_task_inputs(inputs: Any, named: dict[str, Any], root: str = ".") -> TaskInputs:
    """A target's ``inputs`` (None: Nx's defaults, ``["default", "^default"]``) as a ``TaskInputs``,
    for the project at ``root``.

    Raises ``InvalidInputs`` where Nx refuses to select or hash the task.
    """
    if inputs is None:
        return TaskInputs(dep_inputs=("default",), all_files=True)
    project: list[str] = []
    workspace: list[str] = []
    dep_inputs: list[str] = []
    dep_filesets: list[str] = []
    project_inputs: list[tuple[str, tuple[str, ...]]] = []
    outputs = transitive = False
    flags: set[str] = set()
    json_inputs: list[JsonInput] = []
    for entry in inputs if isinstance(inputs, list) else []:
        if isinstance(entry, str):
            if entry.startswith("^"):
                rest = entry[1:]
                if rest.startswith((PROJECT_ROOT, WORKSPACE_ROOT)):
                    dep_filesets.append(rest)
                else:
                    dep_inputs.append(rest)
            elif isinstance(named.get(entry), list):
                outputs |= _expand_named(entry, named, project, workspace, flags=flags, json_inputs=json_inputs, root=root)
            else:
                _add_fileset(entry, project, workspace)
        elif isinstance(entry, dict):
            projects = entry.get("projects")
            if isinstance(entry.get("fileset"), str):
                if entry.get("dependencies"):
                    dep_filesets.append(entry["fileset"])
                else:
                    _add_fileset(entry["fileset"], project, workspace)
            elif "dependentTasksOutputFiles" in entry:
                outputs = True
                transitive |= bool(entry.get("transitive"))
            elif isinstance(entry.get("input"), str):
                # Nx 24's hash planner (measured): any "projects" value is a list of project
                # patterns ("self" and "dependencies" included: the Nx 15 spellings name no
                # project any more, "[]" none); with "dependencies": true as well the entry
                # hashes nothing
                if projects is not None:
                    if not entry.get("dependencies"):
                        wanted = projects if isinstance(projects, list) else [projects]
                        project_inputs.append((entry["input"], tuple(str(p) for p in wanted)))
                elif entry.get("dependencies"):
                    dep_inputs.append(entry["input"])
                else:
                    outputs |= _expand_named(entry["input"], named, project, workspace, flags=flags,
                                             json_inputs=json_inputs, root=root)
            elif "externalDependencies" in entry:
                _pin_externals(entry["externalDependencies"], flags)
            elif (found := _json_input(entry, root)) is not None:
                json_inputs.append(found)
            # env, runtime: not files of the workspace
    return TaskInputs(tuple(project), tuple(workspace), tuple(dep_inputs), tuple(dep_filesets),
                      tuple(project_inputs), outputs, transitive_outputs=transitive, pins_externals="externals" in flags,
                      pinned_externals=tuple(sorted(f[len(PINNED):] for f in flags if f.startswith(PINNED))),
                      json_inputs=tuple(json_inputs))


#: how ``_pin_externals`` marks a pinned package name in the expansion's flags
PINNED = "external:"


def _pin_externals(names: Any, flags: set[str]) -> None:
    """Record an ``{"externalDependencies": [...]}`` input: the task hashes those npm packages only."""
    flags.add("externals")
    flags.update(PINNED + str(n) for n in (names if isinstance(names, list) else []))


def fileset_matches(patterns: tuple[str, ...], path: str, root: str | None = None) -> bool:
    """Whether ``path`` is among the files a fileset list selects.

    ``root`` given: ``{projectRoot}`` filesets over that project's files, all in one glob
    set as Nx 24's hasher builds it: every ``!`` pattern of the list excludes, whichever
    named input it came from (measured: ``["default", "production"]`` leaves out
    production's ``!**/*.spec.ts`` files), and a list of ``!`` patterns alone selects
    nothing (measured: a test whose inputs are ``["!{projectRoot}/docs/**"]`` is not
    affected by its project's ``src`` files). ``root`` None: ``{workspaceRoot}`` filesets
    over every file, likewise.
    """
    if not patterns:
        return False
    include, exclude, refused = _fileset_regexes(patterns, root)
    for directory, glob in refused:
        if not directory or path.startswith(directory + "/"):
            raise UnparsableGlob(glob)
    if include is None or not include.match(path):
        return False
    return exclude is None or not exclude.match(path)


@lru_cache(maxsize=4096)
def _fileset_regexes(patterns: tuple[str, ...], root: str | None) -> tuple[
        re.Pattern[str] | None, re.Pattern[str] | None, tuple[tuple[str, str], ...]]:
    """(included, excluded, refused) for ``fileset_matches``, compiled once per fileset list and
    root; ``refused``: (literal directory, fileset as written) of each glob Nx cannot parse (``UnparsableGlob``)."""
    from ctxsel.globs import glob_regex  # loaded with the selection, not on every CLI start

    positive: list[str] = []
    negative: list[str] = []
    refused: list[tuple[str, str]] = []
    for raw in patterns:
        negated = raw.startswith("!")
        body = raw[1:] if negated else raw
        token = PROJECT_ROOT if root is not None else WORKSPACE_ROOT
        body = body.replace(token, "" if root in (None, ".", "") else root, 1).lstrip("/")
        if not body:
            (negative if negated else positive).append(".*")
            continue
        converted = native_globs(body)
        if converted is None:
            segments = body.split("/")
            literal = next((k for k, seg in enumerate(segments) if any(c in _NATIVE_SPECIAL for c in seg)), len(segments))
            refused.append(("/".join(segments[:literal]), raw))
            continue
        if not converted:  # too many variants to spell out: read as one minimatch extglob
            (negative if negated else positive).append(_extglob_regex(body, glob_regex) + r"(?:/.*)?")
        for excluded, glob in converted:
            # a directory stands for the files below it (measured: "!{projectRoot}/docs" leaves docs/x.md out)
            (negative if negated or excluded else positive).append(glob_regex(glob) + r"(?:/.*)?")

    def union(rx: list[str]) -> re.Pattern[str] | None:
        return re.compile(r"\A(?:" + "|".join(f"(?:{r})" for r in rx) + r")\Z") if rx else None

    return union(positive), union(negative), tuple(refused)


#: optional or negated groups ``native_globs`` spells out at most (2**12 globs)
_MAX_NATIVE_BRANCHING = 12
#: characters that make a fileset segment a pattern rather than a literal directory for Nx
_NATIVE_SPECIAL = frozenset("*?[]{}()!+@\\")
_EXTGLOB = re.compile(r"[?*+@!]\(")


@dataclass(frozen=True)
class _GlobGroup:
    """One piece of a fileset segment as Nx's native glob parser reads it: ``kind`` is
    ``"*"``, ``"?"``, ``"+"``, ``"@"``, ``"!"`` (``!(x)``), ``"!."`` (``!(x).``), ``"!*"``
    (``!(x)*``), ``"("`` (a plain ``(a|b)`` group), or ``""`` for glob text."""

    kind: str
    text: str

    def glob(self) -> str:
        """The group as glob text: alternatives become a brace (``{a,b}``)."""
        if not self.kind:
            return self.text
        body = f"{{{self.text}}}" if "," in self.text else self.text
        return body + {"!.": ".", "!*": "*"}.get(self.kind, "")


def _parse_native_segment(segment: str) -> list[_GlobGroup] | None:
    """One ``/``-free segment as Nx 24's native glob parser splits it; None where it fails.

    An extglob opener (``*(``, ``?(``, ``+(``, ``@(``, ``!(``) or a bare ``(`` starts a group
    that ends at the first ``)`` (its alternatives split on ``|`` or ``,``); ``{,x}`` is an
    optional ``x``. Glob text runs up to ``?``, ``+``, ``@``, ``!`` or ``(`` -- not ``*``, so
    ``a*(.spec)`` is ``a*`` and the plain group ``(.spec)`` (measured: ``**/a*(.spec).ts``
    leaves ``a.ts`` out) -- and a ``?``/``+``/``@``/``!`` no ``(`` follows is text itself."""
    groups: list[_GlobGroup] = []
    i, n = 0, len(segment)
    while i < n:
        two = segment[i:i + 2]
        if two in ("*(", "?(", "+(", "@(", "!(") or segment[i] == "(":
            open_at = i + (0 if segment[i] == "(" else 1)
            close = segment.find(")", open_at)
            if close < 0:
                return None
            text = ",".join(re.split(r"[|,]", segment[open_at + 1:close]))
            kind = "(" if segment[i] == "(" else segment[i]
            i = close + 1
            if kind == "!" and segment[i:i + 1] in (".", "*"):
                kind, i = "!" + segment[i], i + 1
            groups.append(_GlobGroup(kind, text))
        elif two == "{,":
            close = segment.find("}", i)
            if close < 0:
                return None
            groups.append(_GlobGroup("?", ",".join(re.split(r"[|,]", segment[i + 2:close]))))
            i = close + 1
        else:
            j = i + 1 if segment[i] in "?+@!" else i
            while j < n and segment[j] not in "?+@!(" and not segment.startswith("{,", j):
                j += 1
            groups.append(_GlobGroup("", segment[i:j]))
            i = j
    return groups


def _build_native_segment(groups: list[_GlobGroup], last: bool) -> list[tuple[bool, str]]:
    """Nx's ``build_segment``: every (excluded, glob text) a segment's groups expand to. An
    optional group gives a glob without it and one with it (once: ``+(x)`` and ``*(x)`` are
    one occurrence); a negated group gives a glob with ``*`` in its place and an excluded one
    naming it (``!(a|b).ts`` is ``*.ts`` minus ``{a,b}.ts``); outside the last segment a
    ``*(x)`` or ``!(x)`` left out stands for ``*`` (measured: ``*(src|lib)/*.ts`` takes ``a/b.ts``)."""
    out: list[tuple[bool, str]] = []
    stack: list[tuple[str, int, bool]] = [("", 0, False)]
    while stack:
        existing, index, negative = stack.pop()
        if index == len(groups):
            out.append((negative, existing))
            continue
        group = groups[index]
        with_group = (existing + group.glob(), index + 1)
        if group.kind in ("*", "?", "!", "!.", "!*"):
            off = {"!.": "*.", "!*": "*"}.get(group.kind, "*" if group.kind in ("*", "!") and not last else existing)
            stack.append((*with_group, negative or group.kind.startswith("!")))
            stack.append((off, index + 1, negative))
        else:
            stack.append((*with_group, negative))
    return out


def native_globs(pattern: str) -> list[tuple[bool, str]] | None:
    """A fileset glob as Nx 24's native ``convert_glob`` rewrites it before matching: plain globs,
    each with whether it excludes (``dist/!(cache)/**`` is ``dist/*/**`` minus the directory
    ``dist/cache/``). None where Nx's parser fails -- a group spanning ``/`` (``@(src/a|lib)/**``)
    or an unclosed one: measured, ``nx affected`` exits with "Could not parse the glob". Empty
    when the optional and negated groups would spell out more than ``_MAX_NATIVE_VARIANTS``
    globs (each doubles them): a hostile input must not make ctxsel hang where Nx would."""
    segments = [_parse_native_segment(segment) for segment in pattern.split("/")]
    if any(groups is None for groups in segments):
        return None
    branching = sum(g.kind in ("*", "?", "!", "!.", "!*") for groups in segments if groups for g in groups)
    if branching > _MAX_NATIVE_BRANCHING:
        return []
    built = [_build_native_segment(groups, k == len(segments) - 1) for k, groups in enumerate(segments) if groups is not None]
    globs: dict[tuple[bool, str], None] = {}
    for product in itertools.product(*built):
        parts: list[str] = []
        excluded = False
        for k, (negative, text) in enumerate(product):
            parts.append(text)
            if negative:
                excluded = True
                if k < len(product) - 1:
                    parts.append("**")  # an excluded directory: everything below it
                    break
        globs[(excluded, "/".join(parts))] = None
    return list(globs)


def _extglob_regex(pattern: str, glob_regex: Callable[[str], str]) -> str:
    """A glob with extglob groups (``?(a|b)``, ``+(...)``, ``*(...)``, ``@(...)``, ``!(...)``) as regex source.

    Nx's globs take them (``!{projectRoot}/**/?(*.)+(spec|test).[jt]s?(x)?(.snap)`` in
    angular-eslint's and typescript-eslint's nx.json; measured: it leaves ``a.spec.ts``
    out). The text between groups goes through ``glob_regex``; ``!(...)`` is "no
    alternative starts here", within one path segment.
    """
    out: list[str] = []
    last = 0
    for found in _EXTGLOB.finditer(pattern):
        start = found.start()
        if start < last:
            continue
        end = closing_brace(pattern, start + 1, "()")
        if end < 0:
            break
        alternatives = split_alternatives(pattern[start + 2:end], "|", "()")
        inner = "|".join(_extglob_regex(a, glob_regex) for a in alternatives)
        if pattern[last:start]:
            out.append(glob_regex(pattern[last:start]))
        op = pattern[start]
        out.append({"?": f"(?:{inner})?", "*": f"(?:{inner})*", "+": f"(?:{inner})+", "@": f"(?:{inner})"}.get(
            op, f"(?:(?!(?:{inner})(?:/|$))[^/]*)"))
        last = end + 1
    if pattern[last:]:
        out.append(glob_regex(pattern[last:]))
    return "".join(out)


# ---------------------------------------------------------------------- npm packages (external nodes)
#: the lockfiles Nx makes ``npm:`` external nodes from, in the order it detects the package
#: manager (bun's text lockfile first; the binary bun.lockb is not read)
NPM_LOCKFILES = ("bun.lock", "pnpm-lock.yaml", "yarn.lock", "package-lock.json")


class NpmUnreadable(ValueError):
    """ctxsel cannot read this lockfile the way Nx does (another format, a parse error)."""


@dataclass(frozen=True)
class NpmNodes:
    """Nx's external nodes of one lockfile, by name, where ctxsel needs them by node.

    Nx's root package.json diff takes the *first* node of a package name (``touchedNpmPackages``),
    while a project's edge and an ``externalDependencies`` pin name ``npm:<name>``: with bun.lock
    the first is always a versioned ``npm:is-odd@1.0.0`` (its parser adds the hoisted nodes last,
    ``createHoistedNodes``), with package-lock.json a nested version whose key sorts before the
    hoisted one (``node_modules/is-odd/node_modules/left-pad``), which only its parents reach."""

    of: dict[str, tuple[str, ...]]  # package name -> its node names, in the order Nx makes them
    deps: dict[str, frozenset[str]]  # node name -> the node names it depends on


@dataclass(frozen=True)
class NpmPackages:
    """The npm packages of one lockfile version, as Nx's external nodes know them.

    Nx's ``projectsAffectedByDependencyUpdates: "auto"`` diffs two lockfile versions by
    package *name* (each name's set of (version, hash) pairs, ``collectPackageFingerprints``)
    and walks back from the changed packages through package-to-package edges to the projects
    using them; an ``externalDependencies`` task input must name one of them.
    """

    fingerprints: dict[str, frozenset[tuple[str, str]]]
    deps: dict[str, frozenset[str]]  # package name -> the names its locked entries depend on
    #: builds ``nodes`` on first use (package-lock.json v2/v3 and text bun.lock; None for the
    #: lockfiles ctxsel follows by name only): only a root package.json change needs them
    read_nodes: "Callable[[], NpmNodes] | None" = field(default=None, compare=False, repr=False)

    @cached_property
    def nodes(self) -> "NpmNodes | None":
        """Nx's external nodes of this lockfile (``NpmNodes``), where ctxsel knows them."""
        return self.read_nodes() if self.read_nodes is not None else None

    def manifest_node(self, name: str) -> str | None:
        """The node a root package.json change of ``name`` moves, when ctxsel knows the nodes."""
        found = self.nodes.of.get(name) if self.nodes is not None else None
        return found[0] if found else None

    def manifest_moves(self, names: Iterable[str]) -> tuple[frozenset[str], frozenset[str]]:
        """What a root package.json change of ``names`` moves: (the names ctxsel follows by name,
        having no nodes for them; the nodes Nx moves, ``manifest_node``)."""
        by_node = {n: self.manifest_node(n) for n in names}
        return (frozenset(n for n, node in by_node.items() if not node),
                frozenset(node for node in by_node.values() if node))

    def reaches(self, names: Iterable[str], nodes: Collection[str]) -> bool:
        """Whether the nodes ``names`` name (``npm:<name>``, else the first of the name; how Nx
        resolves a project's npm dependency and an ``externalDependencies`` entry) lead to one of
        ``nodes`` through node-to-node edges."""
        graph = self.nodes
        if graph is None:
            return False
        named = (f"npm:{n}" if f"npm:{n}" in graph.deps else self.manifest_node(n) for n in names)
        seen = {node for node in named if node}
        stack = list(seen)
        while stack:
            node = stack.pop()
            if node in nodes:
                return True
            for dep in graph.deps.get(node, ()):
                if dep not in seen:
                    seen.add(dep)
                    stack.append(dep)
        return False

    def changed(self, newer: "NpmPackages") -> set[str]:
        """Package names whose fingerprints differ between ``self`` (base) and ``newer`` (head)."""
        names = set(self.fingerprints) | set(newer.fingerprints)
        return {n for n in names if self.fingerprints.get(n) != newer.fingerprints.get(n)}

    def closure(self, names: Iterable[str]) -> set[str]:
        """``names`` that are locked packages, and every locked package they depend on."""
        seen = {n for n in names if n in self.fingerprints}
        stack = list(seen)
        while stack:
            for dep in self.deps.get(stack.pop(), ()):
                if dep in self.fingerprints and dep not in seen:
                    seen.add(dep)
                    stack.append(dep)
        return seen


def read_npm_packages(lockfile: str, text: str) -> NpmPackages:
    """Parse ``text``, the lockfile named ``lockfile`` (package-lock.json v1-v3, pnpm-lock.yaml
    v6-v9, yarn.lock v1 and berry, text bun.lock); ``NpmUnreadable`` for anything else (bun.lockb)
    or a broken file."""
    fingerprints: dict[str, set[tuple[str, str]]] = {}
    deps: dict[str, set[str]] = {}
    read_nodes: Callable[[], NpmNodes] | None = None

    def add(name: str, version: Any, digest: Any, entry: Any, fields: tuple[str, ...]) -> None:
        if not name:
            return
        fingerprints.setdefault(name, set()).add((str(version or ""), str(digest or "")))
        bucket = deps.setdefault(name, set())
        for fld in fields:
            declared = entry.get(fld) if isinstance(entry, dict) else None
            if isinstance(declared, dict):
                bucket.update(str(d) for d in declared)

    fields = ("dependencies", "optionalDependencies", "peerDependencies")
    if lockfile == "package-lock.json":
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise NpmUnreadable(f"{lockfile}: {exc}") from None
        packages = data.get("packages") if isinstance(data, dict) else None
        if isinstance(packages, dict):  # v2, v3
            for key, entry in packages.items():
                if "node_modules/" not in key or not isinstance(entry, dict) or entry.get("link"):
                    continue
                name = entry.get("name") or key.rsplit("node_modules/", 1)[1]
                add(str(name), entry.get("version"), entry.get("integrity") or entry.get("resolved"), entry, fields)
            read_nodes = partial(_npm_nodes, packages)
        elif isinstance(data, dict) and isinstance(data.get("dependencies"), dict):  # v1: nested "dependencies"
            stack = [data["dependencies"]]
            while stack:
                for name, entry in stack.pop().items():
                    if not isinstance(entry, dict) or str(entry.get("version", "")).startswith("file:"):
                        continue
                    add(str(name), entry.get("version"), entry.get("integrity") or entry.get("resolved"), entry, ("requires",))
                    if isinstance(entry.get("dependencies"), dict):
                        stack.append(entry["dependencies"])
        else:
            raise NpmUnreadable(f"{lockfile}: neither packages nor dependencies")
    elif lockfile == "pnpm-lock.yaml":
        import yaml

        try:
            data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # noqa: S506 -- safe loader
        except yaml.YAMLError as exc:
            raise NpmUnreadable(f"{lockfile}: {exc}") from None
        if not isinstance(data, dict):
            raise NpmUnreadable(f"{lockfile}: not a mapping")
        tables = [data.get("packages") or {}, data.get("snapshots") or {}]
        if not all(isinstance(t, dict) for t in tables):
            raise NpmUnreadable(f"{lockfile}: malformed packages")
        for number, table in enumerate(tables):
            for key, entry in table.items():
                name, version = _pnpm_key(str(key))
                resolution = entry.get("resolution") if isinstance(entry, dict) else None
                digest = resolution.get("integrity") or resolution.get("tarball") if isinstance(resolution, dict) else None
                if number == 0:
                    add(name, version, digest, entry, fields)
                elif isinstance(entry, dict):  # v9 snapshots: what each package depends on
                    for fld in fields:
                        if isinstance(entry.get(fld), dict):
                            deps.setdefault(name, set()).update(str(d) for d in entry[fld])
    elif lockfile == "yarn.lock":
        from .lockfile import LockfileUnreadable, parse_berry_lockfile, parse_yarn1_lockfile

        try:
            berry = parse_berry_lockfile(text)
            entries = parse_yarn1_lockfile(text) if berry is None else {}
        except LockfileUnreadable as exc:
            raise NpmUnreadable(f"{lockfile}: {exc}") from None
        if berry is not None:
            for name, version, digest, entry in _berry_nodes(berry):
                add(name, version, digest, entry, ("dependencies", "optionalDependencies"))
        for key, entry in entries.items():
            at = key.find("@", 1)
            add(key[:at] if at > 0 else key, entry.get("version"), entry.get("integrity") or entry.get("resolved"), entry,
                ("dependencies", "optionalDependencies"))
    elif lockfile == "bun.lock":
        try:
            data = json.loads(_strip_jsonc(text))
        except ValueError as exc:
            raise NpmUnreadable(f"{lockfile}: {exc}") from None
        # no package-to-package edges: Nx draws them from the versioned node (npm:is-odd@1.0.0),
        # while a project's edge goes to the hoisted one (npm:is-odd), so a moved dependency of
        # a package reaches no project through it (measured: left-pad moved, is-odd depending
        # on it, the project using is-odd not affected)
        found = _bun_nodes(data)
        for name, version, digest, entry in found:
            add(name, version, digest, entry, ())
        read_nodes = partial(_bun_node_graph, data, found)
    else:
        raise NpmUnreadable(f"ctxsel does not read {lockfile} for Nx")
    return NpmPackages({n: frozenset(f) for n, f in fingerprints.items()}, {n: frozenset(d) for n, d in deps.items()},
                       read_nodes)


def _npm_nodes(packages: dict[str, Any]) -> NpmNodes:
    """Nx's external nodes of a package-lock.json v2/v3 ``packages`` object (``npm-parser.js``
    ``getNodes``/``getDependencies``): one per package name and version, in the order the keys
    first name them, ``npm:<name>`` for the version at ``node_modules/<name>`` and
    ``npm:<name>@<version>`` for the others; a key's dependencies resolve to the nearest
    ``node_modules/<dep>`` up its path (``findTarget``; ctxsel does not check the range)."""
    node_at: dict[str, tuple[str, str]] = {}
    for key, entry in packages.items():
        if "node_modules" not in key or not isinstance(entry, dict) or entry.get("link") or entry.get("inBundle"):
            continue
        version = entry.get("version")
        if not version or (entry.get("resolved") and version not in str(entry["resolved"])):
            version = entry.get("resolved")
        if version:
            node_at[key] = (key.rsplit("node_modules/", 1)[1], str(version))
    hoisted = {name: version for key, (name, version) in node_at.items() if key == f"node_modules/{name}"}
    names: dict[tuple[str, str], str] = {}
    of: dict[str, list[str]] = {}
    deps: dict[str, set[str]] = {}
    for name, version in node_at.values():
        if (name, version) not in names:
            names[(name, version)] = f"npm:{name}" if hoisted.get(name) == version else f"npm:{name}@{version}"
            of.setdefault(name, []).append(names[(name, version)])
            deps[names[(name, version)]] = set()
    for key, node in node_at.items():
        entry = packages[key]
        for fld in ("peerDependencies", "dependencies", "optionalDependencies"):
            declared = entry.get(fld)
            for dep in declared if isinstance(declared, dict) else ():
                path = key
                while True:
                    target = node_at.get(f"{path}/node_modules/{dep}" if path else f"node_modules/{dep}")
                    if target or not path:
                        break
                    cut = path.rfind("node_modules/")
                    path = path[:cut].rstrip("/") if cut > 0 else ""
                if target:
                    deps[names[node]].add(names[target])
    return NpmNodes({n: tuple(v) for n, v in of.items()}, {n: frozenset(d) for n, d in deps.items()})


def _bun_node_graph(data: dict[str, Any], found: list[tuple[str, str, str, dict[str, Any]]]) -> NpmNodes:
    """Nx's external nodes of a text bun.lock (``_bun_nodes`` gave them): the versioned
    ``npm:<name>@<version>`` nodes, depending on versioned nodes (``resolveTargetNodeName``),
    then a hoisted ``npm:<name>`` per name bun hoists, depending on nothing."""
    of: dict[str, list[str]] = {}
    declared: dict[str, dict[str, Any]] = {}
    for name, version, _digest, entry in found:
        of.setdefault(name, []).append(f"npm:{name}@{version}")
        declared[f"npm:{name}@{version}"] = entry
    deps = {node: frozenset(of[d][0] for d in entry if d in of) for node, entry in declared.items()}
    hoisted = _bun_hoisted_names(data)
    for name, nodes in of.items():
        if name in hoisted:
            nodes.append(f"npm:{name}")
            deps[f"npm:{name}"] = frozenset()
    return NpmNodes({n: tuple(v) for n, v in of.items()}, deps)


def _bun_hoisted_names(data: dict[str, Any]) -> set[str]:
    """The names Nx's bun parser makes a hoisted ``npm:<name>`` node for (``shouldCreateHoistedNode``):
    ``packages`` has an entry keyed by the name itself, or some workspace declares it."""
    names = set(data["packages"])
    for workspace in data["workspaces"].values():
        for fld in ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies"):
            declared = workspace.get(fld) if isinstance(workspace, dict) else None
            if isinstance(declared, dict):
                names.update(declared)
    return names


def _berry_nodes(entries: dict[str, dict[str, Any]]) -> list[tuple[str, str, str, dict[str, Any]]]:
    """(package name, version, hash, entry) of each external node Nx's yarn parser makes from a
    berry lockfile (``getNodes`` with ``isBerry``), the parts its ``"auto"`` diff compares:

    - ``linkType: soft`` entries (workspaces, ``link:``/``portal:``) are no nodes;
    - the version is the entry's ``version``; for an alias (a resolution naming another
      package) the descriptor's range (``npm:real@^1``); for a resolution other than
      ``name@npm:<version>`` (a tarball, git, ``file:``) the resolution after ``name@``;
    - the hash is ``checksum`` (berry writes no ``integrity``), else one made of name and
      version; a ``@patch:`` entry is no node of its own: its checksum and resolution are
      folded into the hash of the package's node of the same version
      (``foldPatchIntoExternalNodeHashes``, patches in resolution order);
    - per package name and version the first entry wins (``existingNode``).
    """
    nodes: dict[str, dict[str, list[Any]]] = {}  # name -> map key -> [version, hash, entry]
    patches: dict[str, list[dict[str, Any]]] = {}
    for keys, entry in entries.items():
        if entry.get("linkType") == "soft":
            continue
        by_name: dict[str, list[str]] = {}
        for key in keys.split(", "):
            by_name.setdefault(key[:key.find("@", 1)], []).append(key)
        if "@patch:" in keys:
            for name in by_name:
                patches.setdefault(name, []).append(entry)
            continue
        resolution = entry.get("resolution")
        resolution = resolution if isinstance(resolution, str) else ""
        snapshot_version = str(entry.get("version") or "")
        for name, name_keys in by_name.items():
            if resolution and not resolution.startswith(f"{name}@"):  # an alias
                version = name_keys[0][name_keys[0].find("@", 1) + 1:]
            elif resolution and resolution.split("::")[0] != f"{name}@npm:{snapshot_version}":
                version = resolution[len(name) + 1:]
            else:
                version = snapshot_version
            versions = nodes.setdefault(name, {})
            if version in versions:
                continue
            digest = entry.get("integrity") or entry.get("checksum") or f"\0{name}@{version}"
            versions[snapshot_version if snapshot_version and snapshot_version != version else version] = [
                version, str(digest), entry]
    for name, found in patches.items():
        for key, node in nodes.get(name, {}).items():
            matching = sorted((p for p in found if p.get("version") and p.get("version") in (key, node[0])),
                              key=lambda p: f"{p.get('resolution') or ''}\0{p.get('checksum') or ''}")
            seen: set[tuple[str, ...]] = set()
            parts: list[str] = []
            for patch in matching:
                own = tuple(str(p) for p in (patch.get("checksum"), patch.get("resolution")) if p)
                if own and own not in seen:
                    seen.add(own)
                    parts += own
            if parts:
                node[1] = "\0".join((node[1], *parts))
    return [(name, v[0], v[1], v[2]) for name, versions in nodes.items() for v in versions.values()]


def _bun_spec(spec: str) -> tuple[str, str, str]:
    """(name, version, protocol) of a bun.lock resolved spec (``parseResolvedSpec``):
    ``a@1.0.0``, ``@s/a@1.0.0``, ``a@npm:real@1.0.0`` (an alias: ``npm:real@1.0.0``),
    ``a@github:u/r#sha``, ``a@workspace:packages/a``; a protocol Nx does not know keeps the spec."""
    at = spec.find("@", 1) if spec.startswith("@") else spec.find("@")
    if at == -1:
        return "", "", "npm"
    name, rest = spec[:at], spec[at + 1:]
    protocol, colon, body = rest.partition(":")
    if not colon:
        return name, rest, "npm"
    if protocol == "npm":
        real, sep, version = body.rpartition("@")
        if not sep:
            return name, body, protocol
        return name, version if real == name else f"npm:{body}", protocol
    if protocol in ("workspace", "github", "git", "file", "link", "https", "http"):
        return name, rest, protocol
    return name, spec, protocol


def _bun_nodes(data: Any) -> list[tuple[str, str, str, dict[str, Any]]]:
    """(package name, version, hash, metadata) of each external node Nx 24 makes from a
    text ``bun.lock`` (``getBunTextLockfileNodes``), the parts its ``"auto"`` diff compares.

    Nx fails (every project affected) without a ``packages`` or ``workspaces`` object. No
    node for a workspace package (a ``workspace:``/``file:`` spec, a name a workspace
    depends on by ``workspace:``/``file:``) nor for a name under ``patches``; an alias key
    (``alias`` -> ``real@npm:...``, not nested under a path) makes a node for each name. The
    hash is the integrity (4th element) of an npm entry, or the manifest's ``dist.shasum``;
    for other entries all of spec, tarball, metadata and hash. The first entry of a
    (name, version) wins."""
    if not isinstance(data, dict) or not isinstance(data.get("packages"), dict) or not isinstance(data.get("workspaces"), dict):
        raise NpmUnreadable("bun.lock: no packages or workspaces object")
    workspaces, packages = data["workspaces"], data["packages"]
    manifests = data.get("manifests") if isinstance(data.get("manifests"), dict) else {}
    workspace_paths = {p for p in workspaces if p}
    workspace_names: set[str] = set()
    for info in (data.get("workspacePackages") or {}).values() if isinstance(data.get("workspacePackages"), dict) else ():
        if isinstance(info, dict) and isinstance(info.get("name"), str):
            workspace_names.add(info["name"])
    for workspace in workspaces.values():
        for fld in ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies"):
            declared = workspace.get(fld) if isinstance(workspace, dict) else None
            for dep, spec in (declared or {}).items() if isinstance(declared, dict) else ():
                if isinstance(spec, str) and spec.startswith(("workspace:", "file:")):
                    workspace_names.add(dep)
    patched = set(data.get("patches") or {}) if isinstance(data.get("patches"), dict) else set()
    parsed: dict[str, tuple[str, str, str]] = {}
    for key, entry in packages.items():
        if isinstance(entry, list) and entry and isinstance(entry[0], str):
            parsed[key] = _bun_spec(entry[0])
            if parsed[key][2] in ("workspace", "file") and parsed[key][0]:
                workspace_names.add(parsed[key][0])

    def digest(entry: list[Any], name: str, version: str) -> str:
        if len(entry) == 4 and isinstance(entry[3], str) and entry[3]:
            dist = (manifests.get(f"{name}@{version}") or {}).get("dist") if isinstance(manifests, dict) else None
            return str(dist["shasum"]) if isinstance(dist, dict) and dist.get("shasum") else entry[3]
        parts = [entry[0]] + [entry[1]] if len(entry) > 1 and isinstance(entry[1], str) and entry[1] else [entry[0]]
        if len(entry) > 2 and _js_truthy(entry[2]):
            parts.append(json.dumps(entry[2], separators=(",", ":")))
        if len(entry) > 3 and isinstance(entry[3], str) and entry[3]:
            parts.append(entry[3])
        return "\0".join(parts)

    def nested(key: str) -> bool:  # ``isNestedPackageKey``
        slash = key.rfind("/")
        if slash == -1:
            return False
        prefix = key[:slash]
        if prefix in workspace_paths or prefix in workspace_names or (prefix.startswith("@") and "/" in prefix):
            return True
        return not (key.find("/") == slash and key.startswith("@"))

    nodes: dict[tuple[str, str], tuple[str, str, str, dict[str, Any]]] = {}
    for key, entry in packages.items():
        if key not in parsed or len(entry) > 4:
            continue
        name, version, protocol = parsed[key]
        if not name or not version or name in workspace_names or name in patched or protocol == "workspace":
            continue
        deps = next((e for e in entry[2:3] + entry[1:2] if isinstance(e, dict)), {})  # ``extractPackageDependencies``
        if not nested(key) and key != name:  # an alias: a node for the alias and one for the package
            aliased = f"npm:{name}@{version}"
            nodes.setdefault((key, "\0alias"), (key, aliased, digest(entry, key, aliased), deps))  # one per alias
        nodes.setdefault((name, version), (name, version, digest(entry, name, version), deps))
    return list(nodes.values())


def _pnpm_key(key: str) -> tuple[str, str]:
    """(name, version) of a pnpm-lock.yaml ``packages``/``snapshots`` key: ``/a@1.0.0`` (v6),
    ``@s/a@1.0.0(peer@2.0.0)`` (v9); the peer suffix is not part of the version."""
    key = key[1:] if key.startswith("/") else key
    key = key.split("(", 1)[0]
    at = key.find("@", 1)
    return (key[:at], key[at + 1:]) if at > 0 else (key, "")
