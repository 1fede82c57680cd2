"""A package.json holding valid JSON that is no object: pnpm, npm and yarn read it as ``{}``.

Measured: pnpm 12.4.2 lists such a package (``[1,2]``, ``true``, ``1``, ``"x"``, ``null``, ``[]``;
the root's too) without a name; npm 11.19.1 installs it under its folder's name, so a
dependency ``"a": "*"`` links it; yarn 4.18.1 lists it with ``name: null`` and yarn 1.22.22
skips it as unnamed. turbo 2.11.11 refuses it (``package_json_parse_error``). ctxsel refused
it for every tool ("expected a JSON object", exit 2); now only under turbo.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsfixtures import PNPM_ENV, TURBO_ENV, open_ws, write_pkg
from oracles import require, run

from ctxsel.errors import ParseError

MANIFESTS = ("[1, 2]", "true", "1", '"x"', "null", "[]")


def workspace(root: Path, text: str) -> Path:
    """p/a holds ``text``; p/b depends on ``a`` (``*``); pnpm-workspace.yaml and npm ``workspaces`` both list p/*."""
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "root", "private": True, "workspaces": ["p/*"],
                                                   "packageManager": "pnpm@9.0.0"}))
    (root / "pnpm-workspace.yaml").write_text("packages: ['p/*']\n")
    (root / "turbo.json").write_text('{"tasks": {}}')
    (root / "p" / "a").mkdir(parents=True)
    (root / "p" / "a" / "package.json").write_text(text)
    write_pkg(root, "p/b", "b", dependencies={"a": "*"})
    return root


def dependents_of_a(root: Path, adapter: str) -> set[str]:
    ws = open_ws(root, adapter)
    node = next(n for n in ws.graph.nodes() if n.package == "p/a")
    assert node.meta.get("name") in ("", "a")  # unnamed (npm: named after its folder)
    return {ws.graph.node(i).package for i in ws.blast_radius([node.id]).ids}


@pytest.mark.parametrize("text", MANIFESTS)
def test_pnpm_and_npm_read_an_empty_manifest(tmp_path: Path, text: str) -> None:
    root = workspace(tmp_path / "ws", text)
    assert dependents_of_a(root, "pnpm") == {"p/a"}  # unnamed: nothing links it
    (root / "pnpm-workspace.yaml").unlink()  # npm is no adapter beside it
    assert dependents_of_a(root, "npm") == {"p/a", "p/b"}  # named "a" after its folder


@pytest.mark.parametrize("text", MANIFESTS)
def test_turbo_refuses_it(tmp_path: Path, text: str) -> None:
    with pytest.raises(ParseError) as err:
        open_ws(workspace(tmp_path / "ws", text), "turbo")
    assert err.value.location is not None and err.value.location.path == "p/a/package.json"


@pytest.mark.oracle
@pytest.mark.parametrize("text", MANIFESTS)
def test_the_tools_agree(tmp_path: Path, text: str) -> None:
    require("pnpm")
    require("turbo")
    root = workspace(tmp_path / "ws", text)
    listed = json.loads(run(["pnpm", "ls", "-r", "--json", "--depth", "-1"], root, env=PNPM_ENV).stdout)
    assert [p.get("name") for p in listed if p["path"].endswith("/p/a")] == [None]
    turbo = run(["turbo", "ls", "--output=json"], root, env=TURBO_ENV, check=False)
    assert turbo.returncode != 0 and "package_json_parse_error" in turbo.stderr + turbo.stdout


@pytest.mark.oracle
def test_npm_links_it_by_folder_name(tmp_path: Path) -> None:
    require("npm")
    root = workspace(tmp_path / "ws", "[1]")
    (root / "pnpm-workspace.yaml").unlink()
    run(["npm", "install", "--offline", "--ignore-scripts", "--no-audit", "--no-fund"], root)
    assert (root / "node_modules" / "a").resolve() == (root / "p" / "a").resolve()
