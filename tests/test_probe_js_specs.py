"""Version strings and dependency specs at the edges, against pnpm 12 and turbo 2.

Each case is one workspace package ``t<i>`` with an odd ``version`` and one dependent per
spec; the answer compared is which specs link to it (pnpm ``--filter ...t<i>``, turbo
``ls --filter=...t<i>``). The static-only tests pin the measured answers so they fail
without the tools too.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsfixtures import open_ws, pnpm_filter, radius_dirs, turbo_filter
from oracles import require

from ctxsel.adapters.js import semver

pytestmark = pytest.mark.oracle

PNPM_VERSIONS = ["1.0", "=1.0.0", "1.0.0 ", "", "latest", "vv1.0.0", "1.0.0-beta..1", "V1.0.0", " 1.0.0", "1.0.0-rc.1", 1, None]
PNPM_SPECS = ["workspace:*", "workspace:^", "workspace:^1.0.0", "^1.0.0", "*", " workspace:*", "workspace:  ^1.0.0  "]
TURBO_VERSIONS = ["1.0", "=1.0.0", "", "latest", "1.0.0-01", "1.0.0-beta..1", None, "1.0.0"]
TURBO_SPECS = ["workspace:*", "workspace:^1.0.0", "^1.0.0", "*", " workspace:*", ">=0.0.0", "latest"]


def version_workspace(root: Path, versions: list, specs: list[str], manager: str | None = None) -> Path:
    """``p/t<i>`` at ``versions[i]`` and ``q/d<i>_<j>`` depending on it with ``specs[j]``."""
    manifest: dict = {"name": "root", "version": "0.0.0"}
    if manager:
        manifest["packageManager"] = manager
        (root / "turbo.json").parent.mkdir(parents=True, exist_ok=True)
        (root / "turbo.json").write_text(json.dumps({"tasks": {}}))
    root.mkdir(parents=True, exist_ok=True)
    if manager is None or manager.startswith("pnpm"):
        (root / "pnpm-workspace.yaml").write_text("packages: ['p/*', 'q/*']\nlinkWorkspacePackages: true\n")
    else:
        manifest["workspaces"] = ["p/*", "q/*"]
    (root / "package.json").write_text(json.dumps(manifest))
    for i, version in enumerate(versions):
        pkg: dict = {"name": f"t{i}"}
        if version is not None:
            pkg["version"] = version
        (root / f"p/t{i}").mkdir(parents=True)
        (root / f"p/t{i}/package.json").write_text(json.dumps(pkg))
        for j, spec in enumerate(specs):
            (root / f"q/d{i}_{j}").mkdir(parents=True)
            (root / f"q/d{i}_{j}/package.json").write_text(json.dumps({"name": f"d{i}_{j}", "dependencies": {f"t{i}": spec}}))
    return root


def linking_specs(dirs: set[str], specs: list[str]) -> list[str]:
    return sorted(specs[int(d.rsplit("_", 1)[1])] for d in dirs if d.startswith("q/"))


def ours(root: Path, adapter: str, versions: list, specs: list[str]) -> dict[str, list[str]]:
    ws = open_ws(root, adapter)
    return {repr(v): linking_specs(radius_dirs(ws, f"t{i}"), specs) for i, v in enumerate(versions)}


def test_pnpm_versions_and_specs_match_pnpm(tmp_path: Path) -> None:
    require("pnpm")
    root = version_workspace(tmp_path / "ws", PNPM_VERSIONS, PNPM_SPECS)
    theirs = {repr(v): linking_specs(pnpm_filter(root, f"...t{i}"), PNPM_SPECS) for i, v in enumerate(PNPM_VERSIONS)}
    assert ours(root, "pnpm", PNPM_VERSIONS, PNPM_SPECS) == theirs


@pytest.mark.parametrize("manager", ["pnpm@12.4.2", "npm@10.9.0"])
def test_turbo_versions_and_specs_match_turbo(tmp_path: Path, manager: str) -> None:
    require("turbo")
    root = version_workspace(tmp_path / "ws", TURBO_VERSIONS, TURBO_SPECS, manager)
    theirs = {repr(v): linking_specs(turbo_filter(root, f"...t{i}"), TURBO_SPECS) for i, v in enumerate(TURBO_VERSIONS)}
    assert ours(root, "turbo", TURBO_VERSIONS, TURBO_SPECS) == theirs


# ---------------------------------------------------------------------- measured answers, no tool needed
def test_pnpm_unparsable_version_links_for_nothing(tmp_path: Path) -> None:
    """pnpm 12: ``1.0``/``=1.0.0``/``""`` never link; a missing version links every
    ``workspace:`` spec but no plain range; ``*`` accepts a prerelease; `` workspace:*`` is no link."""
    versions = ["1.0", "=1.0.0", "", None, "1.0.0-rc.1", "1.0.0"]
    got = ours(version_workspace(tmp_path / "ws", versions, PNPM_SPECS), "pnpm", versions, PNPM_SPECS)
    links = ["*", "^1.0.0", "workspace:  ^1.0.0  ", "workspace:*", "workspace:^", "workspace:^1.0.0"]
    assert got == {
        "'1.0'": [], "'=1.0.0'": [], "''": [],
        "None": ["workspace:  ^1.0.0  ", "workspace:*", "workspace:^", "workspace:^1.0.0"],
        "'1.0.0-rc.1'": ["*", "workspace:*", "workspace:^"],
        "'1.0.0'": links,
    }


def test_turbo_star_and_missing_versions(tmp_path: Path) -> None:
    """turbo 2: ``*`` links a prerelease; a package without a version links for ``*`` only."""
    versions = [None, "", "1.0.0-01"]
    got = ours(version_workspace(tmp_path / "ws", versions, TURBO_SPECS, "npm@10.9.0"), "turbo", versions, TURBO_SPECS)
    assert got == {
        "None": ["*", "workspace:*", "workspace:^1.0.0"],
        "''": ["*", "workspace:*", "workspace:^1.0.0"],
        "'1.0.0-01'": ["*", "latest", "workspace:*", "workspace:^1.0.0"],
    }


def test_empty_prerelease_identifiers_are_not_semver() -> None:
    assert semver.parse_version("1.0.0-beta..1") is None and semver.parse_version("1.0.0-") is None
    assert semver.parse_range("^1.0.0-beta..1") is None
    assert semver.parse_manifest_version("=1.0.0") is None and semver.parse_manifest_version("V1.0.0") == (1, 0, 0, ())


# ---------------------------------------------------------------------- turbo: link:/file: and workspace: aliases
TURBO_LINKS = [
    ("@p/a", "link:../b"), ("@p/a", "link:"), ("@p/a", "file:../a/package.json"), ("x", "link:../a"), ("@p/a", "link:../zz"),
    ("@p/a", "workspace:@p/a"), ("x", "workspace:@p/a@^9"), ("x", "workspace:@p/a@"), ("x", "workspace:@p/a@*"),
    ("@p/a", "workspace:../b"), ("@p/a", "workspace:^9"), ("a2", "workspace:a2@*"),
]


def turbo_link_workspace(root: Path, manager: str) -> Path:
    """``p/d<i>`` depends on ``TURBO_LINKS[i]``; ``linkWorkspacePackages`` so link:/file: count under pnpm too."""
    packages = {"p/a": {"name": "@p/a", "version": "1.0.0"}, "p/b": {"name": "@p/b", "version": "1.0.0"}, "p/a2": {"name": "a2", "version": "1.0.0"}}
    for i, (name, spec) in enumerate(TURBO_LINKS):
        packages[f"p/d{i}"] = {"name": f"d{i}", "dependencies": {name: spec}}
    root.mkdir(parents=True)
    manifest: dict = {"name": "root", "version": "0.0.0", "packageManager": manager}
    if manager.startswith("pnpm"):
        (root / "pnpm-workspace.yaml").write_text("packages: ['p/*']\nlinkWorkspacePackages: true\n")
    else:
        manifest["workspaces"] = ["p/*"]
    (root / "package.json").write_text(json.dumps(manifest))
    (root / "turbo.json").write_text(json.dumps({"tasks": {}}))
    for rel, body in packages.items():
        (root / rel).mkdir(parents=True)
        (root / rel / "package.json").write_text(json.dumps(body))
    return root


def our_turbo_links(root: Path) -> dict[str, list[str]]:
    ws = open_ws(root, "turbo")
    return {f"{n}: {s}": sorted(ws.graph.dependencies(f"d{i}")) for i, (n, s) in enumerate(TURBO_LINKS)}


@pytest.mark.parametrize("manager", ["pnpm@12.4.2", "npm@10.9.0"])
def test_turbo_link_and_alias_specs_match_turbo_query(tmp_path: Path, manager: str) -> None:
    from oracles import run

    require("turbo")
    root = turbo_link_workspace(tmp_path / "ws", manager)
    env = {"TURBO_TELEMETRY_DISABLED": "1", "DO_NOT_TRACK": "1", "TURBO_NO_UPDATE_NOTIFIER": "1"}
    out = run(["turbo", "query", "{ packages { items { name directDependencies { items { name } } } } }"], root, env=env).stdout
    deps = {p["name"]: sorted(d["name"] for d in p["directDependencies"]["items"]) for p in json.loads(out)["data"]["packages"]["items"]}
    assert our_turbo_links(root) == {f"{n}: {s}": deps[f"d{i}"] for i, (n, s) in enumerate(TURBO_LINKS)}


def test_turbo_links_by_dependency_name_and_checks_alias_ranges(tmp_path: Path) -> None:
    got = our_turbo_links(turbo_link_workspace(tmp_path / "ws", "npm@10.9.0"))
    assert got["@p/a: link:../b"] == ["@p/a"] and got["@p/a: link:"] == ["@p/a"] and got["x: link:../a"] == ["//"]
    assert got["x: workspace:@p/a@^9"] == ["//"] and got["@p/a: workspace:@p/a"] == ["//"] and got["x: workspace:@p/a@*"] == ["@p/a"]
    assert got["@p/a: workspace:../b"] == ["@p/b"] and got["@p/a: workspace:^9"] == ["@p/a"]
