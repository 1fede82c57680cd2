"""Every ``--format json`` output validates against its shipped JSON Schema (``ctxsel/schemas``).

The schemas forbid unknown fields, so a field added to an output without being added to
its schema (and to docs/json.md) fails here: the JSON an agent parses cannot drift
silently. Outputs come from the real CLI on copies of the fixtures.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES, run_cli, run_git

jsonschema = pytest.importorskip("jsonschema", reason="pip install -e '.[test]' (jsonschema)")

import ctxsel  # noqa: E402

# command -> schema file name (without .json); every command with a json format is listed
COMMAND_SCHEMAS = {
    "blast-radius": "blast-radius",
    "tests": "tests",
    "pre-commit": "tests",
    "owners": "owners",
    "select": "select",
    "index": "index",
}
SCHEMA_DIR = Path(ctxsel.__file__).parent / "schemas"


def validate(doc: dict[str, Any], schema_name: str) -> None:
    validator = jsonschema.Draft202012Validator(ctxsel.json_schema(schema_name))
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:5])


@pytest.fixture(scope="module")
def bazel_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """bazel-basic as a git repo with CODEOWNERS, an edit, a rename and a staged change."""
    root = tmp_path_factory.mktemp("schemas") / "bazel-basic"
    shutil.copytree(FIXTURES / "bazel-basic", root, ignore=shutil.ignore_patterns(".ctxsel"))
    (root / "CODEOWNERS").write_text("* @org/platform\n/core/ @org/core\n/data/ \n")
    run_git(root, "init", "-q")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", "fixture")
    with open(root / "api" / "api.cc", "a") as fh:
        fh.write("// edited\n")
    run_git(root, "mv", "core/core.py", "core/core_moved.py")
    return root


@pytest.fixture(scope="module")
def pnpm_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("schemas") / "js-pnpm"
    shutil.copytree(FIXTURES / "js-pnpm", root, ignore=shutil.ignore_patterns(".ctxsel", "node_modules"))
    return root


def cli_json(repo: Path, *args: str) -> dict[str, Any]:
    out = run_cli("--source", "static", "--repo", str(repo), *args, "--format", "json", cwd=repo)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


# (command, arguments); each runs on the bazel fixture
BAZEL_CASES = [
    ("blast-radius", ["//core:core"]),
    ("blast-radius", ["--since", "HEAD", "--explain"]),
    ("blast-radius", ["//core:core", "--owner", "@org/core", "--depth", "2"]),
    ("blast-radius", ["//core:core", "--limit", "2"]),
    ("tests", ["//core:core"]),
    ("tests", ["--files", "core/core.cc", "api/api.cc", "--explain"]),
    ("tests", ["//core:core", "--owner", "@org/core"]),
    ("pre-commit", ["--explain"]),
    ("owners", ["core/core.cc", "README.md", "data/a.txt", "not/there.txt"]),
    ("owners", ["--unowned", "data"]),
    ("select", ["core library", "//core:core", "--budget", "400", "--explain-scope"]),
    ("select", ["", "--files", "api/api.cc", "--budget", "200", "--scope", "graph"]),
    ("index", []),
]


@pytest.mark.parametrize("command,args", BAZEL_CASES, ids=[f"{c} {' '.join(a)}" for c, a in BAZEL_CASES])
def test_bazel_outputs_match_their_schema(bazel_repo, command, args):
    doc = cli_json(bazel_repo, command, *args)
    assert doc["schema_version"] == 1
    assert next(iter(doc)) == "schema_version"  # first, so a reader can branch on it early
    validate(doc, COMMAND_SCHEMAS[command])


@pytest.mark.parametrize("command,args", [("blast-radius", ["@ws/core"]), ("tests", ["@ws/core"]), ("blast-radius", ["packages/utils"])])
def test_js_outputs_match_their_schema(pnpm_repo, command, args):
    validate(cli_json(pnpm_repo, command, *args), COMMAND_SCHEMAS[command])


def test_optional_fields_really_occur(bazel_repo):
    # Guards the cases above: they must exercise the optional parts of the schemas.
    explained = cli_json(bazel_repo, "blast-radius", "--since", "HEAD", "--explain")
    assert "because" in explained["affected"][0] and explained["changes"]["files"]
    assert any(f["status"] == "R" and "old_path" in f for f in explained["changes"]["files"])
    assert cli_json(bazel_repo, "blast-radius", "//core:core", "--limit", "2")["truncated"] > 0
    scoped = cli_json(bazel_repo, "tests", "//core:core", "--owner", "@org/core")
    assert scoped["dropped_by_owner"] >= 1
    owners = cli_json(bazel_repo, "owners", "data/a.txt")
    assert owners["owners"]["data/a.txt"] == []  # a pattern without owners unowns


# ------------------------------------------------------------------ the schemas themselves
@pytest.mark.parametrize("path", sorted(SCHEMA_DIR.glob("*.json")), ids=lambda p: p.name)
def test_schema_files_are_valid_and_strict(path):
    schema = json.loads(path.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["properties"]["schema_version"]["const"] == ctxsel.SCHEMA_VERSION
    assert schema["additionalProperties"] is False
    assert "schema_version" in schema["required"]
    for name, prop in schema["properties"].items():
        assert prop.get("description"), f"{path.name}: {name} is undocumented"


def test_schemas_reject_drift():
    good = {"schema_version": 1, "adapter": "bazel", "roots": ["//a:a"], "tests": [], "command": ""}
    validate(good, "tests")
    validator = jsonschema.Draft202012Validator(ctxsel.json_schema("tests"))
    assert not validator.is_valid({**good, "new_field": 1})
    assert not validator.is_valid({**good, "schema_version": 2})
    assert not validator.is_valid({k: v for k, v in good.items() if k != "command"})


def test_the_change_description_is_the_same_in_every_schema():
    radius = ctxsel.json_schema("blast-radius")["properties"]["changes"]
    tests = ctxsel.json_schema("tests")["properties"]["changes"]["anyOf"][0]
    assert radius == tests


def test_every_json_output_has_a_schema():
    """A new command with ``--format json`` must come with a schema (and a line here)."""
    import click
    import typer

    from ctxsel.cli import app

    group = typer.main.get_command(app)
    ctx = click.Context(group)
    with_json = set()
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        for param in command.params:
            if "--format" in getattr(param, "opts", []) and "json" in (param.help or ""):
                with_json.add(name)
    assert with_json == set(COMMAND_SCHEMAS), with_json ^ set(COMMAND_SCHEMAS)
    assert {f"{s}.json" for s in COMMAND_SCHEMAS.values()} == {p.name for p in SCHEMA_DIR.glob("*.json")}


def test_docs_describe_every_field():
    """docs/json.md explains every field of every schema (nested ones included)."""
    docs = (Path(__file__).resolve().parent.parent / "docs" / "json.md").read_text()

    def fields(schema: dict[str, Any]) -> set[str]:
        found = set()
        for name, sub in schema.get("properties", {}).items():
            found.add(name)
            for part in (sub, sub.get("items"), *sub.get("anyOf", [])):  # objects, arrays of them, nullable ones
                if isinstance(part, dict):
                    found |= fields(part)
        return found

    for name in set(COMMAND_SCHEMAS.values()):
        missing = sorted(f for f in fields(ctxsel.json_schema(name)) if f"`{f}`" not in docs and f'"{f}"' not in docs)
        assert not missing, f"{name}.json fields missing from docs/json.md: {missing}"
