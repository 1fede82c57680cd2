"""Speed of ``ctxsel index`` and ``ctxsel select`` on a real checkout (whole-process timings).

    python -m bench.select_speed --repo CHECKOUT --seed PATH --query "..." [--runs 5]

Measures, as medians of ``--runs`` whole-process runs (each a fresh ``python -m ctxsel``):

* first index: ``ctxsel index`` after deleting ``.ctxsel/index``;
* re-index after one file changes: append a comment line to the seed, ``ctxsel index``
  (the file is restored afterwards);
* warm select: ``ctxsel select QUERY --seed SEED --budget 4000 --format json`` with the
  index and graph cache already fresh (one warm-up run first).

Prints one JSON object; nothing in the checkout is left changed except ``.ctxsel/``.
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path


def _run(argv: list[str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=1800)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(argv)}\n{proc.stderr}")
    return elapsed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.select_speed", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", type=Path, required=True)
    ap.add_argument("--seed", required=True, help="a repo-relative file; also the file edited for re-index")
    ap.add_argument("--query", default="fix handling of edge cases")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--budget", type=int, default=4000)
    args = ap.parse_args(argv)

    root = args.repo.resolve()
    ctxsel = [sys.executable, "-m", "ctxsel", "--repo", str(root), "--quiet"]
    seed = root / args.seed
    original = seed.read_bytes()

    first = []
    for _ in range(args.runs):
        shutil.rmtree(root / ".ctxsel" / "index", ignore_errors=True)
        first.append(_run(ctxsel + ["index"]))
    files = json.loads(subprocess.run(ctxsel + ["index", "--format", "json"], capture_output=True, text=True,
                                      timeout=600).stdout)

    reindex = []
    try:
        for i in range(args.runs):
            seed.write_bytes(original + f"\n// ctxsel speed probe {i}\n".encode())
            reindex.append(_run(ctxsel + ["index"]))
    finally:
        seed.write_bytes(original)
    _run(ctxsel + ["index"])

    select = ctxsel + ["select", args.query, "--seed", args.seed, "--budget", str(args.budget), "--format", "json"]
    _run(select)  # warm-up: graph cache, co-change cache
    warm = [_run(select) for _ in range(args.runs)]

    def med(xs: list[float]) -> float:
        return round(statistics.median(xs), 2)

    print(json.dumps({
        "repo": str(root), "files": files["files"], "chunks": files["chunks"], "runs": args.runs,
        "first_index_s": med(first), "reindex_one_file_s": med(reindex), "warm_select_s": med(warm),
        "first_index_all": [round(x, 2) for x in first], "reindex_all": [round(x, 2) for x in reindex],
        "warm_select_all": [round(x, 2) for x in warm],
    }, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
