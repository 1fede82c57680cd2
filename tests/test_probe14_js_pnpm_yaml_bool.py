"""pnpm 12 reads a plain ``y``/``Y``/``n``/``N`` in YAML as a boolean (YAML 1.1); PyYAML does not.

Found by random differential testing: a ``package.yaml`` with ``name: y`` has no name for
pnpm 12.4.2 -- ``d`` with ``"y": "workspace:*"`` does not link it -- while ``name: "y"``
does. ctxsel read the name as the string ``y`` and linked it (``yes``/``on``/``true`` were
already booleans in both).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsfixtures import open_ws, pnpm_filter, radius_dirs
from oracles import which

pytestmark = pytest.mark.oracle

#: package.yaml ``name:`` as written -> the name a dependency uses -> does pnpm link it (measured)
NAMES = [("y", "y", False), ("Y", "Y", False), ("n", "n", False), ("N", "N", False), ("yes", "yes", False),
         ('"y"', "y", True), ("x", "x", True)]


def test_plain_y_and_n_are_booleans_in_package_yaml(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "pnpm-workspace.yaml").write_text("packages: ['p/*', 'd/*']\n")
    (root / "package.json").write_text(json.dumps({"name": "root", "private": True}))
    for i, (written, name, _) in enumerate(NAMES):
        (root / f"p/k{i}").mkdir(parents=True)
        (root / f"p/k{i}/package.yaml").write_text(f"name: {written}\nversion: 1.0.0\n")
        (root / f"d/d{i}").mkdir(parents=True)
        (root / f"d/d{i}/package.json").write_text(json.dumps({"name": f"d{i}", "dependencies": {name: "workspace:*"}}))
    ws = open_ws(root, "pnpm")
    ids = {n.package: n.id for n in ws.graph.nodes()}
    ours = {i: f"d/d{i}" in radius_dirs(ws, ids[f"p/k{i}"]) for i in range(len(NAMES))}
    assert ours == {i: links for i, (_, _, links) in enumerate(NAMES)}
    if which("pnpm"):
        assert ours == {i: f"d/d{i}" in pnpm_filter(root, "...{p/k" + str(i) + "}") for i in range(len(NAMES))}
