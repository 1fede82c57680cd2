"""How fast ctxsel answers a Bazel blast radius, next to ``bazel query`` on the same workspace.

    python -m bench.speed_bazel [--workspace DIR] [--packages 5000] [--runs 5] [--bazel-runs 3] [--bazel-server]

Generates the synthetic workspace (``bench.bazel_synth``) unless ``--workspace`` is
given, then reports medians of: the static load (parse every BUILD file, in
process), one blast radius on the loaded graph, the whole ``ctxsel blast-radius``
process without a cache (cold) and with it (warm), and ``bazel query
'rdeps(//..., X)'`` in ``--batch`` mode (what a script or hook without a running
server pays) and, with ``--bazel-server``, against a warm server. Bazel is the
oracle wrapper (``oracle-bazel4``, offline stubs) or ``$CTXSEL_BAZEL``.
It also checks that both give the same set of labels.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
PREFIX = Path(os.environ.get("ORACLE_PREFIX", Path.home() / ".cache" / "ctxsel-oracles"))
TARGET = "//g000/p00000:lib"  # the synthetic "core": every library depends on it


def timed(fn: Callable[[], object], runs: int) -> tuple[float, float, float, object]:
    """(median, min, max) seconds over ``runs`` calls, and the last result."""
    times: list[float] = []
    result: object = None
    for _ in range(runs):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), min(times), max(times), result


def run(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=1800, env=env)
    if proc.returncode != 0:
        raise SystemExit(f"{argv} exited {proc.returncode}: {proc.stderr[-800:]}")
    return proc.stdout


def bazel_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{PREFIX / 'bin'}:{env.get('PATH', '')}"
    return env


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workspace", type=Path)
    ap.add_argument("--packages", type=int, default=5000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--bazel-runs", type=int, default=3)
    ap.add_argument("--bazel-server", action="store_true", help="also time a warm Bazel server")
    ap.add_argument("--target", default=TARGET)
    args = ap.parse_args(argv)

    from bench.bazel_synth import generate
    from ctxsel.adapters.bazel import BazelAdapter
    from ctxsel.adapters.base import AdapterOptions
    from ctxsel.adapters.bazel.static import StaticLoader
    from ctxsel.cache import InputTracker
    from ctxsel.workspace import Workspace

    tmp = None
    ws_dir = args.workspace
    if ws_dir is None:
        tmp = Path(tempfile.mkdtemp(prefix="ctxsel-bazel-bench-"))
        ws_dir = tmp / "synth"
        generate(ws_dir, args.packages)
    ws_dir = ws_dir.resolve()
    rows: list[tuple[str, float, float, float]] = []

    med, lo, hi, graph = timed(lambda: StaticLoader(ws_dir, InputTracker(ws_dir)).build(), max(1, args.runs // 2))
    rows.append(("static load (parse every BUILD/.bzl, in process)", med, lo, hi))
    n_targets = sum(1 for n in graph.nodes() if not n.external)  # type: ignore[union-attr]

    adapter = BazelAdapter(ws_dir, AdapterOptions(source="static"))
    ws = Workspace(ws_dir, adapter, graph)  # type: ignore[arg-type]
    med, lo, hi, radius = timed(lambda: ws.blast_radius([args.target]), args.runs * 4)
    rows.append(("blast radius on the loaded graph", med, lo, hi))
    ours = set(radius.ids)  # type: ignore[union-attr]

    cache = ws_dir / ".ctxsel" / "cache"
    cli = [sys.executable, "-m", "ctxsel", "--repo", str(ws_dir), "--source", "static", "blast-radius", args.target, "--format", "labels"]

    def cold() -> str:
        shutil.rmtree(cache, ignore_errors=True)
        return run(cli, ROOT)

    med, lo, hi, _ = timed(cold, max(1, args.runs // 2))
    rows.append(("`ctxsel blast-radius` process, cold (no cache)", med, lo, hi))
    run(cli, ROOT)
    med, lo, hi, out = timed(lambda: run(cli, ROOT), args.runs)
    rows.append(("`ctxsel blast-radius` process, warm (cached graph)", med, lo, hi))
    warm = med
    assert set(str(out).split()) == ours

    bazel = os.environ.get("CTXSEL_BAZEL") or shutil.which("oracle-bazel4", path=bazel_env()["PATH"])
    bazel_batch = None
    if bazel and args.bazel_runs > 0:
        query = [bazel, "query", f"rdeps(//..., {args.target})", "--noshow_progress"]
        med, lo, hi, out = timed(lambda: run(query, ws_dir, bazel_env()), args.bazel_runs)
        rows.append(("`bazel query 'rdeps(//..., X)'` --batch (oracle-bazel4)", med, lo, hi))
        bazel_batch = med
        same = set(str(out).split()) == ours
        print(f"bazel and ctxsel agree on the {len(ours)} labels: {same}")
        if args.bazel_server:
            server = ["bazel-4", "--nohome_rc", f"--output_user_root={PREFIX / 'state' / 'bazel4-root'}",
                      f"--bazelrc={PREFIX / 'oracle.bazelrc'}", "--max_idle_secs=120"]
            squery = [*server, "query", f"rdeps(//..., {args.target})", "--noshow_progress"]
            try:
                med, lo, hi, _ = timed(lambda: run(squery, ws_dir, bazel_env()), 1)
                rows.append(("`bazel query` server, first call", med, lo, hi))
                med, lo, hi, _ = timed(lambda: run(squery, ws_dir, bazel_env()), args.bazel_runs)
                rows.append(("`bazel query` server, warm", med, lo, hi))
            finally:
                subprocess.run([*server, "shutdown"], cwd=ws_dir, capture_output=True, timeout=300)

    print(f"\nworkspace: {ws_dir} ({n_targets} rule targets), X = {args.target} ({len(ours)} targets in its blast radius)\n")
    print("| measurement | median (s) | min (s) | max (s) |")
    print("|---|---|---|---|")
    for name, med, lo, hi in rows:
        print(f"| {name} | {med:.3f} | {lo:.3f} | {hi:.3f} |")
    if bazel_batch:
        print(f"\nwarm ctxsel is {bazel_batch / warm:.0f}x faster than bazel query --batch")
    if tmp is not None:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
