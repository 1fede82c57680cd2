"""Session 12 probe of ``index`` / ``select`` / ``mcp`` with hostile repositories and clients.

Each test names the input that broke a promise before the fix (crash, hang, leak, budget
overflow) and checks the promise itself, not an implementation detail.
"""

from __future__ import annotations

import base64
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import run_cli, run_git, write_tree

from ctxsel.errors import UserError
from ctxsel.secrets import SecretRules
from ctxsel.select import SelectRequest, select
from ctxsel.tokenize import count_tokens


def _git_repo(root: Path, files: dict[str, str | bytes]) -> Path:
    write_tree(root, files)
    run_git(root, "init", "-q")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-qm", "init")
    return root


# ---------------------------------------------------------------- crashes
def test_a_file_name_that_is_not_utf8_is_skipped_not_a_crash(tmp_path):
    """Old: ``internal error: UnicodeEncodeError ... surrogates not allowed`` (exit 1) from any
    git repository holding a file named with a byte like 0xff."""
    repo = _git_repo(tmp_path, {"a.py": "def hello():\n    return 1\n"})
    bad = os.fsdecode(b"\xff\xfe.py")
    (repo / bad).write_text("def latin1_named():\n    pass\n")
    out = run_cli("select", "hello latin1_named", "--budget", "500", "--format", "json", cwd=repo)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert [c["path"] for c in doc["chunks"]] == ["a.py"]
    index = run_cli("index", "--format", "json", cwd=repo)
    assert index.returncode == 0, index.stderr
    assert json.loads(index.stdout)["skipped"] == {"bad-name": 1}


@pytest.mark.parametrize("pattern, ignored, kept", [
    ("[z-a]", [], ["z.py", "a.py"]),          # reversed range: matches nothing (git's wildmatch)
    ("[]]x.py", ["]x.py"], ["a.py"]),           # "]" first in a bracket is literal
    ("[!]]*.py", ["a.py"], ["]x.py"]),
    ("[[:digit:]]*.py", ["1.py"], ["a.py"]),    # POSIX class
])
def test_odd_brackets_in_ctxselignore_are_read_like_git(tmp_path, pattern, ignored, kept):
    """Old: ``[z-a]`` / ``[]]`` / ``[!]]`` became invalid regexes: internal error (exit 1)
    on every run of the repository."""
    files = {name: "def f():\n    return 1\n" for name in ["a.py", "z.py", "]x.py", "1.py"]}
    write_tree(tmp_path, {**files, ".ctxselignore": pattern + "\n"})
    out = run_cli("index", "--format", "json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    from ctxsel.files import list_repo_files

    listed = {f.path for f in list_repo_files(tmp_path).files}
    assert not listed & set(ignored)
    assert set(kept) <= listed


def test_api_budget_must_be_a_whole_number(tmp_path):
    """Old: ``budget=float("nan")`` packed everything (every ``used + n > nan`` is False);
    a string crashed with TypeError; ``True`` was a budget of one."""
    write_tree(tmp_path, {f"m{i}.py": f"def fn{i}():\n    return {i}\n" * 30 for i in range(20)})
    for bad in (float("nan"), float("inf"), 10.5, "100", True, None):
        with pytest.raises(UserError):
            select(str(tmp_path), SelectRequest(query="fn", budget=bad))  # type: ignore[arg-type]
    assert select(str(tmp_path), SelectRequest(query="fn", budget=300)).packed.tokens <= 300


@pytest.mark.parametrize("seed", ["a\0b", "x" * 5000, "d/" * 3000 + "f.py"], ids=["nul", "long-name", "deep-path"])
def test_api_seeds_the_file_system_cannot_hold_are_user_errors_or_plain_names(tmp_path, seed):
    """Old: a NUL in ``seeds``/``files`` crashed with ValueError (embedded null byte)."""
    write_tree(tmp_path, {"a.py": "def f():\n    return 1\n"})
    for request in (SelectRequest(query="f", seeds=[seed]), SelectRequest(query="f", files=[seed])):
        try:
            result = select(str(tmp_path), request)
        except UserError:
            continue
        assert "\0" not in seed and result.packed.tokens <= request.budget


# ---------------------------------------------------------------- hangs
def _fifo(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_planted_as_an_index_file_does_not_hang_select(tmp_path):
    """Old: ``.ctxsel/index/meta.pickle`` as a FIFO made every ``select`` wait forever."""
    write_tree(tmp_path, {"a.py": "def hello():\n    return 1\n"})
    _fifo(tmp_path / ".ctxsel" / "index" / "meta.pickle")
    _fifo(tmp_path / ".ctxsel" / "index" / "bm25.pickle")
    proc = subprocess.run([sys.executable, "-m", "ctxsel", "select", "hello", "--format", "paths"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["a.py"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_manifest_reads_refuse_fifos_and_directories_at_once(tmp_path):
    """``InputTracker.read_bytes`` (every graph loader's read): a FIFO named like a manifest
    is refused with an OSError instead of blocking on open."""
    from ctxsel.cache import InputTracker
    from ctxsel.paths import open_regular

    _fifo(tmp_path / "BUILD")
    (tmp_path / "dir").mkdir()
    (tmp_path / "ok").write_bytes(b"x")
    started = time.monotonic()
    for name in ("BUILD", "dir"):
        with pytest.raises(OSError):
            InputTracker(tmp_path).read_bytes(tmp_path / name)
    assert time.monotonic() - started < 5
    assert InputTracker(tmp_path).read_bytes(tmp_path / "ok") == b"x"
    (tmp_path / "link").symlink_to(tmp_path / "ok")
    with pytest.raises(OSError):
        open_regular(tmp_path / "link", follow=False)


def test_an_oversized_cache_file_is_not_read(tmp_path, monkeypatch):
    """A sparse file with a valid header must not make a run allocate its apparent size."""
    from ctxsel import safepickle

    target = tmp_path / ".ctxsel" / "index" / "meta.pickle"
    assert safepickle.dump({"k": 1}, target, tmp_path)
    assert safepickle.load(target, tmp_path) == {"k": 1}
    monkeypatch.setattr(safepickle, "MAX_BYTES", 16)
    assert safepickle.load(target, tmp_path) is None


# ---------------------------------------------------------------- secrets
_KEY_B64 = base64.b64encode(b"-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAt3st\n-----END RSA PRIVATE KEY-----\n").decode()
_CERT_B64 = base64.b64encode(b"-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n").decode()


@pytest.mark.parametrize("path, text, secret", [
    # kubeconfig: the client key is a base64 PEM (no BEGIN line to see), under a name with no hint
    ("deploy/cluster.yaml", f"users:\n- name: admin\n  user:\n    client-key-data: {_KEY_B64}\n", _KEY_B64[20:60]),
    # unquoted literals in configuration files
    ("app.ini", "[db]\nhost = localhost\npassword = hunter2\n", "hunter2"),
    ("conf/db.properties", "db.password=hunter2x\n", "hunter2x"),
    # the line before ("db:") took "password" as its value and hid the assignment
    ("settings.yaml", "db:\n  password: S3cr3tP@ss\n", "S3cr3tP@ss"),
    # npm's _auth and Docker's "auth": base64(user:password)
    ("ci/npmrc.txt", "_auth = dXNlcjpzM2NyM3RwYXNzd29yZA==\n", "dXNlcjpzM2NyM3RwYXNzd29yZA"),
    ("ci/docker.json", '{"auths": {"registry.example.com": {"auth": "dXNlcjpzM2NyM3RwYXNzd29yZA=="}}}', "dXNlcjpzM2NyM3Rw"),
    # HTTP Authorization headers in scripts and docs
    ("scripts/call.sh", "curl -H 'Authorization: Bearer q8Zr2LmX0vT7wKp4NsY1bHc9' https://api\n", "q8Zr2LmX0vT7wKp4NsY1bHc9"),
    ("docs/api.md", "Authorization: Basic dXNlcjpzM2NyM3RwYXNzd29yZA==\n", "dXNlcjpzM2NyM3RwYXNzd29yZA"),
], ids=["kubeconfig-key", "ini", "properties", "yaml-after-key", "npm-auth", "docker-auth", "bearer", "basic"])
def test_secret_spans_the_old_rules_let_through(path, text, secret):
    redacted, found = SecretRules().redact(text, path)
    assert secret not in redacted and found
    assert redacted.count("\n") == text.count("\n")


@pytest.mark.parametrize("path, text", [
    ("deploy/cluster.yaml", f"clusters:\n- cluster:\n    certificate-authority-data: {_CERT_B64}\n"),  # public
    ("app.ini", "password = changeme\n"),              # a placeholder
    ("app.yaml", "password: ${DB_PASSWORD}\n"),        # a reference
    ("app.py", "password = hunter2\n"),                # code: an identifier, not a literal
    ("docs/auth.md", "Authorization: Bearer YOUR_TOKEN_HERE\nBasic internationalization support.\n"),
    ("src/lex.ts", "function f(t: Token): Token getNextTokenAfterParen2 {}\nBearer authenticationScheme2X\n"),
    ("src/book.py", 'author = "Jane Doe"\noauth_flow = "authorizationcode"\n'),
], ids=["certificate", "placeholder", "reference", "identifier", "doc-placeholder", "code", "author"])
def test_look_alikes_stay_readable(path, text):
    assert SecretRules().redact(text, path) == (text, [])


@pytest.mark.parametrize("path", ["kubeconfig", "ops/prod.kubeconfig", "home/.kube/config", ".vault-token",
                                  ".s3cfg", ".boto", ".my.cnf", ".terraformrc"])
def test_more_credential_files_are_never_indexed(path):
    assert SecretRules().is_secret_file(path)


def test_kubeconfig_key_never_reaches_the_output(cli, tmp_path):
    write_tree(tmp_path, {
        "deploy/cluster.yaml": f"apiVersion: v1\nusers:\n- name: admin\n  user:\n    client-key-data: {_KEY_B64}\n",
        "kubeconfig": f"client-key-data: {_KEY_B64}\n",
    })
    out = cli("select", "admin client key cluster", "--budget", "2000", "--format", "json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert _KEY_B64[:40] not in out.stdout and "kubeconfig" not in [c["path"] for c in json.loads(out.stdout)["chunks"]]
    assert [r["rule"] for r in json.loads(out.stdout)["redactions"]] == ["private-key"]


def test_a_pattern_added_later_re_redacts_the_stored_search_terms(tmp_path):
    """Old: the index key ignored ``[secrets] patterns``, so terms indexed before the pattern
    was added kept the secret in ``.ctxsel/index/terms.pickle``."""
    from ctxsel.files import FileSettings
    from ctxsel.index import update_index
    from ctxsel.repoconfig import load_repo_config

    write_tree(tmp_path, {"a.py": "HOOK = 'acme-zqxjkvbwplmn'\n"})
    update_index(tmp_path, file_settings=FileSettings())
    (tmp_path / ".ctxsel.toml").write_text('[secrets]\npatterns = [{ name = "acme", regex = "acme-[a-z]{12}" }]\n')
    settings = FileSettings.from_config(load_repo_config(tmp_path))
    index = update_index(tmp_path, file_settings=settings)
    stored = " ".join(t for chunks in index.terms.values() for t in chunks)
    assert "redacted acme" in stored
    assert "zqxjkvbwplmn" not in stored


# ---------------------------------------------------------------- budget on odd text
_ODD = st.sampled_from([
    "中文文本", "😀", "\u200b", "\ufeff", "é", "\r\n", "\r", "\n", "```", "````", "a" * 13, "x" * 40, "{[(", "\t",
    "def f():", "    return 1", "\xff", "\ufffd", "ab", "0123456789",
])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(st.lists(_ODD, min_size=1, max_size=60), min_size=1, max_size=4),
       budget=st.one_of(st.integers(1, 40), st.integers(41, 3000)))
def test_markdown_of_odd_text_fits_the_budget(tmp_path_factory, parts, budget):
    root = tmp_path_factory.mktemp("odd")
    for i, p in enumerate(parts):
        (root / f"f{i}.py").write_bytes(("".join(p) + "\ndef f():\n    return 1\n").encode("utf-8", "surrogatepass"))
    result = select(str(root), SelectRequest(query="f return 中文 😀", budget=budget))
    assert result.packed.tokens <= budget
    assert count_tokens(result.markdown()) <= budget
    assert not math.isnan(result.packed.tokens)


# ---------------------------------------------------------------- MCP over the wire
def _rpc(proc: subprocess.Popen, line: bytes, timeout: float = 60) -> dict | None:
    import select as io_select

    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(line + b"\n")
    proc.stdin.flush()
    ready, _, _ = io_select.select([proc.stdout], [], [], timeout)
    return json.loads(proc.stdout.readline()) if ready else None


def test_mcp_answers_malformed_messages_with_json_rpc_errors(tmp_path):
    """Old: a line that is not JSON, a batch, or ``params`` that are not an object got no
    answer at all: the client waited forever for its request."""
    pytest.importorskip("mcp")
    write_tree(tmp_path, {"a.py": "def hello():\n    return 1\n"})
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    proc = subprocess.Popen([sys.executable, "-m", "ctxsel", "mcp", "--repo", str(tmp_path)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        init = _rpc(proc, json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}).encode())
        assert init and init["id"] == 0 and "result" in init
        proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')  # type: ignore[union-attr]
        assert _rpc(proc, b"{not json", 20) == {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
        assert _rpc(proc, b"\xff\xfe", 20)["error"]["code"] == -32700  # type: ignore[index]
        batch = _rpc(proc, b"[]", 20)
        assert batch and batch["id"] is None and batch["error"]["code"] == -32600
        bad = _rpc(proc, b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":"x"}', 20)
        assert bad and bad["id"] == 7 and bad["error"]["code"] == -32600
        unknown = _rpc(proc, b'{"jsonrpc":"2.0","id":8,"method":"no/such"}', 20)
        assert unknown and unknown["id"] == 8 and unknown["error"]["code"] == -32601
        for i, seed in enumerate(["a\u0000b", "loop", "../x"], start=9):
            call = {"jsonrpc": "2.0", "id": i, "method": "tools/call",
                    "params": {"name": "select_context", "arguments": {"query": "hello", "seeds": [seed]}}}
            answer = _rpc(proc, json.dumps(call).encode())
            assert answer and answer["id"] == i and answer["result"]["isError"]
            assert "internal error" not in answer["result"]["content"][0]["text"]
        ok = _rpc(proc, json.dumps({"jsonrpc": "2.0", "id": 20, "method": "tools/call", "params": {
            "name": "select_context", "arguments": {"query": "hello", "budget": 200}}}).encode())
        assert ok and not ok["result"].get("isError") and ok["result"]["structuredContent"]["tokens"] <= 200
    finally:
        proc.stdin.close()  # type: ignore[union-attr]
        proc.wait(timeout=30)
    assert proc.returncode == 0


def test_a_secret_file_given_as_seed_is_not_read(tmp_path):
    """Old: ``--seed .env`` with an empty query read the file and built the query (returned
    as ``Selection.query`` by the API) from its identifiers, the secret's among them."""
    write_tree(tmp_path, {".env": "STRIPE_KEY=sk_live_zqxjkvbwplmnzqxjkvbw\n", "app.py": "def pay():\n    return 1\n"})
    result = select(str(tmp_path), SelectRequest(query="", seeds=[".env"], budget=500))
    assert "zqxjkvbw" not in result.query
    assert ".env" not in [b.path for b in result.packed.blocks]


def test_repository_config_oddities_are_user_errors_not_crashes(cli, tmp_path):
    """Old: ``tool = 5`` in pyproject.toml (AttributeError) and ``chunk_tokens = 1e400``
    (OverflowError) were internal errors; a nested-repeat secret pattern hung every run."""
    write_tree(tmp_path, {"a.py": "def hello():\n    return 1\n", "pyproject.toml": "tool = 5\n"})
    assert cli("select", "hello", "--format", "paths", cwd=tmp_path).stdout.split() == ["a.py"]
    (tmp_path / ".ctxsel.toml").write_text("[select]\nchunk_tokens = 1e400\n")
    out = cli("select", "hello", cwd=tmp_path)
    assert out.returncode == 2 and "chunk_tokens" in out.stderr and "Traceback" not in out.stderr
    (tmp_path / ".ctxsel.toml").write_text('[secrets]\npatterns = [{ name = "x", regex = "(a+)+b" }]\n')
    (tmp_path / "a.py").write_text("a" * 60 + "\n")
    started = time.monotonic()
    out = cli("select", "hello", cwd=tmp_path)
    assert out.returncode == 2 and ".ctxsel.toml" in out.stderr and "patterns[0]" in out.stderr
    assert time.monotonic() - started < 30
    assert len(out.stderr.strip().splitlines()) <= 3


@pytest.mark.parametrize("regex, nested", [
    ("(a+)+b", True), (r"(\w*\s?)*$", True), ("(?:x|y+)*z", True),
    ("(?>(a+)+b)", True),
    ("ACME-[0-9a-f]{32}", False), (r"(\d{1,3}\.)+", False), ("(?>a+)+b", False), ("(a|b)*", False),
])
def test_nested_repeats_are_recognised(regex, nested):
    from ctxsel.secrets import BUILTIN_PATTERNS, nested_repeat

    assert nested_repeat(regex) == nested
    assert not any(nested_repeat(rx) for _, rx in BUILTIN_PATTERNS)


def test_a_pasted_file_as_the_query_is_scored_in_linear_time():
    """Old: each occurrence of a term walked its postings again, so a 1.7 MB query
    ("return self path " * 100000, e.g. an agent pasting a file into select_context) kept
    ``select`` ranking for two minutes on a 100-file repository, and the MCP server with it."""
    import bm25s

    from ctxsel.index import LONG_QUERY, LexicalModel, quiet_bm25s

    quiet_bm25s()
    corpus = [["return", "value", f"doc{i}"] + ["self"] * (i % 3) for i in range(3000)]
    model = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
    model.index(corpus, show_progress=False)
    lex = LexicalModel.from_bm25s(model)
    once = lex.scores(["return", "self", "doc7"])
    started = time.monotonic()
    many = lex.scores(["return", "self", "doc7"] * 100_000)
    assert time.monotonic() - started < 10
    assert 100_000 * 3 > LONG_QUERY
    assert many.keys() == once.keys()
    assert all(math.isclose(many[d], 100_000 * once[d], rel_tol=1e-9) for d in once)
