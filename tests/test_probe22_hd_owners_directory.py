"""Session 22 docs check (helper hd): ``ctxsel owners DIR/`` for a directory a ``/dir/`` rule owns.

``ctxsel owners --help`` takes "Files or directories", and README says it answers "who owns this
path" as the host does, with the ``codeowners`` package as the tests' reference for GitHub. Asked
for ``core/`` (a directory, written with its slash) under ``/core/ @acme/payments``, the
reference answers ``@acme/payments`` (``CodeOwners(text).of("core/")``, codeowners 0.8); ctxsel
drops the slash (``repo_relative`` in selector/commands/owners.py), matches ``core`` against a
pattern that needs ``core/`` and prints ``core	(unowned)`` although every file below it is owned.
Fixed: a path written with a trailing ``/``, or naming an existing directory, is matched as
``dir/`` (``owners_report(directories=...)``); the answer keeps the path as before.
"""

from __future__ import annotations

import json

import pytest

from conftest import run_cli, write_tree

CODEOWNERS = "/core/ @acme/payments\n"


def test_a_directory_owned_by_a_directory_rule_is_owned(tmp_path):
    repo = write_tree(tmp_path, {".github/CODEOWNERS": CODEOWNERS, "core/a.c": "int a;\n"})
    out = run_cli("owners", "core/", "--format", "json", cwd=repo)
    assert out.returncode == 0, out.stderr
    assert list(json.loads(out.stdout)["owners"].values()) == [["@acme/payments"]]



@pytest.mark.parametrize("syntax", ["github", "gitlab"])
def test_an_existing_directory_asked_without_its_slash_is_a_directory(tmp_path, syntax):
    """Lead, session 22: ``core`` names the directory that exists, so it is matched as ``core/``;
    a path that does not exist stays a file name (its owners, once it is created)."""
    repo = write_tree(tmp_path, {"CODEOWNERS": CODEOWNERS + "*.md @docs\n", "core/a.c": "int a;\n"})
    out = run_cli("owners", "core", "nothing/here.md", "--codeowners-syntax", syntax, "--format", "json", cwd=repo)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["owners"] == {"core": ["@acme/payments"], "nothing/here.md": ["@docs"]}
    text = run_cli("owners", "core", "--codeowners-syntax", syntax, cwd=repo)
    assert text.stdout == "core\t@acme/payments\n"
