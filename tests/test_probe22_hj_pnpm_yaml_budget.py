"""pnpm 12 refuses a pnpm-workspace.yaml that breaches its YAML reader's budget; ctxsel now too.

pnpm 12.4.2 parses pnpm-workspace.yaml with limits (serde-saphyr's ``Budget``) and stops with
"budget breached" (measured, ``pnpm ls -r --json``): more than 64 nested collections counting
the root mapping (``Depth { depth: 65 }``; an alias counts its anchor's depth where it stands),
more than 250,000 nodes counting keys, values and collections with every alias replaying its
anchor (``Nodes { nodes: 250001 }``: a billion-laughs file stops there), and at the end of the
document at least 100 aliases with more than 10 per anchor (``AliasAnchorRatio``).

ctxsel read all of these: PyYAML shares an alias's node, so a bomb cost nothing, but the
answer was a graph where pnpm answers nothing; and a file nested a few thousand levels deep
was an internal error (RecursionError) under every adapter. Now pnpm's limits are checked on
the parser's events before anything is built (exit 2 naming ``pnpm-workspace.yaml:LINE``),
and a file too deep for PyYAML is exit 2 naming the file (turbo 2.11.11 still reads a
2,000-deep one: documented in the report as not followed).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsfixtures import PNPM_ENV, open_ws, write_pkg
from oracles import require, run

from ctxsel.errors import ParseError


def nest(depth: int, inner: str = "1") -> str:
    return "[" * depth + inner + "]" * depth


def refs(n: int, m: int, k: int) -> str:
    """k anchored lists of n scalars, and one list of m aliases to them."""
    lines = [f"x{j}: &x{j} [" + ",".join(["1"] * n) + "]" for j in range(k)]
    return "\n".join([*lines, "y: [" + ",".join(f"*x{i % k}" for i in range(m)) + "]"])


LAUGHS = "\n".join(["a0: &a0 [x,x,x,x,x,x,x,x,x,x]"]
                   + [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 10)])

#: name -> (YAML before ``packages: ['p/*']``, the line pnpm 12.4.2 breaches its budget on or None)
CASES: dict[str, tuple[str, int | None]] = {
    "depth-64": ("x: " + nest(63, ""), None),
    "depth-65": ("x: " + nest(64, ""), 1),
    "block-depth-64": ("x:\n" + "".join("  " * (i + 1) + "a:\n" for i in range(62)) + "  " * 63 + "b: 1", None),
    "block-depth-65": ("x:\n" + "".join("  " * (i + 1) + "a:\n" for i in range(63)) + "  " * 64 + "b: 1", 65),
    "alias-depth-63": ("x: &x " + nest(40) + "\ny: " + nest(22, "*x"), None),
    "alias-depth-65": ("x: &x " + nest(40) + "\ny: " + nest(24, "*x"), 2),
    "nodes-249907": (refs(2498, 99, 1), None),
    "nodes-250007": (refs(2499, 99, 1), 2),
    "aliases-99-for-1": (refs(10, 99, 1), None),
    "aliases-100-for-1": (refs(10, 100, 1), 4),
    "aliases-100-for-10": (refs(10, 100, 10), None),
    "aliases-101-for-10": (refs(10, 101, 10), 13),
    "billion-laughs": (LAUGHS, 6),
    "catalog-alias": ("catalog:\n  react: &r ^18.0.0\n  react-dom: *r", None),
    "merge-key": ("x: &base {a: 1}\nz:\n  <<: *base\n  b: 2", None),
}


def workspace(root: Path, case: str) -> Path:
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "root", "private": True}))
    (root / "pnpm-workspace.yaml").write_text(CASES[case][0] + "\npackages: ['p/*']\n")
    write_pkg(root, "p/a", "a")
    write_pkg(root, "p/b", "b", dependencies={"a": "workspace:*"})
    return root


@pytest.mark.parametrize("case", sorted(CASES))
def test_pnpm_budget(tmp_path: Path, case: str) -> None:
    root = workspace(tmp_path / "ws", case)
    line = CASES[case][1]
    if line is None:
        ws = open_ws(root, "pnpm")
        assert {ws.graph.node(i).package for i in ws.blast_radius(["a"]).ids} == {"p/a", "p/b"}
        return
    with pytest.raises(ParseError) as err:
        open_ws(root, "pnpm")
    assert err.value.location is not None and err.value.location.path == "pnpm-workspace.yaml"
    assert err.value.location.line == line and "budget breached" in err.value.message


def test_too_deep_for_pyyaml_is_a_user_error(tmp_path: Path, cli) -> None:
    """Nested 3,000 deep: under turbo (no budget) PyYAML's composer recursed into an internal error."""
    root = workspace(tmp_path / "ws", "depth-64")
    (root / "pnpm-workspace.yaml").write_text("x: " + nest(3000, "") + "\npackages: ['p/*']\n")
    (root / "turbo.json").write_text('{"tasks": {}}')
    manifest = json.loads((root / "package.json").read_text())
    (root / "package.json").write_text(json.dumps({**manifest, "packageManager": "pnpm@9.0.0"}))
    for adapter in ("pnpm", "turbo"):
        proc = cli("--repo", str(root), "--adapter", adapter, "--source", "static", "--no-cache", "blast-radius", "a")
        assert proc.returncode == 2 and "pnpm-workspace.yaml" in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr


@pytest.mark.oracle
@pytest.mark.parametrize("case", sorted(CASES))
def test_pnpm_refuses_the_same(tmp_path: Path, case: str) -> None:
    require("pnpm")
    root = workspace(tmp_path / "ws", case)
    proc = run(["pnpm", "ls", "-r", "--json", "--depth", "-1"], root, env=PNPM_ENV, check=False)
    refused = proc.returncode != 0 and "budget breached" in proc.stderr
    assert refused is (CASES[case][1] is not None), proc.stderr[-800:]
    if refused:
        assert f"line {CASES[case][1]} column" in " ".join(proc.stderr.split()), proc.stderr[-800:]
