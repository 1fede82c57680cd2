"""A repository's own ctxsel settings: ``.ctxsel.toml``, else ``[tool.ctxsel]`` in pyproject.toml.

Settings live in the repository (not in flags) because they describe the repository:
which extra files hold secrets, which generated paths to skip, how large a file may
be. A malformed file is a user error naming the file, never a silent default.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from .errors import Location, ParseError

CONFIG_FILE = ".ctxsel.toml"


def _toml_loads(text: str) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib
    return tomllib.loads(text)


def load_repo_config(root: Path) -> dict[str, Any]:
    """The ctxsel table of the repository at ``root`` ({} when there is none)."""
    own = root / CONFIG_FILE
    if own.is_file() and not own.is_symlink():
        return _parse(own)
    pyproject = root / "pyproject.toml"
    if pyproject.is_file() and not pyproject.is_symlink():
        try:
            data = _parse(pyproject)
        except ParseError:
            return {}  # a broken pyproject is not ctxsel's to report
        tool = data.get("tool", {})  # "tool = 5" is valid TOML: not a table to look into
        table = tool.get("ctxsel", {}) if isinstance(tool, dict) else {}
        return table if isinstance(table, dict) else {}
    return {}


def _parse(path: Path) -> dict[str, Any]:
    try:
        return _toml_loads(path.read_text(encoding="utf-8", errors="replace"))
    except Exception as exc:  # tomllib.TOMLDecodeError carries "(at line N, column M)"
        line = None
        msg = str(exc)
        if "line " in msg:
            try:
                line = int(msg.split("line ", 1)[1].split(",", 1)[0].split(")", 1)[0])
            except ValueError:
                line = None
        raise ParseError(f"invalid TOML: {msg}", Location(path.name, line)) from None


def section(config: dict[str, Any], name: str, where: str = CONFIG_FILE) -> dict[str, Any]:
    """One table of the config (``[select]``, ``[secrets]``, ``[ranking]``); {} when absent."""
    value = config.get(name, {})
    if not isinstance(value, dict):
        raise ParseError(f"[{name}] must be a table", Location(where))
    return value
