"""pnpm 12: a package without a version next to a same-named one whose version pnpm cannot parse.

Found by random differential testing: ``p/b`` (name ``a``, no version) and ``p/c`` (name
``a``, version ``1.0``). pnpm links a dependency on ``a`` to neither -- ``workspace:*``
included -- because a name with any ``version`` string takes its versions from those
strings, and ``1.0`` is none. ctxsel linked ``p/b``, as if no version had been written.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsfixtures import open_ws, pnpm_filter
from oracles import which

pytestmark = pytest.mark.oracle

SPECS = ["workspace:*", "workspace:^1", "workspace:latest"]
#: sibling version -> does ``p/b`` (no version) still link? (pnpm 12.4.2, measured)
MEASURED = {"1.0": False, "": False, None: True}


def write(root: Path, rel: str, manifest: dict) -> None:
    (root / rel).mkdir(parents=True, exist_ok=True)
    (root / rel / "package.json").write_text(json.dumps(manifest))


@pytest.mark.parametrize("sibling", list(MEASURED), ids=["unparsable", "empty", "none"])
def test_an_unversioned_package_next_to_any_version_string_links_for_no_spec(tmp_path: Path, sibling: str | None) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    write(root, "", {"name": "root", "private": True})
    (root / "pnpm-workspace.yaml").write_text("packages: ['p/*', 'd/*']\n")
    write(root, "p/b", {"name": "a"})
    write(root, "p/c", {"name": "a", **({"version": sibling} if sibling is not None else {})})
    for i, spec in enumerate(SPECS):
        write(root, f"d/d{i}", {"name": f"d{i}", "dependencies": {"a": spec}})
    ws = open_ws(root, "pnpm")
    ids = {n.package: n.id for n in ws.graph.nodes()}
    ours = {i: {ws.graph.node(t).package for t in ws.graph.dependencies(ids[f"d/d{i}"])} for i in range(len(SPECS))}
    # with no version anywhere, the first package of the name is the one linked (pnpm: p/b)
    assert ours == {i: {"p/b"} if MEASURED[sibling] else set() for i in range(len(SPECS))}
    if which("pnpm"):
        assert ours == {i: pnpm_filter(root, "{d/d" + str(i) + "}...") - {f"d/d{i}"} for i in range(len(SPECS))}
