"""Targets that Nx's official plugins infer ("Project Crystal"), read without running node.

Real Nx workspaces get their ``test`` targets from plugins listed in nx.json ``plugins``
(``"@nx/vitest"``, ``{"plugin": "@nx/jest/plugin", "options": {...}, "include": [...]}``).
Each plugin globs for a config file, takes the file's directory as the project root, and
adds targets there. What this module reproduces, read from the plugins' ``createNodes``
(version 23.2.1, the newest published next to nx 24.0.6, see ``.ci/oracles-nx-plugins.sh``):

- ``@nx/vitest``: ``**/{vite,vitest}.config.{js,ts,mjs,mts,cjs,cts}``; a root needs a
  ``package.json`` or ``project.json`` beside the config (any package.json, also one outside
  the package manager's globs: then the plugin alone makes the project, named by the
  package.json ``name``, with no other targets and no ``npm:`` tags). The ``testTargetName``
  target (default ``test``) exists for a ``vitest.config.*`` and for a ``vite.config.*``
  whose resolved config has a ``test`` block; a root-level config with ``test.projects`` is an
  orchestrator and makes nothing.
- ``@nx/jest/plugin``: ``**/jest.config.{cjs,mjs,js,cts,mts,ts}``; a root needs a
  ``project.json``, or a ``package.json`` inside the package manager's globs; a config that
  calls ``getJestProjectsAsync()`` makes nothing. The ``targetName`` target (default ``test``)
  always exists.

Deciding by executing the config is not possible here; the static rules and their limits:
a ``vite.config.*`` has a test block when it, or a file it imports by a relative path, has a
``test:`` key (a ``test`` key built at run time is missed, a ``test:`` key of something else
counts); a root config is an orchestrator when it has a ``projects:`` key. Inputs are the
plugins' fixed ones (``default``/``^production``, ``externalDependencies``, ...); the files a
jest config names (``transform``, ``setupFiles``, presets) and the ``{"json": tsconfig}``
inputs are not added (ctxsel's affected-file rules do not read json inputs). ``ciTargetName``
(atomized per-spec targets) is not modelled: a warning says so.

Layering (Nx 24's ``mergeCreateNodesResults``): plugin targets first, in nx.json order, later
plugins merging over earlier ones; then nx.json ``targetDefaults`` (a ``filter.plugin`` entry
matches targets that plugin made); then package.json and project.json, which win field by
field, or replace the inferred target when their executor differs (a ``scripts.test`` makes
the target ``nx:run-script``). ``nx_workspace.target_layers`` applies this.

Plugins not modelled here (``@nx/eslint/plugin``, ``@nx/js/typescript``, ``@nx/vite/plugin``,
``@nx/playwright/plugin``, third-party ones, ...) keep a warning naming them: their targets
are unknown to ``--source static``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from ctxsel.cache import InputTracker
from ctxsel.errors import Location, ParseError

if TYPE_CHECKING:
    from .nx_workspace import NxProject

#: the plugin packages modelled, as nx.json names them
VITEST, JEST = "@nx/vitest", "@nx/jest/plugin"
#: createNodes globs, copied from the plugins
VITEST_GLOB = "**/{vite,vitest}.config.{js,ts,mjs,mts,cjs,cts}"
JEST_GLOB = "**/jest.config.{cjs,mjs,js,cts,mts,ts}"
#: the ``createNodes`` globs of Nx's official plugins (23.2.1). A changed file a project owns
#: that matches one (whatever the entry's include/exclude) touches every task of that project,
#: as a package.json or project.json does: Nx's affected-task matcher takes every plugin's
#: pattern as a project configuration file pattern (``getProjectGlobPatterns``)
CREATE_NODES_GLOBS: dict[str, tuple[str, ...]] = {
    VITEST: (VITEST_GLOB,),
    JEST: (JEST_GLOB,),
    "@nx/vite/plugin": ("**/vite.config.{js,ts,mjs,mts,cjs,cts}",),
    "@nx/playwright/plugin": ("**/playwright.config.{js,ts,cjs,cts,mjs,mts}",),
    "@nx/cypress/plugin": ("**/cypress.config.{js,ts,mjs,cjs}",),
    "@nx/js/typescript": ("**/tsconfig*.json",),
    "@nx/eslint/plugin": tuple(f"**/{name}" for name in (
        ".eslintrc", ".eslintrc.js", ".eslintrc.cjs", ".eslintrc.yaml", ".eslintrc.yml", ".eslintrc.json",
        "eslint.config.cjs", "eslint.config.js", "eslint.config.mjs", "eslint.config.cts", "eslint.config.ts",
        "eslint.config.mts")),
}
#: test-like targets of plugins ctxsel does not model, for the warning
UNMODELLED_TEST_LIKE = {
    "@nx/playwright/plugin": "e2e",
    "@nx/cypress/plugin": "e2e",
}
#: a ``test:`` key in a config object (``test: {``, ``"test": {``)
_TEST_KEY = re.compile(r"""(?:^|[{,\s])(?:test|"test"|'test')\s*:""")
_PROJECTS_KEY = re.compile(r"""(?:^|[{,\s])(?:projects|"projects"|'projects')\s*:""")
_RELATIVE_IMPORT = re.compile(r"""(?:from\s*|import\s*\(\s*|require\s*\(\s*|import\s+)["'](\.\.?/[^"']+)["']""")
_CONFIG_EXTENSIONS = (".ts", ".mts", ".cts", ".js", ".mjs", ".cjs")


@dataclass(frozen=True)
class PluginEntry:
    """One entry of nx.json ``plugins`` (string or object form)."""

    name: str
    options: dict[str, Any]
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()

    def selects(self, path: str) -> bool:
        """Nx's ``findMatchingConfigFiles``: include (empty: all) and not exclude (minimatch, dot)."""
        return _patterns_match(self.include, path, True) and not _patterns_match(self.exclude, path, False)


@dataclass
class Inference:
    """What the modelled plugins add to a workspace."""

    #: project root -> target -> (plugin name, target config), in merge order
    targets: dict[str, dict[str, tuple[str, dict[str, Any]]]] = field(default_factory=dict)
    #: roots the plugins make projects at that no project.json / package.json glob made
    new_roots: dict[str, str] = field(default_factory=dict)  # root -> config file that made it
    warnings: list[str] = field(default_factory=list)


def plugin_entries(nx_json: dict[str, Any]) -> list[PluginEntry]:
    """nx.json ``plugins`` as entries (malformed ones are skipped: Nx fails on them itself)."""
    entries: list[PluginEntry] = []
    plugins = nx_json.get("plugins")
    for raw in plugins if isinstance(plugins, list) else []:
        if isinstance(raw, str):
            entries.append(PluginEntry(raw, {}))
        elif isinstance(raw, dict) and isinstance(raw.get("plugin"), str):
            options = raw.get("options") if isinstance(raw.get("options"), dict) else {}
            entries.append(PluginEntry(raw["plugin"], dict(options), _strings(raw.get("include")),
                                       _strings(raw.get("exclude"))))
    return entries


def infer(root: Path, tracker: InputTracker, nx_json: dict[str, Any], files: list[str],
          existing_roots: set[str], in_globs: set[str]) -> Inference:
    """The targets of every modelled plugin, and warnings for the others.

    ``existing_roots``: roots projects already have (project.json, package.json in the
    globs); ``in_globs``: directories whose package.json the package manager's globs select.
    """
    from .nx_workspace import _minimatch

    result = Inference()
    entries = plugin_entries(nx_json)
    unmodelled: list[str] = []
    for entry in entries:
        build = _BUILDERS.get(entry.name)
        if build is None:
            if entry.name not in unmodelled:
                unmodelled.append(entry.name)
            continue
        globs = CREATE_NODES_GLOBS[entry.name]  # every modelled plugin has its row there
        for config in files:
            if not any(_minimatch(glob, config) for glob in globs) or not entry.selects(config):
                continue
            project_root = config.rsplit("/", 1)[0] if "/" in config else "."
            made = build(root, tracker, nx_json, entry, config, project_root, in_globs, result.warnings)
            if made is None:
                continue
            if project_root not in existing_roots:
                result.new_roots.setdefault(project_root, config)
            per_root = result.targets.setdefault(project_root, {})
            for target, spec in made.items():
                per_root[target] = _merge_plugin_target(entry.name, spec, per_root.get(target))
    if unmodelled:  # one line, not one per plugin: real nx.json files list three or four
        named = ", ".join(f"{n!r} (e.g. {UNMODELLED_TEST_LIKE[n]!r})" if n in UNMODELLED_TEST_LIKE else repr(n)
                          for n in unmodelled)
        result.warnings.append(
            f"nx.json plugins {named}: the targets (and projects) they infer are unknown to --source static "
            f"(modelled: {VITEST}, {JEST}; install node_modules and use --source tool for the rest)"
        )
    return result


def project_config_patterns(nx_json: dict[str, Any]) -> tuple[str, ...]:
    """The createNodes globs of the plugins nx.json lists (those ``CREATE_NODES_GLOBS`` knows)."""
    patterns: dict[str, None] = {}
    for entry in plugin_entries(nx_json):
        patterns.update(dict.fromkeys(CREATE_NODES_GLOBS.get(entry.name, ())))
    return tuple(patterns)


def _merge_plugin_target(plugin: str, spec: dict[str, Any],
                         earlier: tuple[str, dict[str, Any]] | None) -> tuple[str, dict[str, Any]]:
    """A later plugin's target over an earlier one's at the same root (compatible: field by field)."""
    from .nx_workspace import merge_target

    if earlier is None:
        return plugin, spec
    return plugin, merge_target(spec, earlier[1])


def plugin_project(root: Path, tracker: InputTracker, project_root: str, config: str) -> "NxProject":
    """A project only a plugin made (its package.json is outside the package manager's globs):
    Nx names it by the package.json ``name`` (``validateProject``) and fails without one."""
    from .nx_workspace import NxProject
    from .workspace import read_json

    manifest_path = "package.json" if project_root == "." else f"{project_root}/package.json"
    manifest = read_json(root / manifest_path, tracker)
    name = manifest.get("name")
    if not isinstance(name, str) or not name:
        raise ParseError(
            f"the project {config} makes at {project_root} has no name",
            Location(manifest_path),
            hint='add a "name" to that package.json (Nx fails with "has no name provided" too)',
        )
    named = manifest.get("nx", {}).get("namedInputs") if isinstance(manifest.get("nx"), dict) else None
    return NxProject(name=name, root=project_root, manifest=manifest, config_files=[manifest_path],
                     named_inputs=dict(named) if isinstance(named, dict) else {})


# ---------------------------------------------------------------------- per plugin
Builder = Callable[[Path, InputTracker, dict[str, Any], PluginEntry, str, str, set[str], list[str]],
                   "dict[str, dict[str, Any]] | None"]


def _vitest(root: Path, tracker: InputTracker, nx_json: dict[str, Any], entry: PluginEntry, config: str,
            project_root: str, in_globs: set[str], warnings: list[str]) -> dict[str, dict[str, Any]] | None:
    """@nx/vitest's ``buildVitestTargets`` (static reading of the config, see the module doc)."""
    if not _has_sibling_config(root, tracker, project_root):
        return None
    text = _read(root / config, tracker)
    if project_root == "." and _PROJECTS_KEY.search(text):
        return None  # a root orchestrator config (test.projects): no project
    if "vitest.config" not in config and not _has_test_block(root, tracker, config, text, set()):
        return {}
    options = entry.options
    target_name = str(options.get("testTargetName") or "test")
    if options.get("ciTargetName"):
        _warn_once(warnings, f"nx.json plugin {entry.name!r}: ciTargetName {options['ciTargetName']!r} (atomized "
                             "per-spec targets) is not modelled by --source static")
    named = _named_inputs(root, tracker, nx_json, project_root)
    typecheck = bool(re.search(r"typecheck\s*:\s*\{[^}]*enabled\s*:\s*true", text))
    inputs: list[Any] = (
        ["default", "^production",
         {"fileset": "{projectRoot}/tsconfig.spec.json", "dependencies": True},
         {"fileset": "{projectRoot}/tsconfig.storybook.json", "dependencies": True}]
        if "production" in named else ["default", "^default"]
    )
    inputs += [{"externalDependencies": ["vitest"]}, {"env": "CI"},
               {"dependentTasksOutputFiles": "**/*.{js,d.ts}" if typecheck else "**/*.js", "transitive": True}]
    mode = options.get("testMode") or "watch"
    return {target_name: {
        "command": "vitest run" if mode == "run" else "vitest",
        "options": {"cwd": project_root},
        "cache": True,
        "inputs": inputs,
    }}


def _jest(root: Path, tracker: InputTracker, nx_json: dict[str, Any], entry: PluginEntry, config: str,
          project_root: str, in_globs: set[str], warnings: list[str]) -> dict[str, dict[str, Any]] | None:
    """@nx/jest/plugin's ``checkIfConfigFileShouldBeProject`` and ``buildJestTargets``."""
    prefix = "" if project_root == "." else project_root + "/"
    if not tracker.exists(root / f"{prefix}project.json") and (
            not tracker.exists(root / f"{prefix}package.json") or project_root not in in_globs):
        return None
    if "getJestProjectsAsync()" in _read(root / config, tracker):
        return None
    options = entry.options
    if options.get("ciTargetName"):
        _warn_once(warnings, f"nx.json plugin {entry.name!r}: ciTargetName {options['ciTargetName']!r} (atomized "
                             "per-spec targets) is not modelled by --source static")
    named = _named_inputs(root, tracker, nx_json, project_root)
    inputs: list[Any] = ["default", "^production" if "production" in named else "^default",
                         {"externalDependencies": ["jest"]}]
    return {str(options.get("targetName") or "test"): {
        "command": "jest",
        "options": {"cwd": project_root},
        "cache": True,
        "inputs": inputs,
    }}


_BUILDERS: dict[str, Builder] = {VITEST: _vitest, JEST: _jest}


# ---------------------------------------------------------------------- helpers
def _has_sibling_config(root: Path, tracker: InputTracker, project_root: str) -> bool:
    """A package.json or project.json in the config's directory (Nx reads the directory, ignored files too)."""
    base = root if project_root == "." else root / project_root
    return tracker.exists(base / "package.json") or tracker.exists(base / "project.json")


def _has_test_block(root: Path, tracker: InputTracker, rel: str, text: str, seen: set[str]) -> bool:
    """Whether a vite config (or a config it imports by a relative path) has a ``test:`` key."""
    if _TEST_KEY.search(_without_comments(text)):
        return True
    seen.add(rel)
    base = rel.rsplit("/", 1)[0] if "/" in rel else ""
    for spec in _RELATIVE_IMPORT.findall(text):
        for candidate in _import_candidates(base, spec):
            if candidate in seen or not tracker.exists(root / candidate):
                continue
            if _has_test_block(root, tracker, candidate, _read(root / candidate, tracker), seen):
                return True
            break
    return False


def _import_candidates(base: str, spec: str) -> list[str]:
    import posixpath

    joined = posixpath.normpath(posixpath.join(base, spec)) if base else posixpath.normpath(spec)
    if joined.startswith(".."):
        return []
    if joined.endswith(_CONFIG_EXTENSIONS):
        return [joined]
    return [joined + ext for ext in _CONFIG_EXTENSIONS] + [f"{joined}/index{ext}" for ext in _CONFIG_EXTENSIONS]


def _without_comments(text: str) -> str:
    return re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.DOTALL)


def _named_inputs(root: Path, tracker: InputTracker, nx_json: dict[str, Any], project_root: str) -> dict[str, Any]:
    """@nx/devkit's ``getNamedInputs``: nx.json's, package.json ``nx.namedInputs``, project.json's."""
    from .nx_workspace import read_jsonc
    from .workspace import read_json

    named: dict[str, Any] = dict(nx_json.get("namedInputs") or {}) if isinstance(nx_json.get("namedInputs"), dict) else {}
    base = root if project_root == "." else root / project_root
    if tracker.exists(base / "package.json"):
        nx = read_json(base / "package.json", tracker).get("nx")
        if isinstance(nx, dict) and isinstance(nx.get("namedInputs"), dict):
            named.update(nx["namedInputs"])
    if tracker.exists(base / "project.json"):
        own = read_jsonc(base / "project.json", tracker, root).get("namedInputs")
        if isinstance(own, dict):
            named.update(own)
    return named


def _read(path: Path, tracker: InputTracker) -> str:
    try:
        return tracker.read_text(path)
    except (OSError, UnicodeDecodeError):
        return ""


def _warn_once(warnings: list[str], message: str) -> None:
    if message not in warnings:
        warnings.append(message)


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(str(v) for v in value) if isinstance(value, list) else ()


def _patterns_match(patterns: tuple[str, ...], path: str, empty: bool) -> bool:
    """Nx's ``createMatcher``: empty -> ``empty``; with a ``!`` pattern, the last matching one
    decides, starting from "all" when the first is negated; else any pattern matching."""
    from .nx_workspace import _minimatch

    if not patterns:
        return empty
    if any(p.startswith("!") for p in patterns):
        matched = patterns[0].startswith("!")
        for pattern in patterns:
            negated = pattern.startswith("!")
            if _minimatch(pattern[1:] if negated else pattern, path):
                matched = not negated
        return matched
    return any(_minimatch(p, path) for p in patterns)


__all__ = ["CREATE_NODES_GLOBS", "Inference", "PluginEntry", "infer", "plugin_entries", "plugin_project",
           "project_config_patterns"]
