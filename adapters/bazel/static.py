"""Building the Bazel target graph from BUILD files alone, the way ``bazel query`` sees it.

Three passes: find the packages (directories with a BUILD file, as Bazel does, so
globs stop at nested packages); evaluate every BUILD file (macros from .bzl files
included) into rule instantiations; then resolve every label-valued attribute to a
rule, a genrule output (= its rule) or a source file. The result follows every
attribute edge, like ``rdeps(//..., X)``, because that is what the answer must equal.
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from ctxsel.cache import InputTracker
from ctxsel.errors import Location, ParseError
from ctxsel.graph import DATA, DEP, IMPLICIT, TESTS, BuildGraph, Node

from .labels import Label, LabelError, looks_like_label, parse_label, workspace_name
from .starlark import Interpreter, build_dialect_issues, parse
from .starlark_values import UNKNOWN, EvalError, EvaluatedModule, LabelValue, PackageContext, TargetCall, flatten, select_keys

BUILD_NAMES = ("BUILD.bazel", "BUILD")
WORKSPACE_FILES = ("WORKSPACE", "WORKSPACE.bazel", "MODULE.bazel")
SKIP_DIRS = frozenset({".git", ".hg", ".svn", ".ctxsel"})

#: Native rules callable in a BUILD file without a load().
NATIVE_RULES = frozenset("""
alias cc_binary cc_import cc_library cc_proto_library cc_shared_library cc_test cc_toolchain cc_toolchain_suite
config_setting constraint_setting constraint_value environment filegroup genquery genrule
java_binary java_import java_library java_lite_proto_library java_package_configuration java_plugin
java_proto_library java_runtime java_test java_toolchain label_flag label_setting objc_import objc_library
platform proto_lang_toolchain proto_library py_binary py_library py_runtime py_test sh_binary sh_library sh_test
test_suite toolchain toolchain_type android_binary android_library android_test android_local_test
android_sdk aar_import starlark_doc_extract fdo_profile fdo_prefetch_hints propeller_optimize
cc_libc_top_alias cc_host_toolchain_alias xcode_config xcode_version available_xcodes
""".split())

#: Attributes of native rules whose strings are labels (bazel query follows all of them).
LABEL_ATTRS = frozenset("""
srcs hdrs textual_hdrs deps data tests runtime_deps exports exported_plugins plugins toolchains
implementation_deps interface_deps dynamic_deps additional_linker_inputs additional_compiler_inputs
win_def_file malloc link_extra_lib main tools exec_tools actual resources resource_jars classpath_resources
launcher srcjar jars interface_library static_library shared_library objects pic_objects module_map
compatible_with restricted_to target_compatible_with exec_compatible_with constraint_setting
constraint_values flag_values parents toolchain toolchain_type target_settings build_setting_default
interpreter files coverage_tool bootstrap_template compiler_files all_files ar_files as_files dwp_files
linker_files objcopy_files strip_files coverage_files toolchain_config toolchains java_runtime javabuilder
singlejar genclass ijar header_compiler bootclasspath extclasspath roots embed manifest
linkstamp proguard_specs scope deploy_env reexport_deps non_arc_srcs pch archives plugin runtime fulfills
cpu_constraints os_constraints profile libc_top dynamic_runtime_lib static_runtime_lib javac oneversion
applicable_licenses assets resource_files debug_key
""".split())

#: Attributes that never hold labels, whatever the rule (for rules we cannot type).
NON_LABEL_ATTRS = frozenset("""
name visibility tags testonly licenses distribs deprecation features cmd cmd_bash cmd_bat cmd_ps message
copts conlyopts cxxopts linkopts defines local_defines includes size timeout flaky shard_count args env
env_inherit stamp linkstatic alwayslink main_class jvm_flags javacopts python_version srcs_version imports
strip_include_prefix include_prefix output_to_bindir executable local importpath package_metadata
exec_properties
""".split())

#: Attributes whose strings name outputs of the rule (a dependency on one is on the rule).
OUTPUT_ATTRS = frozenset({"outs", "out"})

#: Files native rules always produce; a label naming one means a dependency on the rule
#: (as listed by ``bazel query 'kind("generated file", //...:*)'`` with Bazel 4.2.3).
_JAVA_BINARY_OUTPUTS = ("{name}.jar", "{name}-src.jar", "{name}_deploy.jar", "{name}_deploy-src.jar")
IMPLICIT_OUTPUTS: dict[str, tuple[str, ...]] = {
    "cc_binary": ("{name}.stripped", "{name}.dwp"),
    "cc_test": ("{name}.dwp",),
    "java_library": ("lib{name}.jar", "lib{name}-src.jar"),
    "java_binary": _JAVA_BINARY_OUTPUTS,
    "java_test": _JAVA_BINARY_OUTPUTS,
}

#: Edge type per attribute (the rest are plain dependencies).
EDGE_TYPES = {"data": DATA, "tests": TESTS}


@dataclass
class PackageResult:
    package: str
    build_file: str  # repo-relative
    targets: list[TargetCall]
    loads: tuple[str, ...]  # transitive .bzl files (repo-relative) the BUILD file loads


@dataclass
class StaticReport:
    """What the static loader could not resolve, summarised for a few warning lines."""

    unresolved_loads: dict[str, set[str]] = field(default_factory=dict)  # load label -> symbols used as rules
    undefined: dict[str, int] = field(default_factory=dict)  # undefined rule names -> count
    eval_errors: list[str] = field(default_factory=list)  # "path:line: message"
    missing_packages: dict[str, str] = field(default_factory=dict)  # label -> where referenced
    missing_loads: dict[str, str] = field(default_factory=dict)
    duplicates: list[str] = field(default_factory=list)
    empty_globs: list[str] = field(default_factory=list)
    build_dialect: list[str] = field(default_factory=list)  # "path:line: message", .bzl-only syntax in a BUILD file

    def warnings(self) -> list[str]:
        out: list[str] = []

        def some(items: Iterable[str], n: int = 3) -> str:
            items = sorted(items)
            return ", ".join(items[:n]) + (f" and {len(items) - n} more" if len(items) > n else "")

        if self.unresolved_loads:
            symbols = {s for v in self.unresolved_loads.values() for s in v}
            out.append(
                f"static: {len(self.unresolved_loads)} load()ed file(s) were not evaluated (other repositories, or missing): "
                f"{some(self.unresolved_loads)}; calls to {len(symbols)} of their symbols ({some(symbols)}) "
                "were taken as rules of that kind"
            )
        if self.undefined:
            out.append(f"static: {len(self.undefined)} undefined name(s) called with name= were taken as rule kinds: {some(self.undefined)}")
        if self.missing_loads:
            out.append(f"static: {len(self.missing_loads)} load()ed file(s) do not exist: {some(f'{k} ({v})' for k, v in self.missing_loads.items())}")
        if self.eval_errors:
            out.append(f"static: {len(self.eval_errors)} statement(s) could not be evaluated; their targets may be missing: {some(self.eval_errors, 2)}")
        if self.missing_packages:
            out.append(f"static: {len(self.missing_packages)} label(s) name packages with no BUILD file: {some(f'{k} ({v})' for k, v in self.missing_packages.items())}")
        if self.duplicates:
            out.append(f"static: duplicate target names (first one kept): {some(self.duplicates)}")
        if self.build_dialect:
            out.append(
                f"static: {len(self.build_dialect)} construct(s) Bazel allows only in .bzl files; bazel query fails "
                f"on these packages (their targets were evaluated anyway): {some(self.build_dialect, 2)}"
            )
        if self.empty_globs:
            out.append(f"static: glob(allow_empty = False) matched nothing: {some(self.empty_globs)}")
        return out


class StaticLoader:
    """One static load of one workspace; all file access goes through the tracker."""

    def __init__(self, root: Path, tracker: InputTracker) -> None:
        self.root = root
        self.tracker = tracker
        self.report = StaticReport()
        self.main_repo_name = ""
        self.packages: dict[str, str] = {}  # package -> BUILD file name
        # directory (repo-relative) -> (files, subdirectories); from one walk of the tree
        self.dirs: dict[str, tuple[list[str], list[str]]] = {}
        self._package_files: dict[str, tuple[list[str], list[str]]] = {}
        self._modules: dict[str, dict[str, Any]] = {}  # .bzl path -> exported globals
        self._module_loads: dict[str, set[str]] = {}  # .bzl or BUILD path -> directly loaded .bzl paths
        self._loading: list[str] = []
        self._glob_cache: dict[tuple[str, bool], re.Pattern[str]] = {}
        self.interp = Interpreter(self._load, self._glob, NATIVE_RULES, self._note_unknown)

    # ------------------------------------------------------------ discovery
    def discover(self) -> None:
        """Find every package; remember every directory listing for glob()."""
        self.main_repo_name = workspace_name(self.root, self.tracker)
        ignored = bazelignore(self.root, self.tracker)
        if any(self.tracker.exists(self.root / name) for name in ("WORKSPACE", "WORKSPACE.bazel")):
            # //external is the WORKSPACE file's pseudo-package: Bazel never reads a BUILD
            # file in a top-level external/ directory (measured: not in //..., no such target)
            ignored = ignored | {"external"}
        stack = [""]
        while stack:
            rel = stack.pop()
            files: list[str] = []
            subdirs: list[str] = []
            for entry in self.tracker.scandir(self.root / rel if rel else self.root):
                child = f"{rel}/{entry.name}" if rel else entry.name
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if entry.name in SKIP_DIRS or child in ignored:  # bazel-out & co. are symlinks: not walked
                            continue
                        subdirs.append(entry.name)
                        stack.append(child)
                    elif entry.is_file():
                        files.append(entry.name)
                    elif entry.is_dir():  # a symlink to a directory: listed, not walked
                        subdirs.append(entry.name)
                except OSError:
                    continue
            self.dirs[rel] = (files, subdirs)
            for build in BUILD_NAMES:
                if build in files:
                    self.packages[rel] = build
                    break

    def package_files(self, package: str) -> tuple[list[str], list[str]]:
        """Files and directories of a package, relative to it, not crossing into subpackages."""
        cached = self._package_files.get(package)
        if cached is not None:
            return cached
        files: list[str] = []
        dirs: list[str] = []
        stack = [""]
        while stack:
            sub = stack.pop()
            full = f"{package}/{sub}".strip("/") if sub else package
            listing = self.dirs.get(full)
            if listing is None:
                continue
            for name in listing[0]:
                files.append(f"{sub}/{name}" if sub else name)
            for name in listing[1]:
                child_rel = f"{sub}/{name}" if sub else name
                child_full = f"{full}/{name}" if full else name
                if child_full in self.packages:
                    continue
                dirs.append(child_rel)
                stack.append(child_rel)
        files.sort()
        dirs.sort()
        self._package_files[package] = (files, dirs)
        return files, dirs

    # ------------------------------------------------------------ evaluation
    def evaluate(self, package: str) -> PackageResult:
        build_rel = f"{package}/{self.packages[package]}" if package else self.packages[package]
        path = self.root / build_rel
        tree = self._parse(self.tracker.read_text(path), build_rel)
        for line, message in build_dialect_issues(tree):
            self.report.build_dialect.append(f"{build_rel}:{line}: {message}")
        ctx = PackageContext(package, build_rel)
        self.interp.ctx = ctx
        self.interp.steps = 0
        g: dict[str, Any] = {}
        self._loading = [build_rel]
        try:
            self.interp.exec_module(tree, build_rel, g, per_statement=self._eval_error)
        finally:
            self.interp.ctx = None
        loads = tuple(sorted(self._transitive_loads(build_rel)))
        return PackageResult(package, build_rel, ctx.targets, loads)

    def _parse(self, source: str, rel: str) -> ast.Module:
        try:
            return parse(source, rel)
        except EvalError as exc:
            raise ParseError(exc.message, Location(rel, exc.line)) from None

    def _eval_error(self, exc: EvalError) -> None:
        self.report.eval_errors.append(f"{exc.path}:{exc.line}: {exc.message}")

    def _note_unknown(self, symbol: str, origin: str, line: int) -> None:
        if origin:
            self.report.unresolved_loads.setdefault(origin, set()).add(symbol)
        else:
            self.report.undefined[symbol] = self.report.undefined.get(symbol, 0) + 1

    def _load(self, label_text: str, from_path: str, line: int) -> dict[str, Any]:
        """Evaluate a .bzl (once per workspace load) and return its globals."""
        from_package = self._package_of_file(from_path)
        try:
            label = parse_label(label_text, from_package, self.main_repo_name)
        except LabelError as exc:
            raise EvalError(str(exc), line, from_path) from None
        if label.external:
            self.report.unresolved_loads.setdefault(label_text, set())
            return {}
        rel = label.path
        self._check_bzl_package(label, line, from_path)
        self._module_loads.setdefault(from_path, set()).add(rel)
        if rel in self._modules:
            return self._modules[rel]
        if rel in self._loading:
            cycle = " -> ".join(self._loading[self._loading.index(rel):] + [rel])
            raise EvalError(f"load() cycle: {cycle}", line, from_path)
        full = self.root / rel
        if not self.tracker.exists(full) or not full.is_file():
            self.report.missing_loads.setdefault(label_text, f"{from_path}:{line}")
            self.report.unresolved_loads.setdefault(label_text, set())
            return {}
        tree = self._parse(self.tracker.read_text(full), rel)
        g: dict[str, Any] = {}
        saved_ctx, saved_line = self.interp.ctx, self.interp.ctx.line if self.interp.ctx else 0
        self.interp.ctx = None  # top-level rule calls in a .bzl do not create targets
        self._loading.append(rel)
        try:
            self.interp.exec_module(tree, rel, g, per_statement=self._eval_error)
        finally:
            self._loading.pop()
            self.interp.ctx = saved_ctx
            if saved_ctx is not None:
                saved_ctx.line = saved_line
        exported = EvaluatedModule(str(label), {k: v for k, v in g.items() if not k.startswith("_")})
        self._modules[rel] = exported
        return exported

    def _check_bzl_package(self, label: Label, line: int, from_path: str) -> None:
        """Bazel's rules for a .bzl label: its package must exist, and the file must not lie
        in a subpackage of it (both fail the loading package; messages as Bazel 4.2.3's)."""
        if label.package not in self.packages:
            raise EvalError(
                f"every .bzl file must have a corresponding package, but '{label}' does not have one", line, from_path
            )
        directory = label.path.rsplit("/", 1)[0] if "/" in label.path else ""
        while directory and directory != label.package and len(directory) > len(label.package):
            if directory in self.packages:
                raise EvalError(f"label '{label}' is invalid because '{directory}' is a subpackage", line, from_path)
            directory = directory.rsplit("/", 1)[0] if "/" in directory else ""

    def _transitive_loads(self, path: str) -> set[str]:
        seen: set[str] = set()
        stack = list(self._module_loads.get(path, ()))
        while stack:
            cur = stack.pop()
            if cur in seen:
                continue
            seen.add(cur)
            stack.extend(self._module_loads.get(cur, ()))
        return seen

    def _package_of_file(self, rel: str) -> str:
        probe = rel.rsplit("/", 1)[0] if "/" in rel else ""
        while probe and probe not in self.packages:
            probe = probe.rsplit("/", 1)[0] if "/" in probe else ""
        return probe

    def _glob(self, ctx: PackageContext, include: list[str], exclude: list[str], exclude_directories: bool, allow_empty: bool, line: int) -> list[str]:
        files, dirs = self.package_files(ctx.package)
        out = self._glob_match(files, include, exclude, directory=False)
        if not exclude_directories:
            out = sorted(out + self._glob_match(dirs, include, exclude, directory=True))
        if not out and not allow_empty:
            self.report.empty_globs.append(f"{ctx.path}:{line}")
        return out

    def _glob_match(self, candidates: list[str], include: list[str], exclude: list[str], directory: bool) -> list[str]:
        inc = [self._glob_regex(p, directory) for p in include]
        exc = [self._glob_regex(p, directory) for p in exclude]
        return [f for f in candidates if any(r.fullmatch(f) for r in inc) and not any(r.fullmatch(f) for r in exc)]

    def _glob_regex(self, pattern: str, directory: bool = False) -> re.Pattern[str]:
        key = (pattern, directory)
        cached = self._glob_cache.get(key)
        if cached is None:
            cached = self._glob_cache[key] = re.compile(glob_to_regex(pattern, directory))
        return cached

    # ------------------------------------------------------------ the graph
    def build(self) -> BuildGraph:
        self.discover()
        results = [self.evaluate(p) for p in sorted(self.packages)]
        return GraphAssembler(self).assemble(results)


class GraphAssembler:
    """Turns evaluated packages into nodes and attribute edges."""

    def __init__(self, loader: StaticLoader) -> None:
        self.loader = loader
        self.report = loader.report
        self.graph = BuildGraph("bazel", str(loader.root))
        self.rules: dict[str, TargetCall] = {}  # canonical label -> call
        self.outputs: dict[str, str] = {}  # canonical label of an output file -> its rule

    def assemble(self, results: list[PackageResult]) -> BuildGraph:
        by_package: dict[str, list[str]] = {}
        for res in results:
            seen: set[str] = set()
            ids: list[str] = []
            for call in res.targets:
                label = f"//{res.package}:{call.name}"
                if call.name in seen:
                    self.report.duplicates.append(label)
                    continue
                seen.add(call.name)
                self.rules[label] = call
                ids.append(label)
                for out in self._outputs(call):
                    self.outputs.setdefault(f"//{res.package}:{out}", label)
            by_package[res.package] = ids
        for res in results:
            loads_meta = {"loads": res.loads} if res.loads else {}
            for label in by_package[res.package]:
                self._add_rule(label, res, loads_meta)
        for res in results:
            for label in by_package[res.package]:
                self._add_edges(label, res.package, by_package[res.package])
        self.graph.warnings.extend(self.report.warnings())
        return self.graph

    def _outputs(self, call: TargetCall) -> list[str]:
        """Declared outputs (``outs``, ``attr.output``) plus native implicit ones (``x_deploy.jar``)."""
        names: list[str] = [p.format(name=call.name) for p in IMPLICIT_OUTPUTS.get(call.kind, ()) if call.rule is None or call.rule.native]
        if call.rule is not None:
            names += [out for t in call.rule.output_templates if (out := _expand_output_template(t, call))]
        for attr, value in call.attrs.items():
            if not _is_output_attr(call, attr):
                continue
            for v in flatten(value):
                if isinstance(v, str) and v:
                    names.append(v)
        return names

    def _add_rule(self, label: str, res: PackageResult, loads_meta: dict[str, Any]) -> None:
        call = self.rules[label]
        tags = tuple(sorted({t for t in flatten(call.attrs.get("tags", [])) if isinstance(t, str)}))  # as bazel query prints them
        outs = tuple(sorted(set(self._outputs(call))))
        meta = dict(loads_meta)
        if outs:
            meta["outs"] = outs
        self.graph.add_node(Node(
            id=label, kind=call.kind, package=res.package, tags=tags,
            is_test=call.kind.endswith("_test"), meta=meta,
        ))

    def _add_edges(self, label: str, package: str, package_rules: list[str]) -> None:
        call = self.rules[label]
        files: set[str] = set()
        deps: list[tuple[str, str]] = []  # (label text, edge type)
        for attr, value in call.attrs.items():
            for key in select_keys(value):
                if key != "//conditions:default":
                    deps.append((key, IMPLICIT))
            if not _is_label_attr(call, attr):
                continue
            strict = _strict_label_attr(call, attr)
            for v in flatten(value):
                if isinstance(v, LabelValue):
                    v = v.text
                if not isinstance(v, str) or not v or (not strict and not looks_like_label(v)):
                    continue
                deps.append((v, EDGE_TYPES.get(attr, DEP)))
        schema = call.rule.attrs if call.rule is not None and call.rule.attrs else {}
        for attr, spec in schema.items():  # label defaults of rule() attributes left unset (or None): implicit deps
            if call.attrs.get(attr) is None and spec.type in ("label", "label_list", "label_dict") and spec.default not in (None, UNKNOWN):
                for v in flatten(spec.default):
                    text = v.text if isinstance(v, LabelValue) else v
                    if isinstance(text, str) and text:
                        deps.append((text, IMPLICIT))
        if call.kind == "test_suite" and not flatten(call.attrs.get("tests", [])):
            # Bazel's $implicit_tests: every non-manual test rule of the package, whatever
            # the suite's tags (tags only filter when the suite is expanded for `bazel test`).
            for other in package_rules:
                node = self.graph.node(other)
                if node.is_test and "manual" not in node.tags:
                    self._edge(label, other, TESTS)
        for text, kind in deps:
            try:
                dep = parse_label(text, package, self.loader.main_repo_name)
            except LabelError:
                self.report.eval_errors.append(f"{label}: invalid label {text!r}")
                continue
            self._resolve_dep(label, dep, kind, files)
        if files:
            node = self.graph.node(label)
            self.graph.add_node(Node(node.id, node.kind, node.package, tuple(sorted(files)), node.tags, node.is_test, node.external, node.meta))

    def _resolve_dep(self, label: str, dep: Label, kind: str, files: set[str]) -> None:
        target = str(dep)
        if dep.external:
            if target not in self.graph:
                self.graph.add_node(Node(target, "external", package="", external=True))
            self._edge(label, target, kind)
        elif target in self.rules:
            self._edge(label, target, kind)
        elif target in self.outputs:
            self._edge(label, self.outputs[target], kind)
        elif dep.package in self.loader.packages:
            files.add(dep.path)  # a source file of that package
        else:
            self.report.missing_packages.setdefault(target, label)

    def _edge(self, a: str, b: str, kind: str) -> None:
        self.graph.add_edge(a, b, kind)


_TEMPLATE_FIELD = re.compile(r"%\{([A-Za-z_][A-Za-z0-9_]*)\}")


def _expand_output_template(template: str, call: TargetCall) -> str | None:
    """``%{name}.out`` -> ``r1.out``, as Bazel expands ``rule(outputs = ...)`` templates.

    ``%{attr}`` takes a string attribute's value or a label attribute's target name;
    None when a placeholder cannot be filled (the output is then left out, not guessed).
    """
    def value(match: re.Match[str]) -> str:
        key = match.group(1)
        v = call.name if key == "name" else call.attrs.get(key)
        if isinstance(v, LabelValue):
            v = v.text
        if not isinstance(v, str) or not v:
            raise LookupError(key)
        spec = call.rule.attrs.get(key) if call.rule is not None and call.rule.attrs else None
        return v.rsplit(":", 1)[-1] if spec is not None and spec.type == "label" else v
    try:
        return _TEMPLATE_FIELD.sub(value, template) or None
    except LookupError:
        return None


def _is_label_attr(call: TargetCall, attr: str) -> bool:
    if attr in NON_LABEL_ATTRS or attr in OUTPUT_ATTRS:
        return False
    spec = call.rule.attrs.get(attr) if call.rule is not None and call.rule.attrs else None
    if spec is not None:
        return spec.type in ("label", "label_list", "label_dict")
    if call.rule is not None and call.rule.native:
        return attr in LABEL_ATTRS
    return True  # untyped (unknown kind): label-looking strings count, see _strict_label_attr


def _strict_label_attr(call: TargetCall, attr: str) -> bool:
    """Whether every string of the attribute is a label (else only ``//``, ``:``, ``@`` ones)."""
    spec = call.rule.attrs.get(attr) if call.rule is not None and call.rule.attrs else None
    if spec is not None:
        return True
    return attr in LABEL_ATTRS


def _is_output_attr(call: TargetCall, attr: str) -> bool:
    spec = call.rule.attrs.get(attr) if call.rule is not None and call.rule.attrs else None
    if spec is not None:
        return spec.type in ("output", "output_list")
    if call.rule is not None and call.rule.native:
        return attr == "outs" and call.kind == "genrule"
    return attr in OUTPUT_ATTRS


def glob_to_regex(pattern: str, directory: bool = False) -> str:
    """Bazel glob syntax: ``*`` within a path segment, ``**`` across any number of segments;
    a name starting with "." only matches a segment that is ``*`` or starts with "." too.

    With ``directory`` the regex is for directory paths (``exclude_directories = 0``): a
    trailing ``**`` matches zero segments there, so ``d/**`` lists the directory ``d``
    itself (measured with Bazel 4.2.3), while a *file* named ``d`` never matches it.
    """
    segments: list[str] = []
    for seg in pattern.strip("/").split("/"):
        if not (seg == "**" and segments and segments[-1] == "**"):  # "**/**" is "**"
            segments.append(seg)
    out: list[str] = []
    for i, seg in enumerate(segments):
        last = i == len(segments) - 1
        if seg == "**":
            if last and directory and i:
                out[-1] = out[-1][:-1] + r"(?:/(?:[^/]+/)*[^/]+)?"
            else:
                out.append(r"(?:[^/]+/)*[^/]+" if last else r"(?:[^/]+/)*")
            continue
        body = "".join("[^/]*" if ch == "*" else "[^/]" if ch == "?" else re.escape(ch) for ch in seg)
        if seg != "*" and not seg.startswith("."):
            body = r"(?!\.)" + body  # as Bazel's UnixGlob: "*.txt" skips ".x.txt", "*" and "**" do not
        out.append(body + ("" if last else "/"))
    return "".join(out)


def bazelignore(root: Path, tracker: InputTracker) -> set[str]:
    path = root / ".bazelignore"
    if not tracker.exists(path):
        return set()
    out = set()
    for line in tracker.read_text(path).splitlines():
        line = line.strip().strip("/")
        if line and not line.startswith("#"):
            out.add(line)
    return out


def load_static(root: Path, tracker: InputTracker) -> BuildGraph:
    return StaticLoader(root, tracker).build()


def find_build_files(root: Path, tracker: InputTracker) -> tuple[dict[str, str], list[str]]:
    """Packages (-> BUILD file name) and every .bzl file, without evaluating anything.

    Tool mode notes these so its cached graph is dropped when a BUILD/.bzl file changes.
    """
    loader = StaticLoader(root, tracker)
    loader.discover()
    bzl: list[str] = []
    for rel, (files, _) in loader.dirs.items():
        for name in files:
            if name.endswith(".bzl"):
                path = f"{rel}/{name}" if rel else name
                tracker.note(os.fspath(root / path))
                bzl.append(path)
    for package, build in loader.packages.items():
        tracker.note(os.fspath(root / package / build))
    return loader.packages, sorted(bzl)


def transitive_loads_by_package(root: Path, tracker: InputTracker | None = None) -> dict[str, set[str]]:
    """package -> every .bzl its BUILD file loads, reading only the load() statements.

    For graphs that came from ``bazel query`` (which does not report loads).
    """
    tracker = tracker or InputTracker(root)
    loader = StaticLoader(root, tracker)
    loader.discover()
    direct: dict[str, set[str]] = {}

    def loads_of(rel: str) -> set[str]:
        if rel in direct:
            return direct[rel]
        direct[rel] = set()
        try:
            tree = parse(tracker.read_text(root / rel), rel)
        except (EvalError, OSError):
            return direct[rel]
        package = loader._package_of_file(rel)
        for stmt in tree.body:
            call = stmt.value if isinstance(stmt, ast.Expr) else None
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "load" and call.args:
                first = call.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    try:
                        label = parse_label(first.value, package, loader.main_repo_name)
                    except LabelError:
                        continue
                    if not label.external:
                        direct[rel].add(label.path)
        return direct[rel]

    out: dict[str, set[str]] = {}
    for package, build in loader.packages.items():
        seen: set[str] = set()
        stack = list(loads_of(f"{package}/{build}" if package else build))
        while stack:
            cur = stack.pop()
            if cur not in seen:
                seen.add(cur)
                stack.extend(loads_of(cur))
        out[package] = seen
    return out
