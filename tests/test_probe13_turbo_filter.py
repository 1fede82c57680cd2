"""Turborepo 2: the ``turbo run test --filter=...`` command ctxsel prints for hostile package
names and directories runs exactly the selected packages (``--dry=json``: nothing executes).

turbo's ``--filter`` is pnpm's language with its own rules (turbo 2.11.11, measured): ``a*``
is a name pattern, ``!x`` an exclusion, ``x...``/``...x``/``x^...`` pull in dependencies or
dependents, a trailing ``{d}``/``[ref]`` is a directory or a git range; and a directory
selector is a glob whose syntax characters a backslash escapes (pnpm's ``[c]`` brackets fail
to parse there). Every such name and directory is a legal package here; each test command
ctxsel prints is handed to the real turbo.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsfixtures import TURBO_ENV, open_ws
from oracles import require, run
from test_probe12_js_turbo import turbo_ran

pytestmark = pytest.mark.oracle

#: names that are filter syntax, each next to a package its syntax would also select;
#: ``-v`` and ``a]`` are read literally by turbo and stay ids
SYNTAX_NAMES = ["a*", "ab", "!x", "x", "y...", "y", "...z", "z", "w^...", "w", "[r]", "r", "{q}", "q",
                "c{d}", "c", "e[f]", "e", "./g", "g", "-v", "a]"]
#: directories that are glob syntax (pnpm's and turbo's own: ``$ < > ( ) , :``), next to the
#: directories they would also match; each package is named by its directory
SYNTAX_DIRS = ["p/a*", "p/ab", "p/a", "p/[x]", "p/x", "p/q...", "p/q", "p/z^...", "p/z", "p/{a,b}", "p/b", "p/?", "p/k",
               "p/a$", "p/a<b>", "p/(c)", "p/c", "p/a,b", "p/a:b", "p/]", "p/}", "p/!m", "p/m", "p/-v", "p/s p",
               "p/...t", "p/t", "p/**"]


def workspace(root: Path, packages: dict[str, str]) -> Path:
    """``{dir: name}`` packages, each with a ``test`` script and turbo's ``test`` task (pnpm layout)."""
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "root", "version": "0.0.0", "packageManager": "pnpm@12.4.2"}))
    (root / "pnpm-workspace.yaml").write_text("packages: ['p/*']\n")
    (root / "turbo.json").write_text(json.dumps({"tasks": {"test": {}}}))
    for rel, name in packages.items():
        (root / rel).mkdir(parents=True)
        (root / rel / "package.json").write_text(
            json.dumps({"name": name, "version": "1.0.0", "scripts": {"test": "echo " + name}}))
    return root


def test_a_name_that_is_filter_syntax_is_selected_by_directory(tmp_path: Path) -> None:
    """``--filter=a*`` ran ``ab`` too, ``--filter=!x`` every other package, ``--filter=y...``
    only ``y``, ``--filter=c{d}`` failed (no directory ``d``): ctxsel printed the name."""
    root = workspace(tmp_path / "ws", {f"p/n{i}": name for i, name in enumerate(SYNTAX_NAMES)})
    ws = open_ws(root, "turbo")
    for i, name in enumerate(SYNTAX_NAMES):
        sel = ws.tests([name])
        assert {ws.graph.node(t).package for t in sel.tests} == {f"p/n{i}"}, name
        if name.isalpha() or name in ("-v", "a]"):
            assert sel.argv == ["turbo", "run", "test", f"--filter={name}"]  # turbo reads it literally
    require("turbo")
    for i, name in enumerate(SYNTAX_NAMES):
        assert turbo_ran(root, ws.tests([name]).argv) == {f"p/n{i}"}, name


def test_a_directory_that_is_glob_syntax_is_escaped(tmp_path: Path) -> None:
    """Every package has a syntax name, so each is selected by directory: ``./p/a*`` ran
    ``p/a`` and ``p/ab`` too, ``./p/q...`` ran ``p/q``, ``./p/a,b`` failed to parse."""
    root = workspace(tmp_path / "ws", {d: f"!{i}" for i, d in enumerate(SYNTAX_DIRS)})
    ws = open_ws(root, "turbo")
    argvs = {}
    for d in SYNTAX_DIRS:
        sel = ws.tests([f"./{d}"])
        assert {ws.graph.node(t).package for t in sel.tests} == {d}
        argvs[d] = sel.argv
    require("turbo")
    for d in SYNTAX_DIRS:
        assert turbo_ran(root, argvs[d]) == {d}, (d, argvs[d])
    assert turbo_ran(root, ws.tests([f"./{d}" for d in SYNTAX_DIRS]).argv) == set(SYNTAX_DIRS)


def test_a_package_no_filter_selects_alone_is_left_out_with_a_warning(tmp_path: Path, cli) -> None:
    """A syntax name in a directory with a backslash: turbo refuses ``\\\\`` and ``[\\\\]`` in a
    directory filter and ``?`` runs ``p/bxs`` too, so the package is warned about and left out
    of the command (ctxsel printed ``--filter=*b``, which also ran ``b``)."""
    root = workspace(tmp_path / "ws", {"p/b\\s": "*b", "p/bxs": "b", "p/c": "c"})
    proc = cli("--repo", str(root), "--adapter", "turbo", "--source", "static", "tests", "./p/b\\s", "c", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert "no turbo --filter selects package '*b' (p/b\\s) alone" in proc.stderr
    assert out["command"] == "turbo run test --filter=c", out
    ws = open_ws(root, "turbo")
    assert ws.tests(["./p/b\\s"]).argv == []  # not a bare ``turbo run test``, which runs every package
    require("turbo")
    assert turbo_ran(root, ["turbo", "run", "test", "--filter=./p/b?s"]) == {"p/b\\s", "p/bxs"}
    proc = run(["turbo", "run", "test", "--filter=./p/b\\\\s", "--dry=json"], root, env=TURBO_ENV, check=False)
    assert proc.returncode != 0 and "failed to parse glob" in proc.stderr


def test_a_package_named_like_the_root_is_refused(tmp_path: Path, cli) -> None:
    """turbo stops at "package ... at p/r/package.json uses reserved root identity //"; ctxsel
    gave the package the root's id ``//``, merging the two."""
    root = workspace(tmp_path / "ws", {"p/a": "a", "p/r": "//"})
    proc = cli("--repo", str(root), "--adapter", "turbo", "--source", "static", "tests", "a")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "p/r/package.json" in proc.stderr and "Traceback" not in proc.stderr
    require("turbo")
    proc = run(["turbo", "run", "test", "--dry=json"], root, env=TURBO_ENV, check=False)
    assert proc.returncode != 0 and "reserved root" in proc.stderr


def path_specs(root: Path) -> dict[str, dict[str, str]]:
    """package -> its dependencies: ``workspace:`` specs that are, or look like, paths."""
    return {
        "a": {}, "z": {},
        "abs": {"z": f"workspace:{root / 'p/a'}"},  # absolute: not a path to turbo, the name z links
        "abs-unknown": {"x": f"workspace:{root / 'p/a'}"},
        "backslash": {"z": "workspace:..\\a"},  # no "/": not a path on POSIX
        "dot": {"z": "workspace:."},
        "dotdot": {"z": "workspace:.."},
        "from-root": {"x": "workspace:p/a"},  # read from the package, then from the root
        "from-root-named": {"z": "workspace:p/a"},
        "tilde": {"z": "workspace:~/a"},  # a path to nothing: no edge, not z
        "missing": {"z": "workspace:../nonexist"},
        "reenters": {"x": f"workspace:../../../{root.name}/p/a"},  # leaves the repo and comes back
        "trailing-slash": {"z": "workspace:../a/"},
        "relative": {"x": "workspace:../a"},
    }


def test_workspace_path_specs_link_as_in_turbo(tmp_path: Path) -> None:
    """ctxsel read every ``workspace:`` spec starting with ``.`` or ``/`` as a path from the
    package (``backslash`` linked ``a``; ``abs``, ``dot``, ``dotdot`` linked nothing, ``reenters``
    nothing, ``from-root`` nothing and ``tilde`` z); turbo reads a spec as a path only when it
    has a ``/`` and is relative, from the package's directory and then from the root."""
    root = tmp_path / "ws"
    workspace(root, {})
    for name, deps in path_specs(root).items():
        (root / "p" / name).mkdir(parents=True)
        (root / "p" / name / "package.json").write_text(json.dumps({"name": name, "version": "1.0.0", "dependencies": deps}))
    ws = open_ws(root, "turbo")
    ours = {n.id: set(ws.graph.dependencies(n.id)) for n in ws.graph.nodes() if n.id != "//"}
    assert ours["abs"] == {"z"} and ours["from-root"] == {"a"} and ours["reenters"] == {"a"}
    require("turbo")
    out = run(["turbo", "query", "{ packages { items { name directDependencies { items { name } } } } }"], root,
              env=TURBO_ENV).stdout
    items = json.loads(out[out.index("{"):])["data"]["packages"]["items"]
    theirs = {i["name"]: {d["name"] for d in i["directDependencies"]["items"]} for i in items if i["name"] != "//"}
    assert ours == theirs
