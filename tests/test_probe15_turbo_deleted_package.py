"""Turborepo 2: a change that deletes a whole package changes none of its dependents.

turbo maps each changed path through the packages of the *head* revision: the files of a
deleted package (``p/a`` removed, or only its package.json, or the directory moved out of
the workspace globs) lie outside every package there, so they are the root's ``//``
(``//#test`` runs) and no package is selected -- also not ``b``, which still declares
``"a": "*"`` (turbo 2.11.11, measured with ``turbo ls --filter=...[A...B]``,
``turbo ls --affected`` and ``turbo run test --filter=...[A...B]``). ctxsel, like pnpm and
Bazel, changed the dependents of the removed package (``b`` and, through it, ``c``).

``selector/affected.py`` credits the surviving dependents of a removed node only when
``adapter.removed_owner_changes_dependents`` (True by default; ``TurboAdapter`` sets False).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from jsfixtures import TURBO_ENV
from oracles import require, run

pytestmark = pytest.mark.oracle

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}


def commit(root: Path) -> None:
    import os

    env = {**os.environ, **GIT_ENV}
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=env)
    subprocess.run(["git", "commit", "-qm", "c"], cwd=root, check=True, env=env)


def workspace(root: Path) -> Path:
    """npm ``p/*``: c -> b -> a, d alone; each with a test, the root with ``//#test``; committed."""
    files = {
        "package.json": {"name": "root", "private": True, "packageManager": "npm@10.0.0", "workspaces": ["p/*"],
                         "scripts": {"test": "echo root"}},
        "turbo.json": {"tasks": {"test": {}, "//#test": {}}},
    }
    for name, deps in (("a", {}), ("b", {"a": "*"}), ("c", {"b": "*"}), ("d", {})):
        files[f"p/{name}/package.json"] = {"name": name, "version": "1.0.0", "scripts": {"test": "echo " + name},
                                           "dependencies": deps}
    for rel, body in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(json.dumps(body))
    (root / "p/a/index.js").write_text("module.exports = 1\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / ".git/info/exclude").write_text(".turbo/\n.ctxsel/\n")
    commit(root)
    return root


def _manifest_only(root: Path) -> None:
    (root / "p/a/package.json").unlink()


def _b_drops_a(root: Path) -> None:
    shutil.rmtree(root / "p/a")
    (root / "p/b/package.json").write_text(json.dumps({"name": "b", "version": "1.0.0", "scripts": {"test": "echo b"}}))


#: name -> (edit, the package dirs turbo selects for ...[HEAD~1...HEAD], measured; "" is //#test)
EDITS: dict[str, tuple[Callable[[Path], None], set[str]]] = {
    "package-deleted": (lambda root: shutil.rmtree(root / "p/a"), {""}),
    "package-json-deleted": (_manifest_only, {""}),
    "moved-out-of-the-globs": (lambda root: shutil.move(root / "p/a", root / "a"), {""}),
    # the dependent's own edit is its change, as always
    "deleted-and-dependent-edited": (_b_drops_a, {"", "p/b", "p/c"}),
}


def ctxsel_json(cli, root: Path, *args: str) -> dict:
    proc = cli("--repo", str(root), "--adapter", "turbo", "--source", "static", *args, "--base", "HEAD~1", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def dirs_of(root: Path, ids: list[str]) -> set[str]:
    return {"" if i == "//" else f"p/{i}" for i in ids}


@pytest.mark.parametrize("case", sorted(EDITS))
def test_dependents_of_a_deleted_package_are_no_change(tmp_path: Path, cli, case: str) -> None:
    root = workspace(tmp_path / "ws")
    edit, expected = EDITS[case]
    edit(root)
    commit(root)
    assert dirs_of(root, ctxsel_json(cli, root, "tests")["tests"]) == expected
    radius = ctxsel_json(cli, root, "blast-radius")
    assert dirs_of(root, [r["id"] for r in radius["affected"]]) == expected - {""}


@pytest.mark.parametrize("case", sorted(EDITS))
def test_turbo_selects_no_dependent_of_a_deleted_package(tmp_path: Path, case: str) -> None:
    require("turbo")
    root = workspace(tmp_path / "ws")
    edit, expected = EDITS[case]
    edit(root)
    commit(root)
    out = run(["turbo", "run", "test", "--filter=...[HEAD~1...HEAD]", "--dry=json"], root, env=TURBO_ENV).stdout
    ran = {t["directory"].strip("/") for t in json.loads(out[out.index("{"):])["tasks"] if t["command"] != "<NONEXISTENT>"}
    assert ran == expected
    listed = run(["turbo", "ls", "--affected", "--output=json"], root, env={**TURBO_ENV, "TURBO_SCM_BASE": "HEAD~1"}).stdout
    assert {p["path"] for p in json.loads(listed)["packages"]["items"]} == expected - {""}
