"""ctxsel's Bazel answers against real Bazel 4.2.3, for every rule and every referenced file.

One Bazel server per fixture (``--batch`` costs ~5 s per query, a warm server ~0.5 s),
shut down when the module ends. Each question is one ``rdeps`` query with
``--output=label_kind``: its rules are the blast radius, its ``*_test`` rules minus
the manual ones are the tests; ``test_tests_expression_matches_literal_query`` checks
that derivation against the literal ``kind(".*_test rule", ...) except attr(...)`` query.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from ctxsel.workspace import Workspace
from tests.oracles import PREFIX, oracle_env, require

pytestmark = pytest.mark.oracle

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
NAMES = ["bazel-basic", "bazel-macros"]


class BazelServer:
    """``bazel-4`` in server mode with the oracle wrapper's offline flags."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self.startup = [
            require("bazel-4"),
            "--nohome_rc",
            f"--output_user_root={PREFIX / 'state' / 'bazel4-root'}",
            f"--bazelrc={PREFIX / 'oracle.bazelrc'}",
            "--max_idle_secs=60",
        ]

    def query(self, expr: str, output: str = "label") -> list[str]:
        proc = subprocess.run(
            [*self.startup, "query", expr, f"--output={output}", "--noshow_progress"],
            cwd=self.workspace, env=oracle_env(), capture_output=True, text=True, timeout=300,
        )
        if proc.returncode != 0:
            raise AssertionError(f"bazel query {expr!r} exited {proc.returncode}: {proc.stderr[-1500:]}")
        return [ln for ln in proc.stdout.splitlines() if ln.strip()]

    def rdeps(self, what: str) -> tuple[set[str], set[str]]:
        """(rules, test rules) of ``rdeps(//..., what)``."""
        rules: set[str] = set()
        tests: set[str] = set()
        for line in self.query(f"rdeps(//..., {what})", "label_kind"):
            kind, _, label = line.rpartition(" ")
            if kind.endswith(" rule"):
                rules.add(label)
                if kind.endswith("_test rule"):
                    tests.add(label)
        return rules, tests

    def shutdown(self) -> None:
        subprocess.run([*self.startup, "shutdown"], cwd=self.workspace, env=oracle_env(), capture_output=True, timeout=120)


@pytest.fixture(scope="module", params=NAMES)
def oracle(request, tmp_path_factory):
    require("bazel-4")
    ws = tmp_path_factory.mktemp(request.param) / request.param
    shutil.copytree(FIXTURES / request.param, ws, ignore=shutil.ignore_patterns(".ctxsel"))
    server = BazelServer(ws)
    request.addfinalizer(server.shutdown)
    manual = set(server.query('attr(tags, "manual", //...)'))
    static = Workspace.open(ws, adapter="bazel", source="static", use_cache=False)
    return server, static, manual


def _static_answer(static: Workspace, spec: str) -> tuple[set[str], set[str]]:
    radius = static.blast_radius([spec])
    return set(radius.ids), set(static.adapter.test_nodes(static.graph, radius.ids))


def test_every_rule_matches_bazel_query(oracle):
    server, static, manual = oracle
    rules = server.query("kind(rule, //...)")
    assert set(rules) == {n.id for n in static.graph.nodes() if static.adapter.reportable(static.graph, n.id)}
    mismatches = []
    for label in sorted(rules):
        want_rules, want_tests = server.rdeps(label)
        got_rules, got_tests = _static_answer(static, label)
        if got_rules != want_rules or got_tests != want_tests - manual:
            mismatches.append((label, sorted(got_rules ^ want_rules), sorted(got_tests ^ (want_tests - manual))))
    assert not mismatches, mismatches


def test_every_referenced_file_matches_bazel_query(oracle):
    server, static, manual = oracle
    files = [
        f for f in server.query("kind('source file', //...:*)")
        if not f.rsplit(":", 1)[1].startswith("BUILD") and f.rsplit(":", 1)[1] != "README.md"
    ]
    referenced = set(server.query("kind('source file', deps(kind(rule, //...), 1)) intersect //...:*"))
    checked = 0
    for label in sorted(set(files) & referenced):
        package, name = label[2:].split(":", 1)
        path = f"{package}/{name}" if package else name
        want_rules, want_tests = server.rdeps(label)
        got_rules, got_tests = _static_answer(static, path)
        assert got_rules == want_rules, (path, sorted(got_rules ^ want_rules))
        assert got_tests == want_tests - manual, path
        checked += 1
    assert checked >= 10


def test_tests_expression_matches_literal_query(oracle):
    server, static, _ = oracle
    root = "//core:core" if (server.workspace / "core").is_dir() else "//base:base"
    literal = set(server.query(f'kind(".*_test rule", rdeps(//..., {root})) except attr(tags, "manual", //...)'))
    assert literal
    assert set(static.tests([root]).tests) == literal


def test_unreferenced_file_is_empty_for_bazel_and_warned_by_ctxsel(oracle):
    """Bazel answers nothing (or "no such target") for a file no rule lists; ctxsel
    answers with the file's package's rules and says so."""
    server, static, _ = oracle
    path = {"bazel-basic": "data/skip_me.txt", "bazel-macros": "docs/guide.md"}[server.workspace.name]
    package = "data" if path.startswith("data/") else ""
    label = f"//{package}:{path[len(package):].lstrip('/')}"
    try:
        assert server.rdeps(label) == (set(), set())
    except AssertionError as exc:
        assert "no such target" in str(exc)
    before = len(static.warnings)
    radius = static.blast_radius([path])
    assert set(radius.ids) >= set(static.graph.nodes_in_package(package))
    assert any("no rule lists this file" in w for w in static.warnings[before:])


def test_tool_mode_xml_equals_static(oracle, monkeypatch):
    """The same graph from ``bazel query --output=xml`` (through the oracle wrapper) and from parsing."""
    server, static, _ = oracle
    wrapper = require("oracle-bazel4")
    monkeypatch.setenv("CTXSEL_BAZEL", wrapper)
    tool = Workspace.open(server.workspace, adapter="bazel", source="tool", use_cache=False)

    def shape(ws: Workspace) -> tuple[dict, set]:
        nodes = {n.id: (n.kind, n.tags, n.srcs, n.is_test, n.meta.get("outs")) for n in ws.graph.nodes() if not n.external}
        edges = {(a, b) for a, b, _ in ws.graph.edges() if a in nodes and b in nodes}
        return nodes, edges

    tool_nodes, tool_edges = shape(tool)
    static_nodes, static_edges = shape(static)
    assert tool_nodes == static_nodes
    assert tool_edges == static_edges
    assert not [w for w in tool.warnings if "exited 3" in w]


def test_tool_mode_reads_a_saved_query_file(oracle, tmp_path):
    server, static, _ = oracle
    out = tmp_path / "graph.xml"
    out.write_text("\n".join(server.query("//...:*", "xml")) + "\n")
    ws = Workspace.open(server.workspace, adapter="bazel", query_file=str(out), use_cache=False)
    assert ws.adapter.resolved_source() == "tool"
    for root in sorted(n.id for n in static.graph.nodes() if not n.external):
        assert ws.blast_radius([root]).ids == static.blast_radius([root]).ids, root
    for bzl in server.workspace.rglob("*.bzl"):  # a query graph has no load() facts: read from BUILD files
        path = bzl.relative_to(server.workspace).as_posix()
        assert ws.adapter.packages_loading(ws.graph, path) == static.adapter.packages_loading(static.graph, path)


def test_bzl_files_map_to_the_packages_rbuildfiles_names(oracle):
    server, static, _ = oracle
    bzl = sorted(p.relative_to(server.workspace).as_posix() for p in server.workspace.rglob("*.bzl"))
    for path in bzl:
        proc = subprocess.run(
            [*server.startup, "query", "--universe_scope=//...", "--order_output=no", f"rbuildfiles({path})", "--noshow_progress"],
            cwd=server.workspace, env=oracle_env(), capture_output=True, text=True, timeout=300,
        )
        assert proc.returncode == 0, proc.stderr[-1000:]
        want = {ln[2:].rsplit(":", 1)[0] for ln in proc.stdout.split() if ln.rsplit(":", 1)[-1].startswith("BUILD")}
        assert static.adapter.packages_loading(static.graph, path) == want, path
