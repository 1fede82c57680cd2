"""How turbo 2 narrows a lockfile change to packages: it reads the lockfile before and
after the change, follows each package's external dependencies into both, and marks a
package whose locked entries differ. Kept apart from ``turbo.py`` (the package graph and
turbo.json): this is about one file's two versions, not about the workspace.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

#: the lockfile turbo reads, per package manager (the root package.json's ``packageManager``)
LOCKFILES = {"pnpm": "pnpm-lock.yaml", "npm": "package-lock.json", "yarn": "yarn.lock", "bun": "bun.lock"}
#: package.json fields whose external packages turbo follows into the lockfile; a
#: ``peerDependencies``-only package is not changed by its peer's new version (measured)
EXTERNAL_FIELDS = ("dependencies", "devDependencies", "optionalDependencies")


class LockfileUnreadable(ValueError):
    """turbo cannot narrow this lockfile change ("LockfileChangeDetectionFailed"): every package changed."""


@dataclass
class LockfileView:
    """What of a lockfile decides turbo's answer: the fields whose change is global, and
    per package directory the lockfile entries its external dependencies reach."""

    global_fields: tuple[Any, ...]
    closures: dict[str, frozenset[str]]


def lockfile_view(text: str, manager: str, externals: dict[str, dict[str, str]], current: bool) -> LockfileView:
    """Parse a pnpm or npm lockfile the way turbo 2 compares two of them.

    ``externals`` maps each package directory ("" for the root) to its package.json
    dependencies (name -> spec, ``EXTERNAL_FIELDS``). ``current`` is the side turbo builds
    its package graph from: a package with external dependencies but no importer there
    makes turbo give up, while the previous side may lack it (a new package). Raises
    ``LockfileUnreadable`` where turbo gives up, and for formats ctxsel does not read
    (yarn, bun, pnpm's v5: every package then, never none).
    """
    if manager == "pnpm":
        import yaml  # only when a lockfile changed

        try:
            # libyaml's loader when PyYAML has it: the same SafeLoader resolution, but a real
            # pnpm-lock.yaml (1.4 MB in trpc) takes 0.5 s instead of 7 s, and both sides are read
            data = yaml.load(_without_v9_packages(text), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # noqa: S506 -- a safe loader
        except yaml.YAMLError:
            raise LockfileUnreadable("not valid YAML") from None
        return _pnpm_view(data, externals, current)
    if manager == "npm":
        import json

        try:
            data = json.loads(text)
        except ValueError:
            raise LockfileUnreadable("not valid JSON") from None
        return _npm_view(data, externals, current)
    if manager == "yarn" and "__metadata:" not in text:  # yarn 1 (berry's YAML has __metadata)
        return _yarn1_view(parse_yarn1_lockfile(text), externals)
    raise LockfileUnreadable(f"ctxsel does not read {manager}'s lockfile")


#: a top-level key line of block-style YAML, as pnpm writes its lockfile
_TOP_KEY = re.compile(r"([A-Za-z][\w-]*):(?:[ \t].*)?")


def _without_v9_packages(text: str) -> str:
    """A pnpm v9+ lockfile without its top-level ``packages:`` section, which turbo's answer
    never reads there (resolutions and integrity hashes; v9 keeps the dependency graph in
    ``snapshots``) and which is 40 % of a real lockfile's parse (trpc: 17,000 of 41,000
    lines). The text is kept whole for v6 (its graph is ``packages``) and whenever its top
    level is not plain block YAML (a document marker, flow style, a top-level sequence).
    Only a syntax error inside that section, which turbo would fail on, is no longer seen."""
    version = re.search(r"^lockfileVersion:[ \t]*['\"]?(\d+)", text, re.MULTILINE)
    if version is None or int(version.group(1)) < 9:
        return text
    out: list[str] = []
    skipping = False
    for line in text.splitlines(keepends=True):
        if line[:1] not in (" ", "\t", "\r", "\n", "#", ""):
            key = _TOP_KEY.fullmatch(line.rstrip("\r\n"))
            if key is None:
                return text
            skipping = key.group(1) == "packages"
        if not skipping:
            out.append(line)
    return "".join(out)


def _pnpm_view(data: Any, externals: dict[str, dict[str, str]], current: bool) -> LockfileView:
    """pnpm-lock.yaml v6-v9 (measured with turbo 2.11.11): lockfileVersion, ``settings`` and
    ``packageExtensionsChecksum`` are global (``overrides``, ``patchedDependencies`` and
    ``pnpmfileChecksum`` are not); a dependency resolves through its importer entry when
    the entry's specifier is the package.json's (or its ``overrides`` value names a
    locked version), and its closure follows ``snapshots`` (v9) or ``packages`` (v6) by key,
    so an integrity-only or whitespace change changes nothing."""
    if not isinstance(data, dict) or not isinstance(data.get("importers"), dict):
        raise LockfileUnreadable("no importers")
    lockfile_version = data.get("lockfileVersion")
    major = lockfile_version.split(".", 1)[0] if isinstance(lockfile_version, str) else ""
    if not major.isdigit() or int(major) < 6:  # v5 and older wrote a number, and other keys
        raise LockfileUnreadable(f"lockfileVersion {lockfile_version!r}")
    v6 = major == "6"
    table = data.get("packages" if v6 else "snapshots") or {}
    overrides = data.get("overrides") or {}
    if not isinstance(table, dict) or not isinstance(overrides, dict):
        raise LockfileUnreadable("malformed packages")

    def key_of(name: str, version: str) -> str | None:
        key = f"/{name}@{version}" if v6 else f"{name}@{version}"
        if key in table:
            return key
        return version if version in table else None  # an alias (npm:x@1) is locked under its own key

    closures: dict[str, frozenset[str]] = {}
    for rel, deps in externals.items():
        importer = data["importers"].get(rel or ".")
        if not isinstance(importer, dict):
            if current and deps:
                raise LockfileUnreadable(f"no importer {rel or '.'}")
            closures[rel] = frozenset()
            continue
        roots: list[str] = []
        for name, spec in deps.items():
            entry = next((f[name] for f in (importer.get(k) for k in EXTERNAL_FIELDS) if isinstance(f, dict) and name in f), None)
            wanted = overrides.get(name, spec) if isinstance(overrides.get(name), str) else spec
            if isinstance(entry, dict) and entry.get("specifier") == wanted:
                version = str(entry.get("version", ""))
            else:
                version = wanted
            key = None if version.startswith("link:") else key_of(name, version)
            if key:
                roots.append(key)
        closures[rel] = _closure(roots, lambda k: _pnpm_edges(table.get(k), key_of))
    return LockfileView((lockfile_version, data.get("settings"), data.get("packageExtensionsChecksum")), closures)


def _pnpm_edges(entry: Any, key_of: Any) -> list[str]:
    """The locked keys a pnpm snapshot depends on (dependencies and optionalDependencies)."""
    out: list[str] = []
    if isinstance(entry, dict):
        for field in ("dependencies", "optionalDependencies"):
            deps = entry.get(field)
            if isinstance(deps, dict):
                out += [k for k in (key_of(str(n), str(v)) for n, v in deps.items()) if k]
    return out


#: the fields of a package-lock.json entry turbo follows: all four (measured: a new
#: devDependency or peerDependency of a locked package changes its dependents)
NPM_LOCK_EDGE_FIELDS = ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies")


def _npm_view(data: Any, externals: dict[str, dict[str, str]], current: bool) -> LockfileView:
    """package-lock.json v2/v3 (``packages``), measured with turbo 2.11.11: lockfileVersion
    and ``requires`` are global (``name``, integrity and whitespace change nothing); a
    dependency resolves as node does, from ``<dir>/node_modules/<name>`` up to the root
    ``node_modules``; a workspace link (``"link": true``) is no external package; a
    package with external dependencies but no entry of its own makes turbo give up."""
    packages = data.get("packages") if isinstance(data, dict) else None
    if not isinstance(packages, dict):
        raise LockfileUnreadable("no packages (lockfileVersion 1)")

    def find(start: str, name: str) -> str | None:
        prefix = start
        while True:
            key = f"{prefix}/node_modules/{name}" if prefix else f"node_modules/{name}"
            entry = packages.get(key)
            if isinstance(entry, dict):
                return None if entry.get("link") else key
            if not prefix:
                return None
            head, sep, _ = prefix.rpartition("node_modules/")
            prefix = head.rstrip("/") if sep else ""

    def edges(key: str) -> list[str]:
        entry = packages.get(key) or {}
        names = [n for f in NPM_LOCK_EDGE_FIELDS if isinstance(entry.get(f), dict) for n in entry[f]]
        return [k for k in (find(key, n) for n in names) if k]

    def label(key: str) -> str:
        return f"{key}@{(packages.get(key) or {}).get('version')}"

    closures: dict[str, frozenset[str]] = {}
    for rel, deps in externals.items():
        if current and deps and not isinstance(packages.get(rel), dict):
            raise LockfileUnreadable(f"no entry {rel}")  # turbo gives up (measured)
        closures[rel] = frozenset(label(k) for k in _closure([k for k in (find(rel, n) for n in deps) if k], edges))
    return LockfileView((data.get("lockfileVersion"), data.get("requires")), closures)


#: the four line shapes of a yarn 1 lockfile entry (patterns, compiled by ``re``'s cache on first use)
_YARN1_KEY = r'^(?:"[^"]+"|[^\s"#][^"]*?)(?:, (?:"[^"]+"|[^\s"][^"]*?))*:$'
_YARN1_FIELD = r'^  ("[^"]+"|[^\s"]+) ("(?:[^"\\]|\\.)*"|\S+)$'
_YARN1_BLOCK = r"^  (dependencies|optionalDependencies):$"
_YARN1_DEP = r'^    ("[^"]+"|[^\s"]+) ("(?:[^"\\]|\\.)*"|\S+)$'


def parse_yarn1_lockfile(text: str) -> dict[str, dict[str, Any]]:
    """A yarn 1 lockfile as ``{"name@spec": {"version": ..., "dependencies": {name: spec}}}``
    (every comma-joined key gets the entry). Strict on purpose: a line of another shape
    raises ``LockfileUnreadable``, as turbo's parser gives up ("LockfileChangeDetectionFailed",
    measured) -- better every package than a narrowed answer turbo would not give."""

    import re

    def unquote(token: str) -> str:
        return token[1:-1] if token.startswith('"') else token

    entries: dict[str, dict[str, Any]] = {}
    current: dict[str, Any] | None = None
    block: str | None = None
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        if not line.startswith(" "):
            if not re.match(_YARN1_KEY, line):
                raise LockfileUnreadable(f"yarn.lock line {number}")
            current, block = {"dependencies": {}, "optionalDependencies": {}}, None
            for key in line[:-1].split(", "):
                entries[unquote(key)] = current
            continue
        dep = re.match(_YARN1_DEP, line)
        if current is not None and block and dep:
            current[block][unquote(dep.group(1))] = unquote(dep.group(2))
            continue
        head = re.match(_YARN1_BLOCK, line)
        field = re.match(_YARN1_FIELD, line)
        if current is None or not (head or field):
            raise LockfileUnreadable(f"yarn.lock line {number}")
        block = head.group(1) if head else None
        if field:
            current[unquote(field.group(1))] = unquote(field.group(2))
    return entries


#: the header yarn 1 writes; a yarn.lock with it is read by the legacy parser, whatever follows
#: (``LEGACY_REGEXP`` of the syml parser Nx and yarn berry share)
YARN1_HEADER = re.compile(r"^(#.*(\r?\n))*?#\s+yarn\s+lockfile\s+v1\r?\n", re.IGNORECASE)


def parse_berry_lockfile(text: str) -> dict[str, dict[str, Any]] | None:
    """A yarn berry (2+) lockfile as ``{"name@npm:^1, name@npm:^2": {"version": ..., ...}}``
    without ``__metadata``; None for a yarn 1 lockfile (its header, or no ``__metadata``).

    Read as the syml parser Nx uses reads it: YAML with the failsafe schema (every scalar a
    string, so ``version: 1.10`` stays ``"1.10"``; a repeated key keeps the last value).
    ``LockfileUnreadable`` for text that is not such a mapping."""
    if YARN1_HEADER.match(text):
        return None
    import yaml  # only when a lockfile changed

    try:
        data = yaml.load(text, Loader=getattr(yaml, "CBaseLoader", yaml.BaseLoader))  # noqa: S506 -- strings only
    except yaml.YAMLError:
        raise LockfileUnreadable("not valid YAML") from None
    if not isinstance(data, dict) or "__metadata" not in data:
        return None
    return {str(k): v for k, v in data.items() if k != "__metadata" and isinstance(v, dict)}


def _yarn1_view(entries: dict[str, dict[str, Any]], externals: dict[str, dict[str, str]]) -> LockfileView:
    """yarn.lock v1, measured with turbo 2.11.11: a dependency is the entry keyed
    ``name@spec``; its closure follows ``dependencies`` and ``optionalDependencies`` the
    same way, and an entry counts with its version (integrity, ``resolved`` and blank lines
    change nothing). Workspace packages are not in it, so a link has no key."""

    def keys(deps: dict[str, str]) -> list[str]:
        return [key for key in (f"{n}@{v}" for n, v in deps.items()) if key in entries]

    def edges(key: str) -> list[str]:
        entry = entries.get(key, {})
        return keys(entry.get("dependencies", {})) + keys(entry.get("optionalDependencies", {}))

    closures = {
        rel: frozenset(f"{k}={entries[k].get('version')}" for k in _closure(keys(deps), edges))
        for rel, deps in externals.items()
    }
    return LockfileView((), closures)


def _closure(roots: list[str], edges: Any) -> frozenset[str]:
    seen: set[str] = set()
    stack = list(roots)
    while stack:
        key = stack.pop()
        if key not in seen:
            seen.add(key)
            stack.extend(edges(key))
    return frozenset(seen)


def lockfile_changed_dirs(before: str | None, after: str | None, manager: str,
                          externals: dict[str, dict[str, str]]) -> set[str] | None:
    """The package directories a lockfile change affects for turbo 2, or None for all of them.

    None when either side is missing (lockfile added or deleted: "LockfileChangedWithoutDetails"
    / "LockfileChangeDetectionFailed", measured), unreadable, or a global field changed.
    """
    if before is None or after is None:
        return None
    try:
        old = lockfile_view(before, manager, externals, current=False)
        new = lockfile_view(after, manager, externals, current=True)
    except LockfileUnreadable:
        return None
    if old.global_fields != new.global_fields:
        return None
    changed = {rel for rel in externals if old.closures.get(rel) != new.closures.get(rel)}
    # the root's external dependencies are part of every task's hash: a change there is
    # every package's ("LockfileChanged" for all, measured on create-t3-turbo and a fixture)
    return None if "" in changed else changed
