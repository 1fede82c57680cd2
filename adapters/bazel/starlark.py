"""A small, bounded Starlark evaluator for BUILD and .bzl files.

Why Python's ``ast`` and not a Starlark grammar: BUILD and .bzl files are valid Python
syntax, so ``ast.parse`` gives exact line numbers for syntax errors at no dependency
cost. Why an evaluator and not a pattern match over calls: real BUILD files build
their attribute values (``srcs = glob(...) + select(...)``, ``"%s_test" % name``) and
call macros loaded from .bzl files; only evaluating them gives the labels Bazel sees.

What it is not: a full Starlark interpreter. It runs the loading-phase subset
(literals, operators, comprehensions, ``def``/``if``/``for``, string and list methods,
``glob``, ``select``, ``native.*``, ``rule()``) with a step budget so a pathological
file cannot hang a pre-commit hook. Whatever it cannot evaluate becomes ``UNKNOWN``
and is reported, never guessed silently.
"""
from __future__ import annotations

import ast
import re
import warnings
from typing import Any, Callable, Container, Iterable, Sequence

from ctxsel.errors import CtxselError

from .starlark_builtins import METHODS, MUTATING_METHODS, READ_ONLY_CALLS, NativeModule, make_builtins
from .starlark_values import (
    _MISSING,
    MAX_SEQUENCE,
    UNKNOWN,
    AttrSpec,
    Builtin,
    EvalError,
    EvaluatedModule,
    Function,
    LabelValue,
    PackageContext,
    PartialDict,
    RuleClass,
    Select,
    SelectorList,
    Struct,
    SymbolicMacro,
    TargetCall,
    UnknownCallable,
    _check_size,
    _format_percent,
    _type_name,
    dict_key,
    check_written_size,
)

MAX_STEPS = 2_000_000  # per top-level statement, macros it calls included
MAX_DEPTH = 64  # call depth (Starlark forbids recursion; this catches it anyway)
#: Building a sequence costs one step per this many elements, so the step budget also
#: bounds memory: a loop that copies a megabyte string each turn stops after a few
#: dozen turns (2M steps x 8 = 16M elements per statement) instead of filling the RAM.
ELEMENTS_PER_STEP = 8
MAX_INT_BITS = 4096  # repeated squaring would otherwise build a number the size of the memory


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


def parse(source: str, path: str) -> ast.Module:
    """Parse Starlark source; a syntax error is an ``EvalError`` naming the line.

    Python's grammar is a superset of Starlark's, so the tree is then checked against
    the Starlark dialect (``check_dialect``): Bazel refuses the whole package for an
    f-string or a top-level ``for`` in a BUILD file, so evaluating it would answer for
    targets that ``bazel query`` says do not load.
    """
    if source.startswith("\ufeff"):  # Bazel reads the bytes as Latin-1: three invalid characters
        raise EvalError("syntax error: invalid character: a UTF-8 byte order mark (Bazel refuses it; save the file without one)", 1, path)
    text = source
    try:
        tree = _python_parse(text, path)
    except SyntaxError as exc:  # NUL bytes come without a line (a ValueError before 3.11.?)
        tree = _parse_mixed_loads(text, path, exc)
        if tree is None:
            raise EvalError(f"syntax error: {exc.msg}", exc.lineno or _nul_line(text), path) from None
    except ValueError as exc:
        raise EvalError(f"syntax error: {exc}", _nul_line(text), path) from None
    except (RecursionError, MemoryError):  # CPython's parser recurses per nesting level
        raise EvalError("syntax error: expression nested too deeply", _longest_statement_line(text), path) from None
    lexer = _lexer_error(text)
    if lexer is not None:
        raise EvalError(f"syntax error: {lexer[1]}", lexer[0], path)
    tree.build_only_issues = check_dialect(tree, path)  # type: ignore[attr-defined]  # read by build_dialect_issues
    return tree


def _python_parse(text: str, path: str) -> ast.Module:
    """``ast.parse`` without Python's own warnings about the source (an invalid escape such as
    ``"\\d"`` is a DeprecationWarning in 3.11, a SyntaxWarning printed by default from 3.12):
    what is wrong in Starlark terms ``_lexer_error`` reports, once, naming file:line."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        return ast.parse(text, filename=path)


#: the escapes Bazel's Starlark accepts in a non-raw string. Bazel 4.2.3 takes only ``\\ \' \" \n
#: \r \t``, octal and a backslash-newline (measured: ``\x41``, ``\u0041``, ``\U00000041``, ``\a`` are
#: "invalid escape sequence"); later Bazels add ``\a \b \f \v`` (their ``Lexer.java``), so, as for the
#: rest of the dialect, only what no Bazel accepts is refused: ``\x``, ``\u``, ``\U``, ``\N{...}``
#: (in the Starlark spec, still "invalid escape sequence" in Bazel's Lexer.java at commit 024835c), ``\d``, ``\q``...
_STARLARK_ESCAPES = frozenset("\\'\"nrt01234567\n\rabfv")  # "\r": a CRLF file's line continuation
#: what may make ``_lexer_error`` find something: only such files are tokenized
_LEXER_SUSPECT = re.compile(r"\t|\\[^\\'\"nrt0-7\n\rabfv]")


def _lexer_error(text: str) -> tuple[int, str] | None:
    """``(line, message)`` of the first thing Bazel's Starlark lexer refuses that Python's
    accepts, or None: an escape outside ``_STARLARK_ESCAPES`` in a non-raw string, and a tab
    in the indentation of a statement (one inside brackets or after code is fine). Measured
    with Bazel 4.2.3: the file fails to parse, so its package (or every package loading the
    .bzl) has no target; ctxsel read ``"\\d"`` as itself and answered for those targets."""
    if not _LEXER_SUSPECT.search(text):
        return None
    import io
    import tokenize

    line_start = True
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
                line_start = True
                continue
            if tok.type in (tokenize.NL, tokenize.COMMENT):
                continue
            if line_start and "\t" in tok.line[:tok.start[1]]:
                return tok.start[0], "Tab characters are not allowed for indentation. Use spaces instead."
            line_start = False
            if tok.type == tokenize.STRING:
                found = _invalid_escape(tok.string)
                if found is not None:
                    return tok.start[0] + found[0], f"invalid escape sequence: \\{found[1]}"
    except (tokenize.TokenError, SyntaxError):
        return None
    return None


def _invalid_escape(literal: str) -> tuple[int, str] | None:
    """(lines into ``literal``, the character) of its first escape Bazel refuses; None for a
    raw string or none."""
    quote = min((i for i in (literal.find("'"), literal.find('"')) if i >= 0), default=0)
    if "r" in literal[:quote].lower():
        return None
    i = literal.find("\\", quote)
    while i >= 0:
        following = literal[i + 1:i + 2]
        if following and following not in _STARLARK_ESCAPES:
            return literal.count("\n", 0, i), following
        i = literal.find("\\", i + 2)
    return None


def build_dialect_issues(tree: ast.Module) -> list[tuple[int, str]]:
    """``(line, message)`` for what Bazel forbids in a BUILD file but allows in a .bzl file
    (``def``, ``*args``/``**kwargs`` arguments), as ``parse`` found them."""
    return list(getattr(tree, "build_only_issues", ()))


def first_undefined_name(tree: ast.Module, known: Container[str]) -> tuple[int, str] | None:
    """``(line, name)`` of the first name a BUILD file reads that neither the file binds
    (an assignment, a loop or comprehension variable, a ``load()`` symbol) nor ``known``
    holds; None when there is none.

    Bazel resolves a BUILD file's names before running any of it: one name it does not
    define fails the whole file, every target with it (Bazel 4.2.3: "name 'fun_mc' is not
    defined", 0 targets of tensorflow/probability's package, where ctxsel made 19). Binding
    anywhere in the file counts (a name read before its assignment is another, later
    error), so this check is never stricter than Bazel's. ``check_dialect``'s walk found
    the names read and never bound (``free_names``): a file without an undefined name is
    not walked again."""
    free: set[str] = getattr(tree, "free_names", set())
    loaded = {"load"}  # a statement in Starlark, a call in ctxsel's tree
    for stmt in tree.body:
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "load":
            loaded.update(k.arg for k in call.keywords if k.arg)
            loaded.update(a.value for a in call.args[1:] if isinstance(a, ast.Constant) and isinstance(a.value, str))
    undefined = {name for name in free if name not in loaded and name not in known}
    if not undefined:
        return None
    # rare: only now a second walk, for the line of the first read
    return min((node.lineno, node.col_offset, node.id) for node in ast.walk(tree)
               if type(node) is ast.Name and node.id in undefined)[0::2]


def _nul_line(text: str) -> int | None:
    """The line of the first NUL character, which Python refuses without naming a line."""
    at = text.find("\0")
    return text.count("\n", 0, at) + 1 if at >= 0 else None


def _parse_mixed_loads(text: str, path: str, error: SyntaxError) -> ast.Module | None:
    """The tree of ``text`` whose ``load()`` statements name a symbol after an alias.

    Starlark's grammar lets them mix (``load(":a.bzl", x = "y", "z")``: Bazel 4.2.3 loads
    it), Python's calls do not, so ctxsel refused the whole workspace (exit 2) where Bazel
    answers; ``"z"`` after an alias is ``z = "z"`` for the load, so it is rewritten that
    way, on the same line (line numbers of later errors stay right).
    None when ``error`` is another syntax error or the rewrite does not parse either.
    """
    if "positional argument follows keyword argument" not in (error.msg or ""):
        return None
    edits = _load_symbols_after_aliases(text)
    if not edits:
        return None
    lines = text.splitlines(keepends=True)
    for row, start, end, replacement in sorted(edits, reverse=True):
        lines[row - 1] = lines[row - 1][:start] + replacement + lines[row - 1][end:]
    try:
        return _python_parse("".join(lines), path)
    except (SyntaxError, ValueError):
        return None


def _load_symbols_after_aliases(text: str) -> list[tuple[int, int, int, str]]:
    """(row, start col, end col, ``z = "z"``) for each ``"z"`` that follows an alias inside
    a top-level ``load(``; [] when ``text`` does not tokenize."""
    import io
    import tokenize

    edits: list[tuple[int, int, int, str]] = []
    depth, in_load, alias_seen, prev, prev_was_first, line_start = 0, False, False, None, False, True
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.OP and tok.string in "([{":
                depth += 1
                in_load = in_load or (depth == 1 and prev is not None and prev.string == "load" and prev_was_first)
            elif tok.type == tokenize.OP and tok.string in ")]}":
                depth -= 1
                if depth == 0:
                    in_load = alias_seen = False
            elif in_load and depth == 1 and tok.type == tokenize.OP and tok.string == "=":
                alias_seen = True
            elif in_load and depth == 1 and alias_seen and tok.type == tokenize.STRING and prev is not None and prev.string in (",", "("):
                value = ast.literal_eval(tok.string)
                if isinstance(value, str) and value.isidentifier() and tok.start[0] == tok.end[0]:
                    edits.append((tok.start[0], tok.start[1], tok.end[1], f"{value}={tok.string}"))
            if tok.type not in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT):
                prev, prev_was_first, line_start = tok, line_start, tok.type == tokenize.NEWLINE
    except (tokenize.TokenError, SyntaxError, ValueError):
        return []
    return edits


def _longest_statement_line(text: str) -> int | None:
    """The first line of the logical line with the most tokens: where a parse ran out of stack.

    Python's RecursionError carries no position; the deepest nesting needs the most
    tokens, so this names the statement a user has to look at. ``tokenize`` is iterative.
    """
    import io
    import tokenize

    best, best_count, start, count = None, -1, None, 0
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if start is None and tok.type not in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT):
                start, count = tok.start[0], 0
            count += 1
            if tok.type in (tokenize.NEWLINE, tokenize.ENDMARKER) and start is not None:
                if count > best_count:
                    best, best_count = start, count
                start = None
    except (tokenize.TokenError, SyntaxError):
        if start is not None and count > best_count:
            best = start
    return best


#: Python statements and expressions that Starlark (every Bazel version) does not have,
#: with the message Bazel prints for them.
_NOT_STARLARK: dict[type, str] = {
    ast.While: "'while' not supported, use 'for' instead",
    ast.ClassDef: "keyword 'class' not supported",
    ast.Try: "'try' not supported, all exceptions are fatal",
    ast.With: "keyword 'with' not supported",
    ast.Raise: "keyword 'raise' not supported, use fail() instead",
    ast.Assert: "'assert' not supported, use 'fail' instead",
    ast.Delete: "'del' not supported, use '.pop()' to delete an item from a dictionary or a list",
    ast.Import: "'import' not supported, use 'load' instead",
    ast.ImportFrom: "'import' not supported, use 'load' instead",
    ast.Global: "keyword 'global' not supported",
    ast.Nonlocal: "keyword 'nonlocal' not supported",
    ast.AsyncFunctionDef: "keyword 'async' not supported",
    ast.AnnAssign: "syntax error at ':': expected newline",
    ast.JoinedStr: "f-strings are not supported",
    ast.NamedExpr: "syntax error at ':': assignment expressions are not supported",
    ast.Set: "set literals are not supported",
    ast.SetComp: "set comprehensions are not supported",
    ast.Yield: "keyword 'yield' not supported",
    ast.YieldFrom: "keyword 'yield' not supported",
    ast.Await: "keyword 'await' not supported",
}
for _name in ("TryStar", "Match", "TypeAlias"):  # newer Pythons only
    if hasattr(ast, _name):
        _NOT_STARLARK[getattr(ast, _name)] = "syntax error: not Starlark"
_BAD_CONSTANTS = (bytes, complex, type(Ellipsis))


def _node_error(node: ast.AST, kind: type, top_level: bool, call_stars: set[int]) -> str | None:
    """Why Bazel rejects ``node`` (of type ``kind``), or None when Starlark accepts it."""
    message = _NOT_STARLARK.get(kind)
    if message is not None:
        return message
    if kind is ast.Name:
        return None if node.id.isascii() else f"invalid character in identifier {node.id!r}"  # type: ignore[attr-defined]
    if kind is ast.Constant:
        return "syntax error: expected expression" if isinstance(node.value, _BAD_CONSTANTS) else None  # type: ignore[attr-defined]
    if kind is ast.Compare:
        ops = node.ops  # type: ignore[attr-defined]
        if any(isinstance(op, (ast.Is, ast.IsNot)) for op in ops):
            return "'is' not supported, use '==' instead"
        return "comparison operators are not associative; use parens" if len(ops) > 1 else None
    if kind is ast.BinOp or kind is ast.AugAssign:
        op = node.op  # type: ignore[attr-defined]
        if isinstance(op, ast.Pow):
            return "syntax error at '**': expected expression"
        return "invalid character: '@'" if isinstance(op, ast.MatMult) else None
    if kind is ast.FunctionDef:
        return "invalid character: '@'" if node.decorator_list else None  # type: ignore[attr-defined]
    if kind is ast.For or kind is ast.If:
        if top_level:
            return f"{'for loops' if kind is ast.For else 'if statements'} are not allowed at the top level"
        return "syntax error at 'else': for loops have no else clause" if kind is ast.For and node.orelse else None  # type: ignore[attr-defined]
    if kind is ast.Return:
        return "return statements must be inside a function" if top_level else None
    if kind is ast.Starred:
        return None if id(node) in call_stars else "syntax error at '*': expected expression"
    return None


#: the node types ``_node_error`` or ``_build_only`` look at; every other node is only walked
_CHECKED = frozenset(_NOT_STARLARK) | {ast.Name, ast.Constant, ast.Compare, ast.BinOp, ast.AugAssign, ast.FunctionDef,
                                       ast.For, ast.If, ast.Return, ast.Starred, ast.Call, ast.arg}


def _build_only(node: ast.AST, kind: type) -> str | None:
    """What Bazel forbids in BUILD files but allows in .bzl files: ``def`` and ``*args``/``**kwargs``."""
    if kind is ast.FunctionDef:
        return "function definitions are not allowed in BUILD files"
    if kind is ast.Call and (any(type(a) is ast.Starred for a in node.args) or any(k.arg is None for k in node.keywords)):  # type: ignore[attr-defined]
        return "*args and **kwargs arguments are not allowed in BUILD files"
    return None


def check_dialect(tree: ast.Module, path: str) -> list[tuple[int, str]]:
    """Raise an ``EvalError`` at the first construct Python parses but Bazel's Starlark refuses;
    return ``(line, message)`` for the constructs only a BUILD file may not have.

    Only constructs that no Bazel version accepts are refused (``lambda``, nested ``def``
    and floats came in later Starlark versions and are accepted). BUILD-only violations
    are returned, not raised: the construct itself evaluates fine, so ctxsel warns and
    keeps the package's targets while Bazel refuses the package. One iterative walk (a
    deeply nested file cannot exhaust the stack here) that inspects only ``_CHECKED``
    node types, so a 30,000-target BUILD file pays little for it.
    """
    top = {id(stmt) for stmt in tree.body}
    call_stars: set[int] = set()
    first: tuple[int, int, str] | None = None
    build_only: list[tuple[int, str]] = []
    reads: set[str] = set()
    bound: set[str] = set()
    checked, walk, name_kind, load_ctx = _CHECKED, ast.walk, ast.Name, ast.Load
    for node in walk(tree):  # breadth-first: a call is seen before its arguments
        kind = type(node)
        if kind not in checked:
            continue
        if kind is name_kind:
            if type(node.ctx) is load_ctx:  # type: ignore[attr-defined]
                reads.add(node.id)  # type: ignore[attr-defined]
            else:
                bound.add(node.id)  # type: ignore[attr-defined]
        elif kind is ast.arg:
            bound.add(node.arg)  # type: ignore[attr-defined]
            continue
        if kind is ast.Call:
            call_stars.update(id(a) for a in node.args if type(a) is ast.Starred)  # type: ignore[attr-defined]
        message = _node_error(node, kind, id(node) in top, call_stars)
        if message is not None:
            anchor = node.decorator_list[0] if kind is ast.FunctionDef and node.decorator_list else node  # type: ignore[attr-defined]
            where = (getattr(anchor, "lineno", 0) or 0, getattr(anchor, "col_offset", 0) or 0, message)
            if first is None or where < first:
                first = where
        issue = _build_only(node, kind) if kind is ast.FunctionDef or kind is ast.Call else None
        if issue is not None:
            build_only.append((node.lineno, issue))  # type: ignore[attr-defined]
    if first is not None:
        line, _, message = first
        raise EvalError(message if message.startswith("syntax error") else f"syntax error: {message}", line or None, path)
    tree.free_names = reads - bound  # type: ignore[attr-defined]  # read by first_undefined_name
    return sorted(build_only)


def rebound_global(tree: ast.Module) -> tuple[int, str] | None:
    """``(line, name)`` of the first top-level name a .bzl file binds a second time (an
    assignment, ``+=``, a ``def`` or a ``load()`` symbol), which Bazel refuses before running
    the file ("cannot reassign global 'v'", measured with Bazel 4.2.3; BUILD files may
    rebind). None when every global is bound once."""
    bound: set[str] = set()

    def names(target: ast.expr) -> list[str]:
        if isinstance(target, ast.Name):
            return [target.id]
        if isinstance(target, (ast.Tuple, ast.List)):
            return [n for t in target.elts for n in names(t)]
        return []  # x[0] = ..., x.f = ...: no binding

    for stmt in tree.body:
        if isinstance(stmt, ast.Assign):
            new = [n for t in stmt.targets for n in names(t)]
        elif isinstance(stmt, ast.AugAssign):
            new = names(stmt.target)
        elif isinstance(stmt, ast.FunctionDef):
            new = [stmt.name]
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Name) \
                and stmt.value.func.id == "load":
            new = [a.value for a in stmt.value.args[1:] if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            new += [k.arg for k in stmt.value.keywords if k.arg]
        else:
            continue
        for name in new:
            if name in bound:
                return stmt.lineno, name
            bound.add(name)
    return None


def _failing(name: str, reason: str) -> Builtin:
    """A name a failed ``load()`` should have bound: calling it repeats the load's error, so
    the statement is reported as lost instead of instantiating a guessed rule kind."""
    def fail(*args: Any, **kwargs: Any) -> Any:
        raise EvalError(f"{name}() cannot be called: {reason}")
    return Builtin(name, fail)


def _shift(op: ast.operator, a: int, b: int, line: int | None, path: str | None) -> int:
    """``a << b`` / ``a >> b`` as Starlark defines them (ints only, no negative count),
    bounded like every other int so ``1 << 10**9`` cannot allocate the memory away."""
    if b < 0:
        raise EvalError(f"negative shift count: {b}", line, path)
    if isinstance(op, ast.RShift):
        return a >> b
    if a and a.bit_length() + b > MAX_INT_BITS:
        raise EvalError("integer too large", line, path)
    return a << b


# ---------------------------------------------------------------- the interpreter
class Interpreter:
    """Evaluates modules; ``ctx`` is the BUILD file currently being evaluated (if any).

    ``load`` resolves ``load()`` statements (the static loader caches modules), ``glob``
    expands ``glob()`` against the file system, ``native_rule`` makes the callable for
    a native rule name (None when the name is not a rule).
    """

    def __init__(
        self,
        load: Callable[[str, str, int], dict[str, Any]],
        glob: Callable[["PackageContext", list[str], list[str], bool, bool, int], list[str]],
        native_rules: Iterable[str],
        note_unknown: Callable[[str, str, int], None],
    ) -> None:
        self._load = load
        self._glob = glob
        self._note_unknown = note_unknown
        self.ctx: PackageContext | None = None
        self.steps = 0
        self.depth = 0
        self.active: set[int] = set()  # the ``def`` nodes of the functions being called (recursion check)
        #: how often an unknown value was taken as false, empty or unequal (``_truth``,
        #: ``_iterate``, ``_compare``; the static loader adds one per load() of a .bzl that
        #: guessed): a ``fail()`` reached after such a guess may be one Bazel never
        #: reaches, so it is no ``EvalError.fatal`` stop (monotonic; compared per file)
        self.guesses = 0
        #: the lists and dicts of every .bzl evaluated so far (``freeze``), by id (the value is
        #: kept so the id is not reused): mutating one is Bazel's fatal "trying to mutate a
        #: frozen list value"
        self.frozen: dict[int, Any] = {}
        #: whether the call being made passes a ``**`` of a value ctxsel could not compute
        #: (read, and reset, by ``_call_function``: a missing argument may be in it)
        self.unknown_arguments = False
        #: whether the expression being evaluated is, lexically, the right side of an assignment
        #: (not an expression statement, not a function's body: a ``return`` in it is not)
        self.value_wanted = False
        self.native_rules = frozenset(native_rules)
        self.builtins = make_builtins(self)
        #: the file whose code calls the builtin running now (``Label(":x")`` is relative to it)
        self.call_path = ""
        #: the package of a repo-relative file (the static loader's); "" without one
        self.package_of: Callable[[str], str] = lambda path: ""
        #: ``subpackages(include, exclude, allow_empty)`` of the package being evaluated (the
        #: static loader's, which knows the directory tree); None: unknown
        self.subpackages: Callable[[PackageContext, list[str], list[str], bool, int], list[str]] | None = None
        #: ``name``/``version`` of the main module (``labels.module_info``); None: unknown
        self.module: dict[str, str] | None = None

    # ------------------------------------------------------------ modules
    def exec_module(self, tree: ast.Module, path: str, globals_: dict[str, Any],
                    per_statement: Callable[[EvalError], None] | None = None) -> EvalError | None:
        """Run a file's top-level statements. With ``per_statement``, an error in one
        statement is reported there and the next statement still runs (a BUILD file
        with one odd macro call still yields its other targets), unless it is an error
        Bazel stops the file on too (``EvalError.fatal``, reached while this file, and
        what it loads, made no guess about an unknown value: a guess in an earlier
        statement may have built the value the ``fail()`` tests): then the rest of the
        file is not run, as in Bazel, whose package keeps only the targets made before
        it. Returns that error (None: ran to the end)."""
        guesses = self.guesses
        for stmt in tree.body:
            self.steps = 0  # the budget is per top-level statement: one runaway macro call costs only itself
            if self.ctx is not None:
                self.ctx.line = stmt.lineno
            try:
                self._exec(stmt, globals_, None, path)
            except EvalError as exc:
                if exc.line is None:
                    exc.line = stmt.lineno
                if exc.path is None:
                    exc.path = path
                if per_statement is None:
                    raise
                exc.fatal = exc.fatal and self.guesses == guesses
                per_statement(exc)
                if exc.fatal:
                    return exc
            except (_Return, _Break, _Continue):
                per_statement and per_statement(EvalError("return/break/continue outside a function or loop", stmt.lineno, path))
            except RecursionError:
                err = EvalError("nesting too deep", stmt.lineno, path)
                if per_statement is None:
                    raise err from None
                per_statement(err)
            except CtxselError:  # e.g. a syntax error in a loaded .bzl: the user's to fix
                raise
            except Exception as exc:  # a construct this evaluator mishandles: lose one statement, not the repo
                if per_statement is None:
                    raise
                per_statement(EvalError(f"cannot evaluate ({type(exc).__name__}: {exc})", stmt.lineno, path))
        return None

    def freeze(self, globals_: dict[str, Any]) -> None:
        """Freeze what a .bzl made, once it ran to the end: Bazel freezes a module's values
        when its evaluation ends, so a list or dict it exports (or its functions reach) can
        no longer change, in the files loading it nor when its functions run later
        (measured with Bazel 4.2.3: ``L.append(1)`` on a loaded ``L`` fails the .bzl doing it,
        ``D["k"] = 2`` in a function called from a BUILD file stops that file; so would a
        ``+=`` on a default ``[]`` of its functions). Walked without recursion: a value may be
        nested deeply."""
        todo = list(globals_.values())
        seen: set[int] = set()  # structs and functions walked (a closure may hold its own struct)
        while todo:
            value = todo.pop()
            if isinstance(value, (tuple, Struct, Function)):
                if id(value) in seen:
                    continue
                seen.add(id(value))
            if isinstance(value, (list, dict)):
                if id(value) in self.frozen:
                    continue
                self.frozen[id(value)] = value
                todo.extend(value.values() if isinstance(value, dict) else value)
                if isinstance(value, dict):
                    todo.extend(value.keys())
            elif isinstance(value, tuple):
                todo.extend(value)
            elif isinstance(value, Struct):
                todo.extend(value.fields.values())
            elif isinstance(value, Function):  # its default values and what its closure holds
                todo.extend((*value.defaults, *value.kw_defaults, *value.closure.values()))

    def _check_mutable(self, value: Any, line: int | None, path: str) -> None:
        """Bazel's fatal error for a change to a frozen list or dict (``freeze``)."""
        if isinstance(value, (list, dict)) and self.frozen.get(id(value)) is value:
            raise EvalError(f"trying to mutate a frozen {_type_name(value)} value", line, path, fatal=True)

    # ------------------------------------------------------------ statements
    def _exec_block(self, body: list[ast.stmt], g: dict[str, Any], loc: dict[str, Any] | None, path: str) -> None:
        for stmt in body:
            self._exec(stmt, g, loc, path)

    def _exec(self, stmt: ast.stmt, g: dict[str, Any], loc: dict[str, Any] | None, path: str) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise EvalError("evaluation exceeds the step budget (an unbounded loop?)", stmt.lineno, path)
        try:
            if isinstance(stmt, ast.Expr):
                if isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Name) and stmt.value.func.id == "load" and loc is None:
                    self._exec_load(stmt.value, g, path)
                else:
                    self._note_nameless_external_call(stmt.value, g, loc, path)
                    self._eval_wanted(stmt.value, False, g, loc, path)
            elif isinstance(stmt, ast.Assign):
                value = self._eval_wanted(stmt.value, True, g, loc, path)
                for target in stmt.targets:
                    self._assign(target, value, g, loc, path)
                if loc is None and isinstance(value, RuleClass) and not value.native and value.kind == "":
                    for target in stmt.targets:
                        if isinstance(target, ast.Name):
                            value.kind = target.id  # rule() takes the name it is exported as
            elif isinstance(stmt, ast.AnnAssign):
                if stmt.value is not None:
                    self._assign(stmt.target, self._eval(stmt.value, g, loc, path), g, loc, path)
            elif isinstance(stmt, ast.AugAssign):
                current = self._eval(stmt.target, g, loc, path)
                value = self._binop(stmt.op, current, self._eval(stmt.value, g, loc, path))
                if isinstance(current, list) and isinstance(value, list) and isinstance(stmt.op, ast.Add):
                    # a list's += extends it in place, seen through every other name for it
                    # (Bazel 4.2.3: ``b = a; a += ["x"]`` makes ``len(b)`` 1), frozen or not
                    self._check_mutable(current, stmt.lineno, path)
                    current[:] = value
                    value = current
                self._assign(stmt.target, value, g, loc, path)
            elif isinstance(stmt, ast.If):
                if self._truth(self._eval(stmt.test, g, loc, path)):
                    self._exec_block(stmt.body, g, loc, path)
                else:
                    self._exec_block(stmt.orelse, g, loc, path)
            elif isinstance(stmt, ast.For):
                iterated = self._eval(stmt.iter, g, loc, path)
                if self.ctx is not None and (iterated is UNKNOWN or isinstance(iterated, UnknownCallable)):
                    self.ctx.unknown_loops.append(f"{path}:{stmt.lineno}")
                for item in self._iterate(iterated, lazy=True):
                    self._assign(stmt.target, item, g, loc, path)
                    try:
                        self._exec_block(stmt.body, g, loc, path)
                    except _Break:
                        break
                    except _Continue:
                        continue
            elif isinstance(stmt, ast.FunctionDef):
                fn = self._make_function(stmt, g, loc, path)
                if loc is None:
                    g[stmt.name] = fn
                else:
                    loc[stmt.name] = fn
            elif isinstance(stmt, ast.Return):
                raise _Return(self._eval(stmt.value, g, loc, path) if stmt.value is not None else None)
            elif isinstance(stmt, ast.Pass):
                pass
            elif isinstance(stmt, ast.Break):
                raise _Break()
            elif isinstance(stmt, ast.Continue):
                raise _Continue()
            else:
                raise EvalError(f"unsupported statement {type(stmt).__name__}", stmt.lineno, path)
        except EvalError as exc:
            if exc.line is None:
                exc.line = stmt.lineno
                exc.path = path
            raise

    def _exec_load(self, call: ast.Call, g: dict[str, Any], path: str) -> None:
        if not call.args or not isinstance(call.args[0], ast.Constant) or not isinstance(call.args[0].value, str):
            raise EvalError("load() needs a string label first", call.lineno, path)
        module_label = call.args[0].value
        names: dict[str, str] = {}
        for a in call.args[1:]:
            if not isinstance(a, ast.Constant) or not isinstance(a.value, str):
                raise EvalError("load() symbols must be string literals", call.lineno, path)
            names[a.value] = a.value
        for kw in call.keywords:
            if kw.arg is None or not isinstance(kw.value, ast.Constant) or not isinstance(kw.value.value, str):
                raise EvalError("load() aliases must be string literals", call.lineno, path)
            names[kw.arg] = kw.value.value
        try:
            module = self._load(module_label, path, call.lineno)
        except EvalError as exc:
            # Bazel refuses the package; calls of the names must not become guessed rule kinds
            for local in names:
                g[local] = _failing(local, exc.message)
            raise
        errors: list[str] = []
        for local, symbol in names.items():
            if symbol.startswith("_"):
                errors.append(f"symbol '{symbol}' is private and cannot be imported")
            elif symbol in module:
                g[local] = module[symbol]
                continue
            elif isinstance(module, EvaluatedModule):
                errors.append(f"file '{module.label}' does not contain symbol '{symbol}'")
            else:
                g[local] = UnknownCallable(symbol, module_label)
                continue
            g[local] = _failing(local, errors[-1])
        if errors:  # every name is bound first: the good ones still work in later statements
            raise EvalError(errors[0], call.lineno, path)

    def _assign(self, target: ast.expr, value: Any, g: dict[str, Any], loc: dict[str, Any] | None, path: str) -> None:
        if isinstance(target, ast.Name):
            (g if loc is None else loc)[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = list(self._iterate(value))
            if value is UNKNOWN:
                items = [UNKNOWN] * len(target.elts)
            if len(items) != len(target.elts):
                raise EvalError(f"cannot unpack {len(items)} values into {len(target.elts)}", target.lineno, path)
            for t, v in zip(target.elts, items):
                self._assign(t, v, g, loc, path)
        elif isinstance(target, ast.Subscript):
            container = self._eval(target.value, g, loc, path)
            key = self._eval(target.slice, g, loc, path)
            self._check_mutable(container, target.lineno, path)
            if isinstance(container, dict):
                container[self._hashable(key, target, path)] = value
            elif isinstance(container, list) and isinstance(key, int):
                try:
                    container[key] = value
                except IndexError:
                    raise EvalError("list index out of range", target.lineno, path) from None
            elif container is not UNKNOWN:
                raise EvalError(f"cannot assign into {_type_name(container)}", target.lineno, path)
        elif isinstance(target, ast.Attribute):
            obj = self._eval(target.value, g, loc, path)
            if isinstance(obj, Struct):
                obj.fields[target.attr] = value
        else:
            raise EvalError(f"cannot assign to {type(target).__name__}", target.lineno, path)

    def _make_function(self, node: ast.FunctionDef | ast.Lambda, g: dict[str, Any], loc: dict[str, Any] | None, path: str) -> Function:
        defaults = [self._eval(d, g, loc, path) for d in node.args.defaults]
        kw_defaults = [self._eval(d, g, loc, path) if d is not None else _MISSING for d in node.args.kw_defaults]
        name = node.name if isinstance(node, ast.FunctionDef) else "lambda"
        # the enclosing scope itself, not a copy: Starlark closures see the variables of
        # the enclosing function as they are when called (``self = struct(f = lambda: g(self))``
        # reads ``self``, assigned after the lambda; rules_python's attr_builders.bzl)
        package = "" if path.startswith("@") else self.package_of(path)
        module = path if path.startswith("@") else f"//{package}:{path[len(package):].lstrip('/')}"
        return Function(name, node, g, defaults, kw_defaults, loc if loc is not None else {}, path, module)

    # ------------------------------------------------------------ expressions
    def _eval(self, node: ast.expr, g: dict[str, Any], loc: dict[str, Any] | None, path: str) -> Any:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise EvalError("evaluation exceeds the step budget (an unbounded loop?)", getattr(node, "lineno", None), path)
        if isinstance(node, ast.Constant):
            if isinstance(node.value, (str, int, bool)) or node.value is None:
                return node.value
            if isinstance(node.value, float):
                return node.value
            raise EvalError(f"unsupported literal {node.value!r}", node.lineno, path)
        if isinstance(node, ast.Name):
            return self._lookup(node.id, g, loc)
        if isinstance(node, ast.List):
            return [self._eval(e, g, loc, path) for e in node.elts]
        if isinstance(node, ast.Tuple):
            return tuple(self._eval(e, g, loc, path) for e in node.elts)
        if isinstance(node, ast.Dict):
            out: dict[Any, Any] = {}
            for k, v in zip(node.keys, node.values):
                if k is None:  # {**other}
                    other = self._eval(v, g, loc, path)
                    if isinstance(other, dict):
                        out.update(other)
                    continue
                out[self._hashable(self._eval(k, g, loc, path), node, path)] = self._eval(v, g, loc, path)
            return out
        if isinstance(node, ast.BinOp):
            return self._binop(node.op, self._eval(node.left, g, loc, path), self._eval(node.right, g, loc, path), node.lineno, path)
        if isinstance(node, ast.UnaryOp):
            v = self._eval(node.operand, g, loc, path)
            if isinstance(node.op, ast.Not):
                return not self._truth(v)
            if v is UNKNOWN:
                return UNKNOWN
            if isinstance(node.op, ast.USub) and isinstance(v, (int, float)) and not isinstance(v, bool):
                return -v
            if isinstance(node.op, ast.UAdd) and isinstance(v, (int, float)) and not isinstance(v, bool):
                return v
            if isinstance(node.op, ast.Invert) and isinstance(v, int):
                return ~v
            raise EvalError(f"bad operand for unary operator: {_type_name(v)}", node.lineno, path)
        if isinstance(node, ast.BoolOp):
            if isinstance(node.op, ast.And):
                v: Any = True
                for e in node.values:
                    v = self._eval(e, g, loc, path)
                    if not self._truth(v):
                        return v
                return v
            v = False
            for e in node.values:
                v = self._eval(e, g, loc, path)
                if self._truth(v):
                    return v
            return v
        if isinstance(node, ast.Compare):
            left = self._eval(node.left, g, loc, path)
            for op, comp in zip(node.ops, node.comparators):
                right = self._eval(comp, g, loc, path)
                if not self._compare(op, left, right, node.lineno, path):
                    return False
                left = right
            return True
        if isinstance(node, ast.IfExp):
            if self._truth(self._eval(node.test, g, loc, path)):
                return self._eval(node.body, g, loc, path)
            return self._eval(node.orelse, g, loc, path)
        if isinstance(node, ast.Call):
            return self._call_expr(node, g, loc, path)
        if isinstance(node, ast.Attribute):
            return self._getattr(self._eval(node.value, g, loc, path), node.attr, node.lineno, path)
        if isinstance(node, ast.Subscript):
            return self._subscript(node, g, loc, path)
        if isinstance(node, (ast.ListComp, ast.DictComp, ast.GeneratorExp, ast.SetComp)):
            return self._comprehension(node, g, loc, path)
        if isinstance(node, ast.Lambda):
            return self._make_function(node, g, loc, path)
        if isinstance(node, ast.JoinedStr):
            raise EvalError("f-strings are not Starlark", node.lineno, path)
        raise EvalError(f"unsupported expression {type(node).__name__}", getattr(node, "lineno", None), path)

    def _lookup(self, name: str, g: dict[str, Any], loc: dict[str, Any] | None) -> Any:
        if loc is not None and name in loc:
            return loc[name]
        if name in g:
            return g[name]
        if name in self.builtins:
            return self.builtins[name]
        if name in self.native_rules:
            return RuleClass(name)
        return UnknownCallable(name, "")  # undefined: a rule this evaluator does not know, or a typo

    @staticmethod
    def _hashable(v: Any, node: ast.AST, path: str) -> Any:
        if isinstance(v, list):
            raise EvalError("unhashable type: list", getattr(node, "lineno", None), path)
        if isinstance(v, tuple):
            check_written_size(v)  # hashing walks every element
        return dict_key(v)

    def _truth(self, v: Any) -> bool:
        if v is UNKNOWN or isinstance(v, UnknownCallable):
            self.guesses += 1
            return False
        if isinstance(v, (Select, SelectorList)):
            return True
        if isinstance(v, Struct):
            return True
        return bool(v)

    def _iterate(self, v: Any, lazy: bool = False) -> Sequence[Any]:
        """The items of ``v``. ``lazy`` (a for loop, a comprehension) takes a range as it is:
        Starlark's range is no list (bazel-lib loops ``for _ in range(1 << 30)`` until a
        ``break``), and the step budget bounds the loop; anything else builds a list."""
        if v is UNKNOWN or isinstance(v, UnknownCallable):
            self.guesses += 1
            return []
        if isinstance(v, range):
            if lazy:
                return v
            if len(v) > MAX_SEQUENCE:
                raise EvalError("range too large")
            return list(v)
        if isinstance(v, (list, tuple)):
            return list(v)
        if isinstance(v, dict):
            return list(v.keys())
        if isinstance(v, str):
            raise EvalError("strings are not iterable in Starlark (use .elems())")
        if isinstance(v, (Select, SelectorList)):
            raise EvalError("cannot iterate over a select()")
        raise EvalError(f"{_type_name(v)} is not iterable")

    def _binop(self, op: ast.operator, a: Any, b: Any, line: int | None = None, path: str | None = None) -> Any:
        if a is UNKNOWN or b is UNKNOWN or isinstance(a, UnknownCallable) or isinstance(b, UnknownCallable):
            return UNKNOWN
        if isinstance(op, ast.Add):
            if isinstance(a, (Select, SelectorList)) or isinstance(b, (Select, SelectorList)):
                pa = a.parts if isinstance(a, SelectorList) else [a]
                pb = b.parts if isinstance(b, SelectorList) else [b]
                return SelectorList(pa + pb)
            if isinstance(a, dict) and isinstance(b, dict):
                return {**a, **b}
            if type(a) is type(b) or (isinstance(a, int) and isinstance(b, int)):
                try:
                    return self._charge(_check_size(a + b), line, path)
                except TypeError:
                    pass
            raise EvalError(f"unsupported operand types for +: {_type_name(a)} and {_type_name(b)}", line, path)
        if isinstance(op, ast.BitOr):
            if isinstance(a, dict) and isinstance(b, dict):
                return {**a, **b}
            if isinstance(a, (Select, SelectorList)) or isinstance(b, (Select, SelectorList)):
                return self._binop(ast.Add(), a, b, line, path)
            if isinstance(a, int) and isinstance(b, int):
                return a | b
        if isinstance(op, ast.Mod) and isinstance(a, str):
            return _format_percent(a, b)
        if isinstance(op, ast.Mult):
            if isinstance(a, int) and isinstance(b, (str, list, tuple)):
                a, b = b, a
            if isinstance(a, (str, list, tuple)) and isinstance(b, int) and not isinstance(b, bool):
                if len(a) * max(b, 0) > MAX_SEQUENCE:
                    raise EvalError("value too large", line, path)
                return self._charge(a * b, line, path)
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool) and not isinstance(b, bool):
            try:
                if isinstance(op, ast.Sub):
                    return a - b
                if isinstance(op, ast.Mult):
                    if isinstance(a, int) and isinstance(b, int) and a.bit_length() + b.bit_length() > MAX_INT_BITS:
                        raise EvalError("integer too large", line, path)
                    return a * b
                if isinstance(op, ast.FloorDiv):
                    return a // b
                if isinstance(op, ast.Div):
                    return a / b
                if isinstance(op, ast.Mod):
                    return a % b
                if isinstance(op, ast.BitAnd):
                    return a & b
                if isinstance(op, ast.BitXor):
                    return a ^ b
                if isinstance(op, (ast.LShift, ast.RShift)) and isinstance(a, int) and isinstance(b, int):
                    return _shift(op, a, b, line, path)
            except ZeroDivisionError:
                raise EvalError("division by zero", line, path) from None
        if isinstance(op, ast.Sub) and isinstance(a, dict) and isinstance(b, dict):
            return {k: v for k, v in a.items() if k not in b}
        raise EvalError(f"unsupported operand types for {type(op).__name__}: {_type_name(a)} and {_type_name(b)}", line, path)

    def _charge(self, value: Any, line: int | None, path: str | None) -> Any:
        """Count a new sequence against the step budget (``ELEMENTS_PER_STEP``)."""
        if isinstance(value, (str, list, tuple, dict)):
            self.steps += len(value) // ELEMENTS_PER_STEP
            if self.steps > MAX_STEPS:
                raise EvalError("evaluation exceeds the step budget (values too large?)", line, path)
        return value

    def _compare(self, op: ast.cmpop, a: Any, b: Any, line: int, path: str) -> bool:
        if a is UNKNOWN or b is UNKNOWN or isinstance(a, UnknownCallable) or isinstance(b, UnknownCallable):
            self.guesses += 1
            return False
        if not isinstance(a, (str, int)) or not isinstance(b, (str, int)):
            check_written_size(a, b)  # Python compares nested lists element by element
        try:
            if isinstance(op, ast.Eq):
                return a == b
            if isinstance(op, ast.NotEq):
                return a != b
            if isinstance(op, (ast.In, ast.NotIn)):
                found = (dict_key(a) if isinstance(b, dict) else a) in b if not isinstance(b, (Select, SelectorList, Struct)) else False
                return found if isinstance(op, ast.In) else not found
            if isinstance(op, ast.Lt):
                return a < b
            if isinstance(op, ast.LtE):
                return a <= b
            if isinstance(op, ast.Gt):
                return a > b
            if isinstance(op, ast.GtE):
                return a >= b
            if isinstance(op, ast.Is):
                return a is b
            if isinstance(op, ast.IsNot):
                return a is not b
        except TypeError as exc:
            raise EvalError(f"comparison: {exc}", line, path) from None
        raise EvalError(f"unsupported comparison {type(op).__name__}", line, path)

    def _subscript(self, node: ast.Subscript, g: dict[str, Any], loc: dict[str, Any] | None, path: str) -> Any:
        container = self._eval(node.value, g, loc, path)
        if isinstance(node.slice, ast.Slice):
            lo = self._eval(node.slice.lower, g, loc, path) if node.slice.lower else None
            hi = self._eval(node.slice.upper, g, loc, path) if node.slice.upper else None
            st = self._eval(node.slice.step, g, loc, path) if node.slice.step else None
            if container is UNKNOWN or isinstance(container, UnknownCallable):
                return UNKNOWN
            if isinstance(container, (str, list, tuple, range)):
                return container[lo:hi:st]
            raise EvalError(f"cannot slice {_type_name(container)}", node.lineno, path)
        key = self._eval(node.slice, g, loc, path)
        if container is UNKNOWN or key is UNKNOWN or isinstance(container, UnknownCallable) or isinstance(key, UnknownCallable):
            return UNKNOWN  # e.g. a dict loaded from another repository's .bzl, or a key loaded from one
        try:
            if isinstance(container, dict):
                return container[self._hashable(key, node, path)]
            if isinstance(container, (list, tuple, str, range)) and isinstance(key, int):
                return container[key]
        except (KeyError, IndexError):
            raise EvalError(f"key {key!r} not found", node.lineno, path) from None
        raise EvalError(f"cannot index {_type_name(container)} with {_type_name(key)}", node.lineno, path)

    def _comprehension(self, node: Any, g: dict[str, Any], loc: dict[str, Any] | None, path: str) -> Any:
        scope = dict(loc) if loc is not None else {}
        results: list[Any] = []
        pairs: dict[Any, Any] = {}

        def run(i: int) -> None:
            if i == len(node.generators):
                if isinstance(node, ast.DictComp):
                    k = self._eval(node.key, g, scope, path)
                    pairs[self._hashable(k, node, path)] = self._eval(node.value, g, scope, path)
                else:
                    results.append(self._eval(node.elt, g, scope, path))
                    if len(results) > MAX_SEQUENCE:
                        raise EvalError("value too large", node.lineno, path)
                return
            gen = node.generators[i]
            for item in self._iterate(self._eval(gen.iter, g, scope, path), lazy=True):
                self._assign(gen.target, item, g, scope, path)
                if all(self._truth(self._eval(cond, g, scope, path)) for cond in gen.ifs):
                    run(i + 1)

        # Outer comprehension variables must not leak into a module's globals.
        run(0)
        return pairs if isinstance(node, ast.DictComp) else results

    def _eval_wanted(self, node: ast.expr, wanted: bool, g: dict[str, Any], loc: dict[str, Any] | None, path: str) -> Any:
        """``_eval`` with ``value_wanted`` set for the expression (and the calls in it)."""
        saved, self.value_wanted = self.value_wanted, wanted
        try:
            return self._eval(node, g, loc, path)
        finally:
            self.value_wanted = saved

    # ------------------------------------------------------------ calls
    def _call_expr(self, node: ast.Call, g: dict[str, Any], loc: dict[str, Any] | None, path: str) -> Any:
        fn = self._eval(node.func, g, loc, path)
        args: list[Any] = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                args.extend(self._iterate(self._eval(a.value, g, loc, path)))
            else:
                args.append(self._eval(a, g, loc, path))
        kwargs: dict[str, Any] = {}
        unknown_keys = False
        for kw in node.keywords:
            if kw.arg is None:
                extra = self._eval(kw.value, g, loc, path)
                if isinstance(extra, dict):
                    kwargs.update({str(k): v for k, v in extra.items()})
                    unknown_keys = unknown_keys or isinstance(extra, PartialDict)
                elif extra is not UNKNOWN and not isinstance(extra, UnknownCallable):
                    # a value loaded from a file ctxsel did not evaluate may well be a dict
                    # (``attrs = dict(_attrs, **resource_set_attr)`` in rules_oci): its keys are unknown
                    raise EvalError("** argument must be a dict", node.lineno, path)
                else:
                    unknown_keys = True
            else:
                kwargs[kw.arg] = self._eval(kw.value, g, loc, path)
        self.unknown_arguments = unknown_keys
        result = self.call(fn, args, kwargs, node.lineno, path)
        if unknown_keys and isinstance(result, Struct):
            result.open = True
        return result

    def call(self, fn: Any, args: list[Any], kwargs: dict[str, Any], line: int, path: str) -> Any:
        if isinstance(fn, Builtin):
            self.call_path = path
            try:
                return self._charge(fn.fn(*args, **kwargs), line, path)
            except EvalError as exc:
                if exc.line is None:
                    exc.line, exc.path = line, path
                raise
            except (TypeError, ValueError, IndexError, KeyError, AttributeError) as exc:
                raise EvalError(f"{fn.name}(): {exc}", line, path) from None
        if isinstance(fn, RuleClass):
            return self._instantiate(fn.kind, fn, args, kwargs, line, path)
        if isinstance(fn, Function):
            return self._call_function(fn, args, kwargs, line, path)
        if isinstance(fn, SymbolicMacro):
            params = {"name": kwargs.get("name"), "visibility": kwargs.get("visibility")}
            for attr, spec in fn.attrs.items():
                params[attr] = kwargs.get(attr, spec.default if isinstance(spec, AttrSpec) else None)
            return self.call(fn.implementation, [], params, line, path)
        if isinstance(fn, UnknownCallable):
            # a rule returns None: a call whose value a BUILD or .bzl statement assigns is a
            # function of that repository (rules_bazel_integration_test's ``_P =
            # providers.create(name = ...)``); one whose value is passed on may be a helper
            # that makes a target and returns its label (rules_testing's ``util.empty_file``)
            if "name" in kwargs and self.ctx is not None and not self.value_wanted:  # in a BUILD file (or a macro it calls)
                self._note_unknown(fn.symbol, fn.origin, line)
                if isinstance(kwargs["name"], str):
                    self.ctx.external_calls.setdefault(kwargs["name"], f"{fn.symbol} ({path}:{line})")
                # positional arguments make it a macro, not a rule (rules_testing's
                # ``util.helper_target(py_test, name = ...)``); it still declares ``name``
                return self._instantiate(fn.symbol, None, [], kwargs, line, path)
            return UNKNOWN
        if fn is UNKNOWN:
            return UNKNOWN
        raise EvalError(f"{_type_name(fn)} is not callable", line, path)

    def _note_nameless_external_call(self, node: ast.expr, g: dict[str, Any], loc: dict[str, Any] | None, path: str) -> None:
        """A statement ``macro()`` of another repository with no ``name`` (rules_js's
        ``npm_link_all_packages()``, which makes ``//:node_modules/<package>``): it may create
        any target of the package, so labels to targets ctxsel did not find there are not
        called missing files (``PackageResult.unseen_reason``)."""
        if self.ctx is None or not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            return
        fn = (loc or {}).get(node.func.id, g.get(node.func.id))
        if isinstance(fn, UnknownCallable) and not any(k.arg in ("name", None) for k in node.keywords):
            self.ctx.external_calls.setdefault("", f"{fn.symbol} ({path}:{node.lineno})")

    def _instantiate(self, kind: str, rule: RuleClass | None, args: list[Any], kwargs: dict[str, Any], line: int, path: str) -> None:
        if args:
            raise EvalError(f"{kind}() takes keyword arguments only", line, path)
        name = kwargs.get("name")
        if self.ctx is None:
            return None  # a rule called while a .bzl is loaded: not a target of any package
        if name is UNKNOWN:  # another repository's value: Bazel may well have a valid name
            raise EvalError(f"{kind}() needs a string name", line, path)
        if not isinstance(name, str):  # Bazel 4.2.3 stops the file on both (measured)
            problem = "has no 'name' attribute" if "name" not in kwargs else "'name' attribute must be a string"
            raise EvalError(f"{kind} rule {problem}", line, path, fatal=True)
        self.ctx.add(TargetCall(kind, name, kwargs, self.ctx.line or line, rule))
        return None

    def _call_function(self, fn: Function, args: list[Any], kwargs: dict[str, Any], line: int, path: str) -> Any:
        if self.depth >= MAX_DEPTH:
            raise EvalError(f"call depth exceeds {MAX_DEPTH} (recursion?) in {fn.name}()", line, path)
        if id(fn.node) in self.active:
            # Starlark forbids recursion; Bazel fails the package ("called recursively")
            raise EvalError(f"function '{fn.name}' called recursively (Starlark forbids recursion)", line, path, fatal=True)
        a = fn.node.args
        params = [p.arg for p in a.posonlyargs + a.args]
        kwonly = [p.arg for p in a.kwonlyargs]
        bound: dict[str, Any] = {}
        # an argument too many stops the file in Bazel (4.2.3 on tensorflow/lingvo's
        # ``gen_op_cclib(..., features = ...)``: only the targets before it stay); an unknown
        # value adds no argument, but ctxsel's stand-ins for skylib (paths "@...") may lack one
        too_many = not fn.path.startswith("@")
        # one too few stops it as well, unless a ``**`` of an unknown value may hold it
        too_few, self.unknown_arguments = too_many and not self.unknown_arguments, False
        extra_pos = list(args[len(params):])
        if extra_pos and a.vararg is None:
            raise EvalError(f"{fn.name}() takes {len(params)} positional arguments but {len(args)} were given", line, path, fatal=too_many)
        for p, v in zip(params, args):
            bound[p] = v
        extra_kw: dict[str, Any] = {}
        for k, v in kwargs.items():
            if k in params or k in kwonly:
                if k in bound:
                    raise EvalError(f"{fn.name}() got multiple values for {k!r}", line, path, fatal=too_many)
                bound[k] = v
            elif a.kwarg is not None:
                extra_kw[k] = v
            else:
                raise EvalError(f"{fn.name}() got an unexpected keyword argument {k!r}", line, path, fatal=too_many)
        n_required = len(params) - len(fn.defaults)
        for i, p in enumerate(params):
            if p not in bound:
                if i < n_required:
                    raise EvalError(f"{fn.name}() missing argument {p!r}", line, path, fatal=too_few)
                bound[p] = fn.defaults[i - n_required]
        for p, d in zip(kwonly, fn.kw_defaults):
            if p not in bound:
                if d is _MISSING:
                    raise EvalError(f"{fn.name}() missing keyword argument {p!r}", line, path, fatal=too_few)
                bound[p] = d
        if a.vararg is not None:
            bound[a.vararg.arg] = tuple(extra_pos)
        if a.kwarg is not None:
            bound[a.kwarg.arg] = extra_kw
        local: dict[str, Any] = {**fn.closure, **bound}
        self.depth += 1
        self.active.add(id(fn.node))
        wanted, self.value_wanted = self.value_wanted, False  # lexical: the caller's assignment is not the body's
        try:
            if isinstance(fn.node, ast.Lambda):
                return self._eval(fn.node.body, fn.globals, local, fn.path)
            self._exec_block(fn.node.body, fn.globals, local, fn.path)
        except _Return as ret:
            return ret.value
        except (_Break, _Continue):
            raise EvalError("break/continue outside a loop", line, path) from None
        finally:
            self.depth -= 1
            self.active.discard(id(fn.node))
            self.value_wanted = wanted
        return None

    # ------------------------------------------------------------ attributes and methods
    def _getattr(self, obj: Any, attr: str, line: int, path: str) -> Any:
        if obj is UNKNOWN:
            return UNKNOWN
        if isinstance(obj, NativeModule):
            if attr in obj.fields:
                return obj.fields[attr]
            if obj.has(attr):
                return RuleClass(attr)
            # Bazel 4.2.3 stops the file here ("no native function or rule 'x'"), measured
            raise EvalError(f"no native function or rule {attr!r} in any Bazel ctxsel knows", line, path, fatal=True)
        if isinstance(obj, UnknownCallable):
            return UnknownCallable(attr, obj.origin)
        if isinstance(obj, Struct):
            if attr in obj.fields:
                return obj.fields[attr]
            if obj.open:
                return UNKNOWN
            raise EvalError(f"struct has no field {attr!r}", line, path)
        if isinstance(obj, LabelValue):
            return self._label_attr(obj, attr, line, path)
        method = METHODS.get((type(obj), attr))
        if method is not None and (type(obj), attr) in MUTATING_METHODS:
            read_only = READ_ONLY_CALLS.get((type(obj), attr), lambda *a, **k: False)

            def checked(*args: Any, **kwargs: Any) -> Any:
                if not read_only(obj, *args, **kwargs):
                    self._check_mutable(obj, line, path)
                return method(obj, *args, **kwargs)
            return Builtin(f"{_type_name(obj)}.{attr}", checked)
        if method is not None:
            return Builtin(f"{_type_name(obj)}.{attr}", lambda *a, **k: method(obj, *a, **k))
        raise EvalError(f"{_type_name(obj)} has no attribute {attr!r}", line, path)

    def _label_attr(self, lab: LabelValue, attr: str, line: int, path: str) -> Any:
        text = lab.text
        # "@@//p:x" and "@//p:x" are the main repository (Bazel 6+ spells it "@@"), "@@r+//" r+'s
        repo = text.lstrip("@").split("//", 1)[0] if text.startswith("@") else ""
        body = text.split("//", 1)[-1]
        package, _, name = body.partition(":")
        values = {"name": name, "package": package, "workspace_name": repo, "repo_name": repo, "workspace_root": f"external/{repo}" if repo else ""}
        if attr in values:
            return values[attr]
        if attr == "relative":
            return Builtin("Label.relative", lambda rel: LabelValue.of(rel if rel.startswith(("//", "@")) else f"{text.split(':')[0]}:{rel.lstrip(':')}"))
        raise EvalError(f"Label has no attribute {attr!r}", line, path)

    # ------------------------------------------------------------ builtins
