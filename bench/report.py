"""Render the co-change results into ``docs/benchmarks.md`` and recall-vs-budget PNGs.

Only the section between ``<!-- cochange:start -->`` and ``<!-- cochange:end -->``
is rewritten, so the speed sections other benchmarks generate in the same file
survive.  The harness-validation table compares our baselines with the figures
parsed from the shared protocol README, so a drift in the harness is visible in
the published page itself.

    python -m bench.report --results bench/results/cochange.json --doc docs/benchmarks.md
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from bench import protocol

START, END = "<!-- cochange:start -->", "<!-- cochange:end -->"
TOLERANCE = 0.03  # the acceptance bound for reproducing the reference baselines
REF_COLUMNS = ("R@4k", "R@8k", "R@16k", "R@32k", "hunkR@8k", "R@5", "R@10", "MRR")


def _fmt(x: float | None, digits: int = 3) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def _kb(budget: str) -> str:
    return f"{int(budget) // 1000}k"


def reference_figures(readme: Path | None = None) -> dict[tuple[str, str], dict[str, float]]:
    """The baseline table of the protocol README: {(repo | "mean", method): {column: value}}."""
    path = readme or protocol.bench_dir() / "README.md"
    if not path.is_file():
        return {}
    out: dict[tuple[str, str], dict[str, float]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 2 + len(REF_COLUMNS) or not re.fullmatch(r"[0-9.]+", cells[2]):
            continue
        repo = "mean" if "mean" in cells[0] else cells[0]
        out[(repo, cells[1])] = dict(zip(REF_COLUMNS, map(float, cells[2:])))
    return out


def _ours(cell: dict[str, dict], column: str) -> float | None:
    if column.startswith("hunkR@"):
        b = str(int(column[6:-1]) * 1000)
        return cell.get(b, {}).get("hunk_recall")
    if column.startswith("R@") and column.endswith("k"):
        return cell.get(str(int(column[2:-1]) * 1000), {}).get("recall")
    key = {"R@5": "r@5", "R@10": "r@10", "MRR": "mrr"}[column]
    return cell.get("32000", {}).get(key)


def validation_table(summary: dict, ref: dict) -> tuple[list[str], dict[str, float]]:
    """Markdown rows comparing our baselines with the reference, and the worst |diff| in recall
    over the BM25 baselines, separately for single repositories and for the 5-repo mean."""
    lines = ["| repo | method | " + " | ".join(f"{c} ours / ref" for c in REF_COLUMNS[:5]) + " |",
             "|---|---|" + "---|" * 5]
    worst = {"repo": 0.0, "mean": 0.0}
    for (repo, method), figures in ref.items():
        cell = summary.get(repo, {}).get(method)
        if not cell:
            continue
        parts = []
        for col in REF_COLUMNS[:5]:
            ours = _ours(cell, col)
            if ours is not None and col.startswith("R@") and method != "random-same-package":
                kind = "mean" if repo == "mean" else "repo"
                worst[kind] = max(worst[kind], abs(ours - figures[col]))
            parts.append(f"{_fmt(ours)} / {figures[col]:.3f}")
        label = "**mean of the 5 repos**" if repo == "mean" else repo
        lines.append(f"| {label} | {method} | " + " | ".join(parts) + " |")
    return lines, worst


def _cases(cell: dict) -> str:
    """Case count; on mean rows also how many repositories the mean is over (partial runs show)."""
    n = str(cell.get("n", 0))
    return f"{n} ({cell['repos']} repos)" if "repos" in cell else n


def method_table(per_method: dict, budgets: list[str]) -> list[str]:
    head = ("| method | " + " | ".join(f"R@{_kb(b)}" for b in budgets) + " | hunkR@4k | hunkR@8k"
            " | R@5 | R@10 | MRR | tokens@8k | over budget | scope recall | cases |")
    lines = [head, "|---|" + "---|" * (len(budgets) + 9)]
    for method in sorted(per_method):
        cells = per_method[method]
        if not any(cells.get(b, {}).get("n") for b in budgets):
            continue
        big = cells.get(budgets[-1], {})
        over = sum(cells.get(b, {}).get("over_budget", 0) for b in budgets)
        lines.append(
            f"| {method} | " + " | ".join(_fmt(cells.get(b, {}).get("recall")) for b in budgets)
            + f" | {_fmt(cells.get('4000', {}).get('hunk_recall'))} | {_fmt(cells.get('8000', {}).get('hunk_recall'))}"
            + f" | {_fmt(big.get('r@5'))} | {_fmt(big.get('r@10'))} | {_fmt(big.get('mrr'))}"
            + f" | {_fmt(cells.get('8000', {}).get('tokens'), 0)} | {over} | {_fmt(big.get('scope_recall'))}"
            + f" | {_cases(big)} |")
    return lines


def strata_table(strata: dict, budget: str = "8000") -> list[str]:
    names = list(strata)
    lines = ["| method | " + " | ".join(f"{n.replace('_', ' ')} (n)" for n in names) + " |",
             "|---|" + "---|" * len(names)]
    methods = sorted({m for s in strata.values() for m in s.get("mean", {})})
    for method in methods:
        parts = []
        for name in names:
            cell = strata[name].get("mean", {}).get(method, {}).get(budget, {})
            parts.append(f"{_fmt(cell.get('recall'))} ({cell.get('n', 0)})")
        lines.append(f"| {method} | " + " | ".join(parts) + " |")
    return lines


def token_agreement(results: dict) -> tuple[int, int]:
    """(cells whose packed token total equals the reference's, cells compared), BM25 baselines.

    Equal totals at every budget mean the same documents were ranked and packed:
    a much sharper check of the harness than equal recall means."""
    path = protocol.bench_dir() / "sample-30.jsonl"
    if not path.is_file():
        return 0, 0
    ref = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            ref[(row["repo"], row["sha"])] = row["baselines"]
    same = total = 0
    for row in results["cases"]:
        theirs = ref.get((row["repo"], row["sha"]))
        if not theirs:
            continue
        for method, cells in row["methods"].items():
            if method not in theirs or method == "random-same-package":
                continue
            for budget, cell in cells.items():
                if budget in theirs[method] and "tokens" in cell:
                    total += 1
                    same += cell["tokens"] == theirs[method][budget]["tokens"]
    return same, total


def acceptance_lines(summary: dict) -> list[str]:
    """ctxsel's best scope vs the best baseline at 4k and 8k, on the repositories both were run on.

    Issue 6 asks for >= 1.15x the best baseline's mean file and hunk recall at 4k and 8k;
    a partial run is compared only on the repositories it covers, and says so."""
    from bench.baselines import BASELINES

    repos = [r for r in summary if r != "mean"]
    scopes = sorted({m for r in repos for m in summary[r] if m.startswith("ctxsel")})
    if not scopes:
        return []
    out = ["### ctxsel against the best baseline (issue 6 acceptance: ≥ 1.15× at 4k and 8k)", ""]
    out += ["| method | budget | metric | ctxsel | best baseline | ratio | repos |", "|---|---|---|---|---|---|---|"]
    for method in scopes:
        covered = [r for r in repos if summary[r].get(method, {}).get("4000", {}).get("n")]
        for budget in ("4000", "8000"):
            for metric in ("recall", "hunk_recall"):
                def repo_mean(m: str) -> float | None:
                    vals = [summary[r].get(m, {}).get(budget, {}).get(metric) for r in covered]
                    vals = [v for v in vals if v is not None]
                    return sum(vals) / len(vals) if len(vals) == len(covered) and vals else None
                ours = repo_mean(method)
                best = max(((repo_mean(b), b) for b in BASELINES if repo_mean(b) is not None), default=(None, ""))
                if ours is None or best[0] is None:
                    continue
                ratio = ours / best[0] if best[0] else float("inf")
                out.append(f"| {method} | {_kb(budget)} | {metric.replace('_', ' ')} | {ours:.3f} | "
                           f"{best[0]:.3f} ({best[1]}) | {ratio:.2f}× | {len(covered)} |")
    return out + [""]


def _case_counts(results: dict) -> list[int]:
    counts: dict[str, int] = {}
    for row in results["cases"]:
        counts[row["repo"]] = counts.get(row["repo"], 0) + 1
    return list(counts.values())


def plot(summary: dict, budgets: list[str], img_dir: Path) -> dict[str, Path]:
    """One recall-vs-budget PNG per repository (and for the mean); returns {repo: png}."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    img_dir.mkdir(parents=True, exist_ok=True)
    out: dict[str, Path] = {}
    xs = [int(b) // 1000 for b in budgets]
    for repo, per_method in summary.items():
        fig, ax = plt.subplots(figsize=(6, 4), dpi=100)
        for method in sorted(per_method):
            ys = [per_method[method].get(b, {}).get("recall") for b in budgets]
            if all(y is None for y in ys):
                continue
            style = "-" if method.startswith("ctxsel") else "--"
            ax.plot(xs, [float("nan") if y is None else y for y in ys], style, marker="o", label=method)
        ax.set_xscale("log", base=2)
        ax.set_xticks(xs, [f"{x}k" for x in xs])
        ax.set_ylim(0, 1.02)
        ax.set_xlabel("token budget")
        ax.set_ylabel("file recall")
        ax.set_title("mean of the repositories" if repo == "mean" else repo)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="lower right")
        fig.tight_layout()
        name = "cochange-" + ("mean" if repo == "mean" else repo.replace("/", "+", 1)) + ".png"
        fig.savefig(img_dir / name)
        plt.close(fig)
        out[repo] = img_dir / name
    return out


def render(results: dict, doc_path: Path, img_dir: Path) -> str:
    budgets = [str(b) for b in results["budgets"]]
    # Recomputed from the per-case rows, so merged runs and older result files summarise alike.
    from bench.cochange import build_results

    results = build_results(results["cases"], results["budgets"],
                            {k: v for k, v in results.items() if k not in ("summary", "strata", "cases", "budgets")})
    summary = results["summary"]
    pngs = plot(summary, budgets, img_dir)
    rel = lambda p: Path(p).resolve().relative_to(doc_path.parent.resolve()).as_posix()  # noqa: E731
    n_cases = len(results["cases"])
    repos = [r for r in summary if r != "mean"]
    unavailable = sorted({cell["unavailable"] for row in results["cases"] for cell in row["methods"].values()
                          if isinstance(cell, dict) and "unavailable" in cell})
    lines = [START, "## Retrieval (co-change)", "",
             "Generated by `python -m bench.report` from `bench/results/cochange.json`; do not edit by hand.",
             "Protocol: `shared/bench/README.md` (a case is a real commit; the query is its message; the repository is "
             "checked out at the parent; the seed is the changed file with the most added lines; the targets are "
             "the commit's other changed source files).", "",
             f"* Sample: {results['sample']} cases per repository (sample seed {results['sample_seed']}), "
             f"{n_cases} cases over {len(repos)} repositories; {results['seed_rule']}.",
             "* Metrics: file recall per budget (a target counts when any packed chunk is from it), hunk recall "
             "(a packed chunk overlaps a parent-side changed line range), R@5/R@10/MRR over distinct files of the "
             "32k call, mean tokens used, over-budget cases (must be 0), scope recall (targets inside the scope "
             "ctxsel searched: the ceiling of its ranking).",
             "* ctxsel is called as the protocol says (`ctxsel --repo CHECKOUT select QUERY --seed SEED "
             "--budget B --format json`, one call per budget), or with `--ctxsel-api` in process "
             "(`ctxsel.select.select`, same arguments, no interpreter start per call); each run below says which.",
             "* Reproduce (wall times measured on a 2-core machine shared with other jobs):", "",
             "```sh",
             "pip install -e '.[bench]'",
             "# once: bare clones of the five repositories (or point --mirror at existing ones)",
             "for r in vuejs/core typescript-eslint/typescript-eslint t3-oss/create-t3-turbo \\",
             "         buildbarn/bb-storage angular-eslint/angular-eslint; do",
             "  git clone --bare https://github.com/$r ~/.cache/ctxsel-bench/mirror/${r/\\//+}.git; done",
             *[f"{run['command']}  # {run.get('elapsed_s', '?')} s"
               + (f"; ctxsel {run.get('ctxsel', '(version not recorded)')} via {run.get('ctxsel_call', 'CLI')}"
                  + ("; ctxsel's sources changed during the run" if run.get("ctxsel_sources_changed_during_run")
                     else "")
                  if "ctxsel" in run["command"] else "")
               for run in results.get("runs", [])],
             "python -m bench.report --results bench/results/cochange.json --doc docs/benchmarks.md",
             "```", ""]
    if unavailable:
        lines += [f"* Not measured in this run: {'; '.join(unavailable)}.", ""]
    suspect: dict[str, int] = {}
    for row in results["cases"]:
        for method, cells in row["methods"].items():
            for cell in cells.values():
                if isinstance(cell, dict) and cell.get("token_suspect_chunks"):
                    suspect[method] = suspect.get(method, 0) + cell["token_suspect_chunks"]
    lines += ["* Token honesty: every packed chunk's claimed tokens are compared with ceil(chars / 4) of the "
              "lines it claims; chunks claiming less than half of that: "
              + (", ".join(f"{m} {n}" for m, n in sorted(suspect.items())) if suspect else "none") + ".", ""]
    failed = {m: c["errors"] for m, per in summary.get("mean", {}).items() for c in [per.get(budgets[0], {})]
              if c.get("errors")}
    if failed:
        lines += ["* Failed calls (left out of the means, listed per case in the results JSON): "
                  + ", ".join(f"{m} {n}" for m, n in sorted(failed.items())) + ".", ""]
    lines += acceptance_lines(summary)
    lines += ["### Mean over the repositories", "",
              f"![recall vs budget, mean]({rel(pngs['mean'])})" if "mean" in pngs else "", ""]
    lines += method_table(summary.get("mean", {}), budgets) + [""]
    lines += ["### By stratum (mean over repositories, file recall at 8k)", "",
              "Single- vs multi-package commits, and whether the commit message names a changed file "
              "(basename or stem), which makes message-only BM25 strong.", ""]
    lines += strata_table(results.get("strata", {})) + [""]
    ref = reference_figures()
    if ref:
        table, worst = validation_table(summary, ref)
        same, total = token_agreement(results)
        n_min = min((row_n for row_n in _case_counts(results)), default=0)
        verdict = lambda x: "within" if x <= TOLERANCE + 1e-9 else "outside"  # noqa: E731
        lines += ["### Harness validation: baselines vs the protocol's reference figures", "",
                  f"Largest |ours − reference| over the BM25 baselines' recall columns: {worst['mean']:.3f} on "
                  f"the 5-repository means ({verdict(worst['mean'])} the ±{TOLERANCE} bound) and "
                  f"{worst['repo']:.3f} on single repositories ({verdict(worst['repo'])}; one case of "
                  f"{n_min} moves a repository mean by {1 / max(n_min, 1):.3f}). The reference tokenizer's "
                  "stop-word list and tie order are not published; the packed token total of "
                  f"{same} of {total} (case, BM25 baseline, budget) cells equals the reference's exactly. `random-same-package` depends on a random order whose seeding the "
                  "reference does not specify: shown, not held to the bound.", ""]
        lines += table + [""]
    lines += ["### Per repository", ""]
    for repo in repos:
        lines += [f"#### {repo}", ""]
        if repo in pngs:
            lines += [f"![recall vs budget, {repo}]({rel(pngs[repo])})", ""]
        lines += method_table(summary[repo], budgets) + [""]
    lines.append(END)
    return "\n".join(lines) + "\n"


def write_section(doc_path: Path, section: str) -> None:
    """Replace our marked section in the doc (or append it); other sections stay untouched."""
    text = doc_path.read_text(encoding="utf-8") if doc_path.exists() else "# Benchmarks\n\n"
    if START in text and END in text:
        before, rest = text.split(START, 1)
        after = rest.split(END, 1)[1].lstrip("\n")
        text = before + section + ("\n" + after if after else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    doc_path.parent.mkdir(parents=True, exist_ok=True)
    doc_path.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.report", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--results", type=Path, default=Path("bench/results/cochange.json"))
    ap.add_argument("--doc", type=Path, default=Path("docs/benchmarks.md"))
    ap.add_argument("--img", type=Path, default=None, help="PNG directory (default: <doc dir>/img)")
    args = ap.parse_args(argv)
    results = json.loads(args.results.read_text())
    section = render(results, args.doc, args.img or args.doc.parent / "img")
    write_section(args.doc, section)
    print(f"wrote {args.doc}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
