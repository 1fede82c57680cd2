"""Nx 24 and a change of the root tsconfig over a git range: narrowed per ``paths`` entry.

``nx show projects --affected --base A --head B`` compares the two versions of
tsconfig.base.json (``tsconfig-json-changes.js``): a change confined to
``compilerOptions.paths`` touches only the projects an added or modified mapping points
into (then their dependents); a removed mapping touches every project, as does any other
change, or a side that is not strict JSON. ``-t test`` selects no task for a change of
``paths`` alone (each task hashes the tsconfig *without* ``paths``) and every task for any
other. ``--files=tsconfig.base.json`` has no old side: every project, every test.
ctxsel used to treat every change of the file as global.

EXPECTED is what Nx 24.0.6 answered; the unit test checks ctxsel against it without Nx,
the oracle test checks that the real nx still answers it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import pytest

from conftest import run_cli, run_git, write_tree
from test_probe12_nx_inputs import Nx

PATHS = {"@ws/a": ["libs/a/src/index.ts"], "@ws/b": ["libs/b/src/index.ts"], "@ws/c": ["libs/c/src/index.ts"]}
#: project -> its implicit dependencies: app -> b -> a, d -> c, e alone
PROJECTS = {"a": (), "b": ("a",), "c": (), "d": ("c",), "e": ()}
ALL = {"a", "b", "c", "d", "e", "app"}


def tsconfig(config: dict[str, Any] | None = None) -> str:
    config = config or {"compilerOptions": {"target": "es2020", "baseUrl": ".", "paths": PATHS}, "exclude": ["node_modules"]}
    return json.dumps(config, indent=2) + "\n"


def workspace(root: Path) -> Path:
    files = {
        "nx.json": json.dumps({"targetDefaults": {"test": {"inputs": ["default", "^default"]}}}),
        "package.json": json.dumps({"name": "root", "private": True}),
        "tsconfig.base.json": tsconfig(),
        "apps/app/project.json": json.dumps({"name": "app", "implicitDependencies": ["b"], "targets": {"test": {"command": "echo"}}}),
    }
    for name, deps in PROJECTS.items():
        files[f"libs/{name}/project.json"] = json.dumps(
            {"name": name, "implicitDependencies": list(deps), "targets": {"test": {"command": "echo"}}})
        files[f"libs/{name}/src/index.ts"] = "export const x = 1;\n"
    write_tree(root, files)
    run_git(root, "init", "-q", "-b", "main")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", "init")
    return root


def edit(change: Callable[[dict], Any]) -> Callable[[str], str]:
    """A tsconfig edit on the parsed file (written back as strict, indented JSON)."""
    def apply(text: str) -> str:
        config = json.loads(text)
        change(config)
        return tsconfig(config)
    return apply


def paths(config: dict) -> dict:
    return config["compilerOptions"]["paths"]


def with_comment(text: str) -> str:
    return text.replace('"paths"', '// the libraries\n    "paths"', 1)


#: name -> (edit of tsconfig.base.json's text, (nx show projects --affected, ... -t test)), as Nx 24.0.6 answered
EXPECTED: dict[str, tuple[Callable[[str], str], tuple[set[str], set[str]]]] = {
    "entry-added": (edit(lambda c: paths(c).update({"@ws/e": ["libs/e/src/index.ts"]})), ({"e"}, set())),
    "entry-added-dot-slash": (edit(lambda c: paths(c).update({"@ws/e": ["./libs/e/src/index.ts"]})), ({"e"}, set())),
    "entry-added-wildcard": (edit(lambda c: paths(c).update({"@ws/e/*": ["libs/e/src/*"]})), ({"e"}, set())),
    "entry-added-project-root": (edit(lambda c: paths(c).update({"@ws/e": ["libs/e"]})), ({"e"}, set())),
    "entry-added-outside-projects": (edit(lambda c: paths(c).update({"@x/y": ["tools/y/index.ts"]})), (set(), set())),
    "entry-retargeted-same-project": (edit(lambda c: paths(c).update({"@ws/a": ["libs/a/src/main.ts"]})), ({"a", "b", "app"}, set())),
    "entry-retargeted-other-project": (edit(lambda c: paths(c).update({"@ws/a": ["libs/e/src/index.ts"]})),
                                       ({"a", "b", "app", "e"}, set())),
    "element-appended": (edit(lambda c: paths(c)["@ws/a"].append("libs/e/src/x.ts")), ({"e"}, set())),
    # anything removed from paths: every project
    "entry-removed": (edit(lambda c: paths(c).pop("@ws/c")), (ALL, set())),
    "element-removed": (edit(lambda c: paths(c).update({"@ws/c": []})), (ALL, set())),
    "key-renamed": (edit(lambda c: paths(c).update({"@ws/cc": paths(c).pop("@ws/c")})), (ALL, set())),
    "paths-removed": (edit(lambda c: c["compilerOptions"].pop("paths")), (ALL, set())),
    # any other change: every project, every test
    "other-compiler-option": (edit(lambda c: c["compilerOptions"].update(strict=True)), (ALL, ALL)),
    "base-url": (edit(lambda c: c["compilerOptions"].update(baseUrl="./")), (ALL, ALL)),
    "paths-and-another-option": (edit(lambda c: (c["compilerOptions"].update(strict=True),
                                                 paths(c).update({"@ws/e": ["libs/e/src/index.ts"]}))), (ALL, ALL)),
    "top-level-field": (edit(lambda c: c.update(exclude=["node_modules", "tmp"])), (ALL, ALL)),
    "whitespace": (lambda text: json.dumps(json.loads(text)), (set(), set())),
    # no strict JSON on a side: a whole-file change for projects, still none for tasks
    "comment-added": (with_comment, (ALL, set())),
}


def ctxsel_answers(root: Path, *selector: str) -> tuple[set[str], set[str]]:
    def ask(command: str) -> dict:
        proc = run_cli("--repo", str(root), "--adapter", "nx", "--source", "static", "--no-cache", "-q",
                       command, *selector, "--format", "json")
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)

    return {a["id"] for a in ask("blast-radius")["affected"]}, set(ask("tests")["tests"])


def commit_case(root: Path, case: str) -> str:
    """A commit on top of ``main`` holding the case's edit; the working tree stays at ``main``."""
    run_git(root, "checkout", "-q", "-b", case, "main")
    path = root / "tsconfig.base.json"
    path.write_text(EXPECTED[case][0](path.read_text()))
    run_git(root, "commit", "-qam", case)
    sha = run_git(root, "rev-parse", "HEAD").strip()
    run_git(root, "checkout", "-q", "main")
    return sha


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_a_root_tsconfig_change_narrows_as_nx_narrows_it(tmp_path: Path, case: str) -> None:
    root = workspace(tmp_path / "ws")
    head = commit_case(root, case)
    assert ctxsel_answers(root, "--base", "main", "--head", head) == EXPECTED[case][1]


def test_since_and_staged_compare_the_working_tree_and_the_index(tmp_path: Path) -> None:
    """``--since``/``--staged`` read the new side from the working tree / git's index (Nx: ``--base=HEAD``
    with the edit uncommitted answered ``({"e"}, set())``)."""
    root = workspace(tmp_path / "ws")
    path = root / "tsconfig.base.json"
    added = EXPECTED["entry-added"][0](path.read_text())
    path.write_text(added)
    assert ctxsel_answers(root, "--since", "HEAD") == ({"e"}, set())
    run_git(root, "add", "tsconfig.base.json")
    path.write_text(EXPECTED["other-compiler-option"][0](added))  # unstaged: not part of --staged
    assert ctxsel_answers(root, "--staged") == ({"e"}, set())
    assert ctxsel_answers(root, "--since", "HEAD") == (ALL, ALL)
    # ``--files`` has no old side to compare: a whole-file change, as ``nx --files`` counts it
    assert ctxsel_answers(root, "--files", "tsconfig.base.json") == (ALL, ALL)


@pytest.mark.oracle
def test_real_nx_gives_the_expected_answers(tmp_path: Path) -> None:
    root = workspace(tmp_path / "ws")
    nx = Nx(root, tmp_path / "nx-state")
    heads = {case: commit_case(root, case) for case in EXPECTED}
    for case, head in heads.items():
        assert nx.answers("--base=main", f"--head={head}") == EXPECTED[case][1], case
    assert nx.answers("--files=tsconfig.base.json") == (ALL, ALL)
    path = root / "tsconfig.base.json"
    path.write_text(EXPECTED["entry-added"][0](path.read_text()))
    assert nx.answers("--base=HEAD") == ({"e"}, set())
