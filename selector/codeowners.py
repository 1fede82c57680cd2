"""CODEOWNERS: who owns a path, answered the way GitHub or GitLab answers it.

The two hosts read the same file name with different rules, and the difference
changes answers, so each syntax is parsed by its own rules rather than by one
"close enough" matcher:

- GitHub (docs: "About code owners"): one list of rules, the last matching line
  wins, gitignore-style patterns (``docs/*`` is one level, ``apps/`` matches at any
  depth, a leading ``/`` anchors), a pattern with no owners makes files unowned.
  ``!``, ``[ ]`` and ``\\#`` are not supported by GitHub, so such lines are skipped
  with a warning instead of being matched the gitignore way. Patterns compile
  as the ``codeowners`` package's gitignore translation reads them (``github_regex``),
  through ``globs.glob_regex``, whose regexes cannot backtrack for minutes.
- GitLab (docs: "Code Owners syntax"): ``[Section]`` groups evaluated separately
  (a file gets the owners of every section matching it), section default owners,
  ``!`` exclusions, and relative patterns that match at any depth. See
  ``codeowners_gitlab``.

Speed: rules are compiled once into regexes and indexed by a literal path
segment or file extension each must contain, so a path is tested against only
the handful of rules that could match it (100,000 paths x 1,000 rules in 1-2 s,
see docs/benchmarks.md) instead of against every rule.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Collection, Iterable, Pattern, Sequence

from .errors import Location, UserError
from .globs import GITHUB_CODEOWNERS, glob_regex
from .paths import inside_root

if TYPE_CHECKING:  # pragma: no cover
    from .graph import BuildGraph, Node

SYNTAXES = ("auto", "github", "gitlab")
GITHUB_LOCATIONS = (".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS")
GITLAB_LOCATIONS = ("CODEOWNERS", "docs/CODEOWNERS", ".gitlab/CODEOWNERS")
# auto: GitHub's order, then the one place only GitLab looks
AUTO_LOCATIONS = (*GITHUB_LOCATIONS, ".gitlab/CODEOWNERS")

# GitHub does not load a CODEOWNERS file over 3 MB (docs: "CODEOWNERS file size"): no
# path has owners then, and answering from the file would name reviewers GitHub never asks.
GITHUB_MAX_BYTES = 3 * 1024 * 1024
# GitHub accepts @user, @org/team and e-mail addresses as owners.
GITHUB_OWNER = re.compile(r"@[A-Za-z0-9_][A-Za-z0-9_.-]*(?:/[A-Za-z0-9_.-]+)?|[^@\s]+@[^@\s]+")
# A line that is a GitLab section header: [Name], ^[Name], [Name][2], [Name] @owner
SECTION_HEADER = re.compile(r"^\^?\[[^\]]+\](?:\[\d*\])?(?:\s|$)")

# Characters that make a pattern segment something other than a literal name.
_WILDCARDS = frozenset("*?[\\")


@dataclass(frozen=True)
class Rule:
    """One ownership line. ``section`` is the GitLab section (None for GitHub)."""

    pattern: str
    owners: tuple[str, ...]
    line: int
    section: str | None = None
    exclusion: bool = False


class LazyRegex:
    """A regex compiled on its first ``search``.

    Translating and compiling were most of parsing a large file (Python's ``re`` parser:
    ~0.3 ms a pattern, ~8 s for a 30,000-rule GitLab file on a loaded machine), while a
    question about a few paths tests only the few rules the index offers. Only for
    sources known to compile: GitLab's translation and ``github_regex`` escape everything
    (``github_regex`` compiled for each of 104,636 random patterns over ``ab/*?.\\[]{}!#-_ ()+^$|``
    that GitHub accepts; ``tests/test_probe21_lead_codeowners_lazy.py``).
    """

    __slots__ = ("text", "translate", "_compiled")

    def __init__(self, text: str, translate: Callable[[str], str] | None = None) -> None:
        """``text`` is the regex source, or what ``translate`` turns into one (also deferred)."""
        self.text = text
        self.translate = translate
        self._compiled: Pattern[str] | None = None

    def compiled(self) -> Pattern[str]:
        compiled = self._compiled
        if compiled is None:
            source = self.translate(self.text) if self.translate is not None else self.text
            compiled = self._compiled = re.compile(source)
        return compiled


@dataclass(frozen=True)
class CompiledRule:
    rule: Rule
    regex: LazyRegex
    key: tuple[str, str] | None  # ("seg", name) or ("ext", ".js"): a path must contain it


class RuleIndex:
    """Finds the rules whose regex matches a path, testing only plausible rules.

    Every path segment a pattern spells literally must appear as a whole segment
    of any path it matches (``*`` and ``?`` never cross ``/``, ``**`` spans whole
    segments), and ``*.ext`` only matches a segment ending in ``.ext``. So rules are
    bucketed by one such literal; a path gathers the buckets of its own segments
    and extensions plus the rules with no literal at all (``*``, ``/*``...).
    """

    def __init__(self, compiled: Sequence[CompiledRule]) -> None:
        self.compiled = list(compiled)
        #: each rule's compiled pattern once a path needed it: matching 100,000 paths calls
        #: ``search`` millions of times, and a LazyRegex in between costs a fifth more
        self._patterns: list[Pattern[str] | None] = [None] * len(self.compiled)
        self._by_seg: dict[str, list[int]] = {}
        self._by_ext: dict[str, list[int]] = {}
        self._always: list[int] = []
        for i, c in enumerate(self.compiled):
            if c.key is None:
                self._always.append(i)
            elif c.key[0] == "seg":
                self._by_seg.setdefault(c.key[1], []).append(i)
            else:
                self._by_ext.setdefault(c.key[1], []).append(i)

    def candidates(self, path: str) -> list[int]:
        """Indexes of the rules that might match ``path``, last rule first."""
        found: set[int] = set(self._always)
        by_seg, by_ext = self._by_seg, self._by_ext
        for seg in path.split("/"):
            hit = by_seg.get(seg)
            if hit:
                found.update(hit)
            dot = seg.rfind(".")
            if dot >= 0:
                hit = by_ext.get(seg[dot:])
                if hit:
                    found.update(hit)
        return sorted(found, reverse=True)

    def matches(self, path: str) -> Iterable[CompiledRule]:
        """The rules matching ``path``, from the last line of the file to the first."""
        compiled = self.compiled
        for i in self.candidates(path):
            if self.search(i, path):
                yield compiled[i]

    def search(self, i: int, path: str) -> bool:
        """Whether rule ``i`` matches ``path``."""
        pattern = self._patterns[i]
        if pattern is None:
            pattern = self._patterns[i] = self.compiled[i].regex.compiled()
        return pattern.search(path) is not None


def index_key(segments: Sequence[str]) -> tuple[str, str] | None:
    """The literal a pattern's matches must contain: its longest literal segment, else an extension."""
    literal = [s for s in segments if s and not (_WILDCARDS & set(s))]
    if literal:
        return ("seg", max(literal, key=len))
    for seg in reversed(segments):
        star = seg.rfind("*")
        if star < 0:
            continue
        tail = seg[star + 1:]
        if tail and "." in tail and not (_WILDCARDS & set(tail)):
            return ("ext", tail[tail.rfind("."):])
    return None


def pattern_key(pattern: str) -> tuple[str, str] | None:
    """``index_key`` of a pattern; escapes make a segment's literal text uncertain, so no key."""
    if "\\" in pattern:
        return None
    return index_key([s for s in pattern.strip("/").split("/") if s not in ("", "**")])


def content_lines(text: str) -> Iterable[tuple[int, str]]:
    """(line number, stripped line) of the lines that are neither blank nor ``#`` comments."""
    for line_no, raw in enumerate(text.lstrip("\ufeff").splitlines(), start=1):  # editors on Windows add a BOM
        line = raw.strip()
        if line and not line.startswith("#"):
            yield line_no, line


@dataclass
class CodeOwners:
    """A parsed, compiled CODEOWNERS file. ``root`` is the directory its paths are relative to."""

    rules: list[Rule]
    syntax: str
    source: str = "CODEOWNERS"
    root: Path | None = None
    warnings: list[str] = field(default_factory=list)
    index: RuleIndex | None = field(default=None, repr=False)
    _section_order: dict[str | None, int] | None = field(default=None, repr=False)

    # ------------------------------------------------------------ questions
    def deciding_rules(self, path: str) -> list[Rule]:
        """The rule that decides ``path`` in each section (one rule for GitHub)."""
        path = normalize_path(path)
        assert self.index is not None
        if self.syntax == "github":
            for c in self.index.matches(path):
                return [c.rule]
            return []
        # GitLab: per section, the last match unless any match is an exclusion.
        decided: dict[str | None, Rule] = {}
        excluded: set[str | None] = set()
        compiled = self.index.compiled
        for i in self.index.candidates(path):
            c = compiled[i]
            section = c.rule.section
            if section in excluded or (section in decided and not c.rule.exclusion):
                continue  # only an exclusion can still change this section's answer
            if not self.index.search(i, path):
                continue
            if c.rule.exclusion:
                excluded.add(section)
            decided.setdefault(section, c.rule)
        if self._section_order is None:
            self._section_order = {name: i for i, name in enumerate(dict.fromkeys(r.section for r in self.rules))}
        order = self._section_order
        return sorted((r for s, r in decided.items() if s not in excluded), key=lambda r: order[r.section])

    def owners_of(self, path: str) -> list[str]:
        """Owners of one repo-relative path, in file order ([] when unowned)."""
        out: list[str] = []
        for rule in self.deciding_rules(path):
            out.extend(rule.owners)
        return list(dict.fromkeys(out))

    def owned_by(self, path: str, wanted: set[str]) -> bool:
        """Whether an owner in ``wanted`` (spelled by ``canonical_owner``) owns ``path``."""
        return any(canonical_owner(o) in wanted for o in self.owners_of(path))

    def known_owners(self) -> set[str]:
        """Every owner the file names (canonical spelling)."""
        return {canonical_owner(o) for r in self.rules for o in r.owners}


def normalize_path(path: str) -> str:
    """A query path in the form rules are matched against: repo-relative, POSIX, no leading ``/``.

    The ``codeowners`` package anchors with ``\\A`` and so never matches ``/docs/x``
    against ``/docs/``; hosts always query without the slash (sbdchd/codeowners#40).
    """
    path = path.replace("\\", "/") if os.sep == "\\" else path
    while path.startswith("./"):
        path = path[2:]
    return path.lstrip("/")


def canonical_owner(owner: str) -> str:
    """How owners compare: case-insensitive (GitHub and GitLab names are), ``team`` == ``@team``."""
    owner = owner.strip().lower()
    if owner and "@" not in owner:
        owner = "@" + owner
    return owner


# ---------------------------------------------------------------- GitHub syntax
def _split_line(line: str) -> list[str]:
    """Whitespace-separated fields; ``\\ `` keeps a space inside a pattern."""
    return [f.replace("\0", "\\ ") for f in line.replace("\\ ", "\0").split()]


def parse_github(text: str, source: str = "CODEOWNERS") -> CodeOwners:
    """Parse GitHub syntax: one rule list, invalid lines skipped with a warning (as GitHub does)."""
    rules: list[Rule] = []
    compiled: list[CompiledRule] = []
    warnings: list[str] = []

    def bad(line_no: int, why: str) -> None:
        warnings.append(f"{Location(source, line_no)}: {why}; line ignored")

    for line_no, line in content_lines(text):
        fields = _split_line(line)
        pattern, rest = fields[0], fields[1:]
        # An owner field starting with '#' begins an inline comment (GitHub's example:
        # "*.js    @js-owner #This is an inline comment.").
        for i, f in enumerate(rest):
            if f.startswith("#"):
                rest = rest[:i]
                break
        problem = _github_pattern_problem(pattern)
        if problem:
            bad(line_no, problem)
            continue
        invalid = [o for o in rest if not GITHUB_OWNER.fullmatch(o)]
        if invalid:
            bad(line_no, f"{invalid[0]!r} is not an owner (@user, @org/team or an e-mail address)")
            continue
        rule = Rule(pattern, tuple(dict.fromkeys(rest)), line_no)
        rules.append(rule)
        compiled.append(CompiledRule(rule, LazyRegex(pattern, github_regex), pattern_key(pattern)))
    return CodeOwners(rules, "github", source, warnings=warnings, index=RuleIndex(compiled))


def github_regex(pattern: str) -> str:
    """A GitHub pattern as regex source, with the anchoring of the ``codeowners`` package's
    ``path_to_regex`` (a port of hmarr/codeowners, the reference the tests hold this to):
    a ``/`` before the end anchors at the root, else the pattern matches after any ``/``; a
    trailing ``/`` matches a directory, a trailing ``/*`` its files only, anything else the
    path or what is below it. The body goes through ``glob_regex``: the package's own regex
    for ``**/a/**/a/**/c`` or ``**/**/**/b`` backtracks for minutes on a deep path (measured:
    345 s for 30 ``**`` segments on a 10-directory path).
    """
    slash = pattern.find("/")
    anchored = slash > -1 and slash != len(pattern) - 1
    if pattern.endswith("/"):
        end = "/"
    elif pattern.endswith("/*"):
        end = r"\Z"
    else:
        end = r"(?:\Z|/)"
    return (r"\A" if anchored else r"(?:\A|/)") + glob_regex(pattern.strip("/"), dialect=GITHUB_CODEOWNERS) + end


def _github_pattern_problem(pattern: str) -> str | None:
    """Why GitHub rejects a pattern (its documented gitignore exceptions), or None."""
    if pattern.startswith("!"):
        return "GitHub does not support '!' negation (GitLab exclusion? use --codeowners-syntax gitlab)"
    if pattern.startswith("\\#"):
        return "GitHub does not support escaping '#' with '\\'"
    unescaped = re.sub(r"\\.", "", pattern)
    if "[" in unescaped or "]" in unescaped:
        return "GitHub does not support '[ ]' character ranges (escape a literal bracket as \\[ \\])"
    if pattern.endswith("\\"):
        return "pattern ends with a lone '\\'"
    return None


# ---------------------------------------------------------------- files and syntax
def parse(text: str, syntax: str = "auto", source: str = "CODEOWNERS") -> CodeOwners:
    """Parse CODEOWNERS text in ``syntax`` (``auto`` looks for GitLab section headers)."""
    if syntax not in SYNTAXES:
        raise UserError(f"unknown --codeowners-syntax {syntax!r} (choose {', '.join(SYNTAXES)})")
    if syntax == "auto":
        syntax = detect_syntax(text, source)
    if syntax == "gitlab":
        from .codeowners_gitlab import parse_gitlab

        return parse_gitlab(text, source)
    return parse_github(text, source)


def detect_syntax(text: str, path: str = "CODEOWNERS") -> str:
    """GitLab when the file lives in ``.gitlab/`` or has ``[Section]`` headers, else GitHub."""
    if Path(path).parent.name == ".gitlab":
        return "gitlab"
    for raw in text.splitlines():
        if SECTION_HEADER.match(raw.strip()):
            return "gitlab"
    return "github"


def locate(root: Path, syntax: str = "auto") -> Path | None:
    """The CODEOWNERS file the host would read in ``root`` (first found wins), or None."""
    places = {"github": GITHUB_LOCATIONS, "gitlab": GITLAB_LOCATIONS}.get(syntax, AUTO_LOCATIONS)
    for rel in places:
        candidate = root / rel
        # a symlink out of the repository is not the repository's CODEOWNERS (and reading
        # it would echo an outside file in warnings): the host would not follow it either
        if candidate.is_file() and inside_root(root, rel) is not None:
            return candidate
    return None


def load(roots: Sequence[Path], path: str | os.PathLike[str] | None = None, syntax: str = "auto") -> CodeOwners:
    """Find (or open ``path``), parse and compile the CODEOWNERS of the first root that has one.

    ``roots`` are tried in order (workspace root, then the git top level): CODEOWNERS
    patterns are relative to the directory holding ``.github``/``docs``/``.gitlab``.
    With an explicit ``path`` its paths are relative to the first root.
    """
    if syntax not in SYNTAXES:
        raise UserError(f"unknown --codeowners-syntax {syntax!r} (choose {', '.join(SYNTAXES)})")
    if path is not None:
        file = Path(path)
        if not file.is_file():
            raise UserError(f"no such CODEOWNERS file: {file}")
        root = roots[0]
        # A file in <root>/.github, docs or .gitlab still describes <root>.
        for r in roots:
            try:
                file.resolve().relative_to(r.resolve())
                root = r
                break
            except ValueError:
                continue
    else:
        found = None
        for r in roots:
            found = locate(r, syntax)
            if found:
                root = r
                break
        if found is None:
            where = " or ".join(str(r) for r in dict.fromkeys(roots))
            places = {"github": GITHUB_LOCATIONS, "gitlab": GITLAB_LOCATIONS}.get(syntax, AUTO_LOCATIONS)
            raise UserError(f"no CODEOWNERS file in {where}", hint=f"looked for {', '.join(places)}; pass --codeowners PATH")
        file = found
    try:
        text = file.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise UserError(f"cannot read CODEOWNERS: {exc.strerror}", Location(str(file))) from None
    shown = _display(file, root)
    if syntax == "auto":
        syntax = detect_syntax(text, str(file))
    size = len(text.encode("utf-8"))
    if syntax == "github" and size > GITHUB_MAX_BYTES:
        owners = parse("", syntax, shown)
        owners.warnings.append(f"{shown}: {size} bytes is over GitHub's 3 MB limit; GitHub does not load "
                               "the file, so no path has code owners")
    else:
        owners = parse(text, syntax, shown)
    owners.root = root
    return owners


def _display(file: Path, root: Path) -> str:
    try:
        return file.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(file)


# ---------------------------------------------------------------- nodes
MANIFESTS = ("BUILD.bazel", "BUILD", "package.json", "project.json")


def node_files(node: "Node", root: Path | None = None) -> list[str]:
    """The files whose owners own a node: its srcs, else its package's manifest.

    A node without srcs (a pnpm package whose files the adapter does not list, a
    Bazel ``test_suite``) is owned through the BUILD/package.json file that declares
    it; when none exists on disk, the package directory's ``BUILD`` path stands in.
    """
    if node.srcs:
        return list(node.srcs)
    prefix = f"{node.package}/" if node.package else ""
    if root is not None:
        for name in MANIFESTS:
            if (root / prefix / name).is_file():
                return [prefix + name]
    return [prefix + "BUILD"]


def owned_nodes(
    graph: "BuildGraph",
    ids: Sequence[str],
    owners: Sequence[str],
    rules: CodeOwners,
    prefix: str = "",
) -> tuple[list[str], list[str]]:
    """Split ``ids`` into (kept, dropped): a node is kept when any given owner owns any of its files.

    ``prefix`` is the workspace directory relative to the CODEOWNERS root ("" when the
    same), prepended to the graph's workspace-relative paths.
    """
    wanted = {canonical_owner(o) for o in owners}
    root = Path(graph.root) if graph.root else None
    kept: list[str] = []
    dropped: list[str] = []
    for node_id in ids:
        node = graph.node(node_id)
        owned = not node.external and any(rules.owned_by(prefix + f, wanted) for f in node_files(node, root))
        (kept if owned else dropped).append(node_id)
    return kept, dropped


def owned_paths(rules: CodeOwners, paths: Sequence[str], owners: Sequence[str], prefix: str = "") -> tuple[list[str], list[str]]:
    """Split files into (kept, dropped) by whether any given owner owns them (``select --owner``)."""
    wanted = {canonical_owner(o) for o in owners}
    kept: list[str] = []
    dropped: list[str] = []
    for p in paths:
        (kept if rules.owned_by(prefix + p, wanted) else dropped).append(p)
    return kept, dropped


def unknown_owners(rules: CodeOwners, owners: Sequence[str]) -> list[str]:
    """The requested owners that no CODEOWNERS line names (most likely typos)."""
    known = rules.known_owners()
    return [o for o in owners if canonical_owner(o) not in known]


# ---------------------------------------------------------------- listing files
SKIP_DIRS = frozenset({".git", "node_modules", ".ctxsel", "bazel-out"})


def repo_files(root: Path, under: str = "") -> list[str]:
    """Files below ``root/under``, root-relative POSIX: ``git ls-files`` in a git repo, else a walk."""
    under = normalize_path(under).rstrip("/")
    base = root / under if under else root
    if not base.exists():
        raise UserError(f"no such directory: {base}")
    tracked = _git_files(root, under)
    if tracked is not None:
        return tracked
    out: list[str] = []
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("bazel-"))
        rel_dir = Path(dirpath).relative_to(root).as_posix()
        for name in sorted(filenames):
            out.append(name if rel_dir == "." else f"{rel_dir}/{name}")
    return sorted(out)


def _git_files(root: Path, under: str) -> list[str] | None:
    """``git ls-files`` below ``root/under`` (tracked and untracked, not ignored); None outside git.

    Asked whenever ``root`` is in a work tree, not only when it holds ``.git``: the
    CODEOWNERS root can be a build workspace in a subdirectory, and a walk there lists
    ignored build output as "unowned". A conflicted file is listed once per index
    stage by git, hence the set; pathspecs are literal so ``[`` in a name is a name.
    """
    from .changes import Git
    from .errors import GitError

    try:
        proc = Git(root).run("--literal-pathspecs", "ls-files", "-z", "--cached", "--others", "--exclude-standard",
                             "--", under or ".", check=False)
    except GitError:
        return None
    if proc.returncode != 0:
        return None
    return sorted({p for p in proc.stdout.decode("utf-8", "replace").split("\0") if p})


def git_toplevel(start: Path) -> Path | None:
    """The git work tree containing ``start``, or None (no git, not a repo).

    A malformed ``CTXSEL_GIT_TIMEOUT`` is still an error: answering as if there were
    no git would silently pick another CODEOWNERS root.
    """
    from .changes import Git, git_timeout
    from .errors import GitError

    timeout = git_timeout()
    try:
        proc = Git(start, timeout).run("rev-parse", "--show-toplevel", check=False)
    except GitError:
        return None
    if proc.returncode != 0:
        return None
    top = proc.stdout.decode("utf-8", "replace").strip()
    return Path(top) if top else None


# ---------------------------------------------------------------- answers
@dataclass
class OwnersReport:
    """Owners of some paths (keys relative to the CODEOWNERS root) and optionally the unowned files."""

    codeowners: str
    syntax: str
    owners: dict[str, list[str]]
    rules: dict[str, list[Rule]]
    unowned: list[str] | None = None
    warnings: list[str] = field(default_factory=list)

    def as_json(self) -> dict:
        """The ``ctxsel owners --format json`` body; CLI, MCP and API share it."""
        body: dict = {"codeowners": self.codeowners, "syntax": self.syntax, "owners": self.owners}
        body["rules"] = {
            p: [{"line": r.line, "pattern": r.pattern, "section": r.section} for r in rules]
            for p, rules in self.rules.items()
        }
        if self.unowned is not None:
            body["unowned"] = self.unowned
        return body


def owners_report(rules: CodeOwners, paths: Sequence[str], unowned_under: str | None = None,
                  directories: Collection[str] = ()) -> OwnersReport:
    """Owners of each repo-relative path, and the unowned files below ``unowned_under`` when given.

    A path in ``directories`` is matched as ``path/``, as a directory: the ``codeowners``
    package answers ``of("core/")`` for ``/core/ @x``, where ``core`` would be a file."""
    owners: dict[str, list[str]] = {}
    deciding: dict[str, list[Rule]] = {}
    for p in paths:
        key = normalize_path(p)
        asked = key + "/" if p in directories and not key.endswith("/") else key
        deciding[key] = rules.deciding_rules(asked)
        owners[key] = rules.owners_of(asked)
    unowned = None
    if unowned_under is not None:
        assert rules.root is not None
        unowned = [f for f in repo_files(rules.root, unowned_under) if not rules.owners_of(f)]
    return OwnersReport(rules.source, rules.syntax, owners, deciding, unowned, list(rules.warnings))


def load_for(start: Path, path: str | os.PathLike[str] | None = None, syntax: str = "auto") -> CodeOwners:
    """The CODEOWNERS for a workspace at ``start``: looked up there, then at the git top level."""
    roots = [start]
    top = git_toplevel(start)
    if top is not None and top.resolve() != start.resolve():
        roots.append(top)
    return load(roots, path, syntax)


def workspace_prefix(workspace_root: Path, rules: CodeOwners) -> str:
    """The workspace directory relative to the CODEOWNERS root, with a trailing ``/`` ("" when equal)."""
    if rules.root is None:
        return ""
    try:
        rel = workspace_root.resolve().relative_to(rules.root.resolve()).as_posix()
    except ValueError:
        return ""
    return "" if rel == "." else rel + "/"
