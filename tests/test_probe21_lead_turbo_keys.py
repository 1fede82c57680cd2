"""Session 21: turbo.json keys turbo 2.11.11 does not read.

turbo stops every command that reads a turbo.json with a key it does not know ("Found an
unknown key", including a plausible one like ``experimentalUI``), and a package turbo.json
may only hold ``$schema``, ``extends``, ``tasks``, ``tags`` and ``boundaries`` ("can only be
used in the root turbo.json" for the rest). Old: ctxsel read such files as if the key were
not there, and printed a ``turbo run test`` command that fails. Now the root file exits 2
naming ``turbo.json:LINE``; a package file is refused as the other refused package
configurations are (``test_probe21_hj_turbo_refused_package_config.py``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsfixtures import TURBO_ENV
from oracles import require, run

from ctxsel.adapters.js.turbo import PACKAGE_KEYS, ROOT_KEYS

ROOT_CASES = {"foo": 1, "experimentalUI": True, "persistent": True, "ui": "tui", "tags": ["x"], "cacheMaxAge": "1d",
              "globalEnv": [], "futureFlags": {}}


def workspace(root: Path, extra: dict) -> Path:
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "root", "private": True, "packageManager": "pnpm@9.0.0"}))
    (root / "pnpm-workspace.yaml").write_text("packages: ['p/*']\n")
    (root / "turbo.json").write_text(json.dumps({"$schema": "https://turborepo.com/schema.json", **extra,
                                                 "tasks": {"test": {}}}, indent=2))
    (root / "p/a").mkdir(parents=True)
    (root / "p/a/package.json").write_text(json.dumps({"name": "a", "version": "1.0.0", "scripts": {"test": "echo a"}}))
    return root


@pytest.mark.parametrize("key", sorted(ROOT_CASES))
def test_a_root_key_turbo_does_not_know_exits_2_naming_its_line(tmp_path: Path, cli, key: str) -> None:
    root = workspace(tmp_path / "ws", {key: ROOT_CASES[key]})
    out = cli("--no-cache", "--source", "static", "tests", "a", "--format", "command", cwd=root)
    if key in ROOT_KEYS:
        assert out.returncode == 0 and out.stdout.split() == ["turbo", "run", "test", "--filter=a"], out.stderr
    else:
        assert out.returncode == 2
        assert out.stderr.splitlines()[0] == f"ctxsel: error: turbo.json:3: turbo refuses the unknown key {key!r}"


def test_package_keys_are_a_subset_of_the_root_schema() -> None:
    assert PACKAGE_KEYS - {"extends"} <= ROOT_KEYS


@pytest.mark.oracle
@pytest.mark.parametrize("key", sorted(ROOT_CASES))
def test_turbo_refuses_exactly_those(tmp_path: Path, key: str) -> None:
    require("turbo")
    root = workspace(tmp_path / "ws", {key: ROOT_CASES[key]})
    proc = run(["turbo", "run", "test", "--dry=json"], root, env=TURBO_ENV, check=False)
    assert (proc.returncode == 0) == (key in ROOT_KEYS), proc.stderr[-400:]


def test_a_turbo_1_file_keeps_its_own_keys(tmp_path: Path, cli) -> None:
    """create-t3-turbo's turbo.json under turbo 1.13: ``experimentalUI`` beside ``pipeline``.
    A turbo 1 file is read as turbo 1 reads it (with a warning), its keys included."""
    root = workspace(tmp_path / "ws", {})
    (root / "turbo.json").write_text(json.dumps({"experimentalUI": True, "pipeline": {"test": {}}}, indent=2))
    out = cli("--no-cache", "--source", "static", "tests", "a", "--format", "command", cwd=root)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["turbo", "run", "test", "--filter=a"]
