"""Yarn 1 (1.22.22) and yarn 4 (berry, 4.18.1) against ctxsel's yarn adapter.

The yarn adapter was written from yarn's documentation. Randomized differential testing
(``yarn workspaces info`` / ``yarn workspaces list -v --json`` vs ctxsel, several hundred
random workspaces) found the cases below; each has its measured answer, which the oracle
tests check against the real yarns (``.ci/oracles-yarn.sh`` installs them) and the static
tests check against ctxsel without them. Edges are (dependent dir, dependency dir).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import run_git
from ctxsel.adapters.js.workspace import yarn_is_berry
from ctxsel.workspace import Workspace
from oracles import yarn_graph, yarn_js, yarn_run, yarn_since

V1, V4 = "yarn@1.22.22", "yarn@4.18.1"


def make(root: Path, pm: str, workspaces, packages: dict[str, dict], rootfields: dict | None = None,
         yarnrc: str | None = None) -> Path:
    """A workspace: ``packages`` maps a directory to its package.json."""
    root.mkdir(parents=True, exist_ok=True)
    manifest = {"name": "root", "private": True, "workspaces": workspaces, "packageManager": pm, **(rootfields or {})}
    (root / "package.json").write_text(json.dumps(manifest))
    for rel, fields in packages.items():
        (root / rel).mkdir(parents=True, exist_ok=True)
        (root / rel / "package.json").write_text(json.dumps(fields))
    if yarnrc is not None:
        (root / ".yarnrc.yml").write_text(yarnrc)
    return root


def edges(root: Path, source: str = "static") -> set[tuple[str, str]]:
    g = Workspace.open(root, adapter="yarn", source=source, use_cache=False).graph
    return {(g.node(a).package, g.node(b).package) for a, b, _ in g.edges()}


def dirs(root: Path) -> set[str]:
    return {n.package for n in Workspace.open(root, adapter="yarn", source="static", use_cache=False).graph.nodes()}


def tool_edges(berry: bool, root: Path) -> set[tuple[str, str]]:
    return {(a, b) for a, deps in yarn_graph(berry, root).items() for b in deps}


# (case id, packageManager, workspaces, packages, root fields, .yarnrc.yml, measured edges, measured dirs)
P = {"name": "a", "version": "1.0.0"}
CASES = [
    # peerDependencies are no workspace dependency for either yarn (ctxsel drew a peer edge)
    ("peer-v1", V1, ["p/*"], {"p/a": P, "p/b": {"name": "b", "version": "1.0.0", "peerDependencies": {"a": "^1.0.0"}}},
     None, None, set(), {"", "p/a", "p/b"}),
    ("peer-v4", V4, ["p/*"], {"p/a": P, "p/b": {"name": "b", "version": "1.0.0", "peerDependencies": {"a": "*"}}},
     None, None, set(), {"", "p/a", "p/b"}),
    # yarn 1 knows no workspace: protocol: "mismatched", no link (ctxsel linked it)
    ("workspace-protocol-v1", V1, ["p/*"], {"p/a": P, "p/b": {"name": "b", "version": "1.0.0", "dependencies": {"a": "workspace:*"}},
                                            "p/c": {"name": "c", "version": "1.0.0", "dependencies": {"a": "^1.0.0"}}},
     None, None, {("p/c", "p/a")}, {"", "p/a", "p/b", "p/c"}),
    # yarn 1 ignores a workspace without a name or a version, and !negations (ctxsel kept the
    # first two as nodes and dropped the negated one)
    ("ignored-v1", V1, ["p/*", "!p/c"], {"p/a": {"name": "a"}, "p/b": {"version": "1.0.0"},
                                         "p/c": {"name": "c", "version": "1.0.0", "devDependencies": {"a": "*"}}},
     None, None, set(), {"", "p/c"}),
    # yarn 1's manifest cleaning: one field per name (optional, then dependencies, then dev),
    # with the first spec that is not "" or "*" (ctxsel: dependencies' spec, or an edge per field)
    ("clean-deps-v1", V1, ["p/*"], {"p/a": P,
                                    "p/b": {"name": "b", "version": "1.0.0", "dependencies": {"a": "^1.0.0"},
                                            "optionalDependencies": {"a": "^2.0.0"}},
                                    "p/c": {"name": "c", "version": "1.0.0", "dependencies": {"a": "^2.0.0"},
                                            "devDependencies": {"a": "^1.0.0"}},
                                    "p/d": {"name": "d", "version": "1.0.0", "dependencies": {"a": "*"},
                                            "devDependencies": {"a": "^1.0.0"}}},
     None, None, {("p/d", "p/a")}, {"", "p/a", "p/b", "p/c", "p/d"}),
    # yarn 1 cleans versions loosely (" v1.0.0" is 1.0.0)
    ("loose-version-v1", V1, ["p/*"], {"p/a": {"name": "a", "version": " v1.0.0"},
                                       "p/b": {"name": "b", "version": "1.0.0", "dependencies": {"a": "^1.0.0"}}},
     None, None, {("p/b", "p/a")}, {"", "p/a", "p/b"}),
    # berry: dependencies and devDependencies are both read (an edge where either accepts), and
    # optionalDependencies replace a dependencies entry of the same name
    ("fields-v4", V4, ["p/*"], {"p/a": P,
                                "p/b": {"name": "b", "dependencies": {"a": "^2.0.0"}, "devDependencies": {"a": "^1.0.0"}},
                                "p/c": {"name": "c", "dependencies": {"a": "^1.0.0"}, "optionalDependencies": {"a": "^2.0.0"}}},
     None, None, {("p/b", "p/a")}, {"", "p/a", "p/b", "p/c"}),
    # berry: workspace:<path> is a path from the project root, whatever the dependency's name;
    # workspace:<range> tests a missing version as 0.0.0; a prerelease fails "workspace:" (= "*")
    ("workspace-paths-v4", V4, ["p/*"], {"p/a": P, "p/n": {"name": "n"}, "p/r": {"name": "r", "version": "1.0.0-rc.1"},
                                         "p/b": {"name": "b", "dependencies": {"zz": "workspace:p/a", "a": "workspace:../a"}},
                                         "p/c": {"name": "c", "dependencies": {"n": "workspace:^0.0.0", "r": "workspace:"}}},
     None, None, {("p/b", "p/a"), ("p/c", "p/n")}, {"", "p/a", "p/n", "p/r", "p/b", "p/c"}),
    # berry: enableTransparentWorkspaces: false -- a plain range is no link, workspace: still is
    ("opaque-v4", V4, ["p/*"], {"p/a": P, "p/b": {"name": "b", "dependencies": {"a": "^1.0.0"}},
                                "p/c": {"name": "c", "devDependencies": {"a": "workspace:~"}}},
     None, "enableTransparentWorkspaces: false\n", {("p/c", "p/a")}, {"", "p/a", "p/b", "p/c"}),
    # berry: a workspace's own "workspaces" adds nested workspaces; the root is a workspace
    # whose dependencies count; a negation removes its matches wherever it stands
    ("nested-v4", V4, ["!p/x", "p/*"], {"p/a": {**P, "workspaces": ["sub/*"]}, "p/a/sub/q": {"name": "q", "dependencies": {"a": "*"}},
                                        "p/x": {"name": "x"}},
     {"devDependencies": {"q": "workspace:*"}}, None, {("", "p/a/sub/q"), ("p/a/sub/q", "p/a")}, {"", "p/a", "p/a/sub/q"}),
]


def _build(tmp_path: Path, case) -> tuple[Path, bool, set, set]:
    cid, pm, globs, packages, rootfields, yarnrc, want_edges, want_dirs = case
    root = make(tmp_path / cid, pm, globs, packages, rootfields, yarnrc)
    return root, pm == V4, want_edges, want_dirs


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_static_mode_answers_as_yarn_does(tmp_path: Path, case) -> None:
    root, _, want_edges, want_dirs = _build(tmp_path, case)
    assert dirs(root) == want_dirs
    assert edges(root) == want_edges


@pytest.mark.oracle
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_yarn_itself_gives_the_measured_answer(tmp_path: Path, case) -> None:
    root, berry, want_edges, want_dirs = _build(tmp_path, case)
    listed = yarn_graph(berry, root)
    root_edges = set() if berry else {e for e in want_edges if e[0] == ""}  # yarn 1 does not list the root
    assert tool_edges(berry, root) | root_edges == want_edges
    assert set(listed) | ({""} if not berry else set()) == want_dirs


@pytest.mark.oracle
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_tool_mode_equals_static_mode(tmp_path: Path, case) -> None:
    """--source tool runs the repo's own yarn (its yarnPath release) and draws the same graph."""
    root, berry, want_edges, _ = _build(tmp_path, case)
    js = yarn_js(berry)
    if berry:
        with open(root / ".yarnrc.yml", "a") as fh:
            fh.write(f"yarnPath: {json.dumps(js)}\n")
    else:
        (root / ".yarnrc").write_text(f'yarn-path "{js}"\n')
    assert yarn_is_berry(root) == berry
    assert edges(root, "tool") == edges(root, "static") == want_edges


def test_yarn1_invalid_version_is_a_user_error(tmp_path: Path, cli) -> None:
    """yarn 1 stops on a workspace version it cannot parse when a range names it ("TypeError:
    Invalid Version: 1.0"); ctxsel says so, naming the file, instead of guessing."""
    root = make(tmp_path / "w", V1, ["p/*"], {"p/a": {"name": "a", "version": "1.0"},
                                              "p/b": {"name": "b", "version": "1.0.0", "dependencies": {"a": "^1.0.0"}}})
    proc = cli("--repo", str(root), "--source", "static", "blast-radius", "a")
    assert proc.returncode == 2 and "p/a/package.json" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.oracle
def test_yarn1_stops_on_the_invalid_version_too(tmp_path: Path) -> None:
    root = make(tmp_path / "w", V1, ["p/*"], {"p/a": {"name": "a", "version": "1.0"},
                                              "p/b": {"name": "b", "version": "1.0.0", "dependencies": {"a": "^1.0.0"}}})
    proc = yarn_run(False, root, "workspaces", "info", check=False)
    assert proc.returncode != 0 and "Invalid Version" in proc.stdout + proc.stderr


def test_yarn1_needs_a_private_root(tmp_path: Path, cli) -> None:
    """yarn 1: "Workspaces can only be enabled in private projects." (exit 1)."""
    root = make(tmp_path / "w", V1, ["p/*"], {"p/a": P}, {"private": False})
    proc = cli("--repo", str(root), "--source", "static", "blast-radius", "a")
    assert proc.returncode == 2 and "private" in proc.stderr and "Traceback" not in proc.stderr


# ---------------------------------------------------------------------- which yarn
@pytest.mark.parametrize("pm, files, berry", [
    ("yarn@1.22.22", {".yarnrc.yml": "nodeLinker: node-modules\n"}, False),  # corepack runs yarn 1 (was: berry)
    (None, {"yarn.lock": "__metadata:\n  version: 8\n"}, True),  # berry's lockfile (was: yarn 1)
    (None, {"yarn.lock": "# yarn lockfile v1\n", ".yarnrc.yml": "x: 1\n"}, False),
    (None, {".yarnrc.yml": "yarnPath: .yarn/releases/yarn-1.22.19.cjs\n"}, False),
    (None, {".yarnrc": 'yarn-path ".yarn/releases/yarn-4.5.0.cjs"\n', "yarn.lock": "# yarn lockfile v1\n"}, True),
    ("yarn@4.5.0", {}, True),
    (None, {}, False),
])
def test_which_yarn_runs_the_repo(tmp_path: Path, pm, files, berry) -> None:
    root = make(tmp_path / "w", pm or "", ["p/*"], {"p/a": P})
    if pm is None:
        manifest = json.loads((root / "package.json").read_text())
        del manifest["packageManager"]
        (root / "package.json").write_text(json.dumps(manifest))
    for name, text in files.items():
        (root / name).write_text(text)
    assert yarn_is_berry(root) is berry


@pytest.mark.oracle
def test_yarn1_refuses_a_repo_pinning_yarn4(tmp_path: Path, monkeypatch) -> None:
    """Why packageManager decides first: yarn 1 will not run where it names yarn 4."""
    root = make(tmp_path / "w", V4, ["p/*"], {"p/a": P})
    js = yarn_js(False)
    for name in ("SKIP_YARN_COREPACK_CHECK", "COREPACK_ROOT"):
        monkeypatch.delenv(name, raising=False)
    proc = subprocess.run(["node", js, "workspaces", "info"], check=False, cwd=root, capture_output=True, text=True,
                          timeout=60, env={**os.environ, "YARN_IGNORE_PATH": "1"})
    assert proc.returncode == 1 and "packageManager" in proc.stdout + proc.stderr


# ---------------------------------------------------------------------- --since (berry)
def _change(root: Path, changed: list[str]) -> None:
    """Append a comment line to each file (yarn parses yarn.lock), creating it if needed."""
    for rel in changed:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        with open(root / rel, "a") as fh:
            fh.write("# changed\n")


SINCE_PACKAGES = {"p/a": P, "p/b": {"name": "b", "dependencies": {"a": "workspace:*"}}, "p/c": {"name": "c"},
                  "p/x": {"name": "x"}}


SINCE_CASES = [
    ("", ["yarn.lock"], set()),  # berry skips the lockfile and its install files (ctxsel: the root)
    ("", [".pnp.cjs", ".yarn/install-state.gz"], set()),
    ("", [".yarn/cache/a.zip"], {""}),  # yarn 4 caches globally: .yarn/cache is just a root file
    ("enableGlobalCache: false\n", [".yarn/cache/a.zip"], set()),  # ... unless the cache is the repo's
    ("", ["README.md"], {""}),  # a root file changes the root workspace
    ("", ["p/x/src.js"], {""}),  # p/x is negated out: its files are the root's
    ("", ["p/a/index.js"], {"p/a", "p/b"}),  # and -R adds the dependents
]


def _since_repo(tmp_path: Path, yarnrc: str, changed: list[str]) -> Path:
    root = make(tmp_path / "w", V4, ["p/*", "!p/x"], SINCE_PACKAGES, yarnrc=yarnrc or None)
    (root / "yarn.lock").write_text("__metadata:\n  version: 8\n")
    run_git(root, "init", "-q", "-b", "main")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", "base")
    _change(root, changed)
    return root


@pytest.mark.parametrize("yarnrc, changed, want", SINCE_CASES)
def test_berry_since_matches_workspaces_list_since(tmp_path: Path, yarnrc: str, changed: list[str], want: set[str],
                                                   monkeypatch) -> None:
    monkeypatch.delenv("YARN_ENABLE_GLOBAL_CACHE", raising=False)
    root = _since_repo(tmp_path, yarnrc, changed)
    ws = Workspace.open(root, adapter="yarn", source="static", use_cache=False)
    roots, _ = ws.roots(since="HEAD")
    got = {ws.graph.node(n).package for n in ws.blast_radius(roots=roots).ids}
    assert got == want


@pytest.mark.oracle
@pytest.mark.parametrize("yarnrc, changed, want", SINCE_CASES)
def test_berry_since_oracle(tmp_path: Path, yarnrc: str, changed: list[str], want: set[str], monkeypatch) -> None:
    monkeypatch.delenv("YARN_ENABLE_GLOBAL_CACHE", raising=False)
    root = _since_repo(tmp_path, yarnrc, changed)
    assert yarn_since(root, "HEAD", recursive=True) == want


# ---------------------------------------------------------------------- test commands
def test_berry_test_command_names_the_root_and_unnamed_workspaces_by_path(tmp_path: Path) -> None:
    root = make(tmp_path / "w", V4, ["p/*"], {"p/a": {**P, "scripts": {"test": "t"}},
                                              "p/u": {"scripts": {"test": "t"}, "dependencies": {"a": "workspace:*"}}},
                {"scripts": {"test": "t"}, "dependencies": {"a": "workspace:*"}})
    ws = Workspace.open(root, adapter="yarn", source="static", use_cache=False)
    assert ws.tests(["a"]).argv == ["yarn", "workspaces", "foreach", "--all", "--include", "p/u", "--include", "a",
                                    "--include", ".", "run", "test"]


@pytest.mark.oracle
def test_berry_foreach_selects_exactly_the_printed_workspaces(tmp_path: Path) -> None:
    """``yarn workspaces foreach -n`` (dry run) with ctxsel's --include list excludes every other workspace."""
    root = make(tmp_path / "w", V4, ["p/*"], {"p/a": {**P, "scripts": {"test": "t"}},
                                              "p/u": {"scripts": {"test": "t"}, "dependencies": {"a": "workspace:*"}},
                                              "p/z": {"name": "@s/z", "scripts": {"test": "t"}}},
                {"scripts": {"test": "t"}, "dependencies": {"a": "workspace:*"}}, "nodeLinker: node-modules\n")
    yarn_run(True, root, "install", "--mode=skip-build")  # foreach reads the install state (no registry needed)
    ws = Workspace.open(root, adapter="yarn", source="static", use_cache=False)
    argv = ws.tests(["a"]).argv
    out = yarn_run(True, root, *argv[1:4], "-n", *argv[4:]).stdout
    excluded = {line.split()[1] for line in out.splitlines() if line.startswith("Excluding ")}
    assert excluded == {"p/z"}


def test_berry_names_that_include_would_misread_are_paths(tmp_path: Path) -> None:
    """``--include`` globs names and paths: a workspace named like another's path ("p/b") is
    passed by its own path, so the command runs it alone (ctxsel passed the name)."""
    root = make(tmp_path / "w", V4, ["p/*"], {"p/a": {"name": "p/b", "scripts": {"test": "t"}},
                                              "p/b": {"name": "b", "scripts": {"test": "t"}}})
    ws = Workspace.open(root, adapter="yarn", source="static", use_cache=False)
    assert ws.tests(["p/a"]).argv == ["yarn", "workspaces", "foreach", "--all", "--include", "p/a", "run", "test"]


# ---------------------------------------------------------------------- tool mode errors
def _fake_yarn(tmp_path: Path, monkeypatch, script: str) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "yarn").write_text("#!/bin/sh\n" + script)
    (bin_dir / "yarn").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")


def test_tool_mode_refuses_a_yarn_of_the_other_major(tmp_path: Path, cli, monkeypatch) -> None:
    root = make(tmp_path / "w", V4, ["p/*"], {"p/a": P})
    _fake_yarn(tmp_path, monkeypatch, 'echo 1.22.22\n')
    proc = cli("--repo", str(root), "--source", "tool", "--no-cache", "blast-radius", "a")
    assert proc.returncode == 2 and "yarn 2 or later" in proc.stderr and "1.22.22" in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) <= 3


def test_tool_mode_failure_is_a_short_user_error(tmp_path: Path, cli, monkeypatch) -> None:
    root = make(tmp_path / "w", V4, ["p/*"], {"p/a": P})
    _fake_yarn(tmp_path, monkeypatch, 'case "$1" in --version) echo 4.18.1;; *) echo "Usage Error: boom" >&2; exit 1;; esac\n')
    proc = cli("--repo", str(root), "--source", "tool", "--no-cache", "blast-radius", "a")
    assert proc.returncode == 2 and "boom" in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) <= 3


def test_auto_mode_does_not_run_yarn(tmp_path: Path, cli, monkeypatch) -> None:
    """``auto`` is static: a yarn on PATH that would fail is never asked."""
    root = make(tmp_path / "w", V4, ["p/*"], {"p/a": P, "p/b": {"name": "b", "dependencies": {"a": "workspace:*"}}})
    _fake_yarn(tmp_path, monkeypatch, "exit 1\n")
    proc = cli("--repo", str(root), "--no-cache", "blast-radius", "a")
    assert proc.returncode == 0 and "b" in proc.stdout


@pytest.mark.oracle
def test_yarn1_test_chain_runs_exactly_the_selected_workspaces(tmp_path: Path, monkeypatch) -> None:
    """The printed ``yarn workspace NAME test && ... && yarn test`` chain, run by the real yarn 1."""
    root = make(tmp_path / "w", V1, ["p/*"], {
        "p/a": {"name": "@s/a", "version": "1.0.0", "scripts": {"test": "echo RAN-a"}},
        "p/b": {"name": "b", "version": "1.0.0", "scripts": {"test": "echo RAN-b"}, "dependencies": {"@s/a": "^1.0.0"}},
        "p/c": {"name": "c", "version": "1.0.0", "scripts": {"test": "echo RAN-c"}}},
        {"scripts": {"test": "echo RAN-root"}, "devDependencies": {"b": "*"}})
    argv = Workspace.open(root, adapter="yarn", source="static", use_cache=False).tests(["@s/a"]).argv
    shim = tmp_path / "bin" / "yarn"
    shim.parent.mkdir()
    shim.write_text(f'#!/bin/sh\nexec node "{yarn_js(False)}" "$@"\n')
    shim.chmod(0o755)
    monkeypatch.setenv("PATH", f"{shim.parent}{os.pathsep}{os.environ['PATH']}")
    proc = subprocess.run(argv, cwd=root, check=True, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "YARN_IGNORE_PATH": "1", "SKIP_YARN_COREPACK_CHECK": "1"})
    assert {line for line in proc.stdout.splitlines() if line.startswith("RAN-")} == {"RAN-a", "RAN-b", "RAN-root"}
