"""What pnpm, npm, yarn and Turborepo have in common: a graph of workspace packages.

Each of those tools builds the same kind of graph -- one node per package.json, an
edge where a dependency field names another workspace package -- but they disagree on
*which* dependency specs link to a workspace package (``workspace:`` ranges, ``link:``
paths, plain semver ranges, peer dependencies). ``PackageGraphAdapter`` builds the graph
once; each subclass answers only the questions where its tool differs
(``edge_fields``, ``link_target``, ``has_test``, ``test_command``).

Node ids are package names, the names users type and the tools accept in ``--filter``.
A package without a name, one whose name another package shares, or one whose name the
tool's filter reads as syntax (pnpm's ``a*``, npm's ``!x``) is named by its directory
(``./packages/x``), which every one of these tools also accepts as a selector.

The manifest reader (``workspace``) and ``semver`` are imported by the functions that
build a graph: a warm run takes the graph from the cache and needs neither (~2 ms).
"""

from __future__ import annotations

import os
import posixpath
import re
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Iterable, Sequence

from ctxsel.adapters.base import DEFAULT_TARGETS, Adapter
from ctxsel.cache import InputTracker
from ctxsel.process import run_tool
from ctxsel.errors import Location, ParseError, ToolError
from ctxsel.graph import DEP, DEV, OPTIONAL, PEER, BuildGraph, Node

if TYPE_CHECKING:  # pragma: no cover
    import subprocess

    from . import semver
    from .workspace import JsPackage, JsWorkspace

#: package.json fields that declare dependencies and the edge type each becomes, lowest
#: priority first: when one name appears in several fields, the later field's spec is the
#: one the tools use (measured with pnpm 12 and turbo 2: ``dependencies: "^1.0.0"`` plus
#: ``devDependencies: "workspace:*"`` is *no* edge; ``devDependencies: "workspace:*"`` plus
#: ``peerDependencies: "^1.0.0"`` is one).
DEP_FIELDS: tuple[tuple[str, str], ...] = (
    ("peerDependencies", PEER),
    ("devDependencies", DEV),
    ("optionalDependencies", OPTIONAL),
    ("dependencies", DEP),
)
WORKSPACE_PROTOCOL = "workspace:"
TOOL_TIMEOUT = 120.0  # seconds; a tool that takes longer is reported, never waited on forever


def dir_selector(dir_: str) -> str:
    """How pnpm, npm and turbo name a package by directory (``./packages/x``; ``.`` for the root)."""
    return f"./{dir_}" if dir_ else "."


def split_alias(text: str) -> tuple[str | None, str]:
    """``@scope/name@^1`` -> (``@scope/name``, ``^1``); a bare range -> (None, range).

    Any ``@`` after the first character splits, whatever the name looks like: pnpm 12 links
    ``workspace:1@*`` and ``workspace:v1@*`` to the packages named ``1`` and ``v1`` (measured);
    a range never holds an ``@``.
    """
    at = text.find("@", 1)
    if at > 0:
        return text[:at], text[at + 1 :]
    return None, text


def resolve_path(pkg: JsPackage, target: str, root: Path | None = None, backslash: bool = True) -> str | None:
    """A ``link:``/``file:`` path of ``pkg`` as a repo-relative directory (None: not inside ``root``).

    Relative paths join the package's directory and normalise lexically (``../a/b/..`` is
    ``../a`` even when ``a/b`` does not exist, as in pnpm 12). An absolute path is a
    workspace directory only when ``root`` is given and it lies inside (pnpm 12 links
    ``link:/abs/repo/p/a``; ``///abs`` is the same path). ``backslash`` reads ``\\`` as a
    separator; pnpm 12 on POSIX does not (``link:..\\a`` is no link, measured).
    """
    if backslash:
        target = target.replace("\\", "/")
    joined = posixpath.normpath(posixpath.join(pkg.dir or ".", target))
    if joined.startswith("/"):
        if root is None:
            return None
        for base in dict.fromkeys((os.path.abspath(root), os.path.realpath(root))):
            rel = posixpath.relpath(joined, base)
            if rel != ".." and not rel.startswith("../"):
                return "" if rel == "." else rel
        return None
    return "" if joined == "." else joined


def path_target(
    pkg: JsPackage, target: str, dirs: dict[str, JsPackage], root: Path | None = None, backslash: bool = True
) -> JsPackage | None:
    """The workspace package in the directory a path spec of ``pkg`` names (``resolve_path``), if any."""
    rel = resolve_path(pkg, target, root, backslash)
    return dirs.get(rel) if rel is not None else None


def workspace_target(
    pkg: JsPackage,
    dep_name: str,
    spec: str,
    names: dict[str, list[JsPackage]],
    dirs: dict[str, JsPackage],
    pnpm: bool = False,
) -> JsPackage | None:
    """Where a ``workspace:`` spec points for pnpm and yarn: ``workspace:../dir``,
    ``workspace:@alias/name@range`` or ``workspace:<range>`` on ``dep_name``.

    ``*``, ``^`` and ``~`` accept any version; any other range must be satisfied and picks
    the highest satisfying version among same-named packages. With ``pnpm``, a range
    written exactly as a package's version string picks that package first
    (``exact_version``) and the range is read as pnpm reads it (``semver.pnpm_range``).
    (Turborepo reads these specs its own way: ``turbo.turbo_workspace_target``.)
    """
    rest = spec[len(WORKSPACE_PROTOCOL):]
    if rest.startswith((".", "/")):
        return path_target(pkg, rest, dirs)
    alias, wanted = split_alias(rest)
    candidates = names.get(alias or dep_name, [])
    found = exact_version(candidates, wanted) if pnpm else None
    if found is not None:
        return found
    if pnpm:
        from . import semver

        # only ``*``, ``^`` and ``~`` written exactly accept any version: pnpm 12 reads
        # ``workspace:* `` as the range ``*`` (no prerelease links) and ``workspace: ^`` as no
        # range (only a package without a version links), measured
        if wanted in ("", "*", "^", "~"):
            return highest(candidates, None)
        # no range pnpm can read (``workspace:latest``): still a package without a version links
        return highest(candidates, semver.pnpm_range(wanted) or semver.UNSATISFIABLE)
    trimmed = wanted.strip()
    if wanted == "" or trimmed in ("*", "^", "~"):
        return highest(candidates, None)
    return highest(candidates, trimmed)  # ``workspace:  ^1.0.0  `` is ``^1.0.0``


def exact_version(candidates: Iterable[JsPackage], written: str) -> JsPackage | None:
    """The first candidate whose ``version`` string is ``written``, character for character.

    pnpm 12 compares the spec with each version string before reading either as semver
    (measured): ``workspace:1.0`` links a package at ``1.0``, ``workspace:latest`` one at
    ``latest``, ``workspace:`` one at ``""`` and ``workspace:1.0.0 `` one at ``1.0.0 `` --
    versions that link for no range at all (``highest``).
    """
    return next((p for p in candidates if p.version == written), None)


def highest(
    candidates: Iterable[JsPackage], range_text: str | semver.PnpmRange | None, plain: bool = False
) -> JsPackage | None:
    """The candidate with the highest version satisfying ``range_text`` (None = any version):
    node-semver range text, or a range as pnpm reads it (``semver.pnpm_range``).

    This is how pnpm picks between workspace packages that share a name (pnpm 12, measured):

    - a ``version`` string pnpm cannot parse (``1.0``, ``=1.0.0``, ``latest``, ``""``) links
      for no spec at all, ``workspace:*`` included;
    - a package without a ``version`` (or a non-string one) satisfies every ``workspace:``
      range (``workspace:^1.0.0`` links) -- but only while no package of that name has a
      version string, even one pnpm cannot parse: next to a ``1.0`` (or ``""``) sibling it
      links for no spec, ``workspace:*`` included;
    - a ``plain`` range (``^1.0.0`` under ``linkWorkspacePackages``) links only a parsed
      version, and ``*`` then accepts prereleases too (``1.0.0-rc.1`` links for ``*``), but
      only written exactly: ``* `` is the range ``*``, which a prerelease does not satisfy.
    """
    from . import semver

    candidates = list(candidates)
    versioned = any(p.version is not None for p in candidates)
    parsed_of = {id(p): semver.parse_manifest_version(p.version) for p in candidates if p.version is not None}
    candidates = [p for p in candidates if p.version is None or parsed_of[id(p)] is not None]
    if plain:
        candidates = [p for p in candidates if p.version is not None]
        if range_text is not None and _text(range_text) == "*":
            range_text = None
    best: JsPackage | None = None
    best_key: tuple | None = None
    for pkg in candidates:
        parsed = parsed_of.get(id(pkg))
        if parsed is None and versioned:
            continue
        if range_text is not None and parsed is not None and not _satisfies(parsed, range_text):
            continue
        key = (1, semver.version_key(parsed)) if parsed is not None else (0,)
        if best_key is None or key > best_key:
            best, best_key = pkg, key
    return best


def _text(range_: str | semver.PnpmRange) -> str:
    return range_ if isinstance(range_, str) else range_.text


def _satisfies(version: semver.Version, range_: str | semver.PnpmRange) -> bool:
    """node-semver's ``satisfies`` for range text, pnpm's for a ``PnpmRange``."""
    from . import semver

    return bool(semver.satisfies_version(version, range_)) if isinstance(range_, str) else range_.satisfies(version)


def json_depth(value: object) -> int:
    """How many objects/arrays deep a parsed JSON value nests (``{}`` is 1, ``{"a": []}`` 2).

    Iterative, so the check itself cannot hit Python's recursion limit."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in children)
    return deepest


def json_depth_line(text: str, limit: int) -> int | None:
    """The line where a JSON text first opens more than ``limit`` nested objects/arrays."""
    from .workspace import json_structure

    for m, depth in json_structure(text):
        if depth > limit and m.group(0) in ("{", "["):
            return text.count("\n", 0, m.start()) + 1
    return None


#: a lone UTF-16 surrogate, as Python's json decodes a ``\\uD800``-``\\uDFFF`` escape that is no pair
_SURROGATE_CHAR = re.compile("[\ud800-\udfff]")


def serde_json_problem(value: object) -> str | None:
    """What in a parsed package.json pnpm's and turbo's JSON readers refuse although it is JSON, or None.

    pnpm 12.4.2 (serde_json) and turbo 2.11.11 (both Rust) stop on a number beyond a 64-bit
    float (``1e999``, ``-1e309``, an integer of 400 digits) and on a ``\\uD800``-``\\uDFFF``
    escape that is no surrogate pair, in a key or a value, whatever the field (pnpm: "number out
    of range", "lone leading surrogate in hex escape"; turbo: "expected valid JSON"; measured:
    every command of both fails). Python's json reads both (``inf``, a lone surrogate).
    """
    stack: list[object] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            # isascii() and the regex run in C: the per-character any() took most of a cold
            # load of a 462-package workspace (tsparticles)
            if not item.isascii() and _SURROGATE_CHAR.search(item):
                return "a \\u escape that is half a UTF-16 surrogate pair"
        elif isinstance(item, (int, float)) and not isinstance(item, bool) and abs(item) > sys.float_info.max:
            return "a number too large for a 64-bit float"
    return None


#: a ``\uXXXX`` surrogate escape (with the low half that may follow a high one), and a JSON number
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}(?:\\u[dD][c-fC-F][0-9a-fA-F]{2})?|\\u[dD][c-fC-F][0-9a-fA-F]{2}")
_JSON_STRING = re.compile(r'"(?:\\.|[^"\\])*"')
_JSON_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")


def serde_json_problem_line(text: str) -> int | None:
    """The line of the first lone surrogate escape or too-large number in a JSON text."""
    lone = next((m for m in _SURROGATE_ESCAPE.finditer(text) if len(m.group(0)) == 6), None)
    outside = _JSON_STRING.sub(lambda m: " " * len(m.group(0)), text)  # strings hold no newline
    huge = next((m for m in _JSON_NUMBER.finditer(outside) if abs(float(m.group(0))) == float("inf")), None)
    found = [m.start() for m in (lone, huge) if m is not None]
    return text.count("\n", 0, min(found)) + 1 if found else None


class PackageGraphAdapter(Adapter):
    """A workspace of package.json packages; subclasses supply one tool's linking rules."""

    node_noun: ClassVar[str] = "package"
    #: dependency fields that are edges for this tool
    edge_fields: ClassVar[tuple[tuple[str, str], ...]] = DEP_FIELDS

    # ------------------------------------------------------------ graph
    def load(self, tracker: InputTracker) -> BuildGraph:
        """The graph, carrying the loader's warnings so a cache hit still prints them."""
        graph = super().load(tracker)
        graph.warnings.extend(w for w in self.warnings if w not in graph.warnings)
        self.warnings.clear()
        return graph

    #: how this tool combines ``!negations`` with workspace globs (``workspace.NEGATION_RULES``)
    negation_rule: ClassVar[str] = "ignore"

    #: the manifest file names that make a directory a package for this tool
    manifest_files: ClassVar[tuple[str, ...]] = ("package.json",)
    #: the deepest nesting of objects/arrays this tool's JSON parser reads in a package.json
    #: (None: as deep as Python's ``json`` reads, ~990 levels, past which ctxsel names the file)
    max_manifest_depth: ClassVar[int | None] = None
    #: whether the tool refuses what ``serde_json_problem`` finds in a package.json
    serde_json: ClassVar[bool] = False

    def workspace(self, tracker: InputTracker) -> JsWorkspace:
        """The packages this tool sees: ``discover``'s answer, which a tool may adjust
        (npm names an unnamed workspace after its folder; turbo leaves it out)."""
        from .workspace import discover

        return discover(self.root, tracker, self.negation_rule, self.manifest_files)

    def load_static(self, tracker: InputTracker) -> BuildGraph:
        return self.build_graph(self.workspace(tracker), tracker)

    def build_graph(self, ws: JsWorkspace, tracker: InputTracker, edges: bool = True) -> BuildGraph:
        """Nodes for every package, and (with ``edges``) the edges this tool would link."""
        self.warnings.extend(w for w in ws.warnings if w not in self.warnings)
        self.check_manifest_depth(ws)
        self.prepare(ws, tracker)
        ids = self.assign_ids(ws)
        graph = BuildGraph(self.name, str(self.root))
        for pkg in ws.packages:
            graph.add_node(self.make_node(pkg, ids[pkg.dir]))
        if edges:
            names = ws.by_name()
            dirs = ws.by_dir()
            for pkg in ws.packages:
                for dep_name, (spec, edge_type) in self.declared_dependencies(pkg).items():
                    target = self.link_target(pkg, dep_name, spec, names, dirs)
                    if target is not None and target.dir != pkg.dir:
                        graph.add_edge(ids[pkg.dir], ids[target.dir], edge_type)
            self.finish(graph, ws, ids)
        return graph

    def active_fields(self) -> tuple[tuple[str, str], ...]:
        """``edge_fields`` minus devDependencies when ``extra["prod"]`` asks for ``--filter-prod``."""
        if self.options.extra.get("prod", "").lower() in ("1", "true", "yes"):
            return tuple(f for f in self.edge_fields if f[0] != "devDependencies")
        return self.edge_fields

    def declared_dependencies(self, pkg: JsPackage) -> dict[str, tuple[str, str]]:
        """name -> (spec, edge type): one spec per name, the highest-priority field winning."""
        merged: dict[str, tuple[str, str]] = {}
        for field_name, edge_type in self.active_fields():
            declared = pkg.manifest.get(field_name)
            if isinstance(declared, dict):
                for dep_name, spec in declared.items():
                    if isinstance(spec, str):
                        # not stripped: pnpm and turbo read `` workspace:*`` as an unknown
                        # protocol, never as a workspace link (measured)
                        merged[dep_name] = (spec, edge_type)
        return merged

    def check_manifest_depth(self, ws: JsWorkspace) -> None:
        """Refuse a package.json nested deeper than the tool's parser reads (``max_manifest_depth``)
        or holding what serde_json refuses (``serde_json``): the tool then fails on every
        command, whichever package it is."""
        if self.serde_json:
            self.check_serde_values(ws)
        limit = self.max_manifest_depth
        if limit is None:
            return
        for pkg in ws.packages:
            if json_depth(pkg.manifest) <= limit:
                continue
            rel = f"{pkg.dir}/package.json" if pkg.dir else "package.json"
            if not (self.root / rel).is_file():
                continue  # pnpm's package.yaml: a YAML reader with limits of its own
            try:
                line = json_depth_line((self.root / rel).read_text(encoding="utf-8"), limit)
            except (OSError, UnicodeDecodeError):
                line = None
            raise ParseError(f"nested more than {limit} objects/arrays deep, which {self.name} cannot read",
                             Location(rel, line), hint=f"every {self.name} command fails on this file")

    def check_serde_values(self, ws: JsWorkspace) -> None:
        """Refuse a package.json whose numbers or strings serde_json cannot read (``serde_json_problem``)."""
        for pkg in ws.packages:
            why = serde_json_problem(pkg.manifest)
            rel = f"{pkg.dir}/package.json" if pkg.dir else "package.json"
            if why is None or not (self.root / rel).is_file():
                continue  # pnpm's package.yaml is no JSON
            try:
                line = serde_json_problem_line((self.root / rel).read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError):
                line = None
            raise ParseError(f"holds {why}, which {self.name} cannot read", Location(rel, line),
                             hint=f"every {self.name} command fails on this file")

    def prepare(self, ws: JsWorkspace, tracker: InputTracker) -> None:
        """Read tool settings the linking rules need (``.npmrc``, turbo.json), before any edge."""

    def finish(self, graph: BuildGraph, ws: JsWorkspace, ids: dict[str, str]) -> None:
        """Add tool-specific nodes or edges (Turborepo's ``//``) once the package edges exist."""

    #: whether the root package answers to its name in this tool's filter: pnpm's ``--filter
    #: root`` selects the root project (measured), npm's ``--workspace`` and turbo's (root ``//``) do not
    root_answers_to_name: ClassVar[bool] = False

    def assign_ids(self, ws: JsWorkspace) -> dict[str, str]:
        """dir -> node id: the package name, or its directory when unnamed or when the name is shared.

        A shared name is no id for *any* of its packages, nor is a name the filter would read
        as syntax (``name_selects_itself``): ``pnpm --filter x test`` runs every
        package named ``x`` (pnpm 12, measured), so a test command naming one of them by name
        would run the others too. Their directories (``./p/x``) select exactly one. npm, yarn
        and turbo refuse shared names, so this only changes what pnpm workspaces are called.
        """
        def answers(pkg: JsPackage) -> bool:
            return bool(pkg.name) and (self.root_answers_to_name or not pkg.is_root)

        counts = Counter(p.name for p in ws.packages if answers(p))
        ids: dict[str, str] = {}
        taken: set[str] = set()
        for pkg in ws.packages:
            shared = answers(pkg) and counts[pkg.name] > 1
            usable = bool(pkg.name) and pkg.name not in taken and not shared and self.name_selects_itself(pkg, ws)
            nid = pkg.name if usable else dir_selector(pkg.dir)
            taken.add(nid)
            ids[pkg.dir] = nid
        return ids

    def name_selects_itself(self, pkg: JsPackage, ws: JsWorkspace) -> bool:
        """Whether this tool's filter reads ``pkg``'s name as that one package, so it can be a
        node id (and so appear in a test command). A name the filter reads as something else
        -- pnpm's ``a*`` is a glob, ``!x`` an exclusion; npm's ``lib`` also the directory
        ``lib/`` -- is named by its directory instead, as a shared name is."""
        return True

    def make_node(self, pkg: JsPackage, node_id: str) -> Node:
        return Node(
            id=node_id,
            kind="root" if pkg.is_root else "package",
            package=pkg.dir,
            is_test=self.has_test(pkg),
            meta={"name": pkg.name, "version": pkg.version, "scripts": dict(pkg.scripts)},
        )

    def has_test(self, pkg: JsPackage) -> bool:
        """pnpm, npm and yarn run ``<tool> test`` only where a ``test`` script exists."""
        return "test" in pkg.scripts

    target_noun: ClassVar[str] = "script"
    named_targets: ClassVar[bool] = True  # pnpm/npm/yarn run NAME, turbo run NAME

    def test_nodes(self, graph: BuildGraph, ids: Iterable[str], targets: Sequence[str] = DEFAULT_TARGETS) -> list[str]:
        """The packages among ``ids`` having one of the ``targets`` scripts (``test``: ``is_test``,
        which turbo also asks a task definition for); read from the node's ``scripts``, so a cached
        graph answers for any script name (``--target``)."""
        return sorted(i for i in ids if any(self.has_target(graph.node(i), t) for t in targets))

    def has_target(self, node: Node, target: str) -> bool:
        """Whether the tool runs script ``target`` of package ``node``: pnpm skips a selected
        package without it (``pnpm --filter a --filter b lint``, b without ``lint``, runs a's
        alone, exit 0), npm fails on one ("Missing script", exit 1, unless ``--if-present``;
        pnpm 12.4.2, npm 11.19.1, measured), so only packages having it are selected."""
        return node.is_test if target == "test" else target in node.meta.get("scripts", {})

    def link_target(
        self,
        pkg: JsPackage,
        dep_name: str,
        spec: str,
        names: dict[str, list[JsPackage]],
        dirs: dict[str, JsPackage],
    ) -> JsPackage | None:
        """The workspace package that ``dep_name: spec`` in ``pkg`` links to, or None (external)."""
        raise NotImplementedError

    def manifest_patterns(self) -> tuple[str, ...]:
        """Every file ``load_static`` reads: manifests, workspace and tool settings."""
        return ("package.json", "pnpm-workspace.yaml", "turbo.json", "turbo.jsonc", ".npmrc")

    # ------------------------------------------------------------ inputs
    def resolve(self, graph: BuildGraph, spec: str) -> list[str]:
        """A node id, a package name shared by several packages (all of them, as pnpm's
        ``--filter name`` selects them all), or a path inside a package."""
        named = sorted(n.id for n in graph.nodes() if n.meta.get("name") == spec)
        if named:
            return named
        return super().resolve(graph, spec)

    # ------------------------------------------------------------ tools
    def run_tool(self, argv: list[str], env: dict[str, str], timeout: float = TOOL_TIMEOUT) -> str:
        """Run the real tool in the repo root with ``env`` added; its stdout, or ToolError."""
        proc = self.run_tool_process(argv, env, timeout)
        if proc.returncode != 0:
            raise self.tool_failure(argv, proc)
        return proc.stdout

    def run_tool_process(self, argv: list[str], env: dict[str, str], timeout: float = TOOL_TIMEOUT) -> subprocess.CompletedProcess[str]:
        """The finished tool process, for a caller that reads a failure's whole output."""
        return run_tool(argv, self.root, timeout, env=env, hint="use --source static to read the manifests without the tool")

    @staticmethod
    def tool_failure(argv: list[str], proc: subprocess.CompletedProcess[str]) -> ToolError:
        """The error for a tool that exited non-zero: its diagnostic, else its last lines of output."""
        # a Rust panic (pnpm 12 on ``workspace:~*``) ends in backtrace frames; its cause is above them
        lines = [ln for ln in (proc.stderr or proc.stdout).strip().splitlines()
                 if not re.match(r"\s*(?:\d+: |at |help: set the `RUST_BACKTRACE|backtrace\.$)", ln)]
        tail = diagnostic_messages(lines) or lines[-3:]
        return ToolError(
            f"{Path(argv[0]).name} {' '.join(argv[1:2])} failed (exit {proc.returncode}): " + " | ".join(tail),
            hint="use --source static to read the manifests without the tool",
        )

    def tool_output(self, argv: list[str], env: dict[str, str]) -> str:
        """The tool's answer, or the saved answer in ``--query-file``."""
        if self.options.query_file:
            try:
                with open(self.options.query_file, encoding="utf-8") as fh:
                    return fh.read()
            except OSError as exc:
                raise ToolError(f"cannot read --query-file: {exc}") from None
        tool = self.find_tool()
        assert tool is not None  # load() checked
        return self.run_tool([tool, *argv], env)

    @staticmethod
    def parse_tool_json(text: str, what: str) -> Any:
        import json

        start = min((i for i in (text.find("["), text.find("{")) if i >= 0), default=-1)
        try:
            return json.loads(text[start:] if start >= 0 else text)
        except (ValueError, RecursionError):
            raise ToolError(f"{what} did not print JSON: {text[:200]!r}") from None


#: a miette diagnostic's head (``× what failed``) and its causes (``├─▶``/``╰─▶ why``), or in
#: miette's ASCII style (turbo without a terminal) ``x what failed`` and ``|->``/`` `-> why``
_DIAGNOSTIC_HEAD = re.compile(r"^(?:Error:)?\s*(?:×|[├╰]─▶|x(?= )|\|->|`->)\s*(.*)$")
#: where a miette diagnostic's text ends: the source excerpt (``--> file:4:20``, ASCII ``,-[file:4:20]``,
#: ``  |``, ``4 | code``)
_DIAGNOSTIC_EXCERPT = re.compile(r"^\s*(?:-->|,-\[|\d*\s*\|)")
#: a wrapped line of an ASCII-style report's message (``  | rest of the text``; an excerpt's
#: lines have a line number or nothing after the bar)
_ASCII_CONTINUATION = re.compile(r"^\s*\| (.*\S.*)$")


def diagnostic_messages(lines: list[str]) -> list[str]:
    """The message of a miette-style report (pnpm 12 is a Rust binary): the failure and its
    causes, each with its wrapped continuation lines, without the source excerpt box. The
    last three output lines of such a report are the box, not the cause (a pnpm-workspace.yaml
    pnpm 12 cannot read printed ``10 | | 11 | shamefullyHoist: true |`` before)."""
    parts: list[str] = []
    for line in lines:
        head = _DIAGNOSTIC_HEAD.match(line)
        wrapped = _ASCII_CONTINUATION.match(line)
        if head:
            parts.append(head.group(1).strip())
        elif parts and (wrapped or line.strip() and not _DIAGNOSTIC_EXCERPT.match(line)):
            joiner = "" if parts[-1].endswith(("-", "/")) else " "  # miette wraps long paths at a hyphen or slash
            parts[-1] = parts[-1] + joiner + (wrapped.group(1) if wrapped else line).strip()
        elif parts and _DIAGNOSTIC_EXCERPT.match(line):
            break
    return [p for p in parts if p]

