"""How often ctxsel's static graph agrees with pnpm / Turborepo on a real workspace.

    python -m bench.js_agreement /tmp/jsreal/vuejs+core --tool pnpm
    python -m bench.js_agreement /tmp/jsreal/t3-oss+create-t3-turbo --tool turbo

For every package X it compares ctxsel's ``blast-radius X`` (static mode, no cache)
with ``pnpm --filter '...{dir}' ls --depth -1 --json`` or ``turbo ls
--filter='...{dir}' --output=json``, as sets of package directories, and prints the
agreement count and every disagreement. Run it on an extracted copy (``git archive``),
never inside a repo you care about: turbo may create ``.turbo/``. The real tools come
from the oracle install (``source ~/.cache/ctxsel-oracles/oracle-env.sh``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from ctxsel.adapters.js.pnpm import PNPM_ENV
from ctxsel.adapters.js.turbo import turbo_env
from ctxsel.workspace import Workspace

ENV = {**PNPM_ENV, **turbo_env()}  # exactly what ctxsel's tool mode sets


def tool_dirs(root: Path, tool: str, selector: str) -> set[str]:
    env = {**os.environ, **ENV}
    if tool == "pnpm":
        argv = ["pnpm", "--filter", selector, "ls", "--depth", "-1", "--json"]
    else:
        argv = ["turbo", "ls", f"--filter={selector}", "--output=json"]
    proc = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, timeout=120, check=True)
    out = json.loads(proc.stdout)
    if tool == "pnpm":
        rels = {Path(p["path"]).resolve().relative_to(root.resolve()).as_posix() for p in out}
        return {"" if r == "." else r for r in rels}
    return {p["path"].strip("/") for p in out["packages"]["items"]}


def turbo_test_dirs(root: Path, selector: str) -> set[str]:
    """Packages whose ``test`` task ``turbo run test --dry=json`` would really run."""
    proc = subprocess.run(["turbo", "run", "test", f"--filter={selector}", "--dry=json"], cwd=root,
                          env={**os.environ, **ENV}, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0 and "Could not find task `test`" in proc.stderr:
        return set()  # no test task in turbo.json: turbo runs no tests at all
    proc.check_returncode()
    return {t["directory"].strip("/") for t in json.loads(proc.stdout)["tasks"]
            if t["task"] == "test" and t["command"] != "<NONEXISTENT>"}


def agreement(root: Path, tool: str, tests: bool = False) -> tuple[int, int, list[str]]:
    ws = Workspace.open(root, adapter=tool, source="static", use_cache=False)
    total = agree = 0
    problems: list[str] = []
    for node in sorted(ws.graph.nodes(), key=lambda n: n.package):
        if not ws.adapter.reportable(ws.graph, node.id):
            continue
        ours = {ws.graph.node(i).package for i in ws.blast_radius(roots=[node.id]).ids}
        theirs = tool_dirs(root, tool, "...{" + (node.package or ".") + "}")
        if tests and tool == "turbo":
            ours_t = {ws.graph.node(i).package for i in ws.tests(roots=[node.id]).tests}
            theirs_t = turbo_test_dirs(root, "...{" + node.package + "}")
            if ours_t != theirs_t:
                problems.append(f"{node.id} tests: only ctxsel {sorted(ours_t - theirs_t)}, only turbo {sorted(theirs_t - ours_t)}")
                theirs = set()  # count the package as a disagreement
        total += 1
        if ours == theirs:
            agree += 1
        else:
            problems.append(f"{node.id}: only ctxsel {sorted(ours - theirs)}, only {tool} {sorted(theirs - ours)}")
    return agree, total, problems + [f"warning: {w}" for w in ws.warnings]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--tool", choices=["pnpm", "turbo"], required=True)
    parser.add_argument("--tests", action="store_true", help="turbo: also compare test sets with --dry=json")
    args = parser.parse_args(argv)
    agree, total, problems = agreement(args.root, args.tool, args.tests)
    print(f"{args.root.name}: {agree}/{total} packages agree with {args.tool}")
    for line in problems:
        print("  " + line)
    return 0 if agree == total else 1


if __name__ == "__main__":
    sys.exit(main())
