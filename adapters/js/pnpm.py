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
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from ctxsel.adapters.base import AdapterOptions
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


def pnpm_glob_problem(glob: str) -> str | None:
    r"""Why pnpm 12 refuses a workspace glob (``!`` already stripped), or None.

    Every pnpm command stops on it ("ERR_PNPM_WORKSPACE_INVALID_GLOB ... failed to parse glob
    expression", 12.4.2, measured). Its grammar is turbo's (``turbo.workspace_glob_problem``:
    unbalanced or empty ``{}``/``[]``, ``,`` outside braces, ``(``, ``)``, ``:``) except that an
    empty path segment (``p//a``) is accepted, plus: ``**`` only as a whole segment, never twice
    in a row nor inside braces (``p/a**``, ``p/***``, ``p/**/**``, ``p/{a,**}``); a ``\`` only
    before a character glob syntax uses (``p/\a``, a trailing ``\``); and a class whose ``-``
    is no range between two characters (``[-a]``, ``[a-]``, ``[a-b-c]``) or that holds only ``!``.
    """
    from .turbo import workspace_glob_problem  # the grammar both tools share

    while "//" in glob:
        glob = glob.replace("//", "/")
    why = workspace_glob_problem(glob)
    if why is not None:
        return why
    segments = glob.split("/")
    for seg, nxt in zip(segments, [*segments[1:], None]):
        if "**" in seg and seg != "**":
            return "a ** that is not a whole path segment" if "{" not in seg else "a ** inside braces"
        if seg == nxt == "**":
            return "two ** segments in a row"
    for i, c in enumerate(glob):
        if c == "\\" and (i + 1 == len(glob) or glob[i + 1] not in _ESCAPABLE):
            return "a \\ that escapes nothing"
    for body in _CLASS.findall(glob):
        items = body[1:] if body.startswith("!") else body
        if not items or not _CLASS_ITEMS.fullmatch(items):
            return f"the class [{body}]"
    return None


#: what a ``\`` may escape in pnpm 12's globs (``p/\*`` is a literal ``*``; ``p/\a`` is refused, measured)
_ESCAPABLE = frozenset("*?[]{}()!,:\\-^")
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
        (``pnpm_glob_problem``)."""
        for glob in ws.globs:
            why = pnpm_glob_problem(glob.removeprefix("!"))
            if why is not None:
                raise ParseError(f"pnpm refuses the workspace glob {glob!r} ({why}): \"Invalid glob pattern\"",
                                 Location(PNPM_WORKSPACE), hint="every pnpm command fails until it is fixed")
        value = ws.settings.get("linkWorkspacePackages")
        if not (value is None or isinstance(value, bool) or value == "deep"):  # null: unset, as in pnpm
            raise ParseError(
                f"linkWorkspacePackages must be true, false or \"deep\", not {value!r}", Location(PNPM_WORKSPACE)
            )
        self.link_workspace_packages = value in (True, "deep")

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

    def test_command(self, tests: list[str]) -> list[str]:
        argv = ["pnpm"]
        for t in tests:
            argv += ["--filter", filter_selector(t)]
        return argv + ["test"]

    def test_command_warnings(self, graph: BuildGraph, tests: list[str]) -> list[str]:
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
