"""Turborepo reads a plain dependency range with the ``node-semver`` crate's grammar (pnpm 12's).

Where turbo links workspace packages by range (npm, yarn, bun; pnpm with
``linkWorkspacePackages``), ctxsel read the range with node-semver's grammar. The two differ on
hyphen ranges that miss a side or glue the ``-`` (``1.0.0 -`` is ``=1.0.0`` for the crate,
``>=1.0.0 - 2.0.0`` is ``2.0.0``: it intersects the comparators it can read and skips the rest)
and on ``1.0.0 - *``, which the crate does not read at all -- and an unreadable range links
anything in turbo. A 250-cell matrix (25 hyphen ranges x 10 versions, prereleases among them)
agreed with turbo 2.11.11 on 163 cells; read with ``semver.pnpm_range``, on 250. Ranges the
crate panics on (``~*``, ``=*``, ``~1.x.3``) crash turbo (exit 101); ctxsel warns and links nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsfixtures import TURBO_ENV, open_ws, write_pkg
from oracles import require, run

RANGES = ["1.0.0 - 2.0.0", "1.0.0 -", "- 2.0.0", "1.0.0 -2.0.0", "1.0.0- 2.0.0", ">=1.0.0 - 2.0.0", "^1.0.0 - 2.0.0",
          "1.0.0 - 2.0.0 - 3.0.0", "1.0.0 - *", "1.0.0 - x", "1.0.0-alpha - 2.0.0", "1.0.0 - 2.0.0-rc.1"]

#: version of ``a`` -> the ranges on ``a`` that turbo 2.11.11 links (``turbo ls a``, measured)
LINKED: dict[str, list[str]] = {
    "1.0.0": ["1.0.0 - 2.0.0", "1.0.0 -", "1.0.0 -2.0.0", "^1.0.0 - 2.0.0", "1.0.0 - 2.0.0 - 3.0.0", "1.0.0 - *",
              "1.0.0 - x", "1.0.0-alpha - 2.0.0", "1.0.0 - 2.0.0-rc.1"],
    "1.5.0": ["1.0.0 - 2.0.0", "^1.0.0 - 2.0.0", "1.0.0 - 2.0.0 - 3.0.0", "1.0.0 - *", "1.0.0 - x", "1.0.0-alpha - 2.0.0",
              "1.0.0 - 2.0.0-rc.1"],
    "2.0.0": ["1.0.0 - 2.0.0", "- 2.0.0", "1.0.0- 2.0.0", ">=1.0.0 - 2.0.0", "^1.0.0 - 2.0.0", "1.0.0 - 2.0.0 - 3.0.0",
              "1.0.0 - *", "1.0.0 - x", "1.0.0-alpha - 2.0.0"],
    "2.0.1": ["1.0.0 - *", "1.0.0 - x"],
    "0.9.0": ["1.0.0 - *", "1.0.0 - x"],
    "1.5.0-beta.1": ["1.0.0 - *", "1.0.0 - x"],
    "2.0.0-rc.1": ["1.0.0 - *", "1.0.0 - x", "1.0.0 - 2.0.0-rc.1"],
}


def workspace(root: Path, version: str, ranges: list[str]) -> Path:
    """npm workspace (turbo links by range there): ``a`` at ``version``, ``dNN`` depending on it with ``ranges[NN]``."""
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "root", "private": True, "packageManager": "npm@10.9.2",
                                                   "workspaces": ["p/*"]}))
    (root / "turbo.json").write_text('{"tasks": {}}')
    write_pkg(root, "p/a", "a", version=version)
    for i, spec in enumerate(ranges):
        write_pkg(root, f"p/d{i:02d}", f"d{i:02d}", version="9.9.9", dependencies={"a": spec})
    return root


def linked(ws_root: Path, ranges: list[str]) -> list[str]:
    ws = open_ws(ws_root, "turbo")
    names = {ws.graph.node(i).meta.get("name") for i in ws.blast_radius(["a"]).ids}
    return [r for i, r in enumerate(ranges) if f"d{i:02d}" in names]


@pytest.mark.parametrize("version", sorted(LINKED))
def test_hyphen_ranges_link_as_turbo_links_them(tmp_path: Path, version: str) -> None:
    assert linked(workspace(tmp_path / "ws", version, RANGES), RANGES) == LINKED[version]


@pytest.mark.parametrize("spec", ["~*", "=*", "~1.x.3"])
def test_a_range_turbo_crashes_on_is_a_warning(tmp_path: Path, spec: str) -> None:
    root = workspace(tmp_path / "ws", "1.0.0", [spec])
    ws = open_ws(root, "turbo")
    assert linked(root, [spec]) == []
    assert any("p/d00/package.json: turbo crashes on the range" in w for w in ws.warnings), ws.warnings


@pytest.mark.oracle
@pytest.mark.parametrize("version", sorted(LINKED))
def test_turbo_links_exactly_these(tmp_path: Path, version: str) -> None:
    require("turbo")
    root = workspace(tmp_path / "ws", version, RANGES)
    listed = json.loads(run(["turbo", "ls", "a", "--output=json"], root, env=TURBO_ENV).stdout)["packages"][0]
    assert [r for i, r in enumerate(RANGES) if f"d{i:02d}" in listed["dependents"]] == LINKED[version]


@pytest.mark.oracle
def test_turbo_crashes_on_those_ranges(tmp_path: Path) -> None:
    require("turbo")
    root = workspace(tmp_path / "ws", "1.0.0", ["~*"])
    # turbo writes a crash report into the temporary directory: keep it in this test's
    proc = run(["turbo", "ls", "a", "--output=json"], root, env={**TURBO_ENV, "TMPDIR": str(tmp_path)}, check=False)
    assert proc.returncode == 101, proc.stderr[-400:]
