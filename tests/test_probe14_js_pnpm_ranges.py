"""pnpm 12 reads ranges with its Rust grammar, not node-semver's: found by random differential testing.

pnpm 12 is a native binary whose range parser is its fork of the ``node-semver`` crate
(node-semver-rs 2.2.0). There, blank-separated comparators that do not intersect form a
union, unreadable tokens are skipped, and a prerelease version only satisfies a range
that writes some prerelease with its ``-``. Each case below is one package ``d/d<i>_<j>``
depending on target ``t<i>`` (at ``VERSIONS[i]``) with ``RANGES[j]``; compared is which
ranges link each version. ``MEASURED`` pins pnpm 12.4.2's answer, so the test also fails
without pnpm.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsfixtures import PNPM_ENV, open_ws, pnpm_filter, radius_dirs
from oracles import run, which

pytestmark = pytest.mark.oracle

VERSIONS = ["0.5.0", "1.0.0", "2.0.0", "3.0.0", "1.1.0-beta.2"]
RANGES = [
    "1 2", "<1 >=2", "^1 - 2", "^1 ^2 ^3", "1.0.0 - 2.0.0 - 3.0.0", "2.0.0 <2", "<=1", "1.0.0 ^2\n", "1.0.0 foo",
    "1.1.0beta.2", "1.1.0beta.2 || 9.0.0-x", ">=1.1.0-beta.0 <1.1.0",
]
#: version -> the ranges pnpm 12.4.2 links it for (the same with ``workspace:`` and under linkWorkspacePackages)
MEASURED = {
    "0.5.0": ["<1 >=2", "2.0.0 <2", "<=1"],
    "1.0.0": ["1 2", "^1 - 2", "^1 ^2 ^3", "1.0.0 - 2.0.0 - 3.0.0", "2.0.0 <2", "<=1", "1.0.0 ^2\n", "1.0.0 foo"],
    "2.0.0": ["1 2", "<1 >=2", "^1 - 2", "^1 ^2 ^3", "1.0.0 - 2.0.0 - 3.0.0", "2.0.0 <2"],
    "3.0.0": ["<1 >=2", "^1 ^2 ^3", "1.0.0 - 2.0.0 - 3.0.0"],
    "1.1.0-beta.2": ["1.1.0beta.2 || 9.0.0-x", ">=1.1.0-beta.0 <1.1.0"],
}


def write(root: Path, rel: str, manifest: dict) -> None:
    (root / rel).mkdir(parents=True, exist_ok=True)
    (root / rel / "package.json").write_text(json.dumps(manifest))


def range_workspace(root: Path, ranges: list[str], plain: bool) -> Path:
    root.mkdir(parents=True)
    write(root, "", {"name": "root", "private": True})
    (root / "pnpm-workspace.yaml").write_text("packages: ['t/*', 'd/*']\n" + ("linkWorkspacePackages: true\n" if plain else ""))
    for i, version in enumerate(VERSIONS):
        write(root, f"t/t{i}", {"name": f"t{i}", "version": version})
        for j, text in enumerate(ranges):
            write(root, f"d/d{i}_{j}", {"name": f"d{i}_{j}", "dependencies": {f"t{i}": text if plain else f"workspace:{text}"}})
    return root


def linked(dirs: set[str]) -> list[str]:
    return sorted((RANGES[int(d.split("_")[1])] for d in dirs if d.startswith("d/")), key=RANGES.index)


@pytest.mark.parametrize("plain", [False, True], ids=["workspace", "linkWorkspacePackages"])
def test_ranges_read_with_pnpm_12_grammar(tmp_path: Path, plain: bool) -> None:
    """ctxsel read these with node-semver's rules: ``1 2`` and ``<1 >=2`` linked nothing (an
    empty intersection), ``1.0.0 foo`` and ``1.0.0 ^2\\n`` nothing (not a range), and
    ``1.1.0beta.2`` linked nothing while pnpm links 1.1.0-beta.2 when another alternative
    writes ``9.0.0-x``."""
    root = range_workspace(tmp_path / "ws", RANGES, plain)
    ws = open_ws(root, "pnpm")
    ours = {v: linked(radius_dirs(ws, f"t{i}")) for i, v in enumerate(VERSIONS)}
    assert ours == {v: sorted(MEASURED[v], key=RANGES.index) for v in VERSIONS}
    if which("pnpm"):
        assert ours == {v: linked(pnpm_filter(root, f"...t{i}")) for i, v in enumerate(VERSIONS)}


@pytest.mark.parametrize("text", ["~*", "=*", "~1.x.3"])
def test_a_range_pnpm_panics_on_is_a_warning_and_no_link(tmp_path: Path, text: str) -> None:
    """pnpm 12 stops with "Main thread panicked" on these (its parser reaches ``unreachable!``);
    ctxsel names the file and spec instead of guessing an edge. Before, ``~*`` and ``=*``
    linked 1.0.0 (node-semver reads them as ``*``)."""
    root = tmp_path / "ws"
    root.mkdir()
    write(root, "", {"name": "root", "private": True})
    (root / "pnpm-workspace.yaml").write_text("packages: ['p/*']\n")
    write(root, "p/a", {"name": "a", "version": "1.0.0"})
    write(root, "p/b", {"name": "b", "dependencies": {"a": f"workspace:{text}"}})
    ws = open_ws(root, "pnpm")
    assert radius_dirs(ws, "a") == {"p/a"}
    assert any("p/b/package.json" in w and f"workspace:{text}" in w and "crashes" in w for w in ws.graph.warnings)
    if which("pnpm"):
        proc = run(["pnpm", "--filter", "...a", "ls", "--depth", "-1", "--json"], root, env=PNPM_ENV, check=False)
        assert proc.returncode != 0 and "panicked" in proc.stdout + proc.stderr


def test_tool_mode_reports_the_cause_of_a_pnpm_panic(tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    """With pnpm on PATH (``--source tool``) pnpm's crash was reported by its last three
    lines, which are backtrace frames; now the lines that name the cause are kept."""
    from oracles import oracle_env, require

    require("pnpm")
    monkeypatch.setenv("PATH", oracle_env()["PATH"])
    root = tmp_path / "ws"
    root.mkdir()
    write(root, "", {"name": "root", "private": True})
    (root / "pnpm-workspace.yaml").write_text("packages: ['p/*']\n")
    write(root, "p/a", {"name": "a", "version": "1.0.0"})
    write(root, "p/b", {"name": "b", "dependencies": {"a": "workspace:~*"}})
    proc = cli("--repo", str(root), "--no-cache", "--source", "tool", "blast-radius", "a")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "unreachable" in proc.stderr and "~*" in proc.stderr
