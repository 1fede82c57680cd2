"""pnpm 12: the ``pnpm --filter ... test`` command ctxsel prints for hostile package names
and directories runs exactly the selected project.

``--filter`` is a small language: ``a*`` is a name glob, ``!x`` an exclusion, ``x...`` and
``...x`` pull in dependencies or dependents, ``[x]`` is a git ref, ``-x`` an option; and
directory selectors glob (``./p/a*`` runs ``p/ab`` too). Every such name and directory is
a legal npm/pnpm project here, and each one's test command is run with the real pnpm.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from jsfixtures import PNPM_ENV, open_ws, write_pkg
from oracles import require, run

pytestmark = pytest.mark.oracle

MARK = "RAN-TEST:"
#: names that are filter syntax, each next to a package its syntax would also select
SYNTAX_NAMES = ["a*", "ab", "!x", "x", "y...", "y", "...z", "z", "w^...", "w", "[r]", "r", "-v", "{q}", "q"]
#: directories that are glob or operator syntax, next to the directories they would also match
SYNTAX_DIRS = ["p/a*", "p/ab", "p/[x]", "p/x", "p/q...", "p/q", "p/z^...", "p/z", "p/{a,b}", "p/a", "p/b", "p/?", "p/k"]


def marked_workspace(root: Path, packages: dict[str, str]) -> Path:
    """``{dir: name}`` packages whose test script prints ``RAN-TEST:<dir>``."""
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "root", "private": True}))
    (root / "pnpm-workspace.yaml").write_text("packages: ['p/*']\n")
    for rel, name in packages.items():
        write_pkg(root, rel, name, scripts={"test": f"echo {MARK}{rel}"})
    return root


def ran_by(root: Path, argv: list[str]) -> set[str]:
    assert argv[0] == "pnpm", argv
    return set(re.findall(MARK + r"(\S+)", run(argv, root, env=PNPM_ENV, check=False).stdout))


def test_a_name_that_is_filter_syntax_is_selected_by_directory(tmp_path: Path) -> None:
    """``pnpm --filter 'a*' test`` ran ``ab`` too, ``--filter '!x'`` every other project,
    ``--filter 'y...'`` only ``y`` and ``--filter -v`` was a usage error (pnpm 12.4.2)."""
    root = marked_workspace(tmp_path / "ws", {f"p/n{i}": name for i, name in enumerate(SYNTAX_NAMES)})
    ws = open_ws(root, "pnpm")
    for i, name in enumerate(SYNTAX_NAMES):
        sel = ws.tests([name])
        assert {ws.graph.node(t).package for t in sel.tests} == {f"p/n{i}"}, name
        if name.isalpha():
            assert sel.argv == ["pnpm", "--filter", name, "test"]  # a plain name stays the id
        else:
            assert sel.argv == ["pnpm", "--filter", f"./p/n{i}", "test"], name
    require("pnpm")
    for i, name in enumerate(SYNTAX_NAMES):
        assert ran_by(root, ws.tests([name]).argv) == {f"p/n{i}"}, name


def test_a_directory_that_is_glob_syntax_is_escaped(tmp_path: Path) -> None:
    """All these projects share one name, so each is selected by directory: ``./p/a*``
    ran ``p/a``, ``p/ab`` and ``p/a*``; ``./p/[x]`` ran ``p/x`` too; ``./p/q...`` ran ``p/q``."""
    root = marked_workspace(tmp_path / "ws", {d: "same" for d in SYNTAX_DIRS})
    ws = open_ws(root, "pnpm")
    for d in SYNTAX_DIRS:
        sel = ws.tests([f"./{d}"])
        assert {ws.graph.node(t).package for t in sel.tests} == {d}
    require("pnpm")
    for d in SYNTAX_DIRS:
        assert ran_by(root, ws.tests([f"./{d}"]).argv) == {d}, d


def test_tool_mode_names_a_broken_manifest_with_its_line(tmp_path: Path) -> None:
    """With pnpm installed (``--source auto`` = tool), a package.json syntax error was
    reported as "pnpm ls failed (exit 1) ... line 3 column 17" with a cut-off absolute path;
    now it is the same exit-2 ``p/b/package.json:3`` message static mode gives."""
    import subprocess
    import sys

    from oracles import oracle_env

    require("pnpm")
    root = marked_workspace(tmp_path / "ws", {"p/a": "a"})
    (root / "p/b").mkdir()
    (root / "p/b/package.json").write_text('{\n  "name": "b",\n  "version": 1.0.0\n}\n')
    proc = subprocess.run([sys.executable, "-m", "ctxsel", "--repo", str(root), "--adapter", "pnpm", "--source", "tool",
                           "blast-radius", "a"], capture_output=True, text=True, timeout=120, env=oracle_env())
    assert proc.returncode == 2, proc.stderr
    assert "p/b/package.json:3" in proc.stderr and "Traceback" not in proc.stderr
