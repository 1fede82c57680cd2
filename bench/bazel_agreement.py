"""How often ctxsel's static Bazel graph agrees with ``bazel query`` on a real workspace.

    source ~/.cache/ctxsel-oracles/oracle-env.sh
    python -m bench.bazel_agreement /tmp/bzl/abseil-cpp --bazelrc /tmp/bzl/stub.bazelrc
    python -m bench.bazel_agreement /tmp/bzl/rules_pkg-0.7.0 --skip-packages ",distro,doc_build"

Bazel is asked four questions, once each (``--keep_going``: another repository's package
that cannot load offline is an error, not a stop): the graph of ``deps(//...)``
(``--output=graph --nograph:factored``), its kinds (``label_kind``), the manual tests and the
tests the test_suites ``//...`` matches expand to (``bazel test //...`` runs a manual one they list).
For every rule of the workspace and every source file a rule lists, ctxsel's
``blast-radius X`` (static mode, no cache) is compared with the rules of the reverse
closure of X in that graph, i.e. ``kind(rule, rdeps(//..., X))`` without one query per
target, and ctxsel's ``tests`` with its ``*_test`` rules minus the manual ones no such suite lists. A ``.bzl``
file is asked by its label, where both answer the rules listing it. Prints the agreement
count and the first disagreements.

Run it on an extracted copy whose ``WORKSPACE`` is only ``workspace(name = "<module
name>")`` (and no MODULE.bazel: Bazel 4 must not fetch anything). Repositories loaded from
BUILD files need query-only stubs passed with ``--bazelrc`` (``--override_repository``
lines, as ``oracle.bazelrc`` does for ``rules_cc``: e.g. a ``rules_python`` directory with
empty ``WORKSPACE``/``BUILD``/``python/BUILD`` and ``python/defs.bzl`` re-exporting
``py_library = native.py_library`` and friends; an old enough ``bazel_skylib``, 1.2.1, loads
in Bazel 4); packages Bazel still cannot load are named with ``--skip-packages`` and left
out of both sides.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from ctxsel.workspace import Workspace

PREFIX = Path.home() / ".cache" / "ctxsel-oracles"
#: the tests the test_suites ``//...`` matches expand to: ``bazel test //...`` runs a manual
#: test one of them lists (Bazel 4.2.3, measured with ``bazel test --nobuild //...``)
SUITE_RUN = 'let s = kind(test_suite, //...) - attr(tags, "\\bmanual\\b", //...) in tests($s)'


@dataclass
class BazelGraph:
    """What one ``deps(//...)`` query says: edges (reversed), kinds, manual tests."""

    rdeps_of: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    kinds: dict[str, str] = field(default_factory=dict)
    #: the manual tests ``bazel test //...`` skips (none a non-manual test_suite lists)
    manual: set[str] = field(default_factory=set)

    def rdeps(self, label: str) -> set[str]:
        """The reverse closure of ``label``, itself included."""
        seen, todo = {label}, [label]
        while todo:
            for parent in self.rdeps_of.get(todo.pop(), ()):
                if parent not in seen:
                    seen.add(parent)
                    todo.append(parent)
        return seen


def query(root: Path, bazel: str, bazelrc: str, expr: str, *flags: str) -> str:
    """stdout of one ``bazel query`` in batch mode (exit 3, a partial answer, is accepted)."""
    argv = [bazel, "--batch", "--nohome_rc", f"--output_user_root={PREFIX / 'state' / 'bazel4-root'}",
            f"--bazelrc={bazelrc}", "query", expr, *flags, "--keep_going", "--noshow_progress"]
    proc = subprocess.run(argv, cwd=root, capture_output=True, text=True, timeout=1800)
    if proc.returncode not in (0, 3):
        raise SystemExit(f"bazel query {expr!r} exited {proc.returncode}: {proc.stderr[-2000:]}")
    return proc.stdout


def bazel_graph(root: Path, bazel: str, bazelrc: str, saved: Path | None = None) -> BazelGraph:
    """The four answers, read from ``saved`` when it exists (written there otherwise)."""
    if saved is not None and saved.is_file():
        raw = json.loads(saved.read_text())
    else:
        raw = {
            "graph": query(root, bazel, bazelrc, "deps(//...)", "--output=graph", "--nograph:factored"),
            "kinds": query(root, bazel, bazelrc, "deps(//...)", "--output=label_kind"),
            "manual": query(root, bazel, bazelrc, 'attr(tags, "\\bmanual\\b", //...)'),
        }
    if "suite_run" not in raw:  # answers saved before this question was asked get it added
        raw["suite_run"] = query(root, bazel, bazelrc, SUITE_RUN)
        if saved is not None:
            saved.write_text(json.dumps(raw))
    graph = BazelGraph()
    for dependent, dependency in re.findall(r'^\s*"([^"]+)" -> "([^"]+)"', raw["graph"], re.M):
        graph.rdeps_of[dependency].add(dependent)
    for line in raw["kinds"].splitlines():
        m = re.match(r"(.*?) (//.*|@.*)$", line)  # labels may hold spaces, kinds never hold "//"
        if m:
            graph.kinds[m.group(2)] = m.group(1)
    graph.manual = set(raw["manual"].split()) - set(raw["suite_run"].split())
    return graph


def _spec(label: str) -> str:
    """What to ask ctxsel for: a rule or a .bzl by label, any other file by path."""
    if label.endswith(".bzl"):
        return label
    package, _, name = label[2:].partition(":")
    return f"{package}/{name}" if package else name


def agreement(root: Path, graph: BazelGraph, skip: tuple[str, ...] = ()) -> tuple[int, int, list[str]]:
    """(agreeing, compared, disagreements) over every workspace rule and listed source file."""
    def kept(label: str) -> bool:
        return label.startswith("//") and not label.startswith(skip)

    ws = Workspace.open(root, adapter="bazel", source="static", use_cache=False)
    for dependent, dependency, _ in list(ws.graph.edges()) if skip else ():
        # Bazel has no edge into or out of a package it cannot load: neither may ctxsel, or a
        # path through a skipped package reads as a disagreement between two kept targets
        if dependent.startswith(skip) or dependency.startswith(skip):
            ws.graph.remove_edge(dependent, dependency)
    for dependency, dependents in graph.rdeps_of.items() if skip else ():
        # nor the other way round: a package that "contains errors" still has the rules Bazel
        # could create, with their edges (bazel-common's google_java_format linked two kept rules)
        if dependency.startswith(skip):
            dependents.clear()
        else:
            dependents.difference_update({d for d in dependents if d.startswith(skip)})
    rules = {label for label, kind in graph.kinds.items() if kind.endswith(" rule") and kept(label)}
    mine = {i for i in ws.graph if ws.adapter.reportable(ws.graph, i) and kept(i)}
    problems = [f"rules only Bazel has: {sorted(rules - mine)[:10]}"] if rules - mine else []
    problems += [f"rules only ctxsel has: {sorted(mine - rules)[:10]}"] if mine - rules else []
    files = sorted(label for label, kind in graph.kinds.items()
                   if kind == "source file" and kept(label) and graph.rdeps_of.get(label) and not label.endswith((":BUILD", ":BUILD.bazel")))
    agree = 0
    for label in sorted(rules & mine) + files:
        want = {n for n in graph.rdeps(label) if n in rules}
        want_tests = {n for n in want if graph.kinds[n].endswith("_test rule")} - graph.manual
        radius = ws.blast_radius([label if label in rules else _spec(label)], with_paths=False)
        got = {i for i in radius.ids if kept(i)}
        got_tests = {t for t in ws.adapter.test_nodes(ws.graph, [*radius.ids, *radius.unreported]) if kept(t)}
        if got == want and got_tests == want_tests:
            agree += 1
        else:
            problems.append(f"{label}: only Bazel {sorted(want - got)[:5]}, only ctxsel {sorted(got - want)[:5]}, "
                            f"tests differ {sorted(want_tests ^ got_tests)[:5]}")
    return agree, len(rules & mine) + len(files), problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--bazel", default="bazel-4", help="the Bazel executable (default: bazel-4)")
    parser.add_argument("--bazelrc", default=str(PREFIX / "oracle.bazelrc"), help="rc file with the offline stubs")
    parser.add_argument("--skip-packages", default="", help="comma-separated packages Bazel cannot load ('' = the root)")
    parser.add_argument("--save", type=Path, help="keep (or reuse) Bazel's answers in this JSON file")
    args = parser.parse_args(argv)
    skip = tuple(f"//{p}:" for p in args.skip_packages.split(",")) if args.skip_packages else ()
    graph = bazel_graph(args.root, args.bazel, args.bazelrc, args.save)
    agree, total, problems = agreement(args.root, graph, skip)
    print(f"{args.root.name}: {agree}/{total} agree")
    for line in problems[:40]:
        print("  " + line)
    return 0 if agree == total and not problems else 1


if __name__ == "__main__":
    sys.exit(main())
