"""``blast-radius``/``tests`` with change selectors and ``--explain`` (in-process CLI, toy adapter)."""

from __future__ import annotations

import json

from ctxsel.cli import main
from toy_workspace import SPEC, git, make_repo, register, write


def run(root, *args: str) -> int:
    return main(["--repo", str(root), "--adapter", "toy", *args])


def test_blast_radius_since_ref_with_explain_text_and_json(tmp_path, monkeypatch, capsys):
    register(monkeypatch)
    root = make_repo(tmp_path / "ws")
    write(root, "core/core.c", "edit\n")
    assert run(root, "blast-radius", "--since", "HEAD", "--explain") == 0
    assert capsys.readouterr().out.splitlines() == [
        "core   [core/core.c]",
        "lib_a -> core   [core/core.c]",
        "app -> lib_a -> core   [core/core.c]",
        "app_test -> app -> lib_a -> core   [core/core.c]",
    ]
    assert run(root, "blast-radius", "--since", "HEAD", "--explain", "--format", "json") == 0
    body = json.loads(capsys.readouterr().out)
    assert body["schema_version"] == 1 and body["roots"] == ["core"]
    assert {a["id"]: (a["path"], a["because"]) for a in body["affected"]}["app"] == (["app", "lib_a", "core"], ["core/core.c"])
    assert body["changes"]["changed_nodes"] == {"core": ["core/core.c"]}


def test_positional_targets_and_selectors_combine(tmp_path, monkeypatch, capsys):
    register(monkeypatch)
    root = make_repo(tmp_path / "ws")
    write(root, "lib/b.c", "edit\n")
    assert run(root, "blast-radius", "lone", "--files", "lib/b.c", "--format", "labels") == 0
    assert capsys.readouterr().out.split() == ["lib_b", "lone", "b_test"]
    assert run(root, "tests", "--files", "lib/b.c", "--format", "command") == 0
    assert capsys.readouterr().out == "toy test b_test\n"


def test_base_head_range_and_global_change_note(tmp_path, monkeypatch, capsys):
    register(monkeypatch)
    root = make_repo(tmp_path / "ws")
    a = git(root, "rev-parse", "HEAD").strip()
    write(root, "config/build.cfg", "global\n")
    git(root, "commit", "-qam", "cfg")
    assert run(root, "tests", "--base", a, "--head", "HEAD", "--format", "json", "--explain") == 0
    cap = capsys.readouterr()
    body = json.loads(cap.out)
    assert body["tests"] == ["app_test", "b_test"]
    assert body["changes"]["global_files"] == ["config/build.cfg"]
    assert all(row["path"] == [row["id"]] and row["because"] == ["global change: config/build.cfg"] for row in body["explain"])
    assert "global change: config/build.cfg affects every target" in cap.err
    assert run(root, "blast-radius", "--base", a, "--format", "labels") == 0
    assert sorted(capsys.readouterr().out.split()) == sorted(SPEC["nodes"])


def test_no_inputs_at_all_is_a_user_error_and_empty_change_is_not(tmp_path, monkeypatch, capsys):
    register(monkeypatch)
    root = make_repo(tmp_path / "ws")
    assert run(root, "blast-radius") == 2
    assert "nothing to start from" in capsys.readouterr().err
    assert run(root, "tests", "--since", "HEAD") == 0
    cap = capsys.readouterr()
    assert cap.out.strip() == "no tests depend on the change"
    assert "no changed files" in cap.err
    assert run(root, "tests", "--since", "HEAD~5") == 2
    assert "unknown git revision 'HEAD~5'" in capsys.readouterr().err


def test_json_with_changes_and_explain_matches_the_published_schemas(tmp_path, monkeypatch, capsys):
    jsonschema = __import__("pytest").importorskip("jsonschema")
    from ctxsel.render import json_schema

    register(monkeypatch)
    root = make_repo(tmp_path / "ws")
    git(root, "mv", "lone/x.c", "core/x.c")
    write(root, "config/build.cfg", "global\n")
    git(root, "rm", "-q", "lib/b.c")
    for command, schema in (("blast-radius", "blast-radius"), ("tests", "tests")):
        assert run(root, command, "--since", "HEAD", "--explain", "--format", "json") == 0
        body = json.loads(capsys.readouterr().out)
        jsonschema.validate(body, json_schema(schema))
        statuses = {f["path"]: f["status"] for f in body["changes"]["files"]}
        assert statuses == {"config/build.cfg": "M", "core/x.c": "R", "lib/b.c": "D"}
