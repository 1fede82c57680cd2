"""The values a Starlark evaluation produces, beyond Python's own str/int/list/dict.

Kept apart from the interpreter so the builtins (``starlark_builtins``) and the
static loader can use them without importing each other.
"""

from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Callable

from .labels import ENVIRONMENT_GROUP, NON_RULE_KINDS, PACKAGE_GROUP, LabelError, parse_label, target_name_error  # noqa: F401 (re-exported for the builtins)

MAX_SEQUENCE = 1_000_000  # longest list/string an operation may build


class EvalError(Exception):
    """Something Bazel would reject or that this evaluator does not support.

    ``fatal``: Bazel itself stops evaluating the file here (``fail()``, recursion, a
    loaded .bzl that failed so), so the statements after it create no target. Set where
    such an error is raised; ``Interpreter.exec_module`` clears it again when a value
    ctxsel could not compute steered the evaluation to it (``Interpreter.guesses``): then
    Bazel may well never get there, and ctxsel keeps evaluating.
    """

    def __init__(self, message: str, line: int | None = None, path: str | None = None, fatal: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.path = path
        self.fatal = fatal


class _Unknown:
    """A value that could not be computed (from an unresolved load, an unsupported call)."""

    _instance: "_Unknown | None" = None

    def __new__(cls) -> "_Unknown":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNKNOWN"

    def __reduce__(self) -> str:
        return "UNKNOWN"


UNKNOWN = _Unknown()


@dataclass
class Select:
    """``select({...})``: bazel query takes the union of every branch."""

    branches: dict[str, Any]


@dataclass
class SelectorList:
    """``[...] + select(...) + ...``: the parts of a configurable attribute value."""

    parts: list[Any]


class PartialDict(dict):  # type: ignore[type-arg]
    """``dict(x, k = v)`` where ``x`` is another repository's value: ``k`` is known, the rest
    is not (a ``rule(attrs = dict(py_common.API_ATTRS, deps = ...))`` keeps its ``deps``; a
    ``struct(**it)`` is open)."""


@dataclass(frozen=True)
class Depset:
    """``depset(...)`` in loading-phase code (macros de-duplicate labels with
    ``depset(x).to_list()``); ``items`` in ``to_list()`` order. It was UNKNOWN, so the
    names and deps built from it were lost."""

    items: tuple[Any, ...]

    def __bool__(self) -> bool:  # an empty depset is falsy, as in Starlark
        return bool(self.items)


@dataclass
class Struct:
    fields: dict[str, Any]
    #: built with a ``**`` argument ctxsel could not evaluate (a dict of another
    #: repository's .bzl): fields it does not know may exist, so reading one is UNKNOWN, not
    #: an error (rules_cc's test subjects, ``struct(**(structs.to_dict(_subjects) | ...))``)
    open: bool = False


@dataclass
class AttrSpec:
    """What ``attr.label_list(default=...)`` and friends declare about an attribute."""

    #: label | label_list | label_dict (labels are the keys) | label_values_dict (labels are
    #: the values: ``attr.string_keyed_label_dict``) | output | output_list | other
    type: str
    default: Any = None
    #: ``aspects = [...]`` of a label attribute: their label defaults are deps of the target
    aspects: tuple[AspectClass, ...] = ()


@dataclass(eq=False)  # hashable by identity, as Bazel's aspect values are
class AspectClass:
    """``aspect(attrs = {...})``. Bazel query counts an aspect's label defaults (its
    implicit ``_tool`` attributes) as deps of every target whose attribute carrying the
    aspect has a value (``--aspect_deps=conservative``, the default; measured with 4.2.3:
    rules_rust's ``rust_clippy`` depends on ``//:clippy.toml`` through its
    ``rust_clippy_aspect``)."""

    attrs: dict[str, AttrSpec]


@dataclass
class RuleClass:
    """A rule: native (``cc_library``) or defined in a .bzl with ``rule()``.

    ``kind`` is the rule class bazel query prints; for ``rule()`` it is the global
    name the rule is exported as, which is only known after the .bzl is evaluated.
    """

    kind: str
    attrs: dict[str, AttrSpec] | None = None  # None = a native rule (typed by the loader)
    native: bool = True
    #: ``rule(outputs = {"out": "%{name}.txt"})`` templates: files every target of the rule
    #: produces, so a dependency on ``:x.txt`` is one on the target
    output_templates: tuple[str, ...] = ()


@dataclass
class SymbolicMacro:
    """``macro(implementation, attrs)`` (Bazel 8): calling it runs the implementation
    with ``name``, ``visibility`` and every declared attribute."""

    implementation: Any
    attrs: dict[str, Any]


class EvaluatedModule(dict):  # type: ignore[type-arg]
    """The exported globals of a .bzl file ctxsel evaluated itself (``label`` names it).

    A symbol missing from one is a certainty, not a gap in ctxsel's knowledge: Bazel
    refuses the load ("does not contain symbol"), so no rule kind may be guessed for it.
    """

    def __init__(self, label: str, values: dict[str, Any]) -> None:
        super().__init__(values)
        self.label = label


@dataclass
class UnknownCallable:
    """A symbol the evaluator cannot see into (an external repository's macro or rule).

    Called with ``name = ...`` it is taken as a rule of kind ``symbol``, which is what
    bazel query reports for most rules loaded from rule sets.
    """

    symbol: str
    origin: str = ""  # the .bzl it was loaded from, for the warning

    def __hash__(self) -> int:
        # a dict key too: ``values = {bazel_features.flags.x: "true"}`` (bazel-lib's config_setting)
        return hash((self.symbol, self.origin))


@dataclass(frozen=True)
class LabelValue:
    """``Label("//pkg:x")``: used as a string wherever an attribute wants a label.

    Frozen, so hashable like Bazel's Label: rules_cc's ``label_utils.bzl`` dedupes labels
    as dict keys (7 statements of rules_cc failed "unhashable type")."""

    text: str

    def __str__(self) -> str:
        return self.text

    @classmethod
    def of(cls, text: str) -> "LabelValue":
        """A Label from an absolute label text, in the canonical spelling Bazel 4.2.3 prints:
        ``str(Label("@//a/b"))`` is ``//a/b:b`` (measured), so macros may slice at its
        ``":"``. rules_scala's ``scala_toolchain`` does ``expanded.rindex(":")`` on
        ``str(native.package_relative_label("@//p"))``; the raw text failed the statement
        and lost the toolchain. A text no label parser accepts stays as written."""
        try:
            return cls(str(parse_label(text)))
        except LabelError:
            return cls(text)


def dict_key(key: Any) -> Any:
    """A dict key as ctxsel stores it: a Label by its text, so ``{Label("//a:b"): 1}``,
    ``d[native.package_relative_label(x)] = 1``, ``in`` and ``get`` all meet (rules_cc's
    ``label_utils.bzl`` stored by Label and looked up by text: "key not found")."""
    return key.text if isinstance(key, LabelValue) else key


@dataclass
class Function:
    name: str
    node: ast.FunctionDef | ast.Lambda
    globals: dict[str, Any]
    defaults: list[Any]
    kw_defaults: list[Any]
    closure: dict[str, Any]
    path: str
    #: the label of the file defining it (``//pkg:defs.bzl``), for ``str()``
    module: str = ""

    def __str__(self) -> str:
        # Starlark's repr of a function; macros parse the name out of it (rules_python's
        # tests name each test after its implementation function this way)
        return f"<function {self.name} from {self.module}>" if self.module else f"<function {self.name}>"


@dataclass
class Builtin:
    name: str
    fn: Callable[..., Any]

    def __str__(self) -> str:
        return f"<built-in function {self.name}>"


@dataclass
class TargetCall:
    """One rule instantiation recorded while evaluating a BUILD file."""

    kind: str
    name: str
    attrs: dict[str, Any]
    line: int
    rule: RuleClass | None = None  # None for unknown kinds (typed by heuristics)


@dataclass
class PackageContext:
    """What evaluating one BUILD file records (``native.*`` calls from macros land here too)."""

    package: str
    path: str
    targets: list[TargetCall] = field(default_factory=list)
    exported: list[str] = field(default_factory=list)
    #: ``exports_files(srcs, visibility)``: file -> its visibility labels (None = public)
    file_visibility: dict[str, Any] = field(default_factory=dict)
    #: ``package(default_visibility = ...)``: the visibility of rules (and of source files
    #: nobody exports) that set none; its package_group labels are dependencies for bazel query
    default_visibility: Any = None
    line: int = 0  # line of the top-level BUILD statement being evaluated
    #: ``path:line`` of each ``for`` loop that ran over an unknown value (another
    #: repository's list or dict): the targets its body would create are missing
    unknown_loops: list[str] = field(default_factory=list)
    #: target name -> "symbol (path:line)" of each call of another repository's symbol: a
    #: macro may create more targets under that name (rules_js's ``npm_link_all_packages(name
    #: = "node_modules")`` makes ``node_modules/<package>``)
    external_calls: dict[str, str] = field(default_factory=dict)
    #: the names ``targets`` holds, and whether ``package()`` ran: what ``add``/``package_called`` check
    names: set[str] = field(default_factory=set)
    package_called: bool = False

    def add(self, call: TargetCall) -> None:
        """Record a target; an invalid or already taken name is an error Bazel 4.2.3 stops the
        BUILD file on (``bazel query --keep_going`` keeps only the targets made before it:
        "illegal rule name", "cc_library rule 'a' in package 'p' conflicts with existing
        cc_library rule"). ctxsel lost only that statement and kept the targets after it."""
        problem = target_name_error(call.name)
        if problem:
            raise EvalError(f"{call.kind}: illegal name {call.name!r}: {problem}", fatal=True)
        if call.name in self.names:
            raise EvalError(f"{call.kind} '{call.name}' in package '{self.package}' conflicts with an existing target", fatal=True)
        self.names.add(call.name)
        self.targets.append(call)

    def called_package(self) -> None:
        """Note a ``package()`` call; a second one stops the file in Bazel 4.2.3 ("'package'
        can only be used once per BUILD file", also from a macro's ``native.package``). One
        after rules is accepted there (measured), so only the count matters."""
        if self.package_called:
            raise EvalError("'package' can only be used once per BUILD file", fatal=True)
        self.package_called = True


class _Missing:
    pass


_MISSING = _Missing()


# ---------------------------------------------------------------- value helpers
def flatten(value: Any) -> list[Any]:
    """All values an attribute can take, select() branches unioned."""
    if isinstance(value, SelectorList):
        out: list[Any] = []
        for part in value.parts:
            out.extend(flatten(part))
        return out
    if isinstance(value, Select):
        out = []
        for branch in value.branches.values():
            out.extend(flatten(branch))
        return out
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, Depset):
        # Bazel 4.2.3 takes a depset for a list attribute as its to_list() (rules_groovy's
        # ``groovy_and_java_library``: ``deps = depset(deps + [name + "-java"])``, measured: the
        # edges are in ``bazel query``'s graph; ctxsel had none)
        return list(value.items)
    if isinstance(value, dict):  # label-keyed dicts (and label_list_dict values)
        out = list(value.keys())
        for v in value.values():
            if isinstance(v, (list, tuple)):
                out.extend(v)
        return out
    return [value]


def nested_select(value: Any) -> bool:
    """Whether a select() branch of ``value`` holds a select() itself (``select({":c":
    select({...})})``): no Bazel accepts that for an attribute ("expected value of type
    'list(label)' for each branch"), so the attribute gives no edge, key or value."""
    parts = value.parts if isinstance(value, SelectorList) else [value]
    for part in parts:
        if isinstance(part, Select):
            for branch in part.branches.values():
                items = branch if isinstance(branch, (list, tuple)) else [branch]
                if any(isinstance(item, (Select, SelectorList)) for item in items):
                    return True
    return False


def dict_values(value: Any) -> list[Any]:
    """The values of a dict attribute (select() branches unioned, list values spread):
    where a string-keyed label dict keeps its labels, which ``flatten`` (keys) misses."""
    if isinstance(value, SelectorList):
        return [v for part in value.parts for v in dict_values(part)]
    if isinstance(value, Select):
        return [v for branch in value.branches.values() for v in dict_values(branch)]
    if not isinstance(value, dict):
        return []
    out: list[Any] = []
    for v in value.values():
        out.extend(v if isinstance(v, (list, tuple)) else [v])
    return out


def select_keys(value: Any) -> list[str]:
    """The config_setting labels a configurable value depends on."""
    out: list[str] = []
    if isinstance(value, SelectorList):
        for part in value.parts:
            out.extend(select_keys(part))
    elif isinstance(value, Select):
        out.extend(k for k in value.branches if isinstance(k, str))
    return out


def _type_name(v: Any) -> str:
    if isinstance(v, bool):
        return "bool"
    if v is None:
        return "NoneType"
    if isinstance(v, (Function, Builtin, RuleClass, UnknownCallable)):
        return "function"
    if isinstance(v, (Select, SelectorList)):
        return "select"
    return {int: "int", str: "string", list: "list", tuple: "tuple", dict: "dict", Struct: "struct", LabelValue: "Label",
            range: "range", Depset: "depset", float: "float"}.get(type(v), type(v).__name__)


def _check_size(v: Any) -> Any:
    if isinstance(v, (str, list, tuple)) and len(v) > MAX_SEQUENCE:
        raise EvalError("value too large")
    return v


#: a ``%`` conversion: its flags, width and precision, then its character ("%%" is a
#: literal percent sign)
_PERCENT_SPEC = re.compile(r"%%|%(?:\([^)]*\))?([-+ #0]*(?:\*|\d+)?(?:\.(?:\*|\d*))?)(.?)", re.S)
#: the conversions Bazel's Starlark formats (``Printer.formatWithList``): ``%d %s %r`` and
#: the float ones in Bazel 4.2.3; ``%o %x %X`` since, which ctxsel follows, as a repository
#: using them is written for such a Bazel. ``%i`` and ``%c`` (Python's, starlark-go's) are
#: refused by 4.2.3 and today's Bazel alike: 'unsupported format character "i"' (measured).
_PERCENT_CONVERSIONS = frozenset("dsroxXeEfFgG")


def _format_percent(fmt: str, args: Any) -> str:
    conv = list(args) if isinstance(args, tuple) else [args]
    index = 0

    def conversion(m: re.Match[str]) -> str:
        """One ``%`` conversion checked as Starlark does, its argument made ready for Python's."""
        nonlocal index
        spec, char = m.group(0), m.group(2)
        if spec == "%%":
            return spec
        # Starlark has none (Bazel 4.2.3: 'unsupported format character "0" at index 1 in
        # "%03d"', likewise "%5s", "%-4s", "%.2f"); Python's would also let "%999999999d"
        # build a gigabyte. Bazel fails the package there, ctxsel the statement.
        if m.group(1):
            raise EvalError(f"string formatting: unsupported format flags, width or precision {spec!r}")
        if char not in _PERCENT_CONVERSIONS or spec.startswith("%("):
            raise EvalError(f"string formatting: unsupported format character {spec[1:]!r}")
        if index < len(conv):
            arg = conv[index]
            number = isinstance(arg, (int, float)) and not isinstance(arg, bool)
            if char in "gG" and number:  # Bazel's %g is str(float): "%g" % 65 is "65.0"
                text = starlark_float(float(arg))
                conv[index], spec = _Printable(text.upper() if char == "G" else text), "%s"
            elif char in "oxX" and isinstance(arg, float):
                conv[index] = int(arg)
            elif char in "sr" or not number:
                conv[index] = _Printable(arg)
        index += 1
        return spec

    fmt = _PERCENT_SPEC.sub(conversion, fmt)
    try:
        return fmt % tuple(conv)
    except (TypeError, ValueError) as exc:
        raise EvalError(f"string formatting: {exc}") from None


def starlark_float(x: float) -> str:
    """``str(x)`` of a float as Bazel's Starlark writes it (measured with Bazel 4.2.3): the
    shortest digits that read back as ``x``, positional for decimal exponents -4 to 16 with
    ".0" when whole (``10000000000000000.0``; Python switches at 1e16), else ``1.5e+20``,
    ``1e-05``; ``+inf``, ``-inf``, ``nan``."""
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    if x == 0:
        return "-0.0" if math.copysign(1, x) < 0 else "0.0"
    sign, digit_tuple, exponent = Decimal(repr(x)).as_tuple()
    assert isinstance(exponent, int)  # a finite number
    digits = "".join(map(str, digit_tuple)).rstrip("0") or "0"
    point = len(digit_tuple) + exponent - 1  # the decimal exponent of the first digit
    if -4 <= point < 17:
        if point >= 0:
            text = digits[:point + 1].ljust(point + 1, "0") + "." + (digits[point + 1:] or "0")
        else:
            text = "0." + "0" * (-point - 1) + digits
    else:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        text = f"{mantissa}e{'+' if point >= 0 else '-'}{abs(point):02d}"
    return "-" + text if sign else text


@dataclass(frozen=True)
class _Printable:
    """A value for Python's ``%``: ``%s`` prints Starlark's str, ``%r`` Starlark's repr
    (``"%r" % "x"`` is ``"x"`` in double quotes; Python's repr gave ``'x'``)."""

    value: Any

    def __str__(self) -> str:
        return _str(self.value)

    def __repr__(self) -> str:
        return _repr(self.value)


def check_written_size(*values: Any, limit: int = MAX_SEQUENCE) -> None:
    """Raise ``EvalError("value too large")`` when ``values`` written out hold more than
    ``limit`` elements and characters, each shared element counted where it appears.

    A list can hold one list twice: ``x = [x, x]`` forty times builds 41 lists, but 2**40
    elements written out, and ``str()``, ``==``, ``in``, ``sorted()`` and hashing walk the
    written-out form (a BUILD file doing so hung ctxsel, as it exhausts Bazel). The walk stops
    at ``limit``, so it costs little more than the operation it guards on a real value.
    """
    budget = limit
    stack = list(values)
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            budget -= len(v)
        elif isinstance(v, (list, tuple)):
            budget -= len(v)
            stack.extend(x for x in v if not isinstance(x, (int, bool)) and x is not None)
        elif isinstance(v, dict):
            budget -= len(v)
            stack.extend(v.keys())
            stack.extend(v.values())
        elif type(v) is Struct:
            budget -= len(v.fields)
            stack.extend(v.fields.values())
        if budget < 0:
            raise EvalError("value too large")


def _str(v: Any) -> str:
    check_written_size(v)
    return _written(v, quote=False)


def _repr(v: Any) -> str:
    check_written_size(v)
    return _written(v, quote=True)


def _written(v: Any, quote: bool) -> str:
    """``str(v)`` (``repr(v)`` with ``quote``) of a value ``check_written_size`` let through."""
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"' if quote else v
    if isinstance(v, bool):
        return "True" if v else "False"
    if v is None:
        return "None"
    if isinstance(v, float):
        return starlark_float(v)
    if isinstance(v, LabelValue):  # Bazel 4.2.3: repr(Label("@//s")) and str([Label("//s")]) write Label("//s:s")
        return f'Label("{v.text}")' if quote else v.text
    if isinstance(v, list):
        return "[" + ", ".join(_written(x, True) for x in v) + "]"
    if isinstance(v, tuple):
        return "(" + ", ".join(_written(x, True) for x in v) + ("," if len(v) == 1 else "") + ")"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_written(k, True)}: {_written(x, True)}" for k, x in v.items()) + "}"
    if isinstance(v, Depset):
        return "depset(" + _written(list(v.items), True) + ")"
    if type(v) is Struct:
        # fields in name order, whatever order struct() was given them (Bazel 4.2.3)
        return "struct(" + ", ".join(f"{k} = {_written(x, True)}" for k, x in sorted(v.fields.items())) + ")"
    return str(v)
