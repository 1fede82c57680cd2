"""Change selectors on git histories built in tmp_path, with the toy adapter of ``toy_workspace``:
git handling, deleted/renamed-file mapping through the old revision, global files and
``--explain`` paths, independent of any real build system's adapter."""

from __future__ import annotations

import json
import subprocess

import pytest

from ctxsel.affected import change_set
from ctxsel.changes import DELETED, MODIFIED, RENAMED, ChangedFile, FileChanges, Git, changed_files, parse_name_status
from ctxsel.errors import GitError
from ctxsel.revision import _ls_tree, _placeholder_scope, materialize_tree, revision_graph
from toy_workspace import SPEC, PnpmLikeToy, ToyAdapter, git, make_repo, open_ws, write


# ---------------------------------------------------------------- parsing git output

def test_parse_name_status_handles_renames_copies_and_type_changes():
    raw = b"M\0a.c\0R087\0old/x.c\0new/x.c\0D\0gone.c\0A\0new.c\0C100\0src.c\0copy.c\0T\0link\0"
    assert parse_name_status(raw) == [
        ChangedFile("a.c", MODIFIED),
        ChangedFile("new/x.c", RENAMED, "old/x.c"),
        ChangedFile("gone.c", DELETED),
        ChangedFile("new.c", "A"),
        ChangedFile("copy.c", "A"),
        ChangedFile("link", MODIFIED),
    ]


# ---------------------------------------------------------------- selectors

def test_since_is_merge_base_vs_working_tree_with_untracked(tmp_path):
    root = make_repo(tmp_path / "ws")
    write(root, "core/core.c", "changed\n")          # committed on a branch
    git(root, "checkout", "-q", "-b", "feature")
    git(root, "commit", "-qam", "core")
    git(root, "checkout", "-q", "main")                 # main moves on independently
    write(root, "lone/x.c", "main only\n")
    git(root, "commit", "-qam", "lone")
    git(root, "checkout", "-q", "feature")
    write(root, "app/main.c", "uncommitted\n")          # uncommitted edit
    write(root, "app/new.c")                             # untracked
    found = changed_files(root, since="main")
    # lone/x.c changed on main after the branch point: not this branch's change
    assert [f.path for f in found.files] == ["app/main.c", "app/new.c", "core/core.c"]
    assert found.base_rev == git(root, "merge-base", "main", "HEAD").strip()
    assert [f.path for f in changed_files(root, since="main", untracked=False).files] == ["app/main.c", "core/core.c"]


def test_base_head_range_sees_commits_only_and_detects_renames(tmp_path):
    root = make_repo(tmp_path / "ws")
    a = git(root, "rev-parse", "HEAD").strip()
    git(root, "mv", "lib/a.c", "app/a.c")
    git(root, "rm", "-q", "lone/x.c")
    git(root, "commit", "-qm", "move and delete")
    write(root, "core/core.c", "dirty\n")  # working-tree edit: not part of a..HEAD
    found = changed_files(root, base=a, head="HEAD")
    assert found.files == [ChangedFile("app/a.c", RENAMED, "lib/a.c"), ChangedFile("lone/x.c", DELETED)]
    assert found.base_rev == a
    assert changed_files(root, base=a, head=a).files == []


def test_staged_is_index_vs_head_even_before_the_first_commit(tmp_path):
    root = tmp_path / "fresh"
    root.mkdir()
    git(root, "init", "-q")
    write(root, "toy.json", "{}")
    git(root, "add", "toy.json")
    assert [f.path for f in changed_files(root, staged=True).files] == ["toy.json"]
    root = make_repo(tmp_path / "ws")
    write(root, "core/core.c", "staged\n")
    write(root, "app/main.c", "not staged\n")
    git(root, "add", "core/core.c")
    found = changed_files(root, staged=True)
    assert found.files == [ChangedFile("core/core.c", MODIFIED)]
    assert found.base_rev == git(root, "rev-parse", "HEAD").strip()


def test_files_selector_needs_no_git_and_marks_missing_files_deleted(tmp_path):
    root = tmp_path / "plain"
    write(root, "core/core.c")
    found = changed_files(root, files=["core/core.c,gone/old.c", str(root / "core/core.c")])
    assert found.files == [ChangedFile("core/core.c", MODIFIED), ChangedFile("gone/old.c", DELETED)]
    assert found.base_rev is None


def test_unknown_ref_and_bad_combinations_are_git_errors(tmp_path):
    root = make_repo(tmp_path / "ws")
    with pytest.raises(GitError, match="unknown git revision 'nope'"):
        changed_files(root, since="nope")
    with pytest.raises(GitError, match="not a git revision"):
        changed_files(root, since="--output=/tmp/x")
    with pytest.raises(GitError, match="choose one change selector"):
        changed_files(root, since="HEAD", staged=True)
    with pytest.raises(GitError, match="--head needs --base"):
        changed_files(root, head="HEAD")
    (tmp_path / "nogit").mkdir()
    with pytest.raises(GitError, match="not inside a git work tree"):
        changed_files(tmp_path / "nogit", since="HEAD")


def test_shallow_clone_missing_history_is_a_clear_error(tmp_path):
    origin = make_repo(tmp_path / "origin")
    for i in range(3):
        write(origin, "core/core.c", f"v{i}\n")
        git(origin, "commit", "-qam", f"c{i}")
    old = git(origin, "rev-parse", "HEAD~3").strip()
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{origin}", str(clone))
    with pytest.raises(GitError, match="shallow clone") as exc:
        changed_files(clone, since=old)
    assert "fetch-depth: 0" in exc.value.render()
    with pytest.raises(GitError, match="shallow"):
        changed_files(clone, since="HEAD~2")


def test_git_timeout_becomes_a_git_error(tmp_path, monkeypatch):
    root = make_repo(tmp_path / "ws")

    def slow(*a, **k):
        raise subprocess.TimeoutExpired(a[0], k.get("timeout"))

    monkeypatch.setattr(subprocess, "run", slow)
    with pytest.raises(GitError, match="took more than"):
        Git(root, timeout=0.01).ensure_repo()


def test_cli_change_errors_exit_2_without_traceback(tmp_path, cli):
    root = make_repo(tmp_path / "ws")
    (root / "pnpm-workspace.yaml").write_text("packages: []\n")
    (root / "package.json").write_text('{"name": "r"}\n')
    proc = cli("--repo", str(root), "--adapter", "pnpm", "tests", "--since", "no-such-ref")
    if "unknown adapter" in proc.stderr or "internal error" in proc.stderr and "No module" in proc.stderr:
        pytest.skip("pnpm adapter not available yet")
    assert proc.returncode == 2, proc.stderr
    assert "unknown git revision 'no-such-ref'" in proc.stderr
    assert "Traceback" not in proc.stderr


# ---------------------------------------------------------------- files -> nodes

def test_deleted_file_maps_to_its_former_owner_through_the_base_revision(tmp_path):
    root = make_repo(tmp_path / "ws")
    base = git(root, "rev-parse", "HEAD").strip()
    spec = json.loads(json.dumps(SPEC))
    spec["nodes"]["lib_b"]["srcs"] = []
    write(root, "toy.json", json.dumps(spec))
    git(root, "rm", "-q", "lib/b.c")
    git(root, "commit", "-qam", "drop b.c")
    # toy.json is a global file for this adapter: look at the deletion alone
    ws = open_ws(root)
    found = FileChanges([ChangedFile("lib/b.c", DELETED)], "test", base_rev=base)
    cs = change_set(ws.adapter, ws.graph, found, old_graph=lambda rev, paths: revision_graph(ws.adapter, rev, paths))
    # The current graph alone would say "some node in lib/" (lib_a and lib_b).
    assert cs.nodes == ["lib_b"]
    assert cs.reasons == {"lib_b": ["lib/b.c (deleted)"]}
    assert ws.tests(roots=cs.nodes).tests == ["b_test"]


def test_revision_graph_is_cached_by_tree_and_materializes_placeholders(tmp_path):
    root = make_repo(tmp_path / "ws")
    adapter = ToyAdapter(root)
    ToyAdapter.loads = 0
    g1 = revision_graph(adapter, "HEAD")
    g2 = revision_graph(adapter, "HEAD")
    assert ToyAdapter.loads == 1 and sorted(g1) == sorted(g2) == sorted(SPEC["nodes"])
    dest = tmp_path / "out"
    listing = _ls_tree(Git(root), git(root, "rev-parse", "HEAD^{tree}").strip())
    n = materialize_tree(Git(root), listing, dest, ("toy.json",))
    assert n == len(git(root, "ls-files").split())
    assert json.loads((dest / "toy.json").read_text()) == SPEC
    assert (dest / "core/core.c").read_text() == ""  # placeholder: path only


def test_placeholders_only_in_the_packages_of_the_looked_up_files(tmp_path):
    root = tmp_path / "bzl"
    for rel in ("WORKSPACE", "a/BUILD", "a/x.c", "a/sub/y.c", "a/sub/BUILD", "b/BUILD", "b/z.c", "c/w.c"):
        write(root, rel, f"# {rel}\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "i")
    listing = _ls_tree(Git(root), git(root, "rev-parse", "HEAD^{tree}").strip())
    pats = ("BUILD", "WORKSPACE")
    assert _placeholder_scope(listing, pats, ["a/x.c"]) == {"a"}
    assert _placeholder_scope(listing, pats, ["a/sub/deep/q.c", "b/z.c"]) == {"a/sub", "b"}
    assert _placeholder_scope(listing, pats, ["c/w.c"]) is None  # only the root holds a manifest
    assert _placeholder_scope(listing, (), ["a/x.c"]) is None
    dest = tmp_path / "out"
    materialize_tree(Git(root), listing, dest, pats, {"a"})
    written = sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file())
    assert written == ["WORKSPACE", "a/BUILD", "a/sub/BUILD", "a/sub/y.c", "a/x.c", "b/BUILD"]
    assert (dest / "a/BUILD").read_text() == "# a/BUILD\n" and (dest / "a/x.c").read_text() == ""


def test_rename_counts_both_sides_unless_the_tool_counts_the_destination_only(tmp_path):
    root = make_repo(tmp_path / "ws")
    base = git(root, "rev-parse", "HEAD").strip()
    moved = FileChanges([ChangedFile("app/moved.c", RENAMED, "lone/x.c")], "test", base_rev=base)
    ws = open_ws(root)
    cs = change_set(ws.adapter, ws.graph, moved, old_graph=lambda rev, paths: revision_graph(ws.adapter, rev, paths))
    assert cs.nodes == ["app", "app_test", "lone"]  # app/ has no owner of moved.c: its package's nodes
    assert cs.reasons["lone"] == ["lone/x.c (moved to app/moved.c)"]
    pnpm_like = open_ws(root, PnpmLikeToy)
    cs = change_set(pnpm_like.adapter, pnpm_like.graph, moved, old_graph=lambda rev, paths: revision_graph(pnpm_like.adapter, rev, paths))
    assert cs.nodes == ["app", "app_test"]


def test_global_file_changes_everything_and_names_the_file(tmp_path):
    root = make_repo(tmp_path / "ws")
    write(root, "config/build.cfg", "changed\n")
    write(root, "README.md", "unowned\n")
    ws = open_ws(root)
    cs = ws.changes(since="HEAD")
    assert cs.global_files == ["config/build.cfg"]
    assert cs.nodes == sorted(SPEC["nodes"])
    assert all(r == ["global change: config/build.cfg"] for r in cs.reasons.values())
    assert cs.unowned == ["README.md"]
    body = cs.as_json()
    assert body["global_files"] == ["config/build.cfg"] and body["unowned"] == ["README.md"]


def test_workspace_changes_feed_blast_radius_with_explain_paths(tmp_path):
    root = make_repo(tmp_path / "ws")
    write(root, "core/core.c", "edit\n")
    ws = open_ws(root)
    cs = ws.changes(since="HEAD")
    assert cs.nodes == ["core"] and cs.reasons == {"core": ["core/core.c"]}
    radius = ws.blast_radius(roots=cs.nodes)
    assert {a.id: a.path for a in radius.affected} == {
        "core": ["core"],
        "lib_a": ["lib_a", "core"],
        "app": ["app", "lib_a", "core"],
        "app_test": ["app_test", "app", "lib_a", "core"],
    }
    assert ws.tests(roots=cs.nodes).argv == ["toy", "test", "app_test"]
    assert ws.changes(base="HEAD", head="HEAD").nodes == []


def test_deleted_owner_changes_the_nodes_that_depended_on_it(tmp_path):
    root = make_repo(tmp_path / "ws")
    base = git(root, "rev-parse", "HEAD").strip()
    spec = json.loads(json.dumps(SPEC))
    del spec["nodes"]["lib_b"]
    spec["nodes"]["b_test"]["deps"] = []
    write(root, "toy.json", json.dumps(spec))
    git(root, "rm", "-q", "lib/b.c")
    ws = open_ws(root)
    found = FileChanges([ChangedFile("lib/b.c", DELETED)], "test", base_rev=base)
    cs = change_set(ws.adapter, ws.graph, found, old_graph=lambda rev, paths: revision_graph(ws.adapter, rev, paths))
    assert cs.nodes == ["b_test"]
    assert cs.reasons == {"b_test": ["lib/b.c (deleted), via removed lib_b"]}


def test_global_patterns_match_like_the_tools_globs():
    from ctxsel.affected import is_global

    pats = ("turbo.json", "**/.env", "config/*.cfg")
    assert is_global(pats, "turbo.json") and is_global(pats, ".env") and is_global(pats, "apps/web/.env")
    assert is_global(pats, "config/a.cfg")
    assert not is_global(pats, "apps/turbo.json") and not is_global(pats, "x.env")


def test_workspace_in_a_subdirectory_of_the_git_repository(tmp_path):
    outer = tmp_path / "mono"
    outer.mkdir()
    git(outer, "init", "-q", "-b", "main")
    root = outer / "ws"
    root.mkdir()
    write(root, "toy.json", json.dumps(SPEC))
    for n in SPEC["nodes"].values():
        for s in n["srcs"]:
            write(root, s)
    write(outer, "elsewhere/x.c")
    git(outer, "add", "-A")
    git(outer, "commit", "-qm", "init")
    git(outer, "rm", "-q", "ws/lib/b.c")
    write(outer, "elsewhere/x.c", "outside the workspace\n")
    write(root, "core/core.c", "inside\n")
    git(outer, "add", "-A")
    ws = open_ws(root)
    cs = ws.changes(staged=True)
    assert [f.path for f in cs.files] == ["core/core.c", "lib/b.c"]  # workspace-relative, nothing outside
    assert cs.nodes == ["core", "lib_b"]
    assert cs.reasons["lib_b"] == ["lib/b.c (deleted)"]


def test_unparsable_base_revision_falls_back_to_the_current_graph_with_a_warning(tmp_path):
    root = make_repo(tmp_path / "ws")
    write(root, "toy.json", "{ broken")
    git(root, "commit", "-qam", "break the manifest")
    base = git(root, "rev-parse", "HEAD").strip()
    write(root, "toy.json", json.dumps(SPEC))
    git(root, "commit", "-qam", "fix it")
    ws = open_ws(root)
    found = FileChanges([ChangedFile("lone/x.c", DELETED)], "test", base_rev=base)
    cs = change_set(ws.adapter, ws.graph, found, old_graph=lambda rev, paths: revision_graph(ws.adapter, rev, paths))
    assert cs.nodes == ["lone"]  # through the current graph
    assert len(cs.warnings) == 1 and "could not parse the graph of" in cs.warnings[0] and "not JSON" in cs.warnings[0]


def test_files_splits_on_commas_unless_the_whole_argument_is_a_file(tmp_path):
    """``--files a,b`` is Nx's list form, but ``docs/a,b.md`` is a valid file name: an argument
    naming a file that exists is one path, not two missing ones."""
    write(tmp_path, "docs/a,b.md", "x\n")
    write(tmp_path, "one.txt", "1\n")
    write(tmp_path, "two.txt", "2\n")
    fc = changed_files(tmp_path, files=["docs/a,b.md", "one.txt,two.txt", "gone,"])
    assert sorted((f.path, f.status) for f in fc.files) == [
        ("docs/a,b.md", MODIFIED), ("gone", DELETED), ("one.txt", MODIFIED), ("two.txt", MODIFIED)]
