"""Yarn 2 and yarn 3 read some workspaces differently from yarn 4.

ctxsel's berry rules were measured against yarn 4.18.1 only; a repo pinning
``packageManager: yarn@3.x`` (still common) or ``yarn@2.x`` got yarn 4's answer. Randomized
differential testing against @yarnpkg/cli-dist 3.8.7 and 2.4.2 (``workspaces list -v --json``,
200 random workspaces for yarn 3, 40 for yarn 2) found three rules, read in their bundles:

* yarn 2 and 3 glob ``workspaces`` with globby, which gives each pattern only the negations
  written after it (yarn 4's fast-glob applies every negation wherever it stands);
* yarn 2 and 3 find a dependency's workspace by its name only, so ``workspace:<path>`` names
  no unnamed (or differently named) workspace; yarn 4 looks the path up first;
* yarn 2 knows ``workspace:*`` but not ``workspace:^``/``workspace:~`` (added in yarn 3).

Each case has the answer the three yarns gave (measured), checked against ctxsel statically and
against the real yarn 2/3/4 when ``.ci/oracles-yarn.sh`` installed them.
Edges are (dependent dir, dependency dir); "" is the root.
"""

from __future__ import annotations

import pytest
from oracles import old_berry_graph, yarn_graph
from test_probe16_yarn_differential import dirs, edges, make

A = {"name": "a", "version": "1.0.0"}
B_CARET = {"name": "b", "version": "1.0.0", "dependencies": {"a": "workspace:^"}}
#: case id -> (workspaces, packages, root fields, {major: (edges, dirs)})
CASES = {
    # a negation before the pattern it would cut: only yarn 4 drops p/a
    "negation-first": (["!p/a", "p/*"], {"p/a": A, "p/b": {"name": "b", "version": "1.0.0", "dependencies": {"a": "*"}}}, None,
                       {2: ({("p/b", "p/a")}, {"", "p/a", "p/b"}), 3: ({("p/b", "p/a")}, {"", "p/a", "p/b"}),
                        4: (set(), {"", "p/b"})}),
    # after it, every yarn drops it
    "negation-after": (["p/*", "!p/a"], {"p/a": A, "p/b": {"name": "b", "version": "1.0.0"}}, None,
                       {2: (set(), {"", "p/b"}), 3: (set(), {"", "p/b"}), 4: (set(), {"", "p/b"})}),
    # workspace:<path> to an unnamed workspace: only yarn 4 links it
    "path-unnamed": (["p/*"], {"p/a": {"version": "1.0.0"}, "p/b": {"name": "b", "version": "1.0.0"}},
                     {"devDependencies": {"ghost": "workspace:p/a"}},
                     {2: (set(), {"", "p/a", "p/b"}), 3: (set(), {"", "p/a", "p/b"}), 4: ({("", "p/a")}, {"", "p/a", "p/b"})}),
    # workspace:<path> under the workspace's own name: every yarn links it (Workspace.accepts)
    "path-named": (["p/*"], {"p/a": A, "p/b": {"name": "b", "version": "1.0.0", "dependencies": {"a": "workspace:p/a"}}}, None,
                   {2: ({("p/b", "p/a")}, {"", "p/a", "p/b"}), 3: ({("p/b", "p/a")}, {"", "p/a", "p/b"}),
                    4: ({("p/b", "p/a")}, {"", "p/a", "p/b"})}),
    # workspace:^ and workspace:~ arrived in yarn 3
    "caret-shorthand": (["p/*"], {"p/a": A, "p/b": B_CARET, "p/c": {"name": "c", "version": "1.0.0",
                                                                    "dependencies": {"a": "workspace:~"}}}, None,
                        {2: (set(), {"", "p/a", "p/b", "p/c"}),
                         3: ({("p/b", "p/a"), ("p/c", "p/a")}, {"", "p/a", "p/b", "p/c"}),
                         4: ({("p/b", "p/a"), ("p/c", "p/a")}, {"", "p/a", "p/b", "p/c"})}),
    "star-shorthand": (["p/*"], {"p/a": A, "p/b": {"name": "b", "version": "1.0.0", "dependencies": {"a": "workspace:*"}}}, None,
                       {m: ({("p/b", "p/a")}, {"", "p/a", "p/b"}) for m in (2, 3, 4)}),
}
VERSIONS = {2: "yarn@2.4.2", 3: "yarn@3.8.7", 4: "yarn@4.18.1"}
PARAMS = [(case, major) for case in CASES for major in VERSIONS]


def build(tmp_path, case: str, major: int):
    workspaces, packages, rootfields, _ = CASES[case]
    fields = {**(rootfields or {}), "packageManager": VERSIONS[major]}
    return make(tmp_path / "ws", VERSIONS[major], workspaces, packages, fields, yarnrc="enableTelemetry: false\n")


@pytest.mark.parametrize("case,major", PARAMS)
def test_static_answer_is_the_pinned_yarns(tmp_path, case, major):
    root = build(tmp_path, case, major)
    want_edges, want_dirs = CASES[case][3][major]
    assert edges(root) == want_edges
    assert dirs(root) == want_dirs


@pytest.mark.parametrize("case,major", PARAMS)
def test_real_yarn_agrees(tmp_path, case, major):
    root = build(tmp_path, case, major)
    listed = yarn_graph(True, root) if major == 4 else old_berry_graph(major, root)
    assert {(a, b) for a, deps in listed.items() for b in deps} == edges(root)
    assert set(listed) == dirs(root)


def test_unpinned_berry_reads_as_yarn_4(tmp_path):
    """A berry repo that names no version (``.yarnrc.yml`` alone) gets the newest rules."""
    root = make(tmp_path / "ws", "yarn@4.18.1", ["!p/a", "p/*"], {"p/a": A, "p/b": {"name": "b", "version": "1.0.0"}},
                yarnrc="enableTelemetry: false\n")
    manifest = (root / "package.json").read_text().replace('"packageManager": "yarn@4.18.1"', '"x": 1')
    (root / "package.json").write_text(manifest)
    assert dirs(root) == {"", "p/b"}


# ------------------------------------------------------------------ a bare operator is no range
# node-semver (7.8.5, strict and loose) refuses ``^``, ``~``, ``>=``, ``<`` and ``=`` without a
# version; ctxsel's semver read them as "any version", so yarn 1, yarn 4 and npm workspaces got a
# link the real tools do not make (yarn lists the dependency as mismatched; npm stops on it).
@pytest.mark.parametrize("op", ["^", "~", ">=", "<", "="])
def test_bare_operator_is_no_range(op):
    from ctxsel.adapters.js import semver

    assert semver.parse_range(op) is None
    assert not semver.satisfies_version((1, 0, 0, ()), op)
    assert semver.parse_range(f"{op}1.0.0") is not None  # with a version it still is one


@pytest.mark.parametrize("pm", ["yarn@1.22.22", "yarn@4.18.1"])
def test_bare_caret_links_nothing(tmp_path, pm):
    root = make(tmp_path / "ws", pm, ["p/*"], {"p/a": A, "p/b": {"name": "b", "version": "1.0.0", "dependencies": {"a": "^"}}},
                yarnrc="enableTelemetry: false\n" if pm.startswith("yarn@4") else None)
    assert edges(root) == set()
    listed = yarn_graph(pm.startswith("yarn@4"), root)
    assert {(a, b) for a, deps in listed.items() for b in deps} == set()


# ------------------------------------------------------------------ the printed test command
# ``yarn workspaces foreach`` is built into yarn 4 only; yarn 2 and 3 answer "Command not found"
# unless .yarnrc.yml lists @yarnpkg/plugin-workspace-tools (measured with 3.8.7 and 2.4.2). ctxsel
# printed foreach for every berry; without the plugin it now prints the chain yarn 1 gets.
def _command_repo(tmp_path, pm: str, yarnrc: str):
    packages = {"p/a": {"name": "a", "version": "1.0.0", "scripts": {"test": "echo RAN-a"}},
                "p/b": {"name": "b", "version": "1.0.0", "dependencies": {"a": "workspace:*"}, "scripts": {"test": "echo RAN-b"}},
                "p/u": {"dependencies": {"a": "workspace:*"}, "scripts": {"test": "echo RAN-u"}},
                "p/z": {"name": "z", "version": "1.0.0", "scripts": {"test": "echo RAN-z"}}}
    return make(tmp_path / "ws", pm, ["p/*"], packages, {"scripts": {"test": "echo RAN-root"}}, yarnrc=yarnrc)


def _argv(root):
    from ctxsel.workspace import Workspace

    return Workspace.open(root, adapter="yarn", source="static", use_cache=False).tests(["a"]).argv


@pytest.mark.parametrize("major", [2, 3])
def test_old_berry_without_the_plugin_gets_a_chain(tmp_path, major):
    root = _command_repo(tmp_path, VERSIONS[major], "enableTelemetry: false\n")
    assert _argv(root) == ["sh", "-c", "(cd p/u && yarn test) && yarn workspace a test && yarn workspace b test"]


@pytest.mark.parametrize("major,yarnrc", [
    (3, "plugins:\n  - path: .yarn/plugins/@yarnpkg/plugin-workspace-tools.cjs\n    spec: \"@yarnpkg/plugin-workspace-tools\"\n"),
    (4, "enableTelemetry: false\n"),
])
def test_foreach_where_yarn_has_it(tmp_path, major, yarnrc):
    root = _command_repo(tmp_path, VERSIONS[major], yarnrc)
    assert _argv(root)[:4] == ["yarn", "workspaces", "foreach", "--all"]


def test_chain_runs_exactly_the_selected_workspaces_under_yarn_3(tmp_path):
    """The printed command, run by the real yarn 3.8.7 after an offline install (workspaces only)."""
    import os
    import stat
    import subprocess

    from oracles import PREFIX, YARN_ENV, run

    root = _command_repo(tmp_path, VERSIONS[3], "enableTelemetry: false\nnodeLinker: node-modules\n")
    old_berry_graph(3, root)  # skips when yarn 3 is not installed
    js = PREFIX / "yarn-berry3" / "node_modules" / "@yarnpkg" / "cli-dist" / "bin" / "yarn.js"
    shim = tmp_path / "bin" / "yarn"
    shim.parent.mkdir()
    shim.write_text(f'#!/bin/sh\nexec node "{js}" "$@"\n')
    shim.chmod(shim.stat().st_mode | stat.S_IEXEC)
    run(["node", str(js), "install"], root, timeout=120, env=YARN_ENV)
    env = {**os.environ, **YARN_ENV, "PATH": f"{shim.parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(_argv(root), cwd=root, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert {line for line in done.stdout.split() if line.startswith("RAN-")} == {"RAN-a", "RAN-b", "RAN-u"}
