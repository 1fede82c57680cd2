"""Turning answers into text for people and JSON for programs.

Rich tables when stdout is a terminal, plain lines when it is piped (so ``| xargs``
and ``| grep`` work); rich is imported only in the terminal case.
"""

from __future__ import annotations

import sys
from dataclasses import asdict, is_dataclass
from typing import Any, Callable, Sequence

SCHEMA_VERSION = 1


def json_schema(name: str) -> dict[str, Any]:
    """The shipped JSON Schema of one ``--format json`` output ("blast-radius", "tests", ...)."""
    import json
    from importlib.resources import files

    resource = files("ctxsel").joinpath("schemas", f"{name}.json")
    if not resource.is_file():
        from .errors import UserError

        known = sorted(p.name[:-5] for p in files("ctxsel").joinpath("schemas").iterdir() if p.name.endswith(".json"))
        raise UserError(f"no JSON schema named {name!r} (known: {', '.join(known)})")
    return json.loads(resource.read_text(encoding="utf-8"))


def to_json(payload: dict[str, Any], compact: bool = False) -> str:
    """Stable JSON: ``schema_version`` first, keys in a fixed order, no NaN.

    ``compact``: the same document on one line, by json's C encoder (the MCP server
    parses it back; only people need the layout).
    """
    body = {"schema_version": SCHEMA_VERSION, **payload}
    if compact:
        import json

        return json.dumps(body, allow_nan=False, default=_default)
    return pretty_json(body, allow_nan=False, default=_default)


class _Unusual(Exception):
    """A value ``pretty_json`` leaves to ``json.dumps`` itself."""


def pretty_json(value: Any, allow_nan: bool = True, default: Callable[[Any], Any] | None = None) -> str:
    """``json.dumps(value, indent=2, allow_nan=allow_nan, default=default)``, byte for byte, only faster.

    Why: given an ``indent``, ``json`` runs its pure-Python generator encoder (its C encoder
    only writes compact JSON): 1.3 s of the 2 s a 30,000-node ``blast-radius --format json``
    took. ``put`` writes the same text with one Python call per container, strings
    escaped by json's own C ``encode_basestring_ascii``, and a list of strings (ids, paths)
    joined in one C call. Its checks run in the order of ``json.encoder._make_iterencode``
    (str, None, True, False, int, float, list/tuple, dict, then ``default``), so subclasses
    land where json puts them. What it is not certain to write exactly as json does (a dict
    key that is not a string, NaN with ``allow_nan=False``, an object and no ``default``, a
    cycle or a value nested too deep) goes to ``json.dumps`` itself, which also raises
    json's own errors for them.
    """
    import json  # here: ``--format labels``/``text`` never need it (~1 ms to import)
    from json.encoder import encode_basestring_ascii as quote

    out: list[str] = []  # pieces, joined once at the end: nested answers are not copied once per level
    add = out.append
    heads: dict[str, str] = {}  # '"key": ' per distinct key: answers repeat a few keys thousands of times

    def put(o: Any, newline: str) -> None:
        """Append ``o`` at the indentation ``newline`` ("\\n" and two spaces per level)."""
        kind = type(o)
        if kind is dict:  # exact types first: the bulk of every answer
            put_object(o, newline)
        elif kind is list:
            put_array(o, newline)
        elif isinstance(o, str):
            add(quote(o))
        elif o is None:
            add("null")
        elif o is True:
            add("true")
        elif o is False:
            add("false")
        elif isinstance(o, int):
            add(int.__repr__(o))
        elif isinstance(o, float):
            if o != o or o in (_INF, -_INF):
                if not allow_nan:
                    raise _Unusual
                add("NaN" if o != o else ("Infinity" if o > 0 else "-Infinity"))
            else:
                add(float.__repr__(o))
        elif isinstance(o, (list, tuple)):
            put_array(o, newline)
        elif isinstance(o, dict):
            put_object(o, newline)
        elif default is None:
            raise _Unusual
        else:
            put(default(o), newline)

    def put_array(o: Any, newline: str) -> None:
        if not o:
            add("[]")
            return
        inner = newline + "  "
        try:
            items = ("," + inner).join(map(quote, o))  # all strings: one C call
        except TypeError:
            prefix = "[" + inner
            for x in o:
                add(prefix)
                put(x, inner)
                prefix = "," + inner
        else:
            add("[" + inner)
            add(items)
        add(newline + "]")

    def put_object(o: Any, newline: str) -> None:
        if not o:
            add("{}")
            return
        inner = newline + "  "
        prefix = "{" + inner
        for key, val in o.items():
            head = heads.get(key)
            if head is None:
                if not isinstance(key, str):
                    raise _Unusual  # json turns numbers, booleans and None into key strings
                head = heads[key] = quote(key) + ": "
            kind = type(val)
            if kind is str:
                add(prefix + head + quote(val))
            elif kind is int:
                add(prefix + head + int.__repr__(val))
            else:
                add(prefix + head)
                put(val, inner)
            prefix = "," + inner
        add(newline + "}")

    try:
        put(value, "\n")
    except (_Unusual, RecursionError):
        return json.dumps(value, indent=2, allow_nan=allow_nan, default=default)
    return "".join(out)


_INF = float("inf")


def _default(obj: Any) -> Any:
    if is_dataclass(obj) and not isinstance(obj, type):
        return asdict(obj)
    if isinstance(obj, (set, frozenset, tuple)):
        return sorted(obj) if isinstance(obj, (set, frozenset)) else list(obj)
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def is_terminal() -> bool:
    return sys.stdout.isatty()


_C_ESCAPES = {"\a": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f",
              "\r": "\\r", '"': '\\"', "\\": "\\\\"}


def quote_path(path: str) -> str:
    """A file name as one line, quoted the way git quotes it (``core.quotePath=false``).

    A name with a newline or tab would otherwise split one file into two lines of
    ``--format paths`` or a markdown header. Names without control characters, ``"`` or
    ``\\`` come out unchanged; the others are C-quoted in double quotes, as ``git diff
    --name-only`` prints them, so a script that reads git's listings reads ours.
    """
    if not any(c < " " or c in '"\\\x7f' for c in path):
        return path
    return '"' + "".join(_C_ESCAPES.get(c) or (f"\\{ord(c):03o}" if c < " " or c == "\x7f" else c) for c in path) + '"'


def table(title: str, columns: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """Print a table: rich on a terminal, tab-separated lines otherwise."""
    if is_terminal():
        from rich.console import Console
        from rich.table import Table

        t = Table(title=title, title_justify="left")
        for c in columns:
            t.add_column(c)
        for r in rows:
            t.add_row(*[str(x) for x in r])
        Console().print(t)
    else:
        for r in rows:
            print("\t".join(str(x) for x in r))


def lines(items: Sequence[str]) -> None:
    for item in items:
        print(item)


def warn(message: str) -> None:
    """Warnings go to stderr and never change stdout's format."""
    for line in message.splitlines() or [""]:
        print(f"ctxsel: warning: {line}", file=sys.stderr)
