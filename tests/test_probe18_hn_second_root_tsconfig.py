"""A root ``tsconfig.json`` beside ``tsconfig.base.json``: any change of it selects every task.

Found by differential testing (``/tmp/dev17/HN/gen3.py`` seeds 6, 8, 10; minimised in
``/tmp/dev18/HN/exp1.py``): nx 24.0.6's task selection (``nx affected -t test``, native
``changed_contents``) takes both root names, tsconfig.base.json and tsconfig.json, for the
``TsConfiguration`` every task hashes, but compares by parts (``compilerOptions.paths`` apart from
the rest, whitespace aside) only the root tsconfig it reads -- tsconfig.base.json when there is one.
So a change of the root tsconfig.json -- its ``include``, its ``paths``, its whitespace, adding or
deleting it -- selects every task, also of projects no plugin gives a tsconfig input (``c`` below,
a package.json script), while ``nx show projects --affected`` marks no project for it. ctxsel
selected only the @nx/vitest tasks whose ``json`` input names it (``--files``), and over a git range
where ``compilerOptions`` stayed the same, nothing.

Expected answers are nx's; ``test_real_nx_gives_the_same_answers`` asks it again and skips, saying
why, without ``.ci/oracles-nx-plugins.sh``'s install.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli, run_git, write_tree
from nx_plugin_oracles import nx_affected_tests, require_nx_plugins, run_nx
from test_probe16_nxplugins_static import LOCK, ROOT_PKG, VITEST_CFG, pkg

BASE_TS = {"compilerOptions": {"strict": True, "paths": {"a": ["packages/a/src/i.ts"]}}}
ROOT_TS = {"compilerOptions": {"strict": True, "paths": {"c": ["packages/c/src/i.ts"]}}}
FILES: dict[str, Any] = {
    "package.json": ROOT_PKG, "package-lock.json": LOCK, "nx.json": {"plugins": ["@nx/vitest"]},
    "tsconfig.base.json": BASE_TS, "tsconfig.json": ROOT_TS,
    "packages/a/package.json": pkg("a"), "packages/a/vitest.config.ts": VITEST_CFG, "packages/a/src/i.ts": "",
    "packages/b/package.json": pkg("b"), "packages/b/vitest.config.ts": VITEST_CFG,
    "packages/c/package.json": pkg("c", scripts={"test": "x"}), "packages/c/src/i.ts": "",
}
EVERY = {"a", "b", "c"}
#: name -> (path, its new text or None to delete it, tests selected over HEAD~1..HEAD)
CHANGES: dict[str, tuple[str, str | None, set[str]]] = {
    "root tsconfig.json include": ("tsconfig.json", json.dumps({**ROOT_TS, "include": ["x"]}), EVERY),
    "root tsconfig.json paths": ("tsconfig.json", json.dumps(
        {"compilerOptions": {"strict": True, "paths": {"c": ["packages/c/src/j.ts"]}}}), EVERY),
    "root tsconfig.json whitespace": ("tsconfig.json", json.dumps(ROOT_TS), EVERY),
    "root tsconfig.json deleted": ("tsconfig.json", None, EVERY),
    # the root tsconfig Nx reads is still compared by parts (unchanged behaviour, for contrast)
    "tsconfig.base.json whitespace": ("tsconfig.base.json", json.dumps(BASE_TS), set()),
    "tsconfig.base.json paths": ("tsconfig.base.json", json.dumps(
        {"compilerOptions": {"strict": True, "paths": {"a": ["packages/a/src/j.ts"]}}}), set()),
}


def make(root: Path, change: str | None = None) -> Path:
    write_tree(root, {k: v if isinstance(v, str) else json.dumps(v, indent=2) for k, v in FILES.items()})
    if change is not None:
        run_git(root, "init", "-q", "-b", "main")
        run_git(root, "add", "-A")
        run_git(root, "commit", "-qm", "workspace")
        path, text, _ = CHANGES[change]
        if text is None:
            run_git(root, "rm", "-q", path)
        else:
            write_tree(root, {path: text})
        run_git(root, "commit", "-qam", change)
    return root


def ctxsel(root: Path, command: str, *how: str) -> set[str]:
    proc = run_cli("--repo", str(root), "--no-cache", "-q", "--adapter", "nx", "--source", "static", command,
                   "--format", "json", *how)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    return set(out["tests"]) if command == "tests" else {a["id"] for a in out["affected"]}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_over_a_git_range(tmp_path: Path, change: str) -> None:
    root = make(tmp_path / "ws", change)
    assert ctxsel(root, "tests", "--base", "HEAD~1", "--head", "HEAD") == CHANGES[change][2]


def test_with_files_every_task_not_only_the_vitest_json_inputs(tmp_path: Path) -> None:
    assert ctxsel(make(tmp_path / "ws"), "tests", "--files", "tsconfig.json") == EVERY


def test_no_project_is_touched(tmp_path: Path) -> None:
    """``nx show projects --affected --files=tsconfig.json`` lists none: the rule is the tasks'."""
    assert ctxsel(make(tmp_path / "ws"), "blast-radius", "--files", "tsconfig.json") == set()


@pytest.mark.oracle
def test_real_nx_gives_the_same_answers(tmp_path: Path) -> None:
    require_nx_plugins()
    root = make(tmp_path / "files")
    assert nx_affected_tests(root, ["tsconfig.json"]) == EVERY
    proc = run_nx(root, "show", "projects", "--affected", "--files=tsconfig.json", "--json")
    assert proc.returncode == 0 and json.loads(proc.stdout) == [], proc.stdout + proc.stderr
    for change in ("root tsconfig.json whitespace", "root tsconfig.json deleted", "tsconfig.base.json whitespace"):
        root = make(tmp_path / change.replace(" ", "-"), change)
        out = tmp_path / f"{change.replace(' ', '-')}.json"
        proc = run_nx(root, "affected", "-t", "test", "--base=HEAD~1", "--head=HEAD", f"--graph={out}")
        assert proc.returncode == 0 and out.is_file(), (proc.stdout + proc.stderr)[-1500:]
        tasks = json.loads(out.read_text())["tasks"]["tasks"].values()
        assert {t["target"]["project"] for t in tasks} == CHANGES[change][2], change
