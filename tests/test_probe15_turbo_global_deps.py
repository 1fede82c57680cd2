"""Turborepo 2 refuses some ``globalDependencies`` (turbo 2.11.11, measured; found by randomized
differential testing): every command stops, ``turbo ls`` too, for a value that is no list of
strings, an entry starting with ``$`` ("cannot contain an environment variable" --
``$TURBO_ROOT$/config/*.json`` too), one starting with ``/`` ("absolute path found"), and one
turbo's glob parser refuses ("failed to construct glob for globalDependencies": ``C:/x``).
ctxsel answered as if the file were fine -- with no global file at all for those entries --
so a change of ``config/a.json`` selected nothing. Now: exit 2 naming turbo.json and the line.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsfixtures import TURBO_ENV
from oracles import require, run

pytestmark = pytest.mark.oracle

#: globalDependencies -> does turbo refuse it (measured)
CASES: dict[str, tuple[object, bool]] = {
    "turbo-root-variable": (["$TURBO_ROOT$/config/*.json"], True),
    "variable": (["$"], True),
    "absolute": (["/config/a.json"], True),
    "a-string": ("config/a.json", True),
    "a-number": ([1], True),
    "drive-letter": (["C:/x"], True),
    "comma": (["config/a,b"], True),
    "empty-alternative": (["config/{a,}.json"], True),
    "empty-segment": (["config//a.json"], True),
    # taken
    "negated-variable": (["config/*.json", "!$X"], False),
    "negated-absolute": (["config/*.json", "!/config/b.json"], False),
    "dollar-inside": (["a$b"], False),
    "parent": (["../config/a.json"], False),
    "braces": (["config/{a,b}.json"], False),
}


def workspace(root: Path, deps: object) -> Path:
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps(
        {"name": "root", "private": True, "packageManager": "npm@10.0.0", "workspaces": ["p/*"]}))
    (root / "turbo.json").write_text('{\n  "tasks": {"test": {}},\n  "globalDependencies": ' + json.dumps(deps) + "\n}\n")
    (root / "p/a").mkdir(parents=True)
    (root / "p/a/package.json").write_text(json.dumps({"name": "a", "version": "1.0.0", "scripts": {"test": "echo"}}))
    return root


@pytest.mark.parametrize("case", sorted(CASES))
def test_ctxsel_refuses_what_turbo_refuses(tmp_path: Path, cli, case: str) -> None:
    deps, refused = CASES[case]
    root = workspace(tmp_path / "ws", deps)
    proc = cli("--repo", str(root), "--adapter", "turbo", "--source", "static", "blast-radius", "a")
    if refused:
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert "turbo.json:3:" in proc.stderr and "globalDependencies" in proc.stderr and "Traceback" not in proc.stderr
        assert len(proc.stderr.strip().splitlines()) <= 3
    else:
        assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("case", sorted(CASES))
def test_turbo_refuses_exactly_those(tmp_path: Path, case: str) -> None:
    require("turbo")
    deps, refused = CASES[case]
    root = workspace(tmp_path / "ws", deps)
    proc = run(["turbo", "ls"], root, env=TURBO_ENV, check=False)
    assert (proc.returncode != 0) == refused, proc.stderr[-800:]
