"""``--repo DIR`` with DIR inside a workspace, run from a shell outside it: relative specs are
read from DIR, as the real tool reads them when started there (``cd DIR && bazel query :x``,
``pnpm -C DIR --filter ./``). Before, ctxsel read them from the shell's directory and the
workspace root only and exited 2 ("unknown target ':core'").

The expected answers are the real tools' (Bazel 4.2.3, pnpm), measured in DIR; the tests skip
visibly when a tool is absent.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests import oracles

ROOT = Path(__file__).resolve().parents[1]


def ctxsel(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ctxsel", *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def labels(cwd: Path, repo: str, *args: str) -> set[str]:
    """The inputs as ctxsel resolved them (``--depth 0``), from ``cwd`` with ``--repo repo``."""
    proc = ctxsel(cwd, "--repo", repo, "--source", "static", "blast-radius", "--depth", "0", "--format", "labels", *args)
    assert proc.returncode == 0, proc.stderr
    return set(proc.stdout.split())


def fixture_copy(tmp_path: Path, name: str) -> Path:
    dest = tmp_path / "ws"
    shutil.copytree(ROOT / "fixtures" / name, dest, ignore=shutil.ignore_patterns(".ctxsel", "node_modules"))
    return dest


# spec, DIR (workspace-relative): each resolves to rules only, so `bazel query SPEC` in DIR is the answer
BAZEL_CASES = [(":core", "core"), (":all", "core"), ("...", "core"), ("nested/...", "data"), ("nested", "data"), (":files", "data")]


def test_relative_bazel_specs_read_from_repo_dir_as_bazel_query_there(tmp_path: Path) -> None:
    bazel = oracles.require("bazel")
    ws = fixture_copy(tmp_path, "bazel-basic")
    output_base = tmp_path / "ob"
    try:
        for spec, directory in BAZEL_CASES:
            proc = oracles.run([bazel, f"--output_base={output_base}", "query", spec], cwd=ws / directory,
                               env=oracles.oracle_env())
            expected = {line for line in proc.stdout.split() if line.startswith("//")}
            assert expected, (spec, proc.stderr)
            assert labels(tmp_path, f"ws/{directory}", spec) == expected, (spec, directory)
    finally:
        subprocess.run([bazel, f"--output_base={output_base}", "shutdown"], cwd=ws, capture_output=True, timeout=120)


def test_bazel_relative_label_from_outside_without_repo_dir_still_reads_root(tmp_path: Path) -> None:
    """``--repo`` at the root: ``:x`` is the root package's, and a label that is not there is
    still unknown (exit 2), as before."""
    fixture_copy(tmp_path, "bazel-basic")
    proc = ctxsel(tmp_path, "--repo", "ws", "--source", "static", "blast-radius", ":core")
    assert proc.returncode == 2 and "unknown target ':core'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_pnpm_file_path_and_files_read_from_repo_dir_as_pnpm_dir(tmp_path: Path) -> None:
    """``pnpm -C packages/utils --filter ./`` selects @ws/utils: relative paths are read from
    ``-C``'s directory; ctxsel's ``--repo packages/utils src/x.ts`` and ``--files src/x.ts`` too."""
    ws = fixture_copy(tmp_path, "js-pnpm")
    (ws / "packages/utils/src").mkdir(parents=True)
    (ws / "packages/utils/src/x.ts").write_text("export {}\n")
    pnpm = oracles.which("pnpm")
    if pnpm:
        proc = oracles.run([pnpm, "-C", str(ws / "packages/utils"), "--filter", "./", "ls", "--depth", "-1", "--json"],
                           cwd=tmp_path, env=oracles.oracle_env())
        expected = {entry["name"] for entry in json.loads(proc.stdout)}
    else:
        expected = {json.loads((ws / "packages/utils/package.json").read_text())["name"]}  # what pnpm answered here
    assert labels(tmp_path, "ws/packages/utils", "src/x.ts") == expected
    assert labels(tmp_path, "ws/packages/utils", "--files", "src/x.ts") == expected
    if not pnpm:
        pytest.skip("pnpm not installed: compared with the measured answer (the package owning DIR) only")


@pytest.mark.parametrize("args", [["tests", "core/core.h"], ["blast-radius", "core/core.h"], ["blast-radius", ":core"]])
def test_readme_forms_with_repo_at_the_root_answer_as_from_inside(args: list[str], tmp_path: Path) -> None:
    """The README's ``--repo fixtures/bazel-basic tests core/core.h`` (DIR is the root) answers
    what ``cd fixtures/bazel-basic && ctxsel ...`` answers: nothing moved for that form."""
    ws = fixture_copy(tmp_path, "bazel-basic")
    outside = ctxsel(tmp_path, "--repo", "ws", "--source", "static", *args)
    inside = ctxsel(ws, "--source", "static", *args)
    assert (outside.returncode, outside.stdout) == (inside.returncode, inside.stdout)
