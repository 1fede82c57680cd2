"""Co-change retrieval benchmark runner.

    python -m bench.cochange --repos all --sample 30 \\
        --methods baselines,ctxsel,ctxsel:blast-radius,ctxsel:graph,ctxsel:repo \\
        --out bench/results/cochange.json

Follows ``$CTXSEL_SHARED/bench/README.md`` step by step: eligible cases, seeded
sample, checkout at the parent, seed = most added lines, one call per budget,
metrics per case, means per repository and over repositories.  Results of
methods not rerun are kept from an existing ``--out`` file (``--merge``, the
default), so tuning ctxsel does not re-pay for the baselines.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from bench import baselines, ctxsel_method, protocol
from bench.baselines import BaselineRun, CaseCorpus, Selection, TokenCache
from bench.materialize import BlobReader, Checkout, candidate_files, find_mirror
from bench.metrics import CaseTruth, score, summarize

SCHEMA_VERSION = 1


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def parse_methods(spec: str) -> list[str]:
    out: list[str] = []
    for item in (s.strip() for s in spec.split(",") if s.strip()):
        if item == "baselines":
            out += list(baselines.BASELINES)
        elif item == "ctxsel-all":
            out += ctxsel_method.method_names()
        elif item in baselines.BASELINES or item == "ctxsel" or (
                item.startswith("ctxsel:") and ctxsel_method.scope_of(item) in ctxsel_method.SCOPES):
            out.append(item)
        else:
            raise SystemExit(f"unknown method {item!r}; known: baselines, ctxsel-all, "
                             f"{', '.join(baselines.BASELINES)}, {', '.join(ctxsel_method.method_names())}")
    return list(dict.fromkeys(out))


class PackageFiles:
    """Files of the seed's package at the parent, nested packages excluded (miner's package model)."""

    def __init__(self, gitdir: Path, kind: str):
        m = protocol.miner()
        self._git = m.Git(str(gitdir))
        self._ws = m.BazelWorkspace(self._git) if kind == "bazel" else m.JsWorkspace(self._git)

    def of(self, rev: str, package: str | None, paths: list[str]) -> list[str]:
        if package is None:
            return []
        prefix = "" if package == "." else package + "/"
        return [p for p in paths if p.startswith(prefix) and self._ws.package_of(rev, p)[0] == package]

    def close(self) -> None:
        self._git.close()


def _line_chars_from(texts: dict[str, str]):
    def line_chars(path: str, start: int, end: int) -> int | None:
        text = texts.get(path)
        if text is None:
            return None
        return len("".join(baselines.split_lines(text)[start - 1:end]))
    return line_chars


def _checkout_line_chars(root: Path):
    cache: dict[str, list[str] | None] = {}

    def line_chars(path: str, start: int, end: int) -> int | None:
        if path not in cache:
            try:
                cache[path] = baselines.split_lines((root / path).read_text(encoding="utf-8", errors="replace"))
            except OSError:
                cache[path] = None
        lines = cache[path]
        return None if lines is None else len("".join(lines[start - 1:end]))
    return line_chars


def run_repo(repo: str, gitdir: Path, n: int | None, sample_seed: int, methods: list[str],
             budgets: list[int], work_root: Path | None, cases_path: Path | None = None,
             api: bool = False) -> list[dict]:
    raw = protocol.eligible(gitdir, protocol.load_cases(repo, cases_path))
    chosen = protocol.sample(raw, repo, n, sample_seed)
    base_methods = [m for m in methods if m in baselines.BASELINES]
    cx_methods = [m for m in methods if m.startswith("ctxsel")]
    cx_missing = ctxsel_method.unavailable_reason() if cx_methods else None
    checkout = Checkout(repo, gitdir, work_root) if cx_methods and not cx_missing else None
    packages = PackageFiles(gitdir, chosen[0]["kind"]) if chosen else None
    blob_cache: dict[str, str | None] = {}
    tokens = TokenCache()
    rows = []
    with BlobReader(gitdir) as reader:
        for i, raw_case in enumerate(chosen, 1):
            t0 = time.perf_counter()
            case = protocol.make_case(gitdir, raw_case)
            truth = CaseTruth(case.seed, case.targets,
                              protocol.changed_ranges(gitdir, case.parent, case.sha, case.targets))
            row = {"repo": repo, "sha": case.sha, "parent": case.parent, "seed": case.seed,
                   "targets": case.targets, "single_package": case.single_package,
                   "query_names_file": case.query_names_changed_file(),
                   "short_query": bool(raw_case.get("short_query")), "methods": {}}
            if base_methods:
                cands = candidate_files(gitdir, case.parent, reader, blob_cache)
                seed = next((c for c in cands if c.path == case.seed), None)
                corpus = CaseCorpus([c for c in cands if c.path != case.seed], seed, tokens)
                texts = {c.path: c.text for c in cands}
                paths = [c.path for c in corpus.candidates]
                run = BaselineRun(corpus, case.query,
                                  lambda: packages.of(case.parent, case.seed_package, paths))
                for method in base_methods:
                    row["methods"][method] = {
                        str(b): score(run.select(method, b, f"{sample_seed}|{case.sha}"), truth, b,
                                      _line_chars_from(texts))
                        for b in budgets}
            if cx_methods:
                if cx_missing:
                    for method in cx_methods:
                        row["methods"][method] = {"unavailable": cx_missing}
                else:
                    assert checkout is not None
                    root = checkout.materialize(case.parent)
                    line_chars = _checkout_line_chars(root)
                    for method in cx_methods:
                        cells = {}
                        for b in budgets:
                            call = ctxsel_method.select_api if api else ctxsel_method.select
                            sel: Selection = call(root, case.query, case.seed, b, ctxsel_method.scope_of(method))
                            if sel.error:
                                cells[str(b)] = {"error": sel.error, "seconds": round(sel.seconds, 3)}
                                continue
                            cell = score(sel, truth, b, line_chars)
                            cell["seconds"] = round(sel.seconds, 3)
                            if sel.scope_mode:
                                cell["scope_mode"] = sel.scope_mode
                            cells[str(b)] = cell
                        row["methods"][method] = cells
            rows.append(row)
            log(f"  [{repo} {i}/{len(chosen)}] {case.sha[:10]} {time.perf_counter() - t0:.1f}s")
    if packages:
        packages.close()
    return rows


def merge_rows(old: list[dict], new: list[dict]) -> list[dict]:
    """New method results override old ones per (repo, sha); other methods are kept."""
    by_key = {(r["repo"], r["sha"]): r for r in old}
    for row in new:
        prev = by_key.get((row["repo"], row["sha"]))
        if prev is not None:
            row["methods"] = {**prev.get("methods", {}), **row["methods"]}
        by_key[(row["repo"], row["sha"])] = row
    order = {(r["repo"], r["sha"]): i for i, r in enumerate(new)}
    return sorted(by_key.values(), key=lambda r: order.get((r["repo"], r["sha"]), len(order)))


def build_results(rows: list[dict], budgets: list[int], meta: dict) -> dict:
    strata = {
        "single_package": lambda r: r["single_package"],
        "multi_package": lambda r: not r["single_package"],
        "query_names_file": lambda r: r["query_names_file"],
        "query_names_no_file": lambda r: not r["query_names_file"],
    }
    return {
        "schema_version": SCHEMA_VERSION,
        **meta,
        "budgets": budgets,
        "summary": summarize(rows, budgets),
        "strata": {name: summarize(rows, budgets, fn) for name, fn in strata.items()},
        "cases": rows,
    }


def ctxsel_fingerprint() -> str:
    """Version plus a hash of ctxsel's Python sources: ties ctxsel's figures to the exact code measured,
    even between commits (the ranking is tuned with this benchmark, so it changes often)."""
    import hashlib

    import ctxsel

    root = Path(ctxsel.__file__).parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return f"{getattr(ctxsel, '__version__', '?')}+src.{digest.hexdigest()[:12]}"


def dump_results(results: dict) -> str:
    """JSON with one case per line: small, and a rerun's diff shows which cases moved."""
    head = {k: v for k, v in results.items() if k != "cases"}
    body = json.dumps(head, indent=1)[:-2]  # drop the closing "\n}"
    cases = ",\n".join("  " + json.dumps(row, separators=(",", ":")) for row in results.get("cases", []))
    return body + ',\n "cases": [\n' + cases + "\n ]\n}\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.cochange", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repos", default="all", help="'all' or comma-separated owner/name list")
    ap.add_argument("--sample", type=int, default=30, help="cases per repository (0 = all eligible)")
    ap.add_argument("--sample-seed", type=int, default=0)
    ap.add_argument("--methods", default="baselines,ctxsel-all",
                    help="comma list: baselines, ctxsel-all, or single methods "
                         "(bm25-file, bm25-chunk, bm25-chunk+seed, random-same-package, "
                         "ctxsel, ctxsel:blast-radius, ctxsel:graph, ctxsel:repo)")
    ap.add_argument("--budgets", default=",".join(map(str, protocol.BUDGETS)))
    ap.add_argument("--mirror", action="append", type=Path, default=None,
                    help="directory holding <owner>+<name>* bare clones (repeatable); default "
                         "$CTXSEL_BENCH_MIRROR, /work/.mirror, ~/.cache/ctxsel-bench/mirror")
    ap.add_argument("--work", type=Path, default=None,
                    help="where checkouts live (default $CTXSEL_BENCH_WORK or bench/work)")
    ap.add_argument("--cases-dir", type=Path, default=None,
                    help="directory of <owner>+<name>.jsonl case files (default: shared bench/cases)")
    ap.add_argument("--out", type=Path, default=Path("bench/results/cochange.json"))
    ap.add_argument("--ctxsel-api", action="store_true",
                    help="call ctxsel.select in process instead of one CLI process per call "
                         "(faster tuning sweeps; published figures use the CLI)")
    ap.add_argument("--no-merge", action="store_true",
                    help="do not keep other methods' results from an existing --out")
    args = ap.parse_args(argv)

    repos = list(protocol.REPOS) if args.repos == "all" else [r.strip() for r in args.repos.split(",")]
    methods = parse_methods(args.methods)
    budgets = [int(b) for b in args.budgets.split(",")]
    rows: list[dict] = []
    skipped: dict[str, str] = {}
    started = time.time()
    old: list[dict] = []
    runs: list[dict] = []
    if args.out.exists() and not args.no_merge:
        try:
            previous = json.loads(args.out.read_text())
            old = previous.get("cases", [])
            # A previous run whose every (repo, method) is rerun now no longer explains any figure.
            runs = [r for r in previous.get("runs", [])
                    if not (set(r.get("repos", ["?"])) <= set(repos) and set(r.get("methods", ["?"])) <= set(methods)
                            and r.get("sample") == args.sample)]
        except ValueError:
            old = []
    this_run = {"command": "python -m bench.cochange " + " ".join(argv if argv is not None else sys.argv[1:]),
                "repos": repos, "methods": methods, "sample": args.sample,
                "ctxsel_call": "python API (in process)" if args.ctxsel_api else "CLI (one process per call)"}
    if any(m.startswith("ctxsel") for m in methods):
        this_run["ctxsel"] = ctxsel_fingerprint()
    runs.append(this_run)

    def write() -> None:
        """Written after every repository, so an interrupted sweep keeps what it measured."""
        merged = merge_rows(old, list(rows))
        meta = {
            "protocol": "shared/bench/README.md",
            "sample": args.sample, "sample_seed": args.sample_seed,
            "seed_rule": "one seed per case: most added lines, tie -> first in files",
            "methods": sorted({m for r in merged for m in r["methods"]}),
            "runs": runs,  # every run merged into this file, oldest first, with its wall time
            "skipped_repos": skipped,
        }
        this_run["elapsed_s"] = round(time.time() - started, 1)
        if "ctxsel" in this_run and not args.ctxsel_api and ctxsel_fingerprint() != this_run["ctxsel"]:
            # Each CLI call loads the sources anew, so an edit mid-run mixes versions (in process,
            # the code imported at the first call is used throughout).
            this_run["ctxsel_sources_changed_during_run"] = True
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(dump_results(build_results(merged, budgets, meta)))
        log(f"wrote {args.out} ({len(merged)} cases)")

    for repo in repos:
        gitdir = find_mirror(repo, args.mirror)
        if gitdir is None:
            skipped[repo] = ("no bare clone found; run: git clone --bare https://github.com/"
                             f"{repo} ~/.cache/ctxsel-bench/mirror/{repo.replace('/', '+', 1)}.git")
            log(f"skip {repo}: {skipped[repo]}")
            continue
        cases_path = protocol.cases_file(repo, args.cases_dir)
        log(f"{repo}: {gitdir}")
        rows += run_repo(repo, gitdir, args.sample or None, args.sample_seed, methods, budgets, args.work,
                         cases_path, args.ctxsel_api)
        write()
    if not rows:
        write()
    return 0


if __name__ == "__main__":
    sys.exit(main())
