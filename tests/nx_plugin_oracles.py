"""The real nx with Nx's official plugins (``.ci/oracles-nx-plugins.sh``), for differential tests.

The installer puts nx 24.0.6 and ``@nx/vitest``, ``@nx/jest``, ... into
``$ORACLE_PREFIX/nx-plugins``. A fixture keeps no ``node_modules`` of its own: ``NODE_PATH``
points at the install, which is how Nx resolves the plugins named in nx.json (and how the
launcher finds nx itself). Configs are plain objects, so vite/jest load them without any
package import. Tests skip, saying why, when the install is missing.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path

import pytest

PREFIX = Path(os.environ.get("ORACLE_PREFIX", Path.home() / ".cache" / "ctxsel-oracles"))
PLUGINS = PREFIX / "nx-plugins"
NX = PLUGINS / "node_modules" / ".bin" / "nx"
INSTALL_HINT = "run: bash .ci/oracles-nx-plugins.sh"
#: every plugin the tests load
REQUIRED = ("@nx/vitest", "@nx/jest", "@nx/vite", "vite", "vitest")


def require_nx_plugins() -> Path:
    """The nx next to the plugins, or skip the test saying why."""
    missing = [p for p in REQUIRED if not (PLUGINS / "node_modules" / p / "package.json").is_file()]
    if not NX.exists() or missing:
        pytest.skip(f"nx with plugins not installed ({', '.join(missing) or 'nx'} missing; {INSTALL_HINT})")
    return NX


def plugin_env(root: Path, state: Path) -> dict[str, str]:
    """Offline nx: no daemon/cloud/TUI, state outside the fixture, plugins through NODE_PATH."""
    env = dict(os.environ)
    env.update({
        "NX_DAEMON": "false", "NX_NO_CLOUD": "true", "NX_TUI": "false", "NX_SKIP_NX_CACHE": "true",
        "NX_CACHE_PROJECT_GRAPH": "false", "VITE_CONFIG_NATIVE_IGNORE_WARNING": "true",
        "NX_WORKSPACE_DATA_DIRECTORY": str(state / "wd"), "NX_CACHE_DIRECTORY": str(state / "cache"),
        "NX_WORKSPACE_ROOT_PATH": str(root), "NODE_PATH": str(PLUGINS / "node_modules"),
        "PATH": f"{NX.parent}{os.pathsep}{env.get('PATH', '')}",
    })
    return env


def run_nx(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    with tempfile.TemporaryDirectory(prefix="ctxsel-nxp-") as state:
        return subprocess.run([str(require_nx_plugins()), *args], cwd=root, env=plugin_env(root, Path(state)),
                              capture_output=True, text=True, timeout=300)


def nx_graph_nodes(root: Path) -> dict[str, dict]:
    """``nx graph --file``'s nodes (project name -> node); AssertionError when nx fails."""
    out = root.parent / f"{root.name}-graph.json"
    proc = run_nx(root, "graph", f"--file={out}")
    text = proc.stdout + proc.stderr
    assert proc.returncode == 0 and out.is_file() and "Configuration Error" not in text, text[-1500:]
    try:
        return json.loads(out.read_text())["graph"]["nodes"]
    finally:
        out.unlink()


def nx_with_target(root: Path, target: str = "test") -> set[str]:
    """Projects that have ``target`` (``nx show projects --with-target``)."""
    return {name for name, node in nx_graph_nodes(root).items() if target in node["data"].get("targets", {})}


def nx_affected_tests(root: Path, files: list[str]) -> set[str]:
    """Projects whose ``test`` task ``nx affected -t test --files=...`` selects."""
    out = root.parent / f"{root.name}-tasks.json"
    proc = run_nx(root, "affected", "-t", "test", f"--files={','.join(files)}", f"--graph={out}")
    assert proc.returncode == 0 and out.is_file(), (proc.stdout + proc.stderr)[-1500:]
    try:
        tasks = json.loads(out.read_text())["tasks"]["tasks"]
    finally:
        out.unlink()
    return {t["target"]["project"] for t in tasks.values() if t["target"]["target"] == "test"}
