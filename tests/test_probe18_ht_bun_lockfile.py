"""turbo 2 narrows a change of a text ``bun.lock`` to the packages whose locked dependencies changed.

ctxsel raised ``LockfileUnreadable`` for bun.lock under turbo and marked every package. turbo 2.11.11
reads it (measured, ``turbo ls --filter=...[HEAD^]``): ``lockfileVersion`` is global; a package.json
range resolves to the entry at ``<workspace name>/<name>``, ``<name>`` or a nested key whose version
satisfies it (``^2.0.0`` against a locked 1.0.0 is no entry); closures follow all four dependency
fields except ``optionalPeers``, a nested ``<entry>/<dep>`` key first, and compare idents, so a
dropped entry changes its dependents and a file bun.lock's JSONC parser rejects changes everything.

Fixture: ``w0 -> e0 -> e1``, ``w1 -> e2``, ``w2 -> w0`` (workspace).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from jsfixtures import selected_tests, turbo_filter
from oracles import require

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
ALL = {"p/w0", "p/w1", "p/w2"}
#: variant -> (base lockfile arguments, changed lockfile arguments, dirs turbo 2.11.11 marks) (measured)
CASES = {
    "transitive-version": ({}, {"e1": "1.0.1"}, {"p/w0", "p/w2"}),
    "range-not-satisfied": ({"spec": "^2.0.0"}, {"spec": "^2.0.0", "e1": "1.0.1"}, set()),
    "peer-dependency": ({"kind": "peerDependencies"}, {"kind": "peerDependencies", "e1": "1.0.1"}, {"p/w0", "p/w2"}),
    "dev-dependency": ({"kind": "devDependencies"}, {"kind": "devDependencies", "e1": "1.0.1"}, {"p/w0", "p/w2"}),
    "dropped-entry": ({}, {"drop_e1": True}, {"p/w0", "p/w2"}),
    "optional-peer-dropped": ({"optpeer": True}, {"optpeer": True, "drop_e1": True}, set()),
    "lockfile-version": ({}, {"lv": 0}, ALL),
    "nested-entry": ({}, {"extra": {"e0/e1": ["e1@1.0.5", "", {}, "sha512-z"]}}, {"p/w0", "p/w2"}),
    "nested-entry-outside-the-range": ({}, {"extra": {"e0/e1": ["e1@2.0.0", "", {}, "sha512-z"]}}, {"p/w0", "p/w2"}),
    "workspace-scoped-entry": ({}, {"extra": {"w1/e2": ["e2@1.0.7", "", {}, "sha512-y"]}}, {"p/w1"}),
    "checksum-only": ({}, {"sha": "sha512-other"}, set()),
    "trailing-commas": ({}, {"trailing": True}, set()),
    "not-jsonc": ({}, {"broken": True}, ALL),
}


def lock(e1: str = "1.0.0", kind: str = "dependencies", drop_e1: bool = False, lv: int = 1, extra: dict | None = None,
         optpeer: bool = False, spec: str = "^1.0.0", sha: str = "sha512-b", trailing: bool = False, broken: bool = False) -> str:
    info: dict = {kind: {"e1": "^1.0.0"}, **({"optionalPeers": ["e1"]} if optpeer else {})}
    packages = {"w0": ["w0@workspace:p/w0"], "w1": ["w1@workspace:p/w1"], "w2": ["w2@workspace:p/w2"],
                "e0": ["e0@1.0.0", "", info, "sha512-a"], "e2": ["e2@1.0.0", "", {}, "sha512-c"],
                **({} if drop_e1 else {"e1": [f"e1@{e1}", "", {}, sha]}), **(extra or {})}
    text = json.dumps({"lockfileVersion": lv, "workspaces": {
        "": {"name": "root"},
        "p/w0": {"name": "w0", "version": "1.0.0", "dependencies": {"e0": spec}},
        "p/w1": {"name": "w1", "version": "1.0.0", "dependencies": {"e2": "^1.0.0"}},
        "p/w2": {"name": "w2", "version": "1.0.0", "dependencies": {"w0": "workspace:*"}}},
        "packages": dict(sorted(packages.items()))}, indent=2)
    if trailing:  # as bun writes it: a comma after every last element
        import re

        text = re.sub(r'(?<=[\]}"\d])\n(\s*[\]}])', r",\n\1", text)
    return text + ("\n}" if broken else "\n")


def workspace(root: Path, variant: str) -> Path:
    base, changed, _ = CASES[variant]
    spec = base.get("spec", "^1.0.0")
    files = {
        "package.json": {"name": "root", "private": True, "packageManager": "bun@1.2.0", "workspaces": ["p/*"]},
        "turbo.json": {"tasks": {"test": {}}},
        "p/w0/package.json": {"name": "w0", "version": "1.0.0", "dependencies": {"e0": spec}},
        "p/w1/package.json": {"name": "w1", "version": "1.0.0", "dependencies": {"e2": "^1.0.0"}},
        "p/w2/package.json": {"name": "w2", "version": "1.0.0", "dependencies": {"w0": "workspace:*"}},
    }
    for rel, data in files.items():
        if rel.startswith("p/"):
            data["scripts"] = {"test": "echo"}
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(json.dumps(data, indent=2))
    (root / ".gitignore").write_text(".turbo/\n.ctxsel/\nnode_modules/\n")
    (root / "bun.lock").write_text(lock(**base))
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-qm", "init"], cwd=root, check=True)
    (root / "bun.lock").write_text(lock(**changed))
    subprocess.run([*GIT, "commit", "-qam", "lockfile"], cwd=root, check=True)
    return root


def selected(cli, root: Path) -> set[str]:
    return {f"p/{t}" for t in selected_tests(root, "turbo", "--since", "HEAD^")}


@pytest.mark.parametrize("variant", sorted(CASES))
def test_a_bun_lockfile_change_is_narrowed_as_turbo_narrows_it(tmp_path: Path, cli, variant: str) -> None:
    """Old: every package for every variant."""
    assert selected(cli, workspace(tmp_path / "ws", variant)) == CASES[variant][2]


@pytest.mark.oracle
@pytest.mark.parametrize("variant", sorted(CASES))
def test_turbo_narrows_the_bun_lockfile_change_so(tmp_path: Path, cli, variant: str) -> None:
    require("turbo")
    root = workspace(tmp_path / "ws", variant)
    assert turbo_filter(root, "...[HEAD^]") == CASES[variant][2] == selected(cli, root)
