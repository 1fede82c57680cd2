"""package.json files JSON does not allow, or Python cannot parse, are user errors (exit 2).

Python's json module reads ``NaN``/``Infinity`` (JSON has neither: pnpm 12 says "expected
value", node's ``JSON.parse`` throws) and dies with a RecursionError on deep nesting, which
ctxsel reported as an internal error with a traceback hint.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsfixtures import PNPM_ENV
from oracles import run, which

pytestmark = pytest.mark.oracle


def pnpm_ws(root: Path, b_manifest: str) -> Path:
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "root", "version": "0.0.0"}))
    (root / "pnpm-workspace.yaml").write_text("packages: ['p/*']\n")
    (root / "p/a").mkdir(parents=True)
    (root / "p/a/package.json").write_text(json.dumps({"name": "a", "version": "1.0.0"}))
    (root / "p/b").mkdir(parents=True)
    (root / "p/b/package.json").write_text(b_manifest)
    return root


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_refused_with_file_and_line(tmp_path: Path, cli, token: str) -> None:
    root = pnpm_ws(tmp_path / "ws", '{\n  "name": "b",\n  "version": ' + token + ',\n  "dependencies": {"a": "workspace:*"}\n}\n')
    proc = cli("--repo", str(root), "--adapter", "pnpm", "--source", "static", "blast-radius", "a")
    assert proc.returncode == 2, proc.stderr
    assert "p/b/package.json:3" in proc.stderr and token in proc.stderr and "Traceback" not in proc.stderr
    if which("pnpm"):
        assert run(["pnpm", "ls", "-r", "--depth", "-1", "--json"], root, env=PNPM_ENV, check=False).returncode != 0


def test_deep_nesting_is_a_user_error_not_a_crash(tmp_path: Path, cli) -> None:
    deep = '{"name": "b", "x": ' + "[" * 5000 + "]" * 5000 + ', "dependencies": {"a": "workspace:*"}}'
    root = pnpm_ws(tmp_path / "ws", deep)
    proc = cli("--repo", str(root), "--adapter", "pnpm", "--source", "static", "blast-radius", "a")
    assert proc.returncode == 2, proc.stderr
    assert "p/b/package.json" in proc.stderr and "internal error" not in proc.stderr
    if which("pnpm"):  # pnpm 12: "recursion limit exceeded"
        assert run(["pnpm", "ls", "-r", "--depth", "-1", "--json"], root, env=PNPM_ENV, check=False).returncode != 0


def test_a_deeply_nested_root_manifest_is_no_crash_in_detection(tmp_path: Path, cli) -> None:
    """``detect()`` reads the root package.json without the tracker; it crashed there."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "package.json").write_text('{"name": "r", "workspaces": ["p/*"], "x": ' + "[" * 5000 + "]" * 5000 + "}")
    proc = cli("--repo", str(root), "blast-radius", "r")
    assert proc.returncode == 2 and "internal error" not in proc.stderr, proc.stderr


def test_a_root_with_only_a_package_yaml_is_the_root_project(tmp_path: Path) -> None:
    """pnpm 12 lists the root project when its manifest is a ``package.yaml``; ctxsel read
    the root only from package.json, so the root's dependency on ``a`` was lost."""
    from jsfixtures import open_ws, pnpm_filter, radius_dirs

    root = tmp_path / "ws"
    (root / "p/a").mkdir(parents=True)
    (root / "p/a/package.json").write_text(json.dumps({"name": "a", "version": "1.0.0"}))
    (root / "package.yaml").write_text("name: root\ndependencies:\n  a: 'workspace:*'\n")
    (root / "pnpm-workspace.yaml").write_text("packages: ['p/*']\n")
    ws = open_ws(root, "pnpm")
    assert radius_dirs(ws, "a") == {"", "p/a"}
    if which("pnpm"):
        assert pnpm_filter(root, "...a") == {"", "p/a"}
