"""The persistent chunk index under ``<repo>/.ctxsel/index/``, updated by content hash.

Why persistent and incremental: chunking a 5,000-file repository takes seconds, a
``select`` must answer in about one. Each run lists the repository (git's file list
plus a ``stat`` per file), re-reads only files whose (size, mtime) changed, and
re-chunks only those whose content hash changed; deleted files drop out. So
``select`` can refresh stale entries itself and ``ctxsel index`` is only a warm-up.

Three files, so that a warm ``select`` loads only what it needs:

* ``meta.pickle`` — per file: stamp, content hash, chunks (line ranges, scope,
  symbols, exact token counts) and imports. No text: chunks are read from the file
  when packed (the stamp proves it has not changed).
* ``terms.pickle`` — content hash -> search terms per chunk; read only to rebuild
  the lexical model.
* ``bm25.pickle`` — the BM25 model (bm25s's lucene scores) over every chunk, tagged with a generation
  (hash of all (path, content hash) pairs); rebuilt when the generation moves.
"""

from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from . import safepickle
from .cache import CACHE_DIR, ensure_cache_dir
from .chunking import Chunk, ChunkSettings, chunk_file
from .files import FileSettings, Listed, list_repo_files, read_source
from .tokenize import count_tokens, path_tokens, search_tokens

INDEX_FORMAT = 7  # 6: built-in redaction rules changed (base64 keys, config literals); 7: again (session 26)
BM25_PARAMS = {"k1": 1.5, "b": 0.75, "method": "lucene"}
LONG_QUERY = 2000  # search terms; a commit message or issue title has a few dozen

Progress = Callable[[str, int, int], None]  # (phase, done, total)


ChunkRow = tuple  # (start_line, end_line, kind, scope, symbols): how a chunk is stored


class FileEntry:
    """One indexed file. Chunks are stored as plain tuples and become ``Chunk`` objects on
    first use: unpickling 30,000 dataclass instances took 0.3 s, tuples take 0.02 s."""

    __slots__ = ("path", "size", "mtime_ns", "digest", "language", "rows", "tokens", "imports", "_chunks")

    def __init__(self, path: str, size: int, mtime_ns: int, digest: str, language: str,
                 rows: list[ChunkRow], tokens: list[int], imports: list[str]) -> None:
        self.path, self.size, self.mtime_ns, self.digest, self.language = path, size, mtime_ns, digest, language
        self.rows, self.tokens, self.imports = rows, tokens, imports
        self._chunks: list[Chunk] | None = None

    @classmethod
    def from_chunks(cls, path: str, size: int, mtime_ns: int, digest: str, language: str,
                    chunks: list[Chunk], tokens: list[int], imports: list[str]) -> "FileEntry":
        rows = [(c.start_line, c.end_line, c.kind, c.scope, c.symbols) for c in chunks]
        return cls(path, size, mtime_ns, digest, language, rows, tokens, imports)

    @property
    def chunks(self) -> list[Chunk]:
        if self._chunks is None:
            self._chunks = [Chunk(self.path, *row) for row in self.rows]
        return self._chunks

    def symbols(self) -> list[tuple[int, tuple[str, ...]]]:
        """(chunk number, names it defines) without building Chunk objects."""
        return [(i, row[4]) for i, row in enumerate(self.rows) if row[4]]

    def to_row(self) -> tuple:
        return (self.size, self.mtime_ns, self.digest, self.language, self.rows, self.tokens, self.imports)

    @classmethod
    def from_row(cls, path: str, row: tuple) -> "FileEntry":
        return cls(path, *row)


@dataclass
class Skipped:
    size: int
    mtime_ns: int
    reason: str


@dataclass
class IndexStats:
    files: int = 0
    chunks: int = 0
    added: int = 0
    changed: int = 0
    deleted: int = 0
    unchanged: int = 0
    skipped: dict[str, int] = field(default_factory=dict)  # reason -> count
    seconds: float = 0.0
    # what the user should know about this run (the index could not be stored): printed once per run
    warnings: list[str] = field(default_factory=list)


@dataclass
class ChunkIndex:
    """All chunks of a repository, and the lexical model over them."""

    key: str
    files: dict[str, FileEntry] = field(default_factory=dict)
    skipped: dict[str, Skipped] = field(default_factory=dict)
    terms: dict[str, list[str]] = field(default_factory=dict)  # digest -> space-joined terms per chunk
    stats: IndexStats = field(default_factory=IndexStats)
    _bm25: Any = None
    _order: list[tuple[str, int]] = field(default_factory=list)  # BM25 doc id -> (path, chunk no)

    # ------------------------------------------------------------ reading
    def chunk_refs(self) -> list[tuple[str, int]]:
        return [(p, i) for p in sorted(self.files) for i in range(len(self.files[p].rows))]

    def generation(self) -> str:
        h = hashlib.sha1(self.key.encode())
        for p in sorted(self.files):
            h.update(f"{p}\0{self.files[p].digest}\n".encode())
        return h.hexdigest()

    def bm25(self, root: Path) -> tuple[Any, list[tuple[str, int]]]:
        """The bm25s model over every chunk (loaded, or rebuilt when files changed)."""
        if self._bm25 is None:
            self._bm25, self._order = _load_or_build_bm25(root, self)
        return self._bm25, self._order


# ---------------------------------------------------------------- paths
def index_dir(root: Path) -> Path:
    return root / CACHE_DIR / "index"


def _index_key(chunk_settings: ChunkSettings, file_settings: FileSettings) -> str:
    secrets = file_settings.secrets
    # the span patterns too: search terms are stored redacted, so a pattern added to
    # [secrets] must re-redact them (else the secret it names stays in terms.pickle)
    patterns = [(name, rx.pattern, rx.flags) for name, rx in secrets.patterns]
    rules = hashlib.sha1(repr((secrets.file_globs, secrets.allow_globs, file_settings.ignore,
                               file_settings.max_bytes, patterns, secrets.min_entropy)).encode()).hexdigest()[:10]
    return f"f{INDEX_FORMAT}-{chunk_settings.key()}-{rules}"


def _load(root: Path, name: str) -> Any:
    """One index file; None when missing, truncated, from another version, or not written by
    this user's ctxsel (a committed or tampered file): the caller starts over."""
    return safepickle.load(index_dir(root) / name, root)


def _store(root: Path, name: str, obj: Any) -> bool:
    """A read-only repository, or a ``.ctxsel`` that is a symlink, still gets answers,
    just not a persistent index; False then, so the caller can say so."""
    return safepickle.dump(obj, index_dir(root) / name, root)


# ---------------------------------------------------------------- update
def load_index(root: Path, chunk_settings: ChunkSettings | None = None,
               file_settings: FileSettings | None = None) -> ChunkIndex:
    """The stored index (empty when absent or built with other settings); not refreshed."""
    chunk_settings = chunk_settings or ChunkSettings()
    file_settings = file_settings or FileSettings()
    key = _index_key(chunk_settings, file_settings)
    data = _load(root, "meta.pickle")
    if not isinstance(data, dict) or data.get("key") != key:
        return ChunkIndex(key)
    files = {p: FileEntry.from_row(p, row) for p, row in data["files"].items()}
    skipped = {p: Skipped(*row) for p, row in data["skipped"].items()}
    return ChunkIndex(key, files, skipped)


def update_index(
    root: Path,
    chunk_settings: ChunkSettings | None = None,
    file_settings: FileSettings | None = None,
    progress: Progress | None = None,
    persist: bool = True,
) -> ChunkIndex:
    """Bring the index in line with the work tree: new, changed and deleted files."""
    started = time.perf_counter()
    root = root.resolve()
    chunk_settings = chunk_settings or ChunkSettings()
    file_settings = file_settings or FileSettings()
    index = load_index(root, chunk_settings, file_settings)
    listing = list_repo_files(root, file_settings)
    stats = IndexStats()
    for reason in listing.skipped.values():
        stats.skipped[reason] = stats.skipped.get(reason, 0) + 1

    listed = {f.path: f for f in listing.files}
    old_files, old_skipped = index.files, index.skipped
    stats.deleted = sum(1 for p in old_files if p not in listed)
    todo: list[Listed] = []
    files: dict[str, FileEntry] = {}
    skipped: dict[str, Skipped] = {}
    for f in listing.files:
        entry = old_files.get(f.path)
        if entry is not None and (entry.size, entry.mtime_ns) == (f.size, f.mtime_ns):
            files[f.path] = entry
            stats.unchanged += 1
            continue
        skip = old_skipped.get(f.path)
        if skip is not None and (skip.size, skip.mtime_ns) == (f.size, f.mtime_ns):
            skipped[f.path] = skip
            stats.skipped[skip.reason] = stats.skipped.get(skip.reason, 0) + 1
            continue
        todo.append(f)

    terms: dict[str, list[str]] | None = None
    if todo:
        terms = _load_terms(root, index.key)
    for n, f in enumerate(todo):
        if progress:
            progress("indexing", n, len(todo))
        src, reason = read_source(root, f.path, file_settings)
        if src is None:
            skipped[f.path] = Skipped(f.size, f.mtime_ns, reason or "unreadable")
            stats.skipped[reason or "unreadable"] = stats.skipped.get(reason or "unreadable", 0) + 1
            continue
        old = old_files.get(f.path)
        if old is not None and old.digest == src.digest:
            old.size, old.mtime_ns = f.size, f.mtime_ns  # touched, not changed
            files[f.path] = old
            stats.unchanged += 1
            continue
        files[f.path] = _chunk_entry(f, src.text, src.digest, chunk_settings, terms, file_settings)
        if old is None:
            stats.added += 1
        else:
            stats.changed += 1
    if progress and todo:
        progress("indexing", len(todo), len(todo))

    index.files, index.skipped = files, skipped
    stats.files = len(files)
    stats.chunks = sum(len(e.rows) for e in files.values())
    changed = bool(todo) or stats.deleted > 0
    if persist and changed:
        stored = ensure_cache_dir(root) is not None and _store(root, "meta.pickle", {
            "key": index.key,
            "files": {p: e.to_row() for p, e in files.items()},
            "skipped": {p: (k.size, k.mtime_ns, k.reason) for p, k in skipped.items()},
        })
        if stored and terms is not None:
            live = {e.digest for e in files.values()}
            _store(root, "terms.pickle", {"key": index.key, "terms": {d: t for d, t in terms.items() if d in live}})
        if not stored:
            # the answer is still right, but every run reads and chunks the whole repository again:
            # a read-only checkout, or a .ctxsel/ another user made (measured as uid 65534 on root's)
            stats.warnings.append(f"cannot store the index in {index_dir(root)} (not writable by this user, or not a "
                                  "directory of the repository): each run indexes the repository again")
    if terms is not None:
        index.terms = terms
    stats.seconds = time.perf_counter() - started
    index.stats = stats
    return index


def _chunk_entry(f: Listed, text: str, digest: str, settings: ChunkSettings,
                 terms: dict[str, list[str]], file_settings: FileSettings) -> FileEntry:
    fc = chunk_file(f.path, text, settings)
    lines = text.split("\n")
    # search terms come from the redacted text, so no secret-looking string enters the index
    clean, _ = file_settings.secrets.redact(text, f.path)
    clean_lines = clean.split("\n") if clean is not text else lines
    counts: list[int] = []
    chunk_terms: list[str] = []  # joined by spaces (terms never hold one): 10x faster to pickle
    ptoks = path_tokens(f.path)
    for c in fc.chunks:
        counts.append(count_tokens("\n".join(lines[c.start_line - 1:c.end_line]) + "\n"))
        body = "\n".join(clean_lines[c.start_line - 1:c.end_line])
        chunk_terms.append(" ".join(ptoks + search_tokens(c.scope) + search_tokens(body)))
    terms[digest] = chunk_terms
    return FileEntry.from_chunks(f.path, f.size, f.mtime_ns, digest, fc.language, fc.chunks, counts, fc.imports)


def _load_terms(root: Path, key: str) -> dict[str, list[str]]:
    data = _load(root, "terms.pickle")
    if isinstance(data, dict) and data.get("key") == key:
        return data["terms"]
    return {}


# ---------------------------------------------------------------- lexical model
def quiet_bm25s() -> None:
    """bm25s logs at DEBUG and shows tqdm bars by default; neither belongs on our stderr."""
    for name in ("bm25s", "bm25s.tokenization", "bm25s.utils"):
        logging.getLogger(name).setLevel(logging.WARNING)


class LexicalModel:
    """BM25 scores of chunks for a query, from bm25s's precomputed postings.

    The postings are bm25s's (built by ``lucene_postings``, which the tests hold to bm25s
    bit for bit). Scoring reads them from plain
    ``array`` buffers in pure Python: a warm ``select`` then imports neither bm25s,
    scipy nor numpy (together about 0.5-1 s of start-up on this machine), and a query
    touches only the postings of its own terms. Same sums as ``bm25s.BM25.get_scores``
    for the lucene method, which has no non-occurrence term.
    """

    def __init__(self, vocab: dict[str, int], data: Any, indices: Any, indptr: Any, num_docs: int) -> None:
        self.vocab, self.data, self.indices, self.indptr, self.num_docs = vocab, data, indices, indptr, num_docs

    @classmethod
    def from_bm25s(cls, model: Any) -> "LexicalModel":
        sc = model.scores
        return cls.from_postings(dict(model.vocab_dict), sc["data"], sc["indices"], sc["indptr"], sc["num_docs"])

    @classmethod
    def from_postings(cls, vocab: dict[str, int], data: Any, indices: Any, indptr: Any, num_docs: int) -> "LexicalModel":
        """From NumPy arrays in bm25s's CSC layout (term -> documents)."""
        from array import array

        return cls(vocab, array("f", data.astype("float32").tobytes()), array("i", indices.astype("int32").tobytes()),
                   array("q", indptr.astype("int64").tobytes()), int(num_docs))

    def scores(self, tokens: list[str]) -> dict[int, float]:
        """{doc number: score} for the documents with a positive score."""
        out: dict[int, float] = {}
        get = out.get
        if len(tokens) > LONG_QUERY:
            # a pasted file as the query ("return self " * 100000): walking a term's postings once
            # per occurrence took minutes; once per distinct term, times its count, takes
            # milliseconds. Ordinary queries keep the loop below, addition for addition.
            from collections import Counter

            for t, times in Counter(tokens).items():
                tid = self.vocab.get(t)
                if tid is None or tid + 1 >= len(self.indptr):
                    continue
                a, b = self.indptr[tid], self.indptr[tid + 1]
                for doc, s in zip(self.indices[a:b], self.data[a:b]):
                    out[doc] = get(doc, 0.0) + s * times
            return {d: s for d, s in out.items() if s > 0}
        for t in tokens:  # a repeated query term counts again, as in bm25s
            tid = self.vocab.get(t)
            if tid is None or tid + 1 >= len(self.indptr):
                continue
            a, b = self.indptr[tid], self.indptr[tid + 1]
            for doc, s in zip(self.indices[a:b], self.data[a:b]):
                out[doc] = get(doc, 0.0) + s
        return {d: s for d, s in out.items() if s > 0}

    def top(self, tokens: list[str], limit: int, keep: Callable[[int], bool] | None = None) -> list[tuple[int, float]]:
        """The ``limit`` best (doc, score) pairs, best first; ties by doc number."""
        import heapq

        scored = self.scores(tokens)
        items = scored.items() if keep is None else ((d, s) for d, s in scored.items() if keep(d))
        return heapq.nsmallest(limit, items, key=lambda ds: (-ds[1], ds[0]))


def _load_or_build_bm25(root: Path, index: ChunkIndex) -> tuple[Any, list[tuple[str, int]]]:
    gen = index.generation()
    data = _load(root, "bm25.pickle")
    if isinstance(data, dict) and data.get("generation") == gen and isinstance(data.get("model"), LexicalModel):
        return data["model"], data["order"]
    model, order = build_bm25(root, index)
    _store(root, "bm25.pickle", {"generation": gen, "model": model, "order": order})
    return model, order


def build_bm25(root: Path, index: ChunkIndex) -> tuple[LexicalModel, list[tuple[str, int]]]:
    terms = index.terms or _load_terms(root, index.key)
    order: list[tuple[str, int]] = []
    docs: list[str] = []  # per chunk: its terms joined by spaces
    settings: FileSettings | None = None  # read only if some file's terms were lost
    for p in sorted(index.files):
        entry = index.files[p]
        per_chunk = terms.get(entry.digest)
        if per_chunk is None or len(per_chunk) != len(entry.rows):
            if settings is None:
                from .repoconfig import load_repo_config

                settings = FileSettings.from_config(load_repo_config(root))
            per_chunk = _retokenize(root, p, entry, settings)
        for i, joined in enumerate(per_chunk):
            order.append((p, i))
            docs.append(joined or "\0empty")
    if not docs:
        from array import array

        return LexicalModel({}, array("f"), array("i"), array("q", [0]), 0), order
    return LexicalModel.from_postings(*lucene_postings(docs)), order


def lucene_postings(docs: list[str]) -> tuple[dict[str, int], Any, Any, Any, int]:
    """(vocabulary, data, indices, indptr, number of docs): the postings ``bm25s.BM25(**BM25_PARAMS)``
    builds over ``[d.split(" ") for d in docs]``, bit for bit (the tests compare them).

    Why not bm25s itself: it counts and scores one document at a time in Python (a Counter,
    two small arrays and a set intersection per chunk), and importing it pulls in scipy;
    that was most of every re-index. Here the same float operations, in the same dtypes,
    run once over all (term, document) pairs. Term numbers are first-seen order (bm25s uses
    set order); only scores and the postings' document order reach a query. Lucene's idf and
    term-frequency formulas with BM25_PARAMS' k1 and b (the tests build bm25s from BM25_PARAMS).
    """
    import math
    import numpy as np

    words = " ".join(docs).split(" ")  # terms never hold a space: one split is every document's
    vocab = {t: i for i, t in enumerate(dict.fromkeys(words))}
    n_docs, n_terms = len(docs), len(vocab)
    lengths = np.array([d.count(" ") + 1 for d in docs])
    ids = np.fromiter(map(vocab.__getitem__, words), dtype=np.int64, count=len(words))
    del words
    doc_of = np.repeat(np.arange(n_docs, dtype=np.int64), lengths)
    # one key per (term, document) occurrence; sorted unique keys are CSC order: by term, then document
    keys, tf = np.unique(ids * n_docs + doc_of, return_counts=True)
    del ids, doc_of
    term, doc = keys // n_docs, keys % n_docs
    df = np.bincount(term, minlength=n_terms)
    k1, b = BM25_PARAMS["k1"], BM25_PARAMS["b"]
    idf = np.array([math.log(1 + (n_docs - f + 0.5) / (f + 0.5)) for f in df.tolist()], dtype=np.float32)
    tf32 = tf.astype(np.float32)
    # bm25s adds the per-document float64 scalar to a float32 array: NumPy's promotion of that
    # (float64 from NumPy 2, float32 before) decides the dtype of the division, so ask NumPy
    norm = (k1 * ((1 - b) + b * lengths / lengths.mean())).astype(np.result_type(np.float64(1.0), tf32))
    data = (idf[term] * (tf32 / (norm[doc] + tf32))).astype(np.float32)
    indptr = np.zeros(n_terms + 1, dtype=np.int64)
    np.cumsum(df, out=indptr[1:])
    vocab.setdefault("", n_terms)  # as bm25s: the empty token, with no postings
    return vocab, data, doc.astype(np.int32), indptr, n_docs


def _retokenize(root: Path, path: str, entry: FileEntry, settings: FileSettings) -> list[str]:
    """Terms for a file whose terms were lost (e.g. terms.pickle deleted); redacted like the
    rest, with the repository's own secret patterns (``settings``)."""
    src, _ = read_source(root, path, settings)
    lines = settings.secrets.redact(src.text, path)[0].split("\n") if src else []
    ptoks = path_tokens(path)
    return [" ".join(ptoks + search_tokens(c.scope) + search_tokens("\n".join(lines[c.start_line - 1:c.end_line])))
            for c in entry.chunks]


def clear_index(root: Path) -> None:
    if not safepickle.trusted_dir(root, index_dir(root)):
        return  # missing, or a symlink out of the repository: nothing of ours to delete there
    for name in ("meta.pickle", "terms.pickle", "bm25.pickle"):
        try:
            (index_dir(root) / name).unlink()
        except OSError:
            pass


def iter_chunks(index: ChunkIndex, paths: Iterable[str] | None = None) -> Iterable[tuple[str, int, Chunk, int]]:
    """(path, chunk number, chunk, exact tokens) for the given files (all when None)."""
    for p in sorted(paths) if paths is not None else sorted(index.files):
        entry = index.files.get(p)
        if entry is None:
            continue
        for i, c in enumerate(entry.chunks):
            yield p, i, c, entry.tokens[i]
