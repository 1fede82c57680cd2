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

The other official plugins real repos list make no ``test`` target (23.2.1, measured:
``@nx/vite/plugin`` ignores ``testTargetName`` even for a config with a ``test`` block), but
they make projects (a package.json outside the package manager's globs) and targets whose
inputs decide which projects ``nx show projects --affected`` counts as touched by a workspace
file (``sharedGlobals`` in ``default``, the root eslint config). Modelled for that:

- ``@nx/vite/plugin``: the vitest root rule; ``build`` for an ``index.html`` or a ``lib:``/
  ``input:``/``buildApp`` key (static reading, as for the test block), ``typecheck`` for a
  sibling ``tsconfig*.json``; inputs ``production``/``^production`` (else ``default``).
- ``@nx/js/typescript``: ``typecheck`` for a project's ``tsconfig.json`` (``_typescript``).
- ``@nx/eslint/plugin``: ``lint`` for a project root with its own eslint config
  (``_eslint``); a project inheriting a parent's config gets one only when ESLint lints some
  file there, which static mode cannot know: a warning says so whenever the plugin is listed.

Plugins not modelled (``@nx/playwright/plugin``, ``@nx/cypress/plugin``, third-party ones,
...) keep a warning naming them: their targets are unknown to ``--source static``.
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
VITE, ESLINT, TYPESCRIPT = "@nx/vite/plugin", "@nx/eslint/plugin", "@nx/js/typescript"
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
    VITE: ("**/vite.config.{js,ts,mjs,mts,cjs,cts}",),
    "@nx/playwright/plugin": ("**/playwright.config.{js,ts,cjs,cts,mjs,mts}",),
    "@nx/cypress/plugin": ("**/cypress.config.{js,ts,mjs,cjs}",),
    TYPESCRIPT: ("**/tsconfig*.json",),
    ESLINT: tuple(f"**/{name}" for name in (
        ".eslintrc", ".eslintrc.js", ".eslintrc.cjs", ".eslintrc.yaml", ".eslintrc.yml", ".eslintrc.json",
        "eslint.config.cjs", "eslint.config.js", "eslint.config.mjs", "eslint.config.cts", "eslint.config.ts",
        "eslint.config.mts")),
}
#: @nx/eslint's ``ESLINT_CONFIG_FILENAMES`` (eslintrc first, then flat), and the order in which
#: ``getProjectUsingESLintConfig`` looks for the workspace's root config
ESLINT_FLAT = ("eslint.config.cjs", "eslint.config.js", "eslint.config.mjs", "eslint.config.cts", "eslint.config.ts",
               "eslint.config.mts")
ESLINT_ROOT_LOOKUP = (".eslintrc.base.json", "eslint.base.js", "eslint.base.ts", "eslint.base.config.cjs",
                      "eslint.base.config.js", "eslint.base.config.mjs", "eslint.base.config.cts", "eslint.base.config.ts",
                      "eslint.base.config.mts", ".eslintrc", ".eslintrc.js", ".eslintrc.cjs", ".eslintrc.yaml", ".eslintrc.yml", ".eslintrc.json",
                      *ESLINT_FLAT)
#: what of a partly modelled plugin static mode cannot know, for the warning
PARTLY_MODELLED = {
    ESLINT: "lint targets of projects without their own eslint config",
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
    # ESLint itself decides whether a project inheriting a parent's config gets a lint target:
    # said whenever the plugin is listed (nearly every repo has a root config others inherit)
    unmodelled += [n for n in dict.fromkeys(e.name for e in entries) if n in PARTLY_MODELLED]
    if unmodelled:  # one line, not one per plugin: real nx.json files list three or four
        named = ", ".join(f"{n!r} (e.g. {UNMODELLED_TEST_LIKE[n]!r})" if n in UNMODELLED_TEST_LIKE
                          else f"{n!r} ({PARTLY_MODELLED[n]})" if n in PARTLY_MODELLED else repr(n)
                          for n in unmodelled)
        result.warnings.append(
            f"nx.json plugins {named}: the targets (and projects) they infer are unknown to --source static "
            f"(modelled: {', '.join(_BUILDERS)}; install node_modules and use --source tool for the rest)"
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
                     named_inputs=dict(named) if isinstance(named, dict) else {}, plugin_only=True)


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
    inputs += [{"json": f"{{workspaceRoot}}/{f}", "fields": ["compilerOptions"]}
               for f in _vitest_tsconfig_inputs(root, tracker, project_root)]
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


def _vite(root: Path, tracker: InputTracker, nx_json: dict[str, Any], entry: PluginEntry, config: str,
          project_root: str, in_globs: set[str], warnings: list[str]) -> dict[str, dict[str, Any]] | None:
    """@nx/vite/plugin's ``buildViteTargets`` (23.2.1), read statically.

    It infers no ``test`` target (that moved to @nx/vitest; ``testTargetName`` is ignored,
    measured) but makes a project at every config root with a package.json or project.json,
    a ``typecheck`` target when a ``tsconfig*.json`` sits beside the config, and a ``build``
    target when the project is buildable: an ``index.html`` in the root, or a ``lib:``,
    ``input:`` or ``buildApp`` key in the config (or a file it imports). A sibling
    ``react-router.config.*`` makes a project without targets. The serve/dev/preview targets
    (no inputs of their own) are not listed."""
    if not _has_sibling_config(root, tracker, project_root):
        return None
    base = root if project_root == "." else root / project_root
    siblings = [e.name for e in tracker.scandir(base)] if base.is_dir() else []
    if any(n.split(".")[:2] == ["react-router", "config"] and n.count(".") >= 2 for n in siblings):
        return {}
    options = entry.options
    named = _named_inputs(root, tracker, nx_json, project_root)
    own = ["production", "^production"] if "production" in named else ["default", "^default"]
    text = _read(root / config, tracker)
    targets: dict[str, dict[str, Any]] = {}
    if tracker.exists(base / "index.html") or _has_key(root, tracker, config, text, _BUILDABLE_KEY, set()):
        targets[str(options.get("buildTargetName") or "build")] = {
            "command": "vite build", "options": {"cwd": project_root}, "cache": True,
            "dependsOn": [f"^{options.get('buildTargetName') or 'build'}"],
            "inputs": [*own, {"externalDependencies": ["vite"]}],
        }
    if any(n.startswith("tsconfig") and n.endswith(".json") for n in siblings):
        compiler = options.get("compiler") or ("vue-tsc" if "@vitejs/plugin-vue" in text else "tsc")
        externals = {"tsgo": ["@typescript/native-preview"], "vue-tsc": ["vue-tsc", "typescript"]}.get(compiler, ["typescript"])
        targets[str(options.get("typecheckTargetName") or "typecheck")] = {
            "command": f"{compiler} --noEmit", "options": {"cwd": project_root}, "cache": True,
            "inputs": [*own, {"externalDependencies": externals}],
        }
    return targets


def _eslint(root: Path, tracker: InputTracker, nx_json: dict[str, Any], entry: PluginEntry, config: str,
            project_root: str, in_globs: set[str], warnings: list[str]) -> dict[str, dict[str, Any]] | None:
    """@nx/eslint/plugin's ``lint`` target for a project root holding its own eslint config.

    The plugin's projects are package.json/project.json roots (which the entry's include and
    exclude must select too); a root with its own config always gets the target (a root
    inheriting a parent's config gets it only when ESLint does not ignore some file there,
    which needs ESLint itself: not modelled, see ``PARTLY_MODELLED``). The workspace root
    is never such a project here (it needs a ``src``/``lib`` and ESLint's answer too). Inputs
    (``buildEslintTargets``): ``default``, ``^default``, the root config and this one as
    ``{workspaceRoot}`` files, the root's ``.eslintignore``, the project's tsconfig.json
    ``extends`` chain outside the project, ``tools/eslint-rules``, ``eslint``."""
    if project_root == ".":
        return None
    manifests = [f"{project_root}/{n}" for n in ("project.json", "package.json") if tracker.exists(root / project_root / n)]
    if not any(entry.selects(m) for m in manifests):
        return None
    root_config = next((f for f in ESLINT_ROOT_LOOKUP if tracker.exists(root / f)), None)
    configs = [config] if root_config in (None, config) else [root_config, config]
    inputs: list[Any] = ["default", "^default", *(f"{{workspaceRoot}}/{c}" for c in configs)]
    if tracker.exists(root / project_root / ".eslintignore"):
        inputs.append(f"{{workspaceRoot}}/{project_root}/.eslintignore")
    inputs += [f"{{workspaceRoot}}/{f}" for f in tsconfig_chain(root, tracker, f"{project_root}/tsconfig.json")
               if f != _root_tsconfig(root, tracker) and not _inside(f, project_root) and "node_modules/" not in f]
    inputs += ["{workspaceRoot}/tools/eslint-rules/**/*", {"externalDependencies": ["eslint"]}]
    spec: dict[str, Any] = {"command": "eslint .", "options": {"cwd": project_root}, "cache": True, "inputs": inputs,
                            "outputs": ["{options.outputFile}"]}
    if not any(c.rsplit("/", 1)[-1] in ESLINT_FLAT for c in configs):
        spec["options"]["env"] = {"ESLINT_USE_FLAT_CONFIG": "false"}
    return {str(entry.options.get("targetName") or "lint"): spec}


def _typescript(root: Path, tracker: InputTracker, nx_json: dict[str, Any], entry: PluginEntry, config: str,
                project_root: str, in_globs: set[str], warnings: list[str]) -> dict[str, dict[str, Any]] | None:
    """@nx/js/typescript's ``typecheck`` target (``checkIfConfigFileShouldBeProject``, ``buildTscTargets``).

    A project for the ``typecheck.configName`` file (default ``tsconfig.json``) outside the
    workspace root with a package.json or project.json beside it and no ``next.config.*``;
    the target unless ``typecheck: false`` or the tsconfig says ``nx.addTypecheckTarget:
    false``. Its inputs (``getInputs``): with no ``include`` in the tsconfig or the ones it
    references inside the project, ``production`` (else ``default``); else the project's
    package.json, the tsconfig files (``extends`` chain, internal references) and the include
    and exclude globs, as ``{projectRoot}``/``{workspaceRoot}`` paths; then the dependencies'
    declaration outputs and files. The ``build`` option (tsc builds) is not modelled: a warning."""
    options = entry.options
    typecheck = options.get("typecheck", {})
    config_name = str(typecheck.get("configName") or "tsconfig.json") if isinstance(typecheck, dict) else "tsconfig.json"
    if options.get("build"):
        _warn_once(warnings, f"nx.json plugin {entry.name!r}: the build option (tsc build targets) is not modelled "
                             "by --source static")
    if project_root == "." or config.rsplit("/", 1)[-1] != config_name or typecheck is False:
        return None
    base = root / project_root
    siblings = {e.name for e in tracker.scandir(base)}
    if not {"package.json", "project.json"} & siblings or "tsconfig.json" not in siblings and config_name != "tsconfig.json":
        return None
    if any(f"next.config.{ext}" in siblings for ext in ("js", "cjs", "mjs", "ts")):
        return None
    from .nx_workspace import read_jsonc

    raw = read_jsonc(root / config, tracker, root)
    nx_flags = raw.get("nx") if isinstance(raw.get("nx"), dict) else {}
    if nx_flags.get("addTypecheckTarget") is False:
        return {}
    target = str(typecheck.get("targetName") or "typecheck") if isinstance(typecheck, dict) else "typecheck"
    inputs = _tsc_inputs(root, tracker, nx_json, config, raw, project_root, "package.json" in siblings)
    return {target: {
        "command": f"{options.get('compiler') or 'tsc'} --build {config_name} --emitDeclarationOnly",
        "options": {"cwd": project_root}, "cache": True, "dependsOn": [f"^{target}"], "inputs": inputs,
    }}


_BUILDERS: dict[str, Builder] = {VITEST: _vitest, JEST: _jest, VITE: _vite, ESLINT: _eslint, TYPESCRIPT: _typescript}
_BUILDABLE_KEY = re.compile(r"""(?:^|[{,\s])(?:lib|input|buildApp|"lib"|"input"|'lib'|'input')\s*[:(]""")


# ---------------------------------------------------------------------- tsconfig files
def tsconfig_chain(root: Path, tracker: InputTracker, entry: str) -> list[str]:
    """``entry`` and the workspace files its ``extends`` reach (``walkTsconfigExtendsChain``:
    depth first, the last ``extends`` entry first), as workspace-relative paths. Only
    relative ``extends`` are followed (a package's tsconfig lives in node_modules, which
    Nx skips); each resolves as node's ``require.resolve`` does: as is, ``.js``, ``.json``."""
    from .nx_workspace import read_jsonc

    out: list[str] = []

    def walk(rel: str) -> None:
        if rel in out or not tracker.exists(root / rel):
            return
        try:
            data = read_jsonc(root / rel, tracker, root)
        except (ParseError, OSError):
            return  # Nx's walk skips a file it cannot read as JSON
        out.append(rel)
        extends = data.get("extends")
        for ext in reversed(extends if isinstance(extends, list) else [extends]):
            target = _resolve_relative(rel, ext) if isinstance(ext, str) and ext.startswith(("./", "../")) else None
            found = next((c for c in (target, f"{target}.js", f"{target}.json") if target and tracker.exists(root / c)
                          and (root / c).is_file()), None)
            if found:
                walk(found)

    walk(entry)
    return out


def _vitest_tsconfig_inputs(root: Path, tracker: InputTracker, project_root: str) -> list[str]:
    """@nx/vitest's ``collectTsconfigInputsByProjectRoot``: the tsconfig files esbuild reads for a
    project -- the ``extends`` chains of its tsconfig.json, of each ancestor directory's
    tsconfig.json and of the workspace root's -- outside the project, except the root tsconfig
    (``tsconfig.base.json``, else ``tsconfig.json``), which every task hashes anyway."""
    if project_root == ".":
        return []
    entries = [f"{project_root}/tsconfig.json"]
    parts = project_root.split("/")[:-1]
    entries += [f"{'/'.join(parts[:i])}/tsconfig.json" for i in range(len(parts), 0, -1)] + ["tsconfig.json"]
    skip = _root_tsconfig(root, tracker)
    out: list[str] = []
    for entry in entries:
        for f in tsconfig_chain(root, tracker, entry):
            if f not in out and f != skip and not _inside(f, project_root) and "node_modules/" not in f:
                out.append(f)
    return out


def _inside(path: str, project_root: str) -> bool:
    return path == project_root or path.startswith(project_root + "/")


def _resolve_relative(from_file: str, spec: str) -> str | None:
    """``spec`` relative to ``from_file``'s directory, workspace-relative; None outside the workspace."""
    import posixpath

    base = from_file.rsplit("/", 1)[0] if "/" in from_file else ""
    joined = posixpath.normpath(posixpath.join(base, spec))
    if joined.startswith("../") or joined == "..":
        return None
    return joined


def _root_tsconfig(root: Path, tracker: InputTracker) -> str:
    return "tsconfig.base.json" if tracker.exists(root / "tsconfig.base.json") else "tsconfig.json"


def _tsc_inputs(root: Path, tracker: InputTracker, nx_json: dict[str, Any], config: str, raw: dict[str, Any],
                project_root: str, has_manifest: bool) -> list[Any]:
    """@nx/js/typescript's ``getInputs`` (see ``_typescript``)."""
    import posixpath

    from .nx_workspace import read_jsonc

    def as_input(rel: str) -> str:
        inside = rel == project_root or rel.startswith(project_root + "/")
        return f"{{projectRoot}}/{rel[len(project_root) + 1:]}" if inside else f"{{workspaceRoot}}/{rel}"

    def options_of(rel: str) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        for f in reversed(tsconfig_chain(root, tracker, rel)):
            try:
                opts = read_jsonc(root / f, tracker, root).get("compilerOptions")
            except ParseError:
                continue
            if isinstance(opts, dict):
                merged.update(opts)
        return merged

    chain = tsconfig_chain(root, tracker, config)
    config_files: list[str] = [f for f in chain[1:] if (root / f).suffix == ".json"]
    internal: list[tuple[str, dict[str, Any]]] = []
    queue = [(config, raw)]
    while queue:
        rel, data = queue.pop(0)
        for ref in data.get("references") or [] if isinstance(data.get("references"), list) else []:
            path = ref.get("path") if isinstance(ref, dict) else None
            target = _resolve_relative(rel, path) if isinstance(path, str) else None
            if target is None or not tracker.exists(root / target):
                continue
            if not target.endswith(".json"):
                target = f"{target}/tsconfig.json"
            if target == config or any(target == t for t, _ in internal) or _owner(root, tracker, target, project_root) != project_root:
                continue
            try:
                ref_raw = read_jsonc(root / target, tracker, root)
            except (ParseError, OSError):
                continue
            internal.append((target, ref_raw))  # its own extends are no input (only the entry's are)
            queue.append((target, ref_raw))
    project_files = [(config, raw), *internal]
    includes: list[str] = []
    excludes: list[str] = []
    ts_ext = [".ts", ".tsx", ".d.ts", ".cts", ".d.cts", ".mts", ".d.mts"]
    all_ext = [".ts", ".tsx", ".d.ts", ".js", ".jsx", ".cts", ".d.cts", ".cjs", ".mts", ".d.mts", ".mjs"]
    for rel, data in project_files:
        config_files.append(rel)
        offset = posixpath.relpath(rel.rsplit("/", 1)[0], project_root)
        opts = options_of(rel)
        for spec in data.get("include") or [] if isinstance(data.get("include"), list) else []:
            spec = str(spec).replace("${configDir}", "./", 1) if str(spec).startswith("${configDir}") else str(spec)
            joined = posixpath.normpath(posixpath.join(offset, spec)) if offset != "." else posixpath.normpath(spec)
            if not re.search(r"[.*?]", posixpath.basename(posixpath.normpath(posixpath.join(project_root, joined)))):
                exts = list(all_ext if opts.get("allowJs") else ts_ext) + ([".json"] if opts.get("resolveJsonModule") else [])
                new = [f"{joined}/**/*{e}" for e in exts]
            else:
                new = [joined]
            includes += [i for i in new if i not in includes]
        others = [str(i) for r, d in project_files if r != rel for i in (d.get("include") or [])
                  if isinstance(d.get("include"), list)]
        for spec in data.get("exclude") or [] if isinstance(data.get("exclude"), list) else []:
            spec = str(spec).replace("${configDir}", "./", 1) if str(spec).startswith("${configDir}") else str(spec)
            if others:  # kept only when no other file includes it (Nx's otherFilesInclude check): not modelled
                continue
            plain = not re.search(r"[.*?]", posixpath.basename(posixpath.normpath(posixpath.join(project_root, spec))))
            excl = f"{spec}/**/*" if plain else spec
            if excl not in excludes:
                excludes.append(excl)
    named = _named_inputs(root, tracker, nx_json, project_root)
    inputs: list[Any] = []
    if includes:
        if has_manifest:
            inputs.append("{projectRoot}/package.json")
        inputs += list(dict.fromkeys(as_input(f) for f in config_files))
        inputs += [as_input(posixpath.normpath(f"{project_root}/{i}")) for i in includes]
    else:
        inputs.append("production" if "production" in named else "default")
    inputs += [f"!{as_input(posixpath.normpath(f'{project_root}/{e}'))}" for e in excludes]
    inputs += [{"dependentTasksOutputFiles": "**/*.{d.ts,d.cts,d.mts,tsbuildinfo}", "transitive": True},
               {"fileset": "{projectRoot}/**/*.{d.ts,d.cts,d.mts}", "dependencies": True}]
    return inputs


def _owner(root: Path, tracker: InputTracker, rel: str, project_root: str) -> str | None:
    """The project root owning a tsconfig inside ``project_root`` (``isExternalProjectReference``:
    the nearest directory up to it with a package.json or project.json), None outside it."""
    directory = rel.rsplit("/", 1)[0] if "/" in rel else "."
    if not (directory == project_root or directory.startswith(project_root + "/")):
        return None
    while directory != project_root:
        if tracker.exists(root / directory / "package.json") or tracker.exists(root / directory / "project.json"):
            return directory
        directory = directory.rsplit("/", 1)[0] if "/" in directory else "."
    return project_root


# ---------------------------------------------------------------------- helpers
def _has_sibling_config(root: Path, tracker: InputTracker, project_root: str) -> bool:
    """A package.json or project.json in the config's directory (Nx reads the directory, ignored files too)."""
    base = root if project_root == "." else root / project_root
    return tracker.exists(base / "package.json") or tracker.exists(base / "project.json")


def _has_test_block(root: Path, tracker: InputTracker, rel: str, text: str, seen: set[str]) -> bool:
    """Whether a vite config (or a config it imports by a relative path) has a ``test:`` key."""
    return _has_key(root, tracker, rel, text, _TEST_KEY, seen)


def _has_key(root: Path, tracker: InputTracker, rel: str, text: str, key: re.Pattern[str], seen: set[str]) -> bool:
    """Whether a config (or a config it imports by a relative path) has a ``key`` match."""
    if key.search(_without_comments(text)):
        return True
    seen.add(rel)
    base = rel.rsplit("/", 1)[0] if "/" in rel else ""
    for spec in _RELATIVE_IMPORT.findall(text):
        for candidate in _import_candidates(base, spec):
            if candidate in seen or not tracker.exists(root / candidate):
                continue
            if _has_key(root, tracker, candidate, _read(root / candidate, tracker), key, seen):
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
