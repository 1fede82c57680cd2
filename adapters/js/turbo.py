"""Turborepo, answering like ``turbo ls --filter=...X`` and ``turbo run test`` (turbo 2).

Turborepo builds its own package graph on top of the package manager's workspace, with
rules that differ from pnpm's (each measured against turbo 2.11.11):

- ``peerDependencies`` are not edges; the other three dependency fields are.
- ``workspace:`` specs always link, *whatever the range* (``workspace:^2.0.0`` on a
  1.0.0 package links -- pnpm would not); ``workspace:../dir`` paths too; aliases only as
  ``workspace:<name>@*``/``^``/``~`` (``workspace:@p/a@^1`` is read as a path, ``workspace:a@^1``
  as the dependency's own name: ``turbo_workspace_target``).
- Everything else links only when the workspace "links workspace packages": always
  for npm/yarn/bun, for pnpm only with ``link-workspace-packages=true`` in ``.npmrc`` or
  ``linkWorkspacePackages`` in pnpm-workspace.yaml (turbo reads both; pnpm 12 only the
  latter). Then ``link:``/``file:`` specs link to the package the dependency names
  (the path is not checked), and a name links
  when the version satisfies the range -- or when either side is not semver (``latest``
  links, measured), and ``npm:<range>`` is read as its range (``npm:<name>@<range>``, an
  alias, links nothing); ``*`` links any version, and a package without a version links
  for ``*`` only (``version_links``).
- With pnpm, a ``catalog:``/``catalog:<name>`` spec is replaced by its pnpm-workspace.yaml
  catalog entry first, then linked by these rules (``PnpmCatalogs``; pnpm itself links none).
- The root package is a node ``//``: it depends on what the root package.json lists, and a
  package depends on it only through a ``workspace:`` path to the root directory (never by
  name: ``named``). Every package without workspace dependencies has an ``IMPLICIT`` edge
  to ``//`` too, which stands for turbo's edge to its *virtual* root and is never followed
  (``declared_rdeps``). A package the root depends on has every package as a dependent
  (``blast_radius``). ``//`` itself never appears in ``turbo ls`` output, and filtering on
  it selects only packages that declare it (none, usually); but
  ``turbo run test`` runs ``//#test`` for ``--filter=//``, for a dependent ``//``, and for a
  change of any file outside the packages (``root_package_node``).
- A package has a ``test`` task only when it has ``scripts.test`` *and* turbo.json
  defines ``test`` (``tasks``; also ``<pkg>#test``, the package's own turbo.json, or one
  it ``extends``); ``turbo run test`` lists the others with command ``<NONEXISTENT>``.
- A turbo.json turbo 2 refuses (a package turbo.json without ``"extends": ["//"]``,
  ``extends`` in the root, tasks that are no objects) is an error here too
  (``check_turbo_json``); turbo 1's ``pipeline`` is read as turbo 1 reads it, with a warning.
- Also refused as turbo refuses them: a ``dependsOn`` that is no list, ``globalDependencies``
  turbo rejects (``global_dependencies_problem``), workspace globs its parser rejects
  (``workspace_glob_problem``); pnpm-workspace.yaml is read as YAML 1.2 (``yaml12_loader``).
- A task graph ``turbo run test`` refuses for the selected packages (a ``dependsOn`` cycle, a
  missing or persistent dependency task, a root task whose script calls turbo:
  ``script_invokes_turbo``) keeps the command and warns (``walk_task_graph``).
- ``turbo run test --filter=<name>`` reads some names as syntax (``a*``, ``!x``, ``y...``):
  such a package is named by its directory, its glob characters escaped (``filter_value``).
- The workspace declaration is read as turbo reads it (``turbo_workspace_globs``): the manager
  named by ``packageManager`` decides the file, pnpm-workspace.yaml is deserialised by turbo's
  struct (``pnpm_workspace_problem``), and no globs at all is single-package mode: the root alone,
  whose ``test`` script is the task ``test`` (``has_test``). A glob matching the root directory
  (``**``, ``.``) lists the root package a second time, as an ordinary package (``build_graph``).
- No ``test`` task in any turbo.json makes every ``turbo run test`` fail: said on stderr
  (``test_command_warnings``).
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Iterable, Sequence

from ctxsel.adapters.base import DEFAULT_TARGETS, AdapterOptions
from ctxsel.cache import InputTracker
from ctxsel.errors import Location, ParseError, ToolError
from ctxsel.graph import DEP, DEV, IMPLICIT, OPTIONAL, BuildGraph, Node
from ctxsel.paths import read_text

from .lockfile import EXTERNAL_FIELDS, LOCKFILES, lockfile_changed_dirs
from .packages import (
    WORKSPACE_PROTOCOL,
    PackageGraphAdapter,
    diagnostic_messages,
    dir_selector,
    path_target,
    serde_json_problem,
    serde_json_problem_line,
)

if TYPE_CHECKING:  # pragma: no cover
    from .workspace import JsPackage, JsWorkspace

TURBO_JSON = "turbo.json"
#: turbo 2 reads either name, in the root and in a package, but refuses both in one directory (measured)
CONFIG_NAMES = (TURBO_JSON, "turbo.jsonc")
ROOT_ID = "//"
#: node meta key: why turbo refuses the package's own turbo.json, ``[file, line, message]``
#: (``TurboAdapter.config_problems``, ``refused_config``)
CONFIG_PROBLEM = "turbo_config_problem"
#: node meta: the turbo tasks defined for the package (``TurboAdapter.package_task_names``; the
#: root ``//``: its ``//#task`` ones), which ``--target`` reads from a cached graph
TASKS = "turbo_tasks"
#: root node meta: every task name some turbo.json defines (``TurboAdapter.defined_task_names``)
DEFINED_TASKS = "turbo_defined_tasks"
CATALOG_PROTOCOL = "catalog:"
QUERY = "{ packages { items { name path directDependencies { items { name } } } } }"
#: how turbo 2.11.11 words a refusal of turbo.json's task definitions (``_query_output``), and of
#: a turbo.json it cannot read: ``turbo query`` reads every package's, where ``turbo run`` reads
#: only those of the packages it runs (``TurboAdapter.config_problems``); a root turbo.json the
#: static reader refuses too stays an error there
TASK_REFUSAL = re.compile(
    r"Cyclic dependency detected|referenced by task|requires an entry in turbo\.json|"
    r"cannot contain an environment variable|Could not find task|"
    r'Cannot set "extends": false on task|Package tasks \(<package>#<task>\) are not allowed|'
    r'Failed to parse turbo\.json|Cannot extend from|Invalid turbo\.json configuration|Cyclic "extends" detected'
)

#: a package name turbo's ``--filter=`` reads as selector syntax rather than as the name
#: (turbo 2.11.11, measured): ``!x`` excludes x (and runs every other package), ``x...``,
#: ``x^...`` and ``...x`` add dependencies or dependents (``--filter=y...`` ran ``y``, not the
#: package named ``y...``), ``*`` makes the name a pattern (``a*`` ran ``ab`` too), a trailing
#: ``{d}`` or ``[ref]`` is a directory or a git range (``a[b]`` asks git), and a leading ``.``
#: a path (``./x``, ``..``). ``{`` and ``[`` anywhere, and ``.x``, are ruled out though turbo
#: reads some of them literally (``a[b``, ``.x``): their directory selects them as exactly.
#: A leading ``-`` is no option: the command passes ``--filter=<name>`` as one argument.
_NAME_SYNTAX = re.compile(r"^[!.]|[*{\[]|\.\.\.$")
#: characters turbo's directory filter (``./p/a*``, a glob) reads as syntax; a backslash
#: escapes each (measured: ``./p/a*`` ran ``p/a`` and ``p/ab`` too, ``./p/a\*`` ``p/a*`` alone;
#: an unescaped ``,`` ``:`` ``(`` ``]`` or ``}`` is "failed to parse glob expression", and
#: ``[[]`` brackets, pnpm's escape, too)
_DIR_GLOB_META = re.compile(r"[*?$\[\]{}()<>,:]")


def dir_filter(node_id: str) -> str | None:
    r"""A directory id (``./p/a*``) as a ``--filter=`` value that selects that one package.

    Glob characters are backslash-escaped (``_DIR_GLOB_META``); a trailing ``...`` (turbo's
    "and its dependencies", which it strips before reading the path) is spelt ``..[.]``,
    since ``\.`` is no escape turbo accepts. None when no filter selects the directory
    alone: turbo refuses every spelling of a backslash (``\\``, ``[\\]``), and ``?`` would
    match other directories too.
    """
    if "\\" in node_id:
        return None
    escaped = _DIR_GLOB_META.sub(lambda m: "\\" + m.group(0), node_id)
    return escaped[:-1] + "[.]" if escaped.endswith("...") else escaped


def filter_value(node_id: str) -> str | None:
    """A node id as turbo's ``--filter=`` value for that one package (None: there is none).

    Names are ids only when turbo reads them literally (``TurboAdapter.name_selects_itself``);
    ``//`` is the root's own selector; the rest are directories (``dir_filter``), except ``.``:
    the root package a workspace glob lists, which no directory filter selects (``.``, ``./``
    and ``{.}`` select no package, turbo 2.11.11, measured).
    """
    if node_id == dir_selector(""):
        return None
    return dir_filter(node_id) if node_id.startswith("./") else node_id


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
    """The task definitions of a turbo.json: v2 ``tasks`` or v1 ``pipeline`` (a turbo 1 repo
    is read as turbo 1 reads it, with a warning: ``TURBO_1_WARNING``)."""
    tasks = config.get("tasks", config.get("pipeline"))
    return tasks if isinstance(tasks, dict) else {}


TURBO_1_WARNING = '{where}: "pipeline" is turbo 1 (turbo 2 refuses it: renamed "tasks" in 2.0); read as turbo 1 tasks'



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
    if not is_root and manifest.get("name") == ROOT_ID:
        return "turbo reserves the name '//' for the root package"  # "uses reserved root identity //"
    return None


def turbo_workspace_target(
    pkg: JsPackage, dep_name: str, spec: str, names: dict[str, list[JsPackage]], dirs: dict[str, JsPackage],
    root: Path,
) -> JsPackage | None:
    """Where turbo 2 links a ``workspace:`` spec -- always, whatever the range, once it has found
    the package (turbo 2.11.11, measured; turbo's ``WorkspacePackageSpecifier``), in this order:

    - ``workspace:<alias>@*`` / ``@^`` / ``@~`` (split at the *last* ``@``) -- the package named
      ``alias``, with or without a version;
    - otherwise a spec with a ``/`` that does not start with one -- a relative path: the package in
      that directory, read from the package's directory and then from the root
      (``workspace_path_target``). ``workspace:@p/a@^1`` is such a path (and names no directory:
      no edge, even on a 1.0.0 ``@p/a``), as are ``workspace:@p/a@`` and ``workspace:@p/a``;
    - anything else -- the package the dependency *names*, whatever follows: ``*``, ``^9``,
      ``latest``, ``a@^1`` on a 2.0.0 ``a``, ``zz@1.0.0``, ``@``, and what turbo does not read as a
      path (``/abs/p/a``, ``.``, ``..\\a``); ``"x": "workspace:a@^1"`` names ``x``, so no ``a``.
    """
    rest = spec[len(WORKSPACE_PROTOCOL):]
    alias, at, shorthand = rest.rpartition("@")
    if at and shorthand in ("*", "^", "~"):
        return named(names, alias)
    if "/" in rest and not rest.startswith("/"):
        return workspace_path_target(pkg, rest, dirs, root)
    return named(names, dep_name)


def named(names: dict[str, list[JsPackage]], name: str) -> JsPackage | None:
    """The workspace package a dependency *name* links to in turbo 2: never the root package,
    which turbo files under ``//`` whatever its package.json calls it (measured with 2.11.11:
    ``"root": "workspace:*"``, ``"root": "*"``, ``link:../..`` and ``"//": "*"`` are no edge;
    only a ``workspace:`` path to the root directory is, ``workspace_path_target``). A package
    sharing the root's name is the one linked."""
    return next((p for p in names.get(name, ()) if not p.is_root), None)


def declared_rdeps(graph: BuildGraph, roots: list[str], depth: int | None) -> dict[str, int]:
    """``graph.rdeps`` without the ``IMPLICIT`` edges, which stand for turbo's edges to its
    virtual root: a package without workspace dependencies is no dependent of the root
    package (``TurboAdapter.blast_radius``). ``{node: distance}``, the roots at 0. Only edges
    into ``//`` are ``IMPLICIT``, so only ``//``'s dependents have their edge types read."""
    from collections import deque

    dist = {r: 0 for r in roots}
    queue = deque(dist)
    while queue:
        cur = queue.popleft()
        if depth is not None and dist[cur] >= depth:
            continue
        for nxt in graph.dependents(cur):
            if nxt not in dist and (cur != ROOT_ID or graph.edge_types(nxt, cur) != {IMPLICIT}):
                dist[nxt] = dist[cur] + 1
                queue.append(nxt)
    return dist


def workspace_path_target(pkg: JsPackage, rest: str, dirs: dict[str, JsPackage], root: Path) -> JsPackage | None:
    """The package a ``workspace:<relative path>`` names in turbo 2.11.11 (measured): the path
    from the package's directory, else from the root (``workspace:p/a`` links ``p/a``, as
    yarn 4 reads it); a ``\\`` is no separator (POSIX). Both are joined to the absolute root
    before normalising, as turbo does, so ``../../../<repo>/p/a`` is ``p/a``."""
    base = root.absolute().as_posix()
    for start in (pkg.dir, ""):
        found = path_target(pkg, posixpath.join(base, start, rest), dirs, root, backslash=False)
        if found is not None:
            return found
    return None


def version_links(version: str | None, wanted: str) -> bool:
    """Does a plain (or ``npm:``) spec ``wanted`` link to a workspace package at ``version``?

    turbo 2, measured: ``*`` always links (prereleases too); a package without a version
    (or with ``""``) links for nothing else; otherwise the range must be satisfied --
    unless either side is not semver (``latest``, ``1.0``), which turbo counts as a link. A
    range of nothing but blanks and ``||`` (``""``, ``" || "``) is no range turbo's semver
    parser reads either, so it links any version, prereleases too (2.11.11, measured: ``""``
    on a ``1.2.3-beta.1`` package links, where ``x`` and ``*||`` do not).

    turbo reads ranges with the ``node-semver`` crate, whose grammar pnpm 12 shares
    (``semver.pnpm_range``), not node-semver's: a hyphen range missing a side or glued to its
    ``-`` keeps the comparators it can read (``1.0.0 -`` is ``1.0.0``, ``>=1.0.0 - 2.0.0`` is
    ``2.0.0``), and ``1.0.0 - *`` is no range, so it links anything (turbo 2.11.11, measured:
    250 of 250 hyphen ranges x versions, prereleases among them, agree with that grammar
    where node-semver's agreed on 163). A range the crate panics on (``~*``, ``=*``) crashes
    turbo too: ``semver.PnpmPanic`` propagates (``TurboAdapter.link_target``).
    """
    if wanted == "*":
        return True
    if not version:
        return False
    if not wanted.replace("||", "").strip():
        return True
    from . import semver  # only while building a graph (see ``packages``)

    parsed = semver.parse_version(version)
    range_ = semver.pnpm_range(wanted)
    return parsed is None or range_ is None or range_.satisfies(parsed)


#: The keys turbo 2.11.11 reads in the root turbo.json (its schema.json) and in a package's
#: (measured: the others are "Found an unknown key" or "can only be used in the root
#: turbo.json", and stop every command that reads the file).
ROOT_KEYS = frozenset({
    "$schema", "agentGuidance", "boundaries", "cacheDir", "cacheMaxAge", "cacheMaxSize", "concurrency", "daemon",
    "dangerouslyDisablePackageManagerCheck", "envMode", "futureFlags", "global", "globalDependencies", "globalEnv",
    "globalPassThroughEnv", "noUpdateNotifier", "remoteCache", "setup", "tags", "tasks", "ui",
})
PACKAGE_KEYS = frozenset({"$schema", "boundaries", "extends", "tags", "tasks"})


def check_turbo_json(config: dict[str, Any], text: str, where: str, is_root: bool) -> None:
    """Raise ParseError where turbo 2 refuses a turbo.json (each measured with turbo 2.11.11,
    which stops ``turbo run`` and ``turbo query`` with these errors):

    - ``pipeline`` beside ``tasks`` (``pipeline`` alone is a turbo 1 file, which turbo 2
      refuses with "Found `pipeline` field instead of `tasks`": it is read as turbo 1
      reads it, with a warning, so a repository still on turbo 1 keeps its answers);
    - ``tasks`` that is no object, or a task that is none: "incorrect type";
    - a key turbo does not know (``ROOT_KEYS``, ``PACKAGE_KEYS``), ``extends`` in the root
      turbo.json included: "Found an unknown key" (not in a turbo 1 file: ``experimentalUI``
      beside ``pipeline`` is turbo 1.13's);
    - a package turbo.json without ``extends``, or with ``[]``: 'No "extends" key found';
      a non-list: "extends has an incorrect type"; a list not starting with ``"//"``:
      "You must extend from the root of the workspace first".

    ``where`` is the file as the user knows it (``p/a/turbo.jsonc``).
    """
    from .workspace import key_line

    known = ROOT_KEYS if is_root else PACKAGE_KEYS
    turbo_1 = "pipeline" in config and "tasks" not in config  # read as turbo 1 reads it, turbo 1's keys too
    for key in () if turbo_1 else config:
        if key not in known and not (is_root and key == "extends"):  # extends: below, in turbo's words
            why = "only the root turbo.json may set" if key in ROOT_KEYS else "turbo refuses the unknown key"
            raise ParseError(f"{why} {key!r}", Location(where, key_line(text, key)))
    if "pipeline" in config and "tasks" in config:
        raise ParseError(
            'a turbo.json with both "pipeline" (turbo 1) and "tasks" (turbo 2): turbo 2 refuses "pipeline"',
            Location(where, key_line(text, "pipeline")),
            hint='rename "pipeline" to "tasks" (npx @turbo/codemod migrate)',
        )
    tasks = config.get("tasks", {})
    if not isinstance(tasks, dict):  # "tasks has an incorrect type, expected an object"
        raise ParseError('turbo expects "tasks" to be an object', Location(where, key_line(text, "tasks")))
    for task, definition in tasks.items():
        if not isinstance(definition, dict):  # "Incorrect type, expected an object"
            raise ParseError(f"turbo expects the task {task!r} to be an object", Location(where, key_line(text, "tasks")))
        depends = definition.get("dependsOn", [])
        # "dependsOn has an incorrect type, expected an array" (every command, ``turbo ls`` too)
        if not isinstance(depends, list) or not all(isinstance(d, str) for d in depends):
            raise ParseError(f'turbo expects "dependsOn" of the task {task!r} to be a list of task names',
                             Location(where, key_line(text, "tasks")))
    extends = config.get("extends")
    if is_root:
        problem = global_dependencies_problem(config.get("globalDependencies", []))
        if problem:
            raise ParseError(f"turbo refuses globalDependencies: {problem}", Location(where, key_line(text, "globalDependencies")))
        if "extends" in config:
            raise ParseError('turbo refuses "extends" in the root turbo.json', Location(where, key_line(text, "extends")))
        return
    if extends is None or extends == []:
        raise ParseError('turbo refuses a package turbo.json without "extends": ["//"]', Location(where, 1))
    if not isinstance(extends, list) or not all(isinstance(e, str) for e in extends):
        raise ParseError('turbo expects "extends" to be a list of package names', Location(where, key_line(text, "extends")))
    if extends[0] != ROOT_ID:
        raise ParseError('turbo requires "extends" to start with "//"', Location(where, 1))  # turbo points at 1:1 too


def global_dependencies_problem(entries: Any) -> str | None:
    """Why turbo 2 refuses a root turbo.json's ``globalDependencies`` (every command, ``turbo ls``
    too; 2.11.11, measured), or None: not a list of strings ("incorrect type"); an entry that
    starts with ``$`` ("cannot contain an environment variable": ``$TURBO_ROOT$/x`` too) or
    ``/`` ("absolute path found"); one turbo's glob parser refuses ("failed to construct glob
    for globalDependencies": ``C:/x``, ``a,b``; ``workspace_glob_problem``). A negated entry
    (``!$X``, ``!/x``) is only a glob."""
    if not isinstance(entries, list) or not all(isinstance(e, str) for e in entries):
        return "expected a list of globs"
    for entry in entries:
        if entry.startswith("$"):
            return f"{entry!r} is an environment variable"
        if entry.startswith("/"):
            return f"{entry!r} is an absolute path"
        why = workspace_glob_problem(entry.removeprefix("!"))
        if why:
            return f"{entry!r} is no glob turbo parses ({why})"
    return None


def config_file(base: Path, exists: Any = Path.is_file, rel: str = "") -> str | None:
    """Which of ``CONFIG_NAMES`` the directory ``base`` (package ``rel``) holds, None for
    neither; both is an error, as in turbo ("Found both turbo.json and turbo.jsonc in the
    same directory")."""
    found = [name for name in CONFIG_NAMES if exists(base / name)]
    if len(found) > 1:
        where = f"{rel}/{found[1]}" if rel else found[1]
        raise ParseError("turbo refuses both turbo.json and turbo.jsonc in one directory; remove one", Location(where))
    return found[0] if found else None


def read_turbo_json(root: Path, rel: str, tracker: InputTracker) -> tuple[dict[str, Any], str] | None:
    """(config, repo-relative path) of the turbo.json or turbo.jsonc of package ``rel`` ("" for
    the root), refused where turbo 2 refuses it; None when the directory has neither."""
    from .workspace import read_jsonc  # only while building a graph (see ``packages``)

    base = root / rel if rel else root
    name = config_file(base, tracker.exists, rel)
    if name is None:
        return None
    where = f"{rel}/{name}" if rel else name
    config = read_jsonc(base / name, tracker)
    text = tracker.read_text(base / name)
    # turbo.json goes through the JSON reader turbo refuses such package.json files with
    # (``"env": ["\\udc00"]``: "lone leading surrogate in hex escape", 2.11.11, measured)
    if (why := serde_json_problem(config)) is not None:
        raise ParseError(f"holds {why}, which turbo cannot read", Location(where, serde_json_problem_line(text)),
                         hint="every turbo command fails on this file")
    check_turbo_json(config, text, where, is_root=not rel)
    return config, where


def pnpm_major(ws: JsWorkspace) -> int | None:
    """The major version of the pnpm the root package.json's ``packageManager`` names
    (``pnpm@8.6.6+sha512...`` is 8), or None when it names no pnpm version."""
    root = ws.packages[0] if ws.packages and ws.packages[0].is_root else None
    pm = root.manifest.get("packageManager") if root is not None else None
    found = re.match(r"pnpm@(\d+)\.", pm) if isinstance(pm, str) else None
    return int(found.group(1)) if found else None


#: what a ``\`` may escape in turbo 2.11.11's workspace globs, outside a ``[...]`` class and
#: inside one (measured): ``p/\*``, ``p/\{x``, ``p/\,x`` and ``p/[\-a]x``, ``p/[\]a]x`` are read
#: (``p/\*`` is the directory ``*``), while ``p/\a``, ``p/a\``, ``p/\:x``, ``p/\!x``,
#: ``p/\-x``, ``p/\^x``, ``p/\\x`` and ``p/[\*a]x``, ``p/[\!a]x`` make it refuse the glob
TURBO_ESCAPES = ("*?[]{}(),", "-]")


def escape_problem(glob: str, escapes: tuple[str, str]) -> str | None:
    r"""A ``\`` the glob parser refuses: one escaping nothing (a trailing ``\``) or a character
    outside ``escapes`` (what it may escape outside a class, and inside one)."""
    in_class, i = False, 0
    while i < len(glob):
        c = glob[i]
        if c == "\\":
            allowed = escapes[1] if in_class else escapes[0]
            if i + 1 == len(glob) or glob[i + 1] not in allowed:
                return "a \\ that escapes nothing" if i + 1 == len(glob) else f"a \\ before {glob[i + 1]!r}"
            i += 2
            continue
        if c == "[" and not in_class:
            in_class = True
        elif c == "]" and in_class:
            in_class = False
        i += 1
    return None


def workspace_glob_problem(glob: str, escapes: tuple[str, str] | None = None) -> str | None:
    """Why turbo 2's glob parser refuses a workspace glob (``!`` already stripped), or None.

    Measured with 2.11.11 ("Invalid workspace glob ...: malformed glob" / "failed to parse glob
    expression", every manager): an empty path segment (``a//b``, ``a//``); an unbalanced
    ``{}`` or ``[]``; an empty class ``[]``; an empty alternative (``{}``, ``{a,}``, ``{,a}``,
    ``{a,,b}``); a ``,`` outside braces; ``(``, ``)`` (extglobs such as ``!(b)``) and ``:``.
    A class runs to its first ``]`` not escaped; ``\\`` escapes the next character, and with
    ``escapes`` (``TURBO_ESCAPES``, pnpm's ``PNPM_ESCAPES``) only the characters listed there.
    """
    if "//" in glob:
        return "an empty path segment"
    if escapes is not None and (why := escape_problem(glob, escapes)) is not None:
        return why
    depth, prev, i = 0, "", 0
    while i < len(glob):
        c = glob[i]
        if c == "\\":
            i, prev = i + 2, "x"
            continue
        if c == "[":
            end = i + 1
            while end < len(glob) and glob[end] != "]":
                end += 2 if glob[end] == "\\" else 1
            end = end if end < len(glob) else -1
            if end < 0:
                return "a [ without ]"
            if end == i + 1:
                return "an empty [] class"
            i, prev = end + 1, "x"
            continue
        if c == "]":
            return "a ] without ["
        if c == "{":
            depth += 1
        elif c in ",}":
            if depth == 0:
                return f"a {c} outside braces"
            if prev in ("{", ","):
                return "an empty alternative in braces"
            depth -= c == "}"
        elif c in "():":
            return f"a {c!r}"
        prev, i = c, i + 1
    return "a { without }" if depth else None




@dataclasses.dataclass
class PnpmCatalogs:
    """pnpm-workspace.yaml's version catalogs as turbo 2.11.11 resolves ``catalog:`` specs when it
    builds the package graph (measured): ``catalog:`` and ``catalog:default`` read the ``catalog``
    table alone (``catalogs.default`` is never consulted), ``catalog:<name>`` reads
    ``catalogs.<name>``, and the entry found is then linked like a spec written in package.json
    (``workspace:*`` links, ``^1.0.0`` only with linkWorkspacePackages). A missing catalog or
    entry links nothing. pnpm 12's own ``--filter`` links no ``catalog:`` spec at all, so only
    the Turborepo graph reads them."""

    default: dict[str, str]
    named: dict[str, dict[str, str]]

    def resolve(self, dep_name: str, spec: str) -> str | None:
        """The spec ``dep_name: catalog:<name>`` stands for, or None when no catalog holds it."""
        name = spec[len(CATALOG_PROTOCOL):]
        table = self.default if name in ("", "default") else self.named.get(name, {})
        return table.get(dep_name)


def pnpm_catalogs(node: Any) -> PnpmCatalogs:
    """The catalogs of a pnpm-workspace.yaml node tree ``pnpm_workspace_problem`` accepted: every
    entry as its scalar's text, as turbo's serde struct reads it (``'@p/a': 1`` is ``"1"``)."""
    import yaml

    def table(value: Any) -> dict[str, str]:
        return {str(k.value): str(v.value) for k, v in value.value} if isinstance(value, yaml.MappingNode) else {}

    fields = _mapping_fields(node)
    catalogs = fields.get("catalogs")
    named = ({str(k.value): table(v) for k, v in catalogs.value if isinstance(k, yaml.ScalarNode)}
             if isinstance(catalogs, yaml.MappingNode) else {})
    return PnpmCatalogs(table(fields.get("catalog")), named)


@dataclasses.dataclass
class TurboDeclaration:
    """The workspace as turbo 2 reads its declaration (``turbo_workspace_globs``): what
    ``workspace.workspace_globs`` answers for the other tools, plus turbo's repo mode."""

    manager: str
    globs: list[str]
    settings: dict[str, Any]
    source: str  # the declaring file, for messages
    #: turbo finds no workspace globs, so it runs in single-package mode: the root package
    #: alone, whose tasks are ``test`` rather than ``//#test`` (``TurboAdapter.has_test``)
    single_package: bool = False
    #: why a declaration that is there is none for turbo (a warning), or None
    unreadable: str | None = None
    #: pnpm-workspace.yaml ``catalog`` and ``catalogs``, each entry's text as written
    #: (``pnpm_catalogs``); empty for the other managers, whose catalogs turbo never reads
    catalogs: PnpmCatalogs = dataclasses.field(default_factory=lambda: PnpmCatalogs({}, {}))

    def as_tuple(self) -> tuple[str, list[str], dict[str, Any], str]:
        return self.manager, self.globs, self.settings, self.source


def turbo_workspace_globs(root: Path, tracker: InputTracker) -> TurboDeclaration:
    """The workspace globs turbo 2.11.11 reads, and whether it finds any (measured).

    turbo decides single-package mode by whether its package manager yields workspace globs
    (``RepoState::infer``): none when pnpm-workspace.yaml does not deserialise into turbo's
    ``PnpmWorkspace`` struct (``pnpm_workspace_problem``) or lists no package glob, or when
    package.json ``workspaces`` (or ``workspaces.packages``) is not a non-empty list of strings
    (``[]``, ``"p/*"``, ``["p/*", 1]``). Then ``turbo ls`` lists no package and ``turbo run test``
    runs the root's ``test`` script as the task ``test``. pnpm-workspace.yaml entries are the
    text as written (serde reads ``~``, ``1``, ``true`` and an empty entry into the globs
    ``~``, ``1``, ``true`` and ``""``); invalid YAML and a duplicate key stay errors
    (``workspace.read_yaml_document``), as for pnpm.
    """
    from .workspace import (
        MANIFEST,
        PNPM_WORKSPACE,
        detect_manager,
        read_json,
        read_yaml_document,
        yaml12_loader,
    )

    manifest = read_json(root / MANIFEST, tracker) if tracker.exists(root / MANIFEST) else {}
    pm = manifest.get("packageManager")
    pm_name = pm.split("@", 1)[0].strip() if isinstance(pm, str) else None
    pnpm_file = root / PNPM_WORKSPACE
    # turbo picks the manager by packageManager: with npm, yarn or bun named there, a
    # pnpm-workspace.yaml left beside package.json ``workspaces`` is not read; with pnpm,
    # package.json ``workspaces`` is not (measured)
    if pm_name == "pnpm" and not tracker.exists(pnpm_file):  # package.json "workspaces" is not read then
        unreadable = ('"packageManager" is pnpm, whose workspace turbo reads from pnpm-workspace.yaml alone, and there '
                      'is none' if "workspaces" in manifest else None)
        return TurboDeclaration("pnpm", [], {}, MANIFEST, True, unreadable)
    if pm_name in (None, "pnpm") and tracker.exists(pnpm_file):
        node, data = read_yaml_document(pnpm_file, tracker, yaml12_loader(numbers=True))
        problem = pnpm_workspace_problem(node)
        if problem:
            return TurboDeclaration("pnpm", [], {}, PNPM_WORKSPACE, True, problem)
        globs = [_root_glob(str(item.value)) for item in _mapping_fields(node)["packages"].value]
        return TurboDeclaration("pnpm", globs, data, PNPM_WORKSPACE, not globs, catalogs=pnpm_catalogs(node))
    # bun is read as npm; without packageManager, the lockfiles say
    manager = (pm_name if pm_name in ("npm", "yarn") else "npm") if pm_name else detect_manager(root) or "npm"
    declared = manifest.get("workspaces")
    if isinstance(declared, dict):  # yarn classic: {"packages": [...], "nohoist": [...]}
        declared = declared.get("packages")
    if isinstance(declared, list) and declared and all(isinstance(g, str) for g in declared):
        return TurboDeclaration(manager, [_root_glob(g) for g in declared], {}, MANIFEST)
    unreadable = None
    if "workspaces" in manifest and declared != []:
        unreadable = '"workspaces" is not a list of glob strings (nor {"packages": [...]})'
    return TurboDeclaration(manager, [], {}, MANIFEST, True, unreadable)


def _root_glob(glob: str) -> str:
    """turbo reads an empty workspace glob as the root directory (``""`` lists the root package
    like ``.``, measured with npm and pnpm; ``" "`` matches nothing); the shared glob expansion
    skips blank globs, so it is spelt ``.`` here."""
    return glob or "."


def _mapping_fields(node: Any) -> dict[str, Any]:
    """A YAML mapping node's values by key text (scalar keys only)."""
    import yaml

    return {k.value: v for k, v in node.value if isinstance(k, yaml.ScalarNode)}


_YAML_NULL = "tag:yaml.org,2002:null"


def pnpm_workspace_problem(node: Any) -> str | None:
    """Why turbo 2's ``PnpmWorkspace`` struct (serde_yaml) refuses a pnpm-workspace.yaml node
    tree, or None. Measured with 2.11.11, field by field of the struct:

    - the document must be a mapping with ``packages``, a list of scalars (a scalar of any
      type reads as its text; a nested list or mapping, ``packages: null`` or a missing key do not);
    - ``linkWorkspacePackages``: absent, null, a boolean or a string (``1`` is neither);
    - ``catalog``: absent or a mapping of scalars (``null``, ``[]``, ``{a: [1]}`` are refused);
      ``catalogs``: absent or a mapping of such mappings (``{x: null}`` is refused);
    - ``patchedDependencies``: absent, null or a mapping of scalars that are relative paths
      (``/abs.patch`` is refused). Other keys are not read.
    """
    import yaml

    scalar = yaml.ScalarNode
    if not isinstance(node, yaml.MappingNode):
        return "it is no mapping with a \"packages\" list"
    fields = _mapping_fields(node)
    packages = fields.get("packages")
    if not isinstance(packages, yaml.SequenceNode):
        return "\"packages\" is missing or no list"
    if not all(isinstance(item, scalar) for item in packages.value):
        return "a \"packages\" entry is a list or a mapping, not a glob"
    link = fields.get("linkWorkspacePackages")
    if link is not None and not (isinstance(link, scalar) and link.tag in (_YAML_NULL, "tag:yaml.org,2002:bool",
                                                                          "tag:yaml.org,2002:str")):
        return "\"linkWorkspacePackages\" is neither a boolean nor a string"

    def string_map(value: Any) -> bool:
        return isinstance(value, yaml.MappingNode) and all(
            isinstance(k, scalar) and isinstance(v, scalar) for k, v in value.value)

    if "catalog" in fields and not string_map(fields["catalog"]):
        return "\"catalog\" is no mapping of names to version strings"
    catalogs = fields.get("catalogs")
    if catalogs is not None and not (isinstance(catalogs, yaml.MappingNode)
                                     and all(string_map(v) for _, v in catalogs.value)):
        return "\"catalogs\" is no mapping of catalog names to catalogs"
    patched = fields.get("patchedDependencies")
    null = isinstance(patched, scalar) and patched.tag == _YAML_NULL
    if patched is not None and not null and (
            not string_map(patched) or any(str(v.value).startswith("/") for _, v in patched.value)):
        return "\"patchedDependencies\" is no mapping of names to relative paths"
    return None


#: a task in turbo's task graph: (node id, task name)
TaskKey = tuple[str, str]


@dataclasses.dataclass
class TaskDefinitions:
    """The turbo.json task definitions a task-graph walk reads (``walk_task_graph``): the
    root's, and a package's own turbo.json (with what it ``extends``) when the walk first
    reaches the package -- a warm run has no parsed turbo.json at hand, and a walk from a
    few tests should not read 10,000 packages' files."""

    root: Path
    root_tasks: dict[str, Any]
    dir_of: dict[str, str]  # package name -> dir (the ones a package turbo.json may extend)
    tracker: InputTracker
    #: turbo's single-package mode: the root's tasks are ``task``, not ``//#task``
    single_package: bool = False
    own: dict[str, tuple[dict[str, Any], list[str]]] = dataclasses.field(default_factory=dict)

    def package(self, rel: str) -> tuple[dict[str, Any], list[str]]:
        """(tasks, dirs it extends besides the root) of package ``rel``'s own turbo.json."""
        if rel not in self.own:
            try:
                found = read_turbo_json(self.root, rel, self.tracker) if rel else None
            except ParseError:  # the node's ``CONFIG_PROBLEM`` says so (``walk_task_graph``)
                found = None
            config = found[0] if found else {}
            extends = config.get("extends", [])[1:] if found else []
            self.own[rel] = (turbo_tasks(config), [self.dir_of[n] for n in extends if n in self.dir_of])
        return self.own[rel]

    def chain(self, rel: str, name: str, task: str, is_root: bool = False) -> list[dict[str, Any]]:
        """The definitions of ``task`` for package ``rel`` named ``name``, most specific first
        (its own turbo.json, the package turbo.json files it extends, ``name#task`` and ``task``
        in the root); empty: turbo has no such task there. The root package ``//`` (``is_root``)
        has ``//#task`` only (``task`` in single-package mode); the root package a workspace glob
        lists is an ordinary package at ``""``. ``"extends": false`` cuts the chain at the
        package's own definition."""
        if is_root:
            found = self.root_tasks.get(task if self.single_package else f"{ROOT_ID}#{task}")
            return [found] if isinstance(found, dict) else []
        own_tasks, _ = self.package(rel)
        out: list[dict[str, Any]] = []
        own = own_tasks.get(task)
        if isinstance(own, dict):
            out.append(own)
            if own.get("extends") is False:
                return out
        todo, seen = list(self.package(rel)[1]), {rel}
        while todo:
            other = todo.pop(0)
            if other in seen:
                continue
            seen.add(other)
            tasks, more = self.package(other)
            if isinstance(tasks.get(task), dict):
                out.append(tasks[task])
            todo.extend(more)
        out.extend(d for d in (self.root_tasks.get(f"{name}#{task}"), self.root_tasks.get(task)) if isinstance(d, dict))
        return out


def chain_value(chain: list[dict[str, Any]], key: str, default: Any) -> Any:
    """A task field as turbo merges definitions: the most specific one that sets it."""
    return next((d[key] for d in chain if key in d), default)


def refused_config(node: Node) -> ParseError | None:
    """The error turbo stops any task of ``node`` with: its turbo.json (or one it extends) is one
    turbo refuses (``CONFIG_PROBLEM``), or None."""
    found = node.meta.get(CONFIG_PROBLEM)
    if not found:
        return None
    where, line, message = found
    return ParseError(message, Location(where, line))


#: a word of a script that names turbo (``script_invokes_turbo``): ``turbo`` not inside a longer
#: name (``turbopack``, ``.turbo``, ``turbo-x``, ``turbo/x`` and ``1turbo`` are none), optionally
#: ``.exe``/``.cmd``; ``a/turbo``, ``@turbo``, ``turbo@2``, ``--y=turbo`` and ``turbo,`` are such words
_TURBO_WORD = re.compile(r"(?<![\w.\-])turbo(?:\.exe|\.cmd)?(?![\w.\-/])")
#: what ends one simple command of a script (``&&``, ``|``, ``;``, ``$(``, a backquote ...)
_COMMAND_BREAK = re.compile(r"[;&|()`]+")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


def script_invokes_turbo(script: str) -> bool:
    """Whether turbo reads a root ``package.json`` script as calling turbo itself, which makes any
    ``turbo run`` whose task graph holds that root task (``//#test`` selected, or a root task a
    ``dependsOn`` reaches) fail before running anything ("recursive_turbo_invocations").

    The rule was measured on 87 scripts with turbo 2.11.11
    (``tests/test_probe22_hj_turbo_recursive_root_task.py``): every shell word of every simple
    command counts (``npx turbo``, ``pnpm exec turbo``, ``x "echo turbo"``, ``FOO=turbo x``,
    ``$(turbo)``), except the arguments of an ``echo`` or ``printf`` without a redirection
    (``echo turbo | x`` runs, ``echo turbo>x`` does not) and a command made of assignments
    alone (``x=turbo``); a script with unbalanced quotes is searched whole."""
    import shlex

    lexer = shlex.shlex(script.replace("\n", ";"), posix=True, punctuation_chars="();<>|&`")
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        tokens = list(lexer)
    except ValueError:  # unbalanced quotes
        return bool(_TURBO_WORD.search(script))
    command: list[str] = []
    for token in [*tokens, ";"]:
        if not _COMMAND_BREAK.fullmatch(token):
            command.append(token)
            continue
        if _command_invokes_turbo(command):
            return True
        command = []
    return False


def _command_invokes_turbo(words: list[str]) -> bool:
    """One simple command of ``script_invokes_turbo``, its redirections (``>``, ``2>``) among the words."""
    name = next((w for w in words if not _ASSIGNMENT.match(w)), None)
    if name is None:
        return False
    if name in ("echo", "printf") and not any(set(w) <= set("<>&") for w in words):
        return False
    return any(_TURBO_WORD.search(w) for w in words)


def walk_task_graph(graph: BuildGraph, tests: list[str], defs: TaskDefinitions,
                    targets: Sequence[str] = DEFAULT_TARGETS) -> tuple[list[str], set[TaskKey]]:
    """(problems, every task reached) of ``turbo run test`` from these packages' ``test`` tasks
    (``turbo run lint test``: their ``lint`` and ``test`` tasks, each where turbo defines it).

    The tasks reached through ``dependsOn`` run too -- ``"dependsOn": ["^test"]`` runs the
    ``test`` of every package the selected ones depend on, transitively (``turbo run test
    --filter=b --dry=json`` lists ``a#test``; turbo 2.11.11, measured).

    Why ``turbo run test`` refuses to start from these packages' ``test`` tasks (turbo 2.11.11,
    measured; each stops the run before any task does):

    - a cycle among the tasks ``dependsOn`` reaches ("Cyclic dependency detected"; a task
      that reaches itself directly: "a#test depends on itself"). ``^x`` is ``x`` of each
      package the package depends on -- with the script or without (a package without a
      ``test`` script still carries ``^test`` on) -- so a package dependency cycle plus
      ``"dependsOn": ["^test"]`` is one; a package outside every cycle still runs;
    - a task ``dependsOn`` reaches that no turbo.json defines (``Could not find "a#nope"``),
      a ``pkg#task`` for no package, or a root ``//#x`` without its entry;
    - a persistent task another depends on, where that package has the script
      ("a#dev is a persistent task, b#test cannot depend on it").
    - a root task whose script looks like it calls turbo (``script_invokes_turbo``), selected
      or reached through ``dependsOn`` ("recursive_turbo_invocations"); the root listed a second
      time as an ordinary package (a ``.`` glob) is exempt.

    A task of a package whose turbo.json turbo refuses stops it too; ``reached`` holds it and
    ``TurboAdapter.test_command_warnings`` makes that an error (``refused_config``).
    """
    id_of = {str(n.meta.get("name")): n.id for n in graph.nodes() if n.kind == "package" and not n.external}
    label = {v: k for k, v in id_of.items()}
    label[ROOT_ID] = ROOT_ID

    def show(key: TaskKey) -> str:
        return f"{label.get(key[0], key[0])}#{key[1]}"

    problems: list[str] = []
    edges: dict[TaskKey, list[TaskKey]] = {}
    start: list[TaskKey] = sorted((t, task) for t in tests if t in graph for task in targets
                                  if task == "test" or task in graph.node(t).meta.get(TASKS, ()))
    todo, seen = list(start), set(start)
    while todo:
        key = todo.pop()
        nid, task = key
        node = graph.node(nid)
        script = node.meta.get("scripts", {}).get(task) if nid == ROOT_ID else None
        if isinstance(script, str) and script_invokes_turbo(script):
            problems.append(f"{show(key)} runs `{script}`, which turbo takes for a call of turbo itself "
                            "(recursive_turbo_invocations)")
        own_chain = defs.chain(node.package, str(node.meta.get("name")), task, nid == ROOT_ID)
        depends = chain_value(own_chain, "dependsOn", [])
        out: list[TaskKey] = []
        for dep in depends if isinstance(depends, list) else []:
            dep = str(dep)
            if dep.startswith("$"):  # "`dependsOn` cannot contain an environment variable" (turbo 1 syntax)
                problems.append(f"{show(key)} depends on {dep}, an environment variable (turbo 2 refuses them there)")
                continue
            if dep.startswith("^"):
                targets = [(d, dep[1:]) for d in graph.dependencies(nid)
                           if not (d == ROOT_ID and graph.edge_types(nid, d) == {IMPLICIT})]
            elif "#" in dep:
                pname, _, other = dep.partition("#")
                target = ROOT_ID if pname == ROOT_ID else id_of.get(pname)
                if target is None or target not in graph:
                    problems.append(f'{show(key)} depends on {dep}, but no package is named {pname!r}')
                    continue
                targets = [(target, other)]
            else:
                targets = [(nid, dep)]
            for target in targets:
                tnode = graph.node(target[0])
                tchain = defs.chain(tnode.package, str(tnode.meta.get("name")), target[1], target[0] == ROOT_ID)
                if not tchain:
                    problems.append(f"{show(key)} depends on {show(target)}, which no turbo.json defines")
                    continue
                if chain_value(tchain, "persistent", False) is True and target[1] in tnode.meta.get("scripts", {}):
                    problems.append(f"{show(key)} depends on {show(target)}, a persistent task")
                out.append(target)
                if target not in seen:
                    seen.add(target)
                    todo.append(target)
        edges[key] = out
    from ctxsel.graph import back_edges

    for path, target in back_edges(start, lambda k: edges.get(k, ())):
        if path[-1] == target:
            problems.append(f"{show(target)} depends on itself")
        else:
            problems.append("a cycle of tasks: " + " -> ".join(map(show, [*path[path.index(target):], target])))
    return list(dict.fromkeys(problems)), seen


class TurboAdapter(PackageGraphAdapter):
    name: ClassVar[str] = "turbo"
    tools: ClassVar[tuple[str, ...]] = ("turbo",)
    edge_fields: ClassVar[tuple[tuple[str, str], ...]] = (
        ("devDependencies", DEV),
        ("optionalDependencies", OPTIONAL),
        ("dependencies", DEP),
    )

    negation_rule: ClassVar[str] = "turbo"
    #: turbo 2.11.11 refuses a package.json (the root's too) 129 levels deep ("Unable to parse
    #: package.json ... expected valid JSON", every command; measured)
    max_manifest_depth: ClassVar[int | None] = 128
    serde_json: ClassVar[bool] = True
    #: turbo maps every changed path through the head revision's packages only: a deleted
    #: package's files are the root's (``//``), and its dependents are no change unless they
    #: changed themselves (turbo 2.11.11, measured: deleting ``p/a`` with ``b -> a`` selects
    #: no package for ``turbo ls --filter=...[A...B]``, ``--affected``, ``turbo run test``)
    removed_owner_changes_dependents: ClassVar[bool] = False

    def __init__(self, root: Path, options: AdapterOptions | None = None) -> None:
        super().__init__(root, options)
        self.link_workspace_packages = True
        self.root_tasks: dict[str, Any] = {}
        self.package_tasks: dict[str, dict[str, Any]] = {}
        #: package dir -> dirs of the packages its turbo.json ``extends`` besides ``//``
        self.package_extends: dict[str, list[str]] = {}
        #: package dir -> its turbo.json or turbo.jsonc (repo-relative), for messages
        self.package_config_files: dict[str, str] = {}
        #: package dir -> why turbo refuses its turbo.json (an error naming file and line): turbo reads a
        #: package's turbo.json only when a task of that package runs, so ``turbo ls`` and the
        #: other packages' tasks still work (2.11.11, measured for broken JSON, no ``extends``,
        #: an unknown ``extends`` target, a cycle, refused fields); ``walk_task_graph`` reports it
        self.config_problems: dict[str, ParseError] = {}
        #: turbo's repo mode and whether a workspace glob lists the root (``workspace``)
        self.declaration: TurboDeclaration | None = None
        self.root_listed = False
        #: the names a root ``<name>#task`` can belong to: the packages', ``//`` (``prepare``)
        self.task_owners: set[str] = set()

    @classmethod
    def detect(cls, root: Path) -> bool:
        return any((root / name).is_file() for name in CONFIG_NAMES) and (root / "package.json").is_file()

    # ------------------------------------------------------------ graph
    def workspace(self, tracker: InputTracker) -> JsWorkspace:
        """turbo leaves out a package without a ``name`` (``turbo ls`` does not list it, measured),
        and refuses to run at all on a package.json whose known fields have the wrong type.
        pnpm-workspace.yaml is read as turbo reads it, as YAML 1.2 (``yaml12_loader``): ``packages:
        [y, n, yes]`` are directories and ``linkWorkspacePackages: y`` links nothing (measured)."""
        from .workspace import discover

        self.declaration = declared = turbo_workspace_globs(self.root, tracker)
        # turbo refuses a package.json that is no JSON object (package_json_parse_error), where
        # pnpm, npm and yarn read it as an empty manifest (``read_package``)
        ws = discover(self.root, tracker, self.negation_rule, self.manifest_files, declared=declared.as_tuple(),
                      objects_only=True)
        if declared.unreadable:
            ws.warnings.append(f"{declared.source}: turbo cannot read it ({declared.unreadable}), so it sees no "
                               "workspace package and runs in single-package mode: only the root package's tasks")
        self._refuse_malformed_globs(ws, tracker)
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
        root = ws.root_package
        self.root_listed = bool(ws.root_in_globs and root is not None and root.name)
        if self.root_listed and root is not None:
            same = next((p for p in ws.packages if p.name == root.name and not p.is_root), None)
            if same is not None:  # the root's entry is added first: 'Failed to add workspace "a" from "p/a/package.json"'
                raise ParseError(f"turbo needs unique package names, and a workspace glob lists the root package.json "
                                 f"too: {root.name!r} is used by package.json and {same.dir}/package.json",
                                 Location(f"{same.dir}/package.json"))
        return ws

    def _refuse_malformed_globs(self, ws: JsWorkspace, tracker: InputTracker) -> None:
        """turbo 2's discovery stops at "Invalid workspace glob ...: malformed glob" for a glob
        its parser refuses (``workspace_glob_problem``; negated or not, every manager), and with
        Yarn 1 (``packageManager: yarn@1.x``) for a glob ending in ``/`` (``packages/*/``: turbo
        appends ``/node_modules/**``); npm, pnpm, Yarn 2+ and bun take ``packages/*/``
        (2.11.11, measured). ``turbo ls`` then fails, and ``turbo run`` falls back to the root
        alone (single-package mode): no selection from those globs is turbo's."""
        from .workspace import PNPM_WORKSPACE, key_line

        pm = ws.packages[0].manifest.get("packageManager") if ws.packages and ws.packages[0].is_root else None
        yarn1 = isinstance(pm, str) and pm.startswith("yarn@1.")
        for glob in ws.globs:
            negated = glob.startswith("!")
            why = workspace_glob_problem(glob[1:] if negated else glob, TURBO_ESCAPES)
            if why is None and yarn1 and not negated and glob.endswith("/"):
                why = "a trailing / with Yarn 1, where turbo appends /node_modules/**"
            if why is None:
                continue
            if ws.manager == "pnpm" and tracker.exists(self.root / PNPM_WORKSPACE):
                where = Location(PNPM_WORKSPACE)
            else:
                where = Location("package.json", key_line(tracker.read_text(self.root / "package.json"), "workspaces"))
            raise ParseError(f"turbo refuses the workspace glob {glob!r} ({why}): \"malformed glob\"", where,
                             hint="turbo ls fails and turbo run sees no workspace package until it is fixed")

    def prepare(self, ws: JsWorkspace, tracker: InputTracker) -> None:
        """Read turbo.json (the root's and each package's) and the linking settings.

        turbo 2 refuses a turbo.json it cannot use, and so does ctxsel (exit 2, naming the
        file and line; ``check_turbo_json``): a test selection from a file turbo will not
        run would be a guess. The exception is turbo 1's ``pipeline``: a repository still
        on turbo 1 is read as turbo 1 reads it, with a warning. A *package's* turbo.json is
        refused only for the commands that run one of its tasks, as turbo reads it only then
        (``config_problems``): the graph loads with a warning naming the file.
        """
        from .workspace import read_jsonc

        found = read_turbo_json(self.root, "", tracker)
        # neither file (``--adapter turbo`` forced): read_jsonc says the file cannot be read
        config = found[0] if found else read_jsonc(self.root / TURBO_JSON, tracker)
        self.root_tasks = turbo_tasks(config)
        if "pipeline" in config:
            self.warn(TURBO_1_WARNING.format(where=found[1] if found else TURBO_JSON))
        self.package_tasks = {}
        self.package_extends = {}
        self.package_config_files = {}
        self.config_problems = {}
        configs: dict[str, dict[str, Any]] = {}
        for pkg in ws.packages:
            try:
                own = read_turbo_json(self.root, pkg.dir, tracker) if pkg.dir else None
            except ParseError as err:  # a package's own file: only its tasks are refused (``config_problems``)
                self.config_problems[pkg.dir] = err
                continue
            if own:
                configs[pkg.dir], self.package_config_files[pkg.dir] = own
        dir_of = {p.name: p.dir for p in ws.packages if p.name and not p.is_root}
        root = ws.root_package
        self.task_owners = {*dir_of, ROOT_ID, *([root.name] if self.root_listed and root is not None else [])}
        for rel, config in configs.items():
            self.package_tasks[rel] = turbo_tasks(config)
            if "pipeline" in config:
                self.warn(TURBO_1_WARNING.format(where=self.package_config_files[rel]))
            extended: list[str] = []
            for name in config["extends"][1:]:
                if name == ROOT_ID:
                    continue  # ["//", "//"] is accepted (measured)
                if dir_of.get(name) not in configs and dir_of.get(name) not in self.config_problems:
                    # "Cannot extend from 'x' without a package 'turbo.json'": no such package, or none there
                    self.config_problems[rel] = ParseError(
                        f"turbo cannot extend from {name!r}: no package of that name has a turbo.json",
                        self._extends_location(rel, tracker))
                    continue
                extended.append(dir_of[name])
            self.package_extends[rel] = extended
        self._refuse_extends_cycle({d: n for n, d in dir_of.items()}, tracker)
        self._spread_config_problems({d: n for n, d in dir_of.items()})
        if ws.manager != "pnpm":
            self.link_workspace_packages = True
            return
        npmrc = self.root / ".npmrc"
        from_npmrc: bool | None = None
        if tracker.exists(npmrc):
            for line in tracker.read_text(npmrc).splitlines():
                key, _, value = line.partition("=")
                if key.strip() == "link-workspace-packages":
                    from_npmrc = value.strip().lower() in ("true", "deep")
        # turbo 2.11.11 follows the pnpm that ``packageManager`` names (measured): before pnpm 9
        # the default is to link and only .npmrc can say otherwise (``linkWorkspacePackages: false``
        # in pnpm-workspace.yaml still links); from 9 on the default is not to link and a
        # pnpm-workspace.yaml setting wins over .npmrc (``true`` there, ``false`` in the YAML: no link)
        major = pnpm_major(ws)
        if major is not None and major < 9:
            self.link_workspace_packages = True if from_npmrc is None else from_npmrc
            return
        # a YAML boolean true or the string "deep"; the string "true" (quoted) links nothing (measured)
        link = ws.settings.get("linkWorkspacePackages")
        from_yaml = link is True or link == "deep"
        self.link_workspace_packages = from_yaml if link is not None else bool(from_npmrc)

    def warn(self, text: str) -> None:
        """A warning carried with the graph (so a cache hit prints it too), once."""
        if text not in self.warnings:
            self.warnings.append(text)

    def assign_ids(self, ws: JsWorkspace) -> dict[str, str]:
        """The root is ``//``; a package no ``--filter=`` selects alone (a name that is filter
        syntax in a directory with a backslash, ``dir_filter``) is warned about here, once
        per graph, as ``test_command`` leaves it out rather than run other packages."""
        ids = super().assign_ids(ws)
        ids[""] = ROOT_ID
        for pkg in ws.packages:
            if filter_value(ids[pkg.dir]) is None:
                self.warn(f"no turbo --filter selects package {pkg.name!r} ({pkg.dir}) alone: its name is filter "
                          "syntax and turbo cannot spell a backslash in a directory; its tests are left out of "
                          "the turbo command (rename the package or its directory)")
        return ids

    def name_selects_itself(self, pkg: JsPackage, ws: JsWorkspace) -> bool:
        """Only a name turbo's filter reads literally (``_NAME_SYNTAX``) is an id."""
        return not _NAME_SYNTAX.search(pkg.name)

    def link_target(
        self, pkg: JsPackage, dep_name: str, spec: str, names: dict[str, list[JsPackage]], dirs: dict[str, JsPackage]
    ) -> JsPackage | None:
        if spec.startswith(CATALOG_PROTOCOL) and self.declaration is not None:
            found = self.declaration.catalogs.resolve(dep_name, spec)
            if found is None:
                return None
            spec = found  # linked as if written in package.json (``PnpmCatalogs``)
        if spec.startswith(WORKSPACE_PROTOCOL):
            return turbo_workspace_target(pkg, dep_name, spec, names, dirs, self.root)
        if not self.link_workspace_packages:
            return None
        protocol, sep, rest = spec.partition(":")
        if sep and protocol in ("file", "link"):
            # turbo 2 links the package the dependency *names*, wherever the path points
            # (``"@p/a": "link:../b"`` is an edge to @p/a, ``link:`` alone too; measured)
            return named(names, dep_name)
        if sep and (protocol != "npm" or "@" in rest[1:]):
            # ``npm:<name>@<range>`` is a registry alias and links nothing, even to a package of
            # that very name whose version satisfies it (``npm:@p/a@^1.0.0``, ``npm:a@``; npm,
            # pnpm, yarn 1 and 4, bun alike, 2.11.11, measured); ``npm:^1.0.0``, ``npm:@p/a``
            # and ``npm:latest`` are read as ranges below
            return None
        wanted = rest if sep else spec
        found = named(names, dep_name)
        from . import semver

        try:
            return found if found and version_links(found.version, wanted) else None
        except semver.PnpmPanic:  # turbo 2.11.11 crashes ("Oops! Turbo has crashed", exit 101)
            where = f"{pkg.dir}/package.json" if pkg.dir else "package.json"
            self.warn(f"{where}: turbo crashes on the range in {dep_name!r}: {spec!r} (no link assumed)")
            return None

    def build_graph(self, ws: JsWorkspace, tracker: InputTracker, edges: bool = True) -> BuildGraph:
        """The package graph, plus the root package a second time when a workspace glob lists
        the root directory (``**``, ``.``; ``root_listed``). turbo 2.11.11 then has two packages
        at ``""`` (measured): ``//`` and one under the root's name, an ordinary package --
        ``turbo ls`` lists it, it depends on what the root package.json lists, it runs the
        ``test`` task (``package_has_test``; ``//#test`` stays ``//``'s), no dependency links
        to it (not by name, and a ``workspace:`` path to the root is ``//``'s), and a changed
        root file is ``//``'s alone (``nodes_for_changed_file``)."""
        graph = super().build_graph(ws, tracker, edges)
        root = ws.root_package
        if not self.root_listed or root is None or ROOT_ID not in graph:
            return graph
        nid = root.name if self.name_selects_itself(root, ws) else dir_selector("")
        if nid == dir_selector(""):
            self.warn(f"no turbo --filter selects the root package {root.name!r} (a workspace glob lists the root "
                      "directory) alone: its name is filter syntax and turbo's directory filters never select it; "
                      "its tests are left out of the turbo command")
        node = self.make_node(root, nid)
        graph.add_node(dataclasses.replace(node, kind="package", is_test="test" in root.scripts
                                           and self.package_has_task(root, "test"),
                                           meta={**node.meta, TASKS: self.package_task_names(root)}))
        if edges:
            for dep in graph.dependencies(ROOT_ID):
                for kind in graph.edge_types(ROOT_ID, dep):
                    graph.add_edge(nid, dep, kind)
            if not graph.dependencies(nid):
                graph.add_edge(nid, ROOT_ID, IMPLICIT)
        return graph

    def make_node(self, pkg: JsPackage, node_id: str) -> Node:
        """A package's node; the root's also records turbo's repo mode and whether any turbo.json
        defines ``test`` (``test_command_warnings`` reads both on a warm run, without turbo.json)."""
        node = super().make_node(pkg, node_id)
        if not pkg.is_root:
            node = dataclasses.replace(node, meta={**node.meta, TASKS: self.package_task_names(pkg)})
            err = self.config_problems.get(pkg.dir)
            if err is None:
                return node
            where = err.location or Location(f"{pkg.dir}/{TURBO_JSON}")
            problem = [where.path, where.line, err.message]
            return dataclasses.replace(node, meta={**node.meta, CONFIG_PROBLEM: problem})
        single = self._single_package()
        own = sorted(pkg.scripts) if single else sorted(t[len(ROOT_ID) + 1:] for t in self.root_tasks
                                                        if t.startswith(f"{ROOT_ID}#"))
        return dataclasses.replace(node, meta={**node.meta, "single_package": single,
                                               "test_task": single and "test" in pkg.scripts or self.defines_test_task(),
                                               TASKS: own, DEFINED_TASKS: self.defined_task_names(single, pkg)})

    def defined_task_names(self, single: bool, root: JsPackage) -> list[str]:
        """Every task name some turbo.json defines (``defines_test_task`` for each; single-package
        mode: the root's scripts too). ``turbo run NAME`` fails for any other name ("Could not
        find task `NAME` in project", turbo 2.11.11, measured): ``unknown_target_warnings``."""
        names = {t.partition("#")[2] if "#" in t else t for t in self.root_tasks
                 if "#" not in t or t.partition("#")[0] in self.task_owners}
        names.update(t for tasks in self.package_tasks.values() for t in tasks)
        if single:
            names.update(root.scripts)
        return sorted(names)

    def package_task_names(self, pkg: JsPackage) -> list[str]:
        """The tasks turbo defines for workspace package ``pkg`` (``package_has_task`` of each name
        a turbo.json gives a task), so a cached graph answers ``--target NAME`` without turbo.json."""
        names = {t.partition("#")[2] if "#" in t else t for t in self.root_tasks
                 if "#" not in t or t.partition("#")[0] == pkg.name}
        names.update(t for tasks in self.package_tasks.values() for t in tasks)
        return sorted(t for t in names if self.package_has_task(pkg, t))

    def defines_test_task(self) -> bool:
        """Whether any turbo.json defines a ``test`` task (``test``, ``<pkg>#test``, ``//#test``, or
        ``test`` in a package's own turbo.json; ``<pkg>#test`` for no package is none: a negation
        that leaves ``<pkg>`` out makes the repo fail, measured). Without one ``turbo run test`` fails whatever the
        filter ("Could not find task `test` in project", turbo 2.11.11, measured) -- in a
        workspace; single-package mode takes the root's ``test`` script as the task (``has_test``)."""
        return any(t == "test" or t.endswith("#test") and t[:-len("#test")] in self.task_owners
                   for t in self.root_tasks) or any("test" in tasks for tasks in self.package_tasks.values())

    def finish(self, graph: BuildGraph, ws: JsWorkspace, ids: dict[str, str]) -> None:
        """An edge to ``//`` (``IMPLICIT``: turbo's virtual root) from each package without
        workspace dependencies, as turbo's graph builder adds it. A package that links itself
        (``"a": "workspace:./"``) has one in turbo (the self-edge, which ``build_graph``
        leaves out), so no such edge: ``turbo query`` lists ``a`` as its only dependency
        (turbo 2.11.11, measured)."""
        names, dirs = ws.by_name(), ws.by_dir()
        for pkg in ws.packages:
            nid = ids[pkg.dir]
            if not pkg.is_root and not graph.dependencies(nid) and pkg.dir not in self.linked_dirs(pkg, names, dirs):
                graph.add_edge(nid, ROOT_ID, IMPLICIT)

    def linked_dirs(self, pkg: JsPackage, names: dict[str, list[JsPackage]], dirs: dict[str, JsPackage]) -> set[str]:
        """The directories of the workspace packages ``pkg``'s dependencies link to (its own too)."""
        out: set[str] = set()
        for dep_name, (spec, _) in self.declared_dependencies(pkg).items():
            target = self.link_target(pkg, dep_name, spec, names, dirs)
            if target is not None:
                out.add(target.dir)
        return out

    def has_test(self, pkg: JsPackage) -> bool:
        """``scripts.test`` plus a ``test`` task; the root (``//``) runs one only as ``//#test``,
        or as ``test`` in single-package mode (``TurboDeclaration.single_package``)."""
        if "test" not in pkg.scripts:
            return False
        if pkg.is_root:
            # single-package mode runs the root's scripts as tasks, turbo.json defining them or
            # not (``{"tasks": {}}`` runs ``test``, turbo 2.11.11, measured)
            return self._single_package() or f"{ROOT_ID}#test" in self.root_tasks
        return self.package_has_task(pkg, "test")

    def _single_package(self) -> bool:
        return self.declaration is not None and self.declaration.single_package

    def package_has_task(self, pkg: JsPackage, task: str) -> bool:
        """Whether turbo defines ``task`` for ``pkg`` as a workspace package: its own turbo.json,
        one it extends, ``<name>#task`` or ``task`` in the root's (the root package too, when a
        workspace glob lists it: ``root_listed``)."""
        found = self._package_task_definition(pkg.dir, {pkg.dir}, task)
        if found is not None:
            # ``{"extends": false}`` alone opts out of the root's task (turbo 2.11, measured)
            return found != {"extends": False}
        return task in self.root_tasks or f"{pkg.name}#{task}" in self.root_tasks

    def _extends_location(self, rel: str, tracker: InputTracker) -> Location:
        """Where a package turbo.json says ``extends``, for errors about it."""
        from .workspace import key_line

        where = self.package_config_files[rel]
        return Location(where, key_line(tracker.read_text(self.root / where), "extends"))

    def _refuse_extends_cycle(self, name_of: dict[str, str], tracker: InputTracker) -> None:
        """turbo 2 stops at 'Cyclic "extends" detected: a -> b -> a' (measured; ``a -> a`` too):
        a problem of each package on the cycle (``config_problems``)."""
        state: dict[str, bool] = {}  # dir -> finished (False while on the current path)

        def visit(rel: str, path: list[str]) -> None:
            state[rel] = False
            for nxt in self.package_extends.get(rel, ()):
                if state.get(nxt) is False:
                    members = path[path.index(nxt):]
                    cycle = " -> ".join(name_of[d] for d in [*members, nxt])
                    err = ParseError(f'turbo refuses a cycle of "extends": {cycle}',
                                     self._extends_location(nxt, tracker))
                    for member in members:
                        self.config_problems.setdefault(member, err)
                if nxt not in state:
                    visit(nxt, [*path, nxt])
            state[rel] = True

        for rel in sorted(self.package_extends):
            if rel not in state:
                visit(rel, [rel])

    def _spread_config_problems(self, name_of: dict[str, str]) -> None:
        """A package whose turbo.json ``extends`` a refused one is refused too (turbo reads the
        whole chain: ``c`` extending a ``b`` with broken JSON fails ``turbo run test --filter=c``,
        turbo 2.11.11, measured); one warning per refused file, since ``turbo ls`` still answers."""
        changed = True
        while changed:
            changed = False
            for rel, extended in self.package_extends.items():
                broken = next((d for d in extended if d in self.config_problems), None)
                if rel not in self.config_problems and broken is not None:
                    self.config_problems[rel] = self.config_problems[broken]
                    changed = True
        by_text: dict[str, list[str]] = {}
        for rel, err in sorted(self.config_problems.items()):
            by_text.setdefault(f"{err.location}: {err.message}", []).append(name_of.get(rel, rel))
        for text, names in by_text.items():
            shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
            self.warn(f"{text} (turbo run stops on any task of {shown}; the package graph is unaffected)")

    def _package_task_definition(self, rel: str, seen: set[str], task: str) -> Any:
        """The ``task`` definition package ``rel``'s turbo.json gives it, or None: its own, else
        the one of the *last* package in ``"extends": ["//", ...]`` that gives one, itself found
        the same way (turbo 2.11.11, measured: ``c`` extending ``["//", "a", "d"]`` runs ``d``'s
        test where ``a`` opts out with ``{"extends": false}``, and opts out for ``["//", "d",
        "a"]``; a chain ``c -> b -> a`` carries ``a``'s opt-out, which a root ``b#test`` does not
        undo). ``seen`` keeps a diamond from being walked twice."""
        own = self.package_tasks.get(rel, {}).get(task)
        if own is not None:
            return own
        found = None
        for other in self.package_extends.get(rel, ()):
            if other not in seen:
                seen.add(other)
                definition = self._package_task_definition(other, seen, task)
                found = definition if definition is not None else found
        return found

    # ------------------------------------------------------------ tool mode
    def load_tool(self, tracker: InputTracker) -> BuildGraph:
        """The whole package graph from one ``turbo query`` call.

        turbo's answer decides the packages and the edges (``//`` included); scripts and
        turbo.json tasks, which decide the test nodes, are read from the manifests,
        which also stamps them for the graph cache.
        """
        out = self._query_output(tracker)
        if out is None:
            return self.load_static(tracker)
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
        ws = dataclasses.replace(static, packages=packages)
        graph = self.build_graph(ws, tracker, edges=False)
        ids = self.assign_ids(ws)
        # turbo names packages by name and the root "//"; map both to our node ids by path (at
        # "", a name other than "//" is the root package a workspace glob lists: ``build_graph``)
        listed_root = next((n.id for n in graph.nodes() if not n.package and n.id != ROOT_ID), None)
        id_of_name = {
            str(item.get("name")): ids.get(path) if path or item.get("name") == ROOT_ID else listed_root
            for item in items for path in [str(item.get("path", "")).strip("/")]
        }
        names, dirs = ws.by_name(), ws.by_dir()
        for item in items:
            src = id_of_name.get(str(item.get("name")))
            for dep in (item.get("directDependencies") or {}).get("items", []):
                dst = id_of_name.get(str(dep.get("name")))
                if src and dst and src != dst:
                    graph.add_edge(src, dst, self._query_edge_kind(graph.node(src).package, dst, by_dir, names, dirs))
        return graph

    def _query_output(self, tracker: InputTracker) -> str | None:
        """``turbo query``'s answer, or None when it refuses turbo.json's tasks.

        ``turbo query`` checks every task of turbo.json before it answers (turbo 2.11.11,
        measured): a ``dependsOn`` cycle, a task or package ``dependsOn`` names that does not
        exist, ``$VAR`` in ``dependsOn`` fail it, even between tasks ``turbo run test`` never
        reaches (a build <-> lint cycle; ``turbo run test`` then runs); so does a package
        turbo.json's ``"test": {"extends": false}`` where no turbo.json it extends defines ``test``
        ("Cannot set "extends": false on task"; ``turbo run test`` just leaves the package out). Static mode reads the
        same package graph from the manifests and warns about the test task graph
        (``test_command_warnings``); tool mode now does the same instead of exiting 2, so both
        modes answer alike. Other failures stay errors; a root turbo.json turbo cannot read
        ("Unable to read repository configuration", with byte offsets, no line) is reported as
        static mode reports it, at its line, when the static reader refuses it too.
        """
        if self.options.query_file:
            return self.tool_output(["query", QUERY], turbo_env())
        tool = self.find_tool()
        assert tool is not None  # load() checked
        argv = [tool, "query", QUERY]
        proc = self.run_tool_process(argv, turbo_env())
        if proc.returncode == 0:
            return proc.stdout
        text = proc.stderr or proc.stdout or ""
        if not TASK_REFUSAL.search(text):
            if "Unable to read repository configuration" in text:
                read_turbo_json(self.root, "", tracker)  # raises ParseError at the line
            raise self.tool_failure(argv, proc)
        # the refusal's own line: turbo prints others first ("x Could not resolve workspace." without a lockfile)
        lines = diagnostic_messages(text.splitlines())  # each "x <message>", with its "| <continued>" lines
        cause = next((ln for ln in lines if TASK_REFUSAL.search(ln)), lines[0] if lines else "")
        self.warnings.append(
            f"turbo query refuses turbo.json's tasks ({cause or 'see turbo query'}); "
            "the package graph was read from the manifests, as with --source static"
        )
        return None

    def _query_edge_kind(
        self, src_dir: str, dst: str, by_dir: dict[str, JsPackage], names: dict[str, list[JsPackage]],
        dirs: dict[str, JsPackage],
    ) -> str:
        """``turbo query`` names the root package and turbo's virtual root both ``//``: an edge
        to ``//`` is the root package's (DEP) only when the manifest links it (a
        ``workspace:`` path to the root directory), else the virtual root's (IMPLICIT)."""
        if dst != ROOT_ID:
            return DEP
        pkg = by_dir.get(src_dir)
        return DEP if pkg is not None and "" in self.linked_dirs(pkg, names, dirs) else IMPLICIT

    # ------------------------------------------------------------ answers
    def reportable(self, graph: BuildGraph, node_id: str) -> bool:
        return node_id != ROOT_ID and super().reportable(graph, node_id)

    def blast_radius(self, graph: BuildGraph, roots: Iterable[str], depth: int | None = None) -> dict[str, int]:
        """``turbo ls --filter=...X`` as turbo's ``PackageGraph::ancestors`` answers it.

        turbo's graph has two nodes ctxsel calls ``//``: the root *package*, which depends on
        what the root package.json lists and which a package depends on only by a
        ``workspace:`` path to the root directory (``named``); and a virtual root, the sink of
        the edges every package without workspace dependencies gets (``IMPLICIT`` here). Only
        the first is followed (``declared_rdeps``), so:

        - ``...X`` is X's dependents along declared edges; when the root package is among
          them (the root depends on X, transitively) it is *every* package, edges or not --
          also one in a dependency cycle, or one that depends only on itself
          (``workspace:./``), which no edge leads from (turbo 2.11.11, measured). They are
          put one step beyond ``//``, where ``--depth`` counts them;
        - ``...//`` is the packages that declare the root as a dependency, and their
          dependents: none in most repositories (``turbo ls --filter=...//`` lists nothing).

        ``//`` is in the radius, unreported (``reportable``), when it is a root (at 0) or a
        dependent: ``Workspace.tests`` still selects its ``//#test``, as
        ``turbo run test --filter=...//`` and ``--filter=...X`` run it (measured).
        turbo.json and ``globalDependencies`` are global files, not ``//``'s.
        """
        roots = [r for r in roots if r in graph]
        found = declared_rdeps(graph, [r for r in roots if r != ROOT_ID], depth)
        if ROOT_ID in found:
            beyond = found[ROOT_ID] + 1
            if depth is None or beyond <= depth:
                for node_id in graph:
                    found.setdefault(node_id, beyond)
        if ROOT_ID in roots:
            for node_id, distance in declared_rdeps(graph, [ROOT_ID], depth).items():
                if distance < found.get(node_id, distance + 1):
                    found[node_id] = distance
        return found

    def root_package_node(self, graph: BuildGraph) -> str | None:
        """``//``: turbo maps every changed file outside the packages to it (``Adapter.root_package_node``)."""
        return ROOT_ID if ROOT_ID in graph else None

    def nodes_for_changed_file(self, graph: BuildGraph, path: str) -> list[str]:
        """A changed file outside every package (root README, tsconfig, package.json)
        marks no package in turbo (``turbo ls --filter=...[ref]``, measured): it is the root
        ``//``'s, whose ``//#test`` the change set adds apart (``root_package_node``);
        turbo.json and ``globalDependencies`` are handled as global files before this is asked.

        The root lockfile is turbo's special case: with both versions of it turbo marks only
        the packages whose locked dependencies changed (``nodes_for_lockfile_change``);
        asked about the path alone, ctxsel answers as turbo does without the previous
        contents ("LockfileChangedWithoutDetails"): every package.
        """
        if path == self.lockfile():
            return self.nodes_for_lockfile_change(graph, None, None)
        # ``//`` and the root package a workspace glob lists: a root file is ``//``'s alone (measured)
        return [n for n in self.nodes_for_file(graph, path) if graph.node(n).package]

    def resolve(self, graph: BuildGraph, spec: str) -> list[str]:
        """A node id first: the root package a workspace glob lists shares the root's name with
        ``//``, and ``turbo --filter=<name>`` selects that package alone (measured)."""
        return [spec] if spec in graph else super().resolve(graph, spec)

    def lockfile(self) -> str | None:
        """The repo-relative lockfile turbo reads here (by ``packageManager``), or None.
        Read once per adapter: a change set may ask for each of 10,000 files."""
        if not hasattr(self, "_lockfile"):
            from .workspace import detect_manager, root_manifest

            pm = root_manifest(self.root).get("packageManager")
            name = pm.split("@", 1)[0].strip() if isinstance(pm, str) else detect_manager(self.root)
            self._lockfile = LOCKFILES.get(name or "")
        return self._lockfile

    def compared_files(self) -> tuple[str, ...]:
        """The lockfile: turbo 2 compares its two versions (``nodes_for_lockfile_change``)."""
        lock = self.lockfile()
        return (lock,) if lock else ()

    def nodes_for_file_versions(self, graph: BuildGraph, path: str, before: str | None, after: str | None) -> list[str] | None:
        return self.nodes_for_lockfile_change(graph, before, after) if path == self.lockfile() else None

    def nodes_for_lockfile_change(self, graph: BuildGraph, before: str | None, after: str | None) -> list[str]:
        """The packages a change of the lockfile from ``before`` to ``after`` marks in turbo 2.

        Each package's external dependencies (package.json, ``EXTERNAL_FIELDS``) are
        followed through both lockfiles; a package whose set of locked entries differs is
        changed (and, through the blast radius, its dependents). Every package is changed
        when a side is missing (None), unreadable, differs in a global field, or changes
        what the root's own external dependencies reach (``lockfile_changed_dirs``). The root ``//`` is changed too in turbo
        ("ConservativeRootLockfileChanged"), which no ``turbo ls`` lists.
        """
        import json

        lockfile = self.lockfile() or ""
        manager = next((m for m, f in LOCKFILES.items() if f == lockfile), "")
        packages = [n for n in graph.nodes() if n.kind == "package" and not n.external]
        if before is None or after is None:
            return sorted(n.id for n in packages)  # nothing to compare: no manifest need be read
        externals: dict[str, dict[str, str]] = {}
        resolutions: dict[str, str] = {}
        for node in [*packages, *(graph.node(n) for n in (ROOT_ID,) if n in graph)]:
            try:
                manifest = json.loads(read_text(self.root / node.package / "package.json"))
            except (OSError, ValueError):
                manifest = {}
            if node.id == ROOT_ID and isinstance(manifest, dict) and isinstance(manifest.get("resolutions"), dict):
                resolutions = manifest["resolutions"]
            # what turbo linked to a workspace package is no external dependency
            internal = {graph.node(d).meta.get("name") for d in graph.dependencies(node.id)}
            deps: dict[str, str] = {}
            for field in EXTERNAL_FIELDS:
                declared = manifest.get(field) if isinstance(manifest, dict) else None
                if isinstance(declared, dict):
                    deps.update({k: v for k, v in declared.items() if isinstance(v, str)
                                 and k not in internal and not v.startswith(WORKSPACE_PROTOCOL)})
            externals[node.package] = deps
        changed = lockfile_changed_dirs(before, after, manager, externals, resolutions)
        return sorted(n.id for n in packages if changed is None or n.package in changed)

    several_targets_per_command: ClassVar[bool] = True  # turbo run lint test
    target_noun: ClassVar[str] = "task"

    def has_target(self, node: Node, target: str) -> bool:
        """``scripts.<target>`` plus a turbo task of that name for the package (``is_test`` for
        ``test``): ``turbo run lint`` lists a package without the script with command
        ``<NONEXISTENT>`` and runs nothing there (turbo 2.11.11, measured)."""
        if target == "test":
            return node.is_test
        return target in node.meta.get("scripts", {}) and target in node.meta.get(TASKS, ())

    def unknown_target_warnings(self, graph: BuildGraph, targets: Sequence[str]) -> list[str]:
        """A target no turbo.json defines fails every ``turbo run`` naming it ("Could not find task
        `nope` in project", also beside a defined one: ``turbo run nope lint``; turbo 2.11.11,
        measured): said as such, the command leaves it out; else the usual warning."""
        defined = set(graph.node(ROOT_ID).meta.get(DEFINED_TASKS, ())) if ROOT_ID in graph else set()
        missing = [t for t in targets if t not in defined]
        where = self._config_name()
        out = [f'{where} defines no "{t}" task: `turbo run {t}` fails ("Could not find task `{t}` in project"), '
               "so the command leaves it out" for t in missing]
        return out + super().unknown_target_warnings(graph, [t for t in targets if t in defined])

    def test_command(self, tests: list[str], targets: Sequence[str] = DEFAULT_TARGETS) -> list[str]:
        """``turbo run test --filter=<one package>...`` (``filter_value``; ``--target lint,test``:
        ``turbo run lint test ...``). A package no filter selects alone is left out (``assign_ids``
        warned); with none left the command is empty, as ``turbo run test`` without a filter
        would run every package."""
        filters = [f for f in map(filter_value, tests) if f is not None]
        return ["turbo", "run", *targets, *(f"--filter={f}" for f in filters)] if filters else []

    def targets_command(self, graph: BuildGraph, tests: list[str], targets: Sequence[str] = DEFAULT_TARGETS) -> list[str]:
        """``test_command`` for the targets some turbo.json defines: one it does not define would
        fail the whole ``turbo run`` (``unknown_target_warnings``)."""
        if tuple(targets) != DEFAULT_TARGETS and ROOT_ID in graph:
            defined = set(graph.node(ROOT_ID).meta.get(DEFINED_TASKS, ()))
            targets = [t for t in targets if t in defined]
        return super().targets_command(graph, tests, targets) if targets else []

    def test_command_warnings(self, graph: BuildGraph, tests: list[str], targets: Sequence[str] = DEFAULT_TARGETS) -> list[str]:
        """turbo refuses the whole ``turbo run test`` when the task graph from these tests is
        broken (``walk_task_graph``): a cycle through ``dependsOn``, a task it names that
        does not exist, a persistent dependency. The command stays as it is (it is what runs
        these tests once turbo.json is fixed), with the reason on stderr.

        With no ``test`` task in any turbo.json, no package has a test to select, yet every
        ``turbo run test`` fails ("Could not find task `test` in project", exit 1; turbo 2.11.11,
        measured): when some package has a ``test`` script, that is said too, as a
        configuration mistake rather than "no tests" (``defines_test_task``).

        A graph turbo runs may still run more tests than selected (``^test``): one line names
        them (``_dependency_tests_note``)."""
        root = graph.node(ROOT_ID).meta if ROOT_ID in graph else {}
        if not tests:
            # (another --target no turbo.json defines: ``unknown_target_warnings``)
            if (tuple(targets) == DEFAULT_TARGETS and root.get("test_task") is False
                    and any("test" in n.meta.get("scripts", {}) for n in graph.nodes())):
                where = self._config_name()
                text = (f'{where} defines no "test" task, so `turbo run test` fails ("Could not find task `test` '
                        f'in project") and no package\'s test script runs; add "test" to "tasks" in {where}')
                return [text]
            return []
        tracker = InputTracker(self.root)
        try:
            found = read_turbo_json(self.root, "", tracker)
            if found is None:
                return []
            dir_of = {str(n.meta.get("name")): n.package for n in graph.nodes() if n.kind == "package"}
            single = bool(root.get("single_package"))
            defs = TaskDefinitions(self.root, turbo_tasks(found[0]), dir_of, tracker, single_package=single)
            problems, reached = walk_task_graph(graph, tests, defs, targets)
            # "Package tasks (<package>#<task>) are not allowed in single-package repositories"
            # stops every ``turbo run`` (``turbo ls`` lists no package and goes on; 2.11.11, measured)
            problems[:0] = [f"{task!r} is a package task, which a single-package repository (no workspace globs "
                            "turbo reads) cannot have" for task in defs.root_tasks if single and "#" in task][:1]
        except (ParseError, OSError):
            return []  # the graph was read from these files; a file broken since is the next run's error
        self._refuse_broken_configs(graph, reached, targets)
        if not problems:
            return self._dependency_tests_note(graph, tests, reached, targets)
        shown = "; ".join(problems[:3]) + (f"; and {len(problems) - 3} more" if len(problems) > 3 else "")
        fix = "turbo.json or the root package.json scripts" if any("recursive_turbo" in p for p in problems) else "turbo.json"
        return [f"turbo refuses to run this command, its task graph is broken: {shown} (fix {fix})"]

    @staticmethod
    def _refuse_broken_configs(graph: BuildGraph, reached: set[TaskKey], targets: Sequence[str] = DEFAULT_TARGETS) -> None:
        """Exit 2 when a task of the command reads a package turbo.json turbo refuses: turbo reads
        it only then, and stops before any task runs ("Failed to parse turbo.json", "Cannot extend
        from ...", 2.11.11, measured), where ``turbo ls`` and other packages' tasks still work --
        so the graph loads with a warning and only such a command is an error."""
        for nid, task in sorted(reached):
            err = refused_config(graph.node(nid)) if nid in graph else None
            if err is not None:
                name = graph.node(nid).meta.get("name") or nid
                raise ParseError(f"{err.message} (`turbo run {' '.join(targets)}` stops on it: it runs {name}#{task})",
                                 err.location,
                                 hint="fix that turbo.json; the package graph and other packages' tests are unaffected")

    def _dependency_tests_note(self, graph: BuildGraph, tests: list[str], reached: set[TaskKey],
                               targets: Sequence[str] = DEFAULT_TARGETS) -> list[str]:
        """One line naming the ``test`` tasks the command runs beyond the selected ones: turbo
        follows ``dependsOn`` (``^test``: the tests of every package the selected ones depend
        on), so ``turbo run test --filter=b`` also runs ``a#test`` (turbo 2.11.11, measured).
        They are prerequisites, not tests the change can break, so they stay out of the
        selection; the line keeps the listing honest about what the command runs. Only tasks
        with a script count: turbo runs none for a package without one (``<NONEXISTENT>``)."""
        chosen = set(tests)
        extra = sorted(
            str(graph.node(nid).meta.get("name") or nid) if nid != ROOT_ID else ROOT_ID
            for nid, task in reached
            if task in targets and nid not in chosen and nid in graph and task in graph.node(nid).meta.get("scripts", {})
        )
        if not extra:
            return []
        shown = ", ".join(extra[:5]) + (f" and {len(extra) - 5} more" if len(extra) > 5 else "")
        what = "package" if len(extra) == 1 else "packages"
        task_name = "test" if tuple(targets) == DEFAULT_TARGETS else "/".join(targets)
        text = (f"the command also runs the {task_name} task of {len(extra)} {what} the selected tests depend on through "
                f"turbo.json's dependsOn (e.g. ^test), not affected by the change: {shown}")
        return [text]

    def _config_name(self) -> str:
        """The root's turbo.json or turbo.jsonc, for messages."""
        try:
            return config_file(self.root) or TURBO_JSON
        except ParseError:
            return TURBO_JSON

    def global_files(self) -> tuple[str, ...]:
        """The root turbo.json (or turbo.jsonc) and its ``globalDependencies`` globs: turbo
        marks every package when they change. (turbo counts both names; the other one can
        only appear next to it, which turbo refuses, or replace it, which changes this one.)"""
        import json

        from .workspace import strip_jsonc

        try:
            name = config_file(self.root) or TURBO_JSON
        except ParseError:
            return CONFIG_NAMES
        try:
            config = json.loads(strip_jsonc(read_text(self.root / name)))
        except (OSError, ValueError):
            return (name,)
        deps = config.get("globalDependencies") if isinstance(config, dict) else None
        # turbo matches the globs as written, so ``./config.json`` (``./config/*.json``, ``!./x``)
        # never matches a changed ``config.json`` (2.11.11, measured); the shared glob reader drops
        # a leading ``./``, so such entries are left out here
        extra = tuple(str(p) for p in deps if not str(p).removeprefix("!").startswith("./")) if isinstance(deps, list) else ()
        return (name, *extra)
