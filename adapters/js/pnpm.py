"""pnpm workspaces, answering like ``pnpm --filter '...X'`` (pnpm 12).

Linking rules, each measured against pnpm 12.4.2 (tests/test_js_pnpm.py re-checks them):

- ``dependencies``, ``devDependencies``, ``optionalDependencies`` and ``peerDependencies``
  are all edges (peers because ``autoInstallPeers`` links them).
- ``workspace:*``, ``workspace:^``, ``workspace:~`` link to the package of that name;
  ``workspace:<range>`` only when its version satisfies the range (``workspace:^2.0.0``
  on a 1.0.0 package is no edge) or is the very string of its version (``workspace:1.0``
  links a package at ``1.0``, ``packages.exact_version``); ``workspace:@scope/name@*``
  aliases and ``workspace:../dir`` paths link too. Ranges are read as pnpm reads them
  (``semver.pnpm_range``: ``1 ||`` is ``1``, a lone ``>=`` no range, ``1 2`` is ``1 || 2``
  -- pnpm 12's Rust range grammar; a range that makes pnpm panic, ``~*``, is a warning).
- Paths link whatever the dependency's name (``path_in_spec``): ``link:``/``file:``, bare
  ``../a`` and absolute paths, also after ``workspace:`` or ``workspace:<alias>@``.
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

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Sequence

from ctxsel.adapters.base import DEFAULT_TARGETS, AdapterOptions
from ctxsel.cache import InputTracker
from ctxsel.errors import Location, ParseError, ToolError
from ctxsel.graph import BuildGraph

from . import PNPM_WORKSPACE
from .packages import (WORKSPACE_PROTOCOL, PackageGraphAdapter, exact_version, highest, path_target, split_alias,
                       workspace_target)

if TYPE_CHECKING:  # pragma: no cover
    from .workspace import JsPackage, JsWorkspace

#: environment for pnpm calls: never resolve the ``packageManager`` pnpm from the registry
#: (pnpm 12 would otherwise hang ~70 s offline and write a lockfile into the repo)
PNPM_ENV = {"pnpm_config_pm_on_fail": "ignore", "pnpm_config_update_notifier": "false"}

#: pnpm 12's running version, the one every rule in this module was measured on
PNPM_VERSION = "12.4.2"

#: Every top-level pnpm-workspace.yaml key pnpm 12.4.2 recognizes, in camelCase (the only
#: spelling it applies). The list is the union pnpm's ``known_settings.rs`` builds (its
#: ``WorkspaceSettings`` field names, ``TYPED_WORKSPACE_MANIFEST_KEYS``,
#: ``CONFIG_ONLY_SETTING_KEYS``, ``UNTYPED_WORKSPACE_SETTING_KEYS`` and the npm/pnpm config
#: ``types`` of ``config_types.rs``), read off pnpm's sources (github.com/pnpm/pnpm,
#: pnpm/crates/config/src) and then kept to what the shipped binary accepts: every candidate
#: (those sources, its CHANGELOG, the identifiers in the binary: 14,154 keys) was written into
#: a pnpm-workspace.yaml and run through ``pnpm ls -r`` of
#: ~/.cache/ctxsel-oracles/node_modules/pnpm/pnpm 12.4.2. pnpm 12 is a Rust binary: its
#: ``dist/`` holds only node-gyp, so there is no bundled JS list to read.
PNPM_WORKSPACE_SETTINGS = frozenset("""
    access aggregateOutput allowBuilds allowNew allowSameVersion allowUnusedPatches allowedDeprecatedVersions
    audit auditConfig auditIgnorePrune auditLevel autoConfirmAllPrompts autoInstallPeers
    autoInstallPeersFromHighestMatch bail binLinks blockExoticSubdeps ca cacheDir cafile catalog catalogMode
    catalogPrune catalogs cert changedFilesIgnorePattern childConcurrency ci cleanupUnusedCatalogs color
    commitHooks configDependencies cpu dangerouslyAllowAllBuilds dedupeDirectDeps dedupeInjectedDeps
    dedupePeerDependents dedupePeers deployAllFiles depth description dev disallowWorkspaceCycles dlxCacheMaxAge
    dryRun embedReadme enableGlobalVirtualStore enableModulesDir enablePnp enablePrePostScripts engineStrict
    excludeLinksFromLockfile executionEnv extendNodePath externalDependencies extraBinPaths extraEnv
    failIfNoMatch fetchMinSpeedKiBps fetchRetries fetchRetryFactor fetchRetryMaxtimeout fetchRetryMintimeout
    fetchTimeout fetchWarnTimeoutMs fetchingConcurrency filter filterProd force forceLegacyDeploy frozenLockfile
    frozenStore git gitBranchLockfile gitChecks gitShallowHosts gitTagVersion global globalPath globalPnpmfile
    globalPrefix globalShims globalVirtualStoreDir hoist hoistPattern hoistWorkspacePackages hoistingLimits
    httpProxy httpsProxy ignoreCompatibilityDb ignoreCurrentSpecifiers ignorePnpmfile ignoreScripts
    ignoreWorkspace ignoreWorkspaceCycles ignoreWorkspaceRootCheck ignoredBuiltDependencies
    ignoredOptionalDependencies includeWorkspaceRoot initAuthorEmail initAuthorName initAuthorUrl initLicense
    initPackageManager initType initVersion injectWorkspacePackages json key legacyDirFiltering libc
    linkWorkspacePackages localAddress lockfile lockfileDir lockfileIncludeTarballUrl lockfileOnly loglevel long
    maxSockets maxsockets mergeGitBranchLockfiles mergeGitBranchLockfilesBranchPattern message minimumReleaseAge
    minimumReleaseAgeExclude minimumReleaseAgeExcludePrune minimumReleaseAgeIgnoreMissingTime
    minimumReleaseAgeStrict modulesCacheMaxAge modulesDir namedRegistries networkConcurrency
    neverBuiltDependencies noProxy nodeDownloadMirrors nodeExperimentalPackageMap nodeLinker nodeOptions
    nodePackageMapType nodeVersion noproxy npmPath offline only onlyBuiltDependencies onlyBuiltDependenciesFile
    optimisticRepeatInstall optional os otp overrides packDestination packGzipLevel packageConfigs
    packageExtensions packageImportMethod packageLock packages parseable patchedDependencies patchesDir
    peerDependencyRules peersSuffixMaxLength pending pipelineBase pipelines pmOnFail pnpmExecPath pnpmfile
    pnprServer preferFrozenLockfile preferOffline preferSymlinkedExecutables preferWorkspacePackages prefix
    preserveAbsolutePaths production progress provenance proxy publicHoistPattern publishBranch recursive
    recursiveInstall registries registriesByPrefix registriesByScope registry registryOptionsByUrl
    registrySupportsTimeField remoteSideEffectsCache reporter reporterHidePrefix requiredScripts resolutionMode
    resolvePeersFromWorkspaceRoot reverse runtime runtimeOnFail save saveCatalogName saveDev saveExact
    saveOptional savePeer savePrefix saveProd saveWorkspaceProtocol scriptShell scriptsPrependNodePath
    shamefullyHoist sharedWorkspaceLockfile shellEmulator sideEffectsCache sideEffectsCacheRead
    sideEffectsCacheReadonly sideEffectsCacheWrite signGitTag skipManifestObfuscation sort storeDir stream
    strictDepBuilds strictPeerDependencies strictSsl strictStorePkgContentCheck supportedArchitectures symlink
    syncInjectedDepsAfterScripts tag tagVersionPrefix tasks testPattern trustLockfile trustPolicy
    trustPolicyExclude trustPolicyExcludePrune trustPolicyIgnoreAfter tryLoadDefaultPnpmfile umask unsafePerm
    update updateConfig updateNotifier useBetaCli useGitBranchLockfile useLockfile useRunningStoreServer
    useStderr useStoreServer userAgent verifyDepsBeforeRun verifyStoreIntegrity version versioning
    virtualStoreDir virtualStoreDirMaxLength virtualStoreOnly virtualStoreType workspaceConcurrency
    workspacePackagePatterns workspacePackages workspacePrefix workspaceRoot yes
""".split())

#: Keys a project's pnpm-workspace.yaml may not set (machine paths, credentials, pnpm's own
#: bookkeeping): pnpm 12.4.2 warns "cannot be set in a project's pnpm-workspace.yaml and were
#: ignored", never fails on them (``refused_keys.rs``; measured the same way as above)
PNPM_REFUSED_SETTINGS = frozenset("""
    allProjects allProjectsGraph authConfig bin cliOptions configByUri configDir dir explicitlySetKeys finders
    globalBinDir globalDir globalPkgDir hooks npmrcAuthFile packageManager packageManagerNetworkConfig
    packageManagerRegistries pnpmHomeDir prodAllProjectsGraph prodOnlySelectedProjectDirs rootProjectManifest
    rootProjectManifestDir scope selectedProjectsGraph stateDir userConfig userconfig wantedPackageManager
    workspaceDir
""".split())

#: a package name ``--filter`` reads as selector syntax rather than as the name (pnpm 12,
#: measured): ``a*`` is a glob, ``!x`` an exclusion, ``x...``/``...x``/``x^...`` dependency
#: operators, ``{x}`` and ``./x`` directories, ``[x]`` a git ref, ``-x`` an option; braces
#: anywhere are taken as directory syntax too (not measured, so never used as a name)
_FILTER_SYNTAX = re.compile(r"^[-!.{\[]|[*{}]|\.\.\.$")
#: glob characters in a directory selector; ``[c]`` matches ``c`` alone (measured: ``./p/[[]x]``
#: runs ``p/[x]`` only, ``./p/[x]`` also ``p/x``; a backslash is no escape there)
_DIR_GLOB_CHARS = re.compile(r"[*?\[{]")


def path_in_spec(spec: str) -> str | None:
    """The directory a pnpm dependency spec names, or None when it names none.

    pnpm 12 (measured) reads ``link:<path>`` and ``file:<path>`` (case-sensitive) and a bare
    spec starting with ``.`` or ``/`` (``../a``, ``/abs/p/a``) as paths -- also after
    ``workspace:`` and after a ``workspace:<alias>@`` -- whatever the dependency's name.
    ``~/``, URLs with a host (``file://h/p``) and relative paths without a leading dot
    (``x/../a``, which is a GitHub shorthand) are no workspace directory.
    """
    for protocol in ("link:", "file:"):
        if spec.startswith(protocol):
            return spec[len(protocol):]
    return spec if spec.startswith((".", "/")) else None



def _setting_words(key: str) -> list[str]:
    """A key's words as pnpm 12 splits them (``naming_cases.rs``, after lodash's ``words``):
    at non-alphanumerics, lower-to-upper humps, the end of an acronym (``XMLHttp``) and
    letter/digit changes."""
    return re.findall(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+", key)


def setting_camel_case(key: str) -> str:
    """The camelCase name pnpm 12 looks a pnpm-workspace.yaml key up under (``min-age`` ->
    ``minAge``, ``MinAge`` -> ``minAge``)."""
    words = [w.lower() for w in _setting_words(key)]
    return "".join([words[0], *(w[:1].upper() + w[1:] for w in words[1:])]) if words else ""


@dataclass
class SettingIssues:
    """The top-level pnpm-workspace.yaml keys pnpm 12 sets nothing from, in its three kinds."""

    unrecognized: list[str] = field(default_factory=list)  # no setting of that name
    not_camel_case: list[str] = field(default_factory=list)  # a setting, spelt otherwise (ignored)
    refused: list[str] = field(default_factory=list)  # a setting no project file may set (ignored)


def workspace_setting_issues(settings: dict[object, object]) -> SettingIssues:
    """Sort pnpm-workspace.yaml's keys as pnpm 12.4.2 does (``collect_key_issues``): a key
    with a null value, and ``$schema``, are skipped; the refused ones first, then the unknown
    ones, then known ones not written in camelCase (``[a-z][a-zA-Z0-9]*``)."""
    issues = SettingIssues()
    for raw, value in settings.items():
        key = str(raw).lower() if isinstance(raw, bool) else str(raw)  # YAML ``true:`` is the key "true"
        if value is None or key == "$schema":
            continue
        camel = setting_camel_case(key)
        if camel in PNPM_REFUSED_SETTINGS:
            issues.refused.append(key)
        elif camel not in PNPM_WORKSPACE_SETTINGS:
            issues.unrecognized.append(key)
        elif not re.fullmatch(r"[a-z][a-zA-Z0-9]*", key):
            issues.not_camel_case.append(key)
    return issues


def pins_running_pnpm(manifest: dict[str, object]) -> str | None:
    """How the root package.json pins a pnpm that pnpm 12.4.2 satisfies, which turns unknown
    pnpm-workspace.yaml keys from a warning into ERR_PNPM_UNRECOGNIZED_WORKSPACE_SETTINGS
    (``package_manager.rs``, measured): ``devEngines.packageManager`` wins when it has a named
    entry (in a list, pnpm's own or else the first), its ``version`` a semver range; else
    ``packageManager: pnpm@<exact version>`` (``+build`` dropped; ``^12``, ``v12.4.2`` pin nothing).

    ``"exact"`` when the pin admits 12.4.2 alone, ``"range"`` when a range admits it (``^12``):
    a later pnpm 12 in that range may know keys 12.4.2 does not, so only an exact pin lets
    ctxsel say that pnpm fails; ``None`` when nothing pins such a pnpm."""
    from . import semver

    dev_engines = manifest.get("devEngines")
    declared = dev_engines.get("packageManager") if isinstance(dev_engines, dict) else None
    entries = [e for e in (declared if isinstance(declared, list) else [declared]) if isinstance(e, dict)]
    if isinstance(declared, list):
        entries = [e for e in entries if e.get("name") == "pnpm"] or entries[:1]
    if entries and isinstance(entries[0].get("name"), str):
        version = entries[0].get("version")
        if entries[0]["name"] != "pnpm" or not isinstance(version, str):
            return None
        if semver.satisfies(PNPM_VERSION, version) is not True:
            return None
        return "exact" if version.strip().lstrip("=v").strip() == PNPM_VERSION else "range"
    pinned = manifest.get("packageManager")
    if not isinstance(pinned, str) or not pinned.startswith("pnpm@"):
        return None
    return "exact" if pinned[len("pnpm@"):].split("+", 1)[0] == PNPM_VERSION else None


def _levenshtein(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j - 1] + (ca != cb), current[j - 1] + 1, previous[j] + 1))
        previous = current
    return previous[-1]


def _with_suggestion(key: str) -> str:
    """``'key'``, with the closest setting name when it looks like a typo, picked as pnpm 12
    picks it (``known_settings.rs``: case-insensitive, ``1 - distance / longer length >= 0.4``,
    the first best in sorted order)."""
    typed = setting_camel_case(key).lower()
    best, best_score = None, 0.0
    for candidate in sorted(PNPM_WORKSPACE_SETTINGS):
        longer = max(len(typed), len(candidate))
        if not longer:
            continue
        score = 1 - _levenshtein(typed, candidate.lower()) / longer
        if score >= 0.4 and (best is None or score > best_score):
            best, best_score = candidate, score
    return f"{key!r} (did you mean {best!r}?)" if best else repr(key)


def _yaml_key_line(text: str, key: str) -> int | None:
    """The line of a top-level ``key:`` in a YAML text (plain or quoted), or None."""
    pattern = re.compile(r"^(?:%s|\"%s\"|'%s')\s*:" % ((re.escape(key),) * 3))
    for number, line in enumerate(text.splitlines(), 1):
        if pattern.match(line):
            return number
    return None


def pnpm_glob_problem(glob: str, refuse_globstar_runs: bool = True) -> str | None:
    r"""Why pnpm 12 refuses a workspace glob (``!`` already stripped), or None; with
    ``refuse_globstar_runs`` false, a run of ``**`` segments is no problem (``PnpmAdapter.pre12_pin_reading``).

    Every pnpm command stops on it ("ERR_PNPM_WORKSPACE_INVALID_GLOB ... failed to parse glob
    expression", 12.4.2, measured). Its grammar is turbo's (``turbo.workspace_glob_problem``:
    unbalanced or empty ``{}``/``[]``, ``,`` outside braces, ``(``, ``)``, ``:``) except that an
    empty path segment (``p//a``) is accepted, plus: ``**`` only as a whole segment, never twice
    in a row nor inside braces (``p/a**``, ``p/***``, ``p/**/**``, ``p/{a,**}``); a ``\`` only
    before a character ``PNPM_ESCAPES`` lists (not ``p/\a``, a trailing ``\``); and a class whose ``-``
    is no range between two characters (``[-a]``, ``[a-]``, ``[a-b-c]``) or that holds only ``!``.
    """
    from .turbo import workspace_glob_problem  # the grammar both tools share

    while "//" in glob:
        glob = glob.replace("//", "/")
    why = workspace_glob_problem(glob, PNPM_ESCAPES)
    if why is not None:
        return why
    segments = glob.split("/")
    for seg, nxt in zip(segments, [*segments[1:], None]):
        if "**" in seg and seg != "**":
            return "a ** that is not a whole path segment" if "{" not in seg else "a ** inside braces"
        if seg == nxt == "**" and refuse_globstar_runs:
            return "two ** segments in a row"
    for body in _CLASS.findall(glob):
        items = body[1:] if body.startswith("!") else body
        if not items or not _CLASS_ITEMS.fullmatch(items):
            return f"the class [{body}]"
    return None


#: what a ``\`` may escape in pnpm 12.4.2's globs, outside a class and inside one: turbo's
#: (``turbo.TURBO_ESCAPES``) plus ``:`` outside (``p/\:x`` is read; measured, as are ``p/\*``, the
#: directory ``*``, and the refused ``p/\a``, ``p/\!x``, ``p/\-x``, ``p/\^x``, ``p/[\*a]x``)
PNPM_ESCAPES = ("*?[]{}(),:", "-]")
#: a ``[...]`` class's body
_CLASS = re.compile(r"\[((?:\\.|[^\]\\])+)\]")
#: a class body as pnpm reads it: characters (or escapes), each optionally a range ``a-z``
_CLASS_ITEMS = re.compile(r"(?:(?:\\.|[^-\\])(?:-(?:\\.|[^-\\]))?)+")


def filter_selector(node_id: str) -> str:
    """A node id as a ``--filter`` value that selects that one project.

    Names are ids only when ``--filter`` reads them literally (``name_selects_itself``);
    a directory id (``./p/a*``) has its glob characters bracketed and a trailing ``...``
    (pnpm's "and its dependencies") spelt ``..[.]``.
    """
    if not node_id.startswith("./"):
        return node_id
    escaped = _DIR_GLOB_CHARS.sub(lambda m: f"[{m.group(0)}]", node_id)
    return escaped[:-1] + "[.]" if escaped.endswith("...") else escaped


class PnpmAdapter(PackageGraphAdapter):
    name: ClassVar[str] = "pnpm"
    tools: ClassVar[tuple[str, ...]] = ("pnpm",)
    #: pnpm 12 refuses every lockfile but ``lockfileVersion: '9.0'`` for every command, ``pnpm ls``
    #: and ``--filter`` alike ("The lockfileVersion of 6.0 is incompatible", 12.4.2, measured on
    #: drizzle-orm's history), where the pnpm the repository pins reads it and answers as its
    #: manifests say; ``--source tool`` keeps the error
    static_fallback: ClassVar[str] = "reading the manifests"
    #: ``--filter '...[ref]'`` reads ``git diff``, which shows a moved file at its new path only
    rename_counts_old_path: ClassVar[bool] = False
    #: ``--filter '...[ref]'`` maps each changed path through the projects of the working tree
    #: only: a deleted project's files are the root project's, and the projects that still
    #: declare it (``"a": "workspace:*"`` on a deleted ``a``) are no change of theirs (pnpm
    #: 12.4.2, measured: ``git rm -r p/a`` with ``b -> a`` lists the root alone)
    removed_owner_changes_dependents: ClassVar[bool] = False
    #: pnpm also takes a ``package.yaml`` project (``workspace.PNPM_MANIFESTS``)
    manifest_files: ClassVar[tuple[str, ...]] = ("package.json", "package.yaml")
    #: serde_json's recursion limit: a package.json (the root's too) 128 levels deep fails every
    #: pnpm 12.4.2 command ("recursion limit exceeded", ERR_PNPM_PACKAGE_MANIFEST_SERIALIZATION_ERROR; measured)
    max_manifest_depth: ClassVar[int | None] = 127
    serde_json: ClassVar[bool] = True
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
        measured), so ctxsel does too. So are workspace globs pnpm cannot parse
        (``pnpm_glob_problem``), unless package.json pins a pnpm before 12 that reads them
        (``pre12_pin_reading``)."""
        for glob in ws.globs:
            why = pnpm_glob_problem(glob.removeprefix("!"))
            if why is not None and (pin := self.pre12_pin_reading(ws, glob)) is not None:
                self.warnings.append(f"{PNPM_WORKSPACE}: pnpm 12 refuses the workspace glob {glob!r} ({why}); "
                                     f"read as the {pin} that package.json pins reads it, as one **")
                continue
            if why is not None:
                raise ParseError(f"pnpm refuses the workspace glob {glob!r} ({why}): \"Invalid glob pattern\"",
                                 Location(PNPM_WORKSPACE), hint="every pnpm command fails until it is fixed")
        value = ws.settings.get("linkWorkspacePackages")
        if not (value is None or isinstance(value, bool) or value == "deep"):  # null: unset, as in pnpm
            raise ParseError(
                f"linkWorkspacePackages must be true, false or \"deep\", not {value!r}", Location(PNPM_WORKSPACE)
            )
        self.link_workspace_packages = value in (True, "deep")
        self.check_setting_names(ws)

    @staticmethod
    def pre12_pin_reading(ws: JsWorkspace, glob: str) -> str | None:
        """The ``packageManager`` pin (``pnpm@11.10.0``) of a pnpm before 12 that reads ``glob``
        although pnpm 12 refuses it, else None. Only a run of ``**`` segments qualifies
        (chakra-ui's ``packages/**/**``): pnpm 8.15.9, 10.34.5 and 11.10.0, each pinned, list for
        ``p/**/**``, ``p/*/**/**``, ``**/**`` and ``p/**/**/x`` exactly the projects of one
        ``**`` (measured), which is how ctxsel's walker reads the run. Their other readings of
        globs pnpm 12 refuses are not all ctxsel's (``p/{}``, ``p/(a)``, ``p/{a,**}``), so those stay
        refused."""
        from .turbo import pnpm_major

        major = pnpm_major(ws)
        if major is None or major >= 12 or ws.root_package is None:
            return None
        if pnpm_glob_problem(glob.removeprefix("!"), refuse_globstar_runs=False) is not None:
            return None
        return str(ws.root_package.manifest["packageManager"]).split("+", 1)[0]

    def check_setting_names(self, ws: JsWorkspace) -> None:
        """pnpm 12 ignores pnpm-workspace.yaml keys it does not know, with a warning -- and fails
        every command on them (``pnpm ls``, ``--filter``: exit 1,
        ERR_PNPM_UNRECOGNIZED_WORKSPACE_SETTINGS, measured) when the root package.json pins a
        pnpm it satisfies (``pins_running_pnpm``). ctxsel exits 2 only for an exact pin of the
        pnpm it measured; a range pin is a warning that says so, as a later pnpm may know the key. Keys it knows but that are not camelCase, or
        that a project may not set, are ignored with a warning even then."""
        if None in ws.settings:  # ``~:``/``null:`` -- pnpm's YAML reader stops, pin or not (measured)
            raise ParseError("a null key, which pnpm cannot read: \"cannot deserialize null into string\"",
                             Location(PNPM_WORKSPACE), hint="every pnpm command fails until it is removed")
        issues = workspace_setting_issues(ws.settings)
        pin = pins_running_pnpm(ws.root_package.manifest) if ws.root_package is not None else None
        if issues.unrecognized and pin == "exact":
            key = issues.unrecognized[0]
            try:
                line = _yaml_key_line((self.root / PNPM_WORKSPACE).read_text(encoding="utf-8"), key)
            except (OSError, UnicodeDecodeError):
                line = None
            others = f" (and {len(issues.unrecognized) - 1} more)" if len(issues.unrecognized) > 1 else ""
            raise ParseError(
                f"pnpm {PNPM_VERSION} does not recognize the setting {_with_suggestion(key)}{others}: "
                "ERR_PNPM_UNRECOGNIZED_WORKSPACE_SETTINGS",
                Location(PNPM_WORKSPACE, line),
                hint="package.json pins this pnpm version, so every pnpm command fails; remove the key or fix its spelling",
            )
        if issues.unrecognized:
            fails = (f" (package.json's devEngines admits pnpm {PNPM_VERSION}, which then fails every command: "
                     "ERR_PNPM_UNRECOGNIZED_WORKSPACE_SETTINGS)") if pin == "range" else ""
            self.warnings.append(f"{PNPM_WORKSPACE}: pnpm {PNPM_VERSION} ignores settings it does not recognize: "
                                 + ", ".join(map(_with_suggestion, issues.unrecognized)) + fails)
        if issues.not_camel_case:
            self.warnings.append(f"{PNPM_WORKSPACE}: pnpm {PNPM_VERSION} ignores settings not written in camelCase: "
                                 + ", ".join(f"{k!r} (use {setting_camel_case(k)!r})" for k in issues.not_camel_case))
        if issues.refused:
            self.warnings.append(f"{PNPM_WORKSPACE}: pnpm {PNPM_VERSION} ignores settings a project cannot set: "
                                 + ", ".join(map(repr, issues.refused)))

    def link_target(
        self, pkg: JsPackage, dep_name: str, spec: str, names: dict[str, list[JsPackage]], dirs: dict[str, JsPackage]
    ) -> JsPackage | None:
        from . import semver  # only while building a graph (see ``packages``)

        try:
            return self._link_target(pkg, dep_name, spec, names, dirs)
        except semver.PnpmPanic:  # pnpm itself stops with "Main thread panicked"
            where = f"{pkg.dir}/package.json" if pkg.dir else "package.json"
            self.warnings.append(f"{where}: pnpm 12 crashes on the range in {dep_name!r}: {spec!r} (no link assumed)")
            return None

    def _link_target(
        self, pkg: JsPackage, dep_name: str, spec: str, names: dict[str, list[JsPackage]], dirs: dict[str, JsPackage]
    ) -> JsPackage | None:
        is_workspace = spec.startswith(WORKSPACE_PROTOCOL)
        body = spec[len(WORKSPACE_PROTOCOL):] if is_workspace else spec
        path = path_in_spec(body)
        if path is None and is_workspace:
            path = path_in_spec(split_alias(body)[1])  # workspace:a@../a
        if path is not None:
            return path_target(pkg, path, dirs, self.root, backslash=False)
        if is_workspace:
            return workspace_target(pkg, dep_name, spec, names, dirs, pnpm=True)
        from . import semver

        read = semver.pnpm_range(spec) if self.link_workspace_packages and ":" not in spec else None
        if read is None:
            return None
        candidates = names.get(dep_name, ())
        return exact_version(candidates, spec) or highest(candidates, read, plain=True)

    # ------------------------------------------------------------ tool mode
    def fallback_inputs(self) -> tuple[Path, ...]:
        """The lockfile pnpm refused, usually (``static_fallback``): a new one ends the cached fallback."""
        return (self.root / "pnpm-lock.yaml",)

    def load_tool(self, tracker: InputTracker) -> BuildGraph:
        """Projects from ``pnpm ls -r --json --depth -1``; edges from their manifests.

        pnpm prints a project's dependencies only after an install (``--depth 0`` reads
        node_modules), and the only offline alternative writes ``pnpm-lock.yaml`` into the
        repo. So the tool decides *which* projects exist (globs, negations, the root) and
        the edges come from those projects' package.json files with pnpm's linking rules
        above. Static discovery also runs -- first, so a broken manifest is reported with its
        file and line -- to keep the cache's file stamps and to warn when pnpm sees a
        different set of projects than ctxsel's glob reading does.
        """
        from .workspace import JsWorkspace, discover, read_package

        static = discover(self.root, tracker, self.negation_rule, self.manifest_files)
        out = self.tool_output(["ls", "-r", "--json", "--depth", "-1"], PNPM_ENV)
        listed = self.parse_tool_json(out, "pnpm ls")
        if not isinstance(listed, list):
            raise ToolError(f"pnpm ls printed {type(listed).__name__}, expected a list of projects")
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
    def name_selects_itself(self, pkg: JsPackage, ws: JsWorkspace) -> bool:
        return not _FILTER_SYNTAX.search(pkg.name)

    def test_command(self, tests: list[str], targets: Sequence[str] = DEFAULT_TARGETS) -> list[str]:
        """``pnpm --filter a --filter b test``; another script is run with ``run`` (``pnpm
        --filter a run lint``): a script named like a pnpm command (``deploy``, ``pack``)
        would run that command instead."""
        argv = ["pnpm"]
        for t in tests:
            argv += ["--filter", filter_selector(t)]
        (target,) = targets
        return argv + (["test"] if target == "test" else ["run", target])

    def test_command_warnings(self, graph: BuildGraph, tests: list[str], targets: Sequence[str] = DEFAULT_TARGETS) -> list[str]:
        """pnpm 12 refuses to run one script in two selected projects that depend on each
        other, through any path and any dependency field ("The tasks form a dependency
        cycle: p/a#test -> p/b#test -> p/a#test", measured; ``pnpm -r test`` too), unless
        ``ignoreWorkspaceCycles`` is true in pnpm-workspace.yaml or the environment."""
        if len(tests) < 2 or os.environ.get("pnpm_config_ignore_workspace_cycles", "").lower() == "true":
            return []
        shared = graph.cycle_groups(tests)
        if not shared:
            return []
        from .workspace import workspace_globs

        try:
            settings = workspace_globs(self.root, InputTracker(self.root))[2]
        except (ParseError, OSError):
            settings = {}
        if settings.get("ignoreWorkspaceCycles") is True:
            return []
        pairs = "; ".join(" and ".join(group[:3]) + (" …" if len(group) > 3 else "") for group in shared[:3])
        return [f"pnpm refuses to run these tests together, they depend on each other (a dependency cycle): {pairs}; "
                "set ignoreWorkspaceCycles: true in pnpm-workspace.yaml, or run them one at a time"]

    def global_files(self) -> tuple[str, ...]:
        """None: pnpm has no files that affect every project.

        ``pnpm --filter '...[ref]'`` maps a changed root-level file (README, tsconfig,
        pnpm-workspace.yaml, pnpm-lock.yaml, the root package.json) to the root project
        only, which longest-prefix file matching already does (the root owns "").
        """
        return ()


__all__ = ["PnpmAdapter"]
