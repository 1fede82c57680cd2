"""Which directories of a JavaScript monorepo are packages, read the way the package managers read them.

pnpm, npm, yarn, Turborepo and Nx all start from the same question: which directories
hold a workspace package? The answer comes from ``pnpm-workspace.yaml`` (pnpm) or the
root ``package.json`` ``workspaces`` field (npm, yarn), as globs over directories that
contain a ``package.json``. This module answers it once for every JS adapter.

Glob semantics follow the glob libraries the managers use (fast-glob / tinyglobby with
``dot: false``): ``*`` and ``**`` never enter dot-directories unless the pattern spells
the dot, ``node_modules`` is never searched, ``{a,b}`` braces expand, and a ``!pattern``
removes matching directories as the tool's ``NEGATION_RULES`` entry says (pnpm: whatever
its position in the list; npm and turbo each have an exception). The root package is
always a member (pnpm lists it as a project; npm and yarn call it the workspace root).

Every file and directory is read through the ``InputTracker`` so the graph cache notices
a new package, a renamed directory or an edited manifest.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache, partial
from pathlib import Path
from typing import Any, ClassVar, Iterator

from ctxsel.cache import InputTracker
from ctxsel.errors import Location, ParseError
from ctxsel.globs import expand_braces as _expand_braces  # a/{b,c} -> a/b, a/c (nested too)
from ctxsel.globs import closing_brace, glob_regex, split_alternatives
from ctxsel.paths import read_text

from . import MANIFEST, PNPM_WORKSPACE  # noqa: F401  (importers of this module use them too)

#: directories no package manager searches for workspace packages
SKIP_DIRS = frozenset({"node_modules", "bower_components"})
#: npm ignores ``**/node_modules/**`` alone (``@npmcli/map-workspaces``): ``p/*/*`` lists
#: ``p/bower_components/k`` (npm 11.19.1, measured)
NPM_SKIP_DIRS = frozenset({"node_modules"})
#: the manifest names pnpm reads, in its order: pnpm 12 takes a directory holding only a
#: ``package.yaml`` as a project (measured; ``package.json5`` it does not); npm, yarn and
#: turbo read ``package.json`` alone
PNPM_MANIFESTS = (MANIFEST, "package.yaml")


@dataclass
class JsPackage:
    """One workspace package (or the root package) and its parsed manifest."""

    name: str  # package.json "name" ("" if absent)
    dir: str  # repo-relative POSIX dir, "" for the root
    manifest: dict[str, Any]
    version: str | None
    scripts: dict[str, str]
    is_root: bool


@dataclass
class JsWorkspace:
    """The packages of one workspace and how they were declared."""

    root: Path
    manager: str  # "pnpm" | "yarn" | "npm"
    globs: list[str]  # workspace globs as declared (with ! negations)
    packages: list[JsPackage]  # root package first, then sorted by dir
    #: the parsed pnpm-workspace.yaml ({} for npm/yarn): settings such as linkWorkspacePackages
    settings: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    #: whether a workspace glob selects the root directory itself (``**``, ``.``): turbo 2 then
    #: lists the root package a second time, as an ordinary package (``TurboAdapter.build_graph``)
    root_in_globs: bool = False

    @property
    def root_package(self) -> JsPackage | None:
        """None only for a pnpm workspace without a root package.json (pnpm lists no root project then)."""
        return self.packages[0] if self.packages and self.packages[0].is_root else None

    def by_name(self) -> dict[str, list[JsPackage]]:
        """Packages per name, in directory order; more than one entry means a duplicate name."""
        out: dict[str, list[JsPackage]] = {}
        for pkg in self.packages:
            if pkg.name:
                out.setdefault(pkg.name, []).append(pkg)
        return out

    def by_dir(self) -> dict[str, JsPackage]:
        return {pkg.dir: pkg for pkg in self.packages}


# ---------------------------------------------------------------------- manifests
def require_unique_names(ws: JsWorkspace, what: str) -> None:
    """Stop when two packages (the root aside) share a name: npm, yarn and turbo refuse such a
    workspace instead of picking one, so ctxsel does not guess which one a dependency means.
    ``what`` names the tool's rule in the message ("turbo needs unique package names")."""
    for name, same in sorted(ws.by_name().items()):
        packages = [p for p in same if not p.is_root]
        if len(packages) > 1:
            where = " and ".join(f"{p.dir}/package.json" for p in packages)
            raise ParseError(f"{what}, and {name!r} is used by {where}", Location(f"{packages[1].dir}/package.json"))


def _display(path: Path, tracker: InputTracker) -> str:
    """A path as a user recognises it: repo-relative when inside the repo."""
    try:
        return Path(path).resolve().relative_to(Path(tracker.root).resolve()).as_posix()
    except ValueError:
        return str(path)


class _NotJson(ValueError):
    """A token Python's json module accepts and JSON does not (``NaN``, ``Infinity``)."""


def _reject_constant(token: str) -> Any:
    raise _NotJson(token)


def _json_object(text: str, path: Path, tracker: InputTracker, objects_only: bool = True) -> dict[str, Any]:
    """A JSON object, read as strictly as the tools read it: pnpm 12, turbo and node's
    ``JSON.parse`` refuse ``NaN``/``Infinity`` (Python's json takes them), and a file nested
    too deeply for Python is a user error rather than a RecursionError traceback
    (pnpm 12: "recursion limit exceeded", measured). Valid JSON that is no object (an array,
    a string, ``null``) is an error, or ``{}`` without ``objects_only``."""
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise ParseError(f"invalid JSON: {exc.msg}", Location(_display(path, tracker), exc.lineno)) from None
    except _NotJson as exc:
        found = re.search(rf"(?<![\w\"]){re.escape(str(exc))}(?![\w\"])", text)
        line = text.count("\n", 0, found.start()) + 1 if found else None
        raise ParseError(f"invalid JSON: {exc} is not a JSON value", Location(_display(path, tracker), line)) from None
    except RecursionError:
        raise ParseError("invalid JSON: nested too deeply", Location(_display(path, tracker))) from None
    if not isinstance(data, dict):
        if not objects_only:
            return {}
        raise ParseError("expected a JSON object", Location(_display(path, tracker), 1))
    return data


def read_json(path: Path, tracker: InputTracker, objects_only: bool = True) -> dict[str, Any]:
    """A JSON object from ``path``; a syntax error names the file and line (exit 2)."""
    return _json_object(tracker.read_text(path).lstrip("\ufeff"), path, tracker, objects_only)


_JSONC_TOKEN = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/|,(?=\s*[}\]])', re.S)


def strip_jsonc(text: str) -> str:
    """JSON with comments and trailing commas (turbo.json, tsconfig.json) as plain JSON.

    Comments become spaces of the same shape so JSON error line numbers stay right.
    """

    def blank(m: re.Match[str]) -> str:
        tok = m.group(0)
        if tok.startswith('"'):
            return tok
        return re.sub(r"[^\n]", " ", tok)

    return _JSONC_TOKEN.sub(blank, text)


#: a JSON string or bracket: all a nesting depth needs (a brace inside a string is text)
_JSON_STRUCTURE = re.compile(r'"(?:\\.|[^"\\])*"|[{}\[\]]')


def json_structure(text: str) -> Iterator[tuple[re.Match[str], int]]:
    """Each string and bracket of a JSON text, with the depth of objects/arrays open after it
    (``{`` at the top gives 1, a top-level key 1, its closing ``}`` 0)."""
    depth = 0
    for m in _JSON_STRUCTURE.finditer(text):
        tok = m.group(0)
        if tok in ("{", "["):
            depth += 1
        elif tok in ("}", "]"):
            depth -= 1
        yield m, depth


def key_line(text: str, key: str) -> int | None:
    """The line of the top-level ``"key":`` in a JSON(C) text (None when absent).

    Depth-aware, so a task or option of the same name deeper down is not it; comments are
    blanked first (``strip_jsonc``), so a quote or brace inside one does not count.
    """
    text = strip_jsonc(text)
    for m, depth in json_structure(text):
        tok = m.group(0)
        if tok.startswith('"') and depth == 1 and re.match(r"\s*:", text[m.end():]):
            try:
                if json.loads(tok) == key:
                    return text.count("\n", 0, m.start()) + 1
            except ValueError:
                continue
    return None


def read_jsonc(path: Path, tracker: InputTracker) -> dict[str, Any]:
    """Like ``read_json`` for files the tools read as JSONC (comments, trailing commas)."""
    return _json_object(strip_jsonc(tracker.read_text(path).lstrip("\ufeff")), path, tracker)


def _strict_loader() -> type:
    """A SafeLoader that reads YAML the way pnpm 12 does (pnpm-workspace.yaml, package.yaml):
    it rejects a key repeated in one mapping (``duplicate mapping key: packages``, measured;
    PyYAML would keep the last one), and a plain ``y``/``Y``/``n``/``N`` is a boolean, as
    in YAML 1.1 (measured: ``name: y`` in a package.yaml is no name for pnpm -- another
    package's ``workspace:*`` on ``y`` does not link it -- while ``name: "y"`` is; PyYAML
    leaves those four letters strings)."""
    import yaml

    class StrictLoader(yaml.SafeLoader):
        bool_values: ClassVar[dict[str, bool]] = {**yaml.SafeLoader.bool_values, "y": True, "n": False}

        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            seen: set[tuple[str, str]] = set()
            for key_node, _ in node.value:
                if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == "tag:yaml.org,2002:merge":
                    continue  # ``<<: *anchor`` may legitimately be overridden by the keys beside it
                key = (key_node.tag, key_node.value)
                if key in seen:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"duplicate mapping key: {key_node.value}", key_node.start_mark
                    )
                seen.add(key)
            return super().construct_mapping(node, deep)

    StrictLoader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^[yYnN]$"), list("yYnN"))
    return StrictLoader


@lru_cache(maxsize=2)
def yaml12_loader(numbers: bool) -> type:
    """A ``_strict_loader`` that reads plain scalars by YAML 1.2's core schema, for the tools
    that read pnpm-workspace.yaml that way instead of pnpm 12's YAML 1.1: Nx (js-yaml) and
    turbo 2 (serde_yaml). Only ``true``/``false`` in three spellings are booleans, so
    ``packages: [y, n, yes]`` are directories (measured with Nx 24.0.6 and turbo 2.11.11).
    ``numbers``: ints, floats and timestamps are typed, as js-yaml does; without, a number
    stays the text it is written as (turbo: ``packages: [0x10]`` is the directory ``0x10``).
    Duplicate keys stay refused (``_strict_loader``), as both tools refuse them."""

    class Yaml12Loader(_strict_loader()):  # type: ignore[misc,valid-type]
        yaml_implicit_resolvers: dict[str, list[tuple[str, re.Pattern[str]]]] = {}

    add = Yaml12Loader.add_implicit_resolver
    add("tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))
    add("tag:yaml.org,2002:null", re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""])
    add("tag:yaml.org,2002:merge", re.compile(r"^<<$"), ["<"])
    if numbers:
        add("tag:yaml.org,2002:float",
            re.compile(r"^(?:[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*(?:[eE][-+]?[0-9]+)?|[-+]?[0-9][0-9_]*[eE][-+]?[0-9]+"
                       r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"), list("-+0123456789."))
        add("tag:yaml.org,2002:int", re.compile(r"^[-+]?(?:0b[01_]+|0o[0-7_]+|0x[0-9a-fA-F_]+|[0-9][0-9_]*)$"),
            list("-+0123456789"))
        add("tag:yaml.org,2002:timestamp",
            re.compile(r"^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?"
                       r"(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?"
                       r"(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$"), list("0123456789"))
    return Yaml12Loader


@dataclass(frozen=True)
class YamlBudget:
    """The limits a YAML reader enforces while parsing, before it builds anything: pnpm 12's
    (serde-saphyr's ``Budget``) refuse pnpm-workspace.yaml with "budget breached" (measured,
    pnpm 12.4.2: ``Depth { depth: 65 }`` for 64 nested collections under the root mapping,
    ``Nodes { nodes: 250001 }`` counting every key, value and collection with each alias
    replaying its anchor's nodes, so a billion-laughs file stops at once; and at the end of the
    document ``AliasAnchorRatio`` when there are at least 100 aliases and more than 10 per
    anchor). Checking them here keeps an alias bomb from costing anything and refuses what
    pnpm refuses, with the file and line."""

    max_depth: int = 64
    max_nodes: int = 250_000
    ratio_min_aliases: int = 100
    max_aliases_per_anchor: int = 10

    def check(self, text: str, loader: type, where: Location) -> None:
        """Raise ParseError at the first limit ``text`` breaches. Walks the parser's events
        (iterative, so a deep file costs no recursion); an alias adds its anchor's node count
        and depth, remembered when the anchored node ended."""
        import yaml

        depth = nodes = aliases = anchors = 0
        sized: dict[str, tuple[int, int]] = {}  # anchor -> (nodes, levels) of its node
        open_: list[list[Any]] = []  # [nodes before, depth, anchor, deepest level inside] per open collection
        for event in yaml.parse(text, Loader=loader):
            line = event.start_mark.line + 1 if event.start_mark is not None else None
            reached = depth
            if isinstance(event, yaml.AliasEvent):
                aliases += 1
                count, levels = sized.get(event.anchor, (1, 0))
                nodes += count
                reached = depth + levels
            elif isinstance(event, (yaml.ScalarEvent, yaml.CollectionStartEvent)):
                nodes += 1
                anchors += event.anchor is not None
                if isinstance(event, yaml.CollectionStartEvent):
                    depth = reached = depth + 1
                    open_.append([nodes - 1, depth, event.anchor, depth])
                elif event.anchor is not None:
                    sized[event.anchor] = (1, 0)
            elif isinstance(event, yaml.CollectionEndEvent) and open_:
                before, level, anchor, inner = open_.pop()
                if anchor is not None:
                    sized[anchor] = (nodes - before, inner - level + 1)
                if open_:
                    open_[-1][3] = max(open_[-1][3], inner)
                depth -= 1
            if open_:
                open_[-1][3] = max(open_[-1][3], reached)
            if reached > self.max_depth:
                raise self._breach(f"nested {reached} collections deep (at most {self.max_depth})", where, line)
            if nodes > self.max_nodes:
                raise self._breach(f"more than {self.max_nodes} nodes once aliases are expanded", where, line)
            if isinstance(event, yaml.DocumentEndEvent):
                if aliases >= self.ratio_min_aliases and aliases > self.max_aliases_per_anchor * anchors:
                    raise self._breach(f"{aliases} aliases for {anchors} anchor(s) (at most "
                                       f"{self.max_aliases_per_anchor} per anchor)", where, line)
                depth = nodes = aliases = anchors = 0
                sized.clear()

    @staticmethod
    def _breach(what: str, where: Location, line: int | None) -> ParseError:
        return ParseError(f"pnpm refuses to read it (\"budget breached\"): {what}", Location(where.path, line))


#: pnpm 12.4.2's limits on pnpm-workspace.yaml (``YamlBudget``)
PNPM_YAML_BUDGET = YamlBudget()


def _read_yaml(
    path: Path, tracker: InputTracker, expected: str = "a YAML mapping (packages: [...])", loader: type | None = None,
    budget: YamlBudget | None = None,
) -> dict[str, Any]:
    """A YAML mapping, read as pnpm 12 reads it (``_strict_loader``) unless a tool that reads
    the file its own way gives its ``loader`` (a SafeLoader subclass: turbo's YAML 1.2);
    ``budget``: the reader's limits (``PNPM_YAML_BUDGET``)."""
    data = read_yaml_document(path, tracker, loader or _strict_loader(), budget)[1]
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ParseError(f"expected {expected}", Location(_display(path, tracker), 1))
    return data


def read_yaml_document(path: Path, tracker: InputTracker, loader: type, budget: YamlBudget | None = None) -> tuple[Any, Any]:
    """(node tree, data) of the one YAML document in ``path``, parsed once with ``loader`` (a
    SafeLoader subclass); (None, None) for an empty file. The node tree keeps what the data
    loses -- a scalar's text as written and its resolved tag -- for a tool that deserialises
    the file by a typed schema (turbo 2: ``turbo.turbo_pnpm_workspace``). Invalid YAML (and a
    duplicate key, under ``_strict_loader``) is a ParseError naming the file and line, and so
    is a document breaching ``budget`` or nested deeper than PyYAML's recursive composer goes."""
    import yaml  # only when the graph is rebuilt: yaml costs ~30 ms to import

    text = tracker.read_text(path)
    parser = None
    try:
        if budget is not None:
            budget.check(text, loader, Location(_display(path, tracker)))
        parser = loader(text)  # the reader refuses some characters already (``\x00``)
        node = parser.get_single_node()
        data = parser.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(exc, "problem", None) or "not valid YAML"
        raise ParseError(f"not valid YAML: {problem}", Location(_display(path, tracker), line)) from None
    except RecursionError:
        raise ParseError("nested too deeply for ctxsel to read", Location(_display(path, tracker))) from None
    finally:
        if parser is not None:
            parser.dispose()
    return node, data


def read_package(
    root: Path, rel: str, tracker: InputTracker, is_root: bool = False, manifests: tuple[str, ...] = (MANIFEST,),
    objects_only: bool = False,
) -> JsPackage:
    """The package in ``rel``, read from the first of ``manifests`` it has (package.json if none).

    A package.json holding valid JSON that is no object (``[1]``, ``"x"``, ``null``) is a
    package with an empty manifest for pnpm 12.4.2, npm 11.19.1 and yarn 4.18.1 (measured:
    pnpm lists it without a name, npm names it after its folder, yarn lists ``name: null``);
    turbo 2.11.11 refuses it (``package_json_parse_error``): ``objects_only``."""
    base = root / rel if rel else root
    found = next((m for m in manifests if tracker.exists(base / m)), MANIFEST)
    if found.endswith(".yaml"):
        manifest = _read_yaml(base / found, tracker, "a YAML mapping (name: ...)")
    else:
        manifest = read_json(base / MANIFEST, tracker, objects_only)
    name = manifest.get("name")
    version = manifest.get("version")
    scripts = manifest.get("scripts")
    return JsPackage(
        name=name if isinstance(name, str) else "",
        dir=rel,
        manifest=manifest,
        version=version if isinstance(version, str) else None,
        scripts={k: v for k, v in scripts.items() if isinstance(v, str)} if isinstance(scripts, dict) else {},
        is_root=is_root,
    )


# ---------------------------------------------------------------------- globs
def _segments(pattern: str) -> list[str]:
    """Path segments of a workspace glob; ``./x/`` and ``.`` normalised.

    A trailing ``package.json`` stays a directory name: every tool appends its own
    ``/package.json`` to the pattern, so ``p/*/package.json`` selects nothing in pnpm 12,
    turbo 2 (measured) and npm (``@npmcli/map-workspaces``). Blanks are not trimmed
    either: `` p/*`` names a directory `` p`` for pnpm and turbo (measured).
    """
    pattern = pattern.replace("\\", "/")
    parts = [p for p in pattern.split("/") if p not in ("", ".")]
    return parts


def _segment_regex(seg: str, dot: bool = False, segments: str = "picomatch") -> str:
    """One path segment of a workspace glob as a regex (``*`` stays within the segment).

    Without ``dot`` a wildcard never matches a leading ``.`` (fast-glob's ``dot: false``).
    Braces are expanded before (``_expand_braces``) and ``**`` is the walker's, so only
    ``*``, ``?`` and picomatch's ``[...]`` (``classes="regex"``) are left to translate;
    other ``segments`` readings (``GlobReading``) go to ``_minimatch_segment_regex``.
    """
    if segments != "picomatch":
        posix, dotted = segments != "minimatch3", segments == "micromatch"
        return _unmask(_minimatch_segment_regex(seg, posix=posix, negation_dots=dotted), regex=True)
    return _unmask(glob_regex(seg, dot=dot, classes="regex", globstar=False), regex=True)


@lru_cache(maxsize=512)
def _minimatch_segment_regex(seg: str, posix: bool, negation_dots: bool = False) -> str:
    """One segment as minimatch (npm) or micromatch (yarn 2+) reads it with ``dot: false``:
    extglobs (``+(a|b)``, ``!(a)``) and, with ``posix``, POSIX classes (``[[:alpha:]]``)
    (npm 11.19.1 and yarn 4.18.1, measured: ``p/@(a|b)`` lists ``p/a`` and ``p/b``, ``p/+(a)``
    is not the directory ``+(a)``; yarn 1.22.22's minimatch 3 has extglobs but lists nothing
    for ``p/[[:alpha:]]``). Nx reads its globs with minimatch, so its reading is reused
    (with ``dot: true`` there). ``negation_dots``: a segment opening with ``!(...)`` matches
    dot-names as well, as yarn 2+'s picomatch reads it (yarn 4.18.1, measured: ``p/!(a)`` lists
    ``p/.h``; npm's minimatch does not)."""
    from .nx_workspace import _PROJECT_PATTERN, _extglob_regex  # nx_workspace imports this module
    dialect = replace(_PROJECT_PATTERN, dot=False, globstar="none")
    glob = partial(glob_regex, dialect=dialect) if posix else partial(glob_regex, dot=False, classes="regex", globstar=False)
    body = _extglob_regex(seg, glob)
    if seg.startswith(".") or negation_dots and seg.startswith("!("):
        return body
    return r"(?!\.)" + body  # an extglob first (``!(a)``) skips ``.h`` too (minimatch)


def _has_magic(seg: str, segments: str = "picomatch") -> bool:
    return any(c in seg for c in "*?[") or (segments != "picomatch" and _EXTGLOB_START.search(seg) is not None)


#: an extglob group's opening (minimatch: ``?(``, ``*(``, ``+(``, ``@(``, ``!(``)
_EXTGLOB_START = re.compile(r"[?*+@!]\(")


def _path_regex(parts: list[str], dot: bool = False, segments: str = "picomatch") -> re.Pattern[str]:
    """A whole-path matcher for ``!negations``: ``**`` spans zero or more directories."""
    body = ""
    for seg in parts:
        body += "(?:[^/]+/)*" if seg == "**" else _segment_regex(seg, dot, segments) + "/"
    return re.compile(body)


def _is_real_dir(entry: os.DirEntry[str], follow: bool = False) -> bool:
    """A directory that is not a symlink (with ``follow``: a directory or a link to one).

    pnpm's wildcards never enter a symlinked directory (measured: pnpm 12.4.2 with
    ``packages/*`` and ``packages/**``; a literal path is followed); turbo 2's do, and
    name the package by the link's path (measured). ``_walk`` keeps a symlink loop from
    multiplying the walk.
    """
    try:
        return entry.is_dir(follow_symlinks=follow)
    except OSError:
        return False


@dataclass(frozen=True)
class GlobReading:
    """How one tool's glob library reads and walks a workspace glob, beyond its negation rule
    (``READINGS``; the defaults are fast-glob's, as pnpm and turbo read globs)."""

    #: "picomatch" (``_segment_regex``), "minimatch" (extglobs and POSIX classes), "micromatch"
    #: (the same, but ``!(a)`` matches dot-names: yarn 2+) or "minimatch3" (extglobs only;
    #: ``_minimatch_segment_regex``)
    segments: str = "picomatch"
    #: braces as ``brace-expansion`` reads them (``_node_braces``) rather than ``_expand_braces``
    node_braces: bool = False
    #: an absolute glob (``/p/a``) selects nothing (yarn 1 and 2+, measured)
    absolute_nothing: bool = False
    #: directory names a wildcard never enters nor lists
    skip: frozenset[str] = SKIP_DIRS
    #: a wildcard-free pattern may name a ``skip`` directory (fast-glob checks such a path
    #: without its ignores: yarn 4 lists ``p/node_modules/m``, not ``p/*/node_modules/*``)
    static_patterns_exempt: bool = False
    #: node-glob's symlink rules and real paths (npm: ``_walk``, ``_npm_real_dirs``)
    npm_links: bool = False
    #: yarn 1 ignores ``<pattern>/node_modules/**`` alone (``_yarn1_ignored``)
    yarn1_ignore: bool = False
    #: what ``\`` is: "separator" (npm turns it into ``/``), "escape" (yarn 1, pnpm and turbo:
    #: ``\x`` is a literal ``x``, ``p/\{y\}`` the directory ``{y}``; pnpm and turbo refuse the
    #: escapes ``pnpm.PNPM_ESCAPES`` and ``turbo.TURBO_ESCAPES`` leave out)
    #: or "berry" (an escape, but one before a glob character selects nothing; ``_mask_escapes``)
    backslash: str = "separator"


#: ``GlobReading`` per ``NEGATION_RULES`` entry (and "berry", which ``expand_berry_globs`` uses).
#: npm ignores ``**/node_modules/**`` only; yarn 2+ ``**/node_modules`` for wildcards, a literal
#: ``p/node_modules/m`` is a workspace there; yarn 1 searches everywhere, ``bower_components``
#: included (npm 11.19.1, yarn 1.22.22 and 4.18.1, measured).
READINGS: dict[str, GlobReading] = {
    "npm": GlobReading(segments="minimatch", node_braces=True, skip=NPM_SKIP_DIRS, npm_links=True),
    "yarn1": GlobReading(segments="minimatch3", node_braces=True, absolute_nothing=True, skip=frozenset(),
                         yarn1_ignore=True, backslash="escape"),
    "berry": GlobReading(segments="micromatch", node_braces=True, absolute_nothing=True, skip=NPM_SKIP_DIRS,
                         static_patterns_exempt=True, backslash="berry"),
    # turbo 2.11.11 reads ``p/\*`` as the directory ``*``, as pnpm 12.4.2 does (``_alternatives``; measured)
    "turbo": GlobReading(backslash="escape"),
}


def _walk(
    root: Path, parts: list[str], tracker: InputTracker, dot: bool = False, follow: bool = False,
    reading: GlobReading = GlobReading(),
) -> set[str]:
    """Directories (repo-relative) matching the glob segments, found by listing only what the glob can reach.

    ``..`` steps to the parent of each directory reached so far (``a/*/../b`` is ``a/b``
    when ``a`` has a subdirectory), as pnpm 12 and turbo 2 do (measured); a step above
    the repository root ends the walk, since ctxsel never lists directories outside it
    (the tools would, and ``../<root name>/x`` would come back in). With ``dot``,
    wildcards match dot-directories too; with ``follow`` they enter symlinked directories
    (both turbo), a directory reached twice by ``**`` through links being walked once.
    ``reading`` says which directory names are skipped and how a segment reads; with its
    ``npm_links`` (node-glob, ``_npm_real_dirs``), ``*``-like segments enter symlinked
    directories; ``**`` never walks into one, but a link may be the last directory a ``**``
    that is not the pattern's first segment stands for (``p/**/e`` finds ``p/link/e``,
    ``p/**`` the link itself; ``**/e`` neither). A trailing ``**`` under ``yarn1_ignore``
    skips ``node_modules``: yarn 1 would ignore everything found there.
    """
    skip, segments = reading.skip, reading.segments
    found: set[str] = set()
    seen: set[tuple[str, int]] = set()
    walked: set[tuple[str, int]] = set()  # (real path, segment) ``**`` has listed (``follow``): a link loop ends here
    stack: list[tuple[str, int]] = [("", 0)]
    while stack:
        rel, i = stack.pop()
        if (rel, i) in seen:
            continue
        seen.add((rel, i))
        if i == len(parts):
            found.add(rel)
            continue
        seg = parts[i]
        base = root / rel if rel else root
        if seg == "**":
            stack.append((rel, i + 1))  # ** matches zero directories
            if follow:
                real = (os.path.realpath(base), i)
                if real in walked:
                    continue
                walked.add(real)
            for entry in tracker.scandir(base):
                hidden = entry.name.startswith(".") and not dot
                if entry.name in skip or hidden or (reading.yarn1_ignore and i == len(parts) - 1
                                                    and entry.name == "node_modules"):
                    continue
                child = f"{rel}/{entry.name}" if rel else entry.name
                if _is_real_dir(entry, follow):
                    stack.append((child, i))
                elif reading.npm_links and i > 0 and _is_real_dir(entry, True):
                    stack.append((child, i + 1))  # the link consumes the globstar (node-glob)
        elif seg == "..":
            if rel:  # "" has no parent inside the repository
                stack.append((rel.rpartition("/")[0], i + 1))
        elif not _has_magic(seg, segments):
            if seg not in skip or (reading.static_patterns_exempt and not any(_has_magic(x, segments) for x in parts)):
                seg = _unmask(seg)
                child = f"{rel}/{seg}" if rel else seg
                tracker.note(root / child)  # so creating it later invalidates the cache
                if os.path.isdir(root / child):
                    stack.append((child, i + 1))
        else:
            rx = re.compile(_segment_regex(seg, dot, segments))
            for entry in tracker.scandir(base):
                if entry.name in skip or not rx.fullmatch(entry.name):
                    continue
                if not _is_real_dir(entry, follow or reading.npm_links):
                    continue
                stack.append((f"{rel}/{entry.name}" if rel else entry.name, i + 1))
    return found


#: How ``!negations`` combine with positive workspace globs, per tool:
#: "ignore" -- a negation removes matching directories whatever its position (pnpm: fast-glob's ``ignore``);
#: "npm" -- a positive glob that a *previous* negation matches cancels that negation
#: (``@npmcli/map-workspaces``: ``["packages/**", "!packages/b/**", "packages/b/a"]`` keeps all of packages/b);
#: "turbo" -- turbo 2's own globbing (measured): a literal path (no wildcard) is a package whatever
#: the negations say, even inside ``node_modules``; a negation excludes every path it matches
#: *and everything below it*, files included (``!a/*`` matches ``a/package.json``, so it drops
#: ``a`` as well as ``a/b`` and ``a/b/c``); and wildcards match dot-directories.
#: "pnpm" -- "ignore", plus two things pnpm 12's globbing does (measured): an absolute pattern
#: (``/a``) selects nothing, and a brace alternative cannot start a segment with a dot
#: (``a/{b,.d}`` is ``a/b`` only; ``a/.d`` and ``a/.{d,e}`` spell the dot and match).
#: "yarn1" -- "ignore" (yarn 1 drops its negations before globbing, ``yarn.py``) with yarn 1's
#: ``GlobReading``; "berry" -- the same for one positive glob of ``expand_berry_globs``.
NEGATION_RULES = ("ignore", "npm", "turbo", "pnpm", "yarn1", "berry")


def expand_globs(
    root: Path, patterns: list[str], tracker: InputTracker, warnings: list[str] | None = None, source: str = "",
    negation_rule: str = "ignore", manifests: tuple[str, ...] = (MANIFEST,), follow_links: bool = False,
) -> list[str]:
    """Repo-relative directories holding a ``package.json`` that the workspace globs select.

    ``!pattern`` entries remove directories as ``negation_rule`` says (``NEGATION_RULES``).
    Globs that together select no package add a warning to ``warnings`` (``_warn_if_no_package``).
    Wildcards enter symlinked directories with ``follow_links`` (yarn 1 and berry: ``p/*`` and
    ``p/**`` list a link ``p/l -> ../q/c`` as the workspace ``p/l``; 1.22.22, 3.8.7, 4.18.1,
    measured) and under the "turbo" rule, never for pnpm (``_is_real_dir``).
    """
    negations: list[str] = []
    positives: list[str] = []
    for pattern in patterns:
        if not isinstance(pattern, str) or not pattern.strip():
            continue
        if negation_rule == "npm":
            pattern = _npm_bangs(pattern)
        if pattern.startswith("!"):
            negations.append(pattern[1:])
            continue
        if negation_rule == "npm":
            written = re.sub(r"^\.?/+", "", pattern).rstrip("/") + "/"
            negations = [n for n in negations
                         if not _negation_rx(re.sub(r"^\.?/+", "", n), segments="minimatch").fullmatch(written)]
        positives.append(pattern)
    turbo, reading = negation_rule == "turbo", READINGS.get(negation_rule, GlobReading())
    resolved = [_turbo_negation(alt) if turbo else alt for n in negations for alt in _expand_braces(n)]
    negation_rxs = [_negation_rx(alt, dot=turbo, segments=reading.segments) for alt in resolved if alt is not None]
    if negation_rule == "npm":
        positives = _npm_drop_negated_patterns(positives, negation_rxs)
    dirs: set[str] = set()
    literal: set[str] = set()
    unmatched: list[str] = []
    for pattern in positives:
        _warn_if_outside(warnings, source, pattern)
        is_literal = turbo and not any(_has_magic(seg) for seg in _segments(pattern)) and "{" not in pattern
        matched: set[str] = set()
        for alt in _alternatives(pattern, negation_rule):
            parts = _segments(alt)
            found = (_literal_dir(root, parts, tracker) if is_literal
                     else _walk(root, parts, tracker, dot=turbo, follow=turbo or follow_links, reading=reading))
            if reading.yarn1_ignore:
                own = _path_regex(parts, segments=reading.segments)
                found = {rel for rel in found if not _yarn1_ignored(rel, own)}
            for rel in found:
                if any(tracker.exists(root / rel / m if rel else root / m) for m in manifests):
                    matched.add(rel)
        if not matched:
            unmatched.append(pattern)
        if is_literal:
            literal |= matched
        dirs |= matched
    excluded = _turbo_excluded if turbo else _excluded
    kept = [d for d in dirs if d in literal or not excluded(d, negation_rxs)]
    _warn_if_no_package(warnings, source, unmatched, len(positives))
    return _npm_real_dirs(root, kept, warnings, source) if reading.npm_links else sorted(kept)


def _alternatives(pattern: str, negation_rule: str) -> list[str]:
    """The brace expansions of one positive glob that the tool walks (``NEGATION_RULES``, ``READINGS``)."""
    if negation_rule == "pnpm":
        return _pnpm_alternatives(_mask_escapes(pattern))
    reading = READINGS.get(negation_rule, GlobReading())
    if (reading.absolute_nothing and pattern.startswith("/")) or (negation_rule == "npm" and _npm_dot_segment(pattern)):
        return []
    if reading.backslash != "separator":
        if reading.backslash == "berry" and _BERRY_ESCAPED_SPECIAL.search(pattern):
            return []
        pattern = _mask_escapes(pattern)
    alternatives = _node_braces(pattern) if reading.node_braces else _expand_braces(pattern)
    return [_npm_globstars(alt) for alt in alternatives] if reading.npm_links else alternatives


def _npm_globstars(pattern: str) -> str:
    """minimatch's globstar clean-up: a ``.`` right after ``**`` goes, and ``**/**`` is one ``**``
    (``p/**/./**/x`` finds ``p/a/x`` alone for npm 11.19.1, where two globstars could each end
    on a symlink; measured)."""
    out: list[str] = []
    for seg in pattern.replace("\\", "/").split("/"):
        if out and out[-1] == "**" and seg in (".", "**"):
            continue
        out.append(seg)
    return "/".join(out)


#: yarn 4.18.1 lists nothing for a glob escaping a glob character (``p/\{y}``, ``p/\[x]``,
#: ``p/{a,b\}``; measured), while ``p/\a`` is ``p/a``
_BERRY_ESCAPED_SPECIAL = re.compile(r"\\[][{}()*?!+@,]")
#: escaped characters are moved to a private-use plane while braces and segments are read
_MASK_BASE = 0xF0000


def _mask_escapes(pattern: str) -> str:
    r"""``\x`` as one character no glob reading treats as special (``_unmask`` turns it back
    into ``x``), so braces, segments and wildcards leave it alone; a lone trailing ``\`` stays."""
    return re.sub(r"\\(.)", lambda m: chr(_MASK_BASE + ord(m.group(1))) if ord(m.group(1)) < 0x10000 else m.group(1),
                  pattern)


def _unmask(text: str, regex: bool = False) -> str:
    """``_mask_escapes`` undone: each masked character as itself (``regex``: escaped for a regex)."""
    if not any(ord(c) >= _MASK_BASE for c in text):
        return text
    return "".join((re.escape(chr(ord(c) - _MASK_BASE)) if regex else chr(ord(c) - _MASK_BASE))
                   if _MASK_BASE <= ord(c) < _MASK_BASE + 0x10000 else c for c in text)


def _yarn1_ignored(rel: str, pattern: re.Pattern[str]) -> bool:
    """yarn 1 globs ``<pattern>/package.json`` ignoring ``<pattern>/node_modules/**/package.json``
    (1.22.22's ``resolveWorkspaces``): a directory is dropped when the path before one of its
    ``node_modules`` segments matches the pattern itself -- ``p/**`` drops ``p/node_modules/m``,
    ``p/*/*`` keeps it (measured)."""
    names = rel.split("/")
    return any(name == "node_modules" and pattern.fullmatch("/".join(names[:i]) + "/" if i else "")
               for i, name in enumerate(names))


def _npm_dot_segment(pattern: str) -> bool:
    """npm lists nothing for a glob with a ``.`` segment, after its leading ``./``, that a
    name follows (``p/a/./x``, ``././p/a``; ``p/a/.`` is ``p/a``; npm 11.19.1, measured):
    node-glob finds ``p/a/x``, but ``@npmcli/map-workspaces`` keeps only matches that
    ``minimatch(match, pattern, {partial: true})`` accepts, and minimatch keeps the ``.``
    segments of a pattern, which no match has -- except one right after a ``**``, which it
    drops (``p/**/./x`` is ``p/**/x``, measured)."""
    written = re.sub(r"^\.?/+", "", pattern).replace("\\", "/").split("/")
    return any(seg == "." and (i == 0 or written[i - 1] != "**") and any(rest not in ("", ".") for rest in written[i + 1:])
               for i, seg in enumerate(written))


#: a brace-expansion sequence body: ``1..3``, ``01..10..2``, ``a..e``
_BRACE_SEQUENCE = re.compile(r"(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?|([A-Za-z])\.\.([A-Za-z])(?:\.\.(-?\d+))?")


def _node_braces(pattern: str) -> list[str]:
    """Braces as npm's and yarn's glob libraries expand them (``brace-expansion``, micromatch),
    which differs from ``_expand_braces`` in two ways (npm 11.19.1, yarn 1.22.22 and 4.18.1,
    measured): a group without a top-level comma is literal text (``p/{y}`` is the directory
    ``{y}``, ``p/{a}`` is not ``p/a``), and ``{a..c}`` / ``{1..3}`` are sequences."""
    start = pattern.find("{")
    while start >= 0:
        end = closing_brace(pattern, start)
        if end >= 0:
            body = pattern[start + 1:end]
            alts = split_alternatives(body)
            if len(alts) == 1:
                alts = _brace_sequence(body) or []
            if alts:
                head, tail = pattern[:start], pattern[end + 1:]
                out: dict[str, None] = {}
                for alt in alts:
                    out.update(dict.fromkeys(_node_braces(head + alt + tail)))
                return list(out)
        start = pattern.find("{", start + 1)
    return [pattern]


def _brace_sequence(body: str) -> list[str] | None:
    """``brace-expansion``'s ``{x..y[..step]}``: numbers (zero-padded when an end is) or letters."""
    m = _BRACE_SEQUENCE.fullmatch(body)
    if m is None:
        return None
    if m.group(1) is not None:
        first, last, step = int(m.group(1)), int(m.group(2)), abs(int(m.group(3) or 1)) or 1
        padded = any(re.match(r"-?0\d", end) for end in (m.group(1), m.group(2)))
        pad = max(len(m.group(1)), len(m.group(2))) if padded else 0
    else:
        first, last, step, pad = ord(m.group(4)), ord(m.group(5)), abs(int(m.group(6) or 1)) or 1, 0
    values = range(first, last + 1, step) if first <= last else range(first, last - 1, -step)
    if m.group(1) is None:
        return [chr(v) for v in values]
    return [str(v).zfill(pad) if v >= 0 else "-" + str(-v).zfill(pad - 1) for v in values]


def _npm_real_dirs(root: Path, dirs: list[str], warnings: list[str] | None, source: str) -> list[str]:
    """npm's workspace directories: each match at its real path, as arborist links it (npm 11.19.1,
    measured: with ``p/l -> ../q/c``, ``p/*`` makes ``q/c`` the workspace, and ``!p/l`` -- not
    ``!q/c`` -- excludes it). A directory matched under two spellings (``p/*`` and ``q/*``) is
    two workspaces with one name for npm, which stops (EDUPLICATEWORKSPACE); one whose real
    path is outside the repository is left out, with a warning."""
    real_root = os.path.realpath(root)
    spelled: dict[str, str] = {}
    for rel in sorted(dirs):
        real = os.path.relpath(os.path.realpath(root / rel if rel else root), real_root).replace(os.sep, "/")
        real = "" if real == "." else real
        if real == ".." or real.startswith("../"):
            if warnings is not None:
                where = f"{source}: " if source else ""
                warnings.append(f"{where}workspace {rel!r} links outside the repository; ctxsel leaves it out of the graph")
            continue
        if real in spelled:
            raise ParseError(
                f"npm: {spelled[real]!r} and {rel!r} are one directory ({real!r}), so two workspaces with one name "
                "(EDUPLICATEWORKSPACE)", Location(source or MANIFEST))
        spelled[real] = rel
    return sorted(spelled)


def _warn_if_outside(warnings: list[str] | None, source: str, pattern: str) -> None:
    """Warn when a glob climbs above the repository root (``../shared/*``): the tools list
    packages there (pnpm 12 does, measured), ctxsel never reads outside the repository, so
    its graph leaves them out -- say so rather than answer "unknown package" in silence."""
    depth = 0
    for seg in _segments(pattern):
        depth += -1 if seg == ".." else 0 if seg == "**" else 1
        if depth < 0 and warnings is not None:
            where = f"{source}: " if source else ""
            warnings.append(f"{where}workspace glob {pattern!r} reaches outside the repository; "
                            "ctxsel leaves the packages there out of the graph")
            return


def _warn_if_no_package(warnings: list[str] | None, source: str, unmatched: list[str], positives: int) -> None:
    """Warn when no workspace glob selects a package: then the globs are likely a typo.
    One glob matching nothing is common in real repos (an examples folder not checked out,
    a pattern kept for later: pnpm/pnpm, trpc, dub) and the tools say nothing about it, so
    warning on each would be noise in every pre-commit run."""
    if warnings is not None and positives and len(unmatched) == positives:
        where = f"{source}: " if source else ""
        listed = ", ".join(repr(p) for p in unmatched)
        warnings.append(f"{where}no workspace glob matches a package.json ({listed})")


def _pnpm_alternatives(pattern: str) -> list[str]:
    """The brace expansions pnpm 12 globs: none for an absolute pattern, and none that puts a
    dot at the start of a segment the pattern did not start with a dot (``_segments`` index
    by index; braces holding ``/`` shift the segments, and are then taken as written)."""
    if pattern.startswith("/"):
        return []
    written = _segments(pattern)
    out: list[str] = []
    for alt in _expand_braces(pattern):
        parts = _segments(alt)
        dotted = [seg.startswith(".") and seg != ".." and not orig.startswith(".") for seg, orig in zip(parts, written)]
        if len(parts) == len(written) and any(dotted):
            continue
        out.append(alt)
    return out


def _npm_drop_negated_patterns(positives: list[str], negation_rxs: list[re.Pattern[str]]) -> list[str]:
    """npm drops a positive pattern whose *text* a negation matches, before globbing
    (``minimatch.match(patterns, negated)`` in ``@npmcli/map-workspaces``): with
    ``["a/**", "!a/*"]`` the text ``a/**`` matches ``a/*``, so npm has no workspaces at all
    (npm 11, measured) -- not even ``a/b/c``, which ``!a/*`` alone would keep."""
    def written(pattern: str) -> str:
        return re.sub(r"^\.?/+", "", pattern).rstrip("/") + "/"

    return [p for p in positives if not any(rx.fullmatch(written(p)) for rx in negation_rxs)]


def _npm_bangs(pattern: str) -> str:
    """npm reads leading ``!``s by parity (``@npmcli/map-workspaces``): ``!!a`` is ``a``,
    ``!!!a`` is ``!a``; so one ``!`` or none is left."""
    bangs = len(pattern) - len(pattern.lstrip("!"))
    return ("!" if bangs % 2 else "") + pattern[bangs:]


def _excluded(rel: str, negation_rxs: list[re.Pattern[str]]) -> bool:
    """fast-glob's ``ignore`` and npm: a negation matches the package directory itself."""
    return any(rx.fullmatch(rel + "/" if rel else "") for rx in negation_rxs)


def _turbo_excluded(rel: str, negation_rxs: list[re.Pattern[str]]) -> bool:
    """turbo: a negation that matches the directory, one of its parents or its package.json."""
    parts = rel.split("/") if rel else []
    paths = ["/".join(parts[: i + 1]) + "/" for i in range(len(parts))]
    paths.append(f"{rel}/{MANIFEST}/" if rel else f"{MANIFEST}/")
    return any(rx.fullmatch(path) for rx in negation_rxs for path in paths)


def _turbo_negation(pattern: str) -> str | None:
    """A turbo negation with its ``..`` resolved lexically (``p/a/..`` is ``p``), or None for one
    that names a path outside the repository (``../x``), which excludes nothing. One that names
    the repository root or a directory above it (``.``, ``./``, ``..``, ``p/..``) is ``**``:
    turbo 2 excludes everything below a path a negation matches, so ``!.`` and ``!..`` drop
    every package a wildcard found, as ``!**`` does (2.11.11, measured)."""
    out: list[str] = []
    above = False
    for seg in _segments(pattern):
        if seg != "..":
            if above:
                return None
            out.append(seg)
        elif out:
            out.pop()
        else:
            above = True
    return "/".join(out) or "**"


def _literal_dir(root: Path, parts: list[str], tracker: InputTracker) -> set[str]:
    """The one directory a wildcard-free pattern names (``..`` resolved), for turbo, which
    takes a literal workspace path as written -- inside ``node_modules`` too (measured)."""
    out: list[str] = []
    for seg in parts:
        if seg == "..":
            if not out:
                return set()  # above the repository root: never listed
            out.pop()
        else:
            out.append(seg)
    rel = "/".join(out)
    tracker.note(root / rel if rel else root)
    return {rel} if os.path.isdir(root / rel if rel else root) else set()


def _negation_rx(pattern: str, dot: bool = False, segments: str = "picomatch") -> re.Pattern[str]:
    return _path_regex(_segments(pattern), dot, segments)


# ---------------------------------------------------------------------- discovery
def workspace_globs(
    root: Path, tracker: InputTracker, yaml_loader: type | None = None,
) -> tuple[str, list[str], dict[str, Any], str]:
    """``(manager, globs, pnpm settings, declaring file)`` for the workspace at ``root``;
    ``yaml_loader`` reads pnpm-workspace.yaml for a tool other than pnpm (``_read_yaml``)."""
    pnpm_file = root / PNPM_WORKSPACE
    if tracker.exists(pnpm_file):
        settings = _read_yaml(pnpm_file, tracker, loader=yaml_loader, budget=None if yaml_loader else PNPM_YAML_BUDGET)
        packages = settings.get("packages", [])
        if packages is None:
            packages = []
        if not isinstance(packages, list):
            raise ParseError("'packages' must be a list of globs", Location(_display(pnpm_file, tracker)))
        return "pnpm", [_glob_text(p, i, pnpm_file, tracker) for i, p in enumerate(packages)], settings, PNPM_WORKSPACE
    manifest = read_json(root / MANIFEST, tracker) if tracker.exists(root / MANIFEST) else {}
    declared = manifest.get("workspaces")
    if isinstance(declared, dict):  # yarn classic: {"packages": [...], "nohoist": [...]}
        declared = declared.get("packages")
    globs = [str(p) for p in declared] if isinstance(declared, list) else []
    return detect_manager(root) or "npm", globs, {}, MANIFEST


def _glob_text(item: Any, index: int, path: Path, tracker: InputTracker) -> str:
    """One ``packages:`` entry as pnpm 12 reads it: scalars become their YAML text
    (``1``, ``true``); ``null``, lists and mappings are an error there (measured), so here too."""
    if isinstance(item, bool):
        return "true" if item else "false"
    if isinstance(item, (str, int, float)):
        return str(item)
    what = "null" if item is None else type(item).__name__
    where = Location(_display(path, tracker))
    raise ParseError(f"'packages' entry {index + 1} is {what}, expected a glob string", where)


def discover(
    root: Path, tracker: InputTracker, negation_rule: str = "ignore", manifests: tuple[str, ...] = (MANIFEST,),
    yaml_loader: type | None = None, declared: tuple[str, list[str], dict[str, Any], str] | None = None,
    objects_only: bool = False,
) -> JsWorkspace:
    """The root package and every workspace package, parsed; a package directory is one
    holding one of ``manifests`` (``PNPM_MANIFESTS`` for pnpm).

    Packages with the same name are all kept (``by_name`` lists them in directory
    order); each adapter decides, as its tool does, whether that is an error (npm, yarn
    and turbo for two workspace packages, yarn 2+ for the root too:
    ``require_unique_names``) or which one a dependency resolves to. pnpm goes on without
    a word, and npm, yarn 1 and turbo do for a package named as the root (measured with
    pnpm 12.4.2, npm 11.19.1, yarn 1.22.22 / 4.18.1, turbo 2.11.11): ctxsel says it in one
    line for all the names two packages share (``_duplicate_names_warning``), never per name
    (vite has six) and never for the root's namesake, which no command confuses.

    ``yaml_loader``: how a tool other than pnpm reads pnpm-workspace.yaml (``_read_yaml``);
    ``declared``: ``workspace_globs``'s answer from a tool that reads the declaration its
    own way (turbo: ``turbo.turbo_workspace_globs``); ``objects_only``: a package.json that is no
    JSON object is an error rather than an empty manifest (turbo: ``read_package``).
    """
    root = Path(root)
    # pnpm 12 takes a root holding only a package.yaml as the root project too (measured)
    has_root_manifest = any(tracker.exists(root / m) for m in manifests)
    if not has_root_manifest and not tracker.exists(root / PNPM_WORKSPACE):
        raise ParseError("no package.json at the workspace root", Location(_display(root / MANIFEST, tracker)))
    manager, globs, settings, source = declared or workspace_globs(root, tracker, yaml_loader)
    warnings: list[str] = []
    dirs = expand_globs(root, globs, tracker, warnings, source, negation_rule, manifests)
    read = partial(read_package, root, tracker=tracker, manifests=manifests, objects_only=objects_only)
    packages = [read("", is_root=True)] if has_root_manifest else []
    packages += [read(d) for d in dirs if d != ""]
    ws = JsWorkspace(root=root, manager=manager, globs=globs, packages=packages, settings=settings, warnings=warnings,
                     root_in_globs="" in dirs)
    warnings.extend(_duplicate_names_warning(ws))
    return ws


def _duplicate_names_warning(ws: JsWorkspace) -> list[str]:
    """At most one line naming the package names two workspace packages share (three shown):
    dependencies on them resolve as the tool resolves them and ctxsel's commands name them by
    directory, so this is a note on the repository, not on the answer."""
    shared = [(name, [p.dir for p in same if not p.is_root]) for name, same in sorted(ws.by_name().items())]
    shared = [(name, dirs) for name, dirs in shared if len(dirs) > 1]
    if not shared:
        return []
    shown = "; ".join(f"{name!r} ({', '.join(dirs)})" for name, dirs in shared[:3])
    more = f"; and {len(shared) - 3} more" if len(shared) > 3 else ""
    return [f"{len(shared)} package name{'s are' if len(shared) > 1 else ' is'} used by more than one package, "
            f"each named by its directory here: {shown}{more}"]


def root_manifest(root: Path) -> dict[str, Any]:
    """The root package.json, or {} when absent or broken.

    Untracked and forgiving on purpose: ``detect()`` and command rendering use it
    without building a graph; graph loading reads through ``read_json``, which reports
    errors.
    """
    try:
        loaded = json.loads(read_text(Path(root) / MANIFEST, errors="replace").lstrip("\ufeff"))
    except (OSError, ValueError, RecursionError):  # graph loading reports these (``read_json``)
        return {}
    return loaded if isinstance(loaded, dict) else {}


def detect_manager(root: Path) -> str | None:
    """Which package manager a JS workspace uses: its own config, then packageManager, then lockfiles.

    Cheap and untracked: used by ``detect()`` before any graph is built.
    """
    root = Path(root)
    if (root / PNPM_WORKSPACE).is_file():
        return "pnpm"
    manifest = root_manifest(root)
    pm = manifest.get("packageManager")
    if isinstance(pm, str):
        name = pm.split("@", 1)[0].strip()
        if name in ("pnpm", "yarn", "npm"):
            return name
    for lockfile, name in (("pnpm-lock.yaml", "pnpm"), ("yarn.lock", "yarn"), (".yarnrc.yml", "yarn"), ("package-lock.json", "npm")):
        if (root / lockfile).is_file():
            return name
    if "workspaces" in manifest:
        return "npm"
    return None


def yarnrc_settings(root: Path, tracker: InputTracker | None = None) -> dict[str, Any]:
    """The repo's ``.yarnrc.yml`` (berry's settings), or {} when absent or unreadable; with
    ``tracker`` it is read through it, so an edit invalidates the graph cache."""
    path = Path(root) / ".yarnrc.yml"
    try:
        if tracker is not None:
            if not tracker.exists(path):
                return {}
            text = tracker.read_text(path)
        else:
            text = read_text(path, errors="replace")
    except OSError:
        return {}
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return {}
    return data if isinstance(data, dict) else {}


def yarn_release(root: Path) -> str | None:
    """The yarn release the repo runs, as a path from its root: ``yarnPath`` in .yarnrc.yml,
    else ``yarn-path`` in yarn 1's .yarnrc (yarn 1 reads both and hands over to that file)."""
    # a regex, not YAML: this runs on the fast path (test commands), where yaml costs ~30 ms
    for name, rx in ((".yarnrc.yml", r'^yarnPath:[ \t]*(["\']?)([^"\'\n#]+?)\1[ \t]*(?:#.*)?$'),
                     (".yarnrc", r'^[ \t]*(?:yarn-path|yarnPath)[ \t]+(["\']?)([^"\'\n]+?)\1[ \t]*$')):
        try:
            text = read_text(Path(root) / name, errors="replace")
        except OSError:
            continue
        m = re.search(rx, text, re.M)
        if m:
            return m.group(2)
    return None


def yarn_major(root: Path) -> int | None:
    """The yarn major version the repo pins: ``packageManager: yarn@N``, else the release file
    ``yarnPath`` names (``yarn-4.5.0.cjs``; ``yarn-berry.js`` is yarn 2's name); None if neither says."""
    pm = root_manifest(root).get("packageManager")
    if isinstance(pm, str) and pm.startswith("yarn@"):
        major = re.match(r"\d+", pm[len("yarn@"):].strip())
        if major:
            return int(major.group(0))
    release = yarn_release(root)
    if release:
        base = release.replace("\\", "/").rsplit("/", 1)[-1]
        version = re.search(r"yarn-(\d+)\.", base)
        if version:
            return int(version.group(1))
        if "berry" in base:
            return 2
    return None


def yarn_is_berry(root: Path) -> bool:
    """Whether yarn 2+ ("berry") runs this repo, decided as yarn itself is picked:

    1. ``packageManager: yarn@N`` -- corepack runs that version, and yarn 1 refuses to run
       where it names another major (yarn 1.22.22, measured);
    2. the release ``yarnPath`` (.yarnrc.yml) or ``yarn-path`` (.yarnrc) names: yarn 1
       hands over to it (``yarn-4.5.0.cjs``; ``yarn-berry.js`` is yarn 2's name);
    3. the lockfile's format: berry's has ``__metadata:``, yarn 1's says ``yarn lockfile v1``;
    4. a ``.yarnrc.yml`` (berry's settings file) without either;
    else yarn 1, the yarn corepack and ``npm i -g yarn`` give a repo that pins none.
    """
    root = Path(root)
    major = yarn_major(root)
    if major is not None:
        return major >= 2
    try:
        with open(root / "yarn.lock", encoding="utf-8", errors="replace") as fh:
            head = fh.read(4096)
    except OSError:
        head = ""
    if re.search(r"^__metadata:", head, re.M):
        return True
    if "yarn lockfile v1" in head:
        return False
    return (root / ".yarnrc.yml").is_file()


def expand_berry_globs(root: Path, patterns: list[str], tracker: InputTracker, warnings: list[str] | None = None,
                       source: str = "", ordered_negations: bool = False) -> list[str]:
    """Directories (holding a package.json) a yarn 2+ ``workspaces`` list selects, from ``root``.

    Berry globs with fast-glob, ``!patterns`` as ignores (yarn 4.18.1, measured): a
    negation drops every directory it matches, wherever it stands in the list; while
    walking a pattern's wildcards, a negation whose last segment has no wildcard (or that
    ends in ``/**``) also prunes everything below the directory it matches
    (``["p/**", "!p/c"]`` drops ``p/c/d``; ``["p/**", "!p/*"]`` and ``!p/c/`` keep it); the walk starts
    at the pattern's wildcard-free prefix, which no negation prunes (``["p/c/*", "!p/c"]``
    keeps ``p/c/d``), and a wildcard-free pattern written with a trailing ``/`` escapes
    every negation (``["p/b/", "!p/b"]`` keeps ``p/b``).

    Yarn 2 and 3 glob through globby, which hands each pattern only the negations written
    *after* it (``["!p/a", "p/*"]`` keeps ``p/a``; yarn 3.8.7 and 2.4.2, measured):
    ``ordered_negations`` asks for that.

    fast-glob never returns the directory its walk starts from (the pattern's wildcard-free
    prefix): ``p/a/**`` lists ``p/a/x`` but not ``p/a`` (4.18.1 and 3.8.7, measured; yarn 1 lists it).
    """
    def is_negation(p: object) -> bool:
        return isinstance(p, str) and p.startswith("!")

    everywhere = _negation_rules([p[1:] for p in patterns if is_negation(p)], parent_too=not ordered_negations)
    found: set[str] = set()
    unmatched: list[str] = []
    positives = 0
    for index, pattern in enumerate(patterns):
        if not isinstance(pattern, str) or not pattern.strip() or pattern.startswith("!"):
            continue
        positives += 1
        _warn_if_outside(warnings, source, pattern)
        negation_rxs, pruning = (_negation_rules([p[1:] for p in patterns[index + 1:] if is_negation(p)], False)
                                 if ordered_negations else everywhere)
        matched: set[str] = set()
        for alt in _alternatives(pattern, "berry"):
            parts = _segments(alt)
            magic = next((i for i, s in enumerate(parts) if _has_magic(s, "minimatch")), len(parts))
            static = parts[:magic]
            escapes = len(static) == len(parts) and alt.endswith("/")
            base = "/".join(static) if len(static) < len(parts) else None
            for rel in expand_globs(root, [alt], tracker, negation_rule="berry", follow_links=True):
                if rel == base:
                    continue
                if escapes:
                    matched.add(rel)
                    continue
                if any(rx.fullmatch(rel + "/" if rel else "") for rx in negation_rxs):
                    continue
                segs = rel.split("/")
                below_base = ["/".join(segs[:i]) for i in range(len(static) + 1, len(segs))]
                if len(static) < len(parts) and any(rx.fullmatch(a + "/") for a in below_base for rx in pruning):
                    continue
                matched.add(rel)
        if not matched:
            unmatched.append(pattern)
        found |= matched
    _warn_if_no_package(warnings, source, unmatched, positives)
    return sorted(found)


def _negation_rules(negations: list[str], parent_too: bool) -> tuple[list[re.Pattern[str]], list[re.Pattern[str]]]:
    """fast-glob's ignores: what each negation drops, and those that also prune the walk below
    the directory they match (last segment without a wildcard, or ending in ``/**``; not one
    written with a trailing ``/``)."""
    alts = [alt for n in negations for alt in _expand_braces(n)]
    # read as the positives are (``READINGS["berry"]``): extglobs apply (``!p/@(a|b)`` drops
    # ``p/a`` and ``p/b``, ``!p/c/@(d)`` prunes nothing below ``p/c/d``; yarn 4.18.1, measured)
    segments = READINGS["berry"].segments
    dropping = [_negation_rx(alt, segments=segments) for alt in alts]
    # with ``parent_too`` (yarn 4's fast-glob tests a directory as ``dir/`` too) a last segment
    # that may match nothing (``!p/c/!(d)``, ``!p/c/*(x)``; not ``*``, which picomatch makes match
    # one character at least) drops ``p/c`` itself (yarn 4.18.1, measured; 3.8.7 keeps it)
    dropping += [_negation_rx("/".join(parts[:-1]), segments=segments) for parts in map(_segments, alts)
                 if parent_too and len(parts) > 1 and _may_match_nothing(parts[-1], segments)]
    pruning = [_negation_rx(alt, segments=segments) for alt in alts
               if alt.endswith("/**") or (not alt.endswith("/") and not _has_magic((_segments(alt) or ["*"])[-1], segments))]
    return dropping, pruning


def _may_match_nothing(seg: str, segments: str) -> bool:
    """Whether one glob segment matches the empty name (an extglob such as ``!(a)`` or ``*(a)``)."""
    if seg == "**" or re.fullmatch(r"\*+", seg):
        return False
    return re.fullmatch(_segment_regex(seg, segments=segments), "") is not None
