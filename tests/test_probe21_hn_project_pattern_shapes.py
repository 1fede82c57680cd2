"""Nx project patterns in the shapes ``minimatch.makeRe`` reads oddly (session 20 left them open).

``findMatchingProjects`` tests names, roots and tags with ``minimatch.makeRe(p, {dot: true})``
(minimatch 10.2.5 in nx 24.0.6), which
- splits on ``/`` before it parses extglobs: a group whose ``)`` is in a later segment is
  literal text (``+(apps/web|x)`` names nothing), and ``**`` inside a group is no globstar
  (``@(**)`` is one segment);
- reads a leading ``!`` of the value (after Nx's own exclude ``!``) as minimatch's negation:
  ``!!(web)`` excludes every project, ``!!api`` too;
- writes ``[!a]`` as the JS class ``[^a]``, which matches ``/`` (``@acme[!a]pp`` names
  ``@acme/pp``).
Every expectation below was measured with ``nx show projects -p PATTERN`` / ``--exclude``
(nx 24.0.6); the oracle test asks the real nx again. A fuzzer comparing ``match_projects``
with Nx's own ``findMatchingProjects`` on 1,800 random pattern lists (``/tmp/dev21/hn/fuzz``)
went from 138 mismatches to 0.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli, write_tree
from test_nx_oracle import Nx

from ctxsel.adapters.js.nx_workspace import NxProject, match_projects

PROJECTS = {  # name -> (root, tags)
    "web": ("apps/web", ["scope:web"]),
    "api": ("apps/api", []),
    "ui-kit": ("libs/ui", ["type:lib"]),
    "@acme/pp": ("libs/pp", ["a/b"]),
}
ALL = set(PROJECTS)
#: ``-p`` patterns (comma-separated, as nx splits them) -> what nx 24.0.6 selects; "old" is ctxsel before
SELECTED = {
    "+(apps/web|x)": set(),  # old: web
    "*(apps/web)": set(),  # old: web
    "?(apps/web)": set(),  # old: web
    "@(apps/**)": set(),  # old: api, web
    "@(**)": {"api", "web", "ui-kit"},  # old: @acme/pp too
    "@acme[!a]pp": {"@acme/pp"},  # old: none
    "libs[!x]pp": {"@acme/pp"},  # old: none
    "tag:a[!x]b": {"@acme/pp"},  # old: none
    "*,!!(web)": set(),  # old: web, @acme/pp
    "web,!!api": set(),  # old: web
    "*,!!!(web)": ALL,
    "apps/@(web|x)": {"web"},
    "directory:libs/@(ui)": {"ui-kit"},
    "libs/!(ui)": {"@acme/pp"},
}
#: ``--exclude`` alone -> what nx 24.0.6 keeps
KEPT = {
    "!(web)": set(),  # old: web, @acme/pp
    "+(apps/web|x)": ALL,  # old: all but web
}


def projects() -> dict[str, NxProject]:
    return {name: NxProject(name=name, root=root, tags=list(tags)) for name, (root, tags) in PROJECTS.items()}


@pytest.mark.parametrize("pattern", sorted(SELECTED))
def test_pattern_selects_what_nx_selects(pattern: str) -> None:
    assert set(match_projects(pattern.split(","), projects())) == SELECTED[pattern]


@pytest.mark.parametrize("pattern", sorted(KEPT))
def test_exclusion_keeps_what_nx_keeps(pattern: str) -> None:
    assert set(match_projects([f"!{pattern}"], projects())) == KEPT[pattern]


def make(root: Path, implicit: list[str] | None = None) -> Path:
    """A package-based workspace of PROJECTS; ``implicit``: ui-kit's implicitDependencies."""
    files: dict[str, object] = {
        "nx.json": {},
        "package.json": {"name": "root", "private": True, "workspaces": ["apps/*", "libs/*"]},
    }
    for name, (proj_root, tags) in PROJECTS.items():
        nx: dict[str, object] = {"tags": tags}
        if name == "ui-kit" and implicit:
            nx["implicitDependencies"] = implicit
        files[f"{proj_root}/package.json"] = {"name": name, "nx": nx}
    return write_tree(root, {k: json.dumps(v) for k, v in files.items()})


def test_implicit_dependencies_read_the_same(tmp_path: Path) -> None:
    """``@acme[!a]pp`` makes ui-kit depend on @acme/pp; ``@(apps/**)`` names nothing, so Nx
    refuses the workspace (an implicit dependency matching no project) and so does ctxsel."""
    root = make(tmp_path / "ok", ["@acme[!a]pp"])
    proc = run_cli("--repo", str(root), "--no-cache", "-q", "--adapter", "nx", "--source", "static",
                   "blast-radius", "@acme/pp", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert {a["id"] for a in json.loads(proc.stdout)["affected"]} == {"@acme/pp", "ui-kit"}  # old: @acme/pp alone
    proc = run_cli("--repo", str(make(tmp_path / "bad", ["@(apps/**)"])), "--no-cache", "-q", "--adapter", "nx",
                   "--source", "static", "blast-radius", "web")
    assert proc.returncode == 2, proc.stdout  # old: exit 0, ui-kit depending on api and web
    assert "@(apps/**)" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.oracle
def test_real_nx_selects_the_same(tmp_path: Path) -> None:
    nx = Nx(make(tmp_path / "ws"), tmp_path / "state")
    for pattern, want in SELECTED.items():
        assert set(nx.json("show", "projects", "-p", pattern, "--json")) == want, pattern
    for pattern, want in KEPT.items():
        assert set(nx.json("show", "projects", "--exclude", pattern, "--json")) == want, pattern
