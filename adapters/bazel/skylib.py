"""The pure helpers of ``@bazel_skylib//lib`` that macros use, for static mode.

Static mode does not read other repositories, so a symbol loaded from one is unknown.
For skylib's value helpers that loses far more than the call: ``dicts.add(COMMON_ATTRS,
{...})`` building a rule's attributes, ``types.is_tuple(tags)`` choosing a branch or
``paths.join(...)`` naming a source fail, and with them every rule the .bzl file defines
(rules_python's own ``py_binary``/``py_test`` rules, measured: every BUILD file loading
them lost its targets). Bazel evaluates skylib itself; these are small Starlark
re-implementations with the same results, evaluated by ctxsel's interpreter in place of
the files. ``lib/unittest.bzl`` is here for what it creates at loading time (test rules,
``unittest.suite``'s targets) and ``selects.config_setting_group`` for its chain of aliases
(abseil-cpp's ``//absl:wasm``, ``wasm_2``, ``wasm_3``: without it the statement failed and every
target selecting on it lost that edge). Of the rules under ``//rules`` only the macros
``build_test``, ``diff_test``, ``write_file`` and ``copy_file`` are here (they create
targets of other names and kinds), and the rules ``expand_template`` and ``run_binary`` for the
types of their attributes (a bare file name in ``template``/``tool`` is a label);
the others stay targets of their own kind, as for any other repository. Bazel's own
``@bazel_tools//tools/build_rules:test_rules.bzl`` macros (``rule_test``, ``file_test``, ...)
are here too (``BAZEL_TOOLS_MODULES``), for the same reason.
A symbol a module here lacks is unknown, as before, never an error.
"""

from __future__ import annotations

import re

#: ``@bazel_skylib``, bzlmod's canonical ``@@bazel_skylib+`` / ``bazel_skylib~1.5.0``
SKYLIB_REPO = re.compile(r"@?bazel_skylib(?:[+~].*)?")

MODULES: dict[str, str] = {
    "lib/dicts.bzl": '''
def _add(*dictionaries, **kwargs):
    out = {}
    for d in dictionaries:
        out.update(d)
    out.update(kwargs)
    return out

def _omit(dictionary, keys):
    drop = {k: None for k in keys}
    return {k: dictionary[k] for k in dictionary if k not in drop}

def _pick(dictionary, keys):
    return {k: dictionary[k] for k in keys if k in dictionary}

dicts = struct(add = _add, omit = _omit, pick = _pick)
''',
    "lib/types.bzl": '''
def _of(kind):
    return lambda v: type(v) == kind

types = struct(
    is_list = _of("list"),
    is_string = _of("string"),
    is_bool = _of("bool"),
    is_none = _of("NoneType"),
    is_int = _of("int"),
    is_tuple = _of("tuple"),
    is_dict = _of("dict"),
    is_function = _of("function"),
    is_depset = _of("depset"),
    is_set = _of("set"),
)
''',
    "lib/collections.bzl": '''
def _after_each(separator, iterable):
    out = []
    for x in iterable:
        out.extend([x, separator])
    return out

def _before_each(separator, iterable):
    out = []
    for x in iterable:
        out.extend([separator, x])
    return out

def _uniq(iterable):
    return list({x: None for x in iterable}.keys())

collections = struct(after_each = _after_each, before_each = _before_each, uniq = _uniq)
''',
    "lib/structs.bzl": '''
def _to_dict(s):
    names = dir(s)
    if type(names) != "list":
        return names  # a struct ctxsel cannot list (another repository's): unknown
    return {k: getattr(s, k) for k in names if k not in ("to_json", "to_proto")}

structs = struct(to_dict = _to_dict)
''',
    "lib/paths.bzl": '''
def _basename(p):
    return p.rpartition("/")[-1]

def _dirname(p):
    prefix, sep, _ = p.rpartition("/")
    if not prefix:
        return sep
    return prefix.rstrip("/")

def _is_absolute(path):
    return path.startswith("/") or (len(path) > 2 and path[1] == ":")

def _join(path, *others):
    result = path
    for p in others:
        if _is_absolute(p):
            result = p
        elif not result or result.endswith("/"):
            result += p
        else:
            result += "/" + p
    return result

def _normalize(path):
    if not path:
        return "."
    absolute = path.startswith("/")
    parts = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == ".." and parts and parts[-1] != "..":
            parts.pop()
        elif part == ".." and absolute:
            continue
        else:
            parts.append(part)
    out = "/".join(parts)
    if absolute:
        out = "/" + out
    return out or "."

def _relativize(path, start):
    segments = _normalize(path).split("/")
    start_segments = _normalize(start).split("/")
    if start_segments == ["."]:
        start_segments = []
    if start_segments != segments[:len(start_segments)]:
        fail("Path '%s' is not beneath '%s'" % (path, start))
    return "/".join(segments[len(start_segments):])

def _split_extension(p):
    b = _basename(p)
    last_dot = b.rfind(".")
    if last_dot <= 0:
        return (p, "")
    cut = len(p) - len(b) + last_dot
    return (p[:cut], p[cut:])

def _replace_extension(p, new_extension):
    return _split_extension(p)[0] + new_extension

def _starts_with(path_a, path_b):
    a = _normalize(path_a)
    b = _normalize(path_b)
    return a == b or a.startswith(b.rstrip("/") + "/")

paths = struct(
    basename = _basename,
    dirname = _dirname,
    is_absolute = _is_absolute,
    join = _join,
    normalize = _normalize,
    relativize = _relativize,
    replace_extension = _replace_extension,
    split_extension = _split_extension,
    starts_with = _starts_with,
)
''',
    "lib/selects.bzl": '''
def _with_or_dict(input_dict):
    out = {}
    for key, value in input_dict.items():
        if type(key) == "tuple":
            for k in key:
                if k in out:
                    fail("key %s appears multiple times" % k)
                out[k] = value
        else:
            if key in out:
                fail("key %s appears multiple times" % key)
            out[key] = value
    return out

def _with_or(input_dict, no_match_error = ""):
    return select(_with_or_dict(input_dict), no_match_error = no_match_error)

def _remove_default_condition(settings):
    return [s for s in settings if s != "//conditions:default"]

def _alias_chain(name, settings, visibility, matched):
    # n settings: n-1 aliases name, name_2, ... each select()ing on one setting
    actual = [name + "_" + str(i) for i in range(2, len(settings))] + [settings[-1]]
    for i in range(1, len(settings)):
        hit, miss = (settings[i - 1], actual[i - 1]) if matched else (actual[i - 1], settings[i - 1])
        native.alias(
            name = name if i == 1 else name + "_" + str(i),
            actual = select({settings[i - 1]: hit, "//conditions:default": miss}),
            visibility = visibility if i == 1 else ["//visibility:private"],
        )

def _config_setting_group(name, match_any = [], match_all = [], visibility = None):
    if bool(match_any) == bool(match_all):
        fail('Either "match_any" or "match_all" must be set, but not both.')
    if len(_remove_default_condition(match_any)) < len(match_any) or match_all == ["//conditions:default"]:
        # skylib 1.2+ (1.1 made two config_settings <name>_stamp_binary_on/off_check instead)
        native.alias(name = name, actual = Label("//lib:always_true"), visibility = visibility)
        return
    settings = match_any or _remove_default_condition(match_all)
    if len(settings) == 1:
        native.alias(name = name, actual = settings[0], visibility = visibility)
        return
    _alias_chain(name, settings, visibility, bool(match_any))

selects = struct(with_or = _with_or, with_or_dict = _with_or_dict, config_setting_group = _config_setting_group)
''',
}

#: ``lib/partial.bzl``; ``unittest.suite`` calls it too, so both modules carry this text
_PARTIAL = '''
def _partial_make(func, *args, **kwargs):
    return struct(function = func, args = args, kwargs = kwargs)

def _partial_call(partial, *args, **kwargs):
    function_kwargs = dict(partial.kwargs)
    function_kwargs.update(kwargs)
    return partial.function(*(partial.args + args), **function_kwargs)

def _partial_is_instance(v):
    return type(v) == "struct" and hasattr(v, "function") and hasattr(v, "args") and \\
        type(v.args) == "tuple" and hasattr(v, "kwargs") and type(v.kwargs) == "dict"

partial = struct(make = _partial_make, call = _partial_call, is_instance = _partial_is_instance)
'''
MODULES["lib/partial.bzl"] = _PARTIAL
#: ``lib/unittest.bzl``: what its test rules and suites create at loading time. Rule
#: repositories test their rules with it (rules_pkg 0.7.0: 77 of 311 targets' dependents
#: were wrong without it): ``analysistest.make`` returns a test rule whose
#: ``target_under_test`` is a label (the edge to the rule under test), ``unittest.suite``
#: instantiates ``<name>_test_<i>`` per rule and a ``test_suite`` over them. ``asserts``
#: and ``begin``/``end``/``fail``/``target_*`` run at analysis time only: inert here, but
#: present, as a .bzl may forward them at load time (rules_android's ``test/utils/unittest.bzl``
#: builds ``struct(begin = _unittest.begin, ...)``: "struct has no field 'begin'" failed it
#: and the 11 statements loading it).
MODULES["lib/unittest.bzl"] = _PARTIAL + '''
TOOLCHAIN_TYPE = "@bazel_skylib//toolchains/unittest:toolchain_type"

def _impl_function_name(impl):
    return str(impl).partition("<function ")[-1].rpartition(">")[0]

def _make(impl, attrs = {}, **kwargs):
    attrs = dict(attrs)
    attrs["_impl_name"] = attr.string(default = _impl_function_name(impl))
    return rule(impl, attrs = attrs, test = True, toolchains = [TOOLCHAIN_TYPE])

def _make_analysis_test(impl, expect_failure = False, attrs = {}, fragments = [], extra_target_under_test_aspects = [], **kwargs):
    attrs = dict(attrs)
    attrs["_impl_name"] = attr.string(default = _impl_function_name(impl))
    attrs["target_under_test"] = attr.label(aspects = extra_target_under_test_aspects, mandatory = True)
    return rule(impl, attrs = attrs, fragments = fragments, test = True, toolchains = [TOOLCHAIN_TYPE],
                analysis_test = True)

def _suite(name, *test_rules):
    test_names = []
    for index, test_rule in enumerate(test_rules):
        test_name = "%s_test_%d" % (name, index)
        if _partial_is_instance(test_rule):
            _partial_call(test_rule, name = test_name)
        else:
            test_rule(name = test_name)
        test_names.append(test_name)
    native.test_suite(name = name, tests = [":%s" % t for t in test_names])

def _at_analysis(*args, **kwargs):
    return None

unittest = struct(make = _make, suite = _suite, begin = _at_analysis, end = _at_analysis, fail = _at_analysis)
analysistest = struct(
    make = _make_analysis_test,
    begin = _at_analysis,
    end = _at_analysis,
    fail = _at_analysis,
    target_actions = _at_analysis,
    target_bin_dir_path = _at_analysis,
    target_under_test = _at_analysis,
)
asserts = struct(
    expect_failure = _at_analysis,
    equals = _at_analysis,
    false = _at_analysis,
    set_equals = _at_analysis,
    new_set_equals = _at_analysis,
    true = _at_analysis,
)

def register_unittest_toolchains():
    pass
'''

#: ``rules/build_test.bzl`` and ``rules/diff_test.bzl`` (skylib 1.1.1, the Bazel 4 era): macros,
#: so a call is not one target of kind ``build_test``/``diff_test`` but what they create.
#: rules_jvm_external 4.2 (sweep of session 18): build_test makes a genrule
#: ``<name>_<i>__deps`` per batch of up to ``len(targets) // 100`` targets (their
#: dependents: the genrule and the test, an ``_empty_test``) and diff_test an ``_diff_test``
#: whose ``file1``/``file2`` are labels; without these 55 targets were missing and 2 rules'
#: dependents lost their diff tests.
_IS_WINDOWS = 'select({"@bazel_tools//src/conditions:host_windows": True, "//conditions:default": False})'
MODULES["rules/build_test.bzl"] = '''
def _empty_test_impl(ctx):
    pass

_empty_test = rule(
    implementation = _empty_test_impl,
    attrs = {"data": attr.label_list(allow_files = True), "is_windows": attr.bool(mandatory = True)},
    test = True,
)

def build_test(name, targets, **kwargs):
    if len(targets) == 0:
        fail("targets must be non-empty", "targets")
    if kwargs.get("data", None):
        fail("data is not supported on a build_test()", "data")
    targets = list({t: None for t in targets}.keys())
    batch_size = max(1, len(targets) // 100)
    genrule_args = {k: kwargs.get(k) for k in ["compatible_with", "restricted_to", "tags"] if k in kwargs}
    test_data = []
    for idx, batch in enumerate([targets[i:i + batch_size] for i in range(0, len(targets), batch_size)]):
        full_name = "{name}_{idx}__deps".format(name = name, idx = idx)
        test_data.append(full_name)
        native.genrule(name = full_name, srcs = batch, outs = [full_name + ".out"], testonly = 1,
                       visibility = ["//visibility:private"], cmd = "touch $@", **genrule_args)
    _empty_test(name = name, data = test_data, size = kwargs.pop("size", "small"),
                is_windows = ''' + _IS_WINDOWS + ''', **kwargs)
'''
MODULES["rules/diff_test.bzl"] = '''
def _diff_test_impl(ctx):
    pass

_diff_test = rule(
    attrs = {
        "failure_message": attr.string(),
        "file1": attr.label(allow_single_file = True, mandatory = True),
        "file2": attr.label(allow_single_file = True, mandatory = True),
        "is_windows": attr.bool(mandatory = True),
    },
    test = True,
    implementation = _diff_test_impl,
)

def diff_test(name, file1, file2, **kwargs):
    _diff_test(name = name, file1 = file1, file2 = file2, is_windows = ''' + _IS_WINDOWS + ''', **kwargs)
'''

#: ``rules/write_file.bzl`` and ``rules/copy_file.bzl``: macros choosing between two rules,
#: so the target's kind is ``_write_file``/``_write_xfile`` (``_copy_file``/``_copy_xfile``
#: when ``is_executable``), as bazel query prints it (rules_rust 0.1.0: 5 targets had kind
#: ``write_file``/``copy_file``); ``out`` is the output a dependency may name.
MODULES["rules/write_file.bzl"] = '''
def _impl(ctx):
    pass

_ATTRS = {
    "out": attr.output(mandatory = True),
    "content": attr.string_list(mandatory = False, allow_empty = True),
    "newline": attr.string(values = ["unix", "windows", "auto"], default = "auto"),
    "is_windows": attr.bool(mandatory = True),
}

_write_file = rule(implementation = _impl, attrs = _ATTRS)

_write_xfile = rule(implementation = _impl, executable = True, attrs = _ATTRS)

def write_file(name, out, content = [], is_executable = False, newline = "auto", **kwargs):
    impl = _write_xfile if is_executable else _write_file
    impl(name = name, content = content, out = out, newline = newline or "auto",
         is_windows = ''' + _IS_WINDOWS + ''', **kwargs)
'''
MODULES["rules/copy_file.bzl"] = '''
def _impl(ctx):
    pass

_ATTRS = {
    "src": attr.label(mandatory = True, allow_single_file = True),
    "out": attr.output(mandatory = True),
    "is_windows": attr.bool(mandatory = True),
    "is_executable": attr.bool(mandatory = True),
    "allow_symlink": attr.bool(mandatory = True),
}

_copy_file = rule(implementation = _impl, attrs = _ATTRS)

_copy_xfile = rule(implementation = _impl, executable = True, attrs = _ATTRS)

def copy_file(name, src, out, is_executable = False, allow_symlink = False, **kwargs):
    impl = _copy_xfile if is_executable else _copy_file
    impl(name = name, src = src, out = out, is_windows = ''' + _IS_WINDOWS + ''',
         is_executable = is_executable, allow_symlink = allow_symlink, **kwargs)
'''

#: ``rules/expand_template.bzl`` (skylib 1.3.0 on) and ``rules/run_binary.bzl`` (1.0.0 on): plain
#: rules, the kind is the symbol's name, with these attributes in every release since (checked
#: against skylib's tags 1.0.0, 1.1.1, 1.2.1, 1.3.0 and 1.9.1); here for their attribute types: an unknown rule's
#: attribute counts only label-looking strings, so snappy's ``template = "snappy-stubs-public.h.in"``
#: and a ``tool = "tool.sh"`` were no edge and ``blast-radius`` of the file fell back to every rule
#: of the package (measured with Bazel 4.2.3 and skylib's own files: both are edges).
MODULES["rules/expand_template.bzl"] = '''
def _impl(ctx):
    pass

expand_template = rule(
    implementation = _impl,
    attrs = {
        "template": attr.label(mandatory = True, allow_single_file = True),
        "substitutions": attr.string_dict(mandatory = True),
        "out": attr.output(mandatory = True),
    },
)
'''
MODULES["rules/run_binary.bzl"] = '''
def _impl(ctx):
    pass

run_binary = rule(
    implementation = _impl,
    attrs = {
        "tool": attr.label(executable = True, allow_files = True, mandatory = True, cfg = "exec"),
        "env": attr.string_dict(),
        "srcs": attr.label_list(allow_files = True),
        "outs": attr.output_list(mandatory = True),
        "args": attr.string_list(),
    },
)
'''

#: ``@bazel_tools//tools/build_rules:test_rules.bzl`` (Bazel 4.2.3's, as its install base ships it):
#: ``rule_test``, ``file_test``, ``successful_test`` and ``failed_test`` are macros making an
#: ``sh_test`` of the given name (srcs and data: its helper) and a private, testonly helper
#: ``<name>_impl`` of kind ``_rule_test_rule``/``_file_test_rule``/``_successful_rule``/``_failed_rule``
#: whose output is ``<name>.sh`` for rule_test, ``<name>_impl.sh`` for the others; the helper takes
#: the test's other arguments (``tags``, ...) but not ``args``/``size``/``timeout``/``flaky``/
#: ``local``/``shard_count``. Without it the call was one target of kind ``rule_test`` (measured:
#: ``bazel query --output=label_kind`` says ``sh_test``), no test rule, and the helper and its
#: output were missing. ``load_results`` makes one of the two trivial tests at loading time.
#: Analysis-time helpers (``success_target``, ``analysis_results``, ...) return nothing here:
#: no rule implementation runs in static mode.
BAZEL_TOOLS_MODULES: dict[str, str] = {"tools/build_rules/test_rules.bzl": '''
def _impl(ctx):
    pass

_TEST_ATTRS = {"args": None, "size": None, "timeout": None, "flaky": None, "local": None, "shard_count": None}

def _helper_rule_attrs(test_attrs, own_attrs):
    r = {k: v for k, v in test_attrs.items() if k not in _TEST_ATTRS}
    r.update(own_attrs)
    r.update(dict(testonly = 1, visibility = ["//visibility:private"]))
    return r

def _make_sh_test(name, **kwargs):
    native.sh_test(name = name, srcs = [name + "_impl"], data = [name + "_impl"],
                   deps = ["@bazel_tools//tools/bash/runfiles"], **kwargs)

_MSG_ATTRS = {"msg": attr.string(mandatory = True), "out": attr.output()}

_successful_rule = rule(attrs = _MSG_ATTRS, implementation = _impl)

_failed_rule = rule(attrs = _MSG_ATTRS, implementation = _impl)

def _msg_test(helper, name, msg, **kwargs):
    helper(**_helper_rule_attrs(kwargs, dict(name = name + "_impl", msg = msg, out = name + "_impl.sh")))
    _make_sh_test(name, **kwargs)

def successful_test(name, msg, **kwargs):
    _msg_test(_successful_rule, name, msg, **kwargs)

def failed_test(name, msg, **kwargs):
    _msg_test(_failed_rule, name, msg, **kwargs)

def success_target(ctx, msg, exe = None):
    return []

def failure_target(ctx, msg, exe = None):
    return []

def assert_(condition, string = "assertion failed", *args):
    if not condition:
        fail(string % args)

def strip_prefix(prefix, string):
    assert_(string.startswith(prefix), "%s does not start with %s", string, prefix)
    return string[len(prefix):len(string)]

def expectation_description(expect = None, expect_failure = None):
    if expect_failure:
        return "failure " + str(expect_failure)
    return "result " + repr(expect)

def check_results(result, failure, expect, expect_failure):
    wanted = expectation_description(expect, expect_failure)
    found = expectation_description(result, failure)
    if wanted == found:
        return (True, "successfully computed " + wanted)
    return (False, "expect " + wanted + " but found " + found)

def load_results(name, result = None, failure = None, expect = None, expect_failure = None):
    (is_success, msg) = check_results(result, failure, expect, expect_failure)
    this_test = successful_test if is_success else failed_test
    return this_test(name = name, msg = msg)

def analysis_results(ctx, result = None, failure = None, expect = None, expect_failure = None):
    return []

_rule_test_rule = rule(
    attrs = {
        "rule": attr.label(mandatory = True),
        "generates": attr.string_list(),
        "provides": attr.string_dict(),
        "out": attr.output(),
    },
    implementation = _impl,
)

def rule_test(name, rule, generates = None, provides = None, **kwargs):
    _rule_test_rule(**_helper_rule_attrs(kwargs, dict(name = name + "_impl", rule = rule, generates = generates,
                                                      provides = provides, out = name + ".sh")))
    _make_sh_test(name, **kwargs)

_file_test_rule = rule(
    attrs = {
        "file": attr.label(mandatory = True, allow_single_file = True),
        "content": attr.string(default = ""),
        "regexp": attr.string(default = ""),
        "matches": attr.int(default = -1),
        "out": attr.output(),
    },
    implementation = _impl,
)

def file_test(name, file, content = None, regexp = None, matches = None, **kwargs):
    _file_test_rule(**_helper_rule_attrs(kwargs, dict(name = name + "_impl", file = file, content = content or "",
                                                      regexp = regexp or "", out = name + "_impl.sh",
                                                      matches = matches if (matches != None) else -1)))
    _make_sh_test(name, **kwargs)
'''}


def skylib_source(repo: str, path: str) -> str | None:
    """The Starlark text ctxsel evaluates for ``@<repo>//<path>``, if it stands in for it
    (skylib's modules, and ``test_rules.bzl`` of ``@bazel_tools``)."""
    if SKYLIB_REPO.fullmatch(repo):
        return MODULES.get(path)
    if repo == "bazel_tools":
        return BAZEL_TOOLS_MODULES.get(path)
    return None
