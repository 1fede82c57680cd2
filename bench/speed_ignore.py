"""Ignore-rule matching with a long ``.ctxselignore``: what ``list_repo_files`` does per file.

    python -m bench.speed_ignore --runs 3                  # this checkout
    python -m bench.speed_ignore --runs 3 --old HEAD       # side by side with selector/files.py of a commit

A synthetic rule file (``--rules``, 20,000 by default) in the shapes real ignore files
have -- anchored literal paths, literal names, ``*.ext``, ``dir/``, globs under a literal
directory, ``**/x/*.o``, ``name*`` globs, ``!`` re-includes, ``a/**/b`` -- and ``--files``
repo paths (2,000), some of which each shape matches. One run parses the rules
(``IgnoreRules(lines)``) and asks ``ignored(path)`` for every path, as one ``select``
run does. With ``--old``, both versions run round-robin and their answers are checked
to be equal before any time is reported; the medians of ``--runs`` runs are printed.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

import ctxsel.files as current


def rule_lines(n: int, rnd: random.Random) -> list[str]:
    shapes = [
        (35, lambda i: f"/gen/d{i % 400}/f{i}.txt"),
        (15, lambda i: f"name{i}.dat"),
        (10, lambda i: f"*.ext{i}"),
        (10, lambda i: f"cache{i}/"),
        (10, lambda i: f"src/m{i % 300}/*.j{i}"),
        (5, lambda i: f"**/tmp{i}/*.o"),
        (5, lambda i: f"f{i}*.log"),
        (5, lambda i: f"!keep{i}.dat"),
        (5, lambda i: f"docs/**/x{i}.md"),
    ]
    weights = [w for w, _ in shapes]
    return [rnd.choices(shapes, weights)[0][1](i) for i in range(n)]


def repo_paths(n: int, rules: int, rnd: random.Random) -> list[str]:
    def one() -> str:
        i = rnd.randrange(rules)
        return rnd.choice([
            f"gen/d{i % 400}/f{i}.txt", f"lib/name{i}.dat", f"pkg/a.ext{i}", f"cache{i}/x.py",
            f"src/m{i % 300}/a.j{i}", f"w/tmp{i}/b.o", f"f{i}abc.log", f"keep{i}.dat",
            f"docs/a/b/x{i}.md", f"src/m{i % 300}/deep/file{i}.py", f"app/module{i}/index.ts",
        ])
    return sorted({one() for _ in range(n)})


def load_old(rev: str) -> ModuleType:
    """``selector/files.py`` of ``rev`` as ``ctxsel._files_old`` (its relative imports resolve in ctxsel)."""
    root = Path(current.__file__).resolve().parent.parent
    source = subprocess.run(["git", "-C", str(root), "show", f"{rev}:selector/files.py"],
                            capture_output=True, text=True, check=True).stdout
    path = Path(tempfile.mkdtemp()) / "files_old.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("ctxsel._files_old", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "ctxsel"
    sys.modules["ctxsel._files_old"] = module
    spec.loader.exec_module(module)
    return module


def run_once(mod: ModuleType, lines: list[str], paths: list[str]) -> tuple[float, list[bool]]:
    start = time.perf_counter()
    rules = mod.IgnoreRules(lines)
    answers = [rules.ignored(p) for p in paths]
    return time.perf_counter() - start, answers


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", type=int, default=20_000)
    ap.add_argument("--files", type=int, default=2_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--old", help="a git revision whose selector/files.py runs side by side")
    args = ap.parse_args(argv)
    rnd = random.Random(args.seed)
    lines = rule_lines(args.rules, rnd)
    paths = repo_paths(args.files, args.rules, rnd)
    versions: dict[str, ModuleType] = {"current": current}
    if args.old:
        versions[args.old] = load_old(args.old)
    times: dict[str, list[float]] = {name: [] for name in versions}
    answers: dict[str, list[bool]] = {}
    for _ in range(args.runs):
        for name, mod in versions.items():
            seconds, got = run_once(mod, lines, paths)
            times[name].append(seconds)
            answers.setdefault(name, got)
    reference = answers["current"]
    for name, got in answers.items():
        if got != reference:
            diff = [p for p, a, b in zip(paths, got, reference) if a != b]
            print(f"answers differ between {name} and current on {len(diff)} paths, e.g. {diff[:5]}")
            return 1
    print(f"{len(lines)} rules, {len(paths)} paths, {sum(reference)} ignored; median of {args.runs} runs:")
    for name, values in times.items():
        print(f"  {name:>10}: {statistics.median(values):8.3f} s   (runs: {', '.join(f'{v:.3f}' for v in values)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
