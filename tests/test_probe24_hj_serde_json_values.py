r"""JSON that pnpm and turbo cannot read: a number beyond a 64-bit float, or half a surrogate pair.

Measured with pnpm 12.4.2 and turbo 2.11.11: a package.json holding ``1e999``, ``[-1e309]``,
an integer of 400 digits, or a ``\udc00`` / ``\ud800`` escape with no partner (in a value or a
key, in a field neither tool uses) stops every command of both ("number out of range", "lone
leading surrogate in hex escape" / "expected valid JSON"). ``1e-999``, ``18446744073709551616``
and a whole pair ``\ud83d\ude00`` are read. ctxsel (Python's json) read them all and answered;
it now refuses them for pnpm and turbo, naming the file and line (exit 2); turbo.json too, which
turbo refuses the same way ("lone leading surrogate in hex escape"). npm reads package.json
with ``JSON.parse``, which takes them: ctxsel's npm adapter still answers.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsfixtures import PNPM_ENV, TURBO_ENV, open_ws, write_pkg
from oracles import require, run

from ctxsel.errors import ParseError

REFUSED = {
    "float": '"x": 1e999',
    "negative-in-list": '"x": [-1e309]',
    "integer": '"x": 1' + "0" * 400,
    "low-surrogate": '"x": "\\udc00"',
    "high-surrogate-key": '"\\ud800": 1',
}
READ = {"tiny": '"x": 1e-999', "u64-plus-one": '"x": 18446744073709551616', "pair": '"x": "\\ud83d\\ude00"'}


def workspace(root: Path, field: str) -> Path:
    """p/b depends on p/a and has ``field`` on its second line; pnpm, turbo and npm all list p/*."""
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "root", "private": True, "packageManager": "pnpm@12.4.2",
                                                   "workspaces": ["p/*"]}))
    (root / "pnpm-workspace.yaml").write_text("packages: ['p/*']\n")
    (root / "turbo.json").write_text('{"tasks": {}}')
    write_pkg(root, "p/a", "a")
    (root / "p" / "b").mkdir(parents=True)
    (root / "p" / "b" / "package.json").write_text('{"name": "b",\n ' + field + ',\n "dependencies": {"a": "workspace:*"}}\n')
    return root


@pytest.mark.parametrize("adapter", ["pnpm", "turbo"])
@pytest.mark.parametrize("case", sorted(REFUSED))
def test_refused_with_file_and_line(tmp_path: Path, adapter: str, case: str) -> None:
    with pytest.raises(ParseError) as err:
        open_ws(workspace(tmp_path / "ws", REFUSED[case]), adapter)
    assert err.value.location is not None and (err.value.location.path, err.value.location.line) == ("p/b/package.json", 2)


@pytest.mark.parametrize("case", sorted(READ))
def test_read(tmp_path: Path, case: str) -> None:
    root = workspace(tmp_path / "ws", READ[case])
    for adapter in ("pnpm", "turbo"):
        assert {n.package for n in open_ws(root, adapter).graph.nodes()} >= {"p/a", "p/b"}


def test_npm_reads_them(tmp_path: Path) -> None:
    root = workspace(tmp_path / "ws", REFUSED["low-surrogate"])
    (root / "pnpm-workspace.yaml").unlink()
    ws = open_ws(root, "npm")
    assert {n.package for n in ws.graph.nodes()} >= {"p/a", "p/b"}


@pytest.mark.oracle
def test_the_tools_agree(tmp_path: Path) -> None:
    require("pnpm")
    require("turbo")
    for i, (case, field) in enumerate(sorted({**REFUSED, **READ}.items())):
        root = workspace(tmp_path / f"w{i}", field)
        refused = case in REFUSED
        pnpm = run(["pnpm", "ls", "-r", "--depth", "-1", "--json"], root, env=PNPM_ENV, check=False)
        turbo = run(["turbo", "ls", "--output=json"], root, env=TURBO_ENV, check=False)
        assert (pnpm.returncode != 0, turbo.returncode != 0) == (refused, refused), case


TURBO_JSON_REFUSED = {"env": '{"tasks": {"test": {"env": ["\\udc00"]}}}', "task-name": '{"tasks": {"te\\ud800st": {}}}'}


def turbo_json_workspace(root: Path, text: str) -> Path:
    root = workspace(root, '"x": 1')
    (root / "turbo.json").write_text(text)
    return root


@pytest.mark.parametrize("case", sorted(TURBO_JSON_REFUSED))
def test_turbo_json_refused(tmp_path: Path, case: str) -> None:
    with pytest.raises(ParseError) as err:
        open_ws(turbo_json_workspace(tmp_path / "ws", TURBO_JSON_REFUSED[case]), "turbo")
    assert err.value.location is not None and (err.value.location.path, err.value.location.line) == ("turbo.json", 1)


@pytest.mark.oracle
def test_turbo_refuses_turbo_json(tmp_path: Path) -> None:
    require("turbo")
    for case, text in sorted(TURBO_JSON_REFUSED.items()):
        proc = run(["turbo", "ls", "--output=json"], turbo_json_workspace(tmp_path / case, text), env=TURBO_ENV, check=False)
        assert proc.returncode != 0 and "hex escape" in proc.stderr + proc.stdout, case
