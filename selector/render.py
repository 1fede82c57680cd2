"""Turning answers into text for people and JSON for programs.

Rich tables when stdout is a terminal, plain lines when it is piped (so ``| xargs``
and ``| grep`` work); rich is imported only in the terminal case.
"""

from __future__ import annotations

import sys
from dataclasses import asdict, is_dataclass
from typing import Any, Sequence

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


def to_json(payload: dict[str, Any]) -> str:
    """Stable JSON: ``schema_version`` first, keys in a fixed order, no NaN."""
    import json  # here: ``--format labels``/``text`` never need it (~1 ms to import)

    body = {"schema_version": SCHEMA_VERSION, **payload}
    return json.dumps(body, indent=2, sort_keys=False, allow_nan=False, default=_default)


def _default(obj: Any) -> Any:
    if is_dataclass(obj) and not isinstance(obj, type):
        return asdict(obj)
    if isinstance(obj, (set, frozenset, tuple)):
        return sorted(obj) if isinstance(obj, (set, frozenset)) else list(obj)
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def is_terminal() -> bool:
    return sys.stdout.isatty()


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
