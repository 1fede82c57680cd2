"""The public Python API: what ``from ctxsel import ...`` promises, and what it must not cost."""

from __future__ import annotations

import subprocess
import sys

import pytest

import ctxsel


def test_every_public_name_resolves():
    for name in ctxsel.__all__:
        assert getattr(ctxsel, name) is not None, name


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError):
        ctxsel.NoSuchThing  # noqa: B018


def test_workspace_is_the_class_the_cli_uses():
    from ctxsel.workspace import Workspace

    assert ctxsel.Workspace is Workspace
    assert callable(ctxsel.Workspace.open)


def test_cli_start_does_not_import_heavy_modules():
    # ``ctxsel tests`` must start fast: the MCP SDK (~0.7 s), pydantic, networkx and
    # friends are imported by the commands that need them, never at start.
    heavy = ["mcp", "pydantic", "networkx", "bm25s", "faiss", "tree_sitter", "yaml", "jsonschema", "rich"]
    code = (
        "import sys, ctxsel, ctxsel.cli\n"
        f"print(','.join(m for m in {heavy!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""


def test_json_schema_is_shipped_and_unknown_names_are_user_errors():
    schema = ctxsel.json_schema("blast-radius")
    assert schema["properties"]["schema_version"]["const"] == ctxsel.SCHEMA_VERSION == 1
    with pytest.raises(ctxsel.UserError, match="no JSON schema named 'nope'"):
        ctxsel.json_schema("nope")


def test_every_subpackage_is_shipped():
    # A package missing from pyproject's explicit list works in an editable install and is
    # absent from the wheel (it happened to ctxsel.commands): the CLI would not even start.
    tomllib = pytest.importorskip("tomllib")
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    setup = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(setup["packages"])
    for name, directory in setup["package-dir"].items():
        for init in (root / directory).rglob("__init__.py"):
            rel = init.parent.relative_to(root / directory).parts
            assert ".".join((name, *rel)) in listed, f"{init.parent} is not in [tool.setuptools] packages"
    assert "schemas/*.json" in setup["package-data"]["ctxsel"]
