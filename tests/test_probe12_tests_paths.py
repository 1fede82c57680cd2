"""A test selection never shows dependency paths, so it must not build them: they cost the
sum of all depths (on a 30,000-long chain, 450 million entries), on every pre-commit run."""

from __future__ import annotations

from toy_workspace import make_repo, open_ws


def test_tests_and_pre_commit_questions_build_no_paths(tmp_path, monkeypatch):
    ws = open_ws(make_repo(tmp_path / "ws"))
    expected = ws.tests(["core"]).tests
    assert expected  # the toy workspace has tests depending on core

    def no_paths(*args, **kwargs):
        raise AssertionError("paths_to called for a test selection")

    monkeypatch.setattr(ws.graph, "paths_to", no_paths)
    assert ws.tests(["core"]).tests == expected
    radius = ws.blast_radius(["core"], with_paths=False)
    assert [a.path for a in radius.affected] == [[a.id] for a in radius.affected]
