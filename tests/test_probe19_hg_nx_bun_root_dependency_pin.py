"""A root package.json dependency change does not reach a test pinning that package with bun.lock.

Found by session 18's differential generator (``/tmp/dev18/HN/gen5.py`` seeds 301 and 313):
the root package.json declares ``is-odd`` (locked, bun.lock unchanged), ``b``'s test pins
``externalDependencies: ["is-odd"]``. nx 24.0.6's ``touchedNpmPackages`` (``npm-packages.js``)
takes the *first* external node whose ``packageName`` is ``is-odd``; bun's parser
(``bun-parser.js``, ``getBunTextLockfileNodes``) adds every versioned ``npm:is-odd@1.0.0`` node
before the hoisted ``npm:is-odd`` ones (``createHoistedNodes``), and the pin names the hoisted
node, so ``nx affected -t test --explain`` says only "hashes every external dependency, and
npm:is-odd@1.0.0 ... changed version": ``a``, ``c``, ``d``, not ``b``. ctxsel matched by package
name and selected ``b`` too. With package-lock.json the first node is the one at
``node_modules/<name>`` unless a nested version's key sorts before it (``npm-parser.js``
``getNodes``): then the projects and pins reaching that nested node are the ones moved.

Expected answers are nx's; ``test_real_nx_gives_the_same_answers`` asks it again and skips,
saying why, without ``.ci/oracles-nx-plugins.sh``'s install.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli, run_git, write_tree
from nx_plugin_oracles import require_nx_plugins, run_nx

#: (lockfile, b's pin, root dependency added) -> (tests selected, projects affected), nx 24.0.6's
CASES: dict[tuple[str, str, str], tuple[set[str], set[str]]] = {
    ("bun", "is-odd", "is-odd"): ({"a", "c", "d"}, set()),
    ("bun", "left-pad", "left-pad"): ({"a", "c", "d"}, set()),
    ("bun", "left-pad", "is-odd"): ({"a", "c", "d"}, set()),
    ("npm", "is-odd", "is-odd"): ({"a", "b", "c", "d"}, {"d"}),
    # is-odd depends on left-pad ^2, locked nested (node_modules/is-odd/node_modules/left-pad 2.0.0)
    ("npm-nested", "left-pad", "left-pad"): ({"a", "c", "d"}, {"d"}),
    ("npm-nested", "is-odd", "left-pad"): ({"a", "b", "c", "d"}, {"d"}),
    ("npm-nested-unsorted", "left-pad", "left-pad"): ({"a", "b", "c", "d"}, {"a", "c"}),
}


def make(root: Path, lockfile: str, pin: str, added: str) -> Path:
    """probe15's a/b/c/d workspace (a uses left-pad, d is-odd, c depends on a; b's test pins
    ``pin``) with its package-lock.json or probe17's bun.lock; the root package.json then
    declares ``added``."""
    from test_probe15_nx_auto_lockfile import workspace
    from test_probe17_hn_bun_lockfile import BUN_LOCK

    files = workspace(None, [pin], lockfile=lockfile == "npm")
    if lockfile == "bun":
        files["bun.lock"] = BUN_LOCK
    if lockfile.startswith("npm-nested"):
        files["package-lock.json"] = nested_lock(sort=lockfile == "npm-nested")
    write_tree(root, files)
    run_git(root, "init", "-q", "-b", "main")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", "workspace")
    manifest = json.loads(files["package.json"])
    write_tree(root, {"package.json": json.dumps({**manifest, "dependencies": {added: "^1.0.0"}}, indent=2)})
    run_git(root, "commit", "-qam", f"{added} declared")
    return root


def nested_lock(sort: bool) -> str:
    """probe15's package-lock.json with a second left-pad, 2.0.0, nested under is-odd. Sorted (as
    npm writes it) the nested key comes first: Nx's first ``left-pad`` node is then
    ``npm:left-pad@2.0.0``, which only is-odd (so d) reaches; unsorted it is the hoisted
    ``npm:left-pad``, which a uses and is-odd does not."""
    from test_probe15_nx_auto_lockfile import LOCK

    lock = json.loads(json.dumps(LOCK))
    packages = lock["packages"]
    packages["node_modules/is-odd"]["dependencies"] = {"left-pad": "^2.0.0"}
    packages["node_modules/is-odd/node_modules/left-pad"] = {
        "version": "2.0.0", "resolved": "https://r/left-pad-2.0.0.tgz", "integrity": "sha512-n"}
    lock["packages"] = dict(sorted(packages.items())) if sort else packages
    return json.dumps(lock, indent=2)


def ctxsel(root: Path, command: str) -> set[str]:
    proc = run_cli("--repo", str(root), "--no-cache", "-q", "--adapter", "nx", "--source", "static", command,
                   "--base", "HEAD~1", "--head", "HEAD", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    return set(out["tests"]) if command == "tests" else {a["id"] for a in out["affected"]}


@pytest.mark.parametrize("case", sorted(CASES))
def test_tests_and_projects(tmp_path: Path, case: tuple[str, str, str]) -> None:
    root = make(tmp_path / "ws", *case)
    assert ctxsel(root, "tests") == CASES[case][0]
    assert ctxsel(root, "blast-radius") == CASES[case][1]


@pytest.mark.oracle
@pytest.mark.parametrize("case", sorted(CASES))
def test_real_nx_gives_the_same_answers(tmp_path: Path, case: tuple[str, str, str]) -> None:
    require_nx_plugins()
    root = make(tmp_path / "ws", *case)
    out = tmp_path / "tasks.json"
    proc = run_nx(root, "affected", "-t", "test", "--base=HEAD~1", "--head=HEAD", f"--graph={out}")
    assert proc.returncode == 0 and out.is_file(), (proc.stdout + proc.stderr)[-1500:]
    assert {t["target"]["project"] for t in json.loads(out.read_text())["tasks"]["tasks"].values()} == CASES[case][0]
    proc = run_nx(root, "show", "projects", "--affected", "--base=HEAD~1", "--head=HEAD", "--json")
    assert proc.returncode == 0 and set(json.loads(proc.stdout)) == CASES[case][1], proc.stdout + proc.stderr
