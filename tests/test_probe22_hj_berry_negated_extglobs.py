"""yarn 2+ workspace ``!negations`` that use extglobs, read as yarn 4's fast-glob/picomatch reads them.

ctxsel read the positive globs with micromatch's extglobs (session 21) but the negations with
plain fast-glob segments, so ``!p/@(a|b)``, ``!p/!(a)``, ``!p/c/@(d)`` and every other negation
holding an extglob dropped nothing: a 132-glob matrix (10 positives x 12 negations, plus
negations written first) agreed with yarn 4.18.1's ``workspaces list`` on 41. Two picomatch
readings came with it (measured, yarn 4.18.1):

- a segment opening with ``!(...)`` matches dot-names too: ``p/!(a)`` lists ``p/.h``;
- a negation whose last segment may match nothing (``!p/c/!(d)``, ``!p/c/*(x)``) also drops
  ``p/c`` itself (fast-glob tests a directory as ``p/c/`` too); a last ``*`` matches one
  character at least, so ``!p/!(a)/*`` drops ``p/c/d`` and not ``p/b``.

The same matrix grown to 233 globs now agrees on all 233 with yarn 4.18.1 (and yarn 3.8.7,
which reads a negation only against the patterns before it). ``CASES`` holds the answers
yarn 4.18.1 gave; the oracle test asks it again.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsfixtures import open_ws
from oracles import require, yarn_graph

DIRS = ("p/a", "p/b", "p/ab", "p/c", "p/c/d", "p/c/e", "p/x.y", "p/.h", "q/a")

#: workspaces globs -> the workspaces yarn 4.18.1 lists besides the root (measured)
CASES: dict[tuple[str, ...], set[str]] = {
    ("p/*", "!p/@(a|b)"): {"p/x.y", "p/ab", "p/c"},
    ("!p/@(a|b)", "p/*"): {"p/x.y", "p/ab", "p/c"},
    ("p/**", "!p/!(a)"): {"p/a", "p/c/d", "p/c/e"},
    ("p/*", "!p/+(a|b)"): {"p/x.y", "p/c"},
    ("p/*", "!p/*(b)"): {"p/x.y", "p/a", "p/ab", "p/c"},
    ("p/*", "!p/?(a|c)"): {"p/x.y", "p/b", "p/ab"},
    ("**", "!**/@(a)"): {"p/b", "p/c/d", "p/ab", "p/x.y", "p/c/e", "p/c"},
    ("p/**", "!p/c/@(d)"): {"p/b", "p/a", "p/ab", "p/x.y", "p/c/e", "p/c"},
    ("p/**", "!p/@(c)/**"): {"p/x.y", "p/b", "p/a", "p/ab"},
    ("p/**", "!p/c/!(d)"): {"p/b", "p/c/d", "p/a", "p/ab", "p/x.y"},
    ("p/**", "!p/c/*(x)"): {"p/b", "p/c/d", "p/a", "p/ab", "p/x.y", "p/c/e"},
    ("p/**", "!p/c/?(x)"): {"p/b", "p/c/d", "p/a", "p/ab", "p/x.y", "p/c/e"},
    ("p/!(a)",): {"p/b", "p/.h", "p/ab", "p/x.y", "p/c"},
    ("p/*", "!p/!(a)/*"): {"p/b", "p/a", "p/ab", "p/x.y", "p/c"},
    ("p/**", "!p/!(a)/*"): {"p/b", "p/a", "p/ab", "p/x.y", "p/c"},
    ("p/**", "!p/*"): {"p/c/d", "p/c/e"},
    ("p/c/*", "!p/@(c)"): {"p/c/d", "p/c/e"},
}
IDS = [json.dumps(globs) for globs in CASES]


def workspace(root: Path, globs: tuple[str, ...]) -> Path:
    for i, rel in enumerate(DIRS):
        (root / rel).mkdir(parents=True, exist_ok=True)
        (root / rel / "package.json").write_text(json.dumps({"name": f"n{i}", "version": "1.0.0"}))
    (root / "package.json").write_text(json.dumps({"name": "root", "private": True, "workspaces": list(globs),
                                                   "packageManager": "yarn@4.18.1"}))
    (root / "yarn.lock").write_text("")
    (root / ".yarnrc.yml").write_text("nodeLinker: node-modules\n")
    return root


@pytest.mark.parametrize("globs", list(CASES), ids=IDS)
def test_berry_negations_with_extglobs(tmp_path: Path, globs: tuple[str, ...]) -> None:
    ws = open_ws(workspace(tmp_path / "ws", globs), "yarn")
    assert {n.package for n in ws.graph.nodes() if n.kind == "package"} == CASES[globs]


@pytest.mark.oracle
@pytest.mark.parametrize("globs", list(CASES), ids=IDS)
def test_yarn4_lists_exactly_these(tmp_path: Path, globs: tuple[str, ...]) -> None:
    require("node")
    assert set(yarn_graph(True, workspace(tmp_path / "ws", globs))) - {""} == CASES[globs]
