"""Finding and running the real build tools for differential tests.

The tools come from ``../shared/oracles/install.sh`` (``.ci/run`` runs it). When a
tool is missing the test is skipped with a reason that says how to install it, so a
skip is visible in pytest's summary (``-ra``) rather than silently green.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

PREFIX = Path(os.environ.get("ORACLE_PREFIX", Path.home() / ".cache" / "ctxsel-oracles"))
INSTALL_HINT = "run: bash ../shared/oracles/install.sh"


def oracle_env() -> dict[str, str]:
    """The environment of ``$ORACLE_PREFIX/oracle-env.sh`` applied to this process's."""
    env = dict(os.environ)
    script = PREFIX / "oracle-env.sh"
    if script.is_file():
        for line in script.read_text().splitlines():
            line = line.strip()
            if not line.startswith("export "):
                continue
            for name, value in re.findall(r'(\w+)=("[^"]*"|\S+)', line[len("export "):]):
                value = value.strip('"').replace("$PATH", env.get("PATH", "")).replace("\\$PATH", env.get("PATH", ""))
                env[name] = value
    return env


def which(tool: str) -> str | None:
    return shutil.which(tool, path=oracle_env().get("PATH"))


def require(tool: str) -> str:
    """Path of ``tool`` from the oracle install, or skip the test saying why."""
    found = which(tool)
    if not found:
        pytest.skip(f"{tool} not installed ({INSTALL_HINT})")
    return found


def run(argv: list[str], cwd: Path, timeout: float = 300, check: bool = True, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = oracle_env()
    if env:
        full_env.update(env)
    proc = subprocess.run(argv, cwd=cwd, env=full_env, capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"{argv} exited {proc.returncode}\nstdout:{proc.stdout[-2000:]}\nstderr:{proc.stderr[-2000:]}")
    return proc


def nx_affected(tool: str, root: Path, state: Path, *extra: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """``nx show projects --affected --base=HEAD~1 --head=HEAD [extra] --json`` on ``root``, offline,
    without the daemon, with its workspace data in ``state`` (one directory per workspace: Nx
    keys its cache by workspace, and a shared one can answer for the previous fixture)."""
    from ctxsel.adapters.js.nx import node_path_env

    env = {"NX_WORKSPACE_DATA_DIRECTORY": str(state / "wd"), "NX_CACHE_DIRECTORY": str(state / "cache"),
           "NX_WORKSPACE_ROOT_PATH": str(root), "NX_DAEMON": "false", **node_path_env(tool, root, None)}
    return run([tool, "show", "projects", "--affected", "--base=HEAD~1", "--head=HEAD", *extra, "--json"],
               cwd=root, env=env, check=check)


def nx_projects(out: str) -> set[str]:
    """The project names of ``nx show projects --json`` output (Nx may print notes before it)."""
    return set(json.loads(out[out.index("["):]))


# ---------------------------------------------------------------------- yarn (.ci/oracles-yarn.sh)
YARN_PREFIX = PREFIX / "yarn" / "node_modules"
YARN_HINT = "run: bash .ci/oracles-yarn.sh"
#: yarn never reads the network or writes global state for these queries; its own yarnPath
#: is ignored so the pinned oracle answers, and yarn 1 runs where packageManager names yarn 4
#: berry makes installs immutable when it sees CI (``CI=true``, as ``.ci/run`` sets): the
#: fixtures have no lockfile, so an install there must be allowed to write one
YARN_ENV = {"YARN_IGNORE_PATH": "1", "SKIP_YARN_COREPACK_CHECK": "1", "YARN_ENABLE_TELEMETRY": "0",
            "YARN_ENABLE_PROGRESS_BARS": "false", "YARN_ENABLE_IMMUTABLE_INSTALLS": "false"}


def yarn_js(berry: bool) -> str:
    """The oracle's own bin/yarn.js (both packages install a ``yarn`` bin, so none is on PATH),
    or skip the test saying how to install it."""
    js = YARN_PREFIX / ("@yarnpkg/cli-dist" if berry else "yarn") / "bin" / "yarn.js"
    if not js.is_file() or not shutil.which("node"):
        pytest.skip(f"{'yarn 4 (@yarnpkg/cli-dist)' if berry else 'yarn 1'} not installed ({YARN_HINT})")
    return str(js)


def yarn_run(berry: bool, root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """``node <oracle yarn.js> ARGS`` in ``root``."""
    return run(["node", yarn_js(berry), *args], root, timeout=120, check=check, env=YARN_ENV)


def yarn_graph(berry: bool, root: Path) -> dict[str, set[str]]:
    """dir -> dirs of its workspace dependencies, as yarn lists them ("" is the root; yarn 1
    does not list the root): ``workspaces info`` (yarn 1), ``workspaces list -v --json`` (berry)."""
    if not berry:
        out = yarn_run(False, root, "--silent", "workspaces", "info").stdout
        data = json.loads(out[out.index("{"):])
        loc = {name: info["location"] for name, info in data.items()}
        return {info["location"]: {loc[d] for d in info["workspaceDependencies"]} for info in data.values()}
    return _berry_list(yarn_js(True), root)


def _berry_list(js: str, root: Path) -> dict[str, set[str]]:
    """``workspaces list -v --json`` of the berry at ``js``: dir -> its dependencies' dirs."""
    out = run(["node", js, "workspaces", "list", "-v", "--json"], root, timeout=120, env=YARN_ENV).stdout
    items = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    fix = lambda d: "" if d == "." else d  # noqa: E731
    return {fix(i["location"]): {fix(d) for d in i["workspaceDependencies"]} for i in items}


#: the older berry majors (.ci/oracles-yarn.sh installs each in its own prefix)
OLD_BERRY = {2: "2.4.2", 3: "3.8.7"}


def old_berry_graph(major: int, root: Path) -> dict[str, set[str]]:
    """``yarn_graph`` answered by yarn 2 or 3 (``OLD_BERRY``), or skip saying how to install it."""
    js = PREFIX / f"yarn-berry{major}" / "node_modules" / "@yarnpkg" / "cli-dist" / "bin" / "yarn.js"
    if not js.is_file() or not shutil.which("node"):
        pytest.skip(f"yarn {OLD_BERRY[major]} not installed ({YARN_HINT})")
    return _berry_list(str(js), root)


def yarn_since(root: Path, ref: str, recursive: bool = False) -> set[str]:
    """Directories berry's ``workspaces list --since REF [-R]`` lists ("" is the root)."""
    out = yarn_run(True, root, "workspaces", "list", f"--since={ref}", *(["-R"] if recursive else []), "--json").stdout
    return {"" if i["location"] == "." else i["location"] for i in map(json.loads, filter(None, out.splitlines()))}
