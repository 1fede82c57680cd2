"""A hostile repository cannot make ctxsel unpickle its files, nor read or write caches outside itself.

ctxsel's caches are pickles under ``<repo>/.ctxsel/``, a directory of a work tree that
someone else may have written: a cloned repository can ship ``.ctxsel/index/meta.pickle``
(``git add -f``) whose unpickling runs code, or a symlink ``.ctxsel -> ../elsewhere``.
``ctxsel.safepickle`` authenticates every cache file with a per-user key kept outside the
repository and refuses symlinked cache directories; these tests plant both attacks.
"""

from __future__ import annotations

import hmac
import json
import os
import pickle
from pathlib import Path

import pytest
from conftest import run_git, write_tree

from ctxsel import safepickle
from ctxsel.cache import cache_path, cached_graph
from ctxsel.graph import BuildGraph
from ctxsel.index import index_dir, update_index

GRAPH_KEY = "pnpm-static-auto"  # the graph cache of a pnpm workspace under default options


class Plant:
    """Unpickling this creates ``marker``: the proof that a planted pickle was executed."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (open, (str(self.marker), "w"))


@pytest.fixture(autouse=True)
def key_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A key of the tests' own (inherited by CLI subprocesses): the real home is never touched."""
    path = tmp_path / "user-cache" / "pickle.key"
    monkeypatch.setenv("CTXSEL_KEY_FILE", str(path))
    monkeypatch.setattr(safepickle, "_keys", {})
    return path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    write_tree(root, {
        "pnpm-workspace.yaml": "packages:\n  - 'packages/*'\n",
        "package.json": '{"name": "root", "private": true}\n',
        "packages/core/package.json": '{"name": "@x/core", "version": "1.0.0"}\n',
        "packages/app/package.json": '{"name": "@x/app", "version": "1.0.0", "dependencies": {"@x/core": "workspace:*"}}\n',
        "packages/core/src/foo.ts": "export function foo(s: string): string {\n  return s.trim();\n}\n",
        "packages/app/src/main.ts": "import { foo } from '@x/core';\nexport const app = foo(' a ');\n",
    })
    run_git(root, "init", "-q")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", "init")
    return root


def _index_stats(cli, root: Path) -> dict:
    proc = cli("--repo", str(root), "-q", "index", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _select(cli, root: Path) -> dict:
    proc = cli("--repo", str(root), "-q", "select", "foo", "--seed", "packages/core/src/foo.ts", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _tree(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


# ---------------------------------------------------------------- (a) forged pickles
def test_committed_pickles_in_a_clone_are_not_executed(cli, repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    evil = pickle.dumps(Plant(marker))
    write_tree(repo, {".ctxsel/index/meta.pickle": evil, f".ctxsel/cache/graph-{GRAPH_KEY}.pickle": evil})
    run_git(repo, "add", "-f", ".ctxsel")
    run_git(repo, "commit", "-qm", "a cache nobody should trust")
    clone = tmp_path / "clone"
    run_git(tmp_path, "clone", "-q", str(repo), str(clone))
    assert (clone / ".ctxsel" / "index" / "meta.pickle").read_bytes() == evil

    out = _select(cli, clone)
    assert not marker.exists()
    assert any(c["path"] == "packages/app/src/main.ts" for c in out["chunks"])
    stats = _index_stats(cli, clone)
    assert not marker.exists()
    assert stats["files"] == stats["unchanged"] > 0  # rebuilt by select, reused by index
    # both planted files were replaced by authenticated ones at the very paths ctxsel reads
    assert isinstance(safepickle.load(index_dir(clone) / "meta.pickle", clone), dict)
    assert safepickle.load(cache_path(clone, GRAPH_KEY), clone) is not None


def test_every_tampered_cache_file_is_ignored_and_rebuilt(cli, repo: Path, tmp_path: Path) -> None:
    _select(cli, repo)  # fills the graph cache, the index, bm25 and co-change caches
    planted = sorted((repo / ".ctxsel").rglob("*.pickle"))
    names = {p.name for p in planted}
    assert {"meta.pickle", "terms.pickle", "bm25.pickle", f"graph-{GRAPH_KEY}.pickle"} <= names
    assert any(n.startswith("cochange-") for n in names)
    marker = tmp_path / "pwned"
    for p in planted:
        p.write_bytes(pickle.dumps(Plant(marker)))

    _select(cli, repo)
    stats = _index_stats(cli, repo)
    assert not marker.exists()
    assert stats["files"] == stats["unchanged"] > 0
    for p in planted:  # each one rebuilt and signed again
        if p.exists():
            assert safepickle.load(p, repo) is not None, p


def test_a_pickle_signed_with_another_key_or_altered_is_refused(tmp_path: Path, key_file: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    marker = tmp_path / "pwned"
    path = tmp_path / ".ctxsel" / "index" / "x.pickle"
    assert safepickle.dump(Plant(marker), path, tmp_path)
    assert not marker.exists()  # pickling runs nothing; only unpickling would
    signed = path.read_bytes()
    body = signed[safepickle.HEADER:]

    path.write_bytes(body)  # a bare pickle, as the old code wrote
    assert safepickle.load(path, tmp_path) is None
    path.write_bytes(signed[:-1] + bytes([signed[-1] ^ 1]))  # one bit changed
    assert safepickle.load(path, tmp_path) is None
    monkeypatch.setenv("CTXSEL_KEY_FILE", str(tmp_path / "other-user.key"))  # someone else's key
    path.write_bytes(signed)
    assert safepickle.load(path, tmp_path) is None
    assert not marker.exists()


# ---------------------------------------------------------------- (b) symlinked .ctxsel
@pytest.mark.parametrize("link", [".ctxsel", ".ctxsel/index"])
def test_a_symlinked_cache_dir_is_neither_written_nor_read(cli, repo: Path, tmp_path: Path, link: str) -> None:
    elsewhere = tmp_path / "elsewhere"
    marker = tmp_path / "pwned"
    # A validly signed payload outside the repo: only the location check keeps it from running.
    outside = elsewhere / "index" if link == ".ctxsel" else elsewhere
    for target in (outside / "meta.pickle", (elsewhere / "cache" / f"graph-{GRAPH_KEY}.pickle")):
        assert safepickle.dump(Plant(marker), target, tmp_path)
    if link == ".ctxsel/index":
        (repo / ".ctxsel").mkdir()
    os.symlink(elsewhere, repo / link)
    before = _tree(elsewhere)

    out = _select(cli, repo)
    stats = _index_stats(cli, repo)
    assert any(c["path"] == "packages/app/src/main.ts" for c in out["chunks"])
    assert stats["added"] == stats["files"] > 0  # nothing stored, so nothing reused: rebuilt each run
    assert _tree(elsewhere) == before
    assert not marker.exists()
    assert cli("--repo", str(repo), "-q", "index", "--rebuild").returncode == 0
    assert _tree(elsewhere) == before  # --rebuild deletes nothing through the link either


def test_trusted_dir_refuses_links_and_escapes(tmp_path: Path) -> None:
    root = tmp_path / "r"
    (root / ".ctxsel" / "index").mkdir(parents=True)
    (tmp_path / "out").mkdir()
    os.symlink(tmp_path / "out", root / ".ctxsel" / "linked")
    assert safepickle.trusted_dir(root, root / ".ctxsel" / "index")
    assert not safepickle.trusted_dir(root, root / ".ctxsel" / "linked")
    assert not safepickle.trusted_dir(root, root / ".ctxsel" / "linked" / "deeper", create=True)
    assert not (tmp_path / "out" / "deeper").exists()
    assert not safepickle.trusted_dir(root, root / ".." / "out")
    assert not safepickle.trusted_dir(root, tmp_path / "out")
    assert safepickle.trusted_dir(root, root / ".ctxsel" / "new" / "dir", create=True)
    assert (root / ".ctxsel" / "new" / "dir").is_dir()


# ---------------------------------------------------------------- (c) the cache still works
def test_round_trip_and_reuse(cli, repo: Path, tmp_path: Path, key_file: Path) -> None:
    path = tmp_path / ".ctxsel" / "cache" / "x.pickle"
    value = {"a": [1, 2, (3, "x")], "b": b"\0" * (2 << 20)}  # above OPENSSL_ABOVE: both MAC paths
    assert safepickle.dump(value, path, tmp_path)
    assert safepickle.load(path, tmp_path) == value
    assert safepickle.dump({"small": 1}, path, tmp_path)
    assert safepickle.load(path, tmp_path) == {"small": 1}
    assert key_file.stat().st_mode & 0o777 == 0o600 and len(key_file.read_bytes()) == 32

    first = _index_stats(cli, repo)
    second = _index_stats(cli, repo)
    assert first["added"] == first["files"] > 0
    assert (second["added"], second["changed"], second["unchanged"]) == (0, 0, first["files"])

    builds: list[int] = []

    def build(tracker) -> BuildGraph:  # type: ignore[no-untyped-def]
        builds.append(1)
        return BuildGraph("test", str(repo))

    cached_graph(repo, "trust-test", build)
    hit = cached_graph(repo, "trust-test", build)
    assert len(builds) == 1 and hit.root == str(repo)


def test_hmac_matches_the_standard_library() -> None:
    secret = os.urandom(32)
    for size in (0, 1, 63, 64, 65, 4096, safepickle.OPENSSL_ABOVE, safepickle.OPENSSL_ABOVE + 1):
        data = os.urandom(size)
        assert safepickle.hmac_sha256(secret, data) == hmac.digest(secret, data, "sha256")
        assert safepickle.hmac_sha256(secret, memoryview(data)) == hmac.digest(secret, data, "sha256")


def test_unwritable_key_location_falls_back_to_a_process_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    monkeypatch.setenv("CTXSEL_KEY_FILE", str(blocker / "pickle.key"))
    path = tmp_path / ".ctxsel" / "index" / "x.pickle"
    assert safepickle.dump([1, 2], path, tmp_path)
    assert safepickle.load(path, tmp_path) == [1, 2]  # same process, same key
    monkeypatch.setattr(safepickle, "_keys", {})  # a new process: a new random key
    assert safepickle.load(path, tmp_path) is None


def test_index_in_process_reuses_and_rejects(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def a():\n    return 1\n")
    update_index(tmp_path)
    assert update_index(tmp_path).stats.unchanged == 1
    meta = index_dir(tmp_path) / "meta.pickle"
    meta.write_bytes(meta.read_bytes()[safepickle.HEADER:])  # valid pickle, no valid MAC
    assert update_index(tmp_path).stats.added == 1
