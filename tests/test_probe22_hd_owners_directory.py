"""Session 22 docs check (helper hd): ``ctxsel owners DIR/`` for a directory a ``/dir/`` rule owns.

``ctxsel owners --help`` takes "Files or directories", and README says it answers "who owns this
path" as the host does, with the ``codeowners`` package as the tests' reference for GitHub. Asked
for ``core/`` (a directory, written with its slash) under ``/core/ @acme/payments``, the
reference answers ``@acme/payments`` (``CodeOwners(text).of("core/")``, codeowners 0.8); ctxsel
drops the slash (``repo_relative`` in selector/commands/owners.py), matches ``core`` against a
pattern that needs ``core/`` and prints ``core	(unowned)`` although every file below it is owned.
The fix is in ``selector/`` (keep a directory's trailing ``/``, or append it for an existing
directory), which this helper may not edit: xfail for the lead.
"""

from __future__ import annotations

import json

import pytest

from conftest import run_cli, write_tree

CODEOWNERS = "/core/ @acme/payments\n"


@pytest.mark.xfail(strict=True, reason="owners drops a directory's trailing '/', so '/core/' never matches 'core/'")
def test_a_directory_owned_by_a_directory_rule_is_owned(tmp_path):
    repo = write_tree(tmp_path, {".github/CODEOWNERS": CODEOWNERS, "core/a.c": "int a;\n"})
    out = run_cli("owners", "core/", "--format", "json", cwd=repo)
    assert out.returncode == 0, out.stderr
    assert list(json.loads(out.stdout)["owners"].values()) == [["@acme/payments"]]

