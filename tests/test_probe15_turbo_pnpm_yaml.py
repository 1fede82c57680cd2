"""Turborepo 2 reads pnpm-workspace.yaml as YAML 1.2 (Rust serde_yaml), not as pnpm 12 does.

Session 14 taught ctxsel's pnpm reader YAML 1.1 booleans (``y``, ``n``, ``yes``, ``on``), and
the turbo adapter shared that reader. turbo 2.11.11 (measured):

- ``packages: [y, n, yes]`` are the directories ``y``, ``n``, ``yes`` (ctxsel read ``true``
  and ``false`` globs, matched nothing and left those packages out); ``0x10`` is ``0x10``
  (not 16);
- ``linkWorkspacePackages: y`` / ``yes`` / ``on`` and the quoted string ``'true'`` link
  nothing; ``true``, ``True``, ``TRUE`` and ``deep`` (quoted or not) do. ctxsel linked for
  all of them, so a plain ``"a": "^1.0.0"`` made ``b`` a dependent turbo does not list.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsfixtures import open_ws, turbo_filter
from oracles import require

pytestmark = pytest.mark.oracle

PACKAGES = {
    "y": {"name": "ypkg"}, "n": {"name": "npkg"}, "yes": {"name": "yespkg"}, "0x10": {"name": "hex"}, "16": {"name": "sixteen"},
    "p/a": {"name": "a"}, "p/b": {"name": "b", "dependencies": {"a": "^1.0.0"}},
}


def workspace(root: Path, yaml: str) -> Path:
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "root", "private": True, "packageManager": "pnpm@12.4.2"}))
    (root / "turbo.json").write_text(json.dumps({"tasks": {"test": {}}}))
    (root / "pnpm-workspace.yaml").write_text(yaml)
    for rel, fields in PACKAGES.items():
        (root / rel).mkdir(parents=True)
        (root / rel / "package.json").write_text(json.dumps({"version": "1.0.0", "scripts": {"test": "echo"}, **fields}))
    return root


#: pnpm-workspace.yaml -> the package dirs turbo lists (measured)
GLOBS = {
    "packages: [y, 'p/*']\n": {"y", "p/a", "p/b"},
    "packages:\n  - n\n  - yes\n  - p/*\n": {"n", "yes", "p/a", "p/b"},
    "packages: [0x10, 'p/*']\n": {"0x10", "p/a", "p/b"},
}


@pytest.mark.parametrize("yaml", sorted(GLOBS))
def test_workspace_globs_are_yaml_1_2_text(tmp_path: Path, yaml: str) -> None:
    root = workspace(tmp_path / "ws", yaml)
    ws = open_ws(root, "turbo")
    assert {n.package for n in ws.graph.nodes() if n.kind == "package"} == GLOBS[yaml]
    assert not ws.graph.warnings  # no "workspace glob 'true' matches no package.json"


@pytest.mark.parametrize("yaml", sorted(GLOBS))
def test_turbo_lists_those_directories(tmp_path: Path, yaml: str) -> None:
    require("turbo")
    root = workspace(tmp_path / "ws", yaml)
    assert turbo_filter(root, "*") == GLOBS[yaml]


#: linkWorkspacePackages value -> does a plain range link (b a dependent of a), measured
LINKS = {"y": False, "yes": False, "on": False, "'true'": False, "tRue": False,
         "true": True, "True": True, "TRUE": True, "deep": True, "'deep'": True}


@pytest.mark.parametrize("value", sorted(LINKS))
def test_link_workspace_packages_is_a_yaml_1_2_boolean(tmp_path: Path, value: str) -> None:
    root = workspace(tmp_path / "ws", f"packages: ['p/*']\nlinkWorkspacePackages: {value}\n")
    ws = open_ws(root, "turbo")
    radius = {ws.graph.node(i).package for i in ws.blast_radius(roots=["a"]).ids}
    assert radius == ({"p/a", "p/b"} if LINKS[value] else {"p/a"})


@pytest.mark.parametrize("value", sorted(LINKS))
def test_turbo_links_for_those_values(tmp_path: Path, value: str) -> None:
    require("turbo")
    root = workspace(tmp_path / "ws", f"packages: ['p/*']\nlinkWorkspacePackages: {value}\n")
    assert turbo_filter(root, "...a") == ({"p/a", "p/b"} if LINKS[value] else {"p/a"})


def test_pnpm_keeps_its_yaml_1_1_reading(tmp_path: Path) -> None:
    """The pnpm adapter is unchanged: ``y`` is a boolean there (session 14)."""
    root = workspace(tmp_path / "ws", "packages: [y, 'p/*']\n")
    (root / "turbo.json").unlink()
    ws = open_ws(root, "pnpm")
    assert "y" not in {n.package for n in ws.graph.nodes()}
