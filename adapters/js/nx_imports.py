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
import sys
from collections.abc import Generator
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
# group numbers of _MASTER (``m.lastindex`` is cheaper than ``m.lastgroup``)
_WS, _LINE_COMMENT, _BLOCK_COMMENT, _STR, _WORD, _NUM, _BQ, _PUNCT = (_MASTER.groupindex[g] for g in ("ws", "lc", "bc", "str", "word", "num", "bq", "punct"))
_TEMPLATE_CHARS = re.compile(r"(?:[^`\\$]|\\[\s\S]|\$(?!\{))*")
_REGEX_BODY = re.compile(r"/(?:[^/\\\[\n]|\\.|\[(?:[^\]\\\n]|\\.)*\]?)*/?[\w$]*")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\n": ""}

#: a token standing for a run of text the lexer skimmed over without making its tokens
SKIMMED = "skimmed"
# A run of tokens whose reading is fixed by their own characters and that no statement reader
# needs: words other than import/export/require, closed one-line strings, numbers, punctuation
# but "/" (regex or division: depends on the token before) and "`", with whitespace and closed
# comments before each. Alternatives and their order are _MASTER's, so the run splits into the
# same tokens; a string with a line break or no closing quote, a "/", a "`", a statement word or
# a character no rule knows ends the run, and the ordinary lexer reads on from there. Each gap
# and token is an atomic group: backtracking into a comment or a token could split it otherwise
# than _MASTER does. Atomic groups need Python 3.11; on 3.10 nothing is skimmed.
_SKIM_GAP = r"(?>(?:[ \t\r\n\f\v\u00a0\ufeff\u2028\u2029]|//[^\n]*|/\*[\s\S]*?\*/)*)"
_SKIM_SOURCE = rf"""(?:{_SKIM_GAP}
    (?>"(?:[^"\\\n]|\\[^\n])*"|'(?:[^'\\\n]|\\[^\n])*'
    |(?!(?:import|export|require)(?![\w$\u0080-\uffff]))[A-Za-z_$\u0080-\uffff][\w$\u0080-\uffff]*
    |\.?\d[\w.]*
    |>>>=|\.\.\.|===|!==|\*\*=|<<=|>>=|>>>|&&=|\|\|=|\?\?=|=>|==|!=|<=|>=|\+=|-=|\*=|%=|&=|\|=|\^=
    |\*\*|<<|>>|&&|\|\||\?\?|\+\+|--|[{{}}()\[\];:,.=<>+\-*%&|^!~?@\#]))+"""
_SKIM = re.compile(_SKIM_SOURCE, re.VERBOSE) if sys.version_info >= (3, 11) else None
_SKIM_GAP_ONLY = re.compile(_SKIM_GAP) if _SKIM is not None else None
# The same runs read coarsely, many tokens per step: runs of whitespace and punctuation, whole
# words (not a statement word: checked at the word's start, as _MASTER's words start there),
# numbers, dots, closed one-line strings and closed comments. It ends before the characters
# _SKIM ends before, so where no "/" follows, the run's tokens are never asked for, not even the
# last one; where a "/" follows, _SKIM reads the run again to find its last token.
_SKIM_COARSE = re.compile(
    r"""(?:(?:[^/`'"\\\w$\u0080-\uffff.]|[\u00a0\ufeff\u2028\u2029])++
    |(?!(?:import|export|require)(?![\w$\u0080-\uffff]))[A-Za-z_$\u0080-\uffff][\w$\u0080-\uffff]*+
    |\.?\d[\w.]*+|\.
    |"(?:[^"\\\n]|\\[^\n])*+"|'(?:[^'\\\n]|\\[^\n])*+'
    |//[^\n]*+|/\*(?>[\s\S]*?\*/))++""",
    re.VERBOSE,
) if _SKIM is not None else None
#: last characters of the tokens after which "/" is a division (_DIVISION_AFTER), but "." (a
#: number such as ``1.``, or a dot): word and number characters are tested separately
_DIVISION_AFTER_CHARS = frozenset("\'\")]}_$")
# Where the brace bookkeeping may be consulted (``catch_up``): at a ``require`` and at an ``import``
# whose next token is "(" (a comment may stand between, so a "/" counts too). Matched on the
# plain text, so also in strings and comments: the lexer skims only after the last match. Not
# after a character that continues or starts a word (an ASCII word character, "$", any BMP
# character but _MASTER's whitespace); an astral letter may be a stray token, so it counts.
_CONSULTS_BOOKKEEPING = re.compile(
    r"(?<![A-Za-z0-9_$\u0080-\u009f\u00a1-\u2027\u202a-\ufefe\uff00-\uffff])"
    r"(?:require(?![\w$\u0080-\uffff])|import(?=[ \t\r\n\f\v\u00a0\ufeff\u2028\u2029]*[(/]))"
)
# tokens after which a statement reader may read on (see _in_export): the lexer makes them one
# by one, and skims again only after a token no reader reads past
_READ_ON = frozenset({LBRACE, RBRACE, COMMA, WORD})


def _unquote(raw: str) -> str:
    """The value of a string token (quotes and escapes removed)."""
    body = raw[1:-1] if len(raw) > 1 and raw[-1] == raw[0] else raw[1:]
    if "\\" not in body:
        return body
    return re.sub(r"\\([\s\S])", lambda m: _ESCAPES.get(m.group(1), m.group(1)), body)


def tokenize(text: str) -> tuple[list[Token], set[int]]:
    """Tokens of a TS/JS file and the (0-based) lines on which a ``nx-ignore-next-line`` comment ends."""
    tokens: list[Token] = []
    ignore_lines: set[int] = set()
    lexer = _lex(text, tokens, ignore_lines)
    next(lexer)
    try:
        lexer.send(len(text))
    except StopIteration:
        pass
    return tokens, ignore_lines


def _lex(text: str, tokens: list[Token], ignore_lines: set[int], skim_from: int | None = None) -> Generator[int, int, None]:
    """Appends the tokens of ``text`` to ``tokens`` (and ``nx-ignore-next-line`` lines to ``ignore_lines``).

    A generator so that a file can be lexed only as far as the scanner reads it: it is sent the
    position to lex up to, stops after the first token that ends there or later and yields the
    position reached. (Tokens never depend on text after them, so a prefix lexed this way is the
    prefix of the whole file's tokens.)

    One ``finditer`` runs over the text for as long as each token's meaning is fixed by its own
    characters (a word, a string, a comment, most punctuation): one C-level search per token
    instead of one Python-level ``match`` call. It is restarted where the previous token decides
    the reading (a "/" that opens a regex, a "`" or a "}" that resumes a template) and after a
    character no rule knows, which ``finditer`` would silently skip.

    From position ``skim_from`` on (None: never), outside template expressions, runs of tokens
    that no statement can start (see ``_SKIM``) are matched as a whole and stand as one
    ``SKIMMED`` token: a multi-MB ``.d.ts`` of ``export declare class`` is read at regex speed,
    not one Python step per token. Only ``find_imports`` asks for it, from where no
    ``import``/``require`` follows, so the brace bookkeeping never reads a skimmed run; a
    statement reader that reaches one raises ``_ReadSkimmed`` and the file is read again whole.
    """
    append = tokens.append
    i, n, line = 0, len(text), 0
    newline = False
    prev_kind = ""
    # one entry per open "${": the brace depth inside that template expression
    template_depth: list[int] = []
    finditer = _MASTER.finditer
    keywords = KEYWORDS
    if skim_from is None or _SKIM is None:
        skim_from = n + 1  # never skim
    else:
        skim, skim_coarse = _SKIM.match, _SKIM_COARSE.match
    read_on = _READ_ON
    skim_ok = True  # the last token made is one no statement reader reads past

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

    stop = yield i
    while i < n:
        if i >= stop:
            stop = yield i
            continue
        if skim_ok and i >= skim_from and not template_depth and (m := skim_coarse(text, i)) is not None:
            end = m.end()
            if text[end:end + 1] != "/":  # the next token is not "/": the run's last token does not matter
                append((SKIMMED, None, line, newline))
                line += text.count("\n", i, end)  # no skimmed string holds a line break
                newline, prev_kind, i = False, SKIMMED, end
            elif (m := skim(text, i)) is not None:  # read the run again, ending at its last token
                end = m.end()
                last = text[end - 1]
                after = _SKIM_GAP_ONLY.match(text, end).end() if last == "." else end
                if last != "." or text[after:after + 1] != "/":
                    # what the "/" means needs only whether the last token is one of _DIVISION_AFTER
                    # (a "." is a dot or ends a number such as ``1.``: read on below)
                    append((SKIMMED, None, line, newline))
                    line += text.count("\n", i, end)
                    division = last.isalnum() or last in _DIVISION_AFTER_CHARS or last >= "\x80"
                    newline, prev_kind, i = False, (WORD if division else OTHER), end
                else:  # lex up to that "/" token by token, once: skimming again would rescan to it
                    skim_from = after + 1
        skim_ok = False
        stray = False
        for m in finditer(text, i):
            if i >= stop:
                break
            if m.start() != i:
                stray = True  # text[i] starts no token: handled below, then the search restarts
                break
            group = m.lastindex
            space, value = m.group(_WS, group)
            if space and "\n" in space:
                line += space.count("\n")
                newline = True
            i = m.end()
            if group == _WORD:
                kind = KEYWORD if value in keywords else WORD
                append((kind, value, line, newline))
                newline, prev_kind = False, kind
                if i >= skim_from and kind == KEYWORD and value not in _STATEMENT_STARTS and value != "default" and not template_depth:
                    skim_ok = True
                    break  # no reader reads past this keyword: skim on
                continue
            if group == _PUNCT:
                if (value == "/" or value == "/=") and prev_kind not in _DIVISION_AFTER:
                    r = _REGEX_BODY.match(text, i - len(value))
                    append((REGEX, r.group(), line, newline))
                    newline, prev_kind = False, REGEX
                    i = r.end()
                    break  # the regex may run past this match: search again after it
                if template_depth and value == "{":
                    template_depth[-1] += 1
                elif template_depth and value == "}":
                    if template_depth[-1] == 0:
                        # closes the "${": swc reports a plain "}" and the template resumes
                        template_depth.pop()
                        append((RBRACE, "}", line, newline))
                        newline = False
                        i = template_chunk(i)
                        break
                    template_depth[-1] -= 1
                kind = _SIMPLE.get(value) or (ASSIGN if value in _ASSIGN_OPS else BINOP if value in _BIN_OPS else OTHER)
                append((kind, value, line, newline))
                newline, prev_kind = False, kind
                if i >= skim_from and kind not in read_on and value != "*" and not template_depth:
                    skim_ok = True
                    break  # no reader reads past this token: skim on
                continue
            if group == _WS:  # trailing whitespace at the end of the file
                continue
            if group == _STR:
                kind = STR
                append((STR, _unquote(value), line, newline))
            elif group == _NUM:
                kind = NUM
                append((NUM, value, line, newline))
            elif group == _BQ:
                append((BACKQUOTE, "`", line, newline))
                newline = False
                i = template_chunk(i)
                break
            else:  # a comment
                if group == _BLOCK_COMMENT and "\n" in value:
                    line += value.count("\n")
                    newline = True
                if "nx-ignore-next-line" in value:
                    ignore_lines.add(line)
                continue
            newline, prev_kind = False, kind
        if stray:  # a character no rule knows (a stray backslash), maybe after whitespace
            while text[i] in " \t\r\n\f\v":
                if text[i] == "\n":
                    line += 1
                    newline = True
                i += 1
            append((OTHER, text[i], line, newline))
            newline, prev_kind = False, OTHER
            i += 1


# Block kinds tracked by Nx's scanner to tell a top-level require (static) from one in a function (dynamic).
BLOCK, FUNCTION, CLASS, OBJECT, OBJECT_TYPE, ARROW, TRY = "block", "function", "class", "object", "object-type", "arrow", "try"
STATIC, DYNAMIC = "static", "dynamic"
#: the words that start what Nx's scanner reads: keywords ``import``/``export``, identifier ``require``
_STATEMENT_STARTS = frozenset({"import", "export", "require"})


class _ReadSkimmed(Exception):
    """A statement reader reached a run the lexer skimmed: read the file again without skimming."""


class _Scanner:
    """Nx's ``State``: reads the tokens in order, keeping its brace/block bookkeeping.

    The bookkeeping is a function of the tokens read so far, and it is consulted only at a
    dynamic ``import(...)`` and at a ``require(...)``; most files have neither. So ``next()``
    only reads, and ``catch_up()`` brings the bookkeeping up to the token last read when it is
    needed: same answers, without a Python-level step per token of every file.
    """

    def __init__(self, text: str, skim_from: int | None = None) -> None:
        self.tokens: list[Token] = []
        self.ignore_lines: set[int] = set()
        self._lexer: Generator[int, int, None] | None = _lex(text, self.tokens, self.ignore_lines, skim_from)
        self.lexed_to = next(self._lexer)
        self.pos = -1
        self.import_type = DYNAMIC
        self.open_braces = 0
        self.open_brackets = 0
        self.blocks: list[str] = []
        self.next_block = BLOCK
        self.caught_up = 0  # tokens[:caught_up] are in the bookkeeping

    def lex_to(self, stop: int) -> None:
        """Lex the text at least up to position ``stop`` (or to its end)."""
        if self._lexer is None:
            return
        try:
            self.lexed_to = self._lexer.send(stop)
        except StopIteration:
            self._lexer = None

    def next(self) -> Token | None:
        self.pos += 1
        tokens = self.tokens
        while self.pos >= len(tokens) and self._lexer is not None:
            self.lex_to(self.lexed_to + 1)  # one more token: a statement rarely reads far
        if self.pos >= len(tokens):
            return None
        tok = tokens[self.pos]
        if tok[0] == SKIMMED:
            raise _ReadSkimmed
        return tok

    def catch_up(self) -> None:
        """Apply the bookkeeping of every token read since the last call."""
        tokens = self.tokens
        end = min(self.pos + 1, len(tokens))
        import_type, open_braces, open_brackets = self.import_type, self.open_braces, self.open_brackets
        blocks, next_block = self.blocks, self.next_block
        prev = tokens[self.caught_up - 1] if self.caught_up else None
        for k in range(self.caught_up, end):
            tok = tokens[k]
            kind = tok[0]
            if kind == DOLLAR_LBRACE:
                open_braces += 1
            elif kind == LBRACE:
                open_braces += 1
                blocks.append(next_block)
            elif kind == RBRACE:
                open_braces -= 1
                next_block = BLOCK
                if blocks:
                    blocks.pop()
            elif kind == LBRACKET:
                open_brackets += 1
            elif kind == RBRACKET:
                open_brackets -= 1
            if tok[3] and open_braces == 0:
                import_type = DYNAMIC
            prev_is_ident = prev is not None and prev[0] == WORD
            if kind == WORD:
                if tok[1] == "as":
                    import_type = STATIC
            elif kind == KEYWORD:
                if tok[1] == "export":
                    import_type = DYNAMIC
                elif tok[1] == "function":
                    next_block = FUNCTION
                elif tok[1] == "class":
                    next_block = CLASS
                elif tok[1] in ("try", "catch", "finally"):
                    next_block = TRY
            elif kind == ASSIGN:
                import_type = DYNAMIC
                next_block = OBJECT
            elif kind == LPAREN:
                if prev is not None:
                    next_block = OBJECT if prev_is_ident else ARROW
            elif kind == LBRACKET:
                if prev is not None:
                    next_block = OBJECT_TYPE if prev[0] == COLON else OBJECT
            elif kind == COMMA:
                if open_brackets > 0:  # in an array
                    next_block = OBJECT
            elif kind == BINOP:
                if tok[1] == "<":
                    if prev_is_ident:
                        import_type = STATIC
                elif tok[1] != "/":
                    import_type = DYNAMIC
            elif kind in (DOLLAR_LBRACE, LBRACE, SEMI):
                import_type = DYNAMIC
            elif kind == COLON and prev is not None:
                if OBJECT in blocks and (prev[0] in (STR, RBRACKET) or prev_is_ident):
                    import_type = DYNAMIC
                else:
                    next_block = OBJECT_TYPE
                    import_type = STATIC
            elif kind == SKIMMED:  # not expected (see _CONSULTS_BOOKKEEPING), but never guessed
                raise _ReadSkimmed
            prev = tok
        self.import_type, self.open_braces, self.open_brackets = import_type, open_braces, open_brackets
        self.next_block = next_block
        self.caught_up = max(self.caught_up, end)


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
                    s.catch_up()
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
            s.catch_up()
            static = all(b == OBJECT for b in s.blocks)
            return found, STATIC if static else DYNAMIC
        elif found is not None:
            continue
        else:
            return None
    return None


def find_imports(text: str) -> FileImports:
    """Static and dynamic import specifiers of one file, in source order (duplicates kept)."""
    if "nx-ignore-next-line" in text:  # its line numbers must count every token: no skimming
        return _read_statements(text, None)
    # (from the end of that line: the require(...) or import(...) is read on from there)
    consulted = _bookkeeping_last_consulted(text)
    skim_from = (text.find("\n", consulted) + 1 or len(text)) if consulted else 0
    try:
        return _read_statements(text, skim_from)
    except _ReadSkimmed:
        return _read_statements(text, None)


def _bookkeeping_last_consulted(text: str) -> int:
    """The end of the last ``_CONSULTS_BOOKKEEPING`` match (0: none), found from the end of the
    text with ``rfind``: a regex opening with a lookbehind scans every position of a large file."""
    last = 0
    for word in ("require", "import"):
        end = len(text)
        while (at := text.rfind(word, 0, end)) >= last:
            if (m := _CONSULTS_BOOKKEEPING.match(text, at)) is not None:
                last = m.end()
                break
            end = at + len(word) - 1
    return last


def _read_statements(text: str, skim_from: int | None) -> FileImports:
    """``find_imports`` with the lexer skimming from ``skim_from`` on (None: never)."""
    s = _Scanner(text, skim_from)
    # Nx's loop reads token by token and skips all but these words, so no token after the last
    # of them in the text can start a statement: lex only that far (and on as a statement reads)
    s.lex_to(max((at + len(word) for word in _STATEMENT_STARTS if (at := text.rfind(word)) >= 0), default=0))
    tokens, ignore_lines = s.tokens, s.ignore_lines
    static: list[str] = []
    dynamic: list[str] = []
    # and jump from one to the next instead of stepping through the tokens between them
    starts = [k for k, tok in enumerate(tokens) if tok[1] in _STATEMENT_STARTS and tok[0] in (KEYWORD, WORD)]
    for k in starts:
        if k <= s.pos:  # read as part of the previous statement
            continue
        s.pos = k
        tok = tokens[k]
        if tok[1] == "import":
            found = _in_import(s)
        elif tok[1] == "export":
            found = _in_export(s)
        else:
            found = _in_require(s)
        if found is None or (tok[2] - 1) in ignore_lines:
            continue
        (static if found[1] == STATIC else dynamic).append(found[0])
    return FileImports(static, dynamic)
