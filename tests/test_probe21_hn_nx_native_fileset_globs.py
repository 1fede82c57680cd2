"""Extglobs in task ``inputs`` filesets, as Nx 24's native glob conversion reads them.

Nx does not match a fileset with minimatch: its Rust ``convert_glob`` first rewrites each
glob into plain globs, each included or excluded -- ``!(a|b).ts`` is ``*.ts`` minus
``{a,b}.ts``, ``*.!(ts)`` is ``*.`` minus ``*.ts``, ``!(a)*`` is ``*`` minus ``a*``, an
optional group appears once or not at all (``a*(.spec).ts`` is read as ``a*`` and the plain
group ``(.spec)``), ``*(x)``/``!(x)`` left out of a directory segment stand for ``*``,
``@(**)`` is ``**`` and ``(ts|md)`` an alternation. ctxsel read them as minimatch extglobs
(a ``!(...)`` group followed by more text, ``@(**)``, plain groups) and disagreed with
``nx affected -t test`` on 16 of 288, 15 of 117 and 15 of 180 (pattern, file) pairs of three
probes (``/tmp/dev21/hn/inp/probe.py``); after the change, on none. Every expectation
below was measured with nx 24.0.6 (``nx affected -t test --files``); the oracle test asks it again.
A group spanning ``/`` is a glob Nx cannot parse: ``nx affected -t test`` then fails as soon as
it matches a changed file below the glob's literal directory against it, and so does ctxsel (exit 2).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli, write_tree
from nx_plugin_oracles import nx_affected_tests, run_nx

from ctxsel.adapters.js.nx_workspace import fileset_matches, native_globs

FILES = ["src/a.ts", "src/c.ts", "src/a.spec.ts", "src/c.md", "a/b.ts", "docs/x.md"]
#: a test's only input ``{projectRoot}/PATTERN`` -> the FILES whose change selects it (nx 24.0.6)
SELECTS = {
    "src/!(a|b).ts": {"src/c.ts", "src/a.spec.ts"},  # old: src/a.ts too
    "**/!(*.spec).ts": {"src/a.ts", "src/c.ts", "a/b.ts"},  # old: src/a.spec.ts too
    "src/*.!(ts)": set(),  # old: src/a.spec.ts, src/c.md
    "**/a*(.spec).ts": {"src/a.spec.ts"},  # old: src/a.ts too
    "*(src|lib)/*.ts": {"src/a.ts", "src/c.ts", "src/a.spec.ts", "a/b.ts"},  # old: not a/b.ts
    "src/@(**)/*.ts": {"src/a.ts", "src/c.ts", "src/a.spec.ts"},  # old: none
    "**/*.(ts|md)": set(FILES),  # old: none
    "src/!(a)*": {"src/c.ts", "src/c.md"},  # old: src/a.ts, src/a.spec.ts too
    "!(docs)/**": set(FILES) - {"docs/x.md"},
}
ROOT = "packages/p"


@pytest.mark.parametrize("pattern", sorted(SELECTS))
def test_fileset_matches_what_nx_matches(pattern: str) -> None:
    got = {f for f in FILES if fileset_matches((f"{{projectRoot}}/{pattern}",), f"{ROOT}/{f}", ROOT)}
    assert got == SELECTS[pattern]


def test_conversion_follows_nx() -> None:
    """The rewrites Nx's own unit tests (``glob_transform.rs``) spell out."""
    assert sorted(native_globs("dist/!(cache|cache2)/**/!(README|LICENSE).(js|ts)") or []) == [
        (False, "dist/*/**/*.{js,ts}"), (True, "dist/*/**/{README,LICENSE}.{js,ts}"), (True, "dist/{cache,cache2}/**")]
    assert sorted(native_globs("packages/!(package-a)*") or []) == [(False, "packages/*"), (True, "packages/package-a*")]
    assert sorted(native_globs("libs/**/?(*.)+spec.ts?(.snap)") or []) == [
        (False, "libs/**/*.+spec.ts"), (False, "libs/**/*.+spec.ts.snap"), (False, "libs/**/+spec.ts"),
        (False, "libs/**/+spec.ts.snap")]
    assert native_globs("@(src/a|lib)/**") is None  # a group across "/": Nx cannot parse it


def test_many_optional_groups_do_not_explode() -> None:
    """Each optional group doubles Nx's rewrite; 40 of them (2**40 globs) must not hang ctxsel,
    which then reads the glob as one extglob (the product standard: never a hang)."""
    pattern = "{projectRoot}/" + "?(a)" * 40 + ".ts"
    assert native_globs(pattern.split("/", 1)[1]) == []
    assert fileset_matches((pattern,), f"{ROOT}/aa.ts", ROOT)
    assert not fileset_matches((pattern,), f"{ROOT}/b.ts", ROOT)


def make(root: Path) -> Path:
    """One project per pattern (p0, p1, ...), its test reading only that fileset, each with FILES."""
    files: dict[str, str] = {"nx.json": "{}", "package.json": json.dumps(
        {"name": "root", "private": True, "workspaces": ["packages/*"]})}
    for i, pattern in enumerate(sorted(SELECTS)):
        files[f"packages/p{i}/package.json"] = json.dumps({"name": f"p{i}", "nx": {"targets": {"test": {
            "command": "echo", "inputs": [f"{{projectRoot}}/{pattern}"]}}}})
        files.update({f"packages/p{i}/{f}": "x" for f in FILES})
    return write_tree(root, files)


def changed(path: str) -> str:
    return ",".join(f"packages/p{i}/{path}" for i in range(len(SELECTS)))


def test_tests_for_a_change(tmp_path: Path) -> None:
    root = make(tmp_path / "ws")
    proc = run_cli("--repo", str(root), "--no-cache", "-q", "--adapter", "nx", "--source", "static",
                   "tests", "--files", changed("src/a.ts"), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    names = sorted(SELECTS)
    assert set(json.loads(proc.stdout)["tests"]) == {f"p{i}" for i, p in enumerate(names) if "src/a.ts" in SELECTS[p]}


@pytest.mark.oracle
def test_real_nx_selects_the_same(tmp_path: Path) -> None:
    root = make(tmp_path / "ws")
    names = sorted(SELECTS)
    for path in FILES:
        # the task graph, not nx's printed list (whose format changes with CI=true)
        got = {names[int(p[1:])] for p in nx_affected_tests(root, changed(path).split(","))}
        assert got == {p for p in names if path in SELECTS[p]}, path


def make_refused(root: Path) -> Path:
    """a's test reads ``{projectRoot}/@(src/x|lib)/**``, c's ``{workspaceRoot}/tools/@(x/y|z).txt``
    (groups across ``/``, which Nx's parser rejects); b depends on a and reads ``^default``."""
    files: dict[str, object] = {
        "nx.json": {},
        "package.json": {"name": "root", "private": True, "workspaces": ["packages/*"]},
        "packages/a/package.json": {"name": "a", "nx": {"targets": {"test": {
            "command": "echo", "inputs": ["{projectRoot}/@(src/x|lib)/**"]}}}},
        "packages/b/package.json": {"name": "b", "dependencies": {"a": "*"}, "nx": {"targets": {"test": {
            "command": "echo", "inputs": ["default", "^default"]}}}},
        "packages/c/package.json": {"name": "c", "nx": {"targets": {"test": {
            "command": "echo", "inputs": ["{workspaceRoot}/tools/@(x/y|z).txt"]}}}},
    }
    write_tree(root, {k: json.dumps(v, indent=2) for k, v in files.items()})
    return write_tree(root, {f: "x" for f in ("packages/a/other.ts", "packages/b/src/i.ts", "tools/q.txt", "README.md")})


#: changed file -> the config file named when Nx fails (nx 24.0.6: "Could not parse the glob"), or None
REFUSED = {"packages/a/other.ts": "packages/a/package.json", "packages/a/package.json": "packages/a/package.json",
           "tools/q.txt": "packages/c/package.json", "packages/b/src/i.ts": None, "README.md": None}


@pytest.mark.parametrize("path", sorted(REFUSED))
def test_a_glob_nx_cannot_parse_exits_2_when_nx_fails(tmp_path: Path, path: str) -> None:
    """Old: exit 0 (a selected for its own file; c never)."""
    root = make_refused(tmp_path / "ws")
    proc = run_cli("--repo", str(root), "--no-cache", "-q", "--adapter", "nx", "--source", "static",
                   "tests", "--files", path, "--format", "json")
    if REFUSED[path] is None:
        assert proc.returncode == 0, proc.stderr
        return
    assert proc.returncode == 2, proc.stdout
    assert f"{REFUSED[path]}:" in proc.stderr and "cannot parse the glob" in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) <= 3
    blast = run_cli("--repo", str(root), "--no-cache", "-q", "--adapter", "nx", "--source", "static",
                    "blast-radius", "--files", path, "--format", "json")
    assert blast.returncode == 0, blast.stderr  # nx show projects --affected answers


@pytest.mark.oracle
@pytest.mark.parametrize("path", sorted(REFUSED))
def test_real_nx_fails_for_the_same_files(tmp_path: Path, path: str) -> None:
    root = make_refused(tmp_path / "ws")
    proc = run_nx(root, "affected", "-t", "test", f"--files={path}", "--explain")
    assert ("Could not parse the glob" in proc.stdout + proc.stderr) == (REFUSED[path] is not None), \
        (proc.stdout + proc.stderr)[-1500:]
    assert run_nx(root, "show", "projects", "--affected", f"--files={path}", "--json").returncode == 0
