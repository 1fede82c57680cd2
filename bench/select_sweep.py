"""Sweep ``select`` ranking weights on the co-change cases, in process, several configs per checkout.

    python -m bench.select_sweep --offset 30 --sample 12 --baselines /tmp/baselines90.json \\
        --configs '{"default": {}, "more-history": {"cochange": 1.5}}' --budgets 4000,8000

For tuning only: the protocol's official numbers come from ``python -m bench.cochange``
(one whole-process CLI call per budget). This runner materialises each case's parent
once (``bench.materialize.Checkout``), then calls ``ctxsel.select.select`` for every
config and budget, so a sweep costs one index refresh per case instead of one per call.
Cases, seeds and scoring are the protocol's (``bench.protocol``, ``bench.metrics``).
Prints per-repo means and the mean over repos next to the best baseline on the same
cases. Tune on held-out cases (``--offset 30``: past the protocol's reported sample),
with their baselines from ``python -m bench.cochange --methods baselines --sample 90``
(``--baselines``); without an offset the baselines come from ``sample-30.jsonl``.
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


def _baselines(repo: str, shas: list[str], results: Path | None) -> dict[str, dict[str, tuple[float, float]]]:
    """{method: {budget: (mean recall, mean hunk recall)}} over these cases: from ``sample-30.jsonl``, or from a
    ``bench.cochange --methods baselines`` results file for cases outside the official sample."""
    per_case: dict[str, dict] = {}
    if results is None:
        path = protocol.shared_dir() / "bench" / "sample-30.jsonl"
        for line in path.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                per_case[row["sha"]] = {m: {b: (c["recall"], c.get("hunk_recall", 0.0)) for b, c in v.items()}
                                         for m, v in row["baselines"].items()}
    else:
        for row in json.loads(results.read_text())["cases"]:
            per_case[row["sha"]] = {m: {b: (c["recall"], c["hunk_recall"]) for b, c in v.items() if "recall" in c}
                                    for m, v in row["methods"].items() if m in BASELINES}
    missing = [s for s in shas if s not in per_case]
    if missing:
        raise SystemExit(f"no baseline numbers for {len(missing)} {repo} case(s), e.g. {missing[0]}: pass --baselines")
    return {m: {b: (sum(per_case[s][m][b][0] for s in shas) / len(shas), sum(per_case[s][m][b][1] for s in shas) / len(shas))
                for b in per_case[shas[0]][m]} for m in BASELINES}


def main(argv: list[str] | None = None) -> int:
    from ctxsel.select import SelectRequest, select

    ap = argparse.ArgumentParser(prog="python -m bench.select_sweep", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repos", default=",".join(protocol.REPOS))
    ap.add_argument("--sample", type=int, default=10)
    ap.add_argument("--offset", type=int, default=0,
                    help="skip this many cases of the seeded order: tune on cases outside the reported sample")
    ap.add_argument("--baselines", type=Path, default=None,
                    help="bench.cochange results holding the baselines of cases outside sample-30.jsonl")
    ap.add_argument("--configs", default='{"default": {}}', help="JSON {name: RankingConfig overrides}")
    ap.add_argument("--budgets", default="4000,8000")
    ap.add_argument("--scope", default=None)
    ap.add_argument("--work", type=Path, default=None)
    ap.add_argument("--cases-dir", type=Path, default=None,
                    help="directory of <owner>+<name>.jsonl case files (default: shared bench/cases); "
                         "cases mined from other monorepos check that a tuning generalises")
    ap.add_argument("--out", type=Path, default=None, help="also write every cell as JSON")
    args = ap.parse_args(argv)
    if args.offset + args.sample > 30 and args.baselines is None:
        ap.error("cases beyond the first 30 need --baselines (sample-30.jsonl has only those)")
    configs: dict[str, dict] = json.loads(args.configs)
    budgets = [int(b) for b in args.budgets.split(",")]
    cells: dict[tuple[str, str, int], list[tuple[float, float]]] = collections.defaultdict(list)
    rows = []
    shas: dict[str, list[str]] = {}
    repos = [r.strip() for r in args.repos.split(",")]
    for repo in repos:
        gitdir = find_mirror(repo)
        if gitdir is None:
            print(f"skip {repo}: no mirror", file=sys.stderr)
            continue
        eligible = protocol.eligible(gitdir, protocol.load_cases(repo, protocol.cases_file(repo, args.cases_dir)))
        chosen = protocol.sample(eligible, repo, args.offset + args.sample, 0)[args.offset:]
        if not chosen:
            continue
        shas[repo] = [c["sha"] for c in chosen]
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
            base = _baselines(repo, shas[repo], args.baselines)
            best[repo] = {m: base[m][str(b)] for m in BASELINES}
        base_mean = {m: sum(best[r][m][0] for r in done) / len(done) for m in BASELINES}
        base_hunk = {m: sum(best[r][m][1] for r in done) / len(done) for m in BASELINES}
        top = max(base_mean, key=base_mean.get)
        top_h = max(base_hunk, key=base_hunk.get)
        print(f"\nbudget {b}: best baseline {top} mean recall {base_mean[top]:.3f}; best hunk recall "
              f"{top_h} {base_hunk[top_h]:.3f}, on the same cases")
        for name in configs:
            per_repo = {r: cells[(r, name, b)] for r in done}
            rec = sum(sum(x[0] for x in v) / len(v) for v in per_repo.values()) / len(done)
            hunk = sum(sum(x[1] for x in v) / len(v) for v in per_repo.values()) / len(done)
            detail = " ".join(f"{r.split('/')[1]}={sum(x[0] for x in v) / len(v):.3f}" for r, v in per_repo.items())
            print(f"  {name:16s} recall {rec:.3f} ({rec / max(base_mean[top], 1e-9):.2f}x)  "
                  f"hunk {hunk:.3f} ({hunk / max(base_hunk[top_h], 1e-9):.2f}x)  {detail}")
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
