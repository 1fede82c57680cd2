"""Chunk boundaries per language: syntax units, merged small siblings, statement-level splits."""

from __future__ import annotations

import pytest

from ctxsel.chunking import DEFAULT_CHUNK_TOKENS, ChunkSettings, chunk_file, language_of

SMALL = ChunkSettings(max_tokens=60, min_tokens=20)


def _body(n: int, fmt: str) -> str:
    return "\n".join(fmt.format(i=i) for i in range(n))


SNIPPETS = {
    "a.py": ("python", "import os\n\n\ndef alpha(x):\n{b1}\n    return x\n\n\nclass Beta(Base):\n    def gamma(self):\n{b2}\n        return 1\n",
             dict(b1=_body(12, "    x = x + {i}  # step {i}"), b2=_body(12, "        self.v{i} = {i} * 2"))),
    "a.js": ("javascript", "import {{ x }} from './x';\n\nfunction alpha(a) {{\n{b1}\n  return a;\n}}\n\nclass Beta {{\n  gamma() {{\n{b2}\n    return 1;\n  }}\n}}\n",
             dict(b1=_body(12, "  a = a + {i}; // step {i}"), b2=_body(12, "    this.v{i} = {i} * 2;"))),
    "a.ts": ("typescript", "import {{ x }} from './x';\n\nexport function alpha(a: number): number {{\n{b1}\n  return a;\n}}\n\nexport class Beta {{\n  gamma(): number {{\n{b2}\n    return 1;\n  }}\n}}\n",
             dict(b1=_body(12, "  a = a + {i}; // step {i}"), b2=_body(12, "    this.v{i} = {i} * 2;"))),
    "a.tsx": ("tsx", "import React from 'react';\n\nexport function alpha(a: number) {{\n{b1}\n  return <div>{{a}}</div>;\n}}\n\nexport class Beta {{\n  gamma() {{\n{b2}\n    return 1;\n  }}\n}}\n",
              dict(b1=_body(12, "  a = a + {i}; // step {i}"), b2=_body(12, "    this.v{i} = {i} * 2;"))),
    "a.go": ("go", "package a\n\nimport \"fmt\"\n\nfunc alpha(a int) int {{\n{b1}\n\treturn a\n}}\n\ntype Beta struct{{}}\n\nfunc (b *Beta) gamma() int {{\n{b2}\n\treturn 1\n}}\n",
             dict(b1=_body(12, "\ta = a + {i} // step {i}"), b2=_body(12, "\tfmt.Println({i} * 2)"))),
    "A.java": ("java", "import java.util.List;\n\nclass Beta {{\n  int alpha(int a) {{\n{b1}\n    return a;\n  }}\n\n  int gamma() {{\n{b2}\n    return 1;\n  }}\n}}\n",
               dict(b1=_body(12, "    a = a + {i}; // step {i}"), b2=_body(12, "    System.out.println({i} * 2);"))),
    "a.rs": ("rust", "use std::fmt;\n\nfn alpha(mut a: i32) -> i32 {{\n{b1}\n    a\n}}\n\nimpl Beta {{\n    fn gamma(&self) -> i32 {{\n{b2}\n        1\n    }}\n}}\n",
             dict(b1=_body(12, "    a = a + {i}; // step {i}"), b2=_body(12, "        println!(\"{{}}\", {i} * 2);"))),
    "a.c": ("c", "#include \"a.h\"\n\nint alpha(int a) {{\n{b1}\n  return a;\n}}\n\nint gamma(void) {{\n{b2}\n  return 1;\n}}\n",
            dict(b1=_body(12, "  a = a + {i}; /* step {i} */"), b2=_body(12, "  printf(\"%d\", {i} * 2);"))),
    "a.cpp": ("cpp", "#include <vector>\n\nint alpha(int a) {{\n{b1}\n  return a;\n}}\n\nclass Beta {{\n public:\n  int gamma() {{\n{b2}\n    return 1;\n  }}\n}};\n",
              dict(b1=_body(12, "  a = a + {i}; // step {i}"), b2=_body(12, "    std::cout << {i} * 2;"))),
    "defs.bzl": ("starlark", "load(\"//x:y.bzl\", \"z\")\n\ndef alpha(name):\n{b1}\n    return name\n\ndef gamma(ctx):\n{b2}\n    return 1\n",
                 dict(b1=_body(12, "    name = name + \"{i}\"  # step {i}"), b2=_body(12, "    ctx.actions.run(arguments = [\"{i}\"])"))),
}


@pytest.mark.parametrize("path", sorted(SNIPPETS))
def test_chunks_cut_at_syntax_boundaries(path: str) -> None:
    language, template, parts = SNIPPETS[path]
    text = template.format(**parts)
    lines = text.split("\n")
    fc = chunk_file(path, text, SMALL)
    assert fc.language == language == language_of(path)
    chunks = fc.chunks
    assert chunks, "no chunks"
    # every non-blank line is in exactly one chunk, chunks in order without overlap
    covered = [ln for c in chunks for ln in range(c.start_line, c.end_line + 1)]
    assert covered == sorted(set(covered))
    assert {i + 1 for i, line in enumerate(lines) if line.strip()} <= set(covered)
    # no cut inside a statement: each chunk starts at the first line of some syntax line
    for c in chunks:
        first = lines[c.start_line - 1].strip()
        assert not first.startswith((")", ",", "+", ".")), (path, c)
    # the long function bodies were split, and the pieces name their enclosing definition
    assert len(chunks) >= 3
    assert any("alpha" in c.scope for c in chunks) or any("alpha" in c.symbols for c in chunks)
    assert any("gamma" in c.scope or "Beta" in c.scope for c in chunks)
    assert fc.imports, "imports collected"


def test_small_siblings_are_merged() -> None:
    text = "\n".join(f"def f{i}():\n    return {i}\n" for i in range(10))
    fc = chunk_file("m.py", text, ChunkSettings(max_tokens=400))
    assert len(fc.chunks) == 1
    assert fc.chunks[0].symbols == tuple(f"f{i}" for i in range(10))


def test_default_limit_merges_neighbours_up_to_it_and_no_further() -> None:
    """The default settings are the size the benchmark chose; ``for_limit`` (the ``chunk_tokens``
    setting) derives the text-window size the same way for any limit."""
    assert ChunkSettings() == ChunkSettings.for_limit(DEFAULT_CHUNK_TOKENS)
    assert ChunkSettings.for_limit(50).min_tokens == 20 and ChunkSettings.for_limit(800).min_tokens == 300
    text = "\n".join(f"def handler_{i}(request, response):\n    response.write(render(request.path, {i}))\n"
                     for i in range(40))
    lines = text.split("\n")
    chunks = chunk_file("views.py", text).chunks
    # the chunker sizes lines as chars / 4 (the packer counts them again with count_tokens)
    sizes = [sum(len(line) + 1 for line in lines[c.start_line - 1:c.end_line]) / 4 for c in chunks]
    assert 1 < len(chunks) < 40, "neighbours merged, but not into one chunk"
    assert max(sizes) <= DEFAULT_CHUNK_TOKENS
    covered = {n for c in chunks for n in range(c.start_line, c.end_line + 1)}
    assert all(n in covered for n, line in enumerate(lines, 1) if line.strip()), "every code line in some chunk"


def test_large_function_keeps_signature_with_first_piece() -> None:
    body = "\n".join(f"    total += compute({i})" for i in range(60))
    text = f"def outer(total):\n{body}\n    return total\n"
    fc = chunk_file("big.py", text, ChunkSettings(max_tokens=100, min_tokens=30))
    assert len(fc.chunks) > 1
    assert fc.chunks[0].start_line == 1
    assert all(c.scope.startswith("def outer") for c in fc.chunks[1:])


def test_text_files_are_cut_at_blank_lines() -> None:
    paras = ["\n".join(f"word{p}_{i} " * 8 for i in range(6)) for p in range(6)]
    text = "\n\n".join(paras) + "\n"
    fc = chunk_file("notes.md", text, ChunkSettings(max_tokens=200, min_tokens=50))
    lines = text.split("\n")
    assert fc.language == "" and len(fc.chunks) > 1
    for c in fc.chunks[:-1]:
        assert lines[c.end_line] == "", "a window ends just before a blank line"


def test_unparseable_input_never_crashes() -> None:
    for path in ("x.py", "x.ts", "x.go", "BUILD"):
        fc = chunk_file(path, "def (((\n}}}} ]]]\n\0\x01 garbage\n" * 20, SMALL)
        assert fc.chunks


def test_chunking_is_deterministic() -> None:
    language, template, parts = SNIPPETS["a.ts"]
    text = template.format(**parts)
    assert chunk_file("a.ts", text, SMALL) == chunk_file("a.ts", text, SMALL)
