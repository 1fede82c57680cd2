"""The static graph load of one real repository, side by side with the tool that answers the same.

    source ~/.cache/ctxsel-oracles/oracle-env.sh
    python -m bench.load_speed /path/to/repo --adapter nx --runs 3
    python -m bench.load_speed /path/to/repo --adapter nx --runs 3 --old-scanner /tmp/nx_imports_old.py

ctxsel's number is what a pre-commit hook pays: a whole ``ctxsel --source static graph``
process, cold (``--no-cache``: every manifest parsed and every source file scanned for
imports) and warm (graph cache filled by the warm-up). The tool's is the command that reads
the same graph: ``nx graph --file=...`` (cold: ``NX_CACHE_PROJECT_GRAPH=false``, as the
oracles run it; warm: its project-graph cache on, filled by the warm-up), ``pnpm ls -r --depth
-1 --json`` or ``turbo ls --output=json``. All commands run round-robin ``--runs`` times after
one warm-up each, so load on a shared machine drifts over all of them alike; the table gives
medians and each median's ratio to ctxsel's cold load.

``--old-scanner FILE`` adds ctxsel with ``adapters/js/nx_imports.py`` replaced by FILE (a
saved earlier version), for before/after figures from one run. Before any time is reported,
the project names (and, for Nx, the project edges) of every variant are compared with the
tool's; a difference is printed, not hidden. Run it on a scratch copy: ctxsel writes
``.ctxsel/`` into the repository and the warm Nx run its workspace data under a temp dir.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from ctxsel.adapters.js.nx import node_path_env
from ctxsel.adapters.js.pnpm import PNPM_ENV
from ctxsel.adapters.js.turbo import turbo_env

# Run the CLI in a fresh interpreter, optionally with another import scanner module first.
CLI_PRELUDE = (
    "import sys, importlib.util\n"
    "if sys.argv[1]:\n"
    "    spec = importlib.util.spec_from_file_location('ctxsel.adapters.js.nx_imports', sys.argv[1])\n"
    "    mod = importlib.util.module_from_spec(spec); sys.modules[spec.name] = mod; spec.loader.exec_module(mod)\n"
    "    import ctxsel.adapters.js as js; js.nx_imports = mod\n"
    "from ctxsel.cli import run\n"
    "sys.argv = ['ctxsel', *sys.argv[2:]]\n"
    "run()\n"
)
EDGE = re.compile(r'^\s*"([^"]+)" -> "([^"]+)"', re.M)
NODE = re.compile(r'^\s*"([^"]+)" \[', re.M)


@dataclass
class Command:
    """One timed command and how to read its answer (project names, project edges)."""

    name: str
    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    times: list[float] = field(default_factory=list)


def ctxsel_command(name: str, root: Path, adapter: str, scanner: str, cold: bool) -> Command:
    argv = [sys.executable, "-c", CLI_PRELUDE, scanner, "--repo", str(root), "--adapter", adapter,
            "--source", "static", "-q", *(["--no-cache"] if cold else []), "graph", "--format", "dot"]
    return Command(name, argv)


def tool_commands(root: Path, adapter: str, scratch: Path) -> list[Command]:
    if adapter == "nx":
        nx = shutil.which("nx")
        if nx is None:
            raise SystemExit("nx not on PATH (source ~/.cache/ctxsel-oracles/oracle-env.sh)")
        base = {"NX_DAEMON": "false", "NX_WORKSPACE_ROOT_PATH": str(root), **node_path_env(nx, root, None)}
        return [
            Command("nx graph (cold: no project-graph cache)", [nx, "graph", f"--file={scratch / 'cold.json'}"],
                    {**base, "NX_CACHE_PROJECT_GRAPH": "false", "NX_WORKSPACE_DATA_DIRECTORY": str(scratch / "cold-wd")}),
            Command("nx graph (warm: project-graph cache)", [nx, "graph", f"--file={scratch / 'warm.json'}"],
                    {**base, "NX_CACHE_PROJECT_GRAPH": "true", "NX_WORKSPACE_DATA_DIRECTORY": str(scratch / "warm-wd")}),
        ]
    if adapter == "pnpm":
        return [Command("pnpm ls -r --depth -1 --json", ["pnpm", "ls", "-r", "--depth", "-1", "--json"], dict(PNPM_ENV))]
    if adapter == "turbo":
        return [Command("turbo ls --output=json", ["turbo", "ls", "--output=json"], turbo_env())]
    raise SystemExit(f"--adapter {adapter}: use nx, pnpm or turbo (Bazel: python -m bench.speed_bazel)")


def run_once(cmd: Command, root: Path) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run(cmd.argv, cwd=root, env={**os.environ, **cmd.env}, capture_output=True, text=True, timeout=1800)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{cmd.name} failed ({proc.returncode}): {proc.stderr[-800:]}")
    return elapsed, proc.stdout


def answer(cmd: Command, stdout: str, scratch: Path) -> tuple[frozenset[str], frozenset[tuple[str, str]] | None]:
    """(project names, project edges or None when the command does not give edges)."""
    if cmd.name.startswith("nx graph"):
        graph = json.loads((scratch / ("cold.json" if "cold" in cmd.name else "warm.json")).read_text())["graph"]
        edges = {(s, d["target"]) for s, deps in graph["dependencies"].items() for d in deps if not d["target"].startswith("npm:")}
        return frozenset(graph["nodes"]), frozenset(edges)
    if cmd.name.startswith("pnpm"):
        return frozenset(p["name"] for p in json.loads(stdout) if p.get("name")), None
    if cmd.name.startswith("turbo"):
        return frozenset(p["name"] for p in json.loads(stdout)["packages"]["items"]), None
    return frozenset(NODE.findall(stdout)), frozenset(EDGE.findall(stdout))


def measure(root: Path, adapter: str, runs: int, old_scanner: str | None) -> list[Command]:
    scratch = Path(tempfile.mkdtemp(prefix="ctxsel-load-speed-"))
    try:
        cmds = [ctxsel_command("ctxsel graph, cold (--no-cache)", root, adapter, "", True),
                ctxsel_command("ctxsel graph, warm (graph cache)", root, adapter, "", False)]
        if old_scanner:
            cmds.append(ctxsel_command("ctxsel graph, cold, --old-scanner", root, adapter, str(Path(old_scanner).resolve()), True))
        cmds += tool_commands(root, adapter, scratch)
        answers = {}
        for cmd in cmds:  # warm-up, and the answers compared below
            answers[cmd.name] = answer(cmd, run_once(cmd, root)[1], scratch)
        reference = answers[cmds[-1].name]
        for name, (nodes, edges) in answers.items():
            if nodes != reference[0]:
                print(f"note: {name}: projects differ from the tool's: {sorted(nodes ^ reference[0])[:8]}")
            elif edges is not None and reference[1] is not None and edges != reference[1]:
                print(f"note: {name}: {len(edges ^ reference[1])} edges differ from the tool's: {sorted(edges ^ reference[1])[:5]}")
        print(f"answer: {len(reference[0])} projects" + (f", {len(reference[1])} edges" if reference[1] is not None else ""))
        for _ in range(runs):
            for cmd in cmds:
                cmd.times.append(run_once(cmd, root)[0])
        return cmds
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def table(cmds: list[Command]) -> str:
    base = statistics.median(cmds[0].times)
    rows = ["| command | median (s) | min (s) | max (s) | median / ctxsel cold |", "|---|---|---|---|---|"]
    for cmd in cmds:
        median = statistics.median(cmd.times)
        rows.append(f"| {cmd.name} | {median:.2f} | {min(cmd.times):.2f} | {max(cmd.times):.2f} | {median / base:.2f} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="ctxsel's static graph load vs the real tool on one repository.")
    parser.add_argument("root", type=Path)
    parser.add_argument("--adapter", default="nx", choices=("nx", "pnpm", "turbo"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--old-scanner", help="an earlier adapters/js/nx_imports.py, timed as a third ctxsel variant")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    if not root.is_dir():
        parser.error(f"{root}: not a directory")
    cmds = measure(root, args.adapter, args.runs, args.old_scanner)
    print(f"{root.name}: {args.runs} runs each, round-robin; load average at the end {os.getloadavg()[0]:.1f}")
    print(table(cmds))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
