"""Nx project patterns (``-p``/``--exclude``, ``implicitDependencies``, ``filter.projects``) as
``findMatchingProjects`` reads them: with the regex ``minimatch.makeRe`` builds.

Found by fuzzing ``match_projects`` against Nx 24.0.6's own ``findMatchingProjects`` (session 20,
``/tmp/dev20/hn/fuzz``): makeRe lets a trailing ``/**`` match the directory itself (``apps/**``
selects the project rooted at ``apps``), drops a ``**`` right after ``x/**/y``
(``apps/**/web/**`` is ``apps/**/web``), reads ``**`` inside a segment as ``*`` (``lib**``
does not reach ``libs/ui``), and takes extglobs (``+(web|api)``, ``tag:@(scope|type):app``).
ctxsel matched none of these as Nx does. Every expectation below was measured with
``nx show projects -p PATTERN`` (nx 24.0.6); the oracle test asks the real nx again.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli, write_tree
from test_nx_oracle import Nx

from ctxsel.adapters.js.nx_workspace import NxProject, match_projects

PROJECTS = {  # name -> (root, tags)
    "apps-shell": ("apps", ["scope:shell"]),
    "web": ("apps/web", ["scope:web", "type:app"]),
    "api": ("apps/api", []),
    "ui-kit": ("libs/ui", ["type:lib"]),
}
#: ``-p`` patterns -> what nx 24.0.6 selects
SELECTED = {
    "apps/**": {"apps-shell", "web", "api"},  # old: web, api (not the project at apps itself)
    "apps/**/web/**": {"web"},  # old: none (needed something below apps/web)
    "lib**": set(),  # old: ui-kit ("**" after a prefix read as a globstar)
    "+(web|api)": {"web", "api"},  # old: none (extglobs were literal)
    "@(ui-kit|web)": {"ui-kit", "web"},
    "tag:@(scope|type):app": {"web"},
    "tag:*:app": {"web"},
    "**/ui/**": {"ui-kit"},
}
#: ``--exclude`` alone -> what nx 24.0.6 keeps
KEPT = {"apps/**": {"ui-kit"}}


def projects() -> dict[str, NxProject]:
    return {name: NxProject(name=name, root=root, tags=list(tags)) for name, (root, tags) in PROJECTS.items()}


@pytest.mark.parametrize("pattern", sorted(SELECTED))
def test_pattern_selects_what_nx_selects(pattern: str) -> None:
    assert set(match_projects([pattern], projects())) == SELECTED[pattern]


@pytest.mark.parametrize("pattern", sorted(KEPT))
def test_exclusion_keeps_what_nx_keeps(pattern: str) -> None:
    assert set(match_projects([f"!{pattern}"], projects())) == KEPT[pattern]


def make(root: Path, implicit: list[str] | None = None) -> Path:
    """A package-based workspace of PROJECTS; ``implicit``: ui-kit's implicitDependencies."""
    files: dict[str, object] = {
        "nx.json": {},
        "package.json": {"name": "root", "private": True, "workspaces": ["apps", "apps/*", "libs/*"]},
    }
    for name, (proj_root, tags) in PROJECTS.items():
        nx: dict[str, object] = {"tags": tags}
        if name == "ui-kit" and implicit:
            nx["implicitDependencies"] = implicit
        files[f"{proj_root}/package.json"] = {"name": name, "nx": nx}
    return write_tree(root, {k: json.dumps(v) for k, v in files.items()})


def test_implicit_dependencies_use_the_same_patterns(tmp_path: Path) -> None:
    """``apps/**/web/**`` and ``+(api)`` make ui-kit depend on web and api (nx graph, 24.0.6)."""
    root = make(tmp_path / "ws", ["apps/**/web/**", "+(api)"])
    for changed, dependents in (("web", {"web", "ui-kit"}), ("api", {"api", "ui-kit"}), ("apps-shell", {"apps-shell"})):
        proc = run_cli("--repo", str(root), "--no-cache", "-q", "--adapter", "nx", "--source", "static",
                       "blast-radius", changed, "--format", "json")
        assert proc.returncode == 0, proc.stderr
        assert {a["id"] for a in json.loads(proc.stdout)["affected"]} == dependents


@pytest.mark.oracle
def test_real_nx_selects_the_same(tmp_path: Path) -> None:
    nx = Nx(make(tmp_path / "ws"), tmp_path / "state")
    for pattern, want in SELECTED.items():
        assert set(nx.json("show", "projects", "-p", pattern, "--json")) == want, pattern
    for pattern, want in KEPT.items():
        assert set(nx.json("show", "projects", "--exclude", pattern, "--json")) == want, pattern
