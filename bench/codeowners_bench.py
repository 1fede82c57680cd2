"""Benchmark: match 100,000 paths against a 1,000-rule CODEOWNERS file.

Deterministic synthetic input (fixed seed) shaped like a large monorepo's file: a
default owner, per-service and per-library directories (anchored and not), file
extensions, ``docs/*`` one-level rules, ``**/`` globstars and unowning lines. The
paths live in the same tree so that most rules can actually match.

    python bench/codeowners_bench.py               # GitHub syntax, median of 5 runs
    python bench/codeowners_bench.py --syntax gitlab
    python bench/codeowners_bench.py --baseline 5000   # also time the plain codeowners package

The baseline is the ``codeowners`` package's own ``CodeOwners.of`` (every rule's regex,
last to first) on the first N paths only, reported per path, because all 100,000 take
minutes; its extrapolation to 100,000 is printed as such.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

EXTS = ["ts", "tsx", "js", "py", "go", "md", "json", "yaml", "proto", "rs", "java", "css"]
AREAS = ["services", "libs", "apps", "tools", "infra", "packages"]


def synth_rules(n_rules: int, syntax: str, seed: int = 7) -> str:
    rnd = random.Random(seed)
    lines = ["* @acme/platform"]
    sections = 0
    while len(lines) < n_rules:
        kind = rnd.random()
        area = rnd.choice(AREAS)
        unit = f"{area[:-1]}-{rnd.randrange(300)}"
        team_no = rnd.randrange(120)
        team = f"@acme/team-{team_no}"
        if syntax == "gitlab" and rnd.random() < 0.01:
            sections += 1
            lines.append(f"[Section {sections}] @acme/section-{sections}")
            continue
        if kind < 0.40:
            lines.append(f"/{area}/{unit}/ {team}")
        elif kind < 0.50:
            lines.append(f"{unit}/ {team}")  # any depth on both hosts
        elif kind < 0.62:
            lines.append(f"/{area}/{unit}/src/*.{rnd.choice(EXTS)} {team}")
        elif kind < 0.70:
            lines.append(f"*.{rnd.choice(EXTS)} {team}")
        elif kind < 0.78:
            lines.append(f"/{area}/{unit}/docs/* {team}")
        elif kind < 0.86:
            lines.append(f"**/{rnd.choice(['tests', 'fixtures', 'migrations', 'generated'])}/ {team}")
        elif kind < 0.93:
            lines.append(f"/{area}/{unit}/src/{rnd.choice(['api', 'core', 'ui', 'db'])}/ {team}")
        elif kind < 0.97:
            lines.append(f"/{area}/{unit}/BUILD.bazel {team} team-{team_no}-leads@example.com")
        else:
            lines.append(f"/{area}/{unit}/generated")  # unowned
    return "\n".join(lines) + "\n"


def synth_paths(n_paths: int, seed: int = 11) -> list[str]:
    rnd = random.Random(seed)
    out = []
    for _ in range(n_paths):
        area = rnd.choice(AREAS)
        parts = [area, f"{area[:-1]}-{rnd.randrange(300)}"]
        for _ in range(rnd.randrange(0, 5)):
            parts.append(rnd.choice(["src", "api", "core", "ui", "db", "tests", "docs", "lib", "internal", "generated"]))
        parts.append(f"file{rnd.randrange(1000)}.{rnd.choice(EXTS)}")
        out.append("/".join(parts))
    return out


def run(n_rules: int, n_paths: int, syntax: str, repeats: int, baseline: int) -> None:
    from ctxsel.codeowners import parse

    text = synth_rules(n_rules, syntax)
    paths = synth_paths(n_paths)
    compile_times, match_times = [], []
    owned = 0
    for _ in range(repeats):
        t0 = time.perf_counter()
        rules = parse(text, syntax)
        t1 = time.perf_counter()
        owned = sum(1 for p in paths if rules.owners_of(p))
        t2 = time.perf_counter()
        compile_times.append(t1 - t0)
        match_times.append(t2 - t1)
    assert not rules.warnings, rules.warnings[:3]
    print(f"syntax={syntax} rules={len(rules.rules)} paths={len(paths)} owned={owned} repeats={repeats}")
    print(f"compile: median {statistics.median(compile_times) * 1000:.1f} ms")
    print(f"match:   median {statistics.median(match_times):.2f} s "
          f"(min {min(match_times):.2f}, max {max(match_times):.2f}) = "
          f"{statistics.median(match_times) / len(paths) * 1e6:.1f} us/path")
    if baseline and syntax == "github":
        from codeowners import CodeOwners

        plain = CodeOwners(text)
        sample = paths[:baseline]
        t0 = time.perf_counter()
        for p in sample:
            plain.of(p)
        per_path = (time.perf_counter() - t0) / len(sample)
        print(f"baseline codeowners package: {per_path * 1e6:.0f} us/path on {len(sample)} paths "
              f"(extrapolated to {len(paths)} paths: {per_path * len(paths):.0f} s)")
        mismatches = sum(1 for p in sample if [o for _, o in plain.of(p)] != rules.owners_of(p))
        print(f"answers differing from the package on the sample: {mismatches}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", type=int, default=1000)
    ap.add_argument("--paths", type=int, default=100_000)
    ap.add_argument("--syntax", choices=("github", "gitlab"), default="github")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--baseline", type=int, default=0, help="also time the codeowners package on the first N paths")
    args = ap.parse_args()
    run(args.rules, args.paths, args.syntax, args.repeats, args.baseline)


if __name__ == "__main__":
    main()
