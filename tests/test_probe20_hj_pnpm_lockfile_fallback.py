"""``--source auto`` falls back to the manifests when the pnpm on PATH refuses the lockfile.

Session 20, replaying drizzle-orm's history with pnpm 12.4.2: pnpm 12 reads no lockfile but
``lockfileVersion: '9.0'``; for a pnpm 8 lockfile (``'6.0'``, also ``5.4``, ``'7.0'``) every
command stops, ``pnpm ls -r`` included ("The lockfileVersion of 6.0 is incompatible with the
supported formats"). ctxsel's default ``auto`` asks the pnpm on PATH, so on such a repository
every ctxsel command exited 2, where the manifests answer as the repository's own pnpm would.
Now ``auto`` reads the manifests with a warning naming pnpm's error (as the Bazel adapter does
when its query fails); ``--source tool`` still stops, and a new lockfile ends the cached fallback.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsfixtures import PNPM_ENV, open_ws
from oracles import oracle_env, require, run

from ctxsel.errors import ToolError

pytestmark = pytest.mark.oracle

#: lockfileVersion -> does pnpm 12.4.2 list the workspace (measured)
LOCKFILES = {"'6.0'": False, "5.4": False, "'7.0'": False, "'9.0'": True}


def workspace(root: Path, lockfile_version: str) -> Path:
    for rel, manifest in (("", {"name": "root", "private": True}), ("p/a", {"name": "a", "version": "1.0.0"}),
                          ("p/b", {"name": "b", "version": "1.0.0", "dependencies": {"a": "workspace:*"}})):
        (root / rel).mkdir(parents=True, exist_ok=True)
        (root / rel / "package.json").write_text(json.dumps(manifest))
    (root / "pnpm-workspace.yaml").write_text("packages: ['p/*']\n")
    (root / "pnpm-lock.yaml").write_text(f"lockfileVersion: {lockfile_version}\n\nimporters: {{}}\n")
    return root


@pytest.mark.parametrize("version", sorted(LOCKFILES))
def test_pnpm_12_lists_only_a_version_9_lockfile_workspace(tmp_path: Path, version: str) -> None:
    require("pnpm")
    proc = run(["pnpm", "ls", "-r", "--json", "--depth", "-1"], workspace(tmp_path / "ws", version), env=PNPM_ENV, check=False)
    assert (proc.returncode == 0) is LOCKFILES[version]


def test_auto_reads_the_manifests_when_pnpm_refuses_the_lockfile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require("pnpm")
    monkeypatch.setenv("PATH", oracle_env()["PATH"])
    root = workspace(tmp_path / "ws", "'6.0'")
    ws = open_ws(root, "pnpm", source="auto")
    assert ws.graph.dependencies("b") == ["a"]
    assert any("lockfileVersion of 6.0" in w and "fell back to reading the manifests" in w for w in ws.warnings)
    with pytest.raises(ToolError, match="lockfileVersion of 6.0"):
        open_ws(root, "pnpm", source="tool")


def test_a_readable_lockfile_ends_the_cached_fallback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require("pnpm")
    monkeypatch.setenv("PATH", oracle_env()["PATH"])
    from ctxsel.workspace import Workspace

    root = workspace(tmp_path / "ws", "'6.0'")
    assert any("fell back" in w for w in Workspace.open(root, adapter="pnpm").warnings)
    (root / "pnpm-lock.yaml").write_text("lockfileVersion: '9.0'\n\nimporters: {}\n")
    again = Workspace.open(root, adapter="pnpm")  # the graph cache, keyed on the files read
    assert not any("fell back" in w for w in again.warnings)
    assert again.graph.dependencies("b") == ["a"]
