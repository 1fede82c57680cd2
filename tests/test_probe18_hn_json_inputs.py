"""``{"json": ..., "fields": [...], "excludeFields": [...]}`` inputs beyond the root tsconfig.

Found by differential testing (``/tmp/dev18/HN/exp2.py``, ``exp3.py``) against nx 24.0.6's
``nx affected -t test`` (``--files`` and over a git range). ctxsel read a ``json`` input only
when a target listed it itself, named ``{workspaceRoot}/...``, and compared top-level keys:
- ``{projectRoot}/cfg.json`` was ignored: nx selects ``c`` (and ``g``, which reads it through
  ``^cfgp``) when its field ``a`` changes; ctxsel selected nothing;
- a ``json`` input inside a named input (``cfgin``, ``^cfgp``) was ignored: nx selects ``f``;
- a dotted field (``n.x``) was taken for a top-level key that never changes: nx compares the
  paths its JSON diff lists, a change hitting a field that contains it or lies inside it
  (``n.x.z`` is hit by a change of ``n.x``); ``excludeFields`` take a subtree out.
``nx show projects --affected`` is unmoved by json inputs (measured: ``--files=cfg.json`` gives
``[]``), as ctxsel's blast radius was already.

Expected answers are nx's; ``test_real_nx_gives_the_same_answers`` asks it again and skips,
saying why, without ``.ci/oracles-nx-plugins.sh``'s install.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli, run_git, write_tree
from jsfixtures import selected_tests
from nx_plugin_oracles import nx_affected_tests, require_nx_plugins, run_nx
from test_probe16_nxplugins_oracle import tool_tests
from test_probe16_nxplugins_static import LOCK, ROOT_PKG

CFG = {"a": 1, "b": 1, "n": {"x": 1, "y": 1}}


def proj(name: str, inputs: list[Any], **extra: Any) -> dict[str, Any]:
    return {"name": name, "targets": {"test": {"command": "echo", "inputs": inputs}}, **extra}


def js(path: str, **how: Any) -> dict[str, Any]:
    return {"json": path, **how}


FILES: dict[str, Any] = {
    "package.json": ROOT_PKG, "package-lock.json": LOCK, "cfg.json": CFG, "g.txt": "",
    "nx.json": {"namedInputs": {"cfgin": [js("{workspaceRoot}/cfg.json", fields=["a"])],
                                "cfgp": [js("{projectRoot}/cfg.json", fields=["a"])]}},
    "packages/c/project.json": proj("c", [js("{projectRoot}/cfg.json", fields=["a"])]), "packages/c/cfg.json": CFG,
    "packages/d/project.json": proj("d", [js("{workspaceRoot}/cfg.json", fields=["n.x"])]),
    "packages/e/project.json": proj("e", [js("{workspaceRoot}/cfg.json", excludeFields=["b"])]),
    "packages/f/project.json": proj("f", ["cfgin"]),
    "packages/g/project.json": proj("g", ["^cfgp"], implicitDependencies=["c"]),
    "packages/p/project.json": proj("p", [js("{workspaceRoot}/cfg.json", fields=["n"], excludeFields=["n.y"])]),
    "packages/u/project.json": proj("u", [js("{workspaceRoot}/cfg.json", fields=["n.x.z"])]),
}
#: --files F -> tests selected
BY_FILES = {"cfg.json": {"d", "e", "f", "p", "u"}, "packages/c/cfg.json": {"c", "g"}, "g.txt": set()}
#: name -> (file, its new content, tests selected over HEAD~1..HEAD)
BY_RANGE: dict[str, tuple[str, Any, set[str]]] = {
    "root b": ("cfg.json", {**CFG, "b": 2}, set()),
    "root a": ("cfg.json", {**CFG, "a": 2}, {"e", "f"}),
    "root n.y": ("cfg.json", {**CFG, "n": {"x": 1, "y": 2}}, {"e"}),
    "root n.x": ("cfg.json", {**CFG, "n": {"x": 2, "y": 1}}, {"d", "e", "p", "u"}),
    "root comment": ("cfg.json", '// c\n{"a": 1, "b": 1, "n": {"x": 1, "y": 1},}', set()),
    "project b": ("packages/c/cfg.json", {**CFG, "b": 2}, set()),
    "project a": ("packages/c/cfg.json", {**CFG, "a": 2}, {"c", "g"}),
}


def make(root: Path, change: str | None = None) -> Path:
    write_tree(root, {k: v if isinstance(v, str) else json.dumps(v, indent=2) for k, v in FILES.items()})
    if change is not None:
        run_git(root, "init", "-q", "-b", "main")
        run_git(root, "add", "-A")
        run_git(root, "commit", "-qm", "workspace")
        path, body, _ = BY_RANGE[change]
        write_tree(root, {path: body if isinstance(body, str) else json.dumps(body)})
        run_git(root, "commit", "-qam", change)
    return root


def ctxsel_tests(root: Path, *how: str) -> set[str]:
    return selected_tests(root, "nx", *how)


@pytest.mark.parametrize("path", sorted(BY_FILES))
def test_files(tmp_path: Path, path: str) -> None:
    assert ctxsel_tests(make(tmp_path / "ws"), "--files", path) == BY_FILES[path]


@pytest.mark.parametrize("change", sorted(BY_RANGE))
def test_over_a_git_range(tmp_path: Path, change: str) -> None:
    root = make(tmp_path / "ws", change)
    assert ctxsel_tests(root, "--base", "HEAD~1", "--head", "HEAD") == BY_RANGE[change][2]


def test_json_inputs_touch_no_project(tmp_path: Path) -> None:
    proc = run_cli("--repo", str(make(tmp_path / "ws")), "--no-cache", "-q", "--adapter", "nx", "--source", "static",
                   "blast-radius", "--files", "cfg.json", "--format", "json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["affected"] == [], proc.stdout + proc.stderr


@pytest.mark.oracle
def test_real_nx_gives_the_same_answers(tmp_path: Path) -> None:
    require_nx_plugins()
    root = make(tmp_path / "files")
    for path, want in BY_FILES.items():
        assert nx_affected_tests(root, [path]) == want, path
        assert tool_tests(root, [path]) == want, f"--source tool, {path}"
    for change in ("root n.x", "root comment", "project a"):
        root = make(tmp_path / change.replace(" ", "-"), change)
        out = tmp_path / f"{change.replace(' ', '-')}.json"
        proc = run_nx(root, "affected", "-t", "test", "--base=HEAD~1", "--head=HEAD", f"--graph={out}")
        assert proc.returncode == 0 and out.is_file(), (proc.stdout + proc.stderr)[-1500:]
        tasks = json.loads(out.read_text())["tasks"]["tasks"].values()
        assert {t["target"]["project"] for t in tasks} == BY_RANGE[change][2], change
