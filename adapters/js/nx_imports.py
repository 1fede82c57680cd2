"""The module specifiers a TS/JS file imports, found the way Nx's own scanner finds them.

Nx infers project edges from source imports with a token-level scanner (its Rust
``find_imports``, built on the swc lexer) rather than a full parser. Matching ``nx graph``
means matching that scanner's quirks, not the language: ``require`` is recognised as any
identifier followed by a literal argument (``foo.require('x')`` counts, ``jest.mock('x')``
does not), an ``import``/``export`` followed by something unexpected is skipped together
with the token after it, a line after a ``nx-ignore-next-line`` comment is ignored, and each
import is "static" or "dynamic" by the same brace/assignment bookkeeping. This module is a
port of that scanner over a small hand-written tokenizer (comments, strings, template
literals with nested ``${}``, regex literals) so text in comments and strings never
becomes an edge. No tree-sitter: the graph must build in milliseconds per file.

Known gap: JSX text is not lexed as JSX; an apostrophe in JSX text (``<p>it's</p>``) opens a
string that ends at the end of its line, so at most that line's imports can be misread.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Token kinds (the subset of swc's tokens the scanner distinguishes).
WORD, KEYWORD, STR, NUM, TEMPLATE, BACKQUOTE, DOLLAR_LBRACE = "word", "kw", "str", "num", "tpl", "`", "${"
LBRACE, RBRACE, LPAREN, RPAREN, LBRACKET, RBRACKET = "{", "}", "(", ")", "[", "]"
SEMI, COLON, COMMA, DOT, ASSIGN, BINOP, REGEX, OTHER = ";", ":", ",", ".", "=", "binop", "regex", "other"

#: swc's keywords; every other word (``as``, ``type``, ``from``, ``require``, ``async``) is an identifier
KEYWORDS = frozenset(
    "await break case catch class const continue debugger default delete do else export extends finally for "
    "function if import in instanceof let new return super switch this throw try typeof var void while with "
    "yield null true false".split()
)

_ASSIGN_OPS = frozenset({"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", ">>>=", "&=", "|=", "^=", "**=", "&&=", "||=", "??="})
_BIN_OPS = frozenset({"==", "!=", "===", "!==", "<", "<=", ">", ">=", "<<", ">>", ">>>", "+", "-", "*", "/", "%", "|", "^", "&", "||", "&&", "**", "??"})
_SIMPLE = {"{": LBRACE, "}": RBRACE, "(": LPAREN, ")": RPAREN, "[": LBRACKET, "]": RBRACKET, ";": SEMI, ":": COLON, ",": COMMA, ".": DOT}
# tokens after which "/" is a division, not a regex (Nx's own rule)
_DIVISION_AFTER = frozenset({NUM, WORD, KEYWORD, RPAREN, RBRACE, RBRACKET, STR, BACKQUOTE})


# A token is a tuple (kind, value, line, newline_before): ``line`` is the 0-based line of its
# first character, ``newline_before`` whether a line break separates it from the previous
# token. Tuples, not objects: a large repository has millions of tokens.
Token = tuple  # (str, str, int, bool)


@dataclass
class FileImports:
    static: list[str]
    dynamic: list[str]


# One match per token: leading whitespace, then comments or one token.
_MASTER = re.compile(
    r"""(?P<ws>[ \t\r\n\f\v\u00a0\ufeff\u2028\u2029]*)
    (?:(?P<lc>//[^\n]*)
    |(?P<bc>/\*[\s\S]*?(?:\*/|\Z))
    |(?P<str>"(?:[^"\\\n]|\\[\s\S])*"?|'(?:[^'\\\n]|\\[\s\S])*'?)
    |(?P<word>[A-Za-z_$\u0080-\uffff][\w$\u0080-\uffff]*)
    |(?P<num>\.?\d[\w.]*)
    |(?P<bq>`)
    |(?P<punct>>>>=|\.\.\.|===|!==|\*\*=|<<=|>>=|>>>|&&=|\|\|=|\?\?=|=>|==|!=|<=|>=|\+=|-=|\*=|%=|&=|\|=|\^=|/=
      |\*\*|<<|>>|&&|\|\||\?\?|\+\+|--|[{}()\[\];:,.=<>+\-*%&|^!~?@\#/])
    |\Z)""",
    re.VERBOSE,
)
_TEMPLATE_CHARS = re.compile(r"(?:[^`\\$]|\\[\s\S]|\$(?!\{))*")
_REGEX_BODY = re.compile(r"/(?:[^/\\\[\n]|\\.|\[(?:[^\]\\\n]|\\.)*\]?)*/?[\w$]*")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\n": ""}


def _unquote(raw: str) -> str:
    """The value of a string token (quotes and escapes removed)."""
    body = raw[1:-1] if len(raw) > 1 and raw[-1] == raw[0] else raw[1:]
    if "\\" not in body:
        return body
    return re.sub(r"\\([\s\S])", lambda m: _ESCAPES.get(m.group(1), m.group(1)), body)


def tokenize(text: str) -> tuple[list[Token], set[int]]:
    """Tokens of a TS/JS file and the (0-based) lines on which a ``nx-ignore-next-line`` comment ends."""
    tokens: list[Token] = []
    append = tokens.append
    ignore_lines: set[int] = set()
    i, n, line = 0, len(text), 0
    newline = False
    prev_kind = ""
    # one entry per open "${": the brace depth inside that template expression
    template_depth: list[int] = []
    match = _MASTER.match

    def template_chunk(j: int) -> int:
        """Template characters from ``j`` up to "`" or "${"; appends TEMPLATE and the closer."""
        nonlocal line, prev_kind
        m = _TEMPLATE_CHARS.match(text, j)
        chunk = m.group()
        append((TEMPLATE, chunk, line, False))
        line += chunk.count("\n")
        j = m.end()
        if j >= n:
            prev_kind = TEMPLATE
            return j
        if text[j] == "`":
            append((BACKQUOTE, "`", line, False))
            prev_kind = BACKQUOTE
            return j + 1
        append((DOLLAR_LBRACE, "${", line, False))
        prev_kind = DOLLAR_LBRACE
        template_depth.append(0)
        return j + 2

    while i < n:
        m = match(text, i)
        if m is None:  # a character no rule knows (a stray backslash), maybe after whitespace
            while text[i] in " \t\r\n\f\v":
                if text[i] == "\n":
                    line += 1
                    newline = True
                i += 1
            append((OTHER, text[i], line, newline))
            newline, prev_kind = False, OTHER
            i += 1
            continue
        space = m.group("ws")
        if space and "\n" in space:
            line += space.count("\n")
            newline = True
        group = m.lastgroup
        i = m.end()
        if group == "ws":  # trailing whitespace at the end of the file
            continue
        value = m.group(group)
        line_of_value = line
        if group == "lc":
            if "nx-ignore-next-line" in value:
                ignore_lines.add(line)
            continue
        if group == "bc":
            if "\n" in value:
                line += value.count("\n")
                newline = True
            if "nx-ignore-next-line" in value:
                ignore_lines.add(line)
            continue
        if group == "word":
            kind = KEYWORD if value in KEYWORDS else WORD
        elif group == "str":
            kind, value = STR, _unquote(value)
        elif group == "num":
            kind = NUM
        elif group == "bq":
            append((BACKQUOTE, "`", line, newline))
            newline = False
            i = template_chunk(i)
            continue
        else:  # punctuation
            if (value == "/" or value == "/=") and prev_kind not in _DIVISION_AFTER:
                r = _REGEX_BODY.match(text, i - len(value))
                append((REGEX, r.group(), line, newline))
                newline, prev_kind = False, REGEX
                i = r.end()
                continue
            if template_depth and value == "{":
                template_depth[-1] += 1
            elif template_depth and value == "}":
                if template_depth[-1] == 0:
                    # closes the "${": swc reports a plain "}" and the template resumes
                    template_depth.pop()
                    append((RBRACE, "}", line, newline))
                    newline = False
                    i = template_chunk(i)
                    continue
                template_depth[-1] -= 1
            kind = _SIMPLE.get(value) or (ASSIGN if value in _ASSIGN_OPS else BINOP if value in _BIN_OPS else OTHER)
        append((kind, value, line_of_value, newline))
        newline, prev_kind = False, kind
    return tokens, ignore_lines


# Block kinds tracked by Nx's scanner to tell a top-level require (static) from one in a function (dynamic).
BLOCK, FUNCTION, CLASS, OBJECT, OBJECT_TYPE, ARROW, TRY = "block", "function", "class", "object", "object-type", "arrow", "try"
STATIC, DYNAMIC = "static", "dynamic"


class _Scanner:
    """Nx's ``State``: walks the tokens keeping its brace/block bookkeeping."""

    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.pos = -1
        self.current: Token | None = None
        self.previous: Token | None = None
        self.import_type = DYNAMIC
        self.open_braces = 0
        self.open_brackets = 0
        self.blocks: list[str] = []
        self.next_block = BLOCK

    def next(self) -> Token | None:
        self.previous = self.current
        self.pos += 1
        tok = self.tokens[self.pos] if self.pos < len(self.tokens) else None
        self.current = tok
        if tok is None:
            return None
        kind = tok[0]
        if kind == DOLLAR_LBRACE:
            self.open_braces += 1
        elif kind == LBRACE:
            self.open_braces += 1
            self.blocks.append(self.next_block)
        elif kind == RBRACE:
            self.open_braces -= 1
            self.next_block = BLOCK
            if self.blocks:
                self.blocks.pop()
        elif kind == LBRACKET:
            self.open_brackets += 1
        elif kind == RBRACKET:
            self.open_brackets -= 1
        in_object = OBJECT in self.blocks
        in_array = self.open_brackets > 0
        if tok[3] and self.open_braces == 0:
            self.import_type = DYNAMIC
        prev = self.previous
        prev_is_ident = prev is not None and prev[0] == WORD
        if kind == WORD and tok[1] == "as":
            self.import_type = STATIC
        elif kind == KEYWORD:
            if tok[1] == "export":
                self.import_type = DYNAMIC
            elif tok[1] == "function":
                self.next_block = FUNCTION
            elif tok[1] == "class":
                self.next_block = CLASS
            elif tok[1] in ("try", "catch", "finally"):
                self.next_block = TRY
        elif kind == ASSIGN:
            self.import_type = DYNAMIC
            self.next_block = OBJECT
        elif kind == LPAREN:
            if prev is not None:
                self.next_block = OBJECT if prev_is_ident else ARROW
        elif kind == LBRACKET:
            if prev is not None:
                self.next_block = OBJECT_TYPE if prev[0] == COLON else OBJECT
        elif kind == COMMA:
            if in_array:
                self.next_block = OBJECT
        elif kind == BINOP:
            if tok[1] == "<":
                if prev_is_ident:
                    self.import_type = STATIC
            elif tok[1] != "/":
                self.import_type = DYNAMIC
        elif kind in (DOLLAR_LBRACE, LBRACE, SEMI):
            self.import_type = DYNAMIC
        elif kind == COLON and prev is not None:
            if in_object and (prev[0] in (STR, RBRACKET) or prev_is_ident):
                self.import_type = DYNAMIC
            else:
                self.next_block = OBJECT_TYPE
                self.import_type = STATIC
        return tok


def _template_literal(s: _Scanner) -> tuple[bool, str | None]:
    """After a "`": (ok, raw) for a template with no ``${}``; ok=False otherwise."""
    raw: str | None = None
    seen = False
    while (tok := s.next()) is not None:
        if tok[0] == BACKQUOTE:
            return True, raw
        if tok[0] == TEMPLATE and not seen:
            seen, raw = True, tok[1]
        else:
            return False, None
    return True, raw


def _in_import(s: _Scanner) -> tuple[str, str] | None:
    tok = s.next()
    if tok is None:
        return None
    if tok[0] == LPAREN:  # import('a')
        literal: str | None = None
        while (cur := s.next()) is not None:
            if cur[0] == STR:
                literal = cur[1]
            elif cur[0] == BACKQUOTE:
                ok, raw = _template_literal(s)
                if not ok:
                    return None
                literal = raw
            elif cur[0] == RPAREN:
                if literal is not None:
                    return literal, s.import_type
            else:
                return None
        return None
    if tok[0] == LBRACE or (tok[0] == BINOP and tok[1] == "*"):
        pass
    elif tok[0] in (WORD, KEYWORD):
        if tok[0] == WORD and tok[1] == "type":
            nxt = s.next()
            if nxt is not None and not (nxt[0] == LBRACE or (nxt[0] == BINOP and nxt[1] == "*") or nxt[0] == WORD):
                return None
    elif tok[0] == STR:  # import 'a'
        return tok[1], STATIC
    else:
        return None
    while (cur := s.next()) is not None:
        if cur[0] == STR:
            return cur[1], STATIC
    return None


def _in_export(s: _Scanner) -> tuple[str, str] | None:
    tok = s.next()
    if tok is None:
        return None
    if tok[0] == LBRACE or (tok[0] == BINOP and tok[1] == "*"):
        pass
    elif tok[0] == WORD and tok[1] == "type":
        nxt = s.next()
        if nxt is not None and nxt[0] != LBRACE:
            return None
    else:
        return None
    while (cur := s.next()) is not None:
        if cur[0] in (RBRACE, COMMA, WORD) or (cur[0] == KEYWORD and cur[1] == "default"):
            continue
        if cur[0] == STR:
            return cur[1], STATIC
        return None
    return None


def _in_require(s: _Scanner) -> tuple[str, str] | None:
    found: str | None = None
    seen = False
    while (cur := s.next()) is not None:
        kind = cur[0]
        if kind in (LPAREN, DOT, COMMA, LBRACE, RBRACE, LBRACKET, RBRACKET, COLON, WORD):
            continue
        if kind == STR:
            if not seen:
                seen, found = True, cur[1]
            else:
                found = None
        elif kind == BACKQUOTE:
            ok, raw = _template_literal(s)
            if not ok:
                return None
            found = raw
        elif kind == RPAREN:
            if found is None:
                return None
            static = all(b == OBJECT for b in s.blocks)
            return found, STATIC if static else DYNAMIC
        elif found is not None:
            continue
        else:
            return None
    return None


def find_imports(text: str) -> FileImports:
    """Static and dynamic import specifiers of one file, in source order (duplicates kept)."""
    tokens, ignore_lines = tokenize(text)
    s = _Scanner(tokens)
    static: list[str] = []
    dynamic: list[str] = []
    while (tok := s.next()) is not None:
        if tok[0] == KEYWORD and tok[1] == "import":
            found = _in_import(s)
        elif tok[0] == KEYWORD and tok[1] == "export":
            found = _in_export(s)
        elif tok[0] == WORD and tok[1] == "require":
            found = _in_require(s)
        else:
            continue
        if found is None or (tok[2] - 1) in ignore_lines:
            continue
        (static if found[1] == STATIC else dynamic).append(found[0])
    return FileImports(static, dynamic)
