"""Bazel static mode against what Bazel 4.2.3 does on inputs the other tests do not cover.

Each case was found by asking the real ``bazel query`` and ctxsel the same question:
Python-only syntax that Bazel refuses, ``rule(outputs = ...)`` templates, an attribute
set to ``None`` (= its default), ``glob(exclude_directories = 0)`` and the reserved
top-level ``external/`` directory. The unit tests need no Bazel; the ``oracle`` tests at
the end repeat the comparison with the real tool and skip, saying why, without it.
"""

from __future__ import annotations

import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import write_tree

from ctxsel.adapters.base import AdapterOptions
from ctxsel.adapters.bazel import BazelAdapter
from ctxsel.adapters.bazel.static import glob_to_regex
from ctxsel.cache import InputTracker
from ctxsel.errors import ParseError
from oracles import oracle_env, require

WORKSPACE = {"WORKSPACE": 'workspace(name = "ws")\n'}


def load(root: Path):
    return BazelAdapter(root, AdapterOptions(source="static")).load(InputTracker(root))


def workspace(tmp_path: Path, files: dict[str, str | bytes]) -> Path:
    return write_tree(tmp_path, {**WORKSPACE, **files})


# ---------------------------------------------------------------- syntax Bazel refuses
#: (file, text, line Bazel 4.2.3 names): every one makes `bazel query` fail on the package
NOT_STARLARK = {
    "fstring": ("p/BUILD", 'x = "a"\ncc_library(name = f"{x}b")\n', 2),
    "walrus": ("p/BUILD", 'cc_library(name = (x := "a"))\n', 1),
    "top_level_if": ("p/BUILD", 'if True:\n    cc_library(name = "a")\n', 1),
    "top_level_for": ("p/BUILD", 'cc_library(name = "a")\nfor n in ["c"]:\n    cc_library(name = n)\n', 2),
    "non_ascii_name": ("p/BUILD", 'cc_library(name = "a")\n\u00f1 = 1\n', 2),
    "is_operator": ("p/BUILD", 'x = 1 is None\ncc_library(name = "a")\n', 1),
    "chained_compare": ("p/BUILD", 'x = 1 < 2 < 3\ncc_library(name = "a")\n', 1),
    "set_literal": ("p/BUILD", 'x = {1, 2}\ncc_library(name = "a")\n', 1),
    "power": ("p/BUILD", 'x = 2 ** 3\ncc_library(name = "a")\n', 1),
    "del": ("p/BUILD", 'x = 1\ndel x\ncc_library(name = "a")\n', 2),
    "assert": ("p/BUILD", 'assert True\ncc_library(name = "a")\n', 1),
    "import": ("p/BUILD", 'import os\ncc_library(name = "a")\n', 1),
    "star_unpack": ("p/BUILD", 'a, *b = [1, 2, 3]\ncc_library(name = "a")\n', 1),
    "annotation": ("p/BUILD", 'x: int = 1\ncc_library(name = "a")\n', 1),
    "ellipsis": ("p/BUILD", 'x = ...\ncc_library(name = "a")\n', 1),
    "return_top": ("p/BUILD", 'return\ncc_library(name = "a")\n', 1),
    "bzl_while": ("p/d.bzl", 'def f():\n    native.cc_library(name = "a")\ndef g():\n    while False:\n        pass\n', 4),
    "bzl_try": ("p/d.bzl", 'def f():\n    try:\n        x = 1\n    except:\n        pass\n    native.cc_library(name = "a")\n', 2),
    "bzl_class": ("p/d.bzl", 'class A:\n    pass\ndef f():\n    native.cc_library(name = "a")\n', 1),
    "bzl_decorator": ("p/d.bzl", 'def d(x):\n    return x\n@d\ndef f():\n    native.cc_library(name = "a")\n', 3),
    "bzl_top_level_if": ("p/d.bzl", 'if True:\n    x = 1\ndef f():\n    native.cc_library(name = "a")\n', 1),
}


def _not_starlark_files(case: str) -> dict[str, str]:
    path, text, _ = NOT_STARLARK[case]
    if path.endswith(".bzl"):
        return {path: text, "p/BUILD": 'load(":d.bzl", "f")\nf()\n'}
    return {path: text}


@pytest.mark.parametrize("case", sorted(NOT_STARLARK))
def test_python_only_syntax_is_a_parse_error_naming_file_and_line(tmp_path, case):
    path, _, line = NOT_STARLARK[case]
    root = workspace(tmp_path, _not_starlark_files(case))
    with pytest.raises(ParseError) as err:
        load(root)
    assert err.value.location.path == path and err.value.location.line == line


def test_starlark_that_looks_like_python_still_loads(tmp_path):
    """What Bazel 4.2.3 accepts must keep working: floats, slices, ``not in``, bit operators
    (shifts included), lambdas and nested ``def`` (newer Bazels accept those two)."""
    root = workspace(tmp_path, {
        "p/BUILD": 'load(":d.bzl", "f")\nx = "abc"[::2]; y = 1.5\nz = 1 not in [2]\n'
                   'n = (1 | 2 & 3 ^ 4 << 2 >> 1) + ~1\ncc_library(name = "n%d" % n)\nf()\n',
        "p/d.bzl": 'def f():\n    def g():\n        return "b"\n    h = lambda: "c"\n    native.cc_library(name = g() + h())\n',
    })
    graph = load(root)
    assert {"//p:n9", "//p:bc"} <= set(graph)
    assert graph.warnings == []


def test_expression_too_deep_for_the_parser_exits_2_naming_file_and_line(tmp_path, cli):
    """Bazel 4.2.3 dies of a StackOverflowError here; ctxsel crashed with exit 1."""
    root = workspace(tmp_path, {"p/BUILD": 'cc_library(name = "a")\nx = 1' + " + 1" * 30000 + '\n'})
    res = cli("--repo", str(root), "--source", "static", "--no-cache", "blast-radius", "//p:a")
    assert res.returncode == 2, res.stderr
    assert "p/BUILD:2" in res.stderr and "Traceback" not in res.stderr and "internal error" not in res.stderr


def test_nul_byte_names_its_line(tmp_path):
    root = workspace(tmp_path, {"p/BUILD": b'cc_library(name = "a")\ncc_library(name = "b")\x00\n'})
    with pytest.raises(ParseError) as err:
        load(root)
    assert err.value.location.line == 2


def test_def_and_kwargs_in_a_build_file_warn_that_bazel_refuses_the_package(tmp_path):
    """Bazel allows ``def`` and ``**kwargs`` only in .bzl files. ctxsel says that ``bazel query``
    fails on the package and, as ``bazel query --keep_going`` (tool mode) does, leaves its
    targets out (Bazel 4.2.3 lists none: ``tests/test_probe22_hb_bazel_errors.py``)."""
    root = workspace(tmp_path, {"p/BUILD": 'def f(n):\n    return n\nkw = {"srcs": []}\ncc_library(name = f("a"), **kw)\n'})
    graph = load(root)
    assert "//p:a" not in graph
    warning = next(w for w in graph.warnings if "only in .bzl files" in w)
    assert "p/BUILD:1" in warning and "bazel query fails" in warning


def test_recursion_is_an_error_as_in_bazel(tmp_path):
    """Starlark forbids recursion even when it terminates; the macro's targets do not exist,
    and Bazel runs no later statement of the file (``//p:other``: Bazel 4.2.3 lists none)."""
    root = workspace(tmp_path, {
        "p/BUILD": 'load(":d.bzl", "f")\nf()\ncc_library(name = "other")\n',
        "p/d.bzl": 'def f(n = 2):\n    if n:\n        return f(n - 1)\n    native.cc_library(name = "a")\n',
    })
    graph = load(root)
    assert "//p:a" not in graph and "//p:other" not in graph
    assert any("p/d.bzl:3" in w and "called recursively" in w for w in graph.warnings)


# ---------------------------------------------------------------- graph semantics
SEMANTICS = {
    "rules/BUILD": 'sh_binary(name = "tool", srcs = ["tool.sh"])\n',
    "rules/tool.sh": "",
    "rules/defs.bzl": '''
def _impl(ctx):
    pass
my_rule = rule(
    implementation = _impl,
    attrs = {
        "dep": attr.label(default = "//rules:tool"),
        "deps": attr.label_list(default = ["//core:core"]),
        "suffix": attr.string(),
    },
    outputs = {"out": "%{name}.out", "log": "%{name}_%{suffix}.txt"},
)
''',
    "core/BUILD": 'cc_library(name = "core", srcs = ["core.cc"], visibility = ["//visibility:public"])\n',
    "core/core.cc": "",
    "a/BUILD": '''
load("//rules:defs.bzl", "my_rule")
my_rule(name = "r1", suffix = "log")
my_rule(name = "r2", dep = None, deps = [])
genrule(name = "use_out", srcs = [":r1.out", "r1_log.txt"], outs = ["u.txt"], cmd = "x")
filegroup(name = "tree", srcs = glob(["data/**"], exclude_directories = 0))
filegroup(name = "files", srcs = glob(["data/**"]))
''',
    "a/data/x.txt": "",
    "a/data/sub/y.txt": "",
    "external/BUILD": 'cc_library(name = "ext", deps = ["//core"])\n',
}


@pytest.fixture
def semantics(tmp_path):
    root = workspace(tmp_path, SEMANTICS)
    return root, load(root)


def test_rule_output_templates_are_outputs_of_the_target(semantics):
    _, graph = semantics
    assert graph.dependencies("//a:use_out") == ["//a:r1"]
    assert graph.node("//a:use_out").srcs == ()


def test_attribute_set_to_none_takes_its_default(semantics):
    _, graph = semantics
    assert graph.dependencies("//a:r2") == ["//rules:tool"]  # dep=None: default; deps=[]: none


def test_glob_with_directories_lists_the_directory_of_a_trailing_double_star(semantics):
    _, graph = semantics
    assert graph.node("//a:tree").srcs == ("a/data", "a/data/sub", "a/data/sub/y.txt", "a/data/x.txt")
    assert graph.node("//a:files").srcs == ("a/data/sub/y.txt", "a/data/x.txt")
    assert __import__("re").fullmatch(glob_to_regex("d/**/**", directory=True), "d")


def test_top_level_external_directory_is_no_package(semantics):
    _, graph = semantics
    assert "//external:ext" not in graph
    assert "//external:ext" not in set(graph.rdeps(["//core:core"]))


# ---------------------------------------------------------------- against the real Bazel
def _bazel_query(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    tool = require("oracle-bazel4")
    return subprocess.run([tool, "query", "--keep_going", "--noshow_progress", *args], cwd=root,
                          env=oracle_env(), capture_output=True, text=True, errors="replace", timeout=600)


def _direct_inputs(xml_text: str) -> dict[str, set[str]]:
    """rule -> its in-workspace inputs, generated files replaced by their rule."""
    rules: dict[str, set[str]] = {}
    generated: dict[str, str] = {}
    for el in ET.fromstring(xml_text):
        if el.tag == "rule":
            rules[el.get("name")] = {i.get("name") for i in el.findall("rule-input") if i.get("name").startswith("//")}
        elif el.tag == "generated-file":
            generated[el.get("name")] = el.get("generating-rule")
    return {r: {generated.get(i, i) for i in ins} for r, ins in rules.items()}


@pytest.mark.oracle
def test_graph_semantics_match_bazel_query(tmp_path):
    root = workspace(tmp_path, SEMANTICS)
    proc = _bazel_query(root, "//...:*", "--output=xml")
    assert proc.returncode == 0, proc.stderr[-2000:]
    expected = _direct_inputs(proc.stdout)
    graph = load(root)
    actual: dict[str, set[str]] = {}
    for node in graph.nodes():
        inputs = set(graph.dependencies(node.id))
        for src in node.srcs:
            package = next(p for p in sorted(graph.packages(), key=len, reverse=True) if not p or src.startswith(p + "/"))
            inputs.add(f"//{package}:{src[len(package):].lstrip('/')}")
        actual[node.id] = inputs
    assert actual == expected


@pytest.mark.oracle
def test_packages_bazel_refuses_are_the_ones_ctxsel_refuses_or_warns_about(tmp_path):
    """One workspace, one package per construct: ``bazel query --keep_going`` names each
    package that fails; ctxsel must refuse exactly those (or warn, for BUILD-only syntax)."""
    files: dict[str, str] = {}
    for case in NOT_STARLARK:
        files.update({f"{case}/{k[2:]}": v.replace(':d.bzl', f'//{case}:d.bzl') for k, v in _not_starlark_files(case).items()})
    files["ok/BUILD"] = 'x = "abc"[::2] + str(1 << 3)\ncc_library(name = "a")\n'
    files["build_def/BUILD"] = 'def f():\n    pass\ncc_library(name = "a")\n'
    root = workspace(tmp_path, files)
    proc = _bazel_query(root, "//...")
    bazel_ok = {line.split(":")[0][2:] for line in proc.stdout.split()}
    assert bazel_ok == {"ok"}, proc.stderr[-3000:]
    for case in NOT_STARLARK:
        with pytest.raises(ParseError):
            load(write_tree(tmp_path / "single" / case, {**WORKSPACE, **{k: v for k, v in files.items() if k.startswith(case + "/")}}))
    graph = load(write_tree(tmp_path / "single" / "build_def", {**WORKSPACE, "build_def/BUILD": files["build_def/BUILD"]}))
    assert any("build_def/BUILD:1" in w and "bazel query fails" in w for w in graph.warnings)


# ---------------------------------------------------------------- an unknown target in a graph that lost targets
def test_unknown_target_in_a_lost_statement_says_why(tmp_path, cli):
    """The warning that explains a missing target was never printed: the error came first."""
    root = workspace(tmp_path, {
        "p/BUILD": 'load(":d.bzl", "f")\nf()\n',
        "p/d.bzl": 'def f(n = 1):\n    if n:\n        return f(n - 1)\n    native.cc_library(name = "a")\n',
    })
    res = cli("--repo", str(root), "--source", "static", "--no-cache", "blast-radius", "//p:a")
    assert res.returncode == 2
    assert "unknown target '//p:a'" in res.stderr and "p/d.bzl:3" in res.stderr and "called recursively" in res.stderr


@pytest.mark.oracle
def test_tool_mode_unknown_target_names_the_build_error_bazel_reported(tmp_path, cli):
    """``bazel query --keep_going`` ends with "package contains errors: p"; the first located
    ERROR line (file:line: message) is the one that says what to fix."""
    bazel = require("oracle-bazel4")
    root = workspace(tmp_path, {"p/BUILD": 'x = "a"\ncc_library(name = f"{x}b")\n', "q/BUILD": 'cc_library(name = "q")\n'})
    import os

    env = dict(os.environ, CTXSEL_BAZEL=bazel)
    res = subprocess.run([__import__("sys").executable, "-m", "ctxsel", "--repo", str(root), "--source", "tool", "--no-cache",
                          "blast-radius", "//p:ab"], capture_output=True, text=True, env=env, timeout=600)
    assert res.returncode == 2
    assert "unknown target '//p:ab'" in res.stderr and "p/BUILD:2: syntax error" in res.stderr, res.stderr


# ---------------------------------------------------------------- load() errors Bazel reports
LOADS = {
    "m/BUILD": "",
    "m/m.bzl": 'def real(name):\n    native.cc_library(name = name)\ndef _priv(name):\n    native.cc_library(name = name)\n',
    "m/sub/BUILD": "",
    "m/sub/s.bzl": 'def s(name):\n    native.cc_library(name = name)\n',
    "nopkg/defs.bzl": 'def np(name):\n    native.cc_library(name = name)\n',
    "a/BUILD": 'load("//m:m.bzl", "real", "missing")\nreal(name = "a1")\nmissing(name = "a2")\n',
    "b/BUILD": 'load("//m:m.bzl", "_priv", "real")\n_priv(name = "b1")\nreal(name = "b2")\n',
    "c/BUILD": 'load("//nopkg:defs.bzl", "np")\nnp(name = "c1")\n',
    "d/BUILD": 'load("//m:sub/s.bzl", "s")\ns(name = "d1")\n',
    "ok/BUILD": 'load("//m/sub:s.bzl", "s")\ns(name = "ok")\n',
}
#: package -> (line of the load, Bazel 4.2.3's reason), for every package bazel query refuses
LOAD_ERRORS = {
    "a": (1, "does not contain symbol 'missing'"),
    "b": (1, "symbol '_priv' is private"),
    "c": (1, "'//nopkg:defs.bzl' does not have one"),
    "d": (1, "'m/sub' is a subpackage"),
}


def test_load_errors_lose_the_statement_instead_of_guessing_a_rule_kind(tmp_path):
    """A symbol missing from a .bzl ctxsel evaluated is no unknown macro: the call used to
    become a target of kind "missing" (and "_priv", "np", "s") with a misleading warning."""
    from ctxsel.adapters.bazel.static import StaticLoader

    root = workspace(tmp_path, LOADS)
    loader = StaticLoader(root, InputTracker(root))
    graph = loader.build()
    assert {n.id: n.kind for n in graph.nodes()} == {"//a:a1": "cc_library", "//b:b2": "cc_library", "//ok:ok": "cc_library"}
    warnings = "\n".join(graph.warnings)
    assert "were taken as rules" not in warnings and "undefined name" not in warnings
    errors = [e.replace("every .bzl", "Every .bzl") for e in loader.report.eval_errors]
    for package, (line, reason) in LOAD_ERRORS.items():
        assert any(e.startswith(f"{package}/BUILD:{line}: ") and reason in e for e in errors), (package, errors)


@pytest.mark.oracle
def test_load_errors_are_the_packages_bazel_refuses(tmp_path):
    root = workspace(tmp_path, LOADS)
    proc = _bazel_query(root, "//...")
    assert {line.split(":")[0][2:] for line in proc.stdout.split()} == {"ok"}
    for package, (_, reason) in LOAD_ERRORS.items():
        assert reason in proc.stderr, (package, proc.stderr[-2000:])
