"""Warm ``ctxsel pre-commit`` against each tool's own "affected" command, on one staged change.

    source ~/.cache/ctxsel-oracles/oracle-env.sh
    python -m bench.speed_precommit --kind js    --runs 7    # 1,500-package pnpm/Turborepo workspace
    python -m bench.speed_precommit --kind bazel --runs 7    # 5,000 packages, 20,000 Bazel targets

Each workspace comes from ``bench.js_synth`` / ``bench.bazel_synth`` (deterministic),
is committed to a fresh git repository in a temporary directory, and gets one staged
change to a source file of a low package (about 100 dependents in the JS workspace,
about 6,000 affected targets in the Bazel one). Every number is a
whole process as a git hook runs it. After one warm-up call of each command (which
fills ctxsel's graph cache and starts Bazel's server), the commands run round-robin
``--runs`` times, so machine load drifts over all of them alike; the table reports
each median and min. Before any time is reported, ctxsel's answer is checked against
the tool's: the same affected packages (pnpm, Turborepo) or the same test targets
(Bazel ``rdeps``, ``*_test`` rules minus manual ones).

Bazel is timed warm (a running server, ``--max_idle_secs``), the fastest way a hook
could ask it, and once in ``--batch`` mode (a fresh JVM, what a hook without a server
pays); the server is shut down at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ENV = {
    "pnpm_config_pm_on_fail": "ignore",
    "pnpm_config_update_notifier": "false",
    "TURBO_TELEMETRY_DISABLED": "1",
    "DO_NOT_TRACK": "1",
    "TURBO_NO_UPDATE_NOTIFIER": "1",
}
GIT_ENV = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid"}
ORACLE_PREFIX = Path(os.environ.get("ORACLE_PREFIX", Path.home() / ".cache" / "ctxsel-oracles"))
TIMEOUT = 900


def sh(argv: list[str], cwd: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(argv, cwd=cwd, env={**os.environ, **ENV, **GIT_ENV}, capture_output=True,
                          text=True, timeout=TIMEOUT)
    if check and proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:6])} ... exited {proc.returncode}:\n{proc.stderr[-1500:]}")
    return proc


def ctxsel_cli() -> list[str]:
    """The console script next to this interpreter (a pyenv shim on PATH adds ~0.1 s of bash)."""
    script = Path(sys.executable).with_name("ctxsel")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "ctxsel"]


def commit_all(root: Path) -> None:
    sh(["git", "init", "-q", "-b", "main"], root)
    sh(["git", "add", "-A"], root)
    sh(["git", "commit", "-qm", "synthetic workspace"], root)


def stage_new_file(root: Path, rel: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("// a staged change\n")
    sh(["git", "add", rel], root)


# ---------------------------------------------------------------- JS

def js_case(work: Path, packages: int) -> tuple[Path, dict[str, list[str]], set[str]]:
    from bench.js_synth import generate

    root = work / "js"
    names = generate(root, packages)
    commit_all(root)
    changed = names[len(names) // 20]  # bottom layer: a change with ~100 dependents at 1,500 packages
    stage_new_file(root, f"packages/{changed.split('/')[1]}/src/change.js")  # @synth/p0750 -> packages/p0750
    cli = ctxsel_cli()
    # Each adapter against its own tool (they differ on peer dependencies, which js_synth has).
    answers = {
        "pnpm": {p["name"] for p in json.loads(sh(["pnpm", "--filter", "...[HEAD]", "ls", "--depth", "-1", "--json"], root).stdout)},
        "turbo": {p["name"] for p in json.loads(sh(["turbo", "ls", "--filter=...[HEAD]", "--output=json"], root).stdout)["packages"]["items"]},
    }
    for adapter, affected in answers.items():
        ours = set(sh([*cli, "--repo", str(root), "--adapter", adapter, "blast-radius", "--staged", "--format", "labels"], root).stdout.split())
        if ours != affected:
            raise SystemExit(f"{adapter}: ctxsel and {adapter} disagree: {sorted(ours ^ affected)[:10]}")
    affected = answers["pnpm"]
    cmds = {
        "ctxsel pre-commit (pnpm adapter)": [*cli, "--repo", str(root), "--adapter", "pnpm", "pre-commit", "--format", "command"],
        "ctxsel pre-commit (turbo adapter)": [*cli, "--repo", str(root), "--adapter", "turbo", "pre-commit", "--format", "command"],
        "pnpm --filter '...[HEAD]' ls --depth -1 --json": ["pnpm", "--filter", "...[HEAD]", "ls", "--depth", "-1", "--json"],
        "turbo ls --filter='...[HEAD]' --output=json": ["turbo", "ls", "--filter=...[HEAD]", "--output=json"],
        "turbo run test --filter='...[HEAD]' --dry=json": ["turbo", "run", "test", "--filter=...[HEAD]", "--dry=json"],
    }
    return root, cmds, affected


# ---------------------------------------------------------------- Bazel

def bazel_startup(server: bool) -> list[str]:
    bazel = shutil.which("bazel-4")
    if not bazel:
        raise SystemExit("bazel-4 not found (run ../shared/oracles/install.sh)")
    mode = ["--max_idle_secs=300"] if server else ["--batch"]
    return [bazel, *mode, "--nohome_rc", f"--output_user_root={ORACLE_PREFIX / 'state' / 'bazel4-root'}",
            f"--bazelrc={ORACLE_PREFIX / 'oracle.bazelrc'}"]


def bazel_case(work: Path, packages: int) -> tuple[Path, dict[str, list[str]], set[str]]:
    from bench.bazel_synth import generate, package_path

    root = work / "bazel"
    targets = generate(root, packages)
    commit_all(root)
    changed = f"{package_path(packages // 5)}/lib.cc"  # ~6,000 affected targets at 5,000 packages
    (root / changed).write_text((root / changed).read_text() + "// a staged change\n")
    sh(["git", "add", changed], root)
    expr = (f'let t = kind(".*_test rule", rdeps(//..., set({changed}))) '
            'in $t except attr(tags, "\\bmanual\\b", $t)')
    query = ["query", expr, "--noshow_progress"]
    want = set(sh([*bazel_startup(True), *query], root).stdout.split())
    cli = ctxsel_cli()
    got = sh([*cli, "--repo", str(root), "--adapter", "bazel", "--source", "static", "pre-commit"], root).stdout.splitlines()
    tests = set(got[:-2]) if len(got) >= 2 else set()
    if tests != want or not want:
        raise SystemExit(f"ctxsel and bazel disagree on the tests: {sorted(tests ^ want)[:10]} ({len(want)} wanted)")
    print(f"bazel workspace: {targets} targets, change {changed}: {len(want)} affected tests", file=sys.stderr)
    cmds = {
        "ctxsel pre-commit (bazel adapter, static)": [*cli, "--repo", str(root), "--adapter", "bazel", "--source", "static", "pre-commit", "--format", "command"],
        "bazel query (server, warm): affected tests": [*bazel_startup(True), *query],
    }
    return root, cmds, want


def bazel_batch_once(root: Path, changed_tests_expr: list[str]) -> float:
    start = time.perf_counter()
    sh([*bazel_startup(False), *changed_tests_expr], root)
    return time.perf_counter() - start


# ---------------------------------------------------------------- timing

def time_round_robin(cmds: dict[str, list[str]], cwd: Path, runs: int) -> dict[str, list[float]]:
    for argv in cmds.values():  # warm-up: fills ctxsel's cache, starts servers
        sh(argv, cwd)
    times: dict[str, list[float]] = {name: [] for name in cmds}
    for _ in range(runs):
        for name, argv in cmds.items():
            start = time.perf_counter()
            sh(argv, cwd)
            times[name].append(time.perf_counter() - start)
    return times


def report(title: str, times: dict[str, list[float]], extra: dict[str, float] | None = None) -> None:
    base = statistics.median(next(iter(times.values())))
    print(f"\n{title}\n")
    print("| command | median (s) | min (s) | vs first row |")
    print("|---|---|---|---|")
    for name, ts in times.items():
        med = statistics.median(ts)
        print(f"| `{name}` | {med:.3f} | {min(ts):.3f} | {med / base:.1f}x |")
    for name, t in (extra or {}).items():
        print(f"| `{name}` (1 run) | {t:.3f} | {t:.3f} | {t / base:.1f}x |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kind", choices=("js", "bazel", "all"), default="all")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--js-packages", type=int, default=1500)
    ap.add_argument("--bazel-packages", type=int, default=5000, help="4 targets each (default: 20,000 targets)")
    ap.add_argument("--keep", type=Path, help="build the workspaces here and keep them (default: a temporary directory)")
    args = ap.parse_args(argv)
    work = args.keep or Path(tempfile.mkdtemp(prefix="ctxsel-precommit-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        if args.kind in ("js", "all"):
            root, cmds, affected = js_case(work, args.js_packages)
            times = time_round_robin(cmds, root, args.runs)
            report(f"JS: {args.js_packages} packages, {len(affected)} affected (pnpm's count) by the staged file, "
                   f"{args.runs} runs", times)
        if args.kind in ("bazel", "all"):
            root, cmds, tests = bazel_case(work, args.bazel_packages)
            try:
                times = time_round_robin(cmds, root, args.runs)
                query = cmds["bazel query (server, warm): affected tests"][len(bazel_startup(True)):]
                batch = {"bazel --batch query: affected tests": bazel_batch_once(root, query)}
                report(f"Bazel: {args.bazel_packages * 4} targets, {len(tests)} affected tests, {args.runs} runs",
                       times, batch)
            finally:
                subprocess.run([*bazel_startup(True), "shutdown"], cwd=root, capture_output=True, timeout=120)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
