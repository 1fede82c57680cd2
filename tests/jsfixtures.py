"""Shared by the pnpm/npm/yarn/Turborepo tests: fixture copies and the real tools' answers.

Every answer is a set of package *directories* (repo-relative, "" for the root), so
ctxsel and the tool are compared on what they select, not on how they name it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from oracles import run

from ctxsel.workspace import Workspace

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
PNPM_ENV = {"pnpm_config_pm_on_fail": "ignore"}
TURBO_ENV = {"TURBO_TELEMETRY_DISABLED": "1", "DO_NOT_TRACK": "1", "TURBO_NO_UPDATE_NOTIFIER": "1"}


def copy_fixture(name: str, tmp_path: Path) -> Path:
    """A private copy: the tools may write (.turbo/, lockfiles) and the fixture must stay clean."""
    dest = tmp_path / name
    shutil.copytree(FIXTURES / name, dest, ignore=shutil.ignore_patterns(".ctxsel", ".turbo", "node_modules"))
    return dest


def rel_dir(root: Path, path: str) -> str:
    rel = Path(path).resolve().relative_to(root.resolve()).as_posix()
    return "" if rel == "." else rel


def pnpm_filter(root: Path, selector: str, prod: bool = False) -> set[str]:
    """Directories ``pnpm --filter SELECTOR ls`` selects (``--filter-prod`` with ``prod``)."""
    flag = "--filter-prod" if prod else "--filter"
    out = run(["pnpm", flag, selector, "ls", "--depth", "-1", "--json"], root, env=PNPM_ENV).stdout
    return {rel_dir(root, p["path"]) for p in json.loads(out)}


def turbo_filter(root: Path, selector: str) -> set[str]:
    out = run(["turbo", "ls", f"--filter={selector}", "--output=json"], root, env=TURBO_ENV).stdout
    return {p["path"].strip("/") for p in json.loads(out)["packages"]["items"]}


def turbo_dependents_all(root: Path) -> dict[str, set[str]]:
    """dir -> dirs of its transitive dependents plus itself, from ONE ``turbo ls <every name>`` call."""
    listed = json.loads(run(["turbo", "ls", "--output=json"], root, env=TURBO_ENV).stdout)["packages"]["items"]
    names = [p["name"] for p in listed]
    out = json.loads(run(["turbo", "ls", *names, "--output=json"], root, env=TURBO_ENV).stdout)["packages"]
    dir_of = {p["name"]: p["path"].strip("/") for p in out}
    return {dir_of[p["name"]]: {dir_of[p["name"]]} | {dir_of[d] for d in p["dependents"]} for p in out}


def turbo_test_dirs(root: Path, selector: str) -> set[str]:
    """Packages whose ``test`` task turbo would really run (not ``<NONEXISTENT>``)."""
    out = run(["turbo", "run", "test", f"--filter={selector}", "--dry=json"], root, env=TURBO_ENV).stdout
    return {t["directory"].strip("/") for t in json.loads(out)["tasks"]
            if t["task"] == "test" and t["command"] != "<NONEXISTENT>"}


def write_pkg(root: Path, rel: str, name: str, version: str | None = "1.0.0", **fields) -> None:
    manifest = {"name": name, **({"version": version} if version else {}), **fields}
    (root / rel).mkdir(parents=True, exist_ok=True)
    (root / rel / "package.json").write_text(json.dumps(manifest))


def spec_workspace(root: Path, settings: str = "") -> Path:
    """Every kind of version spec the adapters must tell apart, one dependent package each (pnpm layout)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "package.json").write_text(json.dumps({"name": "root", "version": "0.0.0", "dependencies": {"@p/b": "workspace:*"}}))
    (root / "pnpm-workspace.yaml").write_text("packages:\n  - 'p/**'\n" + settings)
    specs = {
        "b": {"dependencies": {"@p/a": "link:../a"}},
        "c": {"dependencies": {"@p/a": "file:../a"}},
        "d": {"dependencies": {"alias": "workspace:@p/a@*"}},
        "e": {"dependencies": {"@p/a": "workspace:../a"}},
        "f": {"dependencies": {"@p/a": "^1.0.0"}},
        "g": {"dependencies": {"@p/a": "^2.0.0"}},
        "h": {"dependencies": {"@p/a": "*"}},
        "i": {"dependencies": {"@p/a": "workspace:^2.0.0"}},
        "j": {"dependencies": {"alias2": "npm:@p/a@^1.0.0"}},
        "k": {"dependencies": {"@p/a": "latest"}},
        "l": {"dependencies": {"@p/a": "1.0.0"}},
        "m": {"devDependencies": {"@p/a": "workspace:*"}},
        "n": {"dependencies": {"@p/m": "workspace:*"}},
        "o": {"peerDependencies": {"@p/a": "workspace:*"}},
        "q": {"optionalDependencies": {"@p/a": "workspace:~"}},
        # one name in several fields: the later field's spec wins
        "r": {"devDependencies": {"@p/a": "workspace:*"}, "peerDependencies": {"@p/a": "^1.0.0"}},
        "s": {"dependencies": {"@p/a": "^1.0.0"}, "devDependencies": {"@p/a": "workspace:*"}},
        "t": {"optionalDependencies": {"@p/a": "^1.0.0"}, "devDependencies": {"@p/a": "workspace:*"}},
        "u": {"dependencies": {"@p/pre": "workspace:^1.0.0"}},
        "v": {"dependencies": {"@p/pre": "workspace:*"}},
        "w": {"dependencies": {"@p/nv": "workspace:^3.0.0"}},
    }
    write_pkg(root, "p/a", "@p/a")
    write_pkg(root, "p/pre", "@p/pre", version="1.1.0-beta.1")
    write_pkg(root, "p/nv", "@p/nv", version=None)
    for letter, fields in specs.items():
        write_pkg(root, f"p/{letter}", f"@p/{letter}", **fields)
    # discovery: test/ dirs count, dot-dirs and node_modules do not
    write_pkg(root, "p/test/t1", "@p/t1", dependencies={"@p/a": "workspace:*"})
    write_pkg(root, "p/.hidden", "@p/hidden", dependencies={"@p/a": "workspace:*"})
    write_pkg(root, "p/x/node_modules/nm", "@p/nm", dependencies={"@p/a": "workspace:*"})
    return root


def open_ws(root: Path, adapter: str, source: str = "static", extra: dict[str, str] | None = None) -> Workspace:
    return Workspace.open(root, adapter=adapter, source=source, use_cache=False, extra=extra)


def dirs_of(ws: Workspace, ids: list[str]) -> set[str]:
    return {ws.graph.node(i).package for i in ids}


def radius_dirs(ws: Workspace, root_id: str) -> set[str]:
    return dirs_of(ws, ws.blast_radius(roots=[root_id]).ids)


def test_dirs(ws: Workspace, root_id: str) -> set[str]:
    return dirs_of(ws, ws.tests(roots=[root_id]).tests)


test_dirs.__test__ = False  # a helper, not a pytest test


def selected_tests(root: Path, adapter: str, *how: str) -> set[str]:
    """The test ids ``ctxsel tests --format json`` selects (static mode, no graph cache)."""
    from conftest import run_cli

    proc = run_cli("--repo", str(root), "--no-cache", "-q", "--adapter", adapter, "--source", "static", "tests",
                   "--format", "json", *how)
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(proc.stdout)["tests"])
