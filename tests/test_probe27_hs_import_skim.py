"""Skimming in ``find_imports``: large declaration files are read at regex speed, same answers.

A multi-MB ``.d.ts`` is mostly ``export declare class ...`` with no ``require`` and no dynamic
``import(...)``, so Nx's brace bookkeeping is never consulted there and the statement readers
read one or two tokens after each ``export``. ``find_imports`` therefore skims such runs
(``nx_imports._SKIM_COARSE``) instead of making a Python tuple per token (NativeScript: 7.7M
tokens -> 0.47M, CPU 17.0 s -> 4.2 s over its 1,680 module files, session 27 ``hs``).

Nx 24 reads these files as it reads any other: imports in ``.d.ts`` files, at the end of a
5 MB file and in a minified one-line file are all edges of ``nx graph`` (measured; the oracle
test below keeps checking it), so nothing may be skipped, only read faster. The reference for
the generated texts is the reading without skimming (the lexer of sessions 24-26, unchanged)
and Nx's token-by-token reading from ``test_probe24_hp_imports_equivalence``.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import sys
from pathlib import Path

import pytest

from ctxsel.adapters.base import AdapterOptions
from ctxsel.adapters.js import nx_imports as nxi
from ctxsel.adapters.js.nx import NxAdapter
from ctxsel.cache import InputTracker
from test_nx_oracle import Nx, ctxsel_edges, nx_edges
from test_probe24_hp_imports_equivalence import _stepwise_reading

needs_skim = pytest.mark.skipif(sys.version_info < (3, 11), reason="skimming needs atomic groups (Python 3.11+)")

#: pieces that change how the text after them is read, or end a skimmed run
FRAGMENTS = [
    "import", "export", "require", "import(", "require(", "export {", "export * from", "import type", "export type {",
    "exports", "required", "important", "$import", "_export", "a.export", "1.export", "1.", "1./2", "x./", ".5.",
    "'", '"', "`", "${", "}", "{", "(", ")", "[", "]", ";", ",", ":", "=", "<", ">", "*", "/", "//", "/*", "*/",
    "/re[/]x/g", "a / b", "\\", "\n", "\r\n", " ", "\t", "\u00a0", "\ufeff", "\u2028", "\x00", "\ufffd", "😀", "𝐀",
    "'./a'", '"b"', "'un\\\nterminated", "'open", "`t${`n${import('i')}`}`", "/* c */", "// c\n", "/** @export */",
    "from", "as", "default", "type", "declare", "class", "function", "module", "x", "foo", "=>", "...", "?.", "#p", "@d",
    "nx-ignore-next-line",
]


def _hostile_text(rng: random.Random) -> str:
    return "".join(rng.choice(FRAGMENTS) + rng.choice(("", " ", "", "\n")) for _ in range(rng.randint(1, 60)))


def _answers(found: nxi.FileImports) -> tuple[list[str], list[str]]:
    return found.static, found.dynamic


@needs_skim
def test_generated_hostile_text_reads_as_without_skimming() -> None:
    """Unterminated strings, comments and templates, regex literals, nested templates, NUL,
    U+FFFD from invalid UTF-8, astral characters, statement words inside other words."""
    rng = random.Random(27)
    for _ in range(4000):
        text = _hostile_text(rng)
        expected = _answers(nxi._read_statements(text, None))
        assert _answers(nxi.find_imports(text)) == expected, repr(text)
        assert _stepwise_reading(text) == expected, repr(text)


@needs_skim
def test_invalid_utf8_decoded_as_ctxsel_reads_files() -> None:
    rng = random.Random(2701)
    for _ in range(300):
        raw = bytes(rng.randrange(256) for _ in range(rng.randint(0, 40)))
        text = (_hostile_text(rng).encode() + raw + b"export * from './tail';\n").decode("utf-8", errors="replace")
        assert _answers(nxi.find_imports(text)) == _answers(nxi._read_statements(text, None)), repr(text)


@needs_skim
def test_skimming_from_every_position_changes_nothing() -> None:
    """Whatever position the skimming starts from (not only after the last require/import()),
    the answer is the unskimmed one: a reader that meets a skimmed run makes the file be read again."""
    rng = random.Random(2702)
    for _ in range(150):
        text = _hostile_text(rng)
        expected = _answers(nxi._read_statements(text, None))
        if "nx-ignore-next-line" in text:
            continue
        for start in range(0, len(text) + 1, 3):
            try:
                found = nxi._read_statements(text, start)
            except nxi._ReadSkimmed:
                continue
            assert _answers(found) == expected, (start, text)


def _declarations(classes: int) -> str:
    body = "\n".join(
        f"\t\texport class C{i} extends java.lang.Object {{\n"
        f"\t\t\t/** Constructs C{i}: see https://example.com/c{i} */\n"
        f"\t\t\tpublic static class: java.lang.Class<android.C{i}>;\n"
        f"\t\t\tpublic get(param0: string, param1: number[]): android.C{i}; // it's fine\n"
        "\t\t}"
        for i in range(classes))
    return f"declare module android {{\n\texport module app {{\n{body}\n\t}}\n}}\n"


@needs_skim
def test_a_large_declaration_file_makes_few_tokens(monkeypatch: pytest.MonkeyPatch) -> None:
    """The speed-up itself: the old reading made one token per word of the file."""
    made: list[list[nxi.Token]] = []
    real_init = nxi._Scanner.__init__

    def recording_init(self: nxi._Scanner, text: str, *skim_from: int | None) -> None:
        real_init(self, text, *skim_from)
        made.append(self.tokens)

    monkeypatch.setattr(nxi._Scanner, "__init__", recording_init)
    text = "import { T } from './types';\n" + _declarations(3000) + "export * from './tail';\n"
    found = nxi.find_imports(text)
    assert _answers(found) == (["./types", "./tail"], [])
    whole, _ = nxi.tokenize(text)
    assert len(made) == 1 and len(made[0]) * 5 < len(whole), (len(made[0]), len(whole))


class _CountingPattern:
    """Stands for a compiled pattern, counting its ``match`` calls."""

    def __init__(self, pattern: "re.Pattern[str]") -> None:
        self.pattern, self.calls = pattern, 0

    def match(self, text: str, pos: int = 0) -> "re.Match[str] | None":
        self.calls += 1
        return self.pattern.match(text, pos)


@needs_skim
def test_a_run_that_cannot_be_skimmed_is_not_rescanned(monkeypatch: pytest.MonkeyPatch) -> None:
    """A run ending in ``1.`` before "/" cannot be skimmed (is ``1.`` a number or a dot?): it is
    lexed token by token once, not matched again from every token up to the "/" (quadratic)."""
    coarse, precise = _CountingPattern(nxi._SKIM_COARSE), _CountingPattern(nxi._SKIM)
    monkeypatch.setattr(nxi, "_SKIM_COARSE", coarse)
    monkeypatch.setattr(nxi, "_SKIM", precise)
    text = "export const a = 1;\n" + "a;" * 20_000 + "1./2;\nexport * from './x';\n"
    assert _answers(nxi.find_imports(text)) == (["./x"], [])
    assert coarse.calls + precise.calls < 10, (coarse.calls, precise.calls)


NX_FILES = {
    "nx.json": "{}",
    "package.json": json.dumps({"name": "root", "private": True, "devDependencies": {"@nx/js": "1"}}),
    "tsconfig.base.json": json.dumps({"compilerOptions": {"baseUrl": ".", "paths": {
        f"@ws/{p}": [f"libs/{p}/src/index.ts"] for p in "acdefg"}}}),
}


@pytest.fixture(scope="module")
def skim_workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Imports where skimming happens: .d.ts files, a 5 MB file, a minified one-line file."""
    ws = tmp_path_factory.mktemp("skim") / "ws"
    files = dict(NX_FILES)
    for p in "abcdefgh":
        files[f"libs/{p}/project.json"] = json.dumps({"name": p, "root": f"libs/{p}", "projectType": "library"})
        files[f"libs/{p}/src/index.ts"] = f"export const {p} = 1;\n"
    decl = _declarations(400)
    files["libs/b/src/types.d.ts"] = "import { a } from '@ws/a';\n" + decl + "export { c } from '@ws/c';\n"
    files["libs/b/src/big.ts"] = "export const pad = [" + ",".join(["1"] * 2_600_000) + "];\nimport { d } from '@ws/d';\n"
    files["libs/b/src/min.js"] = "var q=1;" * 200_000 + 'require("@ws/e");' + "var z=2;" * 1000 + "\n"
    files["libs/h/src/mod.d.ts"] = decl + "declare module 'x' { import f = require('@ws/f'); }\n" + decl + "export * from '@ws/g';\n"
    for rel, text in files.items():
        path = ws / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return ws


@pytest.mark.oracle
def test_skimmed_files_give_nx_graph_edges(skim_workspace: Path, tmp_path: Path) -> None:
    nx = Nx(skim_workspace, tmp_path / "state")
    expected = nx_edges(nx.graph(tmp_path / "graph.json"))
    # measured with nx 24.0.6: every import above is an edge, .d.ts and large files included
    assert {(s, t) for s, t, _ in expected} >= {("b", "a"), ("b", "c"), ("b", "d"), ("b", "e"), ("h", "f"), ("h", "g")}
    static = NxAdapter(skim_workspace, AdapterOptions(source="static")).load(InputTracker(skim_workspace))
    assert ctxsel_edges(static) == expected
    shutil.rmtree(skim_workspace / ".ctxsel", ignore_errors=True)


def test_without_atomic_groups_nothing_is_skimmed() -> None:
    """Python 3.10 has no atomic groups: the lexer then reads every token, as before."""
    assert (nxi._SKIM is None) == (sys.version_info < (3, 11))
