"""How often ctxsel's static graph agrees with pnpm / Turborepo on a real workspace.

    python -m bench.js_agreement /tmp/jsreal/vuejs+core --tool pnpm
    python -m bench.js_agreement /tmp/jsreal/t3-oss+create-t3-turbo --tool turbo
    python -m bench.js_agreement /tmp/jsreal/jestjs+jest --tool yarn --yarn ~/.cache/ctxsel-oracles/yarn/node_modules/@yarnpkg/cli-dist/bin/yarn.js
    python -m bench.js_agreement /tmp/jsreal/TanStack+router --tool nx

For every package X it compares ctxsel's ``blast-radius X`` (static mode, no cache)
with ``pnpm --filter '...{dir}' ls --depth -1 --json`` or ``turbo ls
--filter='...{dir}' --output=json``, as sets of package directories, and prints the
agreement count and every disagreement. yarn and Nx have no "dependents of X" query:
their whole graph (``yarn workspaces info`` / ``workspaces list -v --json``, ``nx graph
--file``) is read once and its reverse closure taken; Nx compares project names (run it
on a copy prepared as ``bench/nx_compare.py --prepare`` does: Nx offline needs that). Run it on an extracted copy (``git archive``),
never inside a repo you care about: turbo may create ``.turbo/``. The real tools come
from the oracle install (``source ~/.cache/ctxsel-oracles/oracle-env.sh``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
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


#: how ``turbo run`` says it refuses the whole task graph (``turbo_test_dirs`` returns None)
TURBO_REFUSALS = ("recursive_turbo_invocations",)


def turbo_test_dirs(root: Path, selector: str, argv: list[str] | None = None, task: str = "test") -> set[str] | None:
    """Packages whose ``task`` (``test`` unless ``--target``) ``turbo run TASK --filter=SELECTOR
    --dry=json`` (or ``argv``, a whole ``turbo run TASK ...`` command, with ``--dry=json``) would
    really run; None when turbo refuses the whole run (``TURBO_REFUSALS``), which ctxsel must say
    in a warning."""
    argv = argv or ["turbo", "run", task, f"--filter={selector}"]
    proc = subprocess.run([*argv, "--dry=json"], cwd=root,
                          env={**os.environ, **ENV}, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0 and f"Could not find task `{task}`" in proc.stderr:
        return set()  # no such task in turbo.json: turbo runs none of it
    if proc.returncode != 0 and any(r in proc.stderr for r in TURBO_REFUSALS):
        return None
    proc.check_returncode()
    # turbo's placeholders run nothing: <NONEXISTENT> (no script), <OPT OUT> ("extends": false
    # reached through a package turbo.json; 2.11.11 prints it even for a package without the script)
    return {t["directory"].strip("/") for t in json.loads(proc.stdout)["tasks"]
            if t["task"] == task and t["command"] not in ("<NONEXISTENT>", "<OPT OUT>")}


def yarn_deps(root: Path, yarn: str) -> dict[str, set[str]]:
    """dir -> dirs of its workspace dependencies as the yarn at ``yarn`` (a yarn.js) lists
    them ("" is the root; yarn 1 does not list the root, which then has none)."""
    from ctxsel.adapters.js.yarn import YARN_ENV, _parse_berry, _parse_classic

    env = {**os.environ, **YARN_ENV, "YARN_IGNORE_PATH": "1"}
    version = subprocess.run(["node", yarn, "--version"], cwd=root, env=env, capture_output=True,
                             text=True, timeout=120, check=True).stdout.strip()
    berry = not version.startswith(("0.", "1."))
    args = ["workspaces", "list", "-v", "--json"] if berry else ["--silent", "workspaces", "info"]
    out = subprocess.run(["node", yarn, *args], cwd=root, env=env, capture_output=True, text=True,
                         timeout=300, check=True).stdout
    listed = _parse_berry(out) if berry else _parse_classic(out)
    return {rel: set(deps) for rel, (_name, deps) in listed.items()}


def nx_deps(root: Path) -> dict[str, set[str]]:
    """project name -> names of the projects it depends on, from ``nx graph --file``."""
    import tempfile

    from ctxsel.adapters.js.nx import node_path_env

    nx = shutil.which("nx") or "nx"
    env = {**os.environ, **ENV, **node_path_env(nx, root, os.environ.get("NODE_PATH"))}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "graph.json"
        subprocess.run([nx, "graph", f"--file={out}"], cwd=root, env=env, capture_output=True, text=True,
                       timeout=600, check=True)
        graph = json.loads(out.read_text())["graph"]
    return {name: {d["target"] for d in graph["dependencies"].get(name, [])
                   if not d["target"].startswith("npm:")} for name in graph["nodes"]}


def dependents(deps: dict[str, set[str]], start: str) -> set[str]:
    """``start`` and everything that reaches it in ``deps`` (node -> its dependencies)."""
    rdeps: dict[str, set[str]] = {}
    for node, targets in deps.items():
        for t in targets:
            rdeps.setdefault(t, set()).add(node)
    seen, todo = {start}, [start]
    while todo:
        for d in rdeps.get(todo.pop(), ()):
            if d not in seen:
                seen.add(d)
                todo.append(d)
    return seen


def agreement(root: Path, tool: str, tests: bool = False, yarn: str | None = None,
              task: str = "test") -> tuple[int, int, list[str]]:
    ws = Workspace.open(root, adapter=tool, source="static", use_cache=False)
    whole = yarn_deps(root, yarn or "yarn") if tool == "yarn" else nx_deps(root) if tool == "nx" else None
    if whole is not None and tool == "yarn" and "" not in whole:
        whole[""] = set()  # yarn 1 does not list the root
    total = agree = 0
    problems: list[str] = []
    for node in sorted(ws.graph.nodes(), key=lambda n: n.package):
        if not ws.adapter.reportable(ws.graph, node.id):
            continue
        key = (lambda n: n.id) if tool == "nx" else (lambda n: n.package)
        ours = {key(ws.graph.node(i)) for i in ws.blast_radius(roots=[node.id]).ids}
        if whole is not None:
            theirs = dependents(whole, key(node)) if key(node) in whole else set()
        else:
            theirs = tool_dirs(root, tool, "...{" + (node.package or ".") + "}")
        if tests and tool == "turbo":
            selection = ws.tests(roots=[node.id], target=task)
            ours_t = {ws.graph.node(i).package for i in selection.tests}
            theirs_t = turbo_test_dirs(root, "...{" + node.package + "}", task=task)
            if theirs_t is None:  # turbo refuses the run: ctxsel must warn that it does
                if not any(w.startswith("turbo refuses to run this command") for w in selection.warnings):
                    problems.append(f"{node.id} tests: turbo refuses the run, ctxsel does not say so")
                    theirs = set()
            else:
                # ``turbo run test --filter=...{X}`` also runs, through dependsOn ("^test"), the tests of
                # packages the filtered ones depend on (0xIntuition/intuition-ts: a package without a
                # test script whose ^test reaches two others; turbo 2.11.11). Those are prerequisites,
                # not affected packages: compared are the tests of the filtered packages, and apart
                # from that what ctxsel's own command runs beyond its selection must be in its warning.
                theirs_t &= theirs
                ran = turbo_test_dirs(root, "", selection.argv, task) if ours_t == theirs_t and ours_t and selection.argv else ours_t
                if ours_t != theirs_t:
                    problems.append(f"{node.id} tests: only ctxsel {sorted(ours_t - theirs_t)}, only turbo {sorted(theirs_t - ours_t)}")
                    theirs = set()  # count the package as a disagreement
                elif ran is None or not ours_t <= ran:
                    problems.append(f"{node.id} tests: ctxsel's command {selection.command!r} runs {ran}")
                    theirs = set()
                elif ran - ours_t and not any(w.startswith(f"the command also runs the {task} task") for w in selection.warnings):
                    problems.append(f"{node.id} tests: ctxsel's command also runs {sorted(ran - ours_t)} (dependsOn), "
                                    "its warnings do not say so")
                    theirs = set()
        total += 1
        if ours == theirs:
            agree += 1
        else:
            problems.append(f"{node.id}: only ctxsel {sorted(ours - theirs)}, only {tool} {sorted(theirs - ours)}")
    return agree, total, problems + [f"warning: {w}" for w in ws.warnings]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--tool", choices=["pnpm", "turbo", "yarn", "nx"], required=True)
    parser.add_argument("--yarn", help="yarn: the yarn.js to run (default: the repo's yarnPath, else yarn on PATH)")
    parser.add_argument("--tests", action="store_true", help="turbo: also compare test sets with --dry=json")
    parser.add_argument("--target", default="test", metavar="TASK",
                        help="turbo --tests: compare this task instead of test (ctxsel tests -t TASK)")
    args = parser.parse_args(argv)
    yarn = args.yarn
    if args.tool == "yarn" and yarn is None:
        from ctxsel.adapters.js.yarn import yarn_release

        own = yarn_release(args.root)
        yarn = str(args.root.resolve() / own) if own else shutil.which("yarn")  # yarn runs with cwd=root
        if yarn is None:  # else "node yarn" fails with a module-not-found trace that looks like yarn refusing the repo
            parser.error("no yarnPath in the repo and no yarn on PATH: pass --yarn (the oracle install has yarn 1 at "
                         "~/.cache/ctxsel-oracles/yarn/node_modules/yarn/bin/yarn.js)")
    try:
        agree, total, problems = agreement(args.root, args.tool, args.tests, yarn, args.target)
    except subprocess.CalledProcessError as err:  # the tool refuses the whole workspace (polaris's turbo 1 turbo.json)
        said = " | ".join(line.strip() for line in (err.stderr or err.stdout or "").splitlines() if line.strip())
        print(f"{args.root.name}: {args.tool} refuses the workspace ({' '.join(map(str, err.cmd))}: exit {err.returncode}): {said[:300]}")
        return 1
    print(f"{args.root.name}: {agree}/{total} packages agree with {args.tool}")
    for line in problems:
        print("  " + line)
    return 0 if agree == total else 1


if __name__ == "__main__":
    sys.exit(main())
