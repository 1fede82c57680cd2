"""Blast-radius graph work on synthetic graphs: the closure (``rdeps``) and the "why" paths.

    python -m bench.speed_graph --runs 5                 # this checkout
    python -m bench.speed_graph --runs 5 --old e0730a3   # side by side with selector/graph.py of a commit

Three shapes of 30,000 dependents (``--nodes``): a fan-in (every node depends on the
root), a layered DAG (100 layers, each node on 3 nodes of the layer below) and a chain
(each node on the previous one, ``--chain`` long: its paths hold n*n/2 entries, so the
answer itself is quadratic). ``rdeps`` is all a test selection needs; ``paths_to`` is
what ``blast-radius`` prints. With ``--old``, both versions run round-robin and their
answers are checked to be equal before any time is reported.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import ctxsel.graph as current


def fan_in(mod: ModuleType, n: int) -> tuple[Any, str]:
    g = mod.BuildGraph("bench")
    g.add_node(mod.Node("root", "lib"))
    for i in range(n):
        g.add_node(mod.Node(f"p{i:06d}", "lib"))
        g.add_edge(f"p{i:06d}", "root")
    return g, "root"


def layered(mod: ModuleType, n: int, layers: int = 100, fan: int = 3) -> tuple[Any, str]:
    rng = random.Random(0)
    g = mod.BuildGraph("bench")
    g.add_node(mod.Node("root", "lib"))
    below = ["root"]
    width = max(1, n // layers)
    for layer in range(layers):
        here = [f"l{layer:03d}n{i:05d}" for i in range(width)]
        for node in here:
            g.add_node(mod.Node(node, "lib"))
            for dep in rng.sample(below, min(fan, len(below))):
                g.add_edge(node, dep)
        below = here
    return g, "root"


def chain(mod: ModuleType, n: int) -> tuple[Any, str]:
    g = mod.BuildGraph("bench")
    ids = [f"c{i:06d}" for i in range(n)]
    for node in ids:
        g.add_node(mod.Node(node, "lib"))
    for i in range(1, n):
        g.add_edge(ids[i], ids[i - 1])
    return g, ids[0]


def load_old(rev: str) -> ModuleType:
    """``selector/graph.py`` as committed in ``rev``, importable beside the current one."""
    source = subprocess.run(["git", "show", f"{rev}:selector/graph.py"], capture_output=True, text=True,
                            check=True, cwd=Path(__file__).resolve().parent.parent).stdout
    path = Path(tempfile.mkdtemp()) / "graph_old.py"
    path.write_text(source.replace("from .", "from ctxsel."))
    spec = importlib.util.spec_from_file_location("graph_old", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["graph_old"] = module
    spec.loader.exec_module(module)
    return module


def timed(fn: Callable[[], Any]) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--nodes", type=int, default=30_000)
    ap.add_argument("--chain", type=int, default=8_000)
    ap.add_argument("--old", help="a git revision whose selector/graph.py runs side by side")
    args = ap.parse_args(argv)
    versions = {"now": current}
    if args.old:
        versions[args.old] = load_old(args.old)
    shapes = {"fan-in": lambda m: fan_in(m, args.nodes), "layered": lambda m: layered(m, args.nodes),
              "chain": lambda m: chain(m, args.chain)}
    print("| graph | operation | " + " | ".join(f"{v} (median of {args.runs})" for v in versions) + " |")
    print("|---|---|" + "---|" * len(versions))
    for shape, build in shapes.items():
        graphs = {v: build(m) for v, m in versions.items()}
        answers = {v: (g.rdeps([r]), g.paths_to([r])) for v, (g, r) in graphs.items()}
        first = next(iter(answers.values()))
        assert all(a == first for a in answers.values()), f"{shape}: the versions disagree"
        for op in ("rdeps", "paths_to"):
            times: dict[str, list[float]] = {v: [] for v in versions}
            for _ in range(args.runs):  # round-robin: load drifts over every version alike
                for v, (g, r) in graphs.items():
                    times[v].append(timed(lambda: getattr(g, op)([r])))
            cells = [f"{statistics.median(times[v]):.3f} s" for v in versions]
            print(f"| {shape} ({len(first[0]) - 1:,} dependents) | `{op}` | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
