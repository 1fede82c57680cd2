"""``select``: the few thousand tokens of a repository that matter for a change.

The pipeline, each step in its own module:

1. **index** (``index.py``): refresh the chunk index for files that changed on disk;
2. **changed nodes**: targets, seed files and git change selectors, mapped to build
   graph nodes (``Workspace``);
3. **scope** (``--scope``): ``repo`` = every indexed file; ``graph`` = the files of the
   changed nodes, their reverse dependencies (blast radius), their forward
   dependencies and their packages; ``blast-radius`` = the same without forward
   dependencies. The graph also feeds ranking signals, whatever the scope;
4. **rank** (``ranking.py``): weighted RRF of lexical, dense, graph and history signals;
5. **pack** (``packing.py``): greedy into the budget, never over it; secrets redacted.

Without a build workspace, ``select`` still works with ``repo`` semantics (and says so).
"""

from __future__ import annotations

import operator
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from .chunking import ChunkSettings
from .errors import UserError
from .files import FileSettings, inside_root, path_skip_reason, read_source
from .index import ChunkIndex, update_index
from .packing import Candidate, Packed, pack_chunks
from .ranking import Fusion, RankingConfig, rank_files
from .tokenize import identifiers, path_tokens, search_tokens

SCOPES = ("graph", "blast-radius", "repo")
DEFAULT_SCOPE = "repo"  # graph signals rank inside the whole repo; see docs/select.md
NON_CODE = frozenset({"", "markdown", "json", "yaml", "toml"})
_TEST_MARKERS = (".test.", ".spec.", "_test.", "/test/", "/tests/", "/__tests__/", "/testing/", "test_")


@dataclass
class SelectRequest:
    query: str = ""
    targets: Sequence[str] = ()
    seeds: Sequence[str] = ()
    since: str | None = None
    base: str | None = None
    head: str | None = None
    staged: bool = False
    files: Sequence[str] = ()
    owners: Sequence[str] = ()
    budget: int = 8000
    scope: str | None = None  # None: [select] scope from the repo config, else DEFAULT_SCOPE
    dense: bool | None = None  # None = off: the dense leg must earn its cost (docs/select.md)
    weights: str | None = None  # JSON object of RankingConfig overrides
    include_seed: bool = False


@dataclass
class Selection:
    packed: Packed
    scope_mode: str
    scope_paths: list[str]
    query: str
    seeds: list[str]
    changed_nodes: list[str]
    warnings: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    index_stats: Any = None

    def as_json(self, explain_scope: bool = False) -> dict[str, Any]:
        p = self.packed
        body: dict[str, Any] = {
            "budget": p.budget,
            "tokens": p.tokens,
            "chunks": [
                {"path": b.path, "start_line": b.start_line, "end_line": b.end_line, "tokens": b.tokens,
                 "score": round(b.score, 6), "reasons": b.reasons, "language": b.language, "text": b.text}
                for b in p.blocks
            ],
            "dropped": p.dropped,
            "redactions": [{"path": r.path, "line": r.line, "rule": r.rule} for r in p.redactions],
            "scope": {"mode": self.scope_mode, "files": len(self.scope_paths)},
            "seeds": self.seeds,
            "changed_nodes": self.changed_nodes,
        }
        if explain_scope:
            body["scope_paths"] = self.scope_paths
        return body

    def markdown(self) -> str:
        """The packed context as ``--format markdown`` prints it: paste it right before the task."""
        from .packing import render_markdown

        return render_markdown(self.packed)


Progress = Callable[[str, int, int], None]


# ---------------------------------------------------------------- entry point
def select(
    repo: str | Path | None,
    request: SelectRequest,
    workspace_options: dict[str, Any] | None = None,
    progress: Progress | None = None,
) -> Selection:
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    budget = _budget(request.budget)
    ws, root, warnings = open_workspace(repo, workspace_options or {})
    timings["workspace"] = time.perf_counter() - t0

    from .repoconfig import config_file, config_key, load_repo_config, section

    config = load_repo_config(root)
    file_settings = FileSettings.from_config(config)
    ranking = RankingConfig.resolve(section(config, "ranking"), request.weights,
                                    f"[{config_key(config, 'ranking')}] in {config_file(config)}")
    scope_mode = request.scope or section(config, "select").get("scope", DEFAULT_SCOPE)
    if scope_mode not in SCOPES:
        where = "--scope" if request.scope else f"[{config_key(config, 'select')}] scope in {config_file(config)}:"
        raise UserError(f"unknown {where} {scope_mode!r} (choose {', '.join(SCOPES)})")

    t = time.perf_counter()
    index = update_index(root, chunk_settings_from(config), file_settings, progress)
    timings["index"] = time.perf_counter() - t
    warnings.extend(index.stats.warnings)

    seeds = [_repo_relative(root, s) for s in request.seeds]
    changed_files = list(seeds)
    changed_nodes: list[str] = []
    if ws is not None:
        changed_nodes, more_files = _changed_nodes(ws, request, seeds, warnings)
        changed_files += more_files
    elif request.targets or request.since or request.base or request.staged or request.files:
        if request.files:
            changed_files += [_repo_relative(root, f, "--files") for f in request.files]
        else:
            warnings.append("no build workspace: targets and git change selectors are ignored")

    explicit = set(seeds) | (set(changed_files) if request.files and not (request.since or request.base or request.staged) else set())
    unread = _unindexed(root, index, [p for p in dict.fromkeys(changed_files) if p in explicit], file_settings)
    if unread:
        more = f" and {len(unread) - 5} more" if len(unread) > 5 else ""
        warnings.append(f"never packed, as ctxsel does not read them: {', '.join(unread[:5])}{more}")

    if ws is None and scope_mode != "repo":
        warnings.append(f"no build workspace detected at {root}: --scope {scope_mode} acts as --scope repo")
        scope_mode = "repo"

    t = time.perf_counter()
    graph_view = GraphView(ws, index) if ws is not None else None
    scope_paths = _scope(index, graph_view, changed_nodes, scope_mode)
    if request.owners:
        scope_paths = _owned_paths(ws, root, scope_paths, request.owners, warnings)
    timings["scope"] = time.perf_counter() - t

    query = request.query.strip()
    seed_texts = {s: _read(root, s, file_settings) for s in seeds}
    if not query:
        query = _query_from_seeds(seed_texts, changed_files, root, file_settings)
        if not query:
            raise UserError("nothing to select for: give a QUERY, --seed FILE, targets or a change selector")

    t = time.perf_counter()
    fusion = Fusion(ranking)
    candidates = set(scope_paths)
    if not request.include_seed:
        candidates -= set(seeds)
    _lexical(fusion, index, root, query, seed_texts, candidates, ranking)
    _definitions(fusion, index, query, seed_texts, candidates, ranking)
    if seeds:
        _history(fusion, index, root, seeds, candidates, file_settings, ranking, warnings)
        _neighbourhood(fusion, index, seeds, seed_texts, graph_view, candidates, ranking)
    if graph_view is not None and changed_nodes:
        _graph_distance(fusion, graph_view, changed_nodes, candidates, ranking)
    factors = {p: _factor(index, p, ranking) for p in candidates}
    chunks_of = {p: len(index.files[p].rows) for p in candidates if p in index.files}
    # before any ranking is read (the --dense pool's too)
    for path in named_files(query, chunks_of, ranking.named_dirs, ranking.named_max_sharing):
        fusion.slow_decay(path, ranking.named_file_decay)
    if _dense_wanted(request, ranking):
        from itertools import islice

        from .embed import dense_rank

        pool = [r.ref for r in islice(fusion.ranked(chunks_of, factors), ranking.dense_pool)]
        ranked_dense, note = dense_rank(root, index, query, pool, ranking.dense_pool)
        if note:
            warnings.append(note)
        fusion.add_chunks(ranking.dense, ranked_dense, "dense rank {rank}")
    ranked = fusion.ranked(chunks_of, factors)
    timings["rank"] = time.perf_counter() - t

    t = time.perf_counter()
    from .chunking import fence_language

    def cands():
        for r in ranked:
            c = index.files[r.ref[0]].chunks[r.ref[1]]
            yield Candidate(c.path, c.start_line, c.end_line, r.score, r.reasons[:4], c.scope,
                            index.files[r.ref[0]].tokens[r.ref[1]])

    def read_lines(path: str) -> list[str] | None:
        src = _read(root, path, file_settings, index)
        return src.split("\n") if src is not None else None

    packed = pack_chunks(cands(), budget, read_lines, file_settings.secrets, fence_language)
    timings["pack"] = time.perf_counter() - t
    timings["total"] = time.perf_counter() - t0
    if packed.redactions:
        where = ", ".join(f"{r.path}:{r.line} ({r.rule})" for r in packed.redactions[:5])
        more = f" and {len(packed.redactions) - 5} more" if len(packed.redactions) > 5 else ""
        warnings.append(f"redacted {len(packed.redactions)} secret-looking span(s): {where}{more}")
    return Selection(packed, scope_mode, sorted(scope_paths), query, seeds, changed_nodes, warnings, timings, index.stats)


def chunk_settings_from(config: dict[str, Any]) -> ChunkSettings:
    """``[select] chunk_tokens`` (or ``CTXSEL_CHUNK_TOKENS``, for benchmark sweeps): the chunk size limit."""
    from .repoconfig import config_file, config_key, section

    value = os.environ.get("CTXSEL_CHUNK_TOKENS")
    where = "CTXSEL_CHUNK_TOKENS"
    if not value:
        value = section(config, "select").get("chunk_tokens")
        where = f"{config_file(config)}: {config_key(config, 'select.chunk_tokens')}"
    if value is None:
        return ChunkSettings()
    try:
        tokens = int(value) if not isinstance(value, bool) else 0
    except (TypeError, ValueError, OverflowError):  # OverflowError: chunk_tokens = inf (1e400)
        tokens = 0
    if tokens < 50:
        raise UserError(f"{where} must be an integer of at least 50, not {value!r}")
    return ChunkSettings.for_limit(tokens)


# ---------------------------------------------------------------- workspace and inputs
def open_workspace(repo: str | Path | None, options: dict[str, Any]) -> tuple[Any, Path, list[str]]:
    """(Workspace or None, repo root, warnings). No workspace is a warning, not an error."""
    from .workspace import Workspace

    start = Path(repo) if repo is not None else Path.cwd()
    if not start.is_dir():
        raise UserError(f"no such directory: {start}")
    try:
        ws = Workspace.open(start, **options)
    except UserError as exc:
        if "workspace found" not in exc.message:
            raise
        return None, start.resolve(), [f"no build workspace found at {start.resolve()}; selecting from the whole directory"]
    except Exception as exc:  # a broken adapter must not stop context selection
        return None, start.resolve(), [f"build graph unavailable ({type(exc).__name__}: {exc}); selecting from the whole directory"]
    return ws, ws.root.resolve(), list(ws.warnings)


def _budget(value: Any) -> int:
    """The budget as an integer of at least 1. A float (NaN compares false with everything, so
    every chunk would "fit"), a string or a bool from an API caller is a user error."""
    try:
        budget = operator.index(value) if not isinstance(value, bool) else 0
    except TypeError:
        raise UserError(f"--budget must be an integer number of tokens, not {value!r}") from None
    if budget < 1:
        raise UserError("--budget must be at least 1 token")
    return budget


def _repo_relative(root: Path, spec: str, flag: str = "--seed") -> str:
    if not isinstance(spec, str) or "\0" in spec:
        raise UserError(f"{flag} {spec!r}: not a file inside the repository {root}")
    for base in (Path.cwd(), root):
        p = Path(spec) if os.path.isabs(spec) else base / spec
        try:
            full = inside_root(root, os.path.relpath(os.path.abspath(p), root)) if p.exists() else None
            is_file = full is not None and full.is_file()
        except OSError:  # a name too long for the file system, a permission error on the way
            full, is_file = None, False
        if full is not None and is_file:
            return full.relative_to(os.path.realpath(root)).as_posix()
    rel = os.path.normpath(spec).replace(os.sep, "/") if not os.path.isabs(spec) else None
    if rel and not rel.startswith("../") and rel != ".." and inside_root(root, rel) is not None:
        return rel  # a seed that does not exist (yet) still names a place in the graph
    raise UserError(f"{flag} {spec}: not a file inside the repository {root}")


def _changed_nodes(ws: Any, request: SelectRequest, seeds: list[str], warnings: list[str]) -> tuple[list[str], list[str]]:
    nodes: set[str] = set()
    files: list[str] = []
    if request.targets:
        nodes.update(ws.resolve(request.targets))
    if request.since or request.base or request.staged or request.files:
        cs = ws.changes(since=request.since, base=request.base, head=request.head,
                        staged=request.staged, files=list(request.files) or None)
        nodes.update(cs.nodes)
        files += [f.path for f in cs.files]
        warnings.extend(cs.warnings)
    for s in seeds + files:
        nodes.update(ws.adapter.nodes_for_file(ws.graph, s))
    return sorted(n for n in nodes if n in ws.graph), files


class GraphView:
    """File <-> node mapping for indexed files, computed once per run (packages by directory)."""

    def __init__(self, ws: Any, index: ChunkIndex) -> None:
        self.ws = ws
        self.graph = ws.graph
        self.packages = self.graph.packages()
        self._pkg_nodes: dict[str, list[str]] = {}
        for node in self.graph.nodes():
            if not node.external:
                self._pkg_nodes.setdefault(node.package, []).append(node.id)
        self.file_nodes: dict[str, list[str]] = {}
        self.file_package: dict[str, str | None] = {}
        self._dir_package: dict[str, str | None] = {}
        for path in index.files:
            pkg = self.package_of(path)
            self.file_package[path] = pkg
            owners = self.graph.owners_of_file(path)
            self.file_nodes[path] = owners or (sorted(self._pkg_nodes.get(pkg, [])) if pkg is not None else [])

    def package_of(self, path: str) -> str | None:
        """Longest package directory containing ``path`` (cached per directory)."""
        directory = path.rpartition("/")[0]
        if directory in self._dir_package:
            return self._dir_package[directory]
        probe = directory
        while probe not in self.packages and probe:
            probe = probe.rpartition("/")[0]
        found = probe if probe in self.packages else None
        self._dir_package[directory] = found
        return found


def _scope(index: ChunkIndex, view: GraphView | None, changed: list[str], mode: str) -> set[str]:
    everything = set(index.files)
    if mode == "repo" or view is None or not changed:
        return everything
    nodes = set(view.ws.adapter.blast_radius(view.graph, changed, None))
    if mode == "graph":
        nodes |= set(view.graph.deps(changed))
    packages = {view.graph.node(n).package for n in changed}
    return {p for p in everything if view.file_package.get(p) in packages or any(n in nodes for n in view.file_nodes.get(p, ()))}


def _owned_paths(ws: Any, root: Path, paths: set[str], owners: Sequence[str], warnings: list[str]) -> set[str]:
    from .codeowners import canonical_owner, load_for, unknown_owners, workspace_prefix

    # CODEOWNERS needs no build system: a plain repository is narrowed the same way
    rules = ws.codeowners() if ws is not None else load_for(root)
    prefix = workspace_prefix(ws.root if ws is not None else root, rules)
    wanted = {canonical_owner(o) for o in owners}
    for o in unknown_owners(rules, owners):
        warnings.append(f"{rules.source} names no owner {o!r}; nothing can be owned by it")
    return {p for p in paths if any(canonical_owner(o) in wanted for o in rules.owners_of(prefix + p))}


def _unindexed(root: Path, index: ChunkIndex, paths: Sequence[str], settings: FileSettings) -> list[str]:
    """``path (reason)`` for each file the user named (``--seed``, ``--files``) that exists but is not
    in the index, so its text can never be packed: a secret, binary or generated file, one this user
    may not read (mode 000), one git ignores. Without this a named file vanished from the answer
    with exit 0 and no word (a file in a git submodule did, before submodules were listed)."""
    out: list[str] = []
    for path in paths:
        if path in index.files or not os.path.lexists(os.path.join(root, path)):
            continue  # indexed, or deleted: a deletion is a change with no text to pack
        skipped = index.skipped.get(path)
        reason = skipped.reason if skipped is not None else path_skip_reason(path, settings)
        if reason is None:
            reason = read_source(root, path, settings)[1] or "not listed: ignored by git or .ctxselignore"
        out.append(f"{path} ({reason})")
    return out


def _read(root: Path, path: str, settings: FileSettings, index: ChunkIndex | None = None) -> str | None:
    src, _ = read_source(root, path, settings)
    if src is None:
        return None
    if index is not None:
        entry = index.files.get(path)
        if entry is not None and entry.digest != src.digest:
            return None  # changed since it was chunked: its line ranges no longer hold
    return src.text


def _query_from_seeds(seed_texts: dict[str, str | None], changed: list[str], root: Path, settings: FileSettings) -> str:
    """An empty QUERY: the seeds' and changed files' paths and identifiers stand in."""
    words: list[str] = []
    for path in dict.fromkeys(changed):
        text = seed_texts.get(path) if path in seed_texts else _read(root, path, settings)
        words.append(path)
        if text:
            words.extend(identifiers(text)[:200])
    return " ".join(words)


# ---------------------------------------------------------------- signals
def _lexical(fusion: Fusion, index: ChunkIndex, root: Path, query: str, seed_texts: dict[str, str | None],
             candidates: set[str], cfg: RankingConfig) -> None:
    model, order = index.bm25(root)
    if not order:
        return

    def keep(doc: int) -> bool:
        return order[doc][0] in candidates

    def ranked(tokens: list[str]) -> list[tuple[str, int]]:
        return [order[d] for d, _ in model.top(tokens, cfg.max_candidates, keep)] if tokens else []

    fusion.add_chunks(cfg.bm25, ranked(search_tokens(query)), "BM25 rank {rank}", query=True)
    if cfg.seed_terms > 0 and seed_texts:
        terms: list[str] = []
        for path in seed_texts:
            entry = index.files.get(path)
            names = [s for _, syms in entry.symbols() for s in syms] if entry else []
            stem = path.rsplit("/", 1)[-1].split(".", 1)[0]
            terms += search_tokens(" ".join([stem] + names))
        fusion.add_chunks(cfg.seed_terms, ranked(list(dict.fromkeys(terms))), "seed-identifier BM25 rank {rank}")
    if cfg.seed_text > 0 and seed_texts:
        words: list[str] = []
        for path, text in seed_texts.items():
            words += path_tokens(path) + search_tokens(text or "")
        fusion.add_chunks(cfg.seed_text, ranked(list(dict.fromkeys(words))), "seed-text BM25 rank {rank}")


def _definitions(fusion: Fusion, index: ChunkIndex, query: str, seed_texts: dict[str, str | None],
                 candidates: set[str], cfg: RankingConfig) -> None:
    """Chunks that define a name the query (or the seed's code) mentions."""
    query_names = {w for w in identifiers(query, 3) if _code_like(w)} | set(re.findall(r"`([A-Za-z_$][\w$]*)", query))
    seed_names: set[str] = set()
    for text in seed_texts.values():
        if text:
            seed_names.update(w for w in identifiers(text, 4) if _code_like(w))
    for path in seed_texts:  # the seed's own definitions are not news
        entry = index.files.get(path)
        if entry:
            seed_names -= {s for _, syms in entry.symbols() for s in syms}
    q_hits: list[tuple[int, str, int, str]] = []
    s_hits: list[tuple[int, str, int, str]] = []
    for path in candidates:
        entry = index.files.get(path)
        if entry is None:
            continue
        for i, symbols in entry.symbols():
            q = [s for s in symbols if s in query_names]
            if q:
                q_hits.append((-len(q), path, i, q[0]))
            if seed_names:
                s = [s for s in symbols if s in seed_names]
                if s:
                    s_hits.append((-len(s), path, i, s[0]))
    # a name defined in many files (``create``, ``meta``) identifies none of them
    defined_in: dict[str, set[str]] = {}
    for _, path, _, name in q_hits + s_hits:
        defined_in.setdefault(name, set()).add(path)
    q_hits = sorted(h for h in q_hits if len(defined_in[h[3]]) <= 3)
    s_hits = sorted(h for h in s_hits if len(defined_in[h[3]]) <= 3)
    for hits, weight, what in ((q_hits, cfg.definitions, "defines {name} (named in the query)"),
                               (s_hits, cfg.seed_definitions, "defines {name} (used by the seed)")):
        if weight <= 0:
            continue
        for rank, (_, path, i, name) in enumerate(hits[: cfg.max_candidates], start=1):
            gain = weight / (cfg.rrf_k + rank)
            ref = (path, i)
            fusion.scores[ref] = fusion.scores.get(ref, 0.0) + gain
            fusion.reasons.setdefault(ref, []).append((gain, what.format(name=name)))


def _code_like(word: str) -> bool:
    """camelCase, snake_case, PascalCase or with digits: a code name, not an English word."""
    return bool(re.search(r"[a-z][A-Z]|_|[A-Z][a-z]+[A-Z]|[A-Za-z][0-9]", word)) or (word[:1].isupper() and len(word) > 3 and not word.isupper())


def _history(fusion: Fusion, index: ChunkIndex, root: Path, seeds: list[str], candidates: set[str],
             settings: FileSettings, cfg: RankingConfig, warnings: list[str]) -> None:
    from .cochange import cochanged_files_many

    counts: dict[str, int] = {}
    seed_commits = 0
    histories = cochanged_files_many(root, seeds, cfg.cochange_commits, cfg.cochange_max_files, warnings)
    for s in seeds:
        history = histories[s]
        seed_commits += history.commits
        for path, n in history.files.items():
            counts[path] = counts.get(path, 0) + n
    if not counts:
        return
    fusion.add_files(cfg.cochange, rank_files(counts, "changes with seed in {value} commit{s}"))
    if cfg.cochange_confidence > 0:
        # ranks alone hide how strong the evidence is: a file in 60 of the seed's 300 commits
        # and one in 1 of 2 can both rank first; a rule that held often and reliably gets its own list
        strong = {p: round(100 * n / seed_commits) for p, n in counts.items()
                  if n >= cfg.cochange_min_support and n >= cfg.cochange_min_confidence * seed_commits}
        fusion.add_files(cfg.cochange_confidence, rank_files(strong, "changed in {value} % of the seed's commits"))
    _prefer_test_tails(fusion, index, counts, candidates, cfg)
    if cfg.prefer_history > 0:
        _prefer_history(fusion, index, root, seeds, counts, candidates, settings, cfg, warnings)


def _prefer_history(fusion: Fusion, index: ChunkIndex, root: Path, seeds: list[str], counts: dict[str, int],
                    candidates: set[str], settings: FileSettings, cfg: RankingConfig, warnings: list[str]) -> None:
    """In each co-changed file, show first the chunk where past commits with the seed edited it."""
    from .cochange import cochanged_lines_many

    top = [p for p, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])) if p in candidates and p in index.files]
    top = top[:40]
    lines_of = cochanged_lines_many(root, seeds, top, cfg.cochange_commits, cfg.cochange_max_files, warnings)
    for s in seeds:
        for path, lines in lines_of[s].items():
            text = _read(root, path, settings, index) if path in candidates and path not in fusion.preferred else None
            if text is None:
                continue
            weight, best = _chunk_holding(index, path, text, lines)
            if weight > 0:
                fusion.prefer(path, best, "where past commits with the seed edited this file")


def _chunk_holding(index: ChunkIndex, path: str, text: str, lines: dict[str, float]) -> tuple[float, int]:
    """(weight, chunk number) of the chunk of ``path`` whose lines carry the most weight (lines matched by
    text: ``lines`` is keyed by ``cochange.line_key``, i.e. stripped text); the later chunk on a tie."""
    file_lines = [ln.strip() for ln in text.split("\n")]
    return max(((sum(lines.get(ln, 0.0) for ln in file_lines[a - 1:b]), i)
                for i, (a, b, *_rest) in enumerate(index.files[path].rows)), default=(0.0, 0))


def _prefer_test_tails(fusion: Fusion, index: ChunkIndex, linked: Iterable[str], candidates: set[str],
                       cfg: RankingConfig) -> None:
    """A test file linked to the seed shows its end first: new cases are added after the existing ones."""
    if cfg.prefer_test_tail <= 0:
        return
    for path in linked:
        entry = index.files.get(path)
        if entry is not None and entry.rows and path in candidates and _is_test(path):
            fusion.prefer(path, len(entry.rows) - 1, "end of a test file linked to the seed, where new cases go")


def _neighbourhood(fusion: Fusion, index: ChunkIndex, seeds: list[str], seed_texts: dict[str, str | None],
                   view: GraphView | None, candidates: set[str], cfg: RankingConfig) -> None:
    """Same directory, same package, and import edges to or from the seed."""
    seed_dirs = {s.rpartition("/")[0] for s in seeds}
    same_dir = {p: 1 for p in index.files if p.rpartition("/")[0] in seed_dirs}
    fusion.add_files(cfg.same_dir, rank_files(same_dir, "same directory as the seed"))
    if view is not None:
        seed_pkgs = {view.file_package.get(s) or view.package_of(s) for s in seeds} - {None}
        same_pkg = {p: 1 for p, pkg in view.file_package.items() if pkg in seed_pkgs}
        label = ", ".join(sorted(x or "//" for x in seed_pkgs))
        fusion.add_files(cfg.same_package, rank_files(same_pkg, f"same package as the seed ({label})"))
    from .imports import import_neighbours

    linked = import_neighbours(index, seeds)
    if linked:
        fusion.add_files(cfg.imports, [(p, 1, why) for p, why in sorted(linked.items())])
        _prefer_test_tails(fusion, index, linked, candidates, cfg)


def _graph_distance(fusion: Fusion, view: GraphView, changed: list[str], candidates: set[str], cfg: RankingConfig) -> None:
    """Files ranked by graph distance to the changed nodes (blast radius or dependency)."""
    rd = view.ws.adapter.blast_radius(view.graph, changed, None)
    fd = view.graph.deps(changed)
    roots = ", ".join(changed[:3]) + (" …" if len(changed) > 3 else "")
    node_best: dict[str, tuple[int, str]] = {}  # per node once, not per file
    for nodes_of, kind in ((rd, "blast radius"), (fd, "dependency")):
        for n, dist in nodes_of.items():
            if n not in node_best or dist < node_best[n][0]:
                node_best[n] = (dist, f"{kind} of {roots} via {n}" if dist else f"in changed {n}")
    best: dict[str, tuple[int, str]] = {}
    for path in candidates:
        for n in view.file_nodes.get(path, ()):
            hit = node_best.get(n)
            if hit is not None and (path not in best or hit[0] < best[path][0]):
                best[path] = hit
    ranked = rank_files({p: -d for p, (d, _) in best.items()}, "")
    fusion.add_files(cfg.graph, [(p, rank, best[p][1]) for p, rank, _ in ranked])


def named_files(query: str, paths: Iterable[str], dir_files: int = 0, max_sharing: int = 3) -> frozenset[str]:
    """Files whose name the query spells out (``[no-deprecated]``, ``fix(Teleport)``, ``hydration.ts``).

    A stem shared by more than ``max_sharing`` files (``index``, ``cases``, ``utils``) names none of
    them; a rule's name is shared by its source, test, docs page and snapshots, hence more than 3.
    A directory holding at most ``dir_files`` files is named by its name (a rule's test folder).
    """
    text = query.lower()
    words = set(re.findall(r"[\w$][\w$.-]*[\w$]|[\w$]", text))
    words |= {part for w in words if "." in w for part in w.split(".")}
    by_stem: dict[str, list[str]] = {}
    by_dir: dict[str, list[str]] = {}
    for path in paths:
        directory, _, base = path.lower().rpartition("/")
        stem = base.split(".", 1)[0]
        if len(stem) >= 3 and (stem in words or base in words):
            by_stem.setdefault(stem, []).append(path)
        name = directory.rpartition("/")[2]
        if dir_files and len(name) >= 3 and name in words:
            by_dir.setdefault(directory, []).append(path)
    groups = [g for g in by_stem.values() if len(g) <= max_sharing] + [g for g in by_dir.values() if len(g) <= dir_files]
    return frozenset(p for group in groups for p in group)


def _is_test(path: str) -> bool:
    return any(m in "/" + path for m in _TEST_MARKERS)


def _factor(index: ChunkIndex, path: str, cfg: RankingConfig) -> float:
    entry = index.files.get(path)
    f = 1.0
    if entry is not None and entry.language == "" and _looks_non_code(path):
        f *= cfg.non_code_factor
    if cfg.test_factor != 1.0 and _is_test(path):
        f *= cfg.test_factor
    return f


def _looks_non_code(path: str) -> bool:
    from .chunking import fence_language

    return fence_language(path) in NON_CODE


def _dense_wanted(request: SelectRequest, cfg: RankingConfig) -> bool:
    return bool(request.dense) and cfg.dense > 0
