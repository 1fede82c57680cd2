"""Files inside a git submodule (session 27, helper hu).

``git ls-files -co`` shows a checked-out submodule as one gitlink entry, so ctxsel's listing
skipped it as "not-a-file": ``select --files pkg/sub/lib.js`` never packed the changed file and
nothing said why. The build tools see those files: pnpm 12 lists the package checked out in the
submodule (``pnpm ls -r``), and Nx 24 makes it a project that ``nx show projects --affected
--files pkg/sub/lib.js`` reports (measured on this fixture); Bazel 4.2.3's ``glob`` returns the
files of a submodule under the package. So the submodule's own tracked and
untracked-not-ignored files are listed as the superproject's; a submodule that is not checked
out (an empty directory) has no files to list and stays "not-a-file".
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli, run_git, write_tree
from oracles import require, run

from ctxsel.files import list_repo_files


def _workspace(tmp_path: Path) -> Path:
    """A pnpm workspace ``app`` whose ``pkg/sub`` is a submodule holding package ``libpkg``
    (itself with a nested submodule ``deep``), and ``pkg/empty`` a submodule never checked out."""
    deep = write_tree(tmp_path / "deep", {"deep.js": "export const deepest = 1;\n"})
    run_git(deep, "init", "-q", ".")
    run_git(deep, "add", "-A")
    run_git(deep, "commit", "-qm", "deep")
    lib = write_tree(tmp_path / "lib", {"lib.js": "export const lib = 1;\n",
                                        "package.json": '{"name": "libpkg", "version": "1.0.0"}\n',
                                        ".gitignore": "ignored.js\n"})
    run_git(lib, "init", "-q", ".")
    run_git(lib, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(deep), "deep")
    run_git(lib, "add", "-A")
    run_git(lib, "commit", "-qm", "lib")
    app = write_tree(tmp_path / "app", {
        "package.json": '{"name": "root", "private": true}\n',
        "pnpm-workspace.yaml": "packages:\n  - 'pkg/*'\n",
        "pkg/a/package.json": '{"name": "a", "version": "1.0.0", "dependencies": {"libpkg": "workspace:*"}}\n',
        "pkg/a/index.js": 'import { lib } from "libpkg";\nexport const a = lib;\n',
    })
    run_git(app, "init", "-q", ".")
    for name in ("sub", "empty"):
        run_git(app, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), f"pkg/{name}")
    run_git(app, "-c", "protocol.file.allow=always", "submodule", "update", "-q", "--init", "--recursive", "pkg/sub")
    run_git(app, "add", "-A")
    run_git(app, "commit", "-qm", "app")
    run_git(app, "submodule", "deinit", "-q", "pkg/empty")  # registered, not checked out: an empty directory
    (app / "pkg/sub/lib.js").write_text("export const lib = 2; // zebra_marker\n")
    (app / "pkg/sub/untracked.js").write_text("export const fresh = 1;\n")
    (app / "pkg/sub/ignored.js").write_text("export const ignored = 1;\n")
    return app


def test_a_submodules_files_are_listed_and_selected(tmp_path: Path) -> None:
    app = _workspace(tmp_path)
    listing = list_repo_files(app)
    listed = {f.path for f in listing.files}
    # tracked, untracked-not-ignored and a nested submodule's files; not what its .gitignore ignores
    assert {"pkg/sub/lib.js", "pkg/sub/package.json", "pkg/sub/untracked.js", "pkg/sub/deep/deep.js"} <= listed
    assert "pkg/sub/ignored.js" not in listed and "pkg/sub" not in listed
    assert listing.skipped.get("pkg/empty") == "not-a-file" and not any(p.startswith("pkg/empty/") for p in listed)

    proc = run_cli("--repo", str(app), "select", "zebra_marker", "--files", "pkg/sub/lib.js", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    packed = [c["path"] for c in json.loads(proc.stdout)["chunks"]]
    assert packed and packed[0] == "pkg/sub/lib.js", packed


def test_pnpm_sees_the_package_in_the_submodule(tmp_path: Path) -> None:
    """The reference: every package pnpm finds, the one in the submodule included, has its files indexed."""
    pnpm = require("pnpm")
    app = _workspace(tmp_path)
    proc = run([pnpm, "ls", "-r", "--depth", "-1", "--json"], cwd=app)
    packages = {p["name"]: Path(p["path"]).relative_to(app).as_posix() for p in json.loads(proc.stdout)}
    assert packages.get("libpkg") == "pkg/sub", packages
    listed = {f.path for f in list_repo_files(app).files}
    for name, where in packages.items():
        manifest = "package.json" if where == "." else f"{where}/package.json"
        assert manifest in listed, (name, where)


def test_bazel_globs_the_submodules_files(tmp_path: Path) -> None:
    """Bazel 4.2.3: ``glob(["third_party/**"])`` over a submodule returns its files; each is listed
    (and so can be packed), and ``select --files`` packs the changed one."""
    bazel = require("bazel-4")
    from oracles import PREFIX

    lib = write_tree(tmp_path / "lib", {"src/lib.c": "int lib(void) { return 1; }\n", "src/lib.h": "int lib(void);\n"})
    run_git(lib, "init", "-q", ".")
    run_git(lib, "add", "-A")
    run_git(lib, "commit", "-qm", "lib")
    ws = write_tree(tmp_path / "ws", {"WORKSPACE": "", "BUILD": 'filegroup(name = "third", srcs = glob(["third_party/**"],'
                                      ' exclude = ["**/.git"]))\n'})
    run_git(ws, "init", "-q", ".")
    run_git(ws, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "third_party/lib")
    run_git(ws, "add", "-A")
    run_git(ws, "commit", "-qm", "ws")
    proc = run([bazel, "--batch", "--nohome_rc", f"--output_user_root={tmp_path / 'bazel-root'}",
                f"--bazelrc={PREFIX / 'oracle.bazelrc'}", "query", "labels(srcs, //:third)", "--noshow_progress"], cwd=ws)
    globbed = {line.removeprefix("//:") for line in proc.stdout.split()}
    assert globbed == {"third_party/lib/src/lib.c", "third_party/lib/src/lib.h"}, proc.stdout
    assert globbed <= {f.path for f in list_repo_files(ws).files}
    (ws / "third_party/lib/src/lib.c").write_text("int lib(void) { return 2; } /* zebra_marker */\n")
    sel = run_cli("--repo", str(ws), "select", "zebra_marker", "--files", "third_party/lib/src/lib.c", "--format", "paths")
    assert sel.returncode == 0 and sel.stdout.split()[:1] == ["third_party/lib/src/lib.c"], (sel.stdout, sel.stderr)
