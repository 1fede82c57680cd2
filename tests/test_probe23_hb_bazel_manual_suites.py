"""``ctxsel tests`` keeps a ``manual`` test that ``bazel test //...`` runs through a test_suite.

``//...`` skips ``tags = ["manual"]`` targets, but a test_suite it matches (one not tagged
manual) expands to the tests it lists, manual or not. Bazel 4.2.3, measured with ``bazel test
--nobuild //...`` (the targets its build event protocol file says it configured): ``t_manual``
(listed by a plain suite), ``t_manual3`` (through a manual suite nested in a plain one) and
``t_manual4`` (listed by a suite of another package whose tag filter it passes) run;
``t_manual2`` (listed only by a manual suite) and ``t_manual5`` (its suite says ``-manual``)
do not. Old: ``ctxsel tests p/a.sh`` answered only ``//p:t_plain``, in both modes, and
``bench.bazel_agreement`` counted it right by leaving every manual test out too.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import write_tree
from ctxsel.workspace import Workspace
from oracles import PREFIX, require, run

FILES: dict[str, str] = {
    "WORKSPACE": 'workspace(name = "w")\n',
    "p/a.sh": "", "p/t.sh": "#!/bin/sh\n", "q/t.sh": "#!/bin/sh\n",
    "p/BUILD": (
        'sh_library(name = "lib", srcs = ["a.sh"])\n'
        'sh_test(name = "t_manual", srcs = ["t.sh"], deps = [":lib"], tags = ["manual"])\n'
        'sh_test(name = "t_manual2", srcs = ["t.sh"], deps = [":lib"], tags = ["manual"])\n'
        'sh_test(name = "t_manual3", srcs = ["t.sh"], deps = [":lib"], tags = ["manual"])\n'
        'sh_test(name = "t_manual4", srcs = ["t.sh"], deps = [":lib"], tags = ["manual", "slow"], visibility = ["//visibility:public"])\n'
        'sh_test(name = "t_manual5", srcs = ["t.sh"], deps = [":lib"], tags = ["manual"])\n'
        'sh_test(name = "t_plain", srcs = ["t.sh"], deps = [":lib"])\n'
        'test_suite(name = "s", tests = [":t_manual"])\n'
        'test_suite(name = "s_manual", tests = [":t_manual2"], tags = ["manual"])\n'
        'test_suite(name = "outer", tests = [":s_manual3"])\n'
        'test_suite(name = "s_manual3", tests = [":t_manual3"], tags = ["manual"])\n'
        'test_suite(name = "filtered", tests = [":t_manual5"], tags = ["-manual"])\n'
        'test_suite(name = "implicit")\n'
    ),
    "q/BUILD": 'test_suite(name = "far", tests = ["//p:t_manual4"], tags = ["slow"])\n',
}
#: Bazel 4.2.3: the test rules ``bazel test --nobuild //...`` configures (all depend on //p:lib)
RUN_BY_WILDCARD = {"//p:t_plain", "//p:t_manual", "//p:t_manual3", "//p:t_manual4"}


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_tree(tmp_path_factory.mktemp("probe23hb_manual"), FILES)
    for script in ("p/t.sh", "q/t.sh"):
        (root / script).chmod(0o755)
    return root


def _tests(root: Path, source: str) -> set[str]:
    ws = Workspace.open(root, adapter="bazel", source=source, use_cache=False)
    return set(ws.tests(["p/a.sh"]).tests)


def test_static_keeps_the_manual_tests_a_suite_runs(root: Path) -> None:
    assert _tests(root, "static") == RUN_BY_WILDCARD


def test_tool_mode_agrees(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CTXSEL_BAZEL", require("oracle-bazel4"))
    assert _tests(root, "tool") == RUN_BY_WILDCARD


@pytest.mark.oracle
def test_bazel_test_runs_them(root: Path, tmp_path: Path) -> None:
    bazel = require("bazel-4")
    bep = tmp_path / "bep.txt"
    run([bazel, "--batch", "--nohome_rc", f"--output_user_root={PREFIX / 'state' / 'bazel4-root'}",
         f"--bazelrc={PREFIX / 'oracle.bazelrc'}", "test", "--nobuild", "//...", f"--build_event_text_file={bep}",
         f"--override_repository=remote_coverage_tools={PREFIX / 'bazel-stubs' / 'remote_coverage_tools'}"],
        cwd=root, timeout=300, check=False)  # exit 1 "Couldn't start the build": --nobuild runs no test
    configured = set(re.findall(r'target_configured \{\s*label: "([^"]+)"', bep.read_text()))
    assert configured - {"//p:lib"} == RUN_BY_WILDCARD
