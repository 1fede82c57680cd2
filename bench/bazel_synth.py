"""A deterministic synthetic Bazel workspace for the speed benchmark.

``python -m bench.bazel_synth OUT --packages 5000`` writes OUT with that many packages
of four rules each (a cc_library made by a macro from ``//tools:defs.bzl`` plus its
cc_test, a filegroup over a glob, and a genrule), ~20,000 targets in all. Libraries
depend on 1-3 libraries of lower-numbered packages, so the graph is a DAG whose low
packages have thousands of transitive dependents, like the "core" of a real monorepo.
The same arguments always write the same files (seeded RNG), so numbers are comparable.

Only native rules that ``oracle-bazel4`` can query offline are used.
"""

from __future__ import annotations

import argparse
import random
import shutil
from pathlib import Path

DEFS_BZL = '''"""The macro every synthetic package uses."""

def lib_with_test(name, deps = [], tags = []):
    native.cc_library(
        name = name,
        srcs = native.glob(["*.cc"], exclude = ["*_test.cc"]),
        hdrs = native.glob(["*.h"]),
        deps = deps,
        visibility = ["//visibility:public"],
    )
    native.cc_test(
        name = name + "_test",
        srcs = [name + "_test.cc"],
        deps = [":" + name],
        tags = tags,
    )
'''


MARKER = ".bazel_synth"  # lets a rerun replace its own output, and nothing else


def package_path(i: int) -> str:
    """``g017/p01234``: 50 packages per group directory, so directories stay small."""
    return f"g{i // 50:03d}/p{i:05d}"


def generate(out: Path, packages: int, seed: int = 1) -> int:
    """Write the workspace; returns the number of rule targets."""
    rng = random.Random(seed)
    if out.exists() and any(out.iterdir()):
        if not (out / MARKER).is_file():
            raise SystemExit(f"{out} exists and was not written by bench.bazel_synth; refusing to replace it")
        shutil.rmtree(out)
    (out / "tools").mkdir(parents=True)
    (out / MARKER).write_text(f"packages={packages} seed={seed}\n")
    (out / "WORKSPACE").write_text('workspace(name = "synth")\n')
    (out / "tools" / "BUILD").write_text('exports_files(["defs.bzl"])\n')
    (out / "tools" / "defs.bzl").write_text(DEFS_BZL)
    targets = 0
    for i in range(packages):
        pkg = package_path(i)
        d = out / pkg
        d.mkdir(parents=True)
        if i == 0:
            deps: list[str] = []
        else:
            # Prefer recent packages (locality) with a pull towards the oldest ones (a core).
            picks = {rng.randrange(max(0, i - 200), i) for _ in range(rng.randint(1, 2))}
            if rng.random() < 0.3:
                picks.add(rng.randrange(0, min(i, 20)))
            deps = sorted(f"//{package_path(j)}:lib" for j in picks)
        tags = '["manual"]' if i % 97 == 0 else "[]"
        dep_text = "".join(f'        "{x}",\n' for x in deps)
        (d / "BUILD").write_text(
            'load("//tools:defs.bzl", "lib_with_test")\n\n'
            f'lib_with_test(\n    name = "lib",\n    tags = {tags},\n    deps = [\n{dep_text}    ],\n)\n\n'
            'filegroup(\n    name = "data",\n    srcs = glob(["data/*.txt"]),\n)\n\n'
            f'genrule(\n    name = "gen",\n    srcs = [":data"],\n    outs = ["gen_{i}.h"],\n    cmd = "cat $(SRCS) > $@",\n)\n'
        )
        (d / "lib.cc").write_text(f"// package {i}\n")
        (d / "lib.h").write_text(f"// package {i}\n")
        (d / "lib_test.cc").write_text(f"// test {i}\n")
        (d / "data").mkdir()
        (d / "data" / "a.txt").write_text(f"{i}\n")
        targets += 4
    return targets


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--packages", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    n = generate(args.out, args.packages, args.seed)
    print(f"wrote {args.packages} packages, {n} rule targets to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
