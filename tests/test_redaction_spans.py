"""A secret spanning many lines is redacted in every block that overlaps it.

Packing redacts the whole file once and slices blocks from the redacted lines: a block
that starts inside a private key (its BEGIN line in an earlier chunk) or ends before the
key's END line must not show the key's base64 lines.
"""

from __future__ import annotations

import base64
import json
import random
from pathlib import Path

import pytest
from conftest import run_git, write_tree

from ctxsel.packing import Candidate, pack_chunks, render_markdown
from ctxsel.secrets import Redaction, SecretRules
from ctxsel.select import SelectRequest, select
from ctxsel.tokenize import count_tokens

AWS = "AKIA" + "ZXCVBNMASDFGHJKL"  # built at run time: no token-shaped literal in this file
BEGIN = "-----BEGIN RSA " + "PRIVATE KEY-----"
END = "-----END RSA " + "PRIVATE KEY-----"


def _key_lines(n: int = 120, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    return [base64.b64encode(bytes(rng.randrange(256) for _ in range(48))).decode() for _ in range(n)]


KEY_LINES = _key_lines()


def _keys_file() -> tuple[str, int, int]:
    """A module with functions around a long PEM key; (text, BEGIN line, END line)."""
    head = [f"def helper_{i}(x):\n    return x + {i}\n\n" for i in range(6)]
    tail = [f"\ndef after_{i}(key):\n    return len(key) + {i}\n" for i in range(6)]
    before = "".join(head)
    text = before + 'KEY = """' + BEGIN + "\n" + "\n".join(KEY_LINES) + "\n" + END + '"""\n' + "".join(tail)
    begin = before.count("\n") + 1
    return text, begin, begin + len(KEY_LINES) + 1


def _assert_no_key(out: str) -> None:
    for line in KEY_LINES:
        assert line not in out
        assert line[:24] not in out  # not even part of a line


@pytest.fixture(scope="module")
def key_repo(tmp_path_factory) -> tuple[Path, int, int]:
    root = tmp_path_factory.mktemp("pem") / "repo"
    text, begin, end = _keys_file()
    write_tree(root, {"app/keys.py": text, "app/other.py": "def keys_other():\n    return 'keys'\n"})
    run_git(root, "init", "-q")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", "init")
    return root, begin, end


def test_keys_file_is_chunked_inside_the_key(key_repo) -> None:
    # the premise of the other tests: some packed block starts or ends strictly inside the key
    root, begin, end = key_repo
    blocks = [b for budget in range(100, 3001, 97)
              for b in select(root, SelectRequest(query="keys", budget=budget)).packed.blocks
              if b.path == "app/keys.py"]
    assert any(begin < b.start_line <= end or begin <= b.end_line < end for b in blocks)


def test_no_key_line_in_any_budget(key_repo) -> None:
    root, begin, end = key_repo
    results = {budget: select(root, SelectRequest(query="keys", budget=budget)) for budget in range(100, 3001, 97)}
    for result in results.values():
        _assert_no_key(json.dumps(result.as_json()))
        _assert_no_key(result.markdown())
    overlapping = 0
    for budget, result in results.items():
        body = result.as_json()
        reported = {(r["path"], r["line"], r["rule"]) for r in body["redactions"]}
        for chunk in body["chunks"]:
            _assert_no_key(chunk["text"])
            if chunk["path"] == "app/keys.py" and chunk["start_line"] <= end and chunk["end_line"] >= begin:
                overlapping += 1
                assert ("app/keys.py", begin, "private-key") in reported, (budget, chunk["start_line"])
        for b in result.packed.blocks:
            if b.path == "app/keys.py" and b.start_line <= end and b.end_line >= begin:
                assert any(r.rule == "private-key" and r.line == begin and r.end_line == end for r in b.redactions)
    assert overlapping


@pytest.mark.parametrize("budget", [197, 700, 1455])
def test_cli_leaks_no_key_line(cli, key_repo, budget: int) -> None:
    root, begin, _ = key_repo
    for fmt in ("json", "markdown"):
        proc = cli("--repo", str(root), "-q", "select", "keys", "--budget", str(budget), "--format", fmt)
        assert proc.returncode == 0, proc.stderr
        _assert_no_key(proc.stdout)
        if fmt == "json":
            out = json.loads(proc.stdout)
            if any(c["path"] == "app/keys.py" for c in out["chunks"]):
                assert {"path": "app/keys.py", "line": begin, "rule": "private-key"} in out["redactions"]


def test_pack_chunks_block_starting_inside_the_key() -> None:
    text, begin, end = _keys_file()
    lines = text.split("\n")
    start = begin + 10  # the BEGIN line is not in this block
    cands = [Candidate("app/keys.py", start, start + 20, 1.0, ["r"])]
    packed = pack_chunks(cands, 5000, lambda p: lines if p == "app/keys.py" else None)
    (block,) = packed.blocks
    _assert_no_key(block.text)
    _assert_no_key(render_markdown(packed))
    assert block.text.count("\n") == 20  # line numbers stay true
    assert block.redactions == [Redaction("app/keys.py", begin, "private-key", end)]
    assert packed.redactions == block.redactions
    original = "\n".join(lines[start - 1:start + 20]) + "\n"
    assert block.tokens >= count_tokens(original)  # tokens describe the original lines


def test_pack_chunks_blocks_ending_before_end_and_apart_inside_the_key() -> None:
    text, begin, end = _keys_file()
    lines = text.split("\n")
    cands = [
        Candidate("app/keys.py", begin - 2, begin + 5, 1.0, ["a"]),  # ends before END
        Candidate("app/keys.py", begin + 40, begin + 50, 0.9, ["b"]),  # wholly inside
        Candidate("app/keys.py", end - 3, end + 2, 0.8, ["c"]),  # starts inside, ends after END
        Candidate("app/keys.py", end + 4, end + 6, 0.7, ["d"]),  # after the key: no redaction
    ]
    packed = pack_chunks(cands, 5000, lambda p: lines)
    assert len(packed.blocks) == 4
    for b in packed.blocks:
        _assert_no_key(b.text)
        overlaps = b.start_line <= end and b.end_line >= begin
        assert [r.rule for r in b.redactions] == (["private-key"] if overlaps else [])
    # one span overlapping three blocks is reported once
    assert packed.redactions == [Redaction("app/keys.py", begin, "private-key", end)]


def test_scope_line_is_still_redacted() -> None:
    lines = [f"def connect(key='{AWS}'):", "    return key", ""]
    cands = [Candidate("app/c.py", 2, 2, 1.0, ["r"], scope=lines[0])]
    packed = pack_chunks(cands, 5000, lambda p: lines)
    (block,) = packed.blocks
    assert AWS not in block.scope and "[REDACTED:aws-access-key]" in block.scope
    assert AWS not in render_markdown(packed)


def test_redaction_end_line() -> None:
    text, begin, end = _keys_file()
    _, found = SecretRules().redact(text, "app/keys.py")
    assert found == [Redaction("app/keys.py", begin, "private-key", end)]
    _, found = SecretRules().redact(f"x = 1\nk = '{AWS}'\n", "a.py", first_line=5)
    assert found == [Redaction("a.py", 6, "aws-access-key")] and found[0].end_line == 6
