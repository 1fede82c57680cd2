"""``ctxsel select`` and ``ctxsel index`` end to end, on repositories built in tmp_path."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from conftest import run_git as _git
from conftest import write_tree as _write
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxsel.packing import Candidate, fence_for, header_line, pack_chunks, render_markdown
from ctxsel.select import SelectRequest, select
from ctxsel.tokenize import count_tokens

AWS = "AKIA" + "QWERTYUIOPASDFGH"


@pytest.fixture
def pnpm_repo(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    _write(root, {
        "pnpm-workspace.yaml": "packages:\n  - 'packages/*'\n",
        "package.json": '{"name": "root", "private": true}\n',
        "packages/core/package.json": '{"name": "@x/core", "version": "1.0.0"}\n',
        "packages/app/package.json": '{"name": "@x/app", "version": "1.0.0", "dependencies": {"@x/core": "workspace:*"}}\n',
        "packages/other/package.json": '{"name": "@x/other", "version": "1.0.0"}\n',
        "packages/core/src/widget.ts": "export function parseWidget(s: string): string {\n  return s.trim();\n}\n",
        "packages/core/src/helpers.ts": "import { parseWidget } from './widget';\nexport const w = parseWidget(' x ');\n",
        "packages/app/src/main.ts": "import { parseWidget } from '@x/core';\nexport const app = parseWidget(' a ');\n",
        "packages/other/src/widget-other.ts": "export function parseWidgetOther(s: string) {\n  return s;\n}\n",
    })
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "init")
    return root


def _select_json(cli, root: Path, *args: str) -> dict:
    proc = cli("--repo", str(root), "select", *args, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_json_shape_and_graph_scopes(cli, pnpm_repo: Path) -> None:
    seed = "packages/core/src/widget.ts"
    out = _select_json(cli, pnpm_repo, "parse widget", "--seed", seed, "--scope", "blast-radius", "--explain-scope")
    assert out["schema_version"] == 1 and out["budget"] == 8000
    assert set(out) >= {"budget", "tokens", "chunks", "dropped", "redactions", "scope", "scope_paths"}
    assert out["scope"]["mode"] == "blast-radius"
    scope = set(out["scope_paths"])
    assert "packages/app/src/main.ts" in scope and "packages/other/src/widget-other.ts" not in scope
    paths = [c["path"] for c in out["chunks"]]
    assert seed not in paths  # the seed is the user's own file: not repeated back
    assert "packages/core/src/helpers.ts" in paths and "packages/app/src/main.ts" in paths
    for c in out["chunks"]:
        assert set(c) >= {"path", "start_line", "end_line", "tokens", "score", "reasons"} and c["reasons"]
    assert any("imports seed" in r for c in out["chunks"] for r in c["reasons"])
    scores = [c["score"] for c in out["chunks"]]
    assert scores == sorted(scores, reverse=True)

    whole = _select_json(cli, pnpm_repo, "parse widget", "--seed", seed, "--scope", "repo")
    assert whole["scope"]["files"] > out["scope"]["files"] and "scope_paths" not in whole
    assert "packages/other/src/widget-other.ts" in [c["path"] for c in whole["chunks"]]


def test_without_a_workspace_selects_from_the_directory(cli, tmp_path: Path) -> None:
    _write(tmp_path, {"lib/retry.py": "def retry_with_backoff(fn):\n    return fn()\n", "lib/other.py": "X = 1\n"})
    proc = cli("--repo", str(tmp_path), "select", "retry backoff", "--scope", "graph", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert "no build workspace" in proc.stderr
    out = json.loads(proc.stdout)
    assert out["scope"]["mode"] == "repo"
    assert out["chunks"][0]["path"] == "lib/retry.py"


def test_markdown_and_paths_formats(cli, pnpm_repo: Path) -> None:
    proc = cli("--repo", str(pnpm_repo), "-q", "select", "parse widget", "--budget", "400")
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout.startswith("### ") and "```typescript\n" in proc.stdout
    assert count_tokens(proc.stdout) <= 400
    paths = cli("--repo", str(pnpm_repo), "-q", "select", "parse widget", "--format", "paths").stdout.split()
    assert paths and all((pnpm_repo / p).is_file() for p in paths)


def test_hostile_repository_leaks_nothing(cli, tmp_path: Path) -> None:
    root = tmp_path / "repo"
    _write(root, {
        "app/config.py": f"AWS_KEY = '{AWS}'\ndef connect_database():\n    return AWS_KEY\n",
        ".env": "DATABASE_PASSWORD=correcthorsebatterystaple\n",
        "id_rsa": "-----BEGIN OPENSSH PRIVATE KEY-----\nsecretkeymaterial\n-----END OPENSSH PRIVATE KEY-----\n",
        "app/notes.md": "connect database password\n",
    })
    (root / "passwd").symlink_to("/etc/passwd")
    (root / "loop").symlink_to(root / "loop")
    (root / "app" / "blob.bin").write_bytes(b"\0connect database" * 50)
    (root / "app" / "latin.py").write_bytes(b"# connect database caf\xe9\n")
    for fmt in ("json", "markdown"):
        proc = cli("--repo", str(root), "select", "connect database password root key", "--budget", "5000", "--format", fmt)
        assert proc.returncode == 0, proc.stderr
        for secret in (AWS, "correcthorsebatterystaple", "secretkeymaterial", "root:x:0", "/bin/bash"):
            assert secret not in proc.stdout
        assert "Traceback" not in proc.stderr
    out = json.loads(cli("--repo", str(root), "-q", "select", "connect database", "--format", "json").stdout)
    assert {"path": "app/config.py", "line": 1, "rule": "aws-access-key"} in out["redactions"]
    assert "app/latin.py" in {c["path"] for c in out["chunks"]}
    assert "redacted 1 secret-looking span" in cli("--repo", str(root), "select", "connect database").stderr


def _many_files(root: Path, n: int = 24) -> None:
    files = {}
    for i in range(n):
        body = "\n".join(f"    value_{j} = compute_widget({i}, {j})  # widget step" for j in range(5 + (i * 7) % 40))
        files[f"pkg{i % 3}/mod_{i}.py"] = f"def widget_{i}(x):\n{body}\n    return x\n\n\nclass Widget{i}:\n    pass\n"
    _write(root, files)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(budget=st.integers(min_value=1, max_value=6000))
def test_budget_is_never_exceeded(tmp_path_factory, budget: int) -> None:
    root = tmp_path_factory.getbasetemp() / "budget-repo"
    if not root.exists():
        _many_files(root)
    result = select(root, SelectRequest(query="compute widget step", budget=budget))
    packed = result.packed
    assert packed.tokens <= budget
    assert sum(b.tokens for b in packed.blocks) <= budget
    assert count_tokens(render_markdown(packed)) <= budget
    for b in packed.blocks:  # honest counts: never below chars/4 of the claimed lines
        lines = (root / b.path).read_text().splitlines(keepends=True)[b.start_line - 1:b.end_line]
        assert b.tokens >= math.ceil(len("".join(lines)) / 4)  # the lines with their terminators


@settings(max_examples=60, deadline=None)
@given(
    budget=st.integers(min_value=0, max_value=3000),
    spans=st.lists(st.tuples(st.integers(0, 4), st.integers(1, 80), st.integers(0, 30), st.floats(0, 1)), max_size=40),
)
def test_pack_chunks_property(budget: int, spans: list[tuple[int, int, int, float]]) -> None:
    texts = {f"f{i}.py": [f"line {k} of file {i} " + "x" * (k % 17) for k in range(120)] for i in range(5)}
    cands = [Candidate(f"f{f}.py", s, min(120, s + ln), sc, [f"r{f}"]) for f, s, ln, sc in spans]
    cands.sort(key=lambda c: -c.score)
    packed = pack_chunks(cands, budget, lambda p: texts.get(p))
    assert packed.tokens <= budget
    seen: dict[str, list[tuple[int, int]]] = {}
    for b in packed.blocks:
        for s, e in seen.get(b.path, []):
            assert b.end_line < s - 1 or b.start_line > e + 1, "overlapping or adjacent blocks were not merged"
        seen.setdefault(b.path, []).append((b.start_line, b.end_line))
        assert b.tokens == max(1, count_tokens("\n".join(texts[b.path][b.start_line - 1:b.end_line]) + "\n"))


def test_output_is_deterministic(cli, pnpm_repo: Path) -> None:
    args = ("--repo", str(pnpm_repo), "-q", "select", "parse widget", "--seed", "packages/core/src/widget.ts", "--format", "json")
    assert cli(*args).stdout == cli(*args).stdout


def test_empty_query_uses_the_seed(cli, pnpm_repo: Path) -> None:
    out = _select_json(cli, pnpm_repo, "", "--seed", "packages/core/src/widget.ts")
    assert "packages/app/src/main.ts" in {c["path"] for c in out["chunks"]}


def _change_together(root: Path, times: int) -> None:
    """``times`` commits that change the seed widget.ts and other/widget-other.ts together."""
    for i in range(times):
        _write(root, {"packages/core/src/widget.ts": f"export function parseWidget(s: string) {{ return s + '{i}'; }}\n",
                      "packages/other/src/widget-other.ts": f"export const v = {i};\n"})
        _git(root, "commit", "-qam", f"change {i}")


def test_cochange_history_is_a_signal(cli, pnpm_repo: Path) -> None:
    _change_together(pnpm_repo, 3)
    other = "packages/other/src/widget-other.ts"
    out = _select_json(cli, pnpm_repo, "unrelated words", "--seed", "packages/core/src/widget.ts")
    without = _select_json(cli, pnpm_repo, "unrelated words", "--seed", "packages/core/src/widget.ts",
                           "--weights", '{"cochange": 0}')
    paths = [c["path"] for c in out["chunks"]]
    assert other in paths
    hit = out["chunks"][paths.index(other)]
    before = [c["score"] for c in without["chunks"] if c["path"] == other]
    assert not before or hit["score"] > before[0]
    assert any("changes with seed in 4 commits" in r for r in hit["reasons"])


def test_a_reliable_cochange_gets_its_own_signal(cli, pnpm_repo: Path) -> None:
    _change_together(pnpm_repo, 3)
    seed = "packages/core/src/widget.ts"

    def reasons(weights: str) -> dict[str, list[str]]:
        out = _select_json(cli, pnpm_repo, "unrelated words", "--seed", seed, "--weights", weights)
        found: dict[str, list[str]] = {}
        for c in out["chunks"]:
            found.setdefault(c["path"], []).extend(c["reasons"])
        return found

    on = reasons('{"cochange_confidence": 1.0, "cochange_min_support": 2, "cochange_min_confidence": 0.5}')
    # the seed has 4 commits (the initial one and 3 changes); widget-other.ts is in all of them,
    # app/main.ts only in the initial one: below the minimum support of 2
    assert "changed in 100 % of the seed's commits" in on["packages/other/src/widget-other.ts"]
    assert not any("of the seed's commits" in r for r in on.get("packages/app/src/main.ts", []))
    off = reasons('{"cochange_confidence": 0}')
    assert not any("of the seed's commits" in r for rs in off.values() for r in rs)


def test_weights_can_be_overridden_and_are_checked(cli, pnpm_repo: Path) -> None:
    ok = cli("--repo", str(pnpm_repo), "-q", "select", "widget", "--weights", '{"bm25": 2, "same_dir": 0}', "--format", "json")
    assert ok.returncode == 0, ok.stderr
    bad = cli("--repo", str(pnpm_repo), "select", "widget", "--weights", '{"nope": 1}')
    assert bad.returncode == 2 and "unknown ranking weight 'nope'" in bad.stderr and "Traceback" not in bad.stderr
    bad_seed = cli("--repo", str(pnpm_repo), "select", "widget", "--seed", "/etc/passwd")
    assert bad_seed.returncode == 2 and "not a file inside the repository" in bad_seed.stderr


def test_index_command_reports_counts(cli, pnpm_repo: Path) -> None:
    first = json.loads(cli("--repo", str(pnpm_repo), "-q", "index", "--format", "json").stdout)
    assert first["added"] == first["files"] > 0
    (pnpm_repo / "packages/core/src/new.ts").write_text("export const n = 1;\n")
    second = json.loads(cli("--repo", str(pnpm_repo), "-q", "index", "--format", "json").stdout)
    assert (second["added"], second["changed"], second["deleted"]) == (1, 0, 0)
    text = cli("--repo", str(pnpm_repo), "-q", "index").stdout
    assert "files" in text and "chunks" in text


def test_owner_narrows_the_files(cli, pnpm_repo: Path) -> None:
    (pnpm_repo / "CODEOWNERS").write_text("* @team-core\n/packages/app/ @team-app\n")
    out = _select_json(cli, pnpm_repo, "parse widget", "--owner", "@team-app", "--explain-scope")
    assert out["scope_paths"] and all(p.startswith("packages/app/") for p in out["scope_paths"])
    assert {c["path"] for c in out["chunks"]} <= set(out["scope_paths"])


def test_change_selectors_give_changed_nodes(cli, pnpm_repo: Path) -> None:
    _write(pnpm_repo, {"packages/core/src/widget.ts": "export function parseWidget(s: string) {\n  return s.trimEnd();\n}\n"})
    _git(pnpm_repo, "commit", "-qam", "trim end")
    out = _select_json(cli, pnpm_repo, "", "--since", "HEAD~1", "--scope", "blast-radius", "--explain-scope")
    assert out["changed_nodes"] == ["@x/core"]
    assert "packages/app/src/main.ts" in out["scope_paths"]
    assert "packages/other/src/widget-other.ts" not in out["scope_paths"]
    bad = cli("--repo", str(pnpm_repo), "select", "x", "--since", "no-such-ref")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_repository_config_is_read_and_checked(cli, tmp_path: Path) -> None:
    _write(tmp_path, {"a.py": "def alpha():\n    return 1\n", "skip/b.py": "def alpha_two():\n    return 2\n",
                      ".ctxsel.toml": '[select]\nignore = ["skip/"]\nchunk_tokens = 120\n[ranking]\nbm25 = 2\n'})
    out = json.loads(cli("--repo", str(tmp_path), "-q", "select", "alpha", "--format", "json").stdout)
    assert [c["path"] for c in out["chunks"]] == ["a.py"]
    for bad, needle in (("[select]\nchunk_tokens = 3\n", "chunk_tokens"), ("[ranking]\nbm25 = 'x'\n", "bm25"),
                        ("[select\n", ".ctxsel.toml")):
        (tmp_path / ".ctxsel.toml").write_text(bad)
        proc = cli("--repo", str(tmp_path), "select", "alpha")
        assert proc.returncode == 2 and needle in proc.stderr and "Traceback" not in proc.stderr


def test_packing_stops_walking_the_ranking_once_nothing_fits_for_a_while() -> None:
    texts = {f"f{i}.py": [f"value_{i}_{k} = compute(value_{i}_{k - 1})" for k in range(60)] for i in range(3000)}
    reads: list[str] = []
    pulled = 0

    def candidates():
        nonlocal pulled
        for i in range(3000):
            pulled += 1
            size = 40 if i < 10 else 1  # ten big chunks, then thousands of one-line ones
            yield Candidate(f"f{i}.py", 1, size, 1.0 - i / 10000, [], tokens_hint=size * 10)

    def read_lines(path: str) -> list[str]:
        reads.append(path)
        return texts[path]

    one = pack_chunks(candidates(), 19, read_lines)  # room for no block: the cheapest costs 10 + 10
    assert one.blocks == [] and pulled == 1000 + 1 and reads == []  # nothing read for what cannot fit
    pulled = 0
    packed = pack_chunks(candidates(), 2000, read_lines, patience=50)
    assert packed.tokens <= 2000 and len(packed.blocks) >= 5
    last_taken = max(int(b.path[1:-3]) for b in packed.blocks)
    assert pulled <= last_taken + 1 + 50 + 1  # at most `patience` misses after the last block taken


def test_code_without_a_grammar_is_not_weighed_as_documentation(tmp_path: Path) -> None:
    """Docs, JSON, YAML and unknown text are down-weighted (``non_code_factor``); Scala, Lua,
    a Makefile or a Dockerfile are code, even though ctxsel has no grammar for them."""
    body = "retry budget exhausted for the upload queue\n"
    files = {"notes.txt": body, "docs/guide.md": body, "CMakeLists.txt": body, "src/Retry.scala": body,
             "src/retry.lua": body, "Makefile": body, "Dockerfile": body}
    root = _write(tmp_path / "repo", files)
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "init")
    out = select(root, SelectRequest(query="retry budget upload queue", budget=2000)).as_json()
    score = {c["path"]: c["score"] for c in out["chunks"]}
    assert set(score) == set(files)
    code = {"src/Retry.scala", "src/retry.lua", "Makefile", "Dockerfile", "CMakeLists.txt"}
    assert min(score[p] for p in code) > max(score["notes.txt"], score["docs/guide.md"])


def test_a_block_is_priced_with_the_fence_it_is_rendered_with() -> None:
    """The header and fences a block is charged for are the ones ``render_markdown`` prints: an
    over-priced fence wastes budget on every block, an under-priced one could exceed it."""
    texts = {"a.py": ["def f():", "    return 1"], "b.md": ["```js", "x()", "```"], "c.md": ["````", "y", "````"]}
    cands = [Candidate(p, 1, len(t), 1.0 - i / 10) for i, (p, t) in enumerate(texts.items())]
    packed = pack_chunks(cands, 4000, lambda p: texts[p], language_of=lambda p: "python" if p.endswith(".py") else "")
    assert len(packed.blocks) == 3
    for b in packed.blocks:
        fence = fence_for(b.text)
        rendered = f"{header_line(b.path, b.start_line, b.end_line, b.scope)}\n{fence}{b.language}\n\n{fence}\n\n"
        assert b.overhead == count_tokens(rendered), b.path
    assert packed.tokens == sum(b.tokens + b.overhead for b in packed.blocks)
    assert count_tokens(render_markdown(packed)) <= packed.tokens
