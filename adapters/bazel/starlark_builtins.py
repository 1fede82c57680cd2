"""Starlark's global functions (``glob``, ``select``, ``rule``, ``native``, ``len``...)
and the methods of strings, lists and dicts, for the interpreter in ``starlark``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from .starlark_values import (
    ENVIRONMENT_GROUP,
    MAX_SEQUENCE,
    NON_RULE_KINDS,
    PACKAGE_GROUP,
    UNKNOWN,
    PartialDict,
    AspectClass,
    AttrSpec,
    Builtin,
    Depset,
    EvalError,
    LabelValue,
    RuleClass,
    Select,
    SelectorList,
    Struct,
    SymbolicMacro,
    TargetCall,
    UnknownCallable,
    _check_size,
    _repr,
    _str,
    _type_name,
    dict_key,
    flatten,
    check_written_size,
    target_name_error,
)

if TYPE_CHECKING:  # pragma: no cover
    from .starlark import Interpreter


#: The ``native`` module's members in Bazel 4.2.3, as its error for ``native.no_such_rule``
#: lists them ("Available attributes"), measured: its native rules and functions. A BUILD
#: file reads each of them without a load().
BAZEL_4_NATIVE = frozenset("""
action_listener alias apple_binary apple_cc_toolchain apple_static_library available_xcodes cc_binary
cc_host_toolchain_alias cc_import cc_libc_top_alias cc_library cc_proto_library cc_test cc_toolchain
cc_toolchain_alias cc_toolchain_suite config_feature_flag config_setting constraint_setting constraint_value
environment existing_rule existing_rules exports_files extra_action fdo_prefetch_hints fdo_profile filegroup
genquery genrule glob j2objc_library java_binary java_import java_library java_lite_proto_library
java_package_configuration java_plugin java_proto_library java_runtime java_runtime_alias java_test
java_toolchain java_toolchain_alias label_flag label_setting ninja_build ninja_graph objc_import objc_library
package package_group package_name platform propeller_optimize proto_lang_toolchain proto_library py_binary
py_library py_runtime py_test repository_name sh_binary sh_library sh_test test_suite toolchain toolchain_type
xcode_config xcode_config_alias xcode_version
""".split())

#: Every name a BUILD file may read in Bazel 4.2.3 without a load(), measured: the native
#: members, the Starlark universe, and the 7 other names of 170 candidates a BUILD file
#: ``_v = NAME`` loads with (depset, distribs, environment_group, json, licenses, proto, select).
BAZEL_4_BUILD_GLOBALS = BAZEL_4_NATIVE | frozenset("""
False None True all any bool dict dir enumerate fail float getattr hasattr hash int len list max min print
range repr reversed sorted str tuple type zip
depset distribs environment_group json licenses proto select
""".split())

#: Native rules of a Bazel other than the Debian 4.2.3 build ctxsel measures with (upstream
#: builds' Android rules, later versions' rules), and later versions' BUILD globals: reading
#: one never drops a file; ctxsel takes a call of one as a rule of that kind.
OTHER_BAZEL_NATIVE = frozenset("""
android_device android_instrumentation_test android_tools_defaults_jar java_host_runtime_alias memprof_profile
""".split())
OTHER_BAZEL_BUILD_NAMES = OTHER_BAZEL_NATIVE | frozenset({"abs", "set"})


def make_builtins(interp: "Interpreter") -> dict[str, Any]:
    """The global functions of BUILD and .bzl files, bound to one interpreter."""
    b: dict[str, Any] = {}

    def builtin(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
            b[name] = Builtin(name, fn)
            return fn

        return deco


    @builtin("glob")
    def _glob(include: Any = (), exclude: Any = (), exclude_directories: int = 1, allow_empty: Any = True) -> Any:
        if interp.ctx is None:
            raise EvalError("glob() outside a BUILD file")
        if include is UNKNOWN or exclude is UNKNOWN:
            return UNKNOWN
        return interp._glob(interp.ctx, _strings(include, "glob include"), _strings(exclude, "glob exclude"), bool(exclude_directories), allow_empty is not False, interp.ctx.line)

    @builtin("subpackages")
    def _subpackages(include: Any = (), exclude: Any = (), allow_empty: Any = False) -> Any:
        # Bazel 6+: formatjs's ts_project macro excludes its child packages with it
        if interp.ctx is None:
            raise EvalError("subpackages() outside a BUILD file")
        if include is UNKNOWN or exclude is UNKNOWN or interp.subpackages is None:
            return UNKNOWN
        return interp.subpackages(interp.ctx, _strings(include, "subpackages include"), _strings(exclude, "subpackages exclude"), allow_empty is not False, interp.ctx.line)

    @builtin("select")
    def _select(branches: Any, no_match_error: str = "") -> Any:
        if not isinstance(branches, dict):
            raise EvalError("select() needs a dict")
        return Select({str(k): v for k, v in branches.items()})

    @builtin("package_name")
    def _package_name() -> str:
        return interp.ctx.package if interp.ctx else ""

    @builtin("repository_name")
    def _repository_name() -> str:
        return "@"

    @builtin("package")
    def _package(**kwargs: Any) -> None:
        if interp.ctx is None:
            return None
        interp.ctx.called_package()
        if kwargs.get("default_visibility") is not None:
            interp.ctx.default_visibility = kwargs["default_visibility"]
        return None

    @builtin("licenses")
    def _licenses(*args: Any, **kwargs: Any) -> None:
        return None

    @builtin("exports_files")
    def _exports_files(srcs: Any = (), visibility: Any = None, licenses: Any = None) -> None:
        if interp.ctx is not None and srcs is not UNKNOWN:
            names = _strings(srcs, "exports_files")
            for name in names:
                problem = target_name_error(name)
                if problem:  # Bazel 4.2.3 stops the file (measured: exports_files(["../x"]))
                    raise EvalError(f"exports_files: invalid name {name!r}: {problem}", fatal=True)
                if name in interp.ctx.file_visibility and not _same_export_visibility(interp.ctx.file_visibility[name], visibility):
                    raise EvalError(f"exports_files: visibility for exported file '{name}' declared twice")
            interp.ctx.exported.extend(names)
            for name in names:
                interp.ctx.file_visibility[name] = visibility

    @builtin("package_group")
    def _package_group(name: Any = None, packages: Any = (), includes: Any = ()) -> None:
        # a target of bazel query: rules naming it in `visibility` (and groups naming it in
        # `includes`) depend on it, so `rdeps(//..., //p:group)` lists them (Bazel 4.2.3)
        if interp.ctx is not None:
            if not isinstance(name, str):
                raise EvalError("package_group() needs a string name", fatal=name is not UNKNOWN)
            interp.ctx.add(TargetCall(PACKAGE_GROUP, name, {"includes": includes}, interp.ctx.line, RuleClass(PACKAGE_GROUP)))

    @builtin("environment_group")
    def _environment_group(name: Any = None, environments: Any = (), defaults: Any = ()) -> None:
        # a native BUILD function of Bazel 4-8 whose target no query follows: its
        # environments have no edge to it, so it is a node that is never an answer
        if interp.ctx is not None:
            if not isinstance(name, str):
                raise EvalError("environment_group() needs a string name", fatal=name is not UNKNOWN)
            interp.ctx.add(TargetCall(ENVIRONMENT_GROUP, name, {}, interp.ctx.line, RuleClass(ENVIRONMENT_GROUP)))

    @builtin("existing_rules")
    def _existing_rules() -> dict[str, Any]:
        if interp.ctx is None:
            return {}
        # rules only; a list value as a tuple, as Bazel 4.2.3 gives it (measured: a macro's
        # ``r["srcs"] + ["x"]`` fails there, "unsupported binary operation: tuple + list"), a
        # dict copied: a macro's change to one must not change the target's own attribute
        return {t.name: {**{k: tuple(v) if type(v) is list else dict(v) if type(v) is dict else v for k, v in t.attrs.items()},
                         "kind": t.kind}
                for t in interp.ctx.targets if t.kind not in NON_RULE_KINDS}

    @builtin("existing_rule")
    def _existing_rule(name: str) -> Any:
        return _existing_rules().get(name)

    @builtin("fail")
    def _fail(*args: Any, **kwargs: Any) -> None:
        raise EvalError("fail(): " + " ".join(_str(a) for a in args), fatal=True)

    @builtin("print")
    def _print(*args: Any, **kwargs: Any) -> None:
        return None

    def _dir(o: Any) -> Any:
        """Field and method names; UNKNOWN for a value of another repository's .bzl (whose
        fields ctxsel cannot list: skylib's ``structs.to_dict`` of it is then UNKNOWN, not {})."""
        if o is UNKNOWN or isinstance(o, UnknownCallable) or (isinstance(o, Struct) and o.open):
            return UNKNOWN
        return sorted(o.fields) if isinstance(o, Struct) else sorted(m for t, m in METHODS if t is type(o))

    @builtin("struct")
    def _struct(**kwargs: Any) -> Struct:
        return Struct(dict(kwargs))

    @builtin("Label")
    def _label(text: Any) -> Any:
        if isinstance(text, LabelValue):
            return text
        if not isinstance(text, str):
            return UNKNOWN
        # relative to the package of the file that calls Label() (a .bzl: not the BUILD
        # file using it), as Bazel 6+ resolves it; Bazel 4.2.3 refuses it ("Illegal
        # absolute label syntax"), so no repository that Bazel 4 loads has one
        return LabelValue.of(_relative_to_caller(text))

    def _relative_to_caller(text: str) -> str:
        """A label text made absolute against the package of the file whose code is calling
        the builtin now (``interp.call_path``: a .bzl, or a skylib stand-in's
        ``@bazel_skylib//lib:x.bzl``)."""
        if text.startswith(("//", "@")):
            return text
        name = text.removeprefix(":")
        if interp.call_path.startswith("@"):
            return f"{interp.call_path.rsplit(':', 1)[0]}:{name}"
        return f"//{interp.package_of(interp.call_path)}:{name}"

    def _package_relative_label(value: Any) -> Any:
        """``native.package_relative_label``: a Label stays itself (flatbuffers passes
        ``Label("//ts:x")``; ctxsel wrapped it in a second Label, whose text was no string,
        and the macro's genrule failed), a string is read in the BUILD file's package."""
        if isinstance(value, LabelValue) or value is UNKNOWN:
            return value
        if not isinstance(value, str):
            raise EvalError(f"package_relative_label: got {_type_name(value)}, want string or Label")
        if value.startswith(("//", "@")):
            return LabelValue.of(value)
        return LabelValue.of(f"//{interp.ctx.package if interp.ctx else ''}:{value.removeprefix(':')}")

    @builtin("rule")
    def _rule(implementation: Any = None, attrs: Any = None, outputs: Any = None, **kwargs: Any) -> RuleClass:
        specs: dict[str, AttrSpec] = {}
        if isinstance(attrs, dict):
            for k, v in attrs.items():
                specs[str(k)] = v if isinstance(v, AttrSpec) else AttrSpec("other")
        # a dict of templates; the deprecated function form cannot be known without running it
        templates = tuple(v for v in outputs.values() if isinstance(v, str)) if isinstance(outputs, dict) else ()
        return RuleClass("", specs, native=False, output_templates=templates)

    @builtin("macro")
    def _macro(implementation: Any = None, attrs: Any = None, **kwargs: Any) -> SymbolicMacro:
        return SymbolicMacro(implementation, dict(attrs) if isinstance(attrs, dict) else {})

    @builtin("aspect")
    def _aspect(implementation: Any = None, attr_aspects: Any = (), attrs: Any = None, **kwargs: Any) -> AspectClass:
        specs = {str(k): v for k, v in attrs.items() if isinstance(v, AttrSpec)} if isinstance(attrs, dict) else {}
        return AspectClass(specs)

    # no ``toolchain_type`` here: in a BUILD file (and as ``native.toolchain_type``) it is the
    # native rule, a target ``toolchains = [...]`` points at; .bzl code spells the other one
    # ``config_common.toolchain_type``
    for name in ("provider", "repository_rule", "module_extension", "tag_class", "transition", "analysis_test_transition", "config_field", "configuration_field", "exec_group", "subrule", "visibility"):
        b[name] = Builtin(name, lambda *a, **k: UNKNOWN)

    def label_default(kind: str, default: Any) -> Any:
        """A label attribute's default with its label strings resolved where ``attr.label()``
        is called: Bazel 4.2.3 reads ``attr.label(default = ":tool")`` in //lib:defs.bzl as
        ``//lib:tool`` for every target of the rule, wherever its BUILD file is (measured;
        ctxsel resolved it in the target's package, rules_pkg's ``directory`` rule lost its
        ``_dir_creator`` edge). Other values (``Label()``, computed defaults) are kept."""
        def resolve(v: Any) -> Any:
            return _relative_to_caller(v) if isinstance(v, str) and v else v

        if kind == "label":
            return resolve(default)
        if kind == "label_list" and isinstance(default, list):
            return [resolve(v) for v in default]
        if kind == "label_dict" and isinstance(default, dict):
            return {resolve(k): v for k, v in default.items()}
        if kind == "label_values_dict" and isinstance(default, dict):
            return {k: resolve(v) for k, v in default.items()}
        return default

    def attr_fn(kind: str) -> Builtin:
        def make(*args: Any, default: Any = None, aspects: Any = (), **kwargs: Any) -> AttrSpec:
            carried = tuple(a for a in aspects if isinstance(a, AspectClass)) if isinstance(aspects, (list, tuple)) else ()
            return AttrSpec(kind, label_default(kind, default), carried)

        return Builtin(f"attr.{kind}", make)

    b["attr"] = Struct({
        "label": attr_fn("label"), "label_list": attr_fn("label_list"),
        "label_keyed_string_dict": attr_fn("label_dict"), "string_keyed_label_dict": attr_fn("label_values_dict"),
        "output": attr_fn("output"), "output_list": attr_fn("output_list"),
        **{n: attr_fn("other") for n in ("string", "string_list", "int", "int_list", "bool", "string_dict", "string_list_dict", "license")},
    })

    @builtin("len")
    def _len(x: Any) -> Any:
        if x is UNKNOWN or isinstance(x, UnknownCallable):
            return UNKNOWN
        if isinstance(x, (str, list, tuple, dict, range)):
            return len(x)
        raise EvalError(f"len() of {_type_name(x)}")

    b["str"] = Builtin("str", lambda x: UNKNOWN if x is UNKNOWN else _str(x))
    b["repr"] = Builtin("repr", lambda x: _repr(x))
    b["bool"] = Builtin("bool", lambda x=False: interp._truth(x))
    b["type"] = Builtin("type", _type_name)
    b["hasattr"] = Builtin("hasattr", lambda o, n: o.has(n) if isinstance(o, NativeModule) else isinstance(o, Struct) and n in o.fields or (type(o), n) in METHODS)
    b["dir"] = Builtin("dir", _dir)
    b["getattr"] = Builtin("getattr", lambda o, n, *d: RuleClass(n) if isinstance(o, NativeModule) and n not in o.fields and o.has(n)
                           else o.fields.get(n, d[0] if d else UNKNOWN) if isinstance(o, Struct) else (d[0] if d else UNKNOWN))

    @builtin("int")
    def _int(x: Any, base: int = 10) -> Any:
        if isinstance(x, str) and "_" in x:  # Python's digit separators; Bazel 4.2.3: 'invalid base-10 literal: "1_000"'
            raise EvalError(f"int(): invalid literal {x!r}")
        try:
            return int(x, base) if isinstance(x, str) else int(x)
        except (ValueError, TypeError):
            raise EvalError(f"int(): invalid value {x!r}") from None

    @builtin("list")
    def _list(x: Any = ()) -> Any:
        return UNKNOWN if x is UNKNOWN else list(interp._iterate(x))

    @builtin("tuple")
    def _tuple(x: Any = ()) -> Any:
        return UNKNOWN if x is UNKNOWN else tuple(interp._iterate(x))

    @builtin("dict")
    def _dict(*args: Any, **kwargs: Any) -> Any:
        unknown = any(a is UNKNOWN or isinstance(a, UnknownCallable) for a in args)
        out: dict[Any, Any] = PartialDict() if unknown else {}
        for a in args:
            if a is UNKNOWN or isinstance(a, UnknownCallable):
                continue
            if isinstance(a, dict):
                out.update(a)
            else:
                for pair in interp._iterate(a):
                    k, v = pair
                    out[k] = v
        out.update(kwargs)
        return out

    @builtin("sorted")
    def _sorted(x: Any, key: Any = None, reverse: bool = False) -> Any:
        items = interp._iterate(x)
        check_written_size(items)  # sorting compares nested values element by element
        try:
            if key is None:
                return sorted(items, reverse=reverse)
            return sorted(items, key=lambda v: interp.call(key, [v], {}, 0, ""), reverse=reverse)
        except TypeError as exc:
            raise EvalError(f"sorted(): {exc}") from None

    b["reversed"] = Builtin("reversed", lambda x: list(reversed(interp._iterate(x))))
    b["enumerate"] = Builtin("enumerate", lambda x, start=0: [(i + start, v) for i, v in enumerate(interp._iterate(x))])
    b["zip"] = Builtin("zip", lambda *xs: list(zip(*[interp._iterate(x) for x in xs])))
    b["any"] = Builtin("any", lambda x: any(interp._truth(v) for v in interp._iterate(x)))
    b["all"] = Builtin("all", lambda x: all(interp._truth(v) for v in interp._iterate(x)))
    b["hash"] = Builtin("hash", _string_hash)

    @builtin("depset")
    def _depset(direct: Any = None, order: str = "default", transitive: Any = None, items: Any = None) -> Any:
        """Bazel's ``to_list()`` order: "default"/"postorder" list the transitive depsets'
        items before the direct ones, "preorder" after; duplicates keep their first place.
        A "topological" order or an unknown part stays UNKNOWN."""
        direct = items if direct is None else direct
        parts = [] if transitive is None else transitive
        if order not in ("default", "postorder", "preorder") or direct is UNKNOWN or parts is UNKNOWN:
            return UNKNOWN
        nested = interp._iterate(parts)
        if not all(isinstance(d, Depset) for d in nested):
            return UNKNOWN
        own = interp._iterate(direct) if direct is not None else []
        inherited = [x for d in nested for x in d.items]
        seen: dict[Any, Any] = {}
        for x in [*own, *inherited] if order == "preorder" else [*inherited, *own]:
            try:
                seen.setdefault(dict_key(x), x)
            except TypeError:
                raise EvalError(f"depset: unhashable element of type {_type_name(x)}") from None
        return Depset(tuple(seen.values()))

    @builtin("float")
    def _float(x: Any = 0.0) -> Any:
        if x is UNKNOWN:
            return UNKNOWN
        if isinstance(x, bool) or not isinstance(x, (int, float, str)):
            raise EvalError(f"float(): got {_type_name(x)}, want int, float or string")
        try:
            return float(x)
        except ValueError:
            raise EvalError(f"float(): invalid literal {x!r}") from None

    @builtin("range")
    def _range(*args: int) -> range:
        # a range, not a list: Starlark's is lazy (``range(1 << 30)`` is a "forever" loop in
        # bazel-lib); turning it into a list (``list()``, ``sorted()``) checks the size
        return range(*args)

    def _minmax(fn: Callable[..., Any]) -> Callable[..., Any]:
        def inner(*args: Any, key: Any = None) -> Any:
            items = interp._iterate(args[0]) if len(args) == 1 else list(args)
            if not items:
                raise EvalError("min/max of an empty sequence")
            check_written_size(items)
            return fn(items) if key is None else fn(items, key=lambda v: interp.call(key, [v], {}, 0, ""))

        return inner

    b["min"] = Builtin("min", _minmax(min))
    b["max"] = Builtin("max", _minmax(max))

    native_fields: dict[str, Any] = {
        name: b[name]
        for name in ("glob", "subpackages", "package_name", "repository_name", "exports_files", "package_group", "environment_group", "existing_rules", "existing_rule", "licenses")
    }
    # Bazel 7: the main repository's canonical name is "" (a macro reads it to tell an
    # external repository apart); module_name/module_version: MODULE.bazel's module()
    native_fields["repo_name"] = Builtin("repo_name", lambda: "")
    native_fields["module_name"] = Builtin("module_name", lambda: interp.module["name"] if interp.module is not None else UNKNOWN)
    native_fields["module_version"] = Builtin("module_version", lambda: interp.module["version"] if interp.module is not None else UNKNOWN)
    native_fields["package_relative_label"] = Builtin("package_relative_label", _package_relative_label)
    for name in ("repo_name", "module_name", "module_version", "package_relative_label"):
        b.setdefault(name, native_fields[name])  # BUILD globals too (Bazel 7)
    b["native"] = NativeModule(native_fields, interp.native_rules)
    return b


class NativeModule(Struct):
    """``native``: the native rules plus a few functions; unknown members become rules
    of that kind (a newer Bazel's native rule this evaluator does not list)."""

    def __init__(self, fields: dict[str, Any], rules: frozenset[str]) -> None:
        super().__init__(fields)
        self.rules = rules | BAZEL_4_NATIVE | OTHER_BAZEL_NATIVE

    def has(self, name: str) -> bool:
        """Whether ``native.name`` exists in a Bazel ctxsel knows (``hasattr(native, ...)``:
        True for ``cc_library`` in Bazel 4.2.3, measured)."""
        return name in self.fields or name in self.rules


def _same_export_visibility(old: Any, new: Any) -> bool:
    """Whether a second ``exports_files`` of a file keeps its visibility, as Bazel 4.2.3 sees
    it: it compares visibility objects by identity, and only "none given" (= public),
    ``["//visibility:public"]`` and ``["//visibility:private"]`` are shared constants; any
    other list is a new object, so exporting a file twice with one fails the package
    ("visibility for exported file 'x.txt' declared twice", measured), even the same list."""
    def constant(vis: Any) -> str | None:
        if vis is None:
            return "public"
        items = [v.text if isinstance(v, LabelValue) else v for v in flatten(vis)]
        return {("//visibility:public",): "public", ("//visibility:private",): "private"}.get(tuple(items))
    a, b = constant(old), constant(new)
    return a is not None and a == b


def _strings(v: Any, what: str) -> list[str]:
    if isinstance(v, str):
        return [v]
    if isinstance(v, (list, tuple)):
        out = []
        for x in v:
            if not isinstance(x, str):
                raise EvalError(f"{what} must be strings, got {_type_name(x)}")
            out.append(x)
        return out
    raise EvalError(f"{what} must be a list of strings, got {_type_name(v)}")


# ---------------------------------------------------------------- string/list/dict methods
def _format(s: str, /, *args: Any, **kwargs: Any) -> str:
    """``s.format(...)``; ``s`` positional-only: a keyword named ``s`` is the template's
    (envoyproxy/toolshed's ``"{v}{s}_{a}".format(v = ..., s = ..., a = ...)`` failed the
    statement, and its 8 genrules were missing)."""
    import string

    try:
        # Starlark has no format specs; "{:>999999999}" would otherwise build a gigabyte.
        if any(spec for _, _, spec, _ in string.Formatter().parse(s)):
            raise EvalError("format(): format specifications ({:...}) are not Starlark")
        return s.format(*[_str(a) if not isinstance(a, (int, str)) else a for a in args], **{k: _str(v) if not isinstance(v, (int, str)) else v for k, v in kwargs.items()})
    except (IndexError, KeyError, ValueError) as exc:
        raise EvalError(f"format(): {exc}") from None


def _join(sep: str, items: Any) -> Any:
    if items is UNKNOWN or isinstance(items, UnknownCallable):
        return UNKNOWN  # ``",".join(all_requirements)``, a list loaded from another repository
    parts = list(items.keys() if isinstance(items, dict) else items)
    if any(p is UNKNOWN or isinstance(p, UnknownCallable) for p in parts):
        return UNKNOWN  # an element of another repository's value (rules_java's genrule cmd)
    if not all(isinstance(p, str) for p in parts):
        raise EvalError("join() needs strings")
    if sum(map(len, parts)) + len(sep) * max(len(parts) - 1, 0) > MAX_SEQUENCE:
        raise EvalError("value too large")
    return sep.join(parts)


def _replace(s: str, old: str, new: str, count: int = -1) -> str:
    hits = s.count(old) if old else len(s) + 1
    if count >= 0:
        hits = min(hits, count)
    if len(s) + hits * (len(new) - len(old)) > MAX_SEQUENCE:  # checked before Python builds it
        raise EvalError("value too large")
    return s.replace(old, new, count)


def _list_append(lst: list[Any], x: Any) -> None:
    if len(lst) >= MAX_SEQUENCE:
        raise EvalError("value too large")
    lst.append(x)


def _list_extend(lst: list[Any], xs: Any) -> None:
    if xs is UNKNOWN:
        return
    if isinstance(xs, (Select, SelectorList)):
        raise EvalError("cannot extend a list with a select()")
    lst.extend(xs)
    _check_size(lst)


_UNBOUND = object()


def _dict_pop(d: dict[Any, Any], key: Any, default: Any = _UNBOUND) -> Any:
    """``D.pop(key[, default])``, ``default`` by keyword too (rules_cc's toolchain.bzl)."""
    key = dict_key(key)
    if key in d:
        return d.pop(key)
    if default is not _UNBOUND:
        return default
    raise EvalError(f"key {key!r} not found")


def _separator(sep: Any) -> str:
    """``split``/``rsplit``'s ``sep``: required and non-empty in Bazel's Starlark (4.2.3:
    ``" a b ".split()`` is "missing 1 required positional argument: sep", as in today's
    ``StringModule``); Python's whitespace splitting made targets Bazel never has."""
    if not isinstance(sep, str):
        raise EvalError(f"split: got {_type_name(sep)} for sep, want string")
    if not sep:
        raise EvalError("split: empty separator")
    return sep


def _split(s: str, sep: Any, maxsplit: Any = None) -> list[str]:
    return s.split(_separator(sep), -1 if maxsplit is None else maxsplit)


def _rsplit(s: str, sep: Any, maxsplit: Any = None) -> list[str]:
    return s.rsplit(_separator(sep), -1 if maxsplit is None else maxsplit)


def _dict_popitem(d: dict[Any, Any]) -> tuple[Any, Any]:
    """``D.popitem()``: Starlark removes the FIRST pair in insertion order (Bazel 4.2.3:
    ``{"b": 1, "a": 2}.popitem()`` is ``("b", 1)``); Python's removes the last."""
    if not d:
        raise EvalError("popitem: empty dictionary")
    key = next(iter(d))
    return key, d.pop(key)


def _string_hash(s: Any) -> int:
    """``hash(s)``: Java's ``String.hashCode`` (Bazel 4.2.3: ``hash("abc")`` is 96354), a
    signed 32-bit value over UTF-16 code units; Python's ``hash`` is salted per process."""
    if not isinstance(s, str):
        raise EvalError(f"hash: got {_type_name(s)}, want string")
    units = s.encode("utf-16-be")
    h = 0
    for i in range(0, len(units), 2):
        h = (31 * h + int.from_bytes(units[i:i + 2], "big")) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


METHODS: dict[tuple[type, str], Callable[..., Any]] = {
    (str, "format"): _format,
    (str, "join"): _join,
    (str, "replace"): _replace,
    (str, "split"): _split,
    (str, "rsplit"): _rsplit,
    (str, "splitlines"): lambda s, keepends=False: s.splitlines(keepends),
    (str, "startswith"): lambda s, p, *a: s.startswith(tuple(p) if isinstance(p, (list, tuple)) else p, *a),
    (str, "endswith"): lambda s, p, *a: s.endswith(tuple(p) if isinstance(p, (list, tuple)) else p, *a),
    (str, "strip"): lambda s, c=None: s.strip(c),
    (str, "lstrip"): lambda s, c=None: s.lstrip(c),
    (str, "rstrip"): lambda s, c=None: s.rstrip(c),
    (str, "lower"): lambda s: s.lower(),
    (str, "upper"): lambda s: s.upper(),
    (str, "capitalize"): lambda s: s.capitalize(),
    (str, "title"): lambda s: s.title(),
    (str, "find"): lambda s, x, *a: s.find(x, *a),
    (str, "rfind"): lambda s, x, *a: s.rfind(x, *a),
    (str, "index"): lambda s, x, *a: s.index(x, *a),
    (str, "rindex"): lambda s, x, *a: s.rindex(x, *a),
    (str, "count"): lambda s, x, *a: s.count(x, *a),
    (str, "partition"): lambda s, x: s.partition(x),
    (str, "rpartition"): lambda s, x: s.rpartition(x),
    (str, "removeprefix"): lambda s, x: s[len(x):] if s.startswith(x) else s,
    (str, "removesuffix"): lambda s, x: s[: -len(x)] if x and s.endswith(x) else s,
    (str, "isalpha"): lambda s: s.isalpha(),
    (str, "isdigit"): lambda s: s.isdigit(),
    (str, "isalnum"): lambda s: s.isalnum(),
    (str, "isupper"): lambda s: s.isupper(),
    (str, "islower"): lambda s: s.islower(),
    (str, "isspace"): lambda s: s.isspace(),
    (str, "istitle"): lambda s: s.istitle(),
    (str, "elems"): lambda s: list(s),
    (str, "codepoints"): lambda s: list(s),
    (list, "append"): _list_append,
    (list, "extend"): _list_extend,
    (list, "insert"): lambda lst, i, x: lst.insert(i, x),
    (list, "remove"): lambda lst, x: lst.remove(x),
    (list, "pop"): lambda lst, *i: lst.pop(*i),
    (list, "index"): lambda lst, x, *a: lst.index(x, *a),
    (list, "clear"): lambda lst: lst.clear(),
    (dict, "get"): lambda d, k, default=None: d.get(dict_key(k), default) if not isinstance(k, list) else default,
    (dict, "keys"): lambda d: list(d.keys()),
    (dict, "values"): lambda d: list(d.values()),
    (dict, "items"): lambda d: list(d.items()),
    (dict, "update"): lambda d, /, *a, **k: [d.update(x) for x in a if isinstance(x, dict)] and None or d.update(k),
    (dict, "pop"): _dict_pop,
    (dict, "popitem"): _dict_popitem,
    (Depset, "to_list"): lambda d: list(d.items),
    (dict, "setdefault"): lambda d, k, v=None: d.setdefault(dict_key(k), v),
    (dict, "clear"): lambda d: d.clear(),
    (tuple, "index"): lambda t, x: t.index(x),
    (tuple, "count"): lambda t, x: t.count(x),
}

#: the methods that change their list or dict: an error on a frozen one (``Interpreter.freeze``),
#: even when they change nothing (Bazel 4.2.3: ``E.clear()`` of an empty list, ``D.update({})``)...
MUTATING_METHODS = frozenset({(list, "append"), (list, "extend"), (list, "insert"), (list, "remove"), (list, "pop"),
                              (list, "clear"), (dict, "update"), (dict, "pop"), (dict, "popitem"),
                              (dict, "setdefault"), (dict, "clear")})
#: ...but for these two, which Bazel lets read a frozen dict: ``D.pop(absent, default)`` and
#: ``D.setdefault(present, x)`` (measured with 4.2.3)
READ_ONLY_CALLS: dict[tuple[type, str], Callable[..., bool]] = {
    (dict, "pop"): lambda d, key, *default, **kw: dict_key(key) not in d and bool(default or kw),
    (dict, "setdefault"): lambda d, key, *_: dict_key(key) in d,
}
