"""Warm ``ctxsel blast-radius`` against ``turbo ls --filter`` and ``pnpm --filter`` on one workspace.

    source ~/.cache/ctxsel-oracles/oracle-env.sh
    python -m bench.js_synth /tmp/synth --packages 1500
    python -m bench.speed_js /tmp/synth --package @synth/p0100 --runs 11

Every number is a whole process, as a user or a pre-commit hook runs it: after one
warm-up call of each command (which also fills ctxsel's graph cache), the commands run
round-robin ``--runs`` times, so machine load drifts over all of them alike, and the
table reports each median and its ratio to ctxsel's from the same run. The answers
are checked to be the same set of packages before any time is reported.
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

from ctxsel.adapters.js.pnpm import PNPM_ENV
from ctxsel.adapters.js.turbo import turbo_env

ENV = {**PNPM_ENV, **turbo_env()}  # exactly what ctxsel's tool mode sets
API_SNIPPET = (
    "import sys; from ctxsel.workspace import Workspace; "
    "print('\\n'.join(Workspace.open(sys.argv[1], adapter=sys.argv[2]).blast_radius([sys.argv[3]]).ids))"
)


def commands(root: Path, package: str) -> dict[str, list[str]]:
    ctxsel = shutil.which("ctxsel")
    cli = [ctxsel] if ctxsel else [sys.executable, "-m", "ctxsel"]
    return {
        "ctxsel blast-radius (turbo adapter)": [*cli, "--repo", str(root), "--adapter", "turbo", "blast-radius", package, "--format", "labels"],
        "ctxsel blast-radius (pnpm adapter)": [*cli, "--repo", str(root), "--adapter", "pnpm", "blast-radius", package, "--format", "labels"],
        "python -c Workspace.open(...).blast_radius (turbo)": [sys.executable, "-c", API_SNIPPET, str(root), "turbo", package],
        "turbo ls --filter=...X --output=json": ["turbo", "ls", f"--filter=...{package}", "--output=json"],
        "pnpm --filter ...X ls --depth -1 --json": ["pnpm", "--filter", f"...{package}", "ls", "--depth", "-1", "--json"],
        # the floor any Python CLI pays on this machine before its first line runs
        "python -c pass (interpreter start)": [sys.executable, "-c", "pass"],
        # what the CLI framework alone costs before ctxsel's own code
        "python -c 'import typer.main'": [sys.executable, "-c", "import typer.main"],
    }


def run_once(argv: list[str], cwd: Path) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env={**os.environ, **ENV}, capture_output=True, text=True, timeout=300)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{argv[0]} failed ({proc.returncode}): {proc.stderr[-500:]}")
    return elapsed, proc.stdout


def answer_set(name: str, stdout: str) -> set[str]:
    if name.startswith("turbo"):
        return {p["name"] for p in json.loads(stdout)["packages"]["items"]}
    if name.startswith("pnpm"):
        return {p["name"] for p in json.loads(stdout)}
    if name.startswith(("python -c pass", "python -c 'import")):
        return set()
    return {line for line in stdout.splitlines() if line}


def measure(root: Path, package: str, runs: int) -> dict[str, list[float]]:
    cmds = commands(root, package)
    answers = {name: answer_set(name, run_once(argv, root)[1]) for name, argv in cmds.items()}  # warm-up
    turbo_answer = answers["turbo ls --filter=...X --output=json"]
    for name in ("ctxsel blast-radius (turbo adapter)", "python -c Workspace.open(...).blast_radius (turbo)"):
        if answers[name] != turbo_answer:
            raise SystemExit(f"{name} disagrees with turbo: {sorted(answers[name] ^ turbo_answer)[:10]}")
    if answers["ctxsel blast-radius (pnpm adapter)"] != answers["pnpm --filter ...X ls --depth -1 --json"]:
        raise SystemExit("ctxsel (pnpm adapter) disagrees with pnpm")
    times: dict[str, list[float]] = {name: [] for name in cmds}
    for _ in range(runs):
        for name, argv in cmds.items():
            times[name].append(run_once(argv, root)[0])
    print(f"answer: {len(turbo_answer)} packages (turbo), {len(answers['pnpm --filter ...X ls --depth -1 --json'])} (pnpm)")
    return times


def table(times: dict[str, list[float]]) -> str:
    medians = {name: statistics.median(ts) for name, ts in times.items()}
    base = medians["ctxsel blast-radius (turbo adapter)"]
    rows = ["| command | median (s) | min (s) | median / ctxsel (turbo adapter) |", "|---|---|---|---|"]
    for name, ts in times.items():
        rows.append(f"| `{name}` | {medians[name]:.3f} | {min(ts):.3f} | {medians[name] / base:.2f} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Warm ctxsel vs turbo/pnpm filter timings.")
    parser.add_argument("root", type=Path)
    parser.add_argument("--package", default="@synth/p0100")
    parser.add_argument("--runs", type=int, default=11)
    args = parser.parse_args(argv)
    for tool in ("turbo", "pnpm"):
        if not shutil.which(tool):
            raise SystemExit(f"{tool} not on PATH (source ~/.cache/ctxsel-oracles/oracle-env.sh)")
    times = measure(args.root.resolve(), args.package, args.runs)
    print(table(times))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
