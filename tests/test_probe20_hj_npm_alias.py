"""npm 11: an ``npm:`` alias on a workspace's name links that workspace when its range is satisfied.

Session 20 probe (npm 11.19.1, ``npm install --offline`` + ``npm query``): arborist resolves the
dependency ``a: npm:<name>@<range>`` by the dependency's own name, finds the workspace link
``node_modules/a`` and keeps it when a's version satisfies ``<range>`` -- the alias target
``<name>`` is never compared (``npm:b@^1.0.0`` keeps workspace ``a`` too). ctxsel read every
``npm:`` spec as a registry package, so ``b -> a`` was missing from the graph. A range the
workspace does not satisfy, a tag, or no alias name (``npm:^1.0.0``) sends npm to the registry
(offline: the install fails), as a plain spec would.
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

#: (spec of p/d's dependency "a", workspace a's version) -> does npm link p/d to p/a (npm 11.19.1, measured)
LINKS: dict[tuple[str, str | None], bool] = {
    ("npm:a@^1.0.0", "1.0.0"): True,
    ("npm:b@^1.0.0", "1.0.0"): True,  # the alias target's name is not compared
    ("npm:@s/zz@^1", "1.0.0"): True,
    ("npm:a", "1.0.0"): True,  # no range is "*"
    ("npm:a@*", None): True,  # "*" takes a workspace without a version
    ("npm:a@1.x", "1.0.0"): True,
    ("npm:a@>=1 <2", "1.0.0"): True,
    ("npm:a@ ^1.0.0", "1.0.0"): True,
    ("npm:a@^2.0.0", "1.0.0"): False,
    ("npm:a@latest", "1.0.0"): False,
    ("npm:a@^1.0.0", "1.0.1-beta.1"): False,
    ("npm:a@^1.0.0", None): False,
    ("npm:^1.0.0", "1.0.0"): False,  # no alias name
    (" npm:a@^1.0.0", "1.0.0"): False,  # a leading blank is no alias
}
CASES = sorted(LINKS, key=repr)


def workspace(root: Path, spec: str, version: str | None) -> Path:
    for rel in ("p/a", "p/b", "p/d"):
        (root / rel).mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "root", "version": "0.0.0", "workspaces": ["p/*"]}))
    (root / "p/a/package.json").write_text(json.dumps({"name": "a", **({"version": version} if version else {})}))
    (root / "p/b/package.json").write_text(json.dumps({"name": "b", "version": "1.0.0"}))
    (root / "p/d/package.json").write_text(json.dumps({"name": "d", "version": "1.0.0", "dependencies": {"a": spec}}))
    return root


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_npm_aliases_link_like_npm(tmp_path: Path, case: tuple[str, str | None]) -> None:
    root = workspace(tmp_path / "ws", *case)
    assert (open_ws(root, "npm").graph.dependencies("d") == ["a"]) is LINKS[case]


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_npm_itself_gives_the_measured_answer(tmp_path: Path, case: tuple[str, str | None]) -> None:
    if not shutil.which("npm"):
        pytest.skip("npm not on PATH")
    root = workspace(tmp_path / "ws", *case)
    installed = run(["npm", "install", *NPM_OFFLINE], root, timeout=120, check=False).returncode == 0
    if not LINKS[case]:
        assert not installed  # npm needs the registry for it: no workspace link
        return
    assert installed
    query = json.loads(run(["npm", "query", ".workspace", "--json"], root).stdout)
    to = next(p for p in query if p["location"] == "p/d").get("to") or []
    assert "node_modules/a" in to and (root / "node_modules/a").resolve() == (root / "p/a").resolve()
