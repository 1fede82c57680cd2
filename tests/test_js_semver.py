"""ctxsel's node-semver range check against node-semver itself (npm's own copy)."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from oracles import PREFIX

from ctxsel.adapters.js.semver import parse_range, satisfies

VERSIONS = [
    "0.0.0", "0.0.1", "0.0.2", "0.1.0", "0.1.5", "0.2.0", "1.0.0", "1.0.1", "1.1.0", "1.2.3", "1.2.4", "1.3.0",
    "1.9.9", "2.0.0", "2.0.0-0", "2.0.0-beta.1", "1.1.0-beta.1", "1.2.3-alpha", "1.2.3-alpha.2", "1.2.3-1",
    "3.4.5", "10.0.0",
]
RANGES = [
    "*", "", "x", "1", "1.x", "1.2", "1.2.x", "1.2.3", "=1.2.3", "v1.2.3", "^1.2.3", "^1.2", "^1", "^0.1.0", "^0.0.1",
    "^0.0", "^0", "~1.2.3", "~1.2", "~1", "~0.1.0", ">1.2", ">1", ">=1.2", "<1.2", "<=1.2", "<=1", ">1.2.3", "<2.0.0",
    ">=1.0.0 <2", "> 1.0.0 < 1.3.0", "1.2.3 - 2.0.0", "1.2 - 2", "1.0.0 - 1.2", "^1.0.0 || ^2.0.0", "~1.2.3 || >=3",
    "^1.2.3-alpha", ">=1.2.3-alpha.1 <1.2.4", "^2.0.0-0", "1.2.3-alpha", "<1.2.3-1", "~1.1.0-beta.0",
]


def node_semver() -> tuple[str, Path]:
    node = shutil.which("node")
    for candidate in (PREFIX / "node_modules" / "semver", Path("/usr/lib/node_modules/npm/node_modules/semver")):
        if node and (candidate / "package.json").is_file():
            return node, candidate
    pytest.skip("node and node-semver (npm's or the oracle install's) not found")


@pytest.mark.oracle
def test_satisfies_agrees_with_node_semver_on_every_pair() -> None:
    node, lib = node_semver()
    pairs = list(itertools.product(VERSIONS, RANGES))
    script = (
        f"const s = require({json.dumps(str(lib))});"
        "const pairs = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "console.log(JSON.stringify(pairs.map(([v, r]) => s.validRange(r) === null ? null : s.satisfies(v, r))));"
    )
    out = subprocess.run([node, "-e", script], input=json.dumps(pairs), capture_output=True, text=True, timeout=60, check=True)
    theirs = json.loads(out.stdout)
    wrong = [(v, r, ours, want) for (v, r), want in zip(pairs, theirs) if (ours := satisfies(v, r)) != want]
    assert not wrong, wrong[:10]


def test_not_a_range_is_none() -> None:
    assert parse_range("latest") is None
    assert satisfies("1.0.0", "workspace:*") is None
    assert satisfies("not-a-version", "^1") is None
