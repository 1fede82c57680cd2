"""Bazel labels: turning what BUILD files and users write into one canonical spelling.

Every node id is a canonical label, ``//pkg:name`` for the main repository and
``@repo//pkg:name`` for external ones, so that ``//core``, ``//core:core``, ``:core``
(inside //core) and ``@//core:core`` all meet at the same node.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Container

from ctxsel.cache import InputTracker


#: the file names of a package's BUILD file; Bazel reads the first one present
BUILD_NAMES = ("BUILD.bazel", "BUILD")
#: the kind of ``package_group`` targets: not rules, but graph nodes, because bazel query
#: follows ``visibility`` to them (here, not in starlark_values, to keep CLI start light)
PACKAGE_GROUP = "package_group"
#: the kind of ``environment_group`` targets (Bazel's constraint environments): a target
#: labels can name, but no rule and no dependency of anything (``rdeps`` of one of its
#: environments does not list it, measured with Bazel 4.2.3)
ENVIRONMENT_GROUP = "environment_group"
#: target kinds a BUILD file declares that are not rules: never an answer of
#: ``kind(rule, ...)``, never in ``native.existing_rules()``, no ``visibility`` edges
NON_RULE_KINDS = frozenset({PACKAGE_GROUP, ENVIRONMENT_GROUP})


class LabelError(ValueError):
    """A string that is not a valid label."""


@dataclass(frozen=True)
class Label:
    repo: str  # "" = the main repository
    package: str  # "core/sub", "" for the root package
    name: str

    @property
    def external(self) -> bool:
        return bool(self.repo)

    def __str__(self) -> str:
        prefix = f"@{self.repo}" if self.repo else ""
        return f"{prefix}//{self.package}:{self.name}"

    @property
    def path(self) -> str:
        """Repo-relative path of the file this label would name in the main repository."""
        return f"{self.package}/{self.name}" if self.package else self.name


def parse_label(text: str, current_package: str = "", main_repo_name: str = "") -> Label:
    """Parse ``text`` as written inside ``current_package`` (the package's BUILD file).

    Accepts ``//pkg:name``, ``//pkg`` (= ``//pkg:pkg``), ``:name``, ``name``,
    ``sub/file.txt`` (a file of the current package), ``@repo//pkg:name``,
    ``@//pkg:name`` and ``@repo`` (= ``@repo//:repo``). ``@<main workspace name>//``
    means the main repository, as Bazel's repository mapping does.
    """
    s = text  # not stripped: Bazel keeps "a.txt " as a target name of its own
    if not s:
        raise LabelError("empty label")
    repo = ""
    if s.startswith("@"):
        s = s.lstrip("@")  # Bazel 6+ canonical "@@repo" spells the same repository
        if "//" in s:
            repo, _, rest = s.partition("//")
            s = "//" + rest
        else:
            repo, s = s, f"//:{s}"
        if repo == main_repo_name:
            repo = ""
    if s.startswith("//"):
        body = s[2:]
        if ":" in body:
            package, _, name = body.partition(":")
        else:
            package = body
            name = body.rsplit("/", 1)[-1] if body else ""
            if not name:
                if repo:  # "@repo//" is the repo's root package target "@repo//:repo"
                    name = repo
                else:
                    raise LabelError(f"label {text!r} names no target")
    elif s.startswith(":"):
        package, name = current_package, s[1:]
    else:
        package, name = current_package, s
    problem = _package_error(package) or target_name_error(name)
    if problem:
        raise LabelError(f"invalid label {text!r}: {problem}")
    return Label(repo, package, name)


def _slash_error(kind: str, text: str) -> str | None:
    """The slash rules Bazel 4.2.3 applies to package and target names alike."""
    if text.startswith("/"):
        return f"{kind} names may not start with '/'"
    if text.endswith("/"):
        return f"{kind} names may not end with '/'"
    if "//" in text:
        return f"{kind} names may not contain '//' path separators"
    return None


def _package_error(package: str) -> str | None:
    """Bazel 4.2.3's LabelValidator.validatePackageName, as its messages say it.

    ctxsel used to strip slashes, so ``//p/:a.txt`` (refused: "package names may not end
    with '/'") was an edge to ``p/a.txt``."""
    problem = _slash_error("package", package)
    if problem:
        return problem
    if not valid_package_name(package):
        return "package names may contain only printable 7-bit ASCII except ':' and '\\', and no '.'-only component"
    return None


def target_name_error(name: str) -> str | None:
    """Bazel 4.2.3's LabelValidator.validateTargetName (measured messages), for a label's
    name and a rule's ``name`` alike (``cc_library(name = "x/")`` stops the BUILD file).

    ctxsel took ``./a.txt`` or ``d/../a.txt`` as file names, and stripped ``"a.txt\\r"`` (a
    CRLF BUILD file) or ``" a.txt"`` into ``a.txt``: edges Bazel does not have. A glob()
    matching a file whose name Bazel refuses fails the package too."""
    if not name:
        return "empty target name"
    problem = _slash_error("target", name)
    if problem:
        return problem
    if ":" in name:
        return "target names may not contain ':'"
    segments = name.split("/")
    if ".." in segments:
        return "target names may not contain up-level references '..'"
    if "." in segments:
        return "target names may not contain '.' as a path segment"
    if name.endswith("\r"):
        return "target names may not end with carriage returns"
    if "\\" in name or any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in name):
        return "target names may not contain '\\' or non-printable characters"
    return None


def valid_package_name(package: str) -> bool:
    """Whether Bazel 4.2.3 accepts ``package`` (a directory path) as a package name.

    Its LabelValidator allows only printable 7-bit ASCII except ``\\`` and no component
    made of dots alone; target names may hold any byte >= 0x80. A directory such as
    ``café/`` or ``中文/sub/`` is therefore no package even with a BUILD file (measured:
    ``//...`` skips it, a parent package's ``glob(["**"])`` lists ``café/BUILD`` as a file
    and ``//:café/é.txt`` is a valid label), where ctxsel made it one.
    """
    if any(not (" " <= ch <= "~") or ch == "\\" for ch in package):
        return False
    return not any(part and part.strip(".") == "" for part in package.split("/"))


def subpackage_crossed(package: str, name: str, packages: Container[str]) -> str | None:
    """The package below ``package`` whose directory holds the file ``name`` (relative to
    ``package``), if any: ``//p:sub/x.c`` with a ``p/sub/BUILD`` is a label Bazel refuses
    ("'p/sub' is a subpackage"), in a load() and in a rule's ``srcs`` alike."""
    parts = name.split("/")[:-1]
    for i in range(len(parts), 0, -1):
        directory = "/".join(filter(None, [package, *parts[:i]]))
        if directory in packages:
            return directory
    return None


def canonical(text: str, current_package: str = "", main_repo_name: str = "") -> str:
    return str(parse_label(text, current_package, main_repo_name))


def split(label: str) -> tuple[str, str]:
    """``//pkg:name`` -> ("pkg", "name") for a canonical main-repository label."""
    body = label[2:] if label.startswith("//") else label
    package, _, name = body.partition(":")
    return package, name


def looks_like_label(value: str) -> bool:
    """Whether a string in an attribute Bazel does not type for us is a label reference.

    ``//command_line_option:cpu`` names a command-line flag, never a package (the keys of a
    transition's or an analysis test's ``config_settings``; rules_python's tests)."""
    return value.startswith(("//", ":", "@")) and not value.startswith("//command_line_option:")


_WORKSPACE_NAME = re.compile(r"""\bworkspace\s*\(\s*name\s*=\s*["']([^"']+)["']""")
_MODULE_CALL = re.compile(r"""^[ \t]*module\s*\(([^)]*)\)""", re.M)


def module_info(root: Path, tracker: InputTracker) -> dict[str, str] | None:
    """``name`` and ``version`` of MODULE.bazel's ``module()`` (Bazel's default for each is
    ""): what ``module_name()``/``module_version()`` return in the main repository's BUILD
    files (rules_java names its release tarball ``"rules_java-%s" % module_version()``).
    None without such a call."""
    path = root / "MODULE.bazel"
    if not (tracker.exists(path) and path.is_file()):
        return None
    m = _MODULE_CALL.search(tracker.read_text(path))
    if m is None:
        return None
    out = {"name": "", "version": ""}
    for key in out:
        found = re.search(rf"""\b{key}\s*=\s*["']([^"']*)["']""", m.group(1))
        if found:
            out[key] = found.group(1)
    return out


def workspace_name(root: Path, tracker: InputTracker) -> str:
    """The main repository's name (``@name//`` then means the main repository)."""
    module = module_info(root, tracker)
    if module and module["name"]:
        return module["name"]
    for fname in ("WORKSPACE.bazel", "WORKSPACE"):
        path = root / fname
        if tracker.exists(path) and path.is_file():
            m = _WORKSPACE_NAME.search(tracker.read_text(path))
            if m:
                return m.group(1)
    return ""
