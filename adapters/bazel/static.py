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
import posixpath
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from ctxsel.cache import InputTracker
from ctxsel.errors import Location, ParseError
from ctxsel.globs import BAZEL, BAZEL_DIRS, glob_regex
from ctxsel.graph import DATA, DEP, IMPLICIT, TESTS, BuildGraph, Node

from .labels import BUILD_NAMES, Label, LabelError, looks_like_label, module_info, parse_label, subpackage_crossed, valid_package_name, workspace_name
from .repo_file import ignored_directories
from .skylib import skylib_source
from .starlark import Interpreter, build_dialect_issues, first_undefined_name, parse, rebound_global
from .starlark_builtins import BAZEL_4_BUILD_GLOBALS, OTHER_BAZEL_BUILD_NAMES
from .starlark_values import (
    NON_RULE_KINDS,
    PACKAGE_GROUP,
    UNKNOWN,
    AttrSpec,
    EvalError,
    EvaluatedModule,
    LabelValue,
    PackageContext,
    Select,
    SelectorList,
    TargetCall,
    dict_values,
    flatten,
    nested_select,
    select_keys,
)

WORKSPACE_FILES = ("WORKSPACE", "WORKSPACE.bazel", "MODULE.bazel")
SKIP_DIRS = frozenset({".git", ".hg", ".svn", ".ctxsel"})
#: directories walked through symlinks, at most: links to links can multiply a tree
#: exponentially (a hostile repo must not make ctxsel hang; Bazel would, too)
MAX_LINKED_DIRS = 20_000

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
config_feature_flag cc_toolchain_alias java_runtime_alias java_toolchain_alias xcode_config_alias
action_listener extra_action apple_binary apple_static_library apple_cc_toolchain j2objc_library
""".split())

#: Attributes of native rules whose strings are labels (bazel query follows all of them).
LABEL_ATTRS = frozenset("""
srcs hdrs textual_hdrs deps data tests runtime_deps exports exported_plugins plugins toolchains
implementation_deps interface_deps dynamic_deps additional_linker_inputs additional_compiler_inputs
win_def_file malloc link_extra_lib main tools exec_tools actual resources resource_jars classpath_resources
launcher srcjar jars interface_library static_library shared_library objects pic_objects module_map
compatible_with restricted_to target_compatible_with exec_compatible_with constraint_setting
constraint_values flag_values parents toolchain toolchain_type target_settings
interpreter files coverage_tool bootstrap_template compiler_files all_files ar_files as_files dwp_files
linker_files objcopy_files strip_files coverage_files toolchain_config toolchains java_runtime javabuilder
singlejar genclass ijar header_compiler bootclasspath extclasspath roots embed manifest
linkstamp proguard_specs scope deploy_env reexport_deps non_arc_srcs pch archives plugin runtime fulfills
cpu_constraints os_constraints profile libc_top dynamic_runtime_lib static_runtime_lib javac oneversion
applicable_licenses assets resource_files debug_key extra_actions jre_deps avoid_deps
""".split())
#: label attributes with a name too common to count for every kind (an unknown macro's
#: ``versions = ["1.0"]`` is no label): only for these native rules
KIND_LABEL_ATTRS = frozenset({("xcode_config", "versions"), ("xcode_config", "default"),
                              ("available_xcodes", "versions"), ("available_xcodes", "default")})

#: Attributes that never hold labels, whatever the rule (for rules we cannot type).
#: ``environment``/``arguments`` are ``env``/``args`` under rules_multirun's names: rules_lint's
#: ``command(environment = {"FIX_TARGET": "//p:<itself>"})`` read as a label made a self-cycle.
NON_LABEL_ATTRS = frozenset("""
name visibility tags testonly licenses distribs deprecation features cmd cmd_bash cmd_bat cmd_ps message
copts conlyopts cxxopts linkopts defines local_defines includes size timeout flaky shard_count args env
env_inherit stamp linkstatic alwayslink main_class jvm_flags javacopts python_version srcs_version imports
strip_include_prefix include_prefix output_to_bindir executable local importpath package_metadata
exec_properties build_setting_default environment arguments
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


class ExtensionError(EvalError):
    """A ``load()`` of a .bzl that stopped on a fatal error (``root``: "path:line: message"
    of that error, the same through a chain of loads). Bazel loads every .bzl before it
    runs a BUILD statement, so the whole package fails ("Extension file ... has errors")."""

    def __init__(self, rel: str, root: str, line: int, path: str) -> None:
        super().__init__(f"extension '{rel}' has errors ({root})", line, path, fatal=True)
        self.root = root


@dataclass
class PackageResult:
    package: str
    build_file: str  # repo-relative
    targets: list[TargetCall]
    loads: tuple[str, ...]  # transitive .bzl files (repo-relative) the BUILD file loads
    default_visibility: Any = None  # package(default_visibility = ...)
    file_visibility: dict[str, Any] = field(default_factory=dict)  # exports_files: name -> visibility
    unknown_loops: tuple[str, ...] = ()  # "path:line" of loops over another repository's value
    external_calls: dict[str, str] = field(default_factory=dict)  # PackageContext.external_calls
    #: "path:line: message" of the error Bazel stops this package on (``EvalError.fatal``, a
    #: BUILD-file dialect error); "" when it loads. ``targets`` holds what Bazel keeps.
    failure: str = ""

    def unseen_reason(self, name: str) -> str:
        """Why a target ``name`` of this package that ctxsel did not find may still exist for
        Bazel ("" when nothing ctxsel left unevaluated could have created it): a loop over
        another repository's value, or a call of another repository's macro whose name
        prefixes it."""
        if self.unknown_loops:
            return f"a loop over another repository's value ({self.unknown_loops[0]})"
        for prefix, call in self.external_calls.items():  # "": a call with no name, any target
            if not prefix or (name.startswith(prefix) and name[len(prefix):len(prefix) + 1] in ("/", "_", ".", "-")):
                return f"another repository's {call}"
        return ""


@dataclass
class StaticReport:
    """What the static loader could not resolve, summarised for a few warning lines."""

    unresolved_loads: dict[str, set[str]] = field(default_factory=dict)  # load label -> symbols used as rules
    undefined: dict[str, int] = field(default_factory=dict)  # undefined rule names -> count
    eval_errors: list[str] = field(default_factory=list)  # "path:line: message"
    missing_packages: dict[str, str] = field(default_factory=dict)  # label -> where referenced
    duplicated_labels: dict[str, None] = field(default_factory=dict)  # "rule (attr: label)", in order
    undeclared_files: dict[str, str] = field(default_factory=dict)  # file label -> the rule naming it from another package
    #: like ``undeclared_files``, where something ctxsel left unevaluated may create the
    #: target: file label -> (the rule naming it, ``PackageResult.unseen_reason``)
    unseen_targets: dict[str, tuple[str, str]] = field(default_factory=dict)
    missing_loads: dict[str, str] = field(default_factory=dict)
    duplicates: list[str] = field(default_factory=list)
    name_conflicts: list[str] = field(default_factory=list)  # "//p:x (rule and exported file)"
    empty_globs: list[str] = field(default_factory=list)
    build_dialect: list[str] = field(default_factory=list)  # "path:line: message", .bzl-only syntax in a BUILD file
    undefined_names: list[str] = field(default_factory=list)  # "path:line: name 'x' is not defined", a BUILD file Bazel fails whole
    stopped: list[str] = field(default_factory=list)  # "path:line: message" of EvalError.fatal errors
    nested_selects: list[str] = field(default_factory=list)  # "//p:rule (attr)" holding a select() in a select()
    outside_symlinks: list[str] = field(default_factory=list)  # directory symlinks leaving the workspace
    symlink_budget: str = ""  # the first directory symlink not followed because MAX_LINKED_DIRS was reached
    missing_rc_imports: list[str] = field(default_factory=list)  # "file:line: import of X" (WorkspaceRc.missing)

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
        if self.undefined_names:
            out.append(
                f"static: {len(self.undefined_names)} BUILD file(s) read a name no Bazel version ctxsel knows defines; Bazel fails "
                f"such a file whole (\"name 'x' is not defined\"), so ctxsel gives its package no target (if your Bazel "
                f"defines the name, please report it): {some(self.undefined_names, 2)}"
            )
        if self.missing_loads:
            out.append(f"static: {len(self.missing_loads)} load()ed file(s) do not exist: {some(f'{k} ({v})' for k, v in self.missing_loads.items())}")
        if self.stopped:
            out.append(
                f"static: {len(self.stopped)} error(s) Bazel stops a file on (fail(), recursion, a call with an argument too many or too few, a load() of a failing "
                f".bzl, an invalid or taken target name, a second package(), an empty glob(allow_empty = False), a change to a loaded .bzl's list or dict); "
                f"bazel query fails on their packages, and ctxsel keeps, as bazel query --keep_going does, only "
                f"the targets made before the error (none after a failed load()): {some(self.stopped, 2)}"
            )
        if self.eval_errors:
            out.append(f"static: {len(self.eval_errors)} statement(s) could not be evaluated; their targets may be missing: {some(self.eval_errors, 2)}")
        if self.missing_packages:
            out.append(f"static: {len(self.missing_packages)} label(s) name packages with no BUILD file: {some(f'{k} ({v})' for k, v in self.missing_packages.items())}")
        if self.duplicated_labels:
            out.append(
                f"static: {len(self.duplicated_labels)} attribute(s) list a label twice; bazel query fails on their packages "
                f"(\"Label ... is duplicated\"): {some(self.duplicated_labels, 2)}"
            )
        if self.undeclared_files:
            out.append(
                f"static: {len(self.undeclared_files)} label(s) name a file its package does not declare "
                f"(no exports_files, no rule of it lists the file); bazel query fails on them, ctxsel gives them no edge: "
                f"{some(f'{k} (in {v})' for k, v in self.undeclared_files.items())}"
            )
        if self.unseen_targets:
            reasons = {reason for _, reason in self.unseen_targets.values()}
            out.append(
                f"static: {len(self.unseen_targets)} label(s) name targets ctxsel did not find, in packages where "
                f"what it could not evaluate may create them ({some(reasons, 2)}); ctxsel gives them no edge: "
                f"{some(f'{k} (in {v})' for k, (v, _) in self.unseen_targets.items())}"
            )
        if self.nested_selects:
            out.append(
                f"static: {len(self.nested_selects)} attribute(s) hold a select() inside a select(); bazel query fails on "
                f"their packages (\"expected value of type ... for each branch\"), and ctxsel, as bazel query "
                f"--keep_going does, follows no label of them: {some(self.nested_selects)}"
            )
        if self.duplicates:
            out.append(f"static: duplicate target names (first one kept): {some(self.duplicates)}")
        if self.name_conflicts:
            out.append(
                f"static: {len(self.name_conflicts)} target name(s) are both a rule, a generated file or an exported file; "
                f"bazel query fails on their packages (\"conflicts with existing ...\"): {some(self.name_conflicts)}"
            )
        if self.build_dialect:
            out.append(
                f"static: {len(self.build_dialect)} construct(s) Bazel allows only in .bzl files; bazel query fails "
                f"on these packages, and ctxsel leaves their targets out, as bazel query --keep_going does: "
                f"{some(self.build_dialect, 2)}"
            )
        if self.outside_symlinks:
            out.append(
                f"static: {len(self.outside_symlinks)} directory symlink(s) lead outside the workspace and were not read "
                f"(bazel query reads them): {some(self.outside_symlinks)}"
            )
        if self.symlink_budget:
            out.append(
                f"static: more than {MAX_LINKED_DIRS} directories lie behind directory symlinks; "
                f"{self.symlink_budget} and later ones were not followed"
            )
        if self.empty_globs:
            out.append(f"static: subpackages(allow_empty = False) matched nothing: {some(self.empty_globs)}")
        if self.missing_rc_imports:
            out.append(
                f"static: .bazelrc imports a file that does not exist; every bazel command fails on it "
                f"(\"Unexpected error reading .blazerc file\"; use try-import for an optional one): {some(self.missing_rc_imports)}"
            )
        return out


class StaticLoader:
    """One static load of one workspace; all file access goes through the tracker."""

    def __init__(self, root: Path, tracker: InputTracker) -> None:
        self.root = root
        self.tracker = tracker
        self.report = StaticReport()
        self.main_repo_name = ""
        self.packages: dict[str, str] = {}  # package -> BUILD file name
        #: directories with a BUILD file, packages or not: glob() stops at each (see discover)
        self.build_dirs: set[str] = set()
        # directory (repo-relative) -> (files, subdirectories); from one walk of the tree
        self.dirs: dict[str, tuple[list[str], list[str]]] = {}
        self._package_files: dict[str, tuple[list[str], list[str]]] = {}
        self._modules: dict[str, dict[str, Any]] = {}  # .bzl path -> exported globals
        self._failed_modules: dict[str, str] = {}  # .bzl path -> "path:line: message" it stopped on
        self._trees: dict[str, ast.Module] = {}  # .bzl path -> its tree, parsed by _preload for _load
        self._guessed_modules: set[str] = set()  # .bzl paths whose evaluation guessed (Interpreter.guesses)
        self._module_loads: dict[str, set[str]] = {}  # .bzl or BUILD path -> directly loaded .bzl paths
        self._loading: list[str] = []
        self._glob_cache: dict[tuple[str, bool], re.Pattern[str]] = {}
        self.interp = Interpreter(self._load, self._glob, NATIVE_RULES, self._note_unknown)
        #: what a BUILD file may read unloaded: Bazel 4.2.3's names and those ctxsel knows of other versions
        self._build_names = frozenset(self.interp.builtins) | NATIVE_RULES | BAZEL_4_BUILD_GLOBALS | OTHER_BAZEL_BUILD_NAMES
        self.interp.package_of = self._package_of_file
        self.interp.subpackages = self._subpackages

    # ------------------------------------------------------------ discovery
    def discover(self) -> None:
        """Find every package; remember every directory listing for glob()."""
        self.main_repo_name = workspace_name(self.root, self.tracker)
        self.interp.module = module_info(self.root, self.tracker)
        ignored = bazelignore(self.root, self.tracker)
        repo_ignores = ignored_directories(self.root, self.tracker).ignores  # REPO.bazel (Bazel 7.6+)
        rc = workspace_rc(self.root, self.tracker)
        self.report.missing_rc_imports = rc.missing
        deleted = deleted_packages(self.root, self.tracker, rc)
        if any(self.tracker.exists(self.root / name) for name in ("WORKSPACE", "WORKSPACE.bazel")):
            # //external is the WORKSPACE file's pseudo-package: Bazel never reads a BUILD
            # file in a top-level external/ directory (measured: not in //..., no such target)
            ignored = ignored | {"external"} | local_repository_dirs(self.root, self.tracker)
        stack: list[tuple[str, bool]] = [("", False)]  # (directory, reached through a symlink)
        real_root = os.path.realpath(self.root)
        linked = 0
        while stack:
            rel, via_link = stack.pop()
            linked += via_link
            files: list[str] = []
            subdirs: list[str] = []
            for entry in self.tracker.scandir(self.root / rel if rel else self.root):
                child = f"{rel}/{entry.name}" if rel else entry.name
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if entry.name in SKIP_DIRS or child in ignored or repo_ignores(child):
                            continue
                        subdirs.append(entry.name)
                        stack.append((child, via_link))
                    elif entry.is_file():
                        files.append(entry.name)
                    elif entry.is_dir():  # a symlink to a directory
                        subdirs.append(entry.name)
                        if (entry.name not in SKIP_DIRS and child not in ignored and not repo_ignores(child)
                                and self._walk_symlink(child, real_root)):
                            if linked < MAX_LINKED_DIRS:
                                stack.append((child, True))
                            elif not self.report.symlink_budget:
                                self.report.symlink_budget = child
                except OSError:
                    continue
            self.dirs[rel] = (files, subdirs)
            for build in BUILD_NAMES:
                if build in files and rel not in deleted:
                    # Bazel 4.2.3: a directory whose path is no valid package name (``café/``)
                    # is no package (``//...`` skips it, ``//:café/x`` is a valid label), yet
                    # a glob of the enclosing package still stops at its BUILD file (measured)
                    self.build_dirs.add(rel)
                    if valid_package_name(rel):
                        self.packages[rel] = build
                    break

    def _walk_symlink(self, rel: str, real_root: str) -> bool:
        """Whether ``//...`` and glob() go through the directory symlink ``rel``.

        Bazel 4.2.3 follows every directory symlink (``linkpkg -> real`` makes a package
        ``//linkpkg``; a glob lists ``link/z.c``) except those into an output base (the
        ``bazel-*`` convenience links) and cycles ("infinite symlink expansion", skipped).
        ctxsel also stays inside the workspace, so a link to ``/`` cannot make it walk the
        whole disk; such a link is named in a warning.
        """
        if "/" not in rel and rel.startswith("bazel-"):
            return False  # the convenience links (bazel-out, bazel-bin, ...): into the output base, wherever it is
        target = os.path.realpath(self.root / rel)
        parts = rel.split("/")[:-1]
        chain = [real_root] + [os.path.realpath(self.root.joinpath(*parts[:i])) for i in range(1, len(parts) + 1)]
        if any(c == target or c.startswith(target.rstrip("/") + "/") for c in chain):
            return False  # a cycle: the link leads back to a directory on its own path
        if target == real_root or target.startswith(real_root.rstrip("/") + "/"):
            return True
        probe = Path(target)
        if not any((d / "DO_NOT_BUILD_HERE").is_file() for d in (probe, *probe.parents)):  # not an output base
            self.report.outside_symlinks.append(rel)
        return False

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
                if child_full in self.build_dirs:
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
        dialect = [f"{build_rel}:{line}: {message}" for line, message in build_dialect_issues(tree)]
        if dialect:  # Bazel 4.2.3 refuses such a file before running it: no target at all
            self.report.build_dialect.extend(dialect)
            return PackageResult(package, build_rel, [], (), failure=dialect[0])
        undefined = first_undefined_name(tree, self._build_names)
        if undefined is not None:  # Bazel resolves names before running the file: no target either
            failure = f"{build_rel}:{undefined[0]}: name '{undefined[1]}' is not defined"
            self.report.undefined_names.append(failure)
            return PackageResult(package, build_rel, [], (), failure=failure)
        ctx = PackageContext(package, build_rel)
        self.interp.ctx = ctx
        self.interp.steps = 0
        g: dict[str, Any] = {}
        self._loading = [build_rel]
        self._preload(tree, build_rel)
        try:
            stop = self.interp.exec_module(tree, build_rel, g, per_statement=self._eval_error)
        finally:
            self.interp.ctx = None
        loads = tuple(sorted(self._transitive_loads(build_rel)))
        failure = f"{stop.path}:{stop.line}: {stop.message}" if stop is not None else ""
        # a load() that failed fails the whole package ("error loading package"): Bazel runs
        # no statement of it, wherever the load() stands
        targets = [] if isinstance(stop, ExtensionError) else ctx.targets
        return PackageResult(package, build_rel, targets, loads, ctx.default_visibility, ctx.file_visibility,
                             tuple(ctx.unknown_loops), ctx.external_calls, failure)

    def _parse(self, source: str, rel: str) -> ast.Module:
        try:
            return parse(source, rel)
        except EvalError as exc:
            raise ParseError(exc.message, Location(rel, exc.line)) from None

    def _eval_error(self, exc: EvalError) -> None:
        if isinstance(exc, ExtensionError) and exc.fatal and posixpath.basename(exc.path or "") not in BUILD_NAMES:
            return  # a .bzl between the failing one and the package: the package's entry names both
        (self.report.stopped if exc.fatal else self.report.eval_errors).append(f"{exc.path}:{exc.line}: {exc.message}")

    def _note_unknown(self, symbol: str, origin: str, line: int) -> None:
        if origin:
            self.report.unresolved_loads.setdefault(origin, set()).add(symbol)
        else:
            self.report.undefined[symbol] = self.report.undefined.get(symbol, 0) + 1

    def _preload(self, tree: ast.Module, path: str) -> None:
        """Evaluate the .bzl files ``tree`` loads, transitively, deepest first, walking the
        load graph with a stack of its own: each ``load()`` then finds its module evaluated,
        so a chain of loads costs no Python recursion (Bazel 4.2.3 loads a 3,000-deep chain;
        evaluating it recursively ran out of stack 244 files down). A load cycle is found
        here, as Bazel reports it ("cycle detected in extension files"). Errors of a
        single ``load()`` (a bad label, a missing file) are left to its statement."""
        order: list[tuple[str, str, int]] = []  # (label text, loading file, line), deepest first
        on_path: list[str] = [path]
        stack = [(path, iter(_load_statements(tree)))]
        while stack:
            current, loads = stack[-1]
            step = next(loads, None)
            if step is None:
                stack.pop()
                on_path.pop()
                continue
            text, line = step
            rel = self._loadable(text, current)
            if rel is not None and rel in on_path:  # as _load would find it, one Python frame per file deeper
                cycle = " -> ".join(on_path[on_path.index(rel):] + [rel])
                raise ParseError(f"load() cycle: {cycle}", Location(current, line))
            if rel is None or rel in self._trees:
                continue
            self._trees[rel] = child = self._parse(self.tracker.read_text(self.root / rel), rel)
            order.append((text, current, line))
            on_path.append(rel)
            stack.append((rel, iter(_load_statements(child))))
        for text, current, line in reversed(order):
            try:
                self._load(text, current, line)
            except EvalError:
                pass  # the load() statement meets it again, where it is reported

    def _loadable(self, text: str, from_path: str) -> str | None:
        """The repo-relative .bzl a ``load()`` of ``text`` from ``from_path`` evaluates, or None
        when it is evaluated already, external, invalid or missing (``_load`` decides those)."""
        try:
            label = parse_label(text, self._package_of_file(from_path), self.main_repo_name)
        except LabelError:
            return None
        rel = label.path
        if label.external or rel in self._modules or rel in self._failed_modules or label.package not in self.packages:
            return None
        full = self.root / rel
        return rel if self.tracker.exists(full) and full.is_file() else None

    def _load(self, label_text: str, from_path: str, line: int) -> dict[str, Any]:
        """Evaluate a .bzl (once per workspace load) and return its globals."""
        from_package = self._package_of_file(from_path)
        try:
            label = parse_label(label_text, from_package, self.main_repo_name)
        except LabelError as exc:
            raise EvalError(str(exc), line, from_path) from None
        if label.external:
            shim = skylib_source(label.repo, label.path)
            if shim is not None:
                return self._load_skylib(label, shim)
            self.report.unresolved_loads.setdefault(label_text, set())
            return {}
        rel = label.path
        self._check_bzl_package(label, line, from_path)
        self._module_loads.setdefault(from_path, set()).add(rel)
        if rel in self._failed_modules:
            raise ExtensionError(rel, self._failed_modules[rel], line, from_path)
        if rel in self._modules:
            self.interp.guesses += rel in self._guessed_modules  # its values may rest on a guess
            return self._modules[rel]
        if rel in self._loading:
            # Bazel 4.2.3: "cycle detected in extension files", and even --keep_going then
            # skips the whole //... pattern (no target at all): an error, not a lost package
            cycle = " -> ".join(self._loading[self._loading.index(rel):] + [rel])
            raise ParseError(f"load() cycle: {cycle}", Location(from_path, line))
        full = self.root / rel
        if not self.tracker.exists(full) or not full.is_file():
            self.report.missing_loads.setdefault(label_text, f"{from_path}:{line}")
            self.report.unresolved_loads.setdefault(label_text, set())
            return {}
        tree = self._trees.pop(rel, None) or self._parse(self.tracker.read_text(full), rel)
        rebound = rebound_global(tree)
        if rebound is not None:  # Bazel refuses the file before running it
            self._failed_modules[rel] = f"{rel}:{rebound[0]}: cannot reassign global '{rebound[1]}'"
            raise ExtensionError(rel, self._failed_modules[rel], line, from_path)
        g: dict[str, Any] = {}
        saved_ctx, saved_line = self.interp.ctx, self.interp.ctx.line if self.interp.ctx else 0
        self.interp.ctx = None  # top-level rule calls in a .bzl do not create targets
        self._loading.append(rel)
        guesses = self.interp.guesses
        try:
            stop = self.interp.exec_module(tree, rel, g, per_statement=self._eval_error)
        finally:
            self._loading.pop()
            self.interp.ctx = saved_ctx
            if self.interp.guesses != guesses:  # counts for every later load() of it too
                self._guessed_modules.add(rel)
            if saved_ctx is not None:
                saved_ctx.line = saved_line
        if stop is not None:  # Bazel: "Extension file 'x.bzl' has errors", for every package loading it
            root = stop.root if isinstance(stop, ExtensionError) else f"{stop.path}:{stop.line}: {stop.message}"
            self._failed_modules[rel] = root
            raise ExtensionError(rel, root, line, from_path)
        self.interp.freeze(g)
        exported = EvaluatedModule(str(label), {k: v for k, v in g.items() if not k.startswith("_")})
        self._modules[rel] = exported
        return exported

    def _load_skylib(self, label: Label, source: str) -> dict[str, Any]:
        """Evaluate ctxsel's stand-in for a skylib .bzl or ``@bazel_tools``' test_rules.bzl
        (``skylib.py``), once per load.

        A plain dict, not an ``EvaluatedModule``: a symbol it lacks is unknown, not missing."""
        key = f"@{'bazel_tools' if label.repo == 'bazel_tools' else 'bazel_skylib'}//{label.package}:{label.name}"
        if key not in self._modules:
            g: dict[str, Any] = {}
            saved_ctx = self.interp.ctx
            self.interp.ctx = None
            try:
                self.interp.exec_module(parse(source, key), key, g, per_statement=self._eval_error)
            finally:
                self.interp.ctx = saved_ctx
            self._modules[key] = {k: v for k, v in g.items() if not k.startswith("_")}
        return self._modules[key]

    def _check_bzl_package(self, label: Label, line: int, from_path: str) -> None:
        """Bazel's rules for a .bzl label: its package must exist, and the file must not lie
        in a subpackage of it (both fail the loading package; messages as Bazel 4.2.3's)."""
        if label.package not in self.packages:
            raise EvalError(
                f"every .bzl file must have a corresponding package, but '{label}' does not have one", line, from_path
            )
        directory = self.subpackage_of(label)
        if directory:
            raise EvalError(f"label '{label}' is invalid because '{directory}' is a subpackage", line, from_path)

    def subpackage_of(self, label: Label) -> str | None:
        """The subpackage of ``label``'s package its file lies in (``//p:sub/x.c`` with a
        ``p/sub/BUILD``): Bazel refuses such a label, for a load() and a rule's srcs alike."""
        return subpackage_crossed(label.package, label.name, self.packages)

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
        for pattern in include:  # Bazel 4.2.3 checks only the include patterns
            problem = glob_pattern_error(pattern)
            if problem:
                raise EvalError(f"glob: {problem}", line, ctx.path)
        files, dirs = self.package_files(ctx.package)
        out = self._glob_match(files, include, exclude, directory=False)
        if not exclude_directories:
            out = sorted(out + self._glob_match(dirs, include, exclude, directory=True))
        if not out and not allow_empty:  # Bazel 4.2.3 stops the BUILD file here (measured, also in a macro)
            raise EvalError("glob() matched nothing (or only excluded files), but allow_empty is set to False", line, ctx.path, fatal=True)
        # Bazel 4.2.3 returns "@at.txt" as ":@at.txt" (measured: print(glob(...))), so the
        # match stays a file of the package instead of naming a repository @at.txt
        return [":" + f if f.startswith("@") else f for f in out]

    def _subpackages(self, ctx: PackageContext, include: list[str], exclude: list[str], allow_empty: bool, line: int) -> list[str]:
        """``subpackages()`` (Bazel 6+): the package's direct subpackages (the nearest
        packages below it, at any depth, not those below another subpackage), relative to
        it, sorted, matched against the globs as directories (``*``: one level, ``**``: all)."""
        for pattern in include:
            problem = glob_pattern_error(pattern)
            if problem:
                raise EvalError(f"subpackages: {problem}", line, ctx.path)
        _, dirs = self.package_files(ctx.package)
        found: list[str] = []
        for sub in ["", *dirs]:
            full = f"{ctx.package}/{sub}".strip("/") if sub else ctx.package
            for name in self.dirs.get(full, ((), ()))[1]:
                child_full = f"{full}/{name}" if full else name
                if child_full in self.packages:
                    found.append(f"{sub}/{name}" if sub else name)
        out = sorted(self._glob_match(found, include, exclude, directory=True))
        if not out and not allow_empty:
            self.report.empty_globs.append(f"{ctx.path}:{line} (subpackages)")
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
        self.packages: dict[str, PackageResult] = {}
        self.by_package: dict[str, list[str]] = {}  # package -> labels of its rules
        self._declared: dict[str, set[str]] = {}  # package -> _declared_files
        self._labels_of: dict[str, list[tuple[str, str]]] = {}  # rule -> _attribute_labels
        self._parsed: dict[tuple[str, str], Label | None] = {}  # (text, package) -> label (None: invalid)

    def _label(self, text: str, package: str) -> Label:
        """``parse_label`` in ``package``, memoised: each label is read by the edge pass,
        the duplicate check and the declared-files check, and many rules repeat one."""
        key = (text, "" if text.startswith(("//", "@")) else package)
        if key not in self._parsed:
            try:
                self._parsed[key] = parse_label(text, package, self.loader.main_repo_name)
            except LabelError:
                self._parsed[key] = None
        label = self._parsed[key]
        if label is None:
            raise LabelError(f"invalid label {text!r}")
        return label

    def assemble(self, results: list[PackageResult]) -> BuildGraph:
        by_package = self.by_package
        for res in results:
            self.packages[res.package] = res
            self._stop_at_output_clash(res)
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
            self._name_conflicts(res, ids)
        for res in results:
            loads_meta = {"loads": res.loads} if res.loads else {}
            for label in by_package[res.package]:
                self._add_rule(label, res, loads_meta)
        for res in results:
            for label in by_package[res.package]:
                self._add_edges(label, res.package, by_package[res.package])
        self.graph.warnings.extend(self.report.warnings())
        return self.graph

    def _stop_at_output_clash(self, res: PackageResult) -> None:
        """Cut ``res.targets`` at the first rule whose name or outputs another rule's outputs
        (or name) already took: Bazel 4.2.3 stops the BUILD file there ("generated file 'o' in
        rule 'g2' conflicts with existing generated file from rule 'g1'", measured), keeping
        only the targets made before it; ctxsel kept them all. Reported with the other name
        conflicts. Only outputs of rules of a known class count (an unknown rule's ``out`` is
        a guess); a rule naming its own output is fine (measured); two rules of one name are
        ``PackageContext.add``'s to stop."""
        taken: dict[str, str] = {}  # name -> "rule" / "generated file"
        for i, call in enumerate(res.targets):
            known = call.rule is not None or call.kind in NATIVE_RULES
            outs = [o for o in dict.fromkeys(self._outputs(call)) if o != call.name] if known else []
            clashes = [(call.name, "rule")] if taken.get(call.name) == "generated file" else []
            clashes += [(o, "generated file") for o in outs if o in taken]
            if clashes:
                name, kind = clashes[0]
                self.report.name_conflicts.append(f"//{res.package}:{name} ({' and '.join(sorted([kind, taken[name]]))})")
                res.failure = f"{res.build_file}:{call.line}: {call.kind} '{call.name}': '{name}' conflicts with an existing target"
                del res.targets[i:]
                return
            taken.setdefault(call.name, "rule")
            taken.update(dict.fromkeys(outs, "generated file"))

    def _name_conflicts(self, res: PackageResult, ids: list[str]) -> None:
        """Report names Bazel 4.2.3 refuses to give two targets of a package (measured, in either
        order): a rule and an exported file ("generated label '//p:x' conflicts with existing
        filegroup rule"), a rule and another rule's output ("filegroup rule 'x' ... conflicts
        with existing generated file"), an output and an exported file. Bazel fails the
        package; ctxsel said nothing and kept all of them."""
        kinds: dict[str, list[str]] = {}
        for label in ids:
            kinds.setdefault(label, []).append("rule")
            for out in set(self._outputs(self.rules[label])) - {self.rules[label].name}:  # allowed (measured)
                kinds.setdefault(f"//{res.package}:{out}", []).append("generated file")
        for name in res.file_visibility:
            kinds.setdefault(f"//{res.package}:{name}", []).append("exported file")
        for label, found in kinds.items():
            if len(found) > 1:
                self.report.name_conflicts.append(f"{label} ({' and '.join(sorted(found))})")

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
        size = call.attrs.get("size")
        if call.kind.endswith("_test") and isinstance(size, str) and size:
            meta["size"] = size  # a tag when a test_suite expands (``suite_tests``)
        self.graph.add_node(Node(
            id=label, kind=call.kind, package=res.package, tags=tags,
            is_test=call.kind.endswith("_test"), meta=meta,
        ))

    def _attribute_labels(self, call: TargetCall, label: str) -> list[tuple[str, str]]:
        """(label text, edge type) of every label the rule's attributes name: values, select()
        keys, label defaults of ``rule()`` attributes and a group's ``includes``; not
        ``visibility``, which Bazel treats apart (it declares no file, see ``_declared_files``)."""
        deps: list[tuple[str, str]] = []
        for attr, value in call.attrs.items():
            if nested_select(value):  # Bazel refuses the attribute: the rule stays, without it
                self.report.nested_selects.append(f"{label} ({attr})")
                continue
            for key in select_keys(value):
                if key.lstrip("@") != "//conditions:default":  # "@//conditions:default" is the same label for Bazel
                    deps.append((key, IMPLICIT))
            if not _is_label_attr(call, attr):
                continue
            strict = _strict_label_attr(call, attr)
            for v in _label_candidates(call, attr, value):
                if isinstance(v, LabelValue):
                    v = v.text
                if not isinstance(v, str) or not v or (not strict and not looks_like_label(v)):
                    continue
                deps.append((v, EDGE_TYPES.get(attr, DEP)))
        schema = call.rule.attrs if call.rule is not None and call.rule.attrs else {}
        # label defaults of rule() attributes left unset (or None): implicit deps
        deps += [(text, IMPLICIT) for text in _label_defaults({a: v for a, v in schema.items() if call.attrs.get(a) is None})]
        for attr, spec in schema.items():  # the label defaults of aspects on attributes that have a value
            value = call.attrs.get(attr)
            if spec.aspects and any(v is not None for v in flatten(spec.default if value is None else value)):
                for aspect in spec.aspects:
                    deps += [(text, IMPLICIT) for text in _label_defaults(aspect.attrs)]
        if call.kind == PACKAGE_GROUP:
            deps += [(v, DEP) for v in flatten(call.attrs.get("includes", [])) if isinstance(v, str) and v]
        return deps

    def _rule_labels(self, label: str) -> list[tuple[str, str]]:
        """``_attribute_labels`` of a rule, computed once (edges and declared files both read them)."""
        cached = self._labels_of.get(label)
        if cached is None:
            cached = self._labels_of[label] = self._attribute_labels(self.rules[label], label)
        return cached

    def _declared_files(self, package: str) -> set[str]:
        """Names of the source-file targets ``package`` declares: its BUILD file, what it
        ``exports_files``, and every file a rule of it names in an attribute (a glob's
        matches too). Bazel 4.2.3 refuses a label from another package to any other file:
        "no such target '//p:x.txt': target 'x.txt' not declared in package 'p'; however,
        a source file of this name exists" (measured; a file named only in ``visibility``
        or a ``load()`` is not declared either)."""
        cached = self._declared.get(package)
        if cached is not None:
            return cached
        cached = self._declared[package] = set()
        res = self.packages.get(package)
        if res is None:
            return cached
        cached.add(res.build_file.rsplit("/", 1)[-1])
        cached.update(res.file_visibility)
        for rule in self.by_package.get(package, ()):
            for text, _ in self._rule_labels(rule):
                try:
                    dep = self._label(text, package)
                except LabelError:
                    continue
                if not dep.external and dep.package == package:
                    cached.add(dep.name)
        return cached

    def _duplicated_labels(self, label: str, package: str) -> None:
        """Report what Bazel 4.2.3 refuses as "Label '//p:a' is duplicated in the 'deps'
        attribute of rule 'b'" (the package fails; ``bazel query --keep_going`` still answers).

        Bazel compares resolved labels (``:a`` = ``//p:a``) per label-list attribute, as its
        ``AggregatingAttributeMapper.checkForDuplicateLabels`` does: within each branch of a
        ``select()`` and within a plain list; and in a concatenation, across its parts, each
        part counting a label once however many of its branches name it
        (``[":a"] + select({...: [":a"]})`` fails, ``[":b"] + select({c1: [":a"], c2: [":a"]})``
        does not: both measured with Bazel 4.2.3).
        """
        call = self.rules[label]
        for attr, value in call.attrs.items():
            if not (_is_label_attr(call, attr) and _strict_label_attr(call, attr)):
                continue
            spec = call.rule.attrs.get(attr) if call.rule is not None and call.rule.attrs else None
            if spec is not None and spec.type != "label_list":
                continue
            parts = value.parts if isinstance(value, SelectorList) else [value]
            if not all(isinstance(part, (Select, list, tuple)) for part in parts):
                continue  # a single label (or a label-keyed dict): nothing to repeat
            combined: list[str] = []
            for part in parts:
                branches = part.branches.values() if isinstance(part, Select) else [part]
                part_labels: dict[str, None] = {}
                for branch in branches:
                    resolved = self._resolved(flatten(branch), package)
                    self._report_duplicates(label, attr, resolved)
                    part_labels.update(dict.fromkeys(resolved))
                combined.extend(part_labels)
            if len(parts) > 1:
                self._report_duplicates(label, attr, combined)

    def _resolved(self, values: list[Any], package: str) -> list[str]:
        """The canonical labels of an attribute's values (invalid ones and non-strings left out)."""
        out: list[str] = []
        for v in values:
            text = v.text if isinstance(v, LabelValue) else v
            try:
                if isinstance(text, str) and text:
                    out.append(str(self._label(text, package)))
            except LabelError:
                continue
        return out

    def _report_duplicates(self, label: str, attr: str, deps: list[str]) -> None:
        seen: set[str] = set()
        for dep in deps:
            if dep in seen:
                self.report.duplicated_labels.setdefault(f"{label} ({attr}: {dep})", None)
            seen.add(dep)

    def _add_edges(self, label: str, package: str, package_rules: list[str]) -> None:
        call = self.rules[label]
        files: set[str] = set()
        self._duplicated_labels(label, package)
        deps = list(self._rule_labels(label))  # (label text, edge type)
        visibility = call.attrs.get("visibility")
        if call.kind not in NON_RULE_KINDS:
            res = self.packages[package]
            deps += self._visibility_deps(res.default_visibility if visibility is None else visibility, package)
        if call.kind == "test_suite" and not flatten(call.attrs.get("tests", [])):
            # Bazel's $implicit_tests: every non-manual test rule of the package, whatever
            # the suite's tags (tags only filter when the suite is expanded for `bazel test`).
            for other in package_rules:
                node = self.graph.node(other)
                if node.is_test and "manual" not in node.tags:
                    self._edge(label, other, TESTS)
        for text, kind in deps:
            try:
                dep = self._label(text, package)
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
        elif dep.package in self.loader.packages and self.loader.subpackage_of(dep):
            # Bazel 4.2.3: "Label '//p:sub/x.c' is invalid because 'p/sub' is a subpackage"
            self.report.eval_errors.append(f"{label}: label '{dep}' is invalid because '{self.loader.subpackage_of(dep)}' is a subpackage")
        elif dep.package in self.loader.packages and dep.package != label[2:].rpartition(":")[0] and dep.name not in self._declared_files(dep.package):
            res = self.packages.get(dep.package)
            reason = res.unseen_reason(dep.name) if res is not None else ""
            if res is not None and res.failure:
                pass  # the package stopped on an error (reported): Bazel has no such target either
            elif reason:  # rules_kotlin's //kotlin/compiler, rules_js's //:node_modules/x: not a missing file
                self.report.unseen_targets.setdefault(target, (label, reason))
            else:
                self.report.undeclared_files.setdefault(target, label)
        elif dep.package in self.loader.packages:
            files.add(dep.path)  # a source file of that package
            res = self.packages.get(dep.package)
            if res is not None:  # the file's visibility: bazel query's file -> package_group edge
                exported = dep.name in res.file_visibility
                vis = res.file_visibility[dep.name] if exported else res.default_visibility
                for text, vkind in self._visibility_deps(vis, dep.package, main_repo_name=not exported):
                    self._resolve_dep(label, parse_label(text, dep.package, self.loader.main_repo_name), vkind, files)
        else:
            self.report.missing_packages.setdefault(target, label)

    def _visibility_deps(self, visibility: Any, package: str, main_repo_name: bool = True) -> list[tuple[str, str]]:
        """The package_group labels of a ``visibility`` list: ``bazel query`` follows them
        (``rdeps(//..., //vis:group)`` lists every rule and file visible through it).
        ``//visibility:public|private`` and ``__pkg__``/``__subpackages__`` name no target.

        ``main_repo_name=False``: ``exports_files(visibility = ["@ws//..."])`` keeps
        ``@ws`` as a repository of its own in Bazel 4.2.3 (measured; a rule's visibility
        maps it to the main repository), so such a label names no group of this graph."""
        out: list[tuple[str, str]] = []
        for v in flatten(visibility) if visibility is not None else ():
            text = v.text if isinstance(v, LabelValue) else v
            if not isinstance(text, str) or not text or text.endswith((":__pkg__", ":__subpackages__")):
                continue
            try:
                target = str(parse_label(text, package, self.loader.main_repo_name if main_repo_name else ""))
            except LabelError:
                continue
            call = self.rules.get(target)
            if call is not None and call.kind == PACKAGE_GROUP:
                out.append((target, IMPLICIT))
        return out

    def _edge(self, a: str, b: str, kind: str) -> None:
        self.graph.add_edge(a, b, kind)


_TEMPLATE_FIELD = re.compile(r"%\{([A-Za-z_][A-Za-z0-9_]*)\}")


def _load_statements(tree: ast.Module) -> list[tuple[str, int]]:
    """(label text, line) of a file's top-level ``load()`` statements (the only place Starlark
    allows them), in order."""
    out: list[tuple[str, int]] = []
    for stmt in tree.body:
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "load" and call.args
                and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str)):
            out.append((call.args[0].value, stmt.lineno))
    return out


def _label_defaults(specs: dict[str, AttrSpec]) -> list[str]:
    """The label texts the defaults of these label attributes name."""
    out: list[str] = []
    for spec in specs.values():
        if spec.type in LABEL_TYPES and spec.default not in (None, UNKNOWN):
            for v in dict_values(spec.default) if spec.type == "label_values_dict" else flatten(spec.default):
                text = v.text if isinstance(v, LabelValue) else v
                if isinstance(text, str) and text:
                    out.append(text)
    return out


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


#: (native rule kind, attribute) pairs whose labels bazel query does not follow: the
#: ``toolchain`` rule's ``toolchain`` is a nodep label (Bazel 4.2.3, measured: no edge from
#: ``toolchain(name = "tc", toolchain = ":impl")`` to ``:impl``, with or without --nodep_deps).
#: (Nor is a ``label_flag``'s or ``label_setting``'s ``build_setting_default``, measured: no
#: edge; the flag's value reaches its users through a late-bound attribute query cannot see;
#: rules_rust 0.1.0's ``//util/import:import_macro_label`` closed a dependency cycle there.
#: Every other ``build_setting_default`` is a string, bool, int or list: the attribute is in
#: NON_LABEL_ATTRS, for any kind.)
#: native attributes that map strings to labels (Bazel's LABEL_DICT_UNARY type)
LABEL_VALUED_DICT_ATTRS = frozenset({("cc_toolchain_suite", "toolchains")})
#: ``AttrSpec.type`` values whose attribute names labels
LABEL_TYPES = ("label", "label_list", "label_dict", "label_values_dict")
NODEP_ATTRS = frozenset({("toolchain", "toolchain")})


def _is_label_attr(call: TargetCall, attr: str) -> bool:
    if attr in NON_LABEL_ATTRS or attr in OUTPUT_ATTRS:
        return False
    if call.rule is not None and call.rule.native and (call.kind, attr) in NODEP_ATTRS:
        return False
    spec = call.rule.attrs.get(attr) if call.rule is not None and call.rule.attrs else None
    if spec is not None:
        return spec.type in LABEL_TYPES
    if call.rule is not None and call.rule.native:
        return attr in LABEL_ATTRS or (call.kind, attr) in KIND_LABEL_ATTRS
    return True  # untyped (unknown kind): label-looking strings count, see _strict_label_attr


def _label_candidates(call: TargetCall, attr: str, value: Any) -> list[Any]:
    """The values of a label attribute that name labels: a dict's keys (``label_keyed_string_dict``,
    ``config_setting.flag_values``), but its values for a string-keyed label dict
    (``attr.string_keyed_label_dict``, ``cc_toolchain_suite.toolchains``: query follows
    ``//k:suite -> :cc``, measured with 4.2.3, where ctxsel had no edge), both when untyped."""
    spec = call.rule.attrs.get(attr) if call.rule is not None and call.rule.attrs else None
    native = call.rule is not None and call.rule.native
    if (spec is not None and spec.type == "label_values_dict") or (native and (call.kind, attr) in LABEL_VALUED_DICT_ATTRS):
        return dict_values(value)
    if spec is None and not native:
        # an untyped dict's values count only when they look like labels, even in an attribute
        # whose name is a label attribute's: rules_pkg's ``pkg_tar(files = {"//cmd/x": "/usr/bin/x"})``
        # (a label_keyed_string_dict) was reported as a statement that "could not be evaluated"
        # ("invalid label '/usr/bin/x'", bb-clientd's //:bb_clientd_deb_data), a false warning
        # that also made every unknown-target error hint the graph may be missing it
        return [*flatten(value), *(v for v in dict_values(value) if isinstance(v, str) and looks_like_label(v))]
    return flatten(value)


def _strict_label_attr(call: TargetCall, attr: str) -> bool:
    """Whether every string of the attribute is a label (else only ``//``, ``:``, ``@`` ones)."""
    spec = call.rule.attrs.get(attr) if call.rule is not None and call.rule.attrs else None
    if spec is not None:
        return True
    return attr in LABEL_ATTRS or (call.kind, attr) in KIND_LABEL_ATTRS


def _is_output_attr(call: TargetCall, attr: str) -> bool:
    spec = call.rule.attrs.get(attr) if call.rule is not None and call.rule.attrs else None
    if spec is not None:
        return spec.type in ("output", "output_list")
    if call.rule is not None and call.rule.native:
        return attr == "outs" and call.kind == "genrule"
    return attr in OUTPUT_ATTRS


def glob_pattern_error(pattern: str) -> str | None:
    """Why Bazel's glob() refuses ``pattern`` (its message), or None.

    A refused pattern fails the whole package in Bazel; ctxsel used to match nothing
    instead, silently, so the rule kept an empty ``srcs`` and no warning was given.
    """
    if not pattern:
        return "pattern cannot be empty"
    if "?" in pattern:
        # Bazel 4.2.3 (measured; in an exclude pattern "?" is a one-character wildcard)
        return "wildcard ? forbidden"
    if pattern.startswith("/"):
        return "pattern cannot be absolute"
    for segment in pattern.split("/"):
        if not segment:
            return "empty segment not permitted"
        if segment in (".", ".."):
            return f"segment '{segment}' not permitted"
        if "**" in segment and segment != "**":
            return "recursive wildcard must be its own segment"
    return None


def glob_to_regex(pattern: str, directory: bool = False) -> str:
    """Bazel glob syntax (``globs.BAZEL``): ``*`` within a path segment, ``**`` across any
    number of segments; a name starting with "." only matches a segment that is ``*`` or
    starts with "." too.

    With ``directory`` the regex is for directory paths (``exclude_directories = 0``): a
    trailing ``**`` matches zero segments there, so ``d/**`` lists the directory ``d``
    itself (measured with Bazel 4.2.3), while a *file* named ``d`` never matches it.
    Outer slashes are dropped (an unchecked exclude pattern may have them).
    """
    return glob_regex(pattern.strip("/"), dialect=BAZEL_DIRS if directory else BAZEL)


def bazelignore(root: Path, tracker: InputTracker) -> set[str]:
    path = root / ".bazelignore"
    if not tracker.exists(path):
        return set()
    out = set()
    for line in tracker.read_text(path).splitlines():
        if line and not line.startswith(("#", "/")):
            # Bazel reads each line as a PathFragment: "./gen/" and "gen//x/." are "gen", "gen/x";
            # nothing is trimmed, so "  gen" names no directory; an absolute "/gen" is a prefix
            # of no package path, so it ignores nothing (measured with 4.2.3)
            line = posixpath.normpath(line).strip("/")
            if line not in (".", ".."):
                out.add(line)
    return out


#: the .bazelrc commands whose options ``bazel query`` takes (``build`` lines are not read
#: by query; ``query:name`` lines only with ``--config=name``)
QUERY_RC_COMMANDS = ("always", "common", "query")
MAX_RC_FILES = 32


@dataclass
class WorkspaceRc:
    """The workspace's .bazelrc as Bazel reads it (``workspace_rc``)."""

    #: the words of each option line, imports expanded in place, in reading order
    lines: list[list[str]] = field(default_factory=list)
    #: the workspace-relative rc files .bazelrc imports, directly or not, in order
    imported: list[str] = field(default_factory=list)
    #: "file:line: import of X" for each ``import`` (not ``try-import``) of a missing file
    missing: list[str] = field(default_factory=list)


def workspace_rc(root: Path, tracker: InputTracker) -> WorkspaceRc:
    """Read .bazelrc as Bazel does: ``import``/``try-import`` lines naming ``%workspace%/...``
    are followed where they stand (each file once, at most ``MAX_RC_FILES``).

    A named file is listed in ``imported`` even when it does not exist (``try-import`` of an
    absent file: creating it changes Bazel's options too); an ``import`` of one is listed in
    ``missing``: Bazel 4.2.3 then fails every command (exit 37, "Unexpected error reading
    .blazerc file", measured). ``#`` starts a comment; a trailing backslash continues the
    line; an unclosed quote drops only its line. rc files outside the workspace
    (``~/.bazelrc``, ``/etc/bazel.bazelrc``, ``%workspace%/../x``) are not read.
    """
    rc = WorkspaceRc()
    seen: set[str] = set()

    def read(rel: str) -> None:
        path = root / rel
        key = os.path.normpath(path)
        if key in seen or len(seen) >= MAX_RC_FILES or not tracker.exists(path) or not path.is_file():
            return
        seen.add(key)
        try:
            text = tracker.read_text(path)
        except OSError:
            return
        for number, line in _rc_logical_lines(text):
            try:
                words = shlex.split(line, comments=True)
            except ValueError:  # an unclosed quote: Bazel's tokenizer keeps going, so does this
                continue
            if not words:
                continue
            if words[0] in ("import", "try-import"):
                target = posixpath.normpath(words[1][len("%workspace%/"):]) if len(words) == 2 and words[1].startswith("%workspace%/") else ""
                if target and target != ".." and not target.startswith(("../", "/")):  # inside the workspace only
                    if target != ".bazelrc" and target not in rc.imported:
                        rc.imported.append(target)
                    if words[0] == "import" and not (tracker.exists(root / target) and (root / target).is_file()):
                        rc.missing.append(f"{rel}:{number}: import of {words[1]}")
                    read(target)
                continue
            rc.lines.append(words)

    read(".bazelrc")
    return rc


def _rc_logical_lines(text: str) -> list[tuple[int, str]]:
    """(first physical line number, text) of each line, a trailing backslash joining the next."""
    out: list[tuple[int, str]] = []
    pending: list[str] = []
    start = 1
    for number, physical in enumerate(text.splitlines(), 1):
        if not pending:
            start = number
        if physical.endswith("\\"):
            pending.append(physical[:-1])
            continue
        out.append((start, "".join(pending) + physical))
        pending = []
    if pending:
        out.append((start, "".join(pending)))
    return out


def deleted_packages(root: Path, tracker: InputTracker, rc: WorkspaceRc | None = None) -> set[str]:
    """The packages ``--deleted_packages`` in the workspace's .bazelrc removes for ``bazel query``.

    Repositories that glob files of nested example workspaces (rules_python, rules_js) list
    those directories there: their BUILD files are then no packages (``//...`` skips them),
    the files belong to the enclosing package (``//:sub/a.txt`` is valid, its glob crosses
    into them), while packages below them stay packages. Measured with Bazel 4.2.3: ``query``,
    ``common`` and ``always`` lines count, ``build`` lines do not; the last value wins (two
    lines do not add up); ``//sub`` is ``sub``; a value with a trailing ``/`` is refused; the
    files ``import``/``try-import`` name (``%workspace%/...``) are read in place
    (``workspace_rc``).
    """
    value: list[str] = []
    for words in (rc or workspace_rc(root, tracker)).lines:
        if words[0] not in QUERY_RC_COMMANDS:
            continue
        args = words[1:]
        for i, arg in enumerate(args):
            if arg.startswith("--deleted_packages="):
                value[:] = [arg.split("=", 1)[1]]
            elif arg == "--deleted_packages" and i + 1 < len(args):
                value[:] = [args[i + 1]]
    out: set[str] = set()
    for name in ",".join(value).split(","):
        name = name.strip()
        name = name[2:] if name.startswith("//") else name
        if name and not name.endswith("/"):
            out.add(name)
    return out


def local_repository_dirs(root: Path, tracker: InputTracker) -> set[str]:
    """Workspace directories that are ``local_repository(path = ...)`` repositories.

    Bazel 4.2.3 leaves such a directory (one with its own WORKSPACE file) out of the main
    repository: ``//...`` skips it and ``//nested:x`` is "Invalid package reference nested
    crosses into repository @sub". A nested WORKSPACE that no local_repository names stays
    part of the main repository (both measured). Only literal top-level calls are read.
    """
    for name in ("WORKSPACE.bazel", "WORKSPACE"):
        path = root / name
        if tracker.exists(path) and path.is_file():
            break
    else:
        return set()
    try:
        tree = parse(tracker.read_text(path), name)
    except (EvalError, OSError):
        return set()
    out: set[str] = set()
    for stmt in tree.body:
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "local_repository"):
            continue
        for kw in call.keywords:
            if kw.arg == "path" and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
                target = Path(kw.value.value) if os.path.isabs(kw.value.value) else root / kw.value.value
                try:
                    rel = Path(os.path.normpath(target)).relative_to(os.path.normpath(root)).as_posix()
                except ValueError:
                    continue  # outside the workspace
                if rel != "." and any(tracker.exists(root / rel / w) for w in ("WORKSPACE", "WORKSPACE.bazel")):
                    out.add(rel)
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


class LoadReader:
    """The .bzl files a Starlark file loads, directly and transitively, from its load()
    statements alone (nothing is evaluated): for graphs that came from ``bazel query``
    (which does not report loads), and for the WORKSPACE file, which static mode does
    not evaluate."""

    def __init__(self, root: Path, tracker: InputTracker | None = None) -> None:
        self.root = root
        self.tracker = tracker or InputTracker(root)
        self.loader = StaticLoader(root, self.tracker)
        self.loader.discover()
        self._direct: dict[str, set[str]] = {}

    def direct(self, rel: str) -> set[str]:
        if rel in self._direct:
            return self._direct[rel]
        found = self._direct[rel] = set()
        try:
            tree = parse(self.tracker.read_text(self.root / rel), rel)
        except (EvalError, OSError):
            return found
        package = self.loader._package_of_file(rel)
        for stmt in tree.body:
            call = stmt.value if isinstance(stmt, ast.Expr) else None
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "load" and call.args:
                first = call.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    try:
                        label = parse_label(first.value, package, self.loader.main_repo_name)
                    except LabelError:
                        continue
                    if not label.external:
                        found.add(label.path)
        return found

    def closure(self, rel: str) -> set[str]:
        seen: set[str] = set()
        stack = list(self.direct(rel))
        while stack:
            cur = stack.pop()
            if cur not in seen:
                seen.add(cur)
                stack.extend(self.direct(cur))
        return seen


def transitive_loads_by_package(root: Path, tracker: InputTracker | None = None) -> dict[str, set[str]]:
    """package -> every .bzl its BUILD file loads (``LoadReader``)."""
    reader = LoadReader(root, tracker)
    return {package: reader.closure(f"{package}/{build}" if package else build) for package, build in reader.loader.packages.items()}


def workspace_loads(root: Path, tracker: InputTracker | None = None) -> set[str]:
    """Every .bzl the WORKSPACE file loads, transitively.

    Such a file is as global as WORKSPACE itself: ``rbuildfiles(deps.bzl)`` names every
    BUILD file of the workspace (measured with Bazel 4.2.3), where ctxsel found no owner.
    """
    if not any((root / name).is_file() for name in ("WORKSPACE", "WORKSPACE.bazel")):
        return set()
    reader = LoadReader(root, tracker)
    found: set[str] = set()
    for name in ("WORKSPACE.bazel", "WORKSPACE"):  # Bazel reads WORKSPACE.bazel when both exist
        if (root / name).is_file():
            found = reader.closure(name)
            break
    return found


def default_visibility_by_package(root: Path, packages: dict[str, str], main_repo_name: str, tracker: InputTracker) -> dict[str, list[str]]:
    """package -> the canonical labels of its literal ``package(default_visibility = [...])``.

    For graphs from ``bazel query``: its output lists a rule's ``visibility`` only when
    the rule sets one, yet the package default's package_group is a dependency of every
    other rule (``rdeps(//..., group)`` lists them). ``packages`` is ``find_build_files``'
    answer; only BUILD files that mention ``default_visibility`` are parsed, and a
    computed value is left out.
    """
    out: dict[str, list[str]] = {}
    for package, build in packages.items():
        rel = f"{package}/{build}" if package else build
        try:
            text = tracker.read_text(root / rel)
            if "default_visibility" not in text:
                continue
            tree = parse(text, rel)
        except (EvalError, OSError):
            continue
        for stmt in tree.body:
            call = stmt.value if isinstance(stmt, ast.Expr) else None
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "package"):
                continue
            for kw in call.keywords:
                if kw.arg != "default_visibility":
                    continue
                try:
                    value = ast.literal_eval(kw.value)
                except ValueError:
                    continue
                labels = []
                for v in value if isinstance(value, (list, tuple)) else ():
                    try:
                        labels.append(str(parse_label(v, package, main_repo_name)))
                    except (LabelError, TypeError, AttributeError):
                        continue
                out[package] = labels
    return out
