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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxsel.cache import InputTracker
from ctxsel.errors import Location, ParseError

from . import MANIFEST, PNPM_WORKSPACE  # noqa: F401  (importers of this module use them too)

#: directories no package manager searches for workspace packages
SKIP_DIRS = frozenset({"node_modules", "bower_components"})


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
def _display(path: Path, tracker: InputTracker) -> str:
    """A path as a user recognises it: repo-relative when inside the repo."""
    try:
        return Path(path).resolve().relative_to(Path(tracker.root).resolve()).as_posix()
    except ValueError:
        return str(path)


def _json_object(text: str, path: Path, tracker: InputTracker) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(f"invalid JSON: {exc.msg}", Location(_display(path, tracker), exc.lineno)) from None
    if not isinstance(data, dict):
        raise ParseError("expected a JSON object", Location(_display(path, tracker), 1))
    return data


def read_json(path: Path, tracker: InputTracker) -> dict[str, Any]:
    """A JSON object from ``path``; a syntax error names the file and line (exit 2)."""
    return _json_object(tracker.read_text(path).lstrip("\ufeff"), path, tracker)


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


def read_jsonc(path: Path, tracker: InputTracker) -> dict[str, Any]:
    """Like ``read_json`` for files the tools read as JSONC (comments, trailing commas)."""
    return _json_object(strip_jsonc(tracker.read_text(path).lstrip("\ufeff")), path, tracker)


def _read_yaml(path: Path, tracker: InputTracker) -> dict[str, Any]:
    import yaml  # only when the graph is rebuilt: yaml costs ~30 ms to import

    text = tracker.read_text(path)
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(exc, "problem", None) or "not valid YAML"
        raise ParseError(f"not valid YAML: {problem}", Location(_display(path, tracker), line)) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ParseError("expected a YAML mapping (packages: [...])", Location(_display(path, tracker), 1))
    return data


def read_package(root: Path, rel: str, tracker: InputTracker, is_root: bool = False) -> JsPackage:
    manifest = read_json(root / rel / MANIFEST if rel else root / MANIFEST, tracker)
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
def _expand_braces(pattern: str) -> list[str]:
    """``a/{b,c}/*`` -> ``a/b/*``, ``a/c/*`` (nested braces too)."""
    m = re.search(r"\{([^{}]*)\}", pattern)
    if not m:
        return [pattern]
    out: list[str] = []
    for alt in m.group(1).split(","):
        out.extend(_expand_braces(pattern[: m.start()] + alt + pattern[m.end():]))
    return out


def _segments(pattern: str) -> list[str]:
    """Path segments of a workspace glob; ``./x/``, ``x/package.json`` and ``.`` normalised."""
    pattern = pattern.strip().replace("\\", "/")
    parts = [p for p in pattern.split("/") if p not in ("", ".")]
    if parts and parts[-1] == MANIFEST:
        parts.pop()
    return parts


def _segment_regex(seg: str) -> str:
    """One path segment of a glob as a regex (``*`` stays within the segment)."""
    out: list[str] = []
    i = 0
    while i < len(seg):
        c = seg[i]
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = seg.find("]", i + 1)
            if j == -1:
                out.append(re.escape(c))
            else:
                body = seg[i + 1 : j]
                if body.startswith("!"):
                    body = "^" + body[1:]
                cls = "[" + body.replace("\\", "\\\\") + "]"
                try:
                    re.compile(cls)
                except re.error:  # "[]", "[z-a]": no valid class, so the bracket is literal
                    out.append(re.escape(c))
                else:
                    out.append(cls)
                    i = j
        else:
            out.append(re.escape(c))
        i += 1
    # dot: false -- a wildcard never matches a leading dot unless the pattern spells it
    prefix = "" if seg.startswith(".") else "(?!\\.)"
    return prefix + "".join(out)


def _has_magic(seg: str) -> bool:
    return any(c in seg for c in "*?[")


def _path_regex(parts: list[str]) -> re.Pattern[str]:
    """A whole-path matcher for ``!negations``: ``**`` spans zero or more directories."""
    body = ""
    for seg in parts:
        body += "(?:[^/]+/)*" if seg == "**" else _segment_regex(seg) + "/"
    return re.compile(body)


def _is_real_dir(entry: os.DirEntry[str]) -> bool:
    """A directory that is not a symlink. pnpm's wildcards never enter a symlinked
    directory (measured: pnpm 12.4.2 with ``packages/*`` and ``packages/**``; a literal path is
    followed), and skipping them keeps a symlink loop from multiplying the walk."""
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _walk(root: Path, parts: list[str], tracker: InputTracker) -> set[str]:
    """Directories (repo-relative) matching the glob segments, found by listing only what the glob can reach."""
    found: set[str] = set()
    seen: set[tuple[str, int]] = set()
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
            for entry in tracker.scandir(base):
                if entry.name in SKIP_DIRS or entry.name.startswith(".") or not _is_real_dir(entry):
                    continue
                stack.append((f"{rel}/{entry.name}" if rel else entry.name, i))
        elif not _has_magic(seg):
            if seg == "..":
                continue  # a workspace never reaches outside its root
            if seg not in SKIP_DIRS:
                child = f"{rel}/{seg}" if rel else seg
                tracker.note(root / child)  # so creating it later invalidates the cache
                if os.path.isdir(root / child):
                    stack.append((child, i + 1))
        else:
            rx = re.compile(_segment_regex(seg))
            for entry in tracker.scandir(base):
                if entry.name in SKIP_DIRS or not _is_real_dir(entry) or not rx.fullmatch(entry.name):
                    continue
                stack.append((f"{rel}/{entry.name}" if rel else entry.name, i + 1))
    return found


#: How ``!negations`` combine with positive workspace globs, per tool:
#: "ignore" -- a negation removes matching directories whatever its position (pnpm: fast-glob's ``ignore``);
#: "npm" -- a positive glob that a *previous* negation matches cancels that negation
#: (``@npmcli/map-workspaces``: ``["packages/**", "!packages/b/**", "packages/b/a"]`` keeps all of packages/b);
#: "turbo" -- a literal path (no wildcard) is a package whatever the negations say (turbo 2, measured).
NEGATION_RULES = ("ignore", "npm", "turbo")


def expand_globs(
    root: Path, patterns: list[str], tracker: InputTracker, warnings: list[str] | None = None, source: str = "",
    negation_rule: str = "ignore",
) -> list[str]:
    """Repo-relative directories holding a ``package.json`` that the workspace globs select.

    ``!pattern`` entries remove directories as ``negation_rule`` says (``NEGATION_RULES``).
    A positive pattern that selects no package adds a warning to ``warnings`` naming
    ``source`` (the file that declared it), because it is usually a typo rather than an
    intentionally empty folder.
    """
    negations: list[str] = []
    positives: list[str] = []
    for pattern in patterns:
        if not isinstance(pattern, str) or not pattern.strip():
            continue
        if pattern.startswith("!"):
            negations.append(pattern[1:])
            continue
        if negation_rule == "npm":
            written = re.sub(r"^\.?/+", "", pattern).rstrip("/") + "/"
            negations = [n for n in negations if not _negation_rx(re.sub(r"^\.?/+", "", n)).fullmatch(written)]
        positives.append(pattern)
    negation_rxs = [_negation_rx(alt) for n in negations for alt in _expand_braces(n)]
    dirs: set[str] = set()
    literal: set[str] = set()
    for pattern in positives:
        matched: set[str] = set()
        for alt in _expand_braces(pattern):
            for rel in _walk(root, _segments(alt), tracker):
                if tracker.exists(root / rel / MANIFEST if rel else root / MANIFEST):
                    matched.add(rel)
        if not matched and warnings is not None:
            where = f"{source}: " if source else ""
            warnings.append(f"{where}workspace glob {pattern!r} matches no package.json")
        if negation_rule == "turbo" and not any(_has_magic(seg) for seg in _segments(pattern)) and "{" not in pattern:
            literal |= matched
        dirs |= matched
    kept = [d for d in dirs if d in literal or not any(rx.fullmatch(d + "/" if d else "") for rx in negation_rxs)]
    return sorted(kept)


def _negation_rx(pattern: str) -> re.Pattern[str]:
    return _path_regex(_segments(pattern))


# ---------------------------------------------------------------------- discovery
def workspace_globs(root: Path, tracker: InputTracker) -> tuple[str, list[str], dict[str, Any], str]:
    """``(manager, globs, pnpm settings, declaring file)`` for the workspace at ``root``."""
    pnpm_file = root / PNPM_WORKSPACE
    if tracker.exists(pnpm_file):
        settings = _read_yaml(pnpm_file, tracker)
        packages = settings.get("packages", [])
        if packages is None:
            packages = []
        if not isinstance(packages, list):
            raise ParseError("'packages' must be a list of globs", Location(_display(pnpm_file, tracker)))
        return "pnpm", [str(p) for p in packages], settings, PNPM_WORKSPACE
    manifest = read_json(root / MANIFEST, tracker) if tracker.exists(root / MANIFEST) else {}
    declared = manifest.get("workspaces")
    if isinstance(declared, dict):  # yarn classic: {"packages": [...], "nohoist": [...]}
        declared = declared.get("packages")
    globs = [str(p) for p in declared] if isinstance(declared, list) else []
    return detect_manager(root) or "npm", globs, {}, MANIFEST


def discover(root: Path, tracker: InputTracker, negation_rule: str = "ignore") -> JsWorkspace:
    """The root package and every workspace package, parsed.

    Packages with the same name are all kept (``by_name`` lists them in directory
    order) and a warning names their directories; each adapter decides which one a
    dependency resolves to, as its tool does.
    """
    root = Path(root)
    has_root_manifest = tracker.exists(root / MANIFEST)
    if not has_root_manifest and not tracker.exists(root / PNPM_WORKSPACE):
        raise ParseError("no package.json at the workspace root", Location(_display(root / MANIFEST, tracker)))
    manager, globs, settings, source = workspace_globs(root, tracker)
    warnings: list[str] = []
    dirs = expand_globs(root, globs, tracker, warnings, source, negation_rule)
    packages = [read_package(root, "", tracker, is_root=True)] if has_root_manifest else []
    packages += [read_package(root, d, tracker) for d in dirs if d != ""]
    ws = JsWorkspace(root=root, manager=manager, globs=globs, packages=packages, settings=settings, warnings=warnings)
    for name, same in sorted(ws.by_name().items()):
        if len(same) > 1:
            where = ", ".join(p.dir or "." for p in same)
            warnings.append(f"package name {name!r} is used by more than one package: {where}")
    return ws


def root_manifest(root: Path) -> dict[str, Any]:
    """The root package.json, or {} when absent or broken.

    Untracked and forgiving on purpose: ``detect()`` and command rendering use it
    without building a graph; graph loading reads through ``read_json``, which reports
    errors.
    """
    try:
        with open(Path(root) / MANIFEST, "rb") as fh:
            loaded = json.loads(fh.read().decode("utf-8", errors="replace").lstrip("\ufeff"))
    except (OSError, ValueError):
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


def yarn_is_berry(root: Path) -> bool:
    """Yarn 2+ ("berry") has ``workspaces foreach``; classic yarn 1 does not."""
    root = Path(root)
    if (root / ".yarnrc.yml").is_file():
        return True
    pm = root_manifest(root).get("packageManager")
    if isinstance(pm, str) and pm.startswith("yarn@"):
        major = pm[5:].split(".", 1)[0]
        return major.isdigit() and int(major) >= 2
    return False
