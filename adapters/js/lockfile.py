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


def lockfile_view(text: str, manager: str, externals: dict[str, dict[str, str]], current: bool,
                  overrides: dict[str, str] | None = None) -> LockfileView:
    """Parse a pnpm, npm, yarn (1 or berry) or text bun lockfile the way turbo 2 compares two of them.

    ``externals`` maps each package directory ("" for the root) to its package.json
    dependencies (name -> spec, ``EXTERNAL_FIELDS``). ``current`` is the side turbo builds
    its package graph from: a package with external dependencies but no importer there
    makes turbo give up, while the previous side may lack it (a new package). Raises
    ``LockfileUnreadable`` where turbo gives up, and for formats ctxsel does not read
    (a binary bun.lockb, pnpm's v5: every package then, never none). ``overrides`` is the
    current root package.json's ``resolutions``, which turbo applies to a berry lockfile.
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
    if manager == "yarn":
        entries = parse_berry_lockfile(text)
        if entries is None:
            return _yarn1_view(parse_yarn1_lockfile(text), externals)
        return _berry_view(text, entries, externals, current, overrides or {})
    if manager == "bun":
        return _bun_view(text, externals, current)
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


#: ``protocol:`` at the start of a berry range (``npm:^1``, ``workspace:*``, ``patch:...``)
_BERRY_PROTOCOL = re.compile(r"^[a-z][a-z0-9+.-]*:")


def _berry_descriptor(text: str) -> tuple[str, str]:
    """``name@range`` (``@scope/name@range``) split at the ``@`` after the name."""
    at = text.find("@", 1)
    if at < 1:
        raise LockfileUnreadable(f"descriptor {text!r}")
    return text[:at], text[at + 1:]


#: turbo prefixes ``npm:`` to a resolutions reference that is a semver version or matches this
#: "tag" pattern (turborepo-lockfiles' berry ``resolution.rs``; ``^7.1.0`` matches it too)
_BERRY_TAG = re.compile(r"^[^v][a-z0-9._-]*$")
_STRICT_VERSION = re.compile(r"^(?:0|[1-9]\d*)\.(?:0|[1-9]\d*)\.(?:0|[1-9]\d*)"
                             r"(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$")
#: a key of package.json ``resolutions`` as berry's grammar reads it: ``[from[@range]/]name[@range]``
_BERRY_SPECIFIER = r"(@[^/@]+/[^/@]+|[^/@]+)(?:@([^/]+))?"
_BERRY_RESOLUTION = re.compile(rf"^(?:{_BERRY_SPECIFIER}/)?{_BERRY_SPECIFIER}$")


@dataclass(frozen=True)
class BerryOverride:
    """One ``resolutions`` entry of the root package.json: ``parent``'s dependency ``name``
    (at ``range``; any when None) resolves to ``reference`` instead."""

    parent: str | None
    parent_range: str | None
    name: str
    range: str | None
    reference: str

    def sort_key(self) -> tuple[Any, ...]:
        """turbo keeps them in a BTreeMap and applies the first that matches: ordered by
        (parent, name), a missing part first, strings by their bytes."""
        def part(value: str | None) -> tuple[int, bytes]:
            return (0, b"") if value is None else (1, value.encode())
        return (part(self.parent), part(self.parent_range), self.name.encode(), part(self.range))

    def apply(self, name: str, spec: str, locator: tuple[str, str]) -> str | None:
        """The new range when this entry overrides ``name@spec`` depended on by ``locator``
        (ident, reference), else None (``Resolution::reduce_dependency``)."""
        if self.parent is not None and (self.parent, _npm_default(self.parent_range or locator[1])) != locator:
            return None
        # ``npm:`` is the default protocol: ``x@^1`` and ``x@npm:^1`` match either form (measured)
        if self.name != name or (self.range is not None and self.range.removeprefix("npm:") != spec.removeprefix("npm:")):
            return None
        reference = _npm_default(self.reference)
        if reference.startswith("patch:"):
            return _patched_range(name, reference)
        return reference


#: the package a ``patch:`` reference patches (turborepo-lockfiles' ``Locator::from_patch_reference``)
_BERRY_PATCH = re.compile(r"patch:(.+)#(?:\./)?([^:]+)(?:::)?.*$")


def _patched_range(name: str, reference: str) -> str:
    """The range a ``patch:`` resolution leaves ``name`` at: turbo follows the package it patches,
    ``patch:lodash@npm%3A4.17.21#./p.patch`` -> ``npm:4.17.21`` (an older yarn's ``lodash@4.17.21``
    too), never the patched entry, so a change of the patch alone changes nothing (measured with
    turbo 2.11.11). A reference naming no package, or another package, makes every package changed
    (turbo panics on the first; ctxsel does not follow the second)."""
    m = _BERRY_PATCH.search(reference)
    if m is None:
        raise LockfileUnreadable(f"patch resolution {reference!r}")
    patched, range_ = _berry_descriptor(m.group(1))
    if patched != name:
        raise LockfileUnreadable(f"patch resolution {reference!r} for {name}")
    range_ = range_.replace("npm%3A", "npm:")
    return range_ if range_.startswith("npm:") else "npm:" + range_


def _npm_default(reference: str) -> str:
    """``npm:`` in front of a version or tag, as turbo adds it to a resolution's range."""
    return "npm:" + reference if _STRICT_VERSION.match(reference) or _BERRY_TAG.match(reference) else reference


def berry_overrides(resolutions: dict[str, str]) -> list[BerryOverride]:
    """The root package.json's ``resolutions`` in the order turbo tries them; a key berry's
    grammar does not read makes turbo's lockfile reader fail (``LockfileUnreadable``)."""
    found = []
    for key, reference in resolutions.items():
        m = _BERRY_RESOLUTION.match(key)
        if m is None or not isinstance(reference, str):
            raise LockfileUnreadable(f"resolutions key {key!r}")
        parent, parent_range, name, spec = m.groups()
        found.append(BerryOverride(parent, parent_range, name, spec, reference))
    return sorted(found, key=BerryOverride.sort_key)


def _berry_view(text: str, entries: dict[str, dict[str, Any]], externals: dict[str, dict[str, str]],
                current: bool, overrides: dict[str, str]) -> LockfileView:
    """A yarn berry (2+) lockfile (``text``, its ``parse_berry_lockfile`` entries) as turbo 2
    compares two of them (turborepo-lockfiles' berry reader; measured with turbo 2.11.11).

    Global: ``__metadata``'s ``version`` and ``cacheKey``. Each entry key lists descriptors
    (``name@npm:^1``); a package.json range without a protocol finds its descriptor by the
    range with the protocol stripped (``^1`` -> ``npm:^1``); a descriptor no key lists is
    skipped. The closure follows each entry's ``dependencies`` (berry lists optional ones
    there too; ``peerDependencies`` are not followed) and holds ``(resolution, version)``, so a
    checksum-only change or an unused new entry changes nothing. A package with external
    dependencies but no ``workspace:`` entry ending in its directory makes turbo give up on
    the current side ("MissingWorkspace"); the previous side may lack it (a new package).

    ``overrides`` (the root package.json's ``resolutions``, ``berry_overrides``) rewrite a
    dependency's range: a package's own dependencies with the package as the parent, then
    every lookup again with the workspace as the parent, as turbo's transitive closure asks
    ``resolve_package(workspace, ...)`` for each of them."""
    resolutions: dict[tuple[str, str], str] = {}  # (name, range) -> resolution
    stripped: dict[tuple[str, str], str] = {}  # (name, range without protocol) -> range
    packages: dict[str, dict[str, Any]] = {}  # resolution -> entry
    for key, entry in entries.items():
        resolution = entry.get("resolution")
        if not isinstance(resolution, str) or not isinstance(entry.get("version"), str):
            raise LockfileUnreadable(f"entry {key!r}")  # turbo's reader requires both fields
        packages[resolution] = entry
        for descriptor in key.split(","):
            name, spec = _berry_descriptor(descriptor.strip())
            resolutions[(name, spec)] = resolution
            stripped[(name, _BERRY_PROTOCOL.sub("", spec, count=1))] = spec

    rules = berry_overrides(overrides)

    def override(name: str, spec: str, locator: tuple[str, str]) -> str:
        for rule in rules:
            new = rule.apply(name, spec, locator)
            if new is not None:
                return new
        return spec

    def resolve(name: str, spec: str, workspace: tuple[str, str]) -> str | None:
        if not _BERRY_PROTOCOL.match(spec):
            spec = stripped.get((name, spec), spec)
        return resolutions.get((name, override(name, spec, workspace)))

    def edges_for(workspace: tuple[str, str]) -> Any:
        def edges(resolution: str) -> list[str]:
            deps = packages[resolution].get("dependencies")
            if not isinstance(deps, dict):
                return []
            parent = _berry_descriptor(resolution)
            found = (resolve(str(n), override(str(n), str(v), parent), workspace) for n, v in deps.items())
            return [r for r in found if r]
        return edges

    # (resolution, directory) of each workspace entry
    paths = [(r, r.partition("@workspace:")[2]) for r in packages if "@workspace:" in r[1:]]
    closures: dict[str, frozenset[str]] = {}
    for rel, deps in externals.items():
        # turbo's workspace locator: the one at the directory, else the first whose path ends
        # with it -- for the root ("") the first workspace, not the root's own (measured: a
        # ``root/x`` resolution does not apply to the root's dependencies)
        own = next((w for w, path in paths if rel and path == rel), None) or next((w for w, path in paths if path.endswith(rel)), None)
        if deps and own is None:
            if current:
                raise LockfileUnreadable(f"no workspace entry for {rel or '.'}")
            closures[rel] = frozenset()
            continue
        workspace = _berry_descriptor(own) if own else ("", "")
        roots = [r for r in (resolve(n, v, workspace) for n, v in deps.items()) if r]
        closures[rel] = frozenset(f"{r}={packages[r]['version']}" for r in _closure(roots, edges_for(workspace)))
    block = re.search(r"^__metadata:[ \t]*\r?\n((?:[ \t]+.*\r?\n?)*)", text, re.MULTILINE)
    fields = dict(re.findall(r"^[ \t]+(version|cacheKey):[ \t]*['\"]?([^'\"\s]*)", block.group(1) if block else "", re.MULTILINE))
    return LockfileView((fields.get("version"), fields.get("cacheKey")), closures)


def _bun_key_parent(key: str) -> str | None:
    """``a/b/c`` -> ``a/b``, ``@s/a/b`` -> ``@s/a``; None for a top-level key (``a``, ``@s/a``)."""
    head, sep, _ = key.rpartition("/")
    if not sep or (key.startswith("@") and "/" not in head):
        return None
    return head


def _bun_less_specific(key: str) -> str | None:
    """The next key bun's reader tries for ``key``: ``p/dep`` -> ``dep``, ``@s/p/dep`` -> ``dep``,
    ``gp/p/dep`` -> ``p/dep`` (turborepo-lockfiles' ``PossibleKeyIter``)."""
    rest = key.split("/", 1)[1] if "/" in key else None
    if rest is not None and key.startswith("@"):
        rest = rest.split("/", 1)[1] if "/" in rest else None
    return rest


def _bun_view(text: str, externals: dict[str, dict[str, str]], current: bool) -> LockfileView:
    """A text ``bun.lock`` (JSONC, lockfileVersion 0 or 1) as turbo 2 compares two of them
    (measured with turbo 2.11.11 on hand-written lockfiles; the rules follow turborepo-lockfiles'
    bun reader).

    Global: ``lockfileVersion``. A package.json dependency resolves in the order turbo tries:
    the workspace-scoped key ``<workspace name>/<name>``, then ``<name>``, then any nested key
    (``x/<name>``) locking that name -- the first whose version satisfies the range (a range
    that is no semver range accepts any); ``catalog:`` ranges through ``catalog``/``catalogs``;
    a workspace entry is no external package. Closures follow all four dependency fields of an
    entry except its ``optionalPeers`` -- a dependency first at ``<entry key>/<dep>`` (whatever
    its version), then beside an ancestor key when its version satisfies the range, then as a
    package.json dependency is -- and hold each entry's
    ident (``name@version``), so a checksum-only change changes nothing and a dropped entry
    changes its dependents. ``overrides`` (name -> version) replace the range of every lookup
    by name -- a package.json's, and a dependency's, which is then not looked for nested (nor
    one with a patched version that is locked) -- the entry locking ``name@version`` if there is one, else the
    usual one whatever its version. A
    ``patchedDependencies`` entry (ident -> patch path) makes ``+<path>`` part of that ident in
    the closures: a patch added, removed or moved changes its dependents, the patch file's
    contents nothing (measured with turbo 2.11.11)."""
    import json

    from .semver import satisfies
    from .workspace import strip_jsonc

    try:
        data = json.loads(strip_jsonc(text))
    except ValueError:
        raise LockfileUnreadable("not valid JSON") from None
    if not isinstance(data, dict) or data.get("lockfileVersion") not in (0, 1):
        raise LockfileUnreadable("lockfileVersion")
    workspaces, packages = data.get("workspaces"), data.get("packages")
    if not isinstance(workspaces, dict) or not isinstance(packages, dict):
        raise LockfileUnreadable("no workspaces or packages")
    overrides, patched = data.get("overrides") or {}, data.get("patchedDependencies") or {}
    if not (isinstance(overrides, dict) and isinstance(patched, dict)
            and all(isinstance(v, str) for v in (*overrides.values(), *patched.values()))):
        raise LockfileUnreadable("overrides or patchedDependencies")  # turbo's reader takes strings only
    idents: dict[str, str] = {}
    infos: dict[str, dict[str, Any]] = {}
    checksums: dict[str, Any] = {}
    for key, entry in packages.items():
        if not isinstance(entry, list) or not entry or not isinstance(entry[0], str):
            raise LockfileUnreadable(f"entry {key!r}")
        idents[key] = entry[0]
        infos[key] = next((e for e in entry[1:] if isinstance(e, dict)), {})
        checksum = entry[3] if len(entry) == 4 else None
        if checksums.setdefault(entry[0], checksum) != checksum:  # turbo's reader refuses the file
            raise LockfileUnreadable(f"{entry[0]} locked twice with different checksums")

    locked = set(idents.values())
    patched_names = {ident.rpartition("@")[0] for ident in patched if ident in locked}

    def accepts(key: str, spec: str | None) -> bool:
        """``spec`` None: an override is in force, any version goes."""
        ident = idents[key]
        version = ident.rpartition("@")[2]
        return "@workspace:" not in ident and (spec is None or satisfies(version, spec) is not False)

    def catalog(name: str, spec: str) -> str | None:
        group = spec.removeprefix("catalog:")
        table = data.get("catalog") if not group else (data.get("catalogs") or {}).get(group)
        found = table.get(name) if isinstance(table, dict) else None
        return found if isinstance(found, str) else None

    def resolve(ws_name: str, name: str, spec: str) -> str | None:
        if spec.startswith("catalog:"):
            found = catalog(name, spec)
            if found is None:
                return None
            spec = found
        override = overrides.get(name, spec)
        if data["lockfileVersion"] >= 1 and not override.startswith(("^", "~", "=")) and isinstance(workspaces.get(override), dict):
            return None  # a workspace package, no external one
        wanted: str | None = spec
        if override != spec:  # an override: the entry locking that version, else whatever is locked
            found = next((k for k in sorted(idents) if idents[k] == f"{name}@{override}"), None)
            if found is not None:
                return found
            wanted = None
        tried: list[str] = [f"{ws_name}/{name}"]
        key: str | None = name
        while key is not None:
            tried.append(key)
            key = _bun_less_specific(key)
        for key in tried:
            if key in idents:
                if accepts(key, wanted):
                    return key
                break  # the hoisted entry is the one turbo checks; a mismatch goes on to nested keys
        for key in sorted(idents):  # nested keys locking ``name``
            if _bun_key_parent(key) is not None and idents[key].rpartition("@")[0] == name and accepts(key, wanted):
                return key
        return None

    def edges_for(ws_name: str) -> Any:
        def edges(key: str) -> list[str]:
            info = infos[key]
            peers = info.get("optionalPeers") or []
            out: list[str] = []
            for field in ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies"):
                deps = info.get(field)
                for dep, spec in (deps.items() if isinstance(deps, dict) else ()):
                    if dep in peers or not isinstance(spec, str):
                        continue
                    # a name with an override or a patched version is looked up by name (measured)
                    by_name = dep in overrides or dep in patched_names
                    dep_key = f"{key}/{dep}" if f"{key}/{dep}" in idents and not by_name else None
                    parent = None if by_name else _bun_key_parent(key)
                    while dep_key is None and parent is not None:
                        if f"{parent}/{dep}" in idents:
                            dep_key = f"{parent}/{dep}" if accepts(f"{parent}/{dep}", spec) else None
                            break
                        parent = _bun_key_parent(parent)
                    found = dep_key or resolve(ws_name, dep, spec)  # a nested entry is what is installed there
                    if found:
                        out.append(found)
            return out
        return edges

    closures: dict[str, frozenset[str]] = {}
    for rel, deps in externals.items():
        ws = workspaces.get(rel)
        if not isinstance(ws, dict):
            if current and deps:
                raise LockfileUnreadable(f"no workspace {rel or '.'}")
            closures[rel] = frozenset()
            continue
        ws_name = str(ws.get("name", ""))
        roots = [k for k in (resolve(ws_name, n, v) for n, v in deps.items()) if k]
        closures[rel] = frozenset(idents[k] + (f"+{patched[idents[k]]}" if idents[k] in patched else "")
                                  for k in _closure(roots, edges_for(ws_name)))
    return LockfileView((data.get("lockfileVersion"),), closures)


def lockfile_changed_dirs(before: str | None, after: str | None, manager: str,
                          externals: dict[str, dict[str, str]], resolutions: dict[str, str] | None = None) -> set[str] | None:
    """The package directories a lockfile change affects for turbo 2, or None for all of them.

    None when either side is missing (lockfile added or deleted: "LockfileChangedWithoutDetails"
    / "LockfileChangeDetectionFailed", measured), unreadable, or a global field changed.
    ``resolutions`` is the current root package.json's field: turbo applies it to both sides
    of a berry lockfile (``_berry_view``).
    """
    if before is None or after is None:
        return None
    try:
        old = lockfile_view(before, manager, externals, current=False, overrides=resolutions)
        new = lockfile_view(after, manager, externals, current=True, overrides=resolutions)
    except LockfileUnreadable:
        return None
    if old.global_fields != new.global_fields:
        return None
    changed = {rel for rel in externals if old.closures.get(rel) != new.closures.get(rel)}
    # the root's external dependencies are part of every task's hash: a change there is
    # every package's ("LockfileChanged" for all, measured on create-t3-turbo and a fixture)
    return None if "" in changed else changed
