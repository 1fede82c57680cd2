"""Turborepo 2 refuses some workspace globs the package managers take (turbo 2.11.11, measured).

turbo's discovery stops ``turbo ls`` with "Invalid workspace glob ...: malformed glob" (or
"failed to parse glob expression"), and ``turbo run`` falls back to the root alone, for a
glob with an empty path segment (``packages//a``, ``!packages//b``), unbalanced or empty
braces and classes (``{a``, ``a]``, ``[]``, ``{a,b,}``), a ``,`` outside braces, ``(`` ``)``
or ``:`` -- npm, pnpm and Yarn alike -- and, with Yarn 1, where turbo appends
``/node_modules/**`` to each glob, for one ending in ``/`` (``packages/*/``). ctxsel answered
from those globs (found by randomized differential testing); a selection from a workspace
turbo cannot read is a guess, so it is exit 2 naming the file, as for a turbo.json turbo refuses.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsfixtures import TURBO_ENV
from oracles import require, run

pytestmark = pytest.mark.oracle

#: (packageManager, globs) -> does turbo refuse (measured)
CASES = {
    ("npm@10.0.0", ("packages//a", "packages/b")): True,
    ("npm@10.0.0", ("packages/a//",)): True,
    ("npm@10.0.0", ("packages/*", "!packages//b")): True,
    ("yarn@1.22.19", ("packages/*/",)): True,
    ("yarn@1.22.19", ("./packages/*/",)): True,
    ("yarn@1.22.19", ("packages/**/*/",)): True,
    ("pnpm@12.4.2", ("packages//*",)): True,
    # what turbo's glob parser refuses
    ("npm@10.0.0", ("packages/{internal,}/*",)): True,
    ("pnpm@12.4.2", ("packages/{a,b,}",)): True,
    ("npm@10.0.0", ("packages/*", "!packages/{b,}")): True,
    ("npm@10.0.0", ("packages/{a",)): True,
    ("npm@10.0.0", ("packages/a]",)): True,
    ("npm@10.0.0", ("packages/[]",)): True,
    ("pnpm@12.4.2", ("packages/!(b)",)): True,
    ("npm@10.0.0", ("packages/a,b",)): True,
    ("npm@10.0.0", ("packages/a:b",)): True,
    ("npm@10.0.0", ("packages/{a,{b,c}}",)): False,
    ("npm@10.0.0", ("packages/[!a]",)): False,
    ("pnpm@12.4.2", ("packages/{a}",)): False,
    # taken: a trailing / elsewhere, a negated one with Yarn 1, ``./``, ``/./``
    ("npm@10.0.0", ("packages/*/",)): False,
    ("pnpm@12.4.2", ("packages/**/",)): False,
    ("yarn@4.1.0", ("packages/*/",)): False,
    ("bun@1.1.0", ("packages/a/", "packages/b")): False,
    ("yarn@1.22.19", ("packages/*", "!packages/b/")): False,
    ("yarn@1.22.19", ("packages/./*",)): False,
}


def workspace(root: Path, pm: str, globs: tuple[str, ...]) -> Path:
    root.mkdir(parents=True)
    manifest: dict = {"name": "root", "private": True, "packageManager": pm}
    if pm.startswith("pnpm"):
        (root / "pnpm-workspace.yaml").write_text("packages:\n" + "".join(f"  - '{g}'\n" for g in globs))
    else:
        manifest["workspaces"] = list(globs)
    (root / "package.json").write_text(json.dumps(manifest, indent=2))
    (root / "turbo.json").write_text(json.dumps({"tasks": {"test": {}}}))
    for name, deps in (("a", {}), ("b", {"a": "workspace:*"})):
        (root / "packages" / name).mkdir(parents=True)
        (root / "packages" / name / "package.json").write_text(
            json.dumps({"name": name, "version": "1.0.0", "scripts": {"test": "echo"}, "dependencies": deps}))
    return root


IDS = [f"{pm.split('@')[0]}{pm.split('@')[1].split('.')[0]}-{'+'.join(globs)}" for pm, globs in CASES]


@pytest.mark.parametrize("pm,globs", list(CASES), ids=IDS)
def test_ctxsel_refuses_the_globs_turbo_refuses(tmp_path: Path, cli, pm: str, globs: tuple[str, ...]) -> None:
    root = workspace(tmp_path / "ws", pm, globs)
    proc = cli("--repo", str(root), "--adapter", "turbo", "--source", "static", "blast-radius", "--files", "README.md")
    if CASES[(pm, globs)]:
        assert proc.returncode == 2, proc.stdout + proc.stderr
        where = "pnpm-workspace.yaml:" if pm.startswith("pnpm") else "package.json:5:"  # the "workspaces" line
        assert where in proc.stderr and "malformed glob" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
        assert len(proc.stderr.strip().splitlines()) <= 3
    else:
        assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("pm,globs", list(CASES), ids=IDS)
def test_turbo_refuses_exactly_those(tmp_path: Path, pm: str, globs: tuple[str, ...]) -> None:
    require("turbo")
    root = workspace(tmp_path / "ws", pm, globs)
    proc = run(["turbo", "ls"], root, env=TURBO_ENV, check=False)
    assert (proc.returncode != 0) == CASES[(pm, globs)], proc.stderr[-800:]
    if proc.returncode:
        assert "Invalid workspace glob" in proc.stderr
