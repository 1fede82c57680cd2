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


def test_answers_are_dataclasses_whose_json_matches_the_schemas(tmp_path):
    import dataclasses
    import json
    import shutil

    jsonschema = pytest.importorskip("jsonschema")
    from conftest import FIXTURES

    root = tmp_path / "bazel-basic"
    shutil.copytree(FIXTURES / "bazel-basic", root, ignore=shutil.ignore_patterns(".ctxsel"))
    (root / "CODEOWNERS").write_text("* @org/all\n")
    ws = ctxsel.Workspace.open(root, adapter="bazel", source="static")
    answers = {
        "blast-radius": ws.blast_radius(["//core:core"], depth=1),
        "tests": ws.tests(["core/core.cc"], owners=["@org/all"]),
        "owners": ws.owners(["core/core.cc"]),
        "select": ws.select("core", targets=["//core:core"], budget=200),
    }
    for schema, answer in answers.items():
        assert dataclasses.is_dataclass(answer), schema
        jsonschema.validate(json.loads(ctxsel.to_json(answer.as_json())), ctxsel.json_schema(schema))
    assert answers["tests"].dropped_by_owner == 0
    assert answers["select"].markdown().startswith("### ")

    roots, change = ws.roots(files=["core/core.cc"])
    assert roots == ["//core:core"] and isinstance(change, ctxsel.ChangeSet)
    with pytest.raises(ctxsel.UserError, match="nothing to start from"):
        ws.roots()


def test_the_prompt_builders_in_the_agent_docs_run(tmp_path):
    """docs/agents.md's Python examples are code people paste: they must work as written."""
    import re
    import shutil
    from pathlib import Path

    from conftest import FIXTURES, run_git

    root = tmp_path / "bazel-basic"
    shutil.copytree(FIXTURES / "bazel-basic", root, ignore=shutil.ignore_patterns(".ctxsel"))
    run_git(root, "init", "-q")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", "fixture")
    docs = (Path(__file__).resolve().parent.parent / "docs" / "agents.md").read_text()
    blocks = [b for b in re.findall(r"```python\n(.*?)```", docs, re.S) if "def build_prompt" in b or "def map_for" in b]
    assert len(blocks) == 2
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, "docs/agents.md", "exec"), namespace)

    prompt = namespace["build_prompt"](str(root), "make core faster", ["core/core.cc"], budget=400)
    assert prompt.index("<context>") < prompt.index("<impact>") < prompt.index("<task>")  # the task comes last
    assert "### core/" in prompt and "bazel test" in prompt
    assert prompt.rstrip().endswith("make core faster\n</task>")
    mapped = namespace["map_for"](str(root), "core", ["core/core.cc"])
    assert "- //api:api (distance 1)" in mapped
