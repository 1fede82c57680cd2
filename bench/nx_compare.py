"""Compare ctxsel's Nx static graph with ``nx graph`` on a real workspace.

Usage: python bench/nx_compare.py DIR [--prepare] [--time PROJECT FILE]

``--prepare`` first makes DIR runnable offline the way the oracle README describes:
it deletes the lockfiles and the ``plugins`` list of nx.json (Nx needs installed
plugins and ``node_modules/.modules.yaml`` otherwise). Only ever point it at a scratch
copy. Prints, for every project, whether ctxsel's dependents set equals the one
``nx graph`` implies, and the edges on which the two graphs differ. ``--time`` also
times (min/median) a cold and a warm ``ctxsel blast-radius PROJECT`` against
``nx show projects --affected --files=FILE``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from ctxsel.adapters.base import AdapterOptions
from ctxsel.adapters.js.nx import NxAdapter, node_path_env
from ctxsel.cache import InputTracker

LOCKFILES = ("pnpm-lock.yaml", "package-lock.json", "yarn.lock", "bun.lockb", "bun.lock")  # nx runs `bun` on bun.lockb


def prepare(root: Path) -> None:
    for name in LOCKFILES:
        (root / name).unlink(missing_ok=True)
    nx_json = root / "nx.json"
    data = json.loads(nx_json.read_text())
    data.pop("plugins", None)
    nx_json.write_text(json.dumps(data, indent=2))


def edge_set(graph) -> set[tuple[str, str]]:
    return {(s, d) for s, d, _ in graph.edges()}


def timed(argv: list[str], cwd: Path, runs: int, env: dict[str, str] | None = None) -> tuple[float, float]:
    """(min, median) wall time of ``argv`` over ``runs`` runs."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=600, env=env)
        times.append(time.perf_counter() - start)
        if proc.returncode != 0:
            raise SystemExit(f"{argv} failed: {proc.stderr[-500:]}")
    return min(times), statistics.median(times)


def time_queries(root: Path, project: str, file: str, runs: int = 5) -> None:
    ctxsel = [sys.executable, "-m", "ctxsel", "--adapter", "nx", "--source", "static"]
    query = ["blast-radius", project, "--format", "labels"]
    cold = timed(ctxsel + ["--no-cache"] + query, root, runs)
    timed(ctxsel + query, root, 1)  # fill the cache
    warm = timed(ctxsel + query, root, runs)
    tool = shutil.which("nx")
    if tool is None:
        raise SystemExit("nx is not on PATH (source ~/.cache/ctxsel-oracles/oracle-env.sh)")
    env = {**os.environ, "NX_DAEMON": "false", **node_path_env(tool, root, os.environ.get("NODE_PATH"))}
    nx = timed([tool, "show", "projects", "--affected", f"--files={file}", "--json"], root, runs, env)
    for label, (low, mid) in (("ctxsel cold (--no-cache)", cold), ("ctxsel warm", warm), ("nx show projects --affected", nx)):
        print(f"  {label}: min {low:.2f} s, median {mid:.2f} s ({runs} runs)")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("root", type=Path)
    parser.add_argument("--prepare", action="store_true")
    parser.add_argument("--time", nargs=2, metavar=("PROJECT", "FILE"))
    args = parser.parse_args()
    root = args.root.resolve()
    if args.prepare:
        prepare(root)
    if args.time:
        time_queries(root, *args.time)
    start = time.perf_counter()
    static_adapter = NxAdapter(root, AdapterOptions(source="static"))
    static = static_adapter.load(InputTracker(root))
    static_s = time.perf_counter() - start
    start = time.perf_counter()
    tool = NxAdapter(root, AdapterOptions(source="tool")).load(InputTracker(root))
    tool_s = time.perf_counter() - start
    print(f"{root.name}: {len(static)} projects static, {len(tool)} nx; static {static_s:.2f} s, nx graph {tool_s:.2f} s")
    for w in static_adapter.warnings:
        print("  warning:", w)
    only_static = sorted(set(static) - set(tool))
    only_tool = sorted(set(tool) - set(static))
    if only_static or only_tool:
        print("  projects only ctxsel sees:", only_static, "only nx sees:", only_tool)
    s_edges, t_edges = edge_set(static), edge_set(tool)
    print(f"  edges: {len(s_edges)} static, {len(t_edges)} nx, {len(s_edges & t_edges)} shared")
    for s, d in sorted(s_edges - t_edges):
        print(f"  + only ctxsel: {s} -> {d} {sorted(static.edge_types(s, d))}")
    for s, d in sorted(t_edges - s_edges):
        print(f"  - only nx:     {s} -> {d} {sorted(tool.edge_types(s, d))}")
    common = sorted(set(static) & set(tool))
    agree = sum(1 for p in common if set(static.rdeps([p])) == set(tool.rdeps([p])))
    print(f"  dependents sets equal: {agree}/{len(common)}")
    for p in common:
        a, b = set(static.rdeps([p])), set(tool.rdeps([p]))
        if a != b:
            print(f"    {p}: only ctxsel {sorted(a - b)} only nx {sorted(b - a)}")
    return 0 if agree == len(common) and not only_static and not only_tool else 1


if __name__ == "__main__":
    raise SystemExit(main())
