"""Hostile project configurations: exit 2 naming the file where Nx 24 refuses, Nx's answer where it accepts.

Probed in session 22 (``/tmp/dev22/hn/host/probe.py``: ``nx graph`` / ``nx show projects`` against
ctxsel's static graph on 53 cases). Measured with nx 24.0.6, every command fails on:
- a byte order mark in nx.json, the root package.json, a project.json or a project's package.json
  ("InvalidSymbol ... at 1:1"); ctxsel read past it;
- a ``name`` that is no string (``5``, ``true``, ``{}``) in project.json, package.json or its ``nx``
  key ("Failed to convert JavaScript value ... into rust type `String`"); ctxsel named the project "5";
- ``targets`` whose ``Object.entries`` values are not objects: ``"build"`` (its characters),
  ``[1]``, ``{"test": "echo"}``, in project.json and package.json ``nx`` ("Cannot use 'in' operator");
- project.json ``tags`` or ``implicitDependencies``, package.json ``nx.implicitDependencies``, set
  but no list ("forEach is not a function");
- a project.json or nx.json that is ``null``; nx.json ``plugins`` set but no list (``"x"``, ``{}``,
  ``false``: "pluginConfigurations.map is not a function").
And it accepts, where ctxsel exited 2: a project.json that is ``[]``, ``5`` or ``"x"`` (an empty
configuration: a project named after its directory), an nx.json that is ``[]`` or ``5``. Taken by both: ``"targets": 5``, ``true``,
``[]``, ``"tags": null``, ``[5]``, package.json ``nx.tags: "x"``, ``"name": null``, duplicate keys, a
10 MB project.json.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli, write_tree
from nx_plugin_oracles import run_nx

BOM = b"\xef\xbb\xbf"
BASE: dict[str, str | bytes] = {
    "nx.json": "{}",
    "package.json": json.dumps({"name": "root", "private": True, "workspaces": ["packages/*"]}),
    "packages/a/package.json": json.dumps({"name": "a", "dependencies": {"b": "*"}}),
    "packages/b/package.json": json.dumps({"name": "b"}),
    "packages/a/src/i.ts": "x",
    "packages/b/src/i.ts": "x",
}

#: files -> the file (and line) ctxsel names, as nx 24.0.6 refuses the workspace
REFUSED: dict[str, tuple[dict[str, str | bytes], str]] = {
    "bom_nx_json": ({"nx.json": BOM + b"{}"}, "nx.json:1"),
    "bom_root_package": ({"package.json": BOM + BASE["package.json"].encode()}, "package.json:1"),  # type: ignore[union-attr]
    "bom_project_json": ({"libs/c/project.json": BOM + b'{"name": "c"}'}, "libs/c/project.json:1"),
    "bom_package_json": ({"packages/b/package.json": BOM + b'{"name": "b"}'}, "packages/b/package.json:1"),
    "name_number": ({"packages/b/project.json": '{\n  "name": 5\n}'}, "packages/b/project.json:2"),
    "name_true": ({"packages/b/project.json": '{"name": true}'}, "packages/b/project.json:1"),
    "name_object": ({"packages/b/project.json": '{"name": {}}'}, "packages/b/project.json:1"),
    "package_name_number": ({"packages/b/package.json": '{"name": 5}'}, "packages/b/package.json:1"),
    "package_nx_name_number": ({"packages/b/package.json": '{"name": "b",\n "nx": {"name": 5}}'}, "packages/b/package.json:2"),
    "targets_string": ({"packages/b/project.json": '{"name": "b",\n "targets": "build"}'}, "packages/b/project.json:2"),
    "targets_list_number": ({"packages/b/project.json": '{"name": "b", "targets": [1]}'}, "packages/b/project.json:1"),
    "target_string": ({"packages/b/project.json": '{"name": "b", "targets": {"test": "echo"}}'}, "packages/b/project.json:1"),
    "package_targets_string": ({"packages/b/package.json": '{"name": "b", "nx": {"targets": "x"}}'}, "packages/b/package.json:1"),
    "package_target_number": ({"packages/b/package.json": '{"name": "b", "nx": {"targets": {"test": 5}}}'},
                              "packages/b/package.json:1"),
    "tags_string": ({"packages/b/project.json": '{"name": "b", "tags": "x"}'}, "packages/b/project.json:1"),
    "tags_object": ({"packages/b/project.json": '{"name": "b", "tags": {"a": 1}}'}, "packages/b/project.json:1"),
    "implicit_string": ({"packages/a/project.json": '{"name": "a", "implicitDependencies": "b"}'}, "packages/a/project.json:1"),
    "package_implicit_string": ({"packages/a/package.json": '{"name": "a", "nx": {"implicitDependencies": "b"}}'},
                                "packages/a/package.json:1"),
    "project_json_null": ({"libs/c/project.json": "null"}, "libs/c/project.json:1"),
    "nx_json_null": ({"nx.json": "null"}, "nx.json:1"),
    "nx_json_plugins_string": ({"nx.json": '{\n "plugins": "x"}'}, "nx.json:2"),
    "nx_json_plugins_object": ({"nx.json": '{"plugins": {}}'}, "nx.json:1"),
    "nx_json_plugins_false": ({"nx.json": '{"plugins": false}'}, "nx.json:1"),
}

#: files -> the projects nx 24.0.6 lists
ACCEPTED: dict[str, tuple[dict[str, str | bytes], list[str]]] = {
    "project_json_list": ({"libs/c/project.json": "[]"}, ["a", "b", "c"]),
    "project_json_number": ({"libs/c/project.json": "5"}, ["a", "b", "c"]),
    "project_json_string_beside_package": ({"packages/b/project.json": '"x"'}, ["a", "b"]),
    "targets_number": ({"packages/b/project.json": '{"name": "b", "targets": 5}'}, ["a", "b"]),
    "targets_empty_list": ({"packages/b/package.json": '{"name": "b", "nx": {"targets": []}}'}, ["a", "b"]),
    "package_tags_string": ({"packages/b/package.json": '{"name": "b", "nx": {"tags": "x"}}'}, ["a", "b"]),
    "name_null": ({"packages/b/project.json": '{"name": null}'}, ["a", "b"]),
    "duplicate_keys": ({"packages/b/project.json": '{"name": "b", "name": "bb"}'}, ["a", "bb"]),
    "nx_json_list": ({"nx.json": "[]"}, ["a", "b"]),
    "nx_json_number": ({"nx.json": "5"}, ["a", "b"]),
    "nx_json_plugins_null": ({"nx.json": '{"plugins": null}'}, ["a", "b"]),
}


def make(root: Path, files: dict[str, str | bytes]) -> Path:
    return write_tree(root, {**BASE, **files})


def ctxsel(root: Path):
    return run_cli("--repo", str(root), "--no-cache", "--adapter", "nx", "--source", "static",
                   "blast-radius", "--files", "packages/b/src/i.ts", "--format", "json")


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_exit_2_naming_the_file(tmp_path: Path, case: str) -> None:
    """Old: exit 0 in every case but project_json_null (a message without Nx's reason)."""
    files, where = REFUSED[case]
    proc = ctxsel(make(tmp_path / "ws", files))
    assert proc.returncode == 2, proc.stdout
    assert where in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) <= 3


@pytest.mark.parametrize("case", sorted(ACCEPTED))
def test_what_nx_takes(tmp_path: Path, case: str) -> None:
    """Old: exit 2 for a project.json that is a list, a number or a string."""
    from ctxsel.adapters.base import AdapterOptions
    from ctxsel.adapters.js.nx import NxAdapter
    from ctxsel.cache import InputTracker

    files, projects = ACCEPTED[case]
    root = make(tmp_path / "ws", files)
    graph = NxAdapter(root, AdapterOptions(source="static", use_cache=False)).load(InputTracker(root))
    assert sorted(graph) == projects
    assert ctxsel(root).returncode == 0


def test_a_10_mb_project_json_is_read(tmp_path: Path) -> None:
    big = json.dumps({"name": "b", "tags": ["t" * 100] * 100_000})
    assert len(big) > 10_000_000
    proc = ctxsel(make(tmp_path / "ws", {"packages/b/project.json": big}))
    assert proc.returncode == 0, proc.stderr
    assert sorted(a["id"] for a in json.loads(proc.stdout)["affected"]) == ["a", "b"]


@pytest.mark.oracle
@pytest.mark.parametrize("case", sorted(REFUSED) + sorted(ACCEPTED))
def test_real_nx_agrees(tmp_path: Path, case: str) -> None:
    files = (REFUSED.get(case) or ACCEPTED[case])[0]
    root = make(tmp_path / "ws", files)
    proc = run_nx(root, "show", "projects", "--json")
    if case in REFUSED:
        assert proc.returncode != 0, proc.stdout
    else:
        assert proc.returncode == 0, (proc.stdout + proc.stderr)[-1500:]
        out = proc.stdout
        assert sorted(json.loads(out[out.index("["):])) == ACCEPTED[case][1]
