"""Co-change history in a shallow clone (session 26, helper hu).

Measured on jaredpalmer/formik: in ``git clone --depth 5``, ``--repo packages/formik`` (31 tracked
files), the seed ``src/Field.tsx`` had 1 "co-change" commit with 30 files: the clone's grafted
boundary commit, which ``git log --name-only`` lists as adding every file it holds. The full
clone's real answer for the same seed is 12 commits, none of them that one. A boundary commit
is no change (git's own record of it is ``.git/shallow``), so it is left out; and an answer
cached while shallow is not reused after ``git fetch --unshallow`` (HEAD does not move).
The reference is git itself: the full clone's history over the same commits.
"""

from __future__ import annotations

from pathlib import Path

from conftest import run_git, write_tree

from ctxsel.cochange import cochanged_files, cochanged_files_many


def _origin(tmp_path: Path) -> Path:
    """Ten files, then commits that change the seed with one partner each; the newest changes other.py."""
    root = write_tree(tmp_path / "origin", {f"pkg/f{i}.py": f"x = {i}\n" for i in range(10)})
    write_tree(root, {"pkg/seed.py": "s = 0\n", "pkg/other.py": "o = 0\n"})
    run_git(root, "init", "-q", ".")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", "import")
    for n, partner in enumerate(["pkg/f1.py", "pkg/f2.py", "pkg/f1.py"]):
        write_tree(root, {"pkg/seed.py": f"s = {n + 1}\n", partner: f"changed = {n}\n"})
        run_git(root, "commit", "-qam", f"seed and {partner}")
    write_tree(root, {"pkg/other.py": "o = 1\n"})
    run_git(root, "commit", "-qam", "other only")
    return root


def _clone(origin: Path, dest: Path, *flags: str) -> Path:
    run_git(origin.parent, "clone", "-q", *flags, f"file://{origin}", str(dest))
    return dest


def test_a_shallow_boundary_is_no_co_change(tmp_path: Path) -> None:
    origin = _origin(tmp_path)
    full = _clone(origin, tmp_path / "full")
    shallow = _clone(origin, tmp_path / "shallow", "--depth", "3")  # boundary: "seed and pkg/f2.py"
    assert (shallow / ".git" / "shallow").is_file()
    real = cochanged_files(full, "pkg/seed.py")  # the import commit too: it is history, not a graft
    assert real.commits == 4 and real.files["pkg/f1.py"] == 3 and real.files["pkg/f2.py"] == 2
    for got in (cochanged_files(shallow, "pkg/seed.py"),
                cochanged_files_many(shallow, ["pkg/seed.py", "pkg/f1.py"])["pkg/seed.py"]):
        # only the one real commit in the clone ("seed and pkg/f1.py"), not the boundary's eleven files
        assert got.commits == 1 and got.files == {"pkg/f1.py": 1}
    # the same under a sub-directory as --repo (git log --relative)
    sub = cochanged_files(shallow / "pkg", "seed.py")
    assert sub.commits == 1 and sub.files == {"f1.py": 1}


def test_unshallowing_refreshes_the_cached_answer(tmp_path: Path) -> None:
    origin = _origin(tmp_path)
    full = _clone(origin, tmp_path / "full")
    clone = _clone(origin, tmp_path / "clone", "--depth", "2")
    (clone / ".ctxsel").mkdir()  # where the answers are cached
    before = cochanged_files(clone, "pkg/seed.py")
    assert before.commits == 0 and before.files == {}  # the only commit with the seed is the boundary
    run_git(clone, "fetch", "-q", "--unshallow")
    after = cochanged_files(clone, "pkg/seed.py")
    real = cochanged_files(full, "pkg/seed.py")
    assert (after.commits, after.files) == (real.commits, real.files) and real.commits == 4
