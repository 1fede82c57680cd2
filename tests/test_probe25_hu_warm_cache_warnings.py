"""A warning the graph's loading gives is printed on every run, not only on the first.

Found on code-pushup/cli (session 25, helper hu): its nx.json lists two plugins ctxsel's static
Nx mode does not model; the first ``ctxsel blast-radius utils`` warned that their targets are
unknown, every later run (a graph cache hit) and every MCP call said nothing, so a user who
ran ctxsel once from a script never learnt why their plugin's targets were missing.
No build tool applies: the rule is ctxsel's own (the same files warn the same on every run).
"""

from __future__ import annotations

import json
from pathlib import Path

from jsfixtures import copy_fixture

from ctxsel import Workspace

PLUGIN_WARNING = "'@acme/nx-custom-plugin'"


def nx_repo_with_unmodelled_plugin(tmp_path: Path) -> Path:
    root = copy_fixture("js-nx", tmp_path)
    nx_json = json.loads((root / "nx.json").read_text())
    nx_json["plugins"] = ["@acme/nx-custom-plugin"]
    (root / "nx.json").write_text(json.dumps(nx_json, indent=2))
    return root


def test_a_cache_hit_still_warns_about_an_unmodelled_nx_plugin(tmp_path: Path, cli) -> None:
    root = nx_repo_with_unmodelled_plugin(tmp_path)
    runs = [cli("--repo", str(root), "--source", "static", "blast-radius", "@ws/core", "--format", "labels")
            for _ in range(2)]
    assert (root / ".ctxsel" / "cache").is_dir()  # the second run was a cache hit
    for proc in runs:
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr.count(PLUGIN_WARNING) == 1, proc.stderr  # once per run, never twice
    assert runs[0].stdout == runs[1].stdout


def test_the_api_keeps_the_warning_on_a_warm_open_and_the_cache_goes_with_the_file(tmp_path: Path) -> None:
    root = nx_repo_with_unmodelled_plugin(tmp_path)
    cold = Workspace.open(root, source="static")
    warm = Workspace.open(root, source="static")
    assert [w for w in cold.warnings if PLUGIN_WARNING in w] == [w for w in warm.warnings if PLUGIN_WARNING in w] != []
    (root / "nx.json").write_text((root / "nx.json").read_text().replace('"@acme/nx-custom-plugin"', ""
                                                                         ).replace("[\n    \n  ]", "[]"))
    assert not any(PLUGIN_WARNING in w for w in Workspace.open(root, source="static").warnings)
