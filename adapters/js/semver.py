"""Does a workspace package's version satisfy a dependency's range? node-semver's rules.

pnpm (``workspace:^1.2.0``, ``link-workspace-packages``), npm, yarn and Turborepo decide
whether a dependency on a workspace package's name is a link to that package by testing
its ``version`` against the range with node-semver. A Python semver library would add a
dependency for ~100 lines, and the others (PEP 440, semantic_version's default) disagree
with node-semver on ``^0.x``, partial versions and prereleases, which is exactly what
decides an edge here. Implemented: ``||``, hyphen ranges, ``^ ~ < <= > >= =``, ``x``/``*``
partials and the prerelease rule (``1.1.0-beta`` satisfies only ranges that name a
prerelease of 1.1.0); ``includePrerelease`` and loose-mode oddities are not.
"""

from __future__ import annotations

import re
from functools import lru_cache

Version = tuple[int, int, int, tuple[object, ...]]  # (major, minor, patch, prerelease ids)

#: dot-separated identifiers, none empty (node-semver rejects ``1.0.0-beta..1`` and ``1.0.0-``)
_IDS = r"[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*"
_VERSION = re.compile(rf"^\s*[=v]*\s*(\d+)\.(\d+)\.(\d+)(?:-({_IDS}))?(?:\+{_IDS})?\s*$")
_PARTIAL = re.compile(
    rf"^[=v]*(\d+|[xX*])(?:\.(\d+|[xX*])(?:\.(\d+|[xX*])(?:-({_IDS}))?(?:\+{_IDS})?)?)?$"
)
#: a package.json ``version`` as pnpm 12 parses it: leading blanks and one ``v``/``V`` are
#: allowed, ``=`` prefixes and trailing blanks are not (measured: ``V1.0.0``, ``v 1.0.0``,
#: `` 1.0.0`` parse; ``=1.0.0``, ``1.0.0 ``, ``vv1.0.0``, ``1.0`` do not)
_MANIFEST_VERSION = re.compile(rf"^\s*[vV]?\s*(\d+\.\d+\.\d+(?:-{_IDS})?(?:\+{_IDS})?)\Z")
_COMPARATOR = re.compile(r"^(<=|>=|<|>|=|\^|~>?)?\s*(.*)$")


def _pre_ids(text: str | None) -> tuple[object, ...]:
    if not text:
        return ()
    return tuple(int(p) if p.isdigit() else p for p in text.split("."))


def parse_version(text: str) -> Version | None:
    m = _VERSION.match(text)
    if not m:
        return None
    return (int(m.group(1)), int(m.group(2)), int(m.group(3)), _pre_ids(m.group(4)))


def parse_manifest_version(text: str) -> Version | None:
    """A package.json ``version`` read the way pnpm 12 reads it; None when pnpm rejects it.

    Stricter at the edges than ``parse_version`` (which reads versions inside ranges the
    loose node-semver way), and it decides links: pnpm links a workspace package whose
    version it cannot parse for no spec at all, ``workspace:*`` included.
    """
    m = _MANIFEST_VERSION.match(text)
    return parse_version(m.group(1)) if m else None


def _pre_key(pre: tuple[object, ...]) -> tuple:
    """Sort key: a release sorts after its prereleases; numeric ids before alphanumeric."""
    if not pre:
        return (1,)
    return (0, tuple((0, p, "") if isinstance(p, int) else (1, 0, p) for p in pre))


def version_key(v: Version) -> tuple:
    """Sort key in semver precedence order."""
    return (v[0], v[1], v[2], _pre_key(v[3]))


Comparator = tuple[str, Version]
_ANY: list[Comparator] = []
_NONE: list[Comparator] = [("<", (0, 0, 0, (0,)))]


def _partial(text: str) -> tuple[int | None, int | None, int | None, tuple[object, ...]] | None:
    m = _PARTIAL.match(text)
    if not m:
        return None
    nums = [None if g is None or g in "xX*" else int(g) for g in m.group(1, 2, 3)]
    # 1.x.3 is 1.x: a wildcard makes every later part a wildcard
    for i in range(3):
        if nums[i] is None:
            nums[i + 1 :] = [None] * (2 - i)
            break
    return nums[0], nums[1], nums[2], _pre_ids(m.group(4))


def _comparators(op: str, text: str) -> list[Comparator] | None:
    """One comparator token desugared into plain ``<, <=, >, >=, =`` comparators."""
    p = _partial(text) if text else (None, None, None, ())
    if p is None:
        return None
    M, m, pt, pre = p
    if op in ("", "="):
        if M is None:
            return _ANY
        if m is None:
            return [(">=", (M, 0, 0, ())), ("<", (M + 1, 0, 0, (0,)))]
        if pt is None:
            return [(">=", (M, m, 0, ())), ("<", (M, m + 1, 0, (0,)))]
        return [("=", (M, m, pt, pre))]
    if op in ("~", "~>"):
        if M is None:
            return _ANY
        if m is None:
            return [(">=", (M, 0, 0, ())), ("<", (M + 1, 0, 0, (0,)))]
        return [(">=", (M, m, pt or 0, pre)), ("<", (M, m + 1, 0, (0,)))]
    if op == "^":
        if M is None:
            return _ANY
        lo = (M, m or 0, pt or 0, pre)
        if M > 0 or m is None:
            hi = (M + 1, 0, 0, (0,))
        elif m > 0 or pt is None:
            hi = (0, m + 1, 0, (0,))
        else:
            hi = (0, 0, pt + 1, (0,))
        return [(">=", lo), ("<", hi)]
    # plain inequalities with partial versions
    if M is None:
        return _NONE if op in ("<", ">") else _ANY
    if op == ">":
        if m is None:
            return [(">=", (M + 1, 0, 0, ()))]
        if pt is None:
            return [(">=", (M, m + 1, 0, ()))]
        return [(">", (M, m, pt, pre))]
    if op == ">=":
        return [(">=", (M, m or 0, pt or 0, pre))]
    if op == "<":
        return [("<", (M, m or 0, pt or 0, pre if pt is not None else (0,)))]
    # <=
    if m is None:
        return [("<", (M + 1, 0, 0, (0,)))]
    if pt is None:
        return [("<", (M, m + 1, 0, (0,)))]
    return [("<=", (M, m, pt, pre))]


def _hyphen(lo: str, hi: str) -> list[Comparator] | None:
    a, b = _partial(lo), _partial(hi)
    if a is None or b is None:
        return None
    out: list[Comparator] = []
    if a[0] is not None:
        out.append((">=", (a[0], a[1] or 0, a[2] or 0, a[3])))
    if b[0] is not None:
        out += _comparators("<=", hi) or []
    return out


@lru_cache(maxsize=4096)
def parse_range(text: str) -> tuple[tuple[Comparator, ...], ...] | None:
    """The comparator sets of a range (any set may match), or None if it is not a semver range."""
    sets: list[tuple[Comparator, ...]] = []
    for part in text.split("||"):
        part = part.strip()
        hy = re.fullmatch(r"(\S+)\s+-\s+(\S+)", part)
        if hy:
            comps = _hyphen(hy.group(1), hy.group(2))
            if comps is None:
                return None
            sets.append(tuple(comps))
            continue
        # "> 1.2" and ">=1.2" are both one comparator: glue operators to their version
        tokens = re.sub(r"(<=|>=|<|>|=|\^|~>?)\s+", r"\1", part).split()
        comps = []
        for tok in tokens or [""]:
            m = _COMPARATOR.match(tok)
            got = _comparators(m.group(1) or "", m.group(2)) if m else None
            if got is None:
                return None
            comps.extend(got)
        sets.append(tuple(comps))
    return tuple(sets)


#: a range no version satisfies, prereleases included
UNSATISFIABLE = "<0.0.0-0"


def pnpm_range(text: str) -> str | None:
    """A dependency range as pnpm 12 reads it, or None when pnpm reads no range there.

    Measured with pnpm 12.4.2 (``linkWorkspacePackages`` and ``workspace:<range>`` alike):
    an empty ``||`` alternative is dropped rather than read as ``*`` (``1 ||`` does not
    link 2.0.0; ``||``, ``""`` and ``" "`` link nothing), an alternative that is no range
    is dropped (``1.0.0 || foo`` is ``1.0.0``), and an operator without a version (``^``,
    ``>=``, ``~>``) is no range at all. node-semver reads ``""`` and ``1 ||`` as ``*``,
    so ``parse_range`` (npm, Nx, turbo) keeps its rules. Spaces and tabs are blanks; any
    other white space (``^1.0.0\n``, a no-break space) makes the spec no range.
    """
    if re.search(r"[^\S \t]", text):
        return None
    kept = [alt.strip() for alt in text.split("||")]
    kept = [alt for alt in kept if re.sub(r"[<>=^~\s]", "", alt) and parse_range(alt) is not None]
    return " || ".join(kept) if kept else None


def _test(op: str, v: Version, bound: Version) -> bool:
    a, b = version_key(v), version_key(bound)
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "=": a == b}[op]


def satisfies(version: str, range_text: str) -> bool | None:
    """node-semver ``satisfies``; None when either side is not semver (callers decide what that means)."""
    v = parse_version(version)
    return None if v is None else satisfies_version(v, range_text)


def satisfies_version(v: Version, range_text: str) -> bool | None:
    """``satisfies`` for an already parsed version (pnpm parses manifest versions its own way)."""
    sets = parse_range(range_text)
    if sets is None:
        return None
    for comps in sets:
        if not all(_test(op, v, bound) for op, bound in comps):
            continue
        if v[3] and not any(b[3] and b[:3] == v[:3] for _, b in comps if b != (0, 0, 0, (0,))):
            continue  # a prerelease matches only a range that names a prerelease of its own x.y.z
        return True
    return False
