"""Turborepo 2 matches ``globalDependencies`` as written: a ``./`` prefix never matches.

Session 20 probe (turbo 2.11.11): with ``"globalDependencies": ["./config.json"]`` a commit
changing ``config.json`` marks no package (``turbo ls --filter=...[A...B]`` and ``--affected``
alike), and ``!./config/skip.json`` takes nothing out of ``config/*.json``. ctxsel stripped the
``./`` and so reported a global change -- every package, every test. The ``./`` entries are now
left out of the global files (the shared glob reader would drop the prefix again).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from jsfixtures import open_ws, turbo_filter
from oracles import require

pytestmark = pytest.mark.oracle

ALL = {"p/a", "p/b"}
#: name -> (globalDependencies, the file a commit changes, the packages turbo marks; measured)
CASES: dict[str, tuple[list[str], str, set[str]]] = {
    "dot_file": (["./config.json"], "config.json", set()),
    "dot_glob": (["./config/*.json"], "config/x.json", set()),
    "dot_globstar": (["./**/x.json"], "config/x.json", set()),
    "plain_file": (["config.json"], "config.json", ALL),
    "dot_negation_takes_nothing_out": (["config/*.json", "!./config/skip.json"], "config/skip.json", ALL),
    "negation": (["config/*.json", "!config/skip.json"], "config/skip.json", set()),
}


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", *args], cwd=root, check=True, capture_output=True)


def workspace(root: Path, global_deps: list[str], changed: str) -> Path:
    """Two packages (no dependency between them) and one commit that changes ``changed``."""
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "root", "private": True, "packageManager": "pnpm@12.4.2"}))
    (root / "pnpm-workspace.yaml").write_text("packages: ['p/*']\n")
    (root / "turbo.json").write_text(json.dumps({"globalDependencies": global_deps, "tasks": {"test": {}}}))
    for name in ("a", "b"):
        (root / "p" / name).mkdir(parents=True)
        (root / "p" / name / "package.json").write_text(json.dumps({"name": name, "version": "1.0.0", "scripts": {"test": "echo"}}))
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "init")
    (root / changed).parent.mkdir(parents=True, exist_ok=True)
    (root / changed).write_text("{}")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "change")
    return root


@pytest.mark.parametrize("name", sorted(CASES))
def test_static_turbo_matches_global_dependencies_as_turbo_does(tmp_path: Path, name: str) -> None:
    global_deps, changed, want = CASES[name]
    ws = open_ws(workspace(tmp_path / "ws", global_deps, changed), "turbo")
    roots, change = ws.roots(base="HEAD~1", head="HEAD")
    selected = ws.tests_for_change(ws.tests(roots=roots), change).tests
    assert {ws.graph.node(t).package for t in selected} == want
    assert bool(change.global_files) is bool(want)


@pytest.mark.parametrize("name", sorted(CASES))
def test_turbo_gives_the_measured_answer(tmp_path: Path, name: str) -> None:
    require("turbo")
    global_deps, changed, want = CASES[name]
    assert turbo_filter(workspace(tmp_path / "ws", global_deps, changed), "...[HEAD~1...HEAD]") == want
