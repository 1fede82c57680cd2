"""Tool mode: one ``bazel query '//...:*'`` for the whole graph, and its two output formats.

Why one query and not ``rdeps`` per question: a query costs a JVM start plus loading
(seconds); the whole target graph once, cached, answers every later question in
milliseconds. ``streamed_jsonproto`` (Bazel >= 6.4) is one JSON object per line and
parses incrementally; older Bazels only have ``xml`` for the same information.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any, Iterable, Iterator

from ctxsel.process import run_tool
from ctxsel.errors import Location, ParseError, ToolError
from ctxsel.graph import DATA, DEP, IMPLICIT, TESTS, BuildGraph, Node

from .labels import PACKAGE_GROUP, LabelError, parse_label, subpackage_crossed

QUERY = "//...:*"
DEFAULT_TIMEOUT = 600.0
EXIT_PARTIAL = 3  # --keep_going: some packages failed, the rest is a valid answer

_VERSION = re.compile(r"(\d+)\.(\d+)(?:\.(\d+))?")


def parse_version(text: str) -> tuple[int, int, int] | None:
    """``bazel 7.1.0`` / ``Build label: 6.4.0`` -> (7, 1, 0); None when it says no version."""
    m = _VERSION.search(text)
    if not m:
        return None
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


def tool_version(tool: str, cwd: Path, timeout: float = 60.0) -> tuple[int, int, int] | None:
    """``bazel --version`` is answered by the client alone (no server, no JVM)."""
    try:
        proc = subprocess.run([tool, "--version"], cwd=cwd, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return parse_version(proc.stdout) if proc.returncode == 0 else None


def query_argv(tool: str, version: tuple[int, int, int] | None) -> tuple[list[str], str]:
    """The argv of the one graph query, and the output format it asks for.

    A Bazel that does not report its version (Debian's ``bazel-4`` prints "no_version")
    gets xml, which every Bazel since 0.x supports. ``--noblock_for_lock`` (a startup
    option since Bazel 0.27) makes a busy server fail fast instead of waiting.
    """
    fmt = "streamed_jsonproto" if version is not None and version >= (6, 4, 0) else "xml"
    startup = ["--noblock_for_lock"] if version is None or version >= (0, 27, 0) else []
    argv = [tool, *startup, "query", QUERY, f"--output={fmt}", "--keep_going", "--noshow_progress"]
    return argv, fmt


def run_query(tool: str, root: Path, timeout: float, warnings: list[str]) -> tuple[str, str]:
    """Run the graph query in ``root``; returns (output text, format)."""
    version = tool_version(tool, root)
    argv, fmt = query_argv(tool, version)
    proc = run_tool(argv, root, timeout, hint="use --source static, or raise CTXSEL_BAZEL_TIMEOUT")
    if proc.returncode == EXIT_PARTIAL:
        cause = _located_error(proc.stderr, root) or _last_error(proc.stderr)
        warnings.append(f"bazel query exited 3 (--keep_going): some packages failed to load; the graph is partial. {cause}".strip())
    elif proc.returncode != 0:
        raise ToolError(f"`{' '.join(argv)}` exited {proc.returncode}: {_last_error(proc.stderr, proc.stdout)}",
                        hint="use --source static to parse the BUILD files without Bazel")
    return proc.stdout, fmt


_LOCATED = re.compile(r"^ERROR: (/[^:\n]+):(\d+):(?:\d+:)? (.+)$", re.MULTILINE)


def _located_error(stderr: str, root: Path) -> str:
    """The first ``ERROR: /abs/pkg/BUILD:2:20: message`` as ``pkg/BUILD:2: message``.

    With --keep_going Bazel's last line is only "package contains errors: p"; the
    first located line is the one that tells the user what to fix, and where.
    """
    m = _LOCATED.search(stderr)
    if not m:
        return ""
    path = m.group(1)
    try:
        path = Path(path).relative_to(root).as_posix()
    except ValueError:
        try:
            path = Path(path).resolve().relative_to(root.resolve()).as_posix()
        except (ValueError, OSError):
            pass
    return f"{path}:{m.group(2)}: {m.group(3).strip()}"


#: a terminal colour code (``\x1b[31m``)
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _last_error(stderr: str, stdout: str = "") -> str:
    """The last ERROR/FATAL line of stderr, else of ``stdout``, else stderr's last line.

    A failed query's stdout holds no graph; the launcher Debian and bazelisk install as
    ``bazel`` prints its refusal there, in colour, with nothing on stderr ("ERROR: The
    project you're trying to build requires Bazel 8.4.2 (specified in .../.bazelversion)").
    """
    for text in (stderr, stdout):
        lines = [ln.strip() for ln in _ANSI.sub("", text).splitlines() if ln.strip().startswith(("ERROR", "FATAL"))]
        if lines:
            return lines[-1]
    return (_ANSI.sub("", stderr).strip().splitlines() or [""])[-1]


def sniff_format(text: str) -> str:
    start = text.lstrip()[:200]
    if start.startswith("<"):
        return "xml"
    if start.startswith("{"):
        return "streamed_jsonproto"
    raise ValueError("neither xml nor streamed_jsonproto")


# ---------------------------------------------------------------- a format-neutral target record
class _Target:
    __slots__ = ("kind", "cls", "name", "inputs", "outputs", "tags", "size", "attr_of_input", "generating_rule", "visibility")

    def __init__(self, kind: str, name: str) -> None:
        self.kind = kind  # rule | source | generated | package_group
        self.cls = ""
        self.name = name
        self.inputs: list[str] = []
        self.outputs: list[str] = []
        self.tags: list[str] = []
        self.size = ""  # a test's size when written (query omits the default)
        self.attr_of_input: dict[str, str] = {}
        self.generating_rule = ""
        #: a rule's or source file's visibility labels; a package group's ``includes``
        self.visibility: list[str] = []


#: a numeric character reference (decimal or hex)
_CHAR_REF = re.compile(r"&#(?:([0-9]+)|x([0-9a-fA-F]+));")


def _xml10_char_ref(m: re.Match[str]) -> str:
    """A character reference XML 1.0 accepts: itself, or U+FFFD for a character XML 1.0 forbids.

    Bazel writes a string attribute's control characters as references, ``&#0;`` included
    (rules_pkg's ``REMOVE_BASE_DIRECTORY = "\\0"`` in ``pkg_files(renames = ...)``, a
    genrule ``cmd`` with ``\\033``), and expat refuses every one but tab, newline and CR:
    the whole graph failed to load (exit 2) for one string value. Labels cannot hold such
    characters (Bazel refuses them in target names), so only attribute text is replaced.
    """
    code = int(m.group(1)) if m.group(1) is not None else int(m.group(2), 16)
    if code in (0x9, 0xA, 0xD) or 0x20 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD or 0x10000 <= code <= 0x10FFFF:
        return m.group(0)
    return "&#65533;"


def parse_xml(text: str, source: str) -> Iterator[_Target]:
    import xml.etree.ElementTree as ET

    # Bazel writes XML 1.1, which expat does not accept; the content is 1.0-compatible
    # except for character references to control characters (below).
    text = re.sub(r'^<\?xml version="1\.1"', '<?xml version="1.0"', text.lstrip(), count=1)
    text = _CHAR_REF.sub(_xml10_char_ref, text)
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        line = exc.position[0] if hasattr(exc, "position") else None
        raise ParseError(f"not valid bazel query xml: {exc}", Location(source, line)) from None
    for el in root:
        name = el.get("name", "")
        if el.tag == "rule":
            t = _Target("rule", name)
            t.cls = el.get("class", "")
            for child in el:
                if child.tag == "rule-input":
                    t.inputs.append(child.get("name", ""))
                elif child.tag == "rule-output":
                    t.outputs.append(child.get("name", ""))
                elif child.tag == "list":
                    attr = child.get("name", "")
                    if attr == "tags":
                        t.tags = [s.get("value", "") for s in child if s.tag == "string"]
                    elif attr == "visibility":
                        t.visibility = [lab.get("value", "") for lab in child if lab.tag == "label"]
                    else:
                        for lab in child:
                            if lab.tag == "label":
                                t.attr_of_input.setdefault(lab.get("value", ""), attr)
                elif child.tag == "label":
                    t.attr_of_input.setdefault(child.get("value", ""), child.get("name", ""))
                elif child.tag == "string" and child.get("name") == "size":
                    t.size = child.get("value", "")
            yield t
        elif el.tag == "source-file":
            t = _Target("source", name)
            t.visibility = [v.get("name", "") for v in el if v.tag == "visibility-label"]
            yield t
        elif el.tag == "package-group":
            t = _Target(PACKAGE_GROUP, name)
            for child in el:
                if child.tag == "list" and child.get("name") == "includes":
                    t.visibility = [lab.get("value", "") for lab in child if lab.tag == "label"]
            yield t
        elif el.tag == "generated-file":
            t = _Target("generated", name)
            t.generating_rule = el.get("generating-rule", "")
            yield t


def parse_streamed_jsonproto(text: str, source: str) -> Iterator[_Target]:
    """One ``build.proto`` Target per line, in proto3 JSON (lowerCamelCase fields)."""
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ParseError(f"not valid streamed_jsonproto: {exc.msg}", Location(source, lineno)) from None
        kind = obj.get("type")
        if kind == "RULE":
            rule = obj.get("rule", {})
            t = _Target("rule", rule.get("name", ""))
            t.cls = rule.get("ruleClass", "")
            t.inputs = list(rule.get("ruleInput", []))
            t.outputs = list(rule.get("ruleOutput", []))
            for attr in rule.get("attribute", []):
                aname = attr.get("name", "")
                if aname == "tags":
                    t.tags = list(attr.get("stringListValue", []))
                elif aname == "size":
                    t.size = attr.get("stringValue", "")
                elif aname == "visibility":
                    t.visibility = list(attr.get("stringListValue", []))
                elif attr.get("type") in ("LABEL_LIST", "LABEL"):
                    for v in attr.get("stringListValue", []) or ([attr["stringValue"]] if "stringValue" in attr else []):
                        t.attr_of_input.setdefault(v, aname)
            yield t
        elif kind == "SOURCE_FILE":
            src = obj.get("sourceFile", {})
            t = _Target("source", src.get("name", ""))
            t.visibility = list(src.get("visibilityLabel", []))
            yield t
        elif kind == "PACKAGE_GROUP":
            group = obj.get("packageGroup", {})
            t = _Target(PACKAGE_GROUP, group.get("name", ""))
            t.visibility = list(group.get("includedPackageGroup", []))
            yield t
        elif kind == "GENERATED_FILE":
            gen = obj.get("generatedFile", {})
            t = _Target("generated", gen.get("name", ""))
            t.generating_rule = gen.get("generatingRule", "")
            yield t


def graph_from_targets(targets: Iterable[_Target], root: str, main_repo_name: str = "", default_visibility: dict[str, list[str]] | None = None) -> BuildGraph:
    """Rules become nodes; an input that is a rule or another rule's output becomes an edge;
    a source-file input becomes one of the rule's ``srcs``; external labels become leaves.

    Package groups are nodes too: bazel query follows ``visibility`` (of a rule, or of a
    source file it lists) and ``includes`` to them, so a rule visible through a group is
    in ``rdeps(//..., group)``. The output omits a visibility the rule does not set, so
    ``default_visibility`` (package -> labels, from the BUILD files) stands in for it."""
    graph = BuildGraph("bazel", root)
    rules: list[_Target] = []
    generated: dict[str, str] = {}
    file_visibility: dict[str, list[str]] = {}
    sources: set[str] = set()
    packages: set[str] = set()
    for t in targets:
        if t.name.startswith("//"):
            packages.add(t.name[2:].split(":", 1)[0])
        if t.kind in ("rule", PACKAGE_GROUP):
            rules.append(t)
        elif t.kind == "generated":
            generated[_canon(t.name, main_repo_name)] = _canon(t.generating_rule, main_repo_name)
        elif t.kind == "source":
            sources.add(_canon(t.name, main_repo_name))
            if t.visibility:
                file_visibility[_canon(t.name, main_repo_name)] = t.visibility
    rule_ids = {_canon(r.name, main_repo_name) for r in rules}
    groups = {_canon(r.name, main_repo_name) for r in rules if r.kind == PACKAGE_GROUP}
    outs_of: dict[str, list[str]] = {}  # declared and implicit outputs (x.dwp, x_deploy.jar), per rule
    for out, rule in generated.items():
        outs_of.setdefault(rule, []).append(out.split(":", 1)[1])
    for r in rules:
        rid = _canon(r.name, main_repo_name)
        package = rid[2:].split(":", 1)[0] if rid.startswith("//") else ""
        meta: dict[str, Any] = {}
        outs = set(outs_of.get(rid, ())) | {_canon(o, main_repo_name).split(":", 1)[1] for o in r.outputs}
        if outs:
            meta["outs"] = tuple(sorted(outs))
        if r.size and r.cls.endswith("_test"):
            meta["size"] = r.size
        graph.add_node(Node(rid, r.cls or r.kind, package=package, tags=tuple(sorted(set(r.tags))), is_test=r.cls.endswith("_test"), external=not rid.startswith("//"), meta=meta))
    for r in rules:
        rid = _canon(r.name, main_repo_name)
        files: set[str] = set()
        visibility = r.visibility
        if r.kind == "rule" and not visibility and default_visibility:
            visibility = default_visibility.get(graph.node(rid).package, [])
        for raw in visibility:  # a group's includes, a rule's visibility
            if _canon(raw, main_repo_name) in groups:
                graph.add_edge(rid, _canon(raw, main_repo_name), DEP if r.kind == PACKAGE_GROUP else IMPLICIT)
        for raw in r.inputs:
            dep = _canon(raw, main_repo_name)
            attr = r.attr_of_input.get(raw, "")
            kind = DATA if attr == "data" else TESTS if attr in ("tests", "$implicit_tests") else DEP
            if dep in rule_ids:
                graph.add_edge(rid, dep, kind)
            elif dep in generated:
                if generated[dep] in graph:
                    graph.add_edge(rid, generated[dep], kind)
            elif dep.startswith("//"):
                body = dep[2:]
                dep_package, _, name = body.partition(":")
                if subpackage_crossed(dep_package, name, packages):
                    continue  # "//p:sub/x.c" with a p/sub/BUILD: invalid for Bazel, not p/sub's x.c
                if dep_package in packages and dep not in sources:
                    # the output lists every source-file target of a package it covers; an input
                    # it does not list is a file its package does not declare ("no such target",
                    # see static.GraphAssembler._declared_files): Bazel makes no edge
                    continue
                files.add(f"{dep_package}/{name}" if dep_package else name)
                for vis in file_visibility.get(dep, ()):  # as printed: Bazel 4 keeps an exported file's "@ws//"
                    if _canon(vis, "") in groups:
                        graph.add_edge(rid, _canon(vis, ""), IMPLICIT)
            else:
                if dep not in graph:
                    graph.add_node(Node(dep, "external", external=True))
                graph.add_edge(rid, dep, kind)
        if files:
            node = graph.node(rid)
            graph.add_node(Node(node.id, node.kind, node.package, tuple(sorted(files)), node.tags, node.is_test, node.external, node.meta))
    return graph


def _canon(label: str, main_repo_name: str) -> str:
    try:
        return str(parse_label(label, "", main_repo_name))
    except LabelError:
        return label


def undo_latin1(text: str) -> str:
    """The real text of a query output whose non-ASCII labels are mojibake.

    Bazel 4.2.3 reads file names and BUILD files as latin-1 and writes each of those
    "characters" to ``--output=xml`` (and proto) as UTF-8, so ``//cafe:é.txt`` arrives as
    ``//cafe:Ã©.txt`` (``--output=label`` writes the raw bytes and is right). ctxsel then
    printed the mojibake and never matched the file ``cafe/é.txt`` to its rules. Output
    that is already real text fails the round trip (a lone ``é`` is no UTF-8, CJK is no
    latin-1) and is kept.
    """
    if text.isascii():
        return text
    try:
        return text.encode("latin-1").decode("utf-8")
    except UnicodeError:
        return text


def load_query_output(text: str, source: str, root: str, main_repo_name: str = "", fmt: str | None = None,
                      default_visibility: dict[str, list[str]] | None = None) -> BuildGraph:
    if fmt is None:
        try:
            fmt = sniff_format(text)
        except ValueError:
            raise ParseError("expected the output of bazel query --output=xml or --output=streamed_jsonproto", Location(source, 1)) from None
    text = undo_latin1(text)
    targets = parse_xml(text, source) if fmt == "xml" else parse_streamed_jsonproto(text, source)
    return graph_from_targets(targets, root, main_repo_name, default_visibility)


def timeout_from_env() -> float:
    try:
        return float(os.environ.get("CTXSEL_BAZEL_TIMEOUT", DEFAULT_TIMEOUT))
    except ValueError:
        return DEFAULT_TIMEOUT
