"""Turborepo 2 links ``catalog:`` specs through pnpm-workspace.yaml's catalogs, and no ``npm:`` alias.

Session 20 probes against turbo 2.11.11 and pnpm 12.4.2 (small generated workspaces):

- turbo replaces ``catalog:`` / ``catalog:default`` by the ``catalog`` table's entry and
  ``catalog:<name>`` by ``catalogs.<name>``'s, then links the entry like a spec written in
  package.json: ``workspace:*`` (and every other ``workspace:`` form) always, a plain range
  only with linkWorkspacePackages. ``catalogs.default`` is never read, a missing entry links
  nothing. ctxsel linked no ``catalog:`` spec at all, so ``b`` (``"a": "catalog:"``) was no
  dependent of ``a`` -- nor was every package when the *root* took ``a`` from a catalog.
  pnpm's own ``--filter`` links no ``catalog:`` spec, whatever the entry (unchanged).
- ``npm:<name>@<range>`` is a registry alias and links nothing, even to a package of that
  very name whose version satisfies the range (npm, pnpm, yarn 1 and 4, bun alike); ctxsel
  read ``@p/a@^1.0.0`` as a range no semver parser accepts, which turbo counts as a link.
  ``npm:^1.0.0`` and ``npm:@p/a`` stay ranges.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsfixtures import open_ws, pnpm_filter, turbo_filter
from oracles import require

pytestmark = pytest.mark.oracle

LINK = "linkWorkspacePackages: true\n"

#: name -> (pnpm-workspace.yaml after ``packages``, dependency name, spec, does turbo link b -> a);
#: every answer measured with turbo 2.11.11
CATALOG_CASES: dict[str, tuple[str, str, str, bool]] = {
    "workspace_star": ("catalog:\n  '@p/a': 'workspace:*'\n", "@p/a", "catalog:", True),
    "default_by_name": ("catalog:\n  '@p/a': 'workspace:*'\n", "@p/a", "catalog:default", True),
    "catalogs_default_unread": ("catalogs:\n  default:\n    '@p/a': 'workspace:*'\n", "@p/a", "catalog:", False),
    "catalogs_default_by_name": ("catalogs:\n  default:\n    '@p/a': 'workspace:*'\n", "@p/a", "catalog:default", False),
    "catalog_beside_catalogs_default": ("catalog:\n  '@p/a': '^9.0.0'\ncatalogs:\n  default:\n    '@p/a': 'workspace:*'\n",
                                       "@p/a", "catalog:", False),
    "named": ("catalogs:\n  x:\n    '@p/a': 'workspace:*'\n", "@p/a", "catalog:x", True),
    "named_with_space": ("catalogs:\n  'x y':\n    '@p/a': 'workspace:~'\n", "@p/a", "catalog:x y", True),
    "named_missing": ("catalogs:\n  x:\n    '@p/a': 'workspace:*'\n", "@p/a", "catalog:y", False),
    "no_catalog": ("", "@p/a", "catalog:", False),
    "trailing_space": ("catalog:\n  '@p/a': 'workspace:*'\n", "@p/a", "catalog: ", False),
    "workspace_range_unsatisfied": ("catalog:\n  '@p/a': 'workspace:^2.0.0'\n", "@p/a", "catalog:", True),
    "workspace_path": ("catalog:\n  '@p/a': 'workspace:../a'\n", "@p/a", "catalog:", True),
    "workspace_alias": ("catalog:\n  alias: 'workspace:@p/a@*'\n", "alias", "catalog:", True),
    "range_without_link": ("catalog:\n  '@p/a': '^1.0.0'\n", "@p/a", "catalog:", False),
    "range_with_link": (LINK + "catalog:\n  '@p/a': '^1.0.0'\n", "@p/a", "catalog:", True),
    "range_unsatisfied": (LINK + "catalog:\n  '@p/a': '^2.0.0'\n", "@p/a", "catalog:", False),
    "number_as_text": (LINK + "catalog:\n  '@p/a': 1\n", "@p/a", "catalog:", True),
    "tag_with_link": (LINK + "catalog:\n  '@p/a': latest\n", "@p/a", "catalog:", True),
    "link_with_link": (LINK + "catalog:\n  '@p/a': 'link:../a'\n", "@p/a", "catalog:", True),
    "npm_range": (LINK + "catalog:\n  '@p/a': 'npm:^1.0.0'\n", "@p/a", "catalog:", True),
    "npm_alias": (LINK + "catalog:\n  '@p/a': 'npm:@p/a@^1.0.0'\n", "@p/a", "catalog:", False),
}

#: a spec written in p/b's package.json with linkWorkspacePackages -> does turbo link b -> a
#: (turbo 2.11.11, measured; the same with npm, yarn 1, yarn 4 and bun as the manager)
NPM_CASES: dict[str, bool] = {
    "npm:@p/a@^1.0.0": False, "npm:@p/a@*": False, "npm:@p/a@1.0.0": False, "npm:@p/a@^2.0.0": False,
    "npm:@p/a@": False, "npm:left-pad@^1.0.0": False, "npm:a@1": False, "npm:a@": False,
    "npm:@p/a": True, "npm:^1.0.0": True, "npm:latest": True, "npm:a": True, "npm:^2.0.0": False,
}


def workspace(root: Path, settings: str, b_deps: dict[str, str], root_deps: dict[str, str] | None = None) -> Path:
    """``p/a`` (1.0.0), ``p/b`` depending on ``b_deps``, ``p/c`` with no dependency; pnpm + turbo."""
    root.mkdir(parents=True)
    manifest = {"name": "root", "version": "0.0.0", "private": True, "packageManager": "pnpm@12.4.2",
                **({"devDependencies": root_deps} if root_deps else {})}
    (root / "package.json").write_text(json.dumps(manifest))
    (root / "turbo.json").write_text(json.dumps({"tasks": {"test": {}}}))
    (root / "pnpm-workspace.yaml").write_text("packages: ['p/*']\n" + settings)
    for rel, deps in (("p/a", {}), ("p/b", b_deps), ("p/c", {})):
        (root / rel).mkdir(parents=True)
        fields = {"name": "@" + rel, "version": "1.0.0", "scripts": {"test": "echo"}, "dependencies": deps}
        (root / rel / "package.json").write_text(json.dumps(fields))
    return root


def static_dependents(root: Path, adapter: str = "turbo") -> set[str]:
    """The directories of ``@p/a`` and its dependents in ctxsel's static graph (``//`` left out)."""
    ws = open_ws(root, adapter)
    return {ws.graph.node(i).package for i in ws.blast_radius(roots=["@p/a"]).ids} - {""}


def catalog_root(tmp_path: Path, name: str) -> tuple[Path, set[str]]:
    settings, dep, spec, linked = CATALOG_CASES[name]
    return workspace(tmp_path / "ws", settings, {dep: spec}), {"p/a", "p/b"} if linked else {"p/a"}


@pytest.mark.parametrize("name", sorted(CATALOG_CASES))
def test_static_turbo_links_catalog_entries_as_turbo_does(tmp_path: Path, name: str) -> None:
    root, want = catalog_root(tmp_path, name)
    assert static_dependents(root) == want


@pytest.mark.parametrize("name", sorted(CATALOG_CASES))
def test_turbo_gives_the_measured_catalog_answer(tmp_path: Path, name: str) -> None:
    require("turbo")
    root, want = catalog_root(tmp_path, name)
    assert turbo_filter(root, "...@p/a") == want


@pytest.mark.parametrize("name", ["workspace_star", "range_with_link", "named"])
def test_pnpm_links_no_catalog_spec(tmp_path: Path, name: str) -> None:
    """pnpm 12's ``--filter`` graph does not resolve catalogs: the pnpm adapter must not either."""
    root, _ = catalog_root(tmp_path, name)
    assert static_dependents(root, "pnpm") == {"p/a"}
    require("pnpm")
    assert pnpm_filter(root, "...@p/a") == {"p/a"}


def test_a_root_dependency_from_a_catalog_makes_every_package_a_dependent(tmp_path: Path) -> None:
    """The root package ``//`` depends on ``@p/a`` through ``catalog:``, so every package does."""
    root = workspace(tmp_path / "ws", "catalog:\n  '@p/a': 'workspace:*'\n", {}, root_deps={"@p/a": "catalog:"})
    want = {"p/a", "p/b", "p/c"}
    assert static_dependents(root) == want
    require("turbo")
    assert turbo_filter(root, "...@p/a") == want


@pytest.mark.parametrize("spec", sorted(NPM_CASES))
def test_static_turbo_links_no_npm_alias(tmp_path: Path, spec: str) -> None:
    root = workspace(tmp_path / "ws", LINK, {"@p/a": spec})
    assert static_dependents(root) == ({"p/a", "p/b"} if NPM_CASES[spec] else {"p/a"})


@pytest.mark.parametrize("spec", sorted(NPM_CASES))
def test_turbo_gives_the_measured_npm_answer(tmp_path: Path, spec: str) -> None:
    require("turbo")
    root = workspace(tmp_path / "ws", LINK, {"@p/a": spec})
    assert turbo_filter(root, "...@p/a") == ({"p/a", "p/b"} if NPM_CASES[spec] else {"p/a"})
