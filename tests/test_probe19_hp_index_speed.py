"""The fast paths of a first index (session 19) answer exactly what the plain scans answered.

A first ``ctxsel index`` on payload (8,728 files) spent most of its time in three places:
the secret patterns run over every file (most of them with no literal prefix, so ``re``
tried them at every position), splitting the same identifiers again in every chunk, and
counting token pieces one match at a time in Python. Each now has a shortcut; these tests
hold each shortcut to the scan it replaces, on inputs chosen to hit its edges.
"""

from __future__ import annotations

import math
import random
import re
import shutil
from pathlib import Path

import pytest

from ctxsel import secrets
from ctxsel.index import BM25_PARAMS, LexicalModel, build_bm25, load_index, lucene_postings, update_index
from ctxsel.secrets import SecretRules
from ctxsel.tokenize import STOP_WORDS, count_tokens, search_tokens, split_identifier

# ---------------------------------------------------------------- secrets

# fragments that make secret-looking lines, names that IGNORECASE matches through non-ASCII
# letters (long s, Kelvin sign, dotted/dotless i), and a letter that lengthens under lower()
_FRAGMENTS = [
    "password", "PASSWORD", "pa\u017fsword", "\u017fecret", "to\u212aen", "TOKEN", "api_key", "apiKey", "API-KEY",
    "\u0131auth", "_auth", "\u0130", "authorization", "AUTHOR\u0130ZAT\u0130ON", "Authorization: Bearer ", "=", ":",
    " = ", '"', "'", "`", "\n", "\r\n", " ", "Q9x7LmP2vR8sT4wZ", "abcDEF123456xyz!@#", "AKIAABCDEFGHIJKLMNOP",
    "ghp_" + "a" * 36, "xoxb-1234567890abc", "AIza" + "b" * 35, "sk_live_" + "c" * 16, "sk-" + "d" * 32,
    "npm_" + "e" * 36, "eyJabcdefghi.eyJabcdefghi.abcdefghij", "https://user:pa55w0rd@host", "\u00e9", "\u4e2d",
    "(", "[", "-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----", "db_password: hunter2\n",
    "secret_key = 'x7Gh2kLp9QwE'", "authkey=", "Pwd", "credential", "glpat-" + "f" * 20, "x", ".", "MYSECRET42",
]


def _unfiltered(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every pattern over the whole text, as before the shortcuts."""
    monkeypatch.setattr(secrets, "_may_match", lambda rx, text, folded: True)
    monkeypatch.setattr(secrets, "_hint_lines", lambda folded: [(0, len(folded))])


def test_redaction_equals_the_unfiltered_scan(monkeypatch: pytest.MonkeyPatch) -> None:
    rnd = random.Random(19)
    texts = ["".join(rnd.choice(_FRAGMENTS) for _ in range(rnd.randint(0, 30))) for _ in range(3000)]
    rule_sets = [SecretRules(), SecretRules.from_config({"patterns": [
        {"name": "mine", "regex": r"MYSECRET[0-9]+"},
        {"name": "same-as-aws", "regex": secrets.BUILTIN_PATTERNS[1][1]},
    ]})]
    paths = ["a.py", "conf.yaml", "x.env", "b.ts"]
    fast = [(rules.redact(t, p), i) for i, t in enumerate(texts) for rules in rule_sets for p in paths[i % 4:i % 4 + 1]]
    _unfiltered(monkeypatch)
    slow = [(rules.redact(t, p), i) for i, t in enumerate(texts) for rules in rule_sets for p in paths[i % 4:i % 4 + 1]]
    assert sum(len(found) for (_, found), _ in slow) > 1000  # the inputs do hold secrets
    assert fast == slow


@pytest.mark.parametrize("line", [
    "\u017fecret = 'Zq8xL2mN7vR4pT9w'",  # "secret" spelled with a long s: IGNORECASE matches it
    "api_\u212aEY: Zq8xL2mN7vR4pT9w",  # Kelvin sign for k
    "\u0130\u0130\u0130 token = 'Zq8xL2mN7vR4pT9w'",  # lower() would lengthen the line before the secret
    "headers = {'AUTHOR\u0130ZAT\u0130ON': 'Bearer Zq8xL2mN7vR4pT9wYb3'}",
])
def test_non_ascii_spellings_are_still_redacted(line: str) -> None:
    text = "first line\n" + line + "\nlast line"
    clean, found = SecretRules().redact(text, "a.py")
    assert "Zq8xL2mN7vR4pT9w" not in clean and [r.line for r in found] == [2]
    assert clean.count("\n") == text.count("\n")


def test_fold_covers_every_letter_ignorecase_matches() -> None:
    """The line and literal shortcuts search folded text; a character that IGNORECASE matches to
    an ASCII letter must fold to that letter, or a match could be skipped (checked over Unicode,
    so a Python whose case tables grow fails here instead of leaking a secret)."""
    letter = re.compile("(?i)[a-z]")
    for cp in range(0x80, 0x110000):
        c = chr(cp)
        if letter.fullmatch(c):
            folded = secrets._fold(c)
            assert folded.isascii() and re.fullmatch("(?i)" + folded, c), hex(cp)
    assert len(secrets._fold("\u0130x\u017f")) == 3


# ---------------------------------------------------------------- tokens

def _search_tokens_reference(text: str) -> list[str]:
    out: list[str] = []
    for m in re.finditer(r"[A-Za-z_][A-Za-z0-9_]*(?:-[A-Za-z][A-Za-z0-9_]*)*|[0-9]+", text):
        word = m.group(0)
        parts = split_identifier(word)
        out.extend(p for p in parts if len(p) > 1 and p not in STOP_WORDS)
        if len(parts) > 1:
            out.append(word.lower())
            if "-" in word:
                out.extend(w for w in word.lower().split("-") if w and len(split_identifier(w)) > 1)
    return out


def _count_tokens_reference(text: str) -> int:
    if not text:
        return 0
    pieces = 0
    for m in re.finditer(r"[A-Za-z]+|[0-9]{1,3}|[!-/:-@\[-`{-~]{1,3}|[^\x00-\x7f]", text):
        n = m.end() - m.start()
        pieces += 1 if n <= 12 else math.ceil(n / 6)
    return max(math.ceil(len(text) / 4), pieces)


def test_tokens_equal_the_one_match_at_a_time_scan() -> None:
    rnd = random.Random(7)
    parts = ["parseHTTPRequest_v2", "no-unused-vars", "my-fooBar-baz_qux", "a" * 12, "b" * 13, "C" * 25, "x" * 36,
             "1234567", "!!!!!!!", "=>", "\u00e9", "\u4e2d\u6587", " ", "\n", "\t", "-", "_", "the", "of", "HTTPServer"]
    for _ in range(3000):
        text = "".join(rnd.choice(parts) for _ in range(rnd.randint(0, 40)))
        assert search_tokens(text) == _search_tokens_reference(text), text
        assert search_tokens(text) == search_tokens(text)  # a cached word hands out a fresh list
        assert count_tokens(text) == _count_tokens_reference(text), text


# ---------------------------------------------------------------- index

def _repo(root: Path) -> None:
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.ts").write_text("export function parseWidget(x: string) {\n  return x.trim();\n}\n"
                                       "const apiToken = 'Zq8xL2mN7vR4pT9w';\n")
    (root / "src" / "b.py").write_text("def render_widget(w):\n    return w\n\n\nclass Loader:\n    pass\n")
    (root / "README.md").write_text("# Widgets\n\nParse and render widgets. \u00e9t\u00e9 \u4e2d\u6587\n")
    (root / "BUILD.bazel").write_text('load("//x:y.bzl", "z")\n\ngo_library(name = "widget")\n')


def _state(root: Path) -> tuple:
    idx = update_index(root)
    model, order = idx.bm25(root)
    postings = {}
    for term, tid in model.vocab.items():
        if tid + 1 < len(model.indptr):
            a, b = model.indptr[tid], model.indptr[tid + 1]
            postings[term] = (list(model.indices[a:b]), list(model.data[a:b]))
    meta = {p: (e.digest, e.language, e.rows, e.tokens, e.imports) for p, e in idx.files.items()}
    return meta, {e.digest: idx.terms.get(e.digest) for e in idx.files.values()}, order, postings


def test_incremental_index_equals_a_fresh_one(tmp_path: Path) -> None:
    live = tmp_path / "live"
    _repo(live)
    update_index(live)
    (live / "src" / "a.ts").write_text("export function parseWidgetFast(x: string) {\n  return x;\n}\n"
                                       "const password = 'hunter2hunter2';\n")
    (live / "src" / "b.py").unlink()
    (live / "src" / "c.go").write_text("package c\n\nfunc RenderWidget() {}\n")
    incremental = _state(live)
    fresh_root = tmp_path / "fresh"
    shutil.copytree(live, fresh_root, ignore=shutil.ignore_patterns(".ctxsel"))
    assert _state(fresh_root)[:3] == incremental[:3]
    assert _state(fresh_root)[3] == incremental[3]


def test_build_bm25_equals_bm25s(tmp_path: Path) -> None:
    """build_bm25 computes the postings itself; every posting (chunk, score) must be bm25s's own."""
    import bm25s

    _repo(tmp_path)
    idx = update_index(tmp_path)
    ours, order = build_bm25(tmp_path, idx)
    joined = [idx.terms[idx.files[p].digest][i] for p, i in order]
    corpus = [j.split(" ") if j else ["\0empty"] for j in joined]
    ref = bm25s.BM25(**BM25_PARAMS)
    ref.index(corpus, show_progress=False)
    theirs = LexicalModel.from_bm25s(ref)
    assert set(ours.vocab) == set(theirs.vocab)
    for term in ours.vocab:
        if term == "":
            continue
        a, b = ours.indptr[ours.vocab[term]], ours.indptr[ours.vocab[term] + 1]
        c, d = theirs.indptr[theirs.vocab[term]], theirs.indptr[theirs.vocab[term] + 1]
        assert (list(ours.indices[a:b]), list(ours.data[a:b])) == (list(theirs.indices[c:d]), list(theirs.data[c:d]))
    assert load_index(tmp_path).files.keys() == idx.files.keys()


def test_postings_equal_bm25s_bit_for_bit() -> None:
    """Documents of every length (one term to hundreds, repeats, a lone placeholder), terms of
    every document frequency: same (document, float32 score) per term as bm25s."""
    import bm25s
    import numpy as np

    rnd = random.Random(3)
    words = [f"w{i}" for i in range(400)]
    docs = [" ".join(rnd.choice(words[:rnd.randint(1, 400)]) for _ in range(rnd.randint(1, 300))) for _ in range(600)]
    docs += ["\0empty", "w1", "w1 w1 w1 w1"]
    vocab, data, indices, indptr, n_docs = lucene_postings(docs)
    ref = bm25s.BM25(**BM25_PARAMS)
    ref.index([d.split(" ") for d in docs], show_progress=False)
    sc = ref.scores
    assert n_docs == sc["num_docs"] and set(vocab) == set(ref.vocab_dict)
    for term, rid in ref.vocab_dict.items():
        if rid + 1 >= len(sc["indptr"]):
            assert vocab[term] + 1 >= len(indptr)
            continue
        a, b = indptr[vocab[term]], indptr[vocab[term] + 1]
        c, d = sc["indptr"][rid], sc["indptr"][rid + 1]
        assert np.array_equal(indices[a:b], sc["indices"][c:d]), term
        assert np.array_equal(data[a:b].view(np.uint32), sc["data"][c:d].astype(np.float32).view(np.uint32)), term
