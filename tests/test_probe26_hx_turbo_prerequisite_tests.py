"""bench/js_agreement.py --tests against turbo 2 where ``test`` depends on ``^test``.

Measured on 0xIntuition/intuition-ts (turbo 2.11.11): ``turbo run test --filter=...{X}`` also runs,
through ``"dependsOn": ["^test"]``, the tests of packages the filtered ones depend on -- even
through a filtered package that has no test script. Those are prerequisites, not packages the
change affects; ctxsel leaves them out of its selection and names, in a warning, the ones its own
command runs. The bench used to count every such package as a disagreement (intuition-ts 1/5);
it now compares the filtered packages' tests and checks ctxsel's own command with ``--dry=json``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from oracles import oracle_env, require


def write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")


def package(root: Path, name: str, test: bool, deps: list[str]) -> None:
    scripts = {"build": "echo build", **({"test": "echo test"} if test else {})}
    write(root / "packages" / name / "package.json",
          {"name": name, "version": "1.0.0", "scripts": scripts, "dependencies": {d: "workspace:*" for d in deps}})


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """base <- lib <- app -> util; app has no test script, the others have one."""
    write(tmp_path / "package.json", {"name": "root", "private": True, "packageManager": "pnpm@12.4.2"})
    (tmp_path / "pnpm-workspace.yaml").write_text("packages:\n  - 'packages/*'\n")
    write(tmp_path / "turbo.json", {"tasks": {"build": {"dependsOn": ["^build"]},
                                              "test": {"dependsOn": ["^build", "^test"]}}})
    package(tmp_path, "base", True, [])
    package(tmp_path, "lib", True, ["base"])
    package(tmp_path, "util", True, [])
    package(tmp_path, "app", False, ["lib", "util"])
    return tmp_path


def test_prerequisite_tests_are_not_disagreements(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require("turbo")
    monkeypatch.setenv("PATH", oracle_env()["PATH"])
    from bench.js_agreement import agreement, turbo_test_dirs

    # what the bench used to compare: turbo runs util's test for a change to lib (via app's ^test)
    assert turbo_test_dirs(workspace, "...{packages/lib}") == {"packages/lib", "packages/base", "packages/util"}
    agree, total, problems = agreement(workspace, "turbo", tests=True)
    assert (agree, total) == (total, 4), problems
