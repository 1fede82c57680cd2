"""Does a workspace package's version satisfy a dependency's range? node-semver's rules.

pnpm (``workspace:^1.2.0``, ``link-workspace-packages``), npm, yarn and Turborepo decide
whether a dependency on a workspace package's name is a link to that package by testing
its ``version`` against the range with node-semver. A Python semver library would add a
dependency for ~100 lines, and the others (PEP 440, semantic_version's default) disagree
with node-semver on ``^0.x``, partial versions and prereleases, which is exactly what
decides an edge here. Implemented: ``||``, hyphen ranges, ``^ ~ < <= > >= =``, ``x``/``*``
partials and the prerelease rule (``1.1.0-beta`` satisfies only ranges that name a
prerelease of 1.1.0); ``includePrerelease`` and loose-mode oddities are not.

pnpm 12 is the exception: a native binary with its own range grammar (``pnpm_range``),
under which ``1 2`` is a union and unreadable tokens are skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
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
    if not text and op:  # a bare ``^``, ``>=`` or ``~`` is no range (node-semver 7.8.5, strict and loose)
        return None
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


# ---------------------------------------------------------------------- pnpm 12's ranges
#: pnpm 12 is a Rust binary; it reads ranges with its fork of the ``node-semver`` crate
#: (node-semver-rs 2.2.0, nom parser), whose rules differ from node-semver's. What follows
#: transcribes that crate's ``range.rs``; measured against pnpm 12.4.2 where the fork differs.
_BLANK = " \t"  # nom's space0/space1
_MAX_SAFE_INTEGER = 2**53 - 1
#: a bound: (side, kind, version); side "L"/"U", kind "I" (including), "E" (excluding), "*" (unbounded)
Bound = tuple[str, str, "Version | None"]
#: a version as a range writes it: major, minor, patch (None for ``x``/``*``/absent) and prerelease
Partial = tuple["int | None", "int | None", "int | None", tuple[object, ...]]


class PnpmPanic(ValueError):
    """A range pnpm 12's parser reaches an ``unreachable!()`` on (``~*``, ``=*``): pnpm crashes."""


def _bound_key(bound: Bound) -> tuple:
    """Where a bound lies on the version line: ``>=v`` and ``<v`` just before v, ``>v`` and
    ``<=v`` just after it. The crate's ``Ord for Bound`` puts ``<=v`` before ``<v``, so it
    intersects ``2.0.0 <2`` to ``2.0.0``; pnpm 12 reads that as ``2.0.0 || <2`` (measured),
    which is this order's answer."""
    side, kind, version = bound
    if kind == "*":
        return (0,) if side == "L" else (2,)
    after = (side, kind) in (("L", "E"), ("U", "I"))
    return (1, version_key(version), after)  # type: ignore[arg-type]


BoundSet = tuple[Bound, Bound]


def _bound_set(lower: Bound, upper: Bound) -> BoundSet | None:
    """``BoundSet::new``: None when no version lies between the bounds."""
    return (lower, upper) if _bound_key(lower) < _bound_key(upper) else None


def _at_least(kind: str, v: Version) -> BoundSet | None:
    return _bound_set(("L", kind, v), ("U", "*", None))


def _at_most(kind: str, v: Version) -> BoundSet | None:
    return _bound_set(("L", "*", None), ("U", kind, v))


def _between(lo: Version, hi: Version, hi_kind: str = "E") -> BoundSet | None:
    return _bound_set(("L", "I", lo), ("U", hi_kind, hi))


def _intersect(a: BoundSet, b: BoundSet) -> BoundSet | None:
    return _bound_set(max(a[0], b[0], key=_bound_key), min(a[1], b[1], key=_bound_key))


def _bound_set_satisfies(bs: BoundSet, v: Version) -> bool:
    (_, lk, lo), (_, uk, hi) = bs
    key = version_key(v)
    if lk == "I" and not version_key(lo) <= key or lk == "E" and not version_key(lo) < key:  # type: ignore[arg-type]
        return False
    if uk == "I" and not key <= version_key(hi) or uk == "E" and not key < version_key(hi):  # type: ignore[arg-type]
        return False
    if not v[3]:
        return True
    return any(b is not None and b[3] and b[:3] == v[:3] for b in (lo, hi))


def _v(major: int, minor: int, patch: int, pre: tuple[object, ...] = ()) -> Version:
    return (major, minor, patch, pre)


_ZERO_PRE = (0,)  # the crate's ``(M, m, p, 0).into()``: a ``-0`` prerelease


class _Parser:
    """The crate's nom grammar over one string; each method returns the new position or None."""

    def __init__(self, text: str) -> None:
        self.s = text
        #: a comparator read so far wrote a prerelease with its ``-`` (``1.0.0-rc``, not ``1.0.0rc``)
        self.dashed_prerelease = False
        self._dashed_here = False  # ... the comparator being tried did

    # nom's combinators over ``self.s``: each takes a position and returns the next one

    def blanks(self, i: int) -> int:
        while i < len(self.s) and self.s[i] in _BLANK:
            i += 1
        return i

    def at_end_of_simple(self, i: int) -> bool:
        """``peek(alt((space1, tag("||"), eof)))``"""
        return i == len(self.s) or self.s[i] in _BLANK or self.s.startswith("||", i)

    def component(self, i: int) -> tuple[int | None, int] | None:
        if i < len(self.s) and self.s[i] in "xX*":
            return None, i + 1
        j = i
        while j < len(self.s) and self.s[j] in "0123456789":
            j += 1
        if j == i or int(self.s[i:j]) > _MAX_SAFE_INTEGER:
            return None
        return int(self.s[i:j]), j

    def identifiers(self, i: int) -> tuple[tuple[object, ...], int] | None:
        """``separated_list1(tag("."), identifier)``"""
        ids: list[object] = []
        i_before = i
        while True:
            j = i
            while j < len(self.s) and (self.s[j].isascii() and self.s[j].isalnum() or self.s[j] == "-"):
                j += 1
            if j == i:
                return (tuple(ids), i_before) if ids else None
            text = self.s[i:j]
            ids.append(int(text) if text.isdigit() and int(text) < 2**64 else text)
            if not self.s.startswith(".", j):
                return tuple(ids), j
            i_before, i = j, j + 1

    def extras(self, i: int) -> tuple[tuple[object, ...], int]:
        """Prerelease (``-`` optional) and build; only the prerelease matters for ranges."""
        pre: tuple[object, ...] = ()
        dashed = self.s.startswith("-", i)
        got = self.identifiers(i + 1 if dashed else i)
        if got is not None:
            pre, i = got
            self._dashed_here |= dashed
        if self.s.startswith("+", i):
            build = self.identifiers(i + 1)
            if build is not None:
                i = build[1]
        return pre, i

    def partial(self, i: int) -> tuple[Partial, int] | None:
        if self.s.startswith("v", i):
            i += 1
        i = self.blanks(i)
        got = self.component(i)
        if got is None:
            return None
        major, i = got
        parts: list[int | None] = []
        patch_present = False
        for _ in range(2):
            nxt = self.component(i + 1) if self.s.startswith(".", i) else None
            if nxt is None:
                break
            parts.append(nxt[0])
            i = nxt[1]
            patch_present = len(parts) == 2
        minor = parts[0] if parts else None
        patch = parts[1] if len(parts) > 1 else None
        pre: tuple[object, ...] = ()
        if patch_present:
            pre, i = self.extras(i)
        return (major, minor, patch, pre), i

    # each alternative of ``simple``: (bound set or None, new position), or None if it does not parse
    def hyphen(self, i: int) -> tuple[BoundSet | None, int] | None:
        lower = self.partial(i)
        if lower is not None:
            i = lower[1]
        j = self.blanks(i)
        if j == i or not self.s.startswith("-", j):
            return None
        k = self.blanks(j + 1)
        if k == j + 1:
            return None
        upper = self.partial(k)
        if upper is None:
            return None
        (M, m, p, pre), end = upper
        if M is None and m is None and p is None:
            hi: Bound = ("U", "E", _v(0, 0, 0, _ZERO_PRE))
        elif M is not None and m is None and p is None:
            hi = ("U", "E", _v(M + 1, 0, 0, _ZERO_PRE))
        elif M is not None and m is not None and p is None:
            hi = ("U", "E", _v(M, m + 1, 0, _ZERO_PRE))
        else:
            hi = ("U", "I", _v(M or 0, m or 0, p or 0, pre))
        if lower is None:
            return _bound_set(("L", "*", None), hi), end
        lM, lm, lp, lpre = lower[0]
        return _bound_set(("L", "I", _v(lM or 0, lm or 0, lp or 0, lpre)), hi), end

    def primitive(self, i: int) -> tuple[BoundSet | None, int] | None:
        op = next((o for o in (">=", ">", "=", "<=", "<") if self.s.startswith(o, i)), None)
        if op is None:
            return None
        got = self.partial(self.blanks(i + len(op)))
        if got is None:
            return None
        (M, m, p, pre), end = got
        flat = _v(M or 0, m or 0, p or 0, pre)
        if op == ">=":
            return _at_least("I", flat), end
        if op == ">":
            if M is not None and m is not None and p is None:
                return _at_least("I", _v(M, m + 1, 0)), end
            if M is not None and m is None and p is None:
                return _at_least("I", _v(M + 1, 0, 0)), end
            return _at_least("E", flat), end
        if op == "<":
            if M is not None and m is not None and p is None:
                return _at_most("E", _v(M, m, 0, _ZERO_PRE)), end
            return _at_most("E", flat), end
        if op == "<=":  # pnpm's fork (measured): ``<=1`` is ``<2.0.0-0`` and ``<=x`` any version, where
            if M is None:  # the crate reads ``<=1.0.0-0`` and ``<=0.0.0-0``
                return _at_least("I", _v(0, 0, 0)), end
            if m is None and p is None:
                return _at_most("E", _v(M + 1, 0, 0, _ZERO_PRE)), end
            if m is not None and p is None:
                return _at_most("E", _v(M, m + 1, 0, _ZERO_PRE)), end
            return _at_most("I", flat), end
        if M is None:
            raise PnpmPanic(self.s)
        if m is not None and p is not None:
            return _between(flat, flat, "I"), end
        if m is not None:
            return _between(_v(M, m, 0), _v(M, m + 1, 0, _ZERO_PRE)), end
        return _between(_v(M, 0, 0), _v(M + 1, 0, 0, _ZERO_PRE)), end

    def plain(self, i: int) -> tuple[BoundSet | None, int] | None:
        got = self.partial(i)
        if got is None:
            return None
        (M, m, p, pre), end = got
        if M is None:
            return _at_least("I", _v(0, 0, 0)), end
        if m is None:
            return _between(_v(M, 0, 0), _v(M + 1, 0, 0, _ZERO_PRE)), end
        if p is None:
            return _between(_v(M, m, 0), _v(M, m + 1, 0, _ZERO_PRE)), end
        return _between(_v(M, m, p, pre), _v(M, m, p, pre), "I"), end

    def tilde(self, i: int) -> tuple[BoundSet | None, int] | None:
        if not self.s.startswith("~", i):
            return None
        i = self.blanks(i + 1)
        gt = self.s.startswith(">", i)
        got = self.partial(self.blanks(i + 1 if gt else i))
        if got is None:
            return None
        (M, m, p, pre), end = got
        if M is None or (m is None and p is not None):
            raise PnpmPanic(self.s)
        if m is None:
            return _between(_v(M, 0, 0), _v(M + 1, 0, 0, _ZERO_PRE)), end
        lower = _v(M, m, p or 0, pre) if gt or p is not None else _v(M, m, 0)  # ``~1.2`` drops a prerelease, ``~>1.2`` keeps it
        return _between(lower, _v(M, m + 1, 0, _ZERO_PRE)), end

    def caret(self, i: int) -> tuple[BoundSet | None, int] | None:
        if not self.s.startswith("^", i):
            return None
        got = self.partial(self.blanks(i + 1))
        if got is None:
            return None
        (M, m, p, pre), end = got
        if M == 0 and m is None and p is None:
            return _at_most("E", _v(1, 0, 0, _ZERO_PRE)), end
        if M == 0 and m is not None and p is None:
            return _between(_v(0, m, 0), _v(0, m + 1, 0, _ZERO_PRE)), end
        if M is not None and p is None:
            return _between(_v(M, m or 0, 0), _v(M + 1, 0, 0, _ZERO_PRE)), end
        if M is not None and m is not None:
            hi = _v(0, 0, p + 1) if M == m == 0 else _v(0, m + 1, 0) if M == 0 else _v(M + 1, 0, 0)  # type: ignore[operator]
            return _between(_v(M, m, p, pre), hi[:3] + (_ZERO_PRE,)), end  # type: ignore[arg-type,misc]
        return None, end

    def simple(self, i: int) -> tuple[BoundSet | None, int]:
        for alternative in (self.hyphen, self.primitive, self.plain, self.tilde, self.caret):
            self._dashed_here = False
            got = alternative(i)
            if got is not None and self.at_end_of_simple(got[1]):
                self.dashed_prerelease |= self._dashed_here
                return got
        while not self.at_end_of_simple(i):  # garbage: skipped
            i += 1
        return None, i

    def comparators(self, i: int) -> tuple[list[BoundSet], int]:
        """``range``: blank-separated comparators, each intersected with the set before it --
        or, when that leaves nothing, kept as a set of its own (a union)."""
        acc: list[BoundSet] = []
        while True:
            bs, i = self.simple(i)
            if bs is not None:
                both = _intersect(acc[-1], bs) if acc else None
                if both is not None:
                    acc[-1] = both
                else:
                    acc.append(bs)
            j = self.blanks(i)
            if j == i:
                return acc, i
            i = j

    def range_set(self) -> list[BoundSet] | None:
        """``range_set``: ``||``-separated ranges; None when none holds a bound set."""
        sets, i = self.comparators(0)
        while True:
            j = self.blanks(i)
            if not self.s.startswith("||", j):
                break
            more, i = self.comparators(self.blanks(j + 2))
            sets += more
        return sets if i == len(self.s) and sets else None


@dataclass(frozen=True)
class PnpmRange:
    """A dependency range as pnpm 12 reads it: a union of (lower, upper) bound sets."""

    text: str
    sets: tuple[BoundSet, ...]
    #: whether a prerelease version may satisfy it at all: pnpm 12 (measured) links
    #: ``1.1.0-beta.5`` for ``1.1.0beta.5 || 2.0.0-alpha`` but not for ``1.1.0beta.5``,
    #: nor for ``>=1.1.0beta`` -- only a range holding a prerelease written with its ``-``
    prerelease_ok: bool = True

    def satisfies(self, v: Version) -> bool:
        if v[3] and not self.prerelease_ok:
            return False
        return any(_bound_set_satisfies(bs, v) for bs in self.sets)


def pnpm_range(text: str) -> PnpmRange | None:
    """A dependency range as pnpm 12 reads it, or None when pnpm reads no range there.

    pnpm 12 (a Rust binary) parses ranges with its fork of the ``node-semver`` crate, and
    that grammar (``_Parser``) differs from node-semver's (measured with pnpm 12.4.2):

    - blank-separated comparators are intersected one by one with the set before them, and
      one that would leave nothing starts a new set instead: ``1 2`` is ``1.x || 2.x``,
      ``<1 >=2`` is ``<1 || >=2``, ``^1 - 2`` is ``^1 || 2.x``;
    - a token no rule reads is skipped (``1.0.0 foo`` is ``1.0.0``, ``1.0.0 ^2\n`` is
      ``1.0.0``, ``1.0.0 - 2.0.0 - 3.0.0`` is ``1.0.0 - 2.0.0 || 3.0.0``), and so is an empty
      ``||`` alternative (``1 ||`` is ``1``); with nothing left there is no range (``||``,
      ``^``, ``>=``, ``foo``, ``^1.0.0\n``);
    - only spaces and tabs are blanks, a ``v`` only lowercase (``V1`` is no range), and
      ``^*`` reads as nothing; ``~*``, ``=*`` and ``~1.x.3`` make pnpm panic (``PnpmPanic``).

    node-semver (npm, Nx, turbo) keeps ``parse_range``.
    """
    parser = _Parser(text)
    sets = parser.range_set()
    return PnpmRange(text, tuple(sets), parser.dashed_prerelease) if sets else None




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
