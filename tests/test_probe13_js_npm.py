"""npm 11: dependency specs that are paths, against ``npm install --offline`` + ``npm query``.

One workspace per spec: ``p/d`` depends on ``a`` with the spec and npm's answer is whether
``p/d``'s edge resolves to the top-level workspace link ``node_modules/a``. ``LINKS`` pins
npm 11.19.1's answers, so the static half fails without npm too.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from jsfixtures import open_ws
from oracles import run

pytestmark = pytest.mark.oracle

NPM_OFFLINE = ["--offline", "--ignore-scripts", "--no-audit", "--no-fund"]
#: spec -> does npm link p/d to the workspace package p/a (``ROOT``: the workspace's absolute path)
LINKS = {
    "../a": True, "./../a": True, "../a/b/..": True, "x/../../a": True, "ROOT/p/a": True, "file:ROOT/p/a": True,
    "file:///ROOTNS/p/a": True, "file:/../a": True, "file://../a": True, "file:../a": True,
    "file:..\\a": False, "../a ": False, "~/x": False,
}


def workspace(root: Path, spec: str) -> Path:
    (root / "p/a").mkdir(parents=True)
    (root / "p/d").mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "root", "version": "0.0.0", "workspaces": ["p/*"]}))
    (root / "p/a/package.json").write_text(json.dumps({"name": "a", "version": "1.0.0"}))
    spec = spec.replace("ROOTNS", str(root).lstrip("/")).replace("ROOT", str(root))
    (root / "p/d/package.json").write_text(json.dumps({"name": "d", "version": "1.0.0", "dependencies": {"a": spec}}))
    return root


@pytest.mark.parametrize("spec", sorted(LINKS))
def test_path_specs_link_like_npm(tmp_path: Path, spec: str) -> None:
    """ctxsel linked ``file:..\\a`` (npm reads no backslash as a separator) and none of the
    bare (``../a``, ``x/../../a``), absolute and ``file:/../a``-style paths npm links."""
    root = workspace(tmp_path / "ws", spec)
    ours = open_ws(root, "npm").graph.dependencies("d") == ["a"]
    assert ours is LINKS[spec]
    if shutil.which("npm"):
        run(["npm", "install", *NPM_OFFLINE], root, timeout=120)
        query = json.loads(run(["npm", "query", ".workspace", "--json"], root).stdout)
        to = next(p for p in query if p["location"] == "p/d").get("to") or []
        assert ours is ("node_modules/a" in to and (root / "node_modules/a").resolve() == (root / "p/a").resolve())


def test_the_test_command_runs_only_the_selected_workspace(tmp_path: Path) -> None:
    """``npm run test --workspace=lib`` ran the package named ``lib`` (in ``q/lib``) *and*
    ``lib/x`` and ``lib/y``; ``--workspace=!x`` ran every workspace (npm 11.19.1). Such
    packages are now selected by directory (``--workspace=./q/lib``)."""
    root = tmp_path / "ws"
    packages = {"q/lib": "lib", "lib/x": "x", "lib/y": "y", "p/bang": "!x", "p/x2": "x2", "p/path": "lib/x"}
    root.mkdir()
    (root / "package.json").write_text(json.dumps({"name": "root", "version": "0.0.0", "workspaces": ["q/lib", "lib/*", "p/*"]}))
    for rel, name in packages.items():
        (root / rel).mkdir(parents=True)
        (root / rel / "package.json").write_text(json.dumps({"name": name, "version": "1.0.0", "scripts": {"test": f"echo RAN-TEST:{rel}"}}))
    ws = open_ws(root, "npm")
    for rel, name in packages.items():
        sel = ws.tests([name])
        assert {ws.graph.node(t).package for t in sel.tests} == {rel}
        if name in ("lib", "!x", "lib/x"):
            assert sel.argv == ["npm", "run", "test", f"--workspace=./{rel}"]
        if shutil.which("npm"):
            out = run(sel.argv, root, timeout=120).stdout
            assert {line.split(":", 1)[1] for line in out.splitlines() if line.startswith("RAN-TEST:")} == {rel}, name
