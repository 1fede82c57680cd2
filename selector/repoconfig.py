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


PYPROJECT = "pyproject.toml"


class RepoConfig(dict):  # type: ignore[type-arg]
    """The ctxsel table, remembering the file it came from: a bad setting is an error
    naming the file and key the user must edit (``[tool.ctxsel.ranking]`` in pyproject.toml
    is not the ``[ranking]`` of a .ctxsel.toml that does not exist)."""

    def __init__(self, table: dict[str, Any] | None = None, source: str = CONFIG_FILE, prefix: str = "") -> None:
        super().__init__(table or {})
        self.source = source
        self.prefix = prefix


def config_file(config: dict[str, Any]) -> str:
    """The file a config table came from (a plain dict, as tests and the API pass: .ctxsel.toml)."""
    return getattr(config, "source", CONFIG_FILE)


def config_key(config: dict[str, Any], dotted: str) -> str:
    """``dotted`` (``select.scope``) as that file spells it (``tool.ctxsel.select.scope``)."""
    return getattr(config, "prefix", "") + dotted


def load_repo_config(root: Path) -> RepoConfig:
    """The ctxsel table of the repository at ``root`` (empty when there is none)."""
    own = root / CONFIG_FILE
    if own.is_file() and not own.is_symlink():
        return RepoConfig(_parse(own))
    pyproject = root / PYPROJECT
    if pyproject.is_file() and not pyproject.is_symlink():
        try:
            data = _parse(pyproject)
        except ParseError:
            return RepoConfig()  # a broken pyproject is not ctxsel's to report
        tool = data.get("tool", {})  # "tool = 5" is valid TOML: not a table to look into
        table = tool.get("ctxsel", {}) if isinstance(tool, dict) else {}
        return RepoConfig(table if isinstance(table, dict) else {}, PYPROJECT, "tool.ctxsel.")
    return RepoConfig()


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


def section(config: dict[str, Any], name: str) -> dict[str, Any]:
    """One table of the config (``[select]``, ``[secrets]``, ``[ranking]``); {} when absent."""
    value = config.get(name, {})
    if not isinstance(value, dict):
        raise ParseError(f"[{config_key(config, name)}] must be a table", Location(config_file(config)))
    return value
