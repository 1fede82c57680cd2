"""Sweep ``select`` ranking weights on the co-change cases, in process, several configs per checkout.

    python -m bench.select_sweep --repos vuejs/core,buildbarn/bb-storage --sample 10 \\
        --configs '{"default": {}, "more-history": {"cochange": 1.5}}' --budgets 4000,8000

For tuning only: the protocol's official numbers come from ``python -m bench.cochange``
(one whole-process CLI call per budget). This runner materialises each case's parent
once (``bench.materialize.Checkout``), then calls ``ctxsel.select.select`` for every
config and budget, so a sweep costs one index refresh per case instead of one per call.
Cases, seeds and scoring are the protocol's (``bench.protocol``, ``bench.metrics``).
Prints per-repo means and the mean over repos next to the best baseline on the same
cases (from ``sample-30.jsonl``, so ``--sample`` must be at most 30).
"""
from __future__ import annotations

import argparse
import collections
import json
import sys
import time
from pathlib import Path

from bench import ctxsel_method, protocol
from bench.materialize import Checkout, find_mirror, work_dir
from bench.metrics import CaseTruth, score

BASELINES = ("bm25-file", "bm25-chunk", "bm25-chunk+seed", "random-same-package")


def _baselines(repo: str, n: int) -> list[dict]:
    path = protocol.shared_dir() / "bench" / "sample-30.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [r for r in rows if r["repo"] == repo][:n]


def main(argv: list[str] | None = None) -> int:
    from ctxsel.select import SelectRequest, select

    ap = argparse.ArgumentParser(prog="python -m bench.select_sweep", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repos", default=",".join(protocol.REPOS))
    ap.add_argument("--sample", type=int, default=10)
    ap.add_argument("--configs", default='{"default": {}}', help="JSON {name: RankingConfig overrides}")
    ap.add_argument("--budgets", default="4000,8000")
    ap.add_argument("--scope", default=None)
    ap.add_argument("--work", type=Path, default=None)
    ap.add_argument("--out", type=Path, default=None, help="also write every cell as JSON")
    args = ap.parse_args(argv)
    if args.sample > 30:
        ap.error("--sample must be at most 30 (baselines come from sample-30.jsonl)")
    configs: dict[str, dict] = json.loads(args.configs)
    budgets = [int(b) for b in args.budgets.split(",")]
    cells: dict[tuple[str, str, int], list[tuple[float, float]]] = collections.defaultdict(list)
    rows = []
    repos = [r.strip() for r in args.repos.split(",")]
    for repo in repos:
        gitdir = find_mirror(repo)
        if gitdir is None:
            print(f"skip {repo}: no mirror", file=sys.stderr)
            continue
        chosen = protocol.sample(protocol.eligible(gitdir, protocol.load_cases(repo)), repo, args.sample, 0)
        checkout = Checkout(repo, gitdir, args.work or work_dir())
        for i, raw in enumerate(chosen):
            case = protocol.make_case(gitdir, raw)
            truth = CaseTruth(case.seed, case.targets,
                              protocol.changed_ranges(gitdir, case.parent, case.sha, case.targets))
            t0 = time.perf_counter()
            root = checkout.materialize(case.parent)
            for name, weights in configs.items():
                for b in budgets:
                    # a config that sets a dense weight turns the dense leg on (--dense)
                    result = select(root, SelectRequest(query=case.query, seeds=[case.seed], budget=b,
                                                        weights=json.dumps(weights), scope=args.scope,
                                                        dense=bool(weights.get("dense"))))
                    cell = score(ctxsel_method.parse(result.as_json()), truth, b)
                    cells[(repo, name, b)].append((cell["recall"], cell["hunk_recall"]))
                    rows.append({"repo": repo, "sha": case.sha, "config": name, "budget": b, **cell})
            print(f"  [{repo} {i + 1}/{len(chosen)}] {time.perf_counter() - t0:.1f}s", file=sys.stderr, flush=True)

    done = sorted({r for r, _, _ in cells})
    for b in budgets:
        best = {}
        for repo in done:
            base = _baselines(repo, args.sample)
            best[repo] = {m: sum(c["baselines"][m][str(b)]["recall"] for c in base) / len(base) for m in BASELINES}
        base_mean = {m: sum(best[r][m] for r in done) / len(done) for m in BASELINES}
        top = max(base_mean, key=base_mean.get)
        print(f"\nbudget {b}: best baseline {top} mean recall {base_mean[top]:.3f} on the same cases")
        for name in configs:
            per_repo = {r: cells[(r, name, b)] for r in done}
            rec = sum(sum(x[0] for x in v) / len(v) for v in per_repo.values()) / len(done)
            hunk = sum(sum(x[1] for x in v) / len(v) for v in per_repo.values()) / len(done)
            detail = " ".join(f"{r.split('/')[1]}={sum(x[0] for x in v) / len(v):.3f}" for r, v in per_repo.items())
            print(f"  {name:16s} recall {rec:.3f} ({rec / max(base_mean[top], 1e-9):.2f}x)  hunk {hunk:.3f}  {detail}")
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
