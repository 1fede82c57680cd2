"""``ctxsel blast-radius`` end to end on synthetic pnpm workspaces: each ``--format``, with and without ``--limit``.

    python -m bench.speed_output --runs 5                  # this checkout
    python -m bench.speed_output --runs 5 --old 2a5a40f    # side by side with the ctxsel of a commit

Three workspaces (``--dir``, kept between runs: the first run writes them): a fan-in
(``--nodes`` packages all depending on one), ``bench.js_synth``'s layered monorepo
(``--layered`` packages, asked about its most depended-on package) and a chain
(``--chain`` long: its "why" paths hold n*n/2 entries). Each case is one whole CLI
process, what a pre-commit hook pays; the graph comes from the cache (a warm-up run
per version fills it). With ``--old``, that commit's ``selector/`` and ``adapters/``
are unpacked beside this checkout and both run round-robin; their outputs are checked
to be byte-identical before any time is reported. A second table times the JSON
rendering alone (``json.dumps(indent=2)`` against ``render.pretty_json``).
"""

from __future__ import annotations

import argparse
import atexit
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from bench.js_synth import generate as js_synth

REPO = Path(__file__).resolve().parent.parent
CASES: dict[str, list[str]] = {
    "labels": ["--format", "labels"],
    "text": ["--format", "text"],
    "json": ["--format", "json"],
    "text --limit 200": ["--format", "text", "--limit", "200"],
    "json --limit 200": ["--format", "json", "--limit", "200"],
}


def write_pnpm(out: Path, deps: dict[str, list[str]]) -> None:
    """A pnpm workspace of ``{package: [its workspace dependencies]}`` (written once; reused when present)."""
    if (out / "pnpm-workspace.yaml").is_file():
        return
    out.mkdir(parents=True, exist_ok=True)
    for i, (name, needs) in enumerate(deps.items()):
        d = out / "packages" / f"p{i:06d}"
        d.mkdir(parents=True, exist_ok=True)
        manifest = {"name": name, "version": "1.0.0", "private": True, "dependencies": {n: "workspace:*" for n in needs}}
        (d / "package.json").write_text(json.dumps(manifest))
    (out / "package.json").write_text(json.dumps({"name": "bench-root", "private": True}))
    (out / "pnpm-workspace.yaml").write_text("packages:\n  - 'packages/*'\n")


def workspaces(base: Path, nodes: int, layered: int, chain: int) -> dict[str, tuple[Path, str]]:
    """{shape: (workspace, the package asked about)}."""
    fan = {"@b/root": [], **{f"@b/p{i:06d}": ["@b/root"] for i in range(nodes)}}
    write_pnpm(base / f"fan-in-{nodes}", fan)
    names = [f"@b/c{i:06d}" for i in range(chain)]
    write_pnpm(base / f"chain-{chain}", {n: names[i - 1:i] for i, n in enumerate(names)})
    synth = base / f"layered-{layered}"
    if not (synth / "pnpm-workspace.yaml").is_file():
        js_synth(synth, layered)
    return {f"fan-in ({nodes:,})": (base / f"fan-in-{nodes}", "@b/root"),
            f"layered ({layered:,}, js_synth)": (synth, "@synth/p0000"),
            f"chain ({chain:,})": (base / f"chain-{chain}", names[0])}


def unpack(rev: str) -> Path:
    """``selector/`` and ``adapters/`` of ``rev`` as an importable ``ctxsel`` package; returns its PYTHONPATH entry."""
    blob = subprocess.run(["git", "archive", rev, "selector", "adapters"], capture_output=True, check=True, cwd=REPO).stdout
    top = Path(tempfile.mkdtemp(prefix="ctxsel-old-"))
    atexit.register(shutil.rmtree, top, True)
    with tarfile.open(fileobj=io.BytesIO(blob)) as tar:
        tar.extractall(top / "src")
    (top / "src" / "selector").rename(top / "ctxsel")
    (top / "src" / "adapters").rename(top / "ctxsel" / "adapters")
    return top


def cli(pythonpath: Path | None, workspace: Path, args: list[str]) -> tuple[float, bytes]:
    """(seconds, stdout) of one ``ctxsel`` process; ``pythonpath`` puts an unpacked version first."""
    env = dict(os.environ)
    if pythonpath is not None:  # a PYTHONPATH entry comes before the editable install's finder
        env["PYTHONPATH"] = str(pythonpath)
    argv = [sys.executable, "-m", "ctxsel", "--repo", str(workspace), "--adapter", "pnpm", "--source", "static",
            "--quiet", "blast-radius", *args]
    started = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, env=env, cwd=workspace)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {proc.stderr.decode(errors='replace')}")
    return elapsed, proc.stdout


def json_rendering(runs: int, nodes: int) -> None:
    """The JSON layout alone, on a fan-in answer of ``nodes`` rows."""
    from ctxsel.render import _default, pretty_json

    body = {"schema_version": 1, "adapter": "pnpm", "roots": ["@b/root"],
            "affected": [{"id": f"@b/p{i:06d}", "kind": "package", "distance": 1, "path": [f"@b/p{i:06d}", "@b/root"]}
                         for i in range(nodes)]}
    ways = {"json.dumps(indent=2)": lambda: json.dumps(body, indent=2, allow_nan=False, default=_default),
            "render.pretty_json": lambda: pretty_json(body, allow_nan=False, default=_default)}
    texts = {name: way() for name, way in ways.items()}
    assert len(set(texts.values())) == 1, "pretty_json differs from json.dumps"
    times: dict[str, list[float]] = {name: [] for name in ways}
    for _ in range(runs):
        for name, way in ways.items():
            started = time.perf_counter()
            way()
            times[name].append(time.perf_counter() - started)
    print(f"\n| JSON of a {nodes:,}-row answer ({len(texts['render.pretty_json']):,} bytes) | median of {runs} |")
    print("|---|---|")
    for name in ways:
        print(f"| `{name}` | {statistics.median(times[name]):.3f} s |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--nodes", type=int, default=30_000, help="fan-in dependents")
    ap.add_argument("--layered", type=int, default=10_000, help="js_synth packages")
    ap.add_argument("--chain", type=int, default=2_000)
    ap.add_argument("--old", help="a git revision whose ctxsel runs side by side")
    ap.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "ctxsel-bench-output")
    ap.add_argument("--cases", default=",".join(CASES), help=f"comma-separated, of: {', '.join(CASES)}")
    args = ap.parse_args(argv)
    versions: dict[str, Path | None] = {"now": None}
    if args.old:
        versions[args.old] = unpack(args.old)
    cases = {c: CASES[c] for c in args.cases.split(",")}
    print("| workspace | blast-radius | " + " | ".join(f"{v} (median of {args.runs})" for v in versions) + " |")
    print("|---|---|" + "---|" * len(versions))
    for shape, (ws, target) in workspaces(args.dir, args.nodes, args.layered, args.chain).items():
        for v, path in versions.items():
            cli(path, ws, [target, "--format", "labels"])  # warm-up: builds and caches this version's graph
        for case, flags in cases.items():
            outputs = {v: cli(path, ws, [target, *flags])[1] for v, path in versions.items()}
            assert len(set(outputs.values())) == 1, f"{shape} {case}: the versions print different output"
            times: dict[str, list[float]] = {v: [] for v in versions}
            for _ in range(args.runs):  # round-robin: load drifts over every version alike
                for v, path in versions.items():
                    times[v].append(cli(path, ws, [target, *flags])[0])
            cells = [f"{statistics.median(times[v]):.2f} s" for v in versions]
            print(f"| {shape} | `{case}` | " + " | ".join(cells) + " |", flush=True)
    json_rendering(args.runs, args.nodes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
