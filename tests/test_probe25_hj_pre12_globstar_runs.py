"""A run of ``**`` segments (``packages/**/**``, chakra-ui's pnpm-workspace.yaml) under a pnpm before 12.

pnpm 12.4.2 refuses the glob ("ERR_PNPM_WORKSPACE_INVALID_GLOB"); pnpm 8.15.9, 10.34.5 and
11.10.0, each pinned by ``packageManager``, read it as one ``**`` (measured: chakra-ui pins
pnpm@11.10.0 and lists 21 projects). ctxsel refused every pnpm workspace with such a glob (exit 2);
it now reads it as the pinned pnpm does, with a warning, and still refuses it when nothing pins a
pnpm before 12.

The pre-12 pnpm is not in the oracle install: ``test_the_pinned_pnpm_agrees`` runs it when
``CTXSEL_ORACLE_PNPM_PRE12`` names one (``npm i pnpm@10.34.5`` runs on Node 20; pnpm 11 needs
Node 22), and says so in its skip reason otherwise. The expected sets below are what 8.15.9,
10.34.5 and 11.10.0 printed for this very workspace.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from jsfixtures import PNPM_ENV, open_ws, radius_dirs, rel_dir, write_pkg
from oracles import require, run

from ctxsel.errors import ParseError

#: the pnpm 8.15.9, 10.34.5 and 11.10.0 each listed for this workspace (measured; the root left out)
PRE12_PROJECTS = {"p/a", "p/a/x", "p/b", "p/y/z"}
#: ``pnpm --filter '...{p/a}'`` with those pnpms (measured)
PRE12_DEPENDENTS_OF_A = {"p/a", "p/a/x", "p/y/z"}


def workspace(root: Path, pin: str, glob: str = "p/**/**") -> Path:
    """p/a, p/a/x -> a, p/b, p/y/z -> a (two levels down), and q/c -> a outside the glob."""
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "root", "private": True, "packageManager": pin}))
    (root / "pnpm-workspace.yaml").write_text(f"packages:\n  - '{glob}'\n")
    write_pkg(root, "p/a", "a")
    write_pkg(root, "p/a/x", "x", dependencies={"a": "workspace:*"})
    write_pkg(root, "p/b", "b")
    write_pkg(root, "p/y/z", "z", dependencies={"a": "workspace:*"})
    write_pkg(root, "q/c", "c", dependencies={"a": "workspace:*"})
    return root


@pytest.mark.parametrize("pin", ["pnpm@11.10.0", "pnpm@10.34.5+sha512.abc", "pnpm@8.15.9"])
def test_a_pre12_pin_reads_the_run_as_one_globstar(tmp_path: Path, pin: str) -> None:
    ws = open_ws(workspace(tmp_path / "ws", pin), "pnpm")
    assert {n.package for n in ws.graph.nodes()} - {""} == PRE12_PROJECTS
    assert radius_dirs(ws, "a") == PRE12_DEPENDENTS_OF_A
    assert any("pnpm 12 refuses the workspace glob 'p/**/**'" in w and pin.split("+")[0] in w for w in ws.warnings)


@pytest.mark.parametrize("pin", ["pnpm@12.4.2", "yarn@4.18.1"])
def test_pnpm_12_or_no_pnpm_pin_still_refuses(tmp_path: Path, pin: str) -> None:
    with pytest.raises(ParseError) as err:
        open_ws(workspace(tmp_path / "ws", pin), "pnpm")
    assert err.value.location is not None and err.value.location.path == "pnpm-workspace.yaml"


def test_other_globs_pnpm_12_refuses_stay_refused_under_a_pre12_pin(tmp_path: Path) -> None:
    """pnpm 10.34.5 and 11.10.0 read ``p/(a)`` as ``p/a`` (an extglob), which ctxsel's walker does not."""
    with pytest.raises(ParseError):
        open_ws(workspace(tmp_path / "ws", "pnpm@11.10.0", glob="p/(a)"), "pnpm")


@pytest.mark.oracle
def test_pnpm_12_refuses_the_run(tmp_path: Path) -> None:
    require("pnpm")
    root = workspace(tmp_path / "ws", "pnpm@12.4.2")
    proc = run(["pnpm", "ls", "-r", "--depth", "-1", "--json"], root, env=PNPM_ENV, check=False)
    assert proc.returncode != 0 and "ERR_PNPM_WORKSPACE_INVALID_GLOB" in proc.stdout + proc.stderr


@pytest.mark.oracle
def test_the_pinned_pnpm_agrees(tmp_path: Path) -> None:
    exe = os.environ.get("CTXSEL_ORACLE_PNPM_PRE12")
    if not exe or not shutil.which(exe):
        pytest.skip("no pnpm before 12 to ask: set CTXSEL_ORACLE_PNPM_PRE12 to one (npm i pnpm@10.34.5)")
    version = run([exe, "--version"], tmp_path).stdout.strip()
    root = workspace(tmp_path / "ws", f"pnpm@{version}")
    env = {**PNPM_ENV, "pnpm_config_manage_package_manager_versions": "false"}
    listed = json.loads(run([exe, "ls", "-r", "--depth", "-1", "--json"], root, env=env).stdout)
    dependents = json.loads(run([exe, "--filter", "...{p/a}", "ls", "--depth", "-1", "--json"], root, env=env).stdout)
    ws = open_ws(root, "pnpm")
    assert {n.package for n in ws.graph.nodes()} == {rel_dir(root, p["path"]) for p in listed}
    assert radius_dirs(ws, "a") == {rel_dir(root, p["path"]) for p in dependents}
