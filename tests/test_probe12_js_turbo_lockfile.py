"""Turborepo 2 and a changed lockfile: which packages ``turbo ls --filter=[A...B]`` marks.

turbo compares the two lockfiles: it marks the packages whose external dependencies
resolve to different locked entries, and every package when it cannot tell (lockfile
added, deleted or unreadable, or a global field changed). Each scenario commits one
lockfile edit and compares ctxsel's answer with the real turbo's.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Callable

import pytest
from jsfixtures import TURBO_ENV, open_ws
from oracles import require, run

from ctxsel.adapters.js.lockfile import lockfile_changed_dirs

pytestmark = pytest.mark.oracle

PNPM_LOCK = """\
lockfileVersion: '9.0'

settings:
  autoInstallPeers: true
  excludeLinksFromLockfile: false

catalogs:
  default:
    left-pad:
      specifier: ^1.3.0
      version: 1.3.0

importers:

  .: {}

  p/a:
    dependencies:
      left-pad:
        specifier: ^1.3.0
        version: 1.3.0

  p/b:
    dependencies:
      a:
        specifier: workspace:*
        version: link:../a

  p/c:
    dependencies:
      is-odd:
        specifier: ^3.0.0
        version: 3.0.1

  p/d:
    devDependencies:
      left-pad:
        specifier: 'catalog:'
        version: 1.3.0

  p/e:
    dependencies:
      is-odd:
        specifier: ^3.0.0
        version: 3.0.1

  p/f:
    dependencies:
      lp:
        specifier: npm:left-pad@^1.3.0
        version: left-pad@1.3.0

packages:

  is-number@6.0.0:
    resolution: {integrity: sha512-Wu1VHeILBK8KAWJUAiSZQX94GmOE45Rg6/538fKwiloUu21KncEkYGPqob2oSZ5mUT73vLGrHQjKw3KMPwfDzg==}
    engines: {node: '>=0.10.0'}

  is-odd@3.0.1:
    resolution: {integrity: sha512-CQpnWPrDwmP1+SMHXZhtLtJv90yiyVfluGsX5iNCVkrhQtU3TQHsUWPG9wkdk9Lgd5yNpAg9jQEo90CBaXgWMA==}
    engines: {node: '>=4'}

  left-pad@1.3.0:
    resolution: {integrity: sha512-XI5MPzVNApjAyhQzphX8BkmKsKUxD4LdyK24iZeQEYPoc8XqmrnTQ4A2Bd2pv9rLhH5hQQ9yRMB73VWvSHq2Xg==}

snapshots:

  is-number@6.0.0: {}

  is-odd@3.0.1:
    dependencies:
      is-number: 6.0.0

  left-pad@1.3.0: {}
"""

PACKAGES = {
    "a": {"dependencies": {"left-pad": "^1.3.0"}},
    "b": {"dependencies": {"a": "workspace:*"}},
    "c": {"dependencies": {"is-odd": "^3.0.0"}},
    "d": {"devDependencies": {"left-pad": "catalog:"}},
    "e": {"peerDependencies": {"is-odd": "^3.0.0"}},  # peers are not followed into the lockfile
    "f": {"dependencies": {"lp": "npm:left-pad@^1.3.0"}},  # an alias, locked under left-pad's key
    "g": {},
}


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


def workspace(root: Path, manager: str = "pnpm") -> Path:
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "root", "private": True, "packageManager": "pnpm@12.4.2"}))
    (root / "pnpm-workspace.yaml").write_text("packages: ['p/*']\n")
    (root / "turbo.json").write_text(json.dumps({"tasks": {"test": {}}}))
    (root / "pnpm-lock.yaml").write_text(PNPM_LOCK)
    for name, fields in PACKAGES.items():
        (root / "p" / name).mkdir(parents=True)
        manifest = {"name": name, "version": "1.0.0", "scripts": {"test": "echo " + name}, **fields}
        (root / "p" / name / "package.json").write_text(json.dumps(manifest))
    return initial_commit(root)


def initial_commit(root: Path) -> Path:
    git(root, "init", "-q", "-b", "main")
    git(root, "-c", "user.email=t@t", "-c", "user.name=t", "add", "-A")
    git(root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init")
    return root


def replace(old: str, new: str, lockfile: str = "pnpm-lock.yaml") -> Callable[[Path], None]:
    def edit(root: Path) -> None:
        text = (root / lockfile).read_text()
        assert old in text, old
        (root / lockfile).write_text(text.replace(old, new))
    return edit


def bump_left_pad(root: Path) -> None:
    text = (root / "pnpm-lock.yaml").read_text()
    (root / "pnpm-lock.yaml").write_text(text.replace("left-pad@1.3.0", "left-pad@1.3.1").replace("version: 1.3.0", "version: 1.3.1"))


#: name -> (edit of the committed lockfile, the package dirs turbo marks; None = all)
SCENARIOS: dict[str, tuple[Callable[[Path], None], set[str] | None]] = {
    "transitive-bump": (replace("is-number@6.0.0", "is-number@6.0.1"), {"p/c"}),
    "direct-bump": (bump_left_pad, {"p/a", "p/d", "p/f"}),
    "snapshot-gains-a-dependency": (replace("  left-pad@1.3.0: {}", "  left-pad@1.3.0:\n    dependencies:\n      is-number: 6.0.0"),
                                    {"p/a", "p/d", "p/f"}),
    "snapshot-removed": (replace("  left-pad@1.3.0: {}\n", ""), {"p/a", "p/d", "p/f"}),
    "importer-specifier-differs": (replace("        specifier: ^1.3.0\n        version: 1.3.0\n\n  p/b",
                                           "        specifier: ^1.2.0\n        version: 1.3.0\n\n  p/b"), {"p/a"}),
    "whitespace": (replace("importers:\n", "importers:\n\n\n"), set()),
    "integrity-only": (replace("sha512-XI5MPzVN", "sha512-AAAAAAAA"), set()),
    "orphan-entry": (replace("snapshots:\n", "snapshots:\n\n  orphan@1.0.0: {}\n"), set()),
    "overrides-to-the-locked-version": (replace("importers:", "overrides:\n  left-pad: 1.3.0\n\nimporters:"), set()),
    "patched-dependencies": (replace("importers:", "patchedDependencies:\n  left-pad@1.3.0:\n    hash: abc\n    path: x.patch\n\nimporters:"), set()),
    "pnpmfile-checksum": (replace("importers:", "pnpmfileChecksum: abc\n\nimporters:"), set()),
    "catalog-section-only": (replace("      specifier: ^1.3.0\n      version: 1.3.0\n\nimporters", "      specifier: ^1.3.0\n      version: 1.3.1\n\nimporters"), set()),
    "importer-without-externals-removed": (replace("  p/b:\n    dependencies:\n      a:\n        specifier: workspace:*\n        version: link:../a\n", ""), set()),
    "settings": (replace("autoInstallPeers: true", "autoInstallPeers: false"), None),
    "lockfile-version": (replace("lockfileVersion: '9.0'", "lockfileVersion: '9.1'"), None),
    "package-extensions-checksum": (replace("importers:", "packageExtensionsChecksum: abc\n\nimporters:"), None),
    "importer-with-externals-removed": (replace("  p/a:\n    dependencies:\n      left-pad:\n        specifier: ^1.3.0\n        version: 1.3.0\n", ""), None),
    "broken-yaml": (replace("importers:", "importers: [\n"), None),
    "deleted": (lambda root: (root / "pnpm-lock.yaml").unlink(), None),
}


def commit_edit(root: Path, edit: Callable[[Path], None]) -> None:
    edit(root)
    git(root, "-c", "user.email=t@t", "-c", "user.name=t", "add", "-A")
    git(root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "edit")


def turbo_changed(root: Path, selector: str) -> set[str]:
    out = run(["turbo", "ls", f"--filter={selector}", "--output=json"], root, env=TURBO_ENV).stdout
    return {p["path"].strip("/") for p in json.loads(out[out.index("{"):])["packages"]["items"]}


def ctxsel_changed(root: Path, lockfile: str = "pnpm-lock.yaml") -> set[str]:
    """ctxsel's turbo adapter, given both versions of the lockfile (as turbo has them)."""
    ws = open_ws(root, "turbo")
    before = git(root, "show", f"HEAD~1:{lockfile}")
    path = root / lockfile
    after = path.read_text() if path.exists() else None
    return {ws.graph.node(i).package for i in ws.adapter.nodes_for_lockfile_change(ws.graph, before, after)}


ALL = {f"p/{name}" for name in PACKAGES}


@pytest.mark.parametrize("case", sorted(SCENARIOS))
def test_lockfile_change_marks_what_turbo_marks(tmp_path: Path, case: str) -> None:
    check_scenario(workspace(tmp_path / "ws"), *SCENARIOS[case], ALL, "pnpm-lock.yaml")


def check_scenario(root: Path, edit: Callable[[Path], None], expected: set[str] | None, everything: set[str],
                   lockfile: str) -> None:
    """Commit ``edit`` of ``lockfile``: turbo still marks what it was measured to mark
    (``expected``; None: ``everything``), and ctxsel marks the same."""
    require("turbo")
    commit_edit(root, edit)
    theirs = turbo_changed(root, "[HEAD~1...HEAD]")
    assert theirs == (everything if expected is None else expected)  # the measured answer still holds
    assert ctxsel_changed(root, lockfile) == theirs


@pytest.mark.parametrize("case, expected", [("transitive-bump", ALL), ("direct-bump", {"p/a", "p/d", "p/f"})])
def test_a_change_to_what_the_root_depends_on_marks_everything(tmp_path: Path, case: str, expected: set[str]) -> None:
    """The root's external dependencies are in every task's hash: when the lockfile moves
    one of them (is-odd's is-number), turbo marks every package; left-pad is not the root's."""
    require("turbo")
    root = workspace(tmp_path / "ws")
    manifest = json.loads((root / "package.json").read_text())
    (root / "package.json").write_text(json.dumps({**manifest, "devDependencies": {"is-odd": "^3.0.0"}}))
    commit_edit(root, replace("  .: {}", "  .:\n    devDependencies:\n      is-odd:\n        specifier: ^3.0.0\n        version: 3.0.1"))
    commit_edit(root, SCENARIOS[case][0])
    theirs = turbo_changed(root, "[HEAD~1...HEAD]")
    assert theirs == expected
    assert ctxsel_changed(root) == theirs


def test_dependents_of_a_lockfile_change_match_turbo(tmp_path: Path) -> None:
    """``...[A...B]``: a's new left-pad reaches b through the workspace edge."""
    require("turbo")
    root = workspace(tmp_path / "ws")
    commit_edit(root, bump_left_pad)
    ws = open_ws(root, "turbo")
    roots = ws.adapter.nodes_for_lockfile_change(ws.graph, git(root, "show", "HEAD~1:pnpm-lock.yaml"),
                                                 (root / "pnpm-lock.yaml").read_text())
    assert {ws.graph.node(i).package for i in ws.blast_radius(roots=roots).ids} == turbo_changed(root, "...[HEAD~1...HEAD]")


def test_added_lockfile_marks_everything(tmp_path: Path) -> None:
    """No lockfile at the base: turbo has nothing to compare ("LockfileChangedWithoutDetails")."""
    require("turbo")
    root = workspace(tmp_path / "ws")
    git(root, "rm", "-q", "pnpm-lock.yaml")
    git(root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "no lockfile")
    commit_edit(root, lambda r: (r / "pnpm-lock.yaml").write_text(PNPM_LOCK))
    assert turbo_changed(root, "[HEAD~1...HEAD]") == ALL
    ws = open_ws(root, "turbo")
    assert {ws.graph.node(i).package for i in ws.adapter.nodes_for_lockfile_change(ws.graph, None, PNPM_LOCK)} == ALL


def _cli_affected(cli, root: Path, *selector: str) -> set[str]:
    proc = cli("--repo", str(root), "--adapter", "turbo", "--source", "static", "blast-radius", *selector, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["changes"]["unowned"] == []  # it used to be "unowned": nothing selected
    ws = open_ws(root, "turbo")
    return {ws.graph.node(a["id"]).package for a in out["affected"]}


@pytest.mark.parametrize("selector", ["--base", "--since", "--staged"])
def test_the_cli_compares_both_lockfile_versions(tmp_path: Path, cli, selector: str) -> None:
    """``--base``/``--since`` read the old lockfile from git and the new one from the head or
    the working tree, ``--staged`` from git's index: the change narrows to the packages whose
    locked dependencies moved, plus their dependents, as ``turbo ls --filter=...[ref]``."""
    root = workspace(tmp_path / "ws")
    edit, marked = SCENARIOS["direct-bump"]
    if selector == "--staged":
        edit(root)
        git(root, "add", "pnpm-lock.yaml")
        (root / "pnpm-lock.yaml").write_text(PNPM_LOCK)  # the working tree differs from the index
        got = _cli_affected(cli, root, "--staged")
    else:
        commit_edit(root, edit)
        got = _cli_affected(cli, root, selector, "HEAD~1")
    ws = open_ws(root, "turbo")
    ids = [i for i in ws.graph if ws.graph.node(i).package in marked]
    assert got == {ws.graph.node(i).package for i in ws.blast_radius(roots=ids).ids} != ALL
    if selector == "--base" and __import__("oracles").which("turbo"):
        assert got == turbo_changed(root, "...[HEAD~1...HEAD]")


def test_formats_ctxsel_does_not_read_mean_everything() -> None:
    """bun and yarn 2+ lockfiles and pnpm's v5 are not compared: every package, never none."""
    externals = {"p/a": {"left-pad": "^1.3.0"}}
    assert lockfile_changed_dirs("x", "y", "bun", externals) is None
    berry = "__metadata:\n  version: 8\n"
    assert lockfile_changed_dirs(berry, berry + "\n", "yarn", externals) is None
    v5 = "lockfileVersion: 5.4\nimporters: {}\n"
    assert lockfile_changed_dirs(v5, v5 + "\n", "pnpm", externals) is None
    assert lockfile_changed_dirs(PNPM_LOCK, PNPM_LOCK + "\n", "pnpm", externals) == set()


# ---------------------------------------------------------------------- npm (package-lock.json v3)
NPM_PACKAGES = {
    "a": {"dependencies": {"left-pad": "^1.3.0"}},
    "b": {"dependencies": {"a": "*"}},  # npm links it: no external dependency
    "c": {"dependencies": {"is-odd": "^3.0.0"}},
    "e": {"peerDependencies": {"is-odd": "^3.0.0"}},
    "g": {"dependencies": {"is-odd": "^2.0.0"}},  # a nested copy under p/g/node_modules
}


def npm_lock() -> dict:
    def reg(name: str, version: str, **fields) -> dict:
        return {"version": version, "resolved": f"https://registry.npmjs.org/{name}/-/{name}-{version}.tgz",
                "integrity": f"sha512-{name}{version}", **fields}

    packages: dict = {"": {"name": "root", "workspaces": ["p/*"]}}
    packages.update({f"node_modules/{n}": {"resolved": f"p/{n}", "link": True} for n in NPM_PACKAGES})
    packages.update({
        "node_modules/is-number": reg("is-number", "6.0.0"),
        "node_modules/is-odd": reg("is-odd", "3.0.1", dependencies={"is-number": "^6.0.0"}),
        "node_modules/left-pad": reg("left-pad", "1.3.0"),
        "p/g/node_modules/is-odd": reg("is-odd", "2.0.0", dependencies={"is-number": "^4.0.0"}),
        "p/g/node_modules/is-number": reg("is-number", "4.0.0"),
    })
    packages.update({f"p/{n}": {"version": "1.0.0", **f} for n, f in NPM_PACKAGES.items()})
    return {"name": "root", "lockfileVersion": 3, "requires": True, "packages": packages}


def npm_workspace(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps(
        {"name": "root", "private": True, "packageManager": "npm@11.0.0", "workspaces": ["p/*"]}))
    (root / "turbo.json").write_text(json.dumps({"tasks": {"test": {}}}))
    (root / "package-lock.json").write_text(json.dumps(npm_lock(), indent=2))
    for name, fields in NPM_PACKAGES.items():
        (root / "p" / name).mkdir(parents=True)
        (root / "p" / name / "package.json").write_text(json.dumps({"name": name, "version": "1.0.0", **fields}))
    return initial_commit(root)


def lock_edit(change: Callable[[dict], None]) -> Callable[[Path], None]:
    def edit(root: Path) -> None:
        data = json.loads((root / "package-lock.json").read_text())
        change(data)
        (root / "package-lock.json").write_text(json.dumps(data, indent=2))
    return edit


def entry(key: str, **fields) -> Callable[[dict], None]:
    return lambda data: data["packages"][key].update(fields)


NPM_ALL = {f"p/{n}" for n in NPM_PACKAGES}
NPM_SCENARIOS: dict[str, tuple[Callable[[Path], None], set[str] | None]] = {
    "hoisted-transitive-bump": (lock_edit(entry("node_modules/is-number", version="6.0.1")), {"p/c"}),
    "nested-transitive-bump": (lock_edit(entry("p/g/node_modules/is-number", version="4.0.1")), {"p/g"}),
    "direct-bump": (lock_edit(entry("node_modules/left-pad", version="1.3.1")), {"p/a"}),
    "integrity-only": (lock_edit(entry("node_modules/left-pad", integrity="sha512-other")), set()),
    "name-only": (lock_edit(lambda d: d.update(name="renamed")), set()),
    "whitespace": (lambda root: (root / "package-lock.json").write_text((root / "package-lock.json").read_text() + "\n\n"), set()),
    "new-dev-dependency-of-a-locked-package": (
        lock_edit(entry("node_modules/is-odd", devDependencies={"left-pad": "^1.0.0"})), {"p/c"}),
    "new-peer-dependency-of-a-locked-package": (
        lock_edit(entry("node_modules/is-odd", peerDependencies={"left-pad": "^1.0.0"})), {"p/c"}),
    "locked-package-removed": (lock_edit(lambda d: d["packages"].pop("node_modules/left-pad")), {"p/a"}),
    "requires": (lock_edit(lambda d: d.update(requires=False)), None),
    "lockfile-version": (lock_edit(lambda d: d.update(lockfileVersion=2)), None),
    "workspace-entry-removed": (lock_edit(lambda d: d["packages"].pop("p/a")), None),
    "broken-json": (lambda root: (root / "package-lock.json").write_text("{"), None),
}


@pytest.mark.parametrize("case", sorted(NPM_SCENARIOS))
def test_package_lock_change_marks_what_turbo_marks(tmp_path: Path, case: str) -> None:
    check_scenario(npm_workspace(tmp_path / "ws"), *NPM_SCENARIOS[case], NPM_ALL, "package-lock.json")


# ---------------------------------------------------------------------- yarn 1 (yarn.lock)
YARN_LOCK = """\
# THIS IS AN AUTOGENERATED FILE. DO NOT EDIT THIS FILE DIRECTLY.
# yarn lockfile v1


"@s/dep@^1.0.0":
  version "1.0.0"
  resolved "https://registry.yarnpkg.com/@s/dep/-/dep-1.0.0.tgz"
  integrity sha512-scoped

is-number@^6.0.0:
  version "6.0.0"
  resolved "https://registry.yarnpkg.com/is-number/-/is-number-6.0.0.tgz#e6d1"
  integrity sha512-Wu1VHeILBK8KAWJUAiSZQX94GmOE45Rg6

is-odd@^3.0.0, is-odd@^3.0.1:
  version "3.0.1"
  resolved "https://registry.yarnpkg.com/is-odd/-/is-odd-3.0.1.tgz#6510"
  integrity sha512-CQpnWPrDwmP1
  dependencies:
    is-number "^6.0.0"
  optionalDependencies:
    "@s/dep" "^1.0.0"

left-pad@^1.3.0:
  version "1.3.0"
  resolved "https://registry.yarnpkg.com/left-pad/-/left-pad-1.3.0.tgz#5b8a"
  integrity sha512-XI5MPzVNApjAyhQzphX8BkmKsKUxD4LdyK24
"""
YARN_PACKAGES = {
    "a": {"dependencies": {"left-pad": "^1.3.0"}},
    "b": {"dependencies": {"a": "*"}},
    "c": {"dependencies": {"is-odd": "^3.0.0"}},
    "g": {"devDependencies": {"is-odd": "^3.0.1"}},
}
YARN_ALL = {f"p/{n}" for n in YARN_PACKAGES}


def yarn_workspace(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps(
        {"name": "root", "private": True, "packageManager": "yarn@1.22.19", "workspaces": ["p/*"]}))
    (root / "turbo.json").write_text(json.dumps({"tasks": {"test": {}}}))
    (root / "yarn.lock").write_text(YARN_LOCK)
    for name, fields in YARN_PACKAGES.items():
        (root / "p" / name).mkdir(parents=True)
        (root / "p" / name / "package.json").write_text(json.dumps({"name": name, "version": "1.0.0", **fields}))
    return initial_commit(root)


def yarn_edit(old: str, new: str) -> Callable[[Path], None]:
    return replace(old, new, "yarn.lock")


YARN_SCENARIOS: dict[str, tuple[Callable[[Path], None], set[str] | None]] = {
    "transitive-bump": (yarn_edit('version "6.0.0"', 'version "6.0.1"'), {"p/c", "p/g"}),
    "optional-transitive-bump": (yarn_edit('version "1.0.0"', 'version "1.0.1"'), {"p/c", "p/g"}),
    "direct-bump": (yarn_edit('version "1.3.0"', 'version "1.3.1"'), {"p/a"}),
    "integrity-and-resolved-only": (yarn_edit("sha512-XI5", "sha512-ZZZ"), set()),
    "blank-lines": (yarn_edit("\n\nleft-pad", "\n\n\nleft-pad"), set()),
    "one-of-two-keys-split-off": (
        yarn_edit('is-odd@^3.0.0, is-odd@^3.0.1:\n  version "3.0.1"',
                  'is-odd@^3.0.0:\n  version "3.0.1"\n  dependencies:\n    is-number "^6.0.0"\n  optionalDependencies:\n'
                  '    "@s/dep" "^1.0.0"\n\nis-odd@^3.0.1:\n  version "3.0.2"'), {"p/g"}),
    "broken": (yarn_edit("left-pad@^1.3.0:", "left-pad@^1.3.0:::\n  ::"), None),
}


@pytest.mark.parametrize("case", sorted(YARN_SCENARIOS))
def test_yarn_lock_change_marks_what_turbo_marks(tmp_path: Path, case: str) -> None:
    check_scenario(yarn_workspace(tmp_path / "ws"), *YARN_SCENARIOS[case], YARN_ALL, "yarn.lock")
