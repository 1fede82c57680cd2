"""The fast reading of ``find_imports`` gives the answers of Nx's token-by-token reading.

``find_imports`` lexes a file only up to the last ``import``/``export``/``require`` word (and on
while a statement reads), jumps from one statement start to the next and brings the scanner's
brace/block bookkeeping up to date only where a dynamic import or a ``require`` consults it.
The reference here is the reading Nx's scanner does: lex everything, step through every token,
update the bookkeeping after each one. Both are built from the module's own pieces, so the
comparison checks the shortcuts, not a second scanner. (The rewrite was also compared with the
previous module on real repositories and generated inputs; see the session 24 ``hp`` report.)
"""

from __future__ import annotations

import pytest

from ctxsel.adapters.js import nx_imports as nxi


class _StepwiseScanner(nxi._Scanner):
    """Nx's order: the bookkeeping is updated after every token read."""

    def next(self) -> nxi.Token | None:
        tok = super().next()
        self.catch_up()
        return tok


def _stepwise_reading(text: str) -> tuple[list[str], list[str]]:
    """Nx's loop: lex the whole file, read token by token, skip all but the statement starts."""
    s = _StepwiseScanner(text)
    s.lex_to(len(text))
    static: list[str] = []
    dynamic: list[str] = []
    while (tok := s.next()) is not None:
        if tok[0] == nxi.KEYWORD and tok[1] == "import":
            found = nxi._in_import(s)
        elif tok[0] == nxi.KEYWORD and tok[1] == "export":
            found = nxi._in_export(s)
        elif tok[0] == nxi.WORD and tok[1] == "require":
            found = nxi._in_require(s)
        else:
            continue
        if found is None or (tok[2] - 1) in s.ignore_lines:
            continue
        (static if found[1] == nxi.STATIC else dynamic).append(found[0])
    return static, dynamic


TRICKY = {
    "regex after paren is division": "const a = (b) / 2; const c = require('after-division');\n",
    "regex after keyword": "function f() { return /import('x')/.test(s) && require('after-regex') }\n",
    "regex after identifier is division": "x = a / b / import('divided');\nrequire('next')\n",
    "regex with slash in class and backquote": "const r = /[/`]/g; import('after-class');\nrequire('r2')\n",
    "division after regex starts a regex": "const q = /a/ / require('not-a-call') / 2;\nimport 'tail';\n",
    "postfix then slash": "i++ / 2 / require('pp');\nexport * from './e';\n",
    "nested template with import": "const t = `a${`b${import('inner')}`}c${require('outer')}`;\nimport 'after-tpl';\n",
    "template closing brace in object": "const o = `${ {a: require('in-obj')} }`; export { x } from './x';\n",
    "comment with backquote": "// a ` in a comment\nimport a from './a';\n/* ` ${ */ require('b');\n",
    "unterminated string": "const s = 'open\nimport 'still';\nrequire('c')\n",
    "unterminated template": "import x from './x';\nconst t = `never closed ${ require('in') ",
    "unterminated block comment": "import 'a';\n/* require('b')",
    "crlf line ends": "import a from './a';\r\n// nx-ignore-next-line\r\nimport b from './b';\r\nconst c = require('c');\r\n",
    "ignore comment block": "/* nx-ignore-next-line */\nrequire('ignored');\nrequire('kept');\n",
    "string with line continuation": "const s = 'a\\\nb';\n// nx-ignore-next-line\nimport 'maybe-ignored';\n",
    "unicode identifiers and astral chars": "const été = require('été');\nconst e = '😀'; <p>😀</p>\nimport 'ü';\n",
    "stray backslash": "a \\ b;\n\\u0041 = require('escaped');\nimport 'after';\n",
    "statement read past the last word": "export {\n  a,\n  b,\n} from './far-below';\n",
    "type import then assignment": "import type { T } from './t';\nimport x = require('eq');\n",
    "require in if and class blocks at end": "import 'a';\nif (a) { require('in-if') }\nclass K { m() { require('in-method') } }\n",
    "import in type position": "let v: import('./types').T;\nconst w = <T>(x) => import('generic');\n",
    "statement word read by the previous statement": "import type import('swallowed');\nexport export * from './x';\n",
    "require deep in functions at end": "import 'a';\n" + "function f() {\n" * 5 + "require('deep');\n" + "}\n" * 5,
    "dynamic import after assignment at top level": "export const lazy = () => import('lazy');\nconst y = import('y');\n",
    "jsx apostrophe": "const el = <p>it's</p>;\nconst m = require('a');\nimport('b');\n",
    "word inside strings only": "const s = 'import export require';\nconst t = `import`;\n",
    "no statement words": "const a = 1;\n",
    "empty": "",
}


@pytest.mark.parametrize("text", list(TRICKY.values()), ids=list(TRICKY))
def test_fast_reading_matches_stepwise_reading(text: str) -> None:
    found = nxi.find_imports(text)
    assert (found.static, found.dynamic) == _stepwise_reading(text)


@pytest.mark.parametrize("text", list(TRICKY.values()), ids=list(TRICKY))
def test_every_truncation_matches_stepwise_reading(text: str) -> None:
    """Cutting a file anywhere (a statement, string, template or comment left open) changes nothing."""
    for end in range(len(text) + 1):
        found = nxi.find_imports(text[:end])
        assert (found.static, found.dynamic) == _stepwise_reading(text[:end]), text[:end]


@pytest.mark.parametrize("text", list(TRICKY.values()), ids=list(TRICKY))
def test_lexing_in_steps_gives_a_prefix_of_the_whole_tokens(text: str) -> None:
    """Pausing the lexer anywhere and resuming it gives the tokens of one uninterrupted pass."""
    whole, ignore_lines = nxi.tokenize(text)
    for step in (1, 3, 17):
        s = nxi._Scanner(text)
        stop = 0
        while s._lexer is not None:
            s.lex_to(stop)
            assert s.tokens == whole[: len(s.tokens)]
            stop += step
        assert (s.tokens, s.ignore_lines) == (whole, ignore_lines)


def test_code_after_the_last_statement_word_is_not_lexed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The speed-up itself: a file whose imports sit at the top is lexed no further than them."""
    lexed: list[list[nxi.Token]] = []
    real_lex = nxi._lex

    def recording_lex(text: str, tokens: list[nxi.Token], ignore_lines: set[int], *skim_from: int | None):
        lexed.append(tokens)
        return real_lex(text, tokens, ignore_lines, *skim_from)

    monkeypatch.setattr(nxi, "_lex", recording_lex)
    text = "import a from './a';\nimport { b } from './b';\n" + "const x = [1, 2, 3].map((v) => v * 2);\n" * 500
    found = nxi.find_imports(text)
    assert found.static == ["./a", "./b"]
    assert len(lexed) == 1 and len(lexed[0]) < 20
