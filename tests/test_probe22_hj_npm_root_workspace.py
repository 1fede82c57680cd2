"""npm: the root package is linked into node_modules only when a workspace glob lists it (``"."``).

npm 11.19.1, measured with ``npm install --offline --ignore-scripts`` and ``npm query``:

- ``"workspaces": [".", "packages/*"]`` makes the root a workspace too: ``node_modules/<name> -> ..``
  (an unnamed root under its folder's name, ``@npmcli/map-workspaces``), a workspace depending
  on that name is linked to the root, and ``npm test -ws`` runs the root's ``test`` as well
  (``npm run test --workspace=b --include-workspace-root``, ctxsel's command, runs both).
- Without the ``.`` glob the root is no workspace: a dependency on its name goes to the
  registry (``--offline``: ENOTCACHED), so the root is no dependency of anything.

ctxsel linked any dependency on the root's *name* (the root was in its name table) and none on
the folder name of an unnamed root listed by ``.``: both dependents sets were wrong.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsfixtures import open_ws, radius_dirs, write_pkg
from oracles import require, run

#: case -> (root name or None, root listed by ".", b's dependency name on the root or None (the
#: folder's name), whether npm links b to the root)
CASES: dict[str, tuple[str | None, bool, str | None, bool]] = {
    "named-root-listed": ("root", True, "root", True),
    "unnamed-root-listed": (None, True, None, True),
    "named-root-not-listed": ("root", False, "root", False),
    "unnamed-root-not-listed": (None, False, None, False),
}


def workspace(parent: Path, case: str) -> Path:
    """root (test script, depends on a) + packages/a, packages/b -> root (``^1.0.0``)."""
    name, listed, dep, _ = CASES[case]
    root = parent / "ws-folder"
    root.mkdir(parents=True)
    manifest = {**({"name": name} if name else {}), "version": "1.0.0", "private": True,
                "workspaces": [".", "packages/*"] if listed else ["packages/*"],
                "scripts": {"test": "echo root"}, "dependencies": {"a": "^1.0.0"}}
    (root / "package.json").write_text(json.dumps(manifest))
    write_pkg(root, "packages/a", "a", scripts={"test": "echo a"})
    write_pkg(root, "packages/b", "b", scripts={"test": "echo b"}, dependencies={dep or "ws-folder": "^1.0.0"})
    return root


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_root_has_dependents_only_where_npm_links_it(tmp_path: Path, case: str) -> None:
    ws = open_ws(workspace(tmp_path, case), "npm")
    linked = CASES[case][3]
    root_id = next(n.id for n in ws.graph.nodes() if n.package == "")
    assert radius_dirs(ws, root_id) == ({"", "packages/b"} if linked else {""})
    command = ws.tests([root_id]).argv
    expected = ["--workspace=b", "--include-workspace-root"] if linked else ["--include-workspace-root"]
    assert sorted(command[3:]) == sorted(expected), command


@pytest.mark.oracle
@pytest.mark.parametrize("case", sorted(CASES))
def test_npm_links_the_same(tmp_path: Path, case: str) -> None:
    require("npm")
    root = workspace(tmp_path, case)
    install = run(["npm", "install", "--offline", "--ignore-scripts", "--no-audit", "--no-fund"], root, check=False)
    if not CASES[case][3]:
        assert install.returncode != 0 and "ENOTCACHED" in install.stderr, install.stderr[-600:]
        return
    assert install.returncode == 0, install.stderr[-600:]
    listed = json.loads(run(["npm", "query", ".workspace#b"], root).stdout)
    to = listed[0]["to"]
    assert len(to) == 1 and (root / to[0]).resolve() == root.resolve(), to
