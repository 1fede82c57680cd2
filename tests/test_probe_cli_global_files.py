"""Global-file globs (Turborepo ``globalDependencies``) matched as the tool matches them.

ctxsel used ``fnmatch``, whose ``*`` crosses ``/``, with no ``{a,b}`` and no ``!``,
and it made a matching file global even inside a package. Measured with turbo 2
(``turbo ls --filter='...[HEAD~1]'``) for one changed file per case:

- ``*.env`` and ``docs/b.env``: turbo nothing global, ctxsel every package;
- ``config/**/*.json`` and ``config/q.json``: turbo every package, ctxsel none;
- ``{x,y}.cfg`` and ``y.cfg``: turbo every package, ctxsel none;
- ``**/*.env`` + ``!docs/**`` and ``docs/e.env``: turbo nothing, ctxsel every package;
- ``**/*.env`` and ``apps/app/h.env``: turbo the package and its dependents, ctxsel all.

The differential test replays these against the real turbo (skipped without it).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import FIXTURES, run_cli
from ctxsel.affected import change_set, is_global
from ctxsel.changes import MODIFIED, ChangedFile, FileChanges
from oracles import require, run
from toy_workspace import SPEC, ToyAdapter, make_repo, open_ws

# (globalDependencies, changed file, whether every package is affected)
CASES = [
    (["*.env"], ".env", True),
    (["*.env"], "docs/b.env", False),
    (["config/*.json"], "config/sub/y.json", False),
    (["config/**"], "config/sub/z.json", True),
    (["config/**/*.json"], "config/q.json", True),
    (["**/*.env"], "scripts/d.env", True),
    (["{x,y}.cfg"], "y.cfg", True),
    (["conf*/*.ini"], "confd/s/a.ini", False),
    (["**/*.env", "!docs/**"], "docs/e.env", False),
    (["**/*.env", "!docs/**"], "f.env", True),
]


@pytest.mark.parametrize("globs, path, expected", CASES)
def test_global_globs_are_path_globs(globs, path, expected):
    assert is_global(tuple(globs), path) is expected


class GlobToy(ToyAdapter):
    """The toy graph with a Turborepo-like ``**/*.cfg`` global glob."""

    def global_files(self) -> tuple[str, ...]:
        return ("toy.json", "**/*.cfg")


def test_a_global_glob_match_inside_a_package_changes_only_that_package(tmp_path):
    """Turborepo maps a file to its package before it looks at globalDependencies."""
    root = make_repo(tmp_path / "ws")
    ws = open_ws(root, GlobToy)
    inside = change_set(ws.adapter, ws.graph, FileChanges([ChangedFile("lib/local.cfg", MODIFIED)], "t"))
    assert inside.global_files == [] and inside.nodes == ["b_test", "lib_a", "lib_b"]
    outside = change_set(ws.adapter, ws.graph, FileChanges([ChangedFile("config/build.cfg", MODIFIED)], "t"))
    assert outside.global_files == ["config/build.cfg"] and outside.nodes == sorted(SPEC["nodes"])


def _git(root: Path, *args: str) -> str:
    from conftest import run_git

    return run_git(root, *args)


@pytest.mark.oracle
def test_turbo_global_dependencies_agree_with_turbo_ls(tmp_path):
    turbo = require("turbo")
    src = FIXTURES / "js-turbo"
    root = tmp_path / "repo"
    shutil.copytree(src, root, ignore=shutil.ignore_patterns("node_modules", ".ctxsel", ".turbo"))
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "init")
    app_dir = next(p.parent.relative_to(root).as_posix() for p in root.glob("apps/*/package.json"))
    cases = [*CASES, (["**/*.env"], f"{app_dir}/h.env", False)]
    mismatches = []
    for n, (globs, path, _) in enumerate(cases):
        config = json.loads((root / "turbo.json").read_text())
        config["globalDependencies"] = globs
        (root / "turbo.json").write_text(json.dumps(config, indent=2))
        _git(root, "add", "-A")
        _git(root, "commit", "-q", "--allow-empty", "-m", f"globs {n}")
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(f"change {n}\n")
        _git(root, "add", "-A")
        _git(root, "commit", "-qm", f"change {n}")
        out = run([turbo, "ls", "--filter=...[HEAD~1]", "--output=json"], cwd=root, timeout=120).stdout
        want = {p["name"] for p in json.loads(out[out.index("{"):])["packages"]["items"]}
        proc = run_cli("--repo", str(root), "--adapter", "turbo", "--source", "static", "--quiet",
                       "blast-radius", "--base", "HEAD~1", "--format", "labels")
        assert proc.returncode == 0, proc.stderr
        got = set(proc.stdout.split())
        if got != want:
            mismatches.append(f"{globs} {path}: ctxsel-only {sorted(got - want)}, turbo-only {sorted(want - got)}")
    assert not mismatches, "\n".join(mismatches)
