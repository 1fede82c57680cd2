"""A turbo tool-mode failure names turbo's own cause (and so the file), not its last lines.

Found on graphql/graphiql with a broken turbo.json: ``--source static`` said
``turbo.json:2: invalid JSON``, ``--source tool`` said ``turbo query failed (exit 1):   | `}` but
instead the file ends, advice: ParserAdvice { ...`` without naming the file. turbo 2.11.11 writes
miette reports in the ASCII style when stderr is no terminal: ``  x Unable to read repository
configuration /abs/`` then ``  | ...`` lines continuing the message (wrapped at 80 columns, the
path too); ctxsel only knew the Unicode style (``×``, ``╰─▶``) pnpm 12 uses and fell back to the
last three lines. turbo names byte offsets, no line: when it cannot read the root turbo.json and
the static reader refuses the file too, tool mode now reports it as static mode does, at its line
(tests/test_js_turbo.py's ``test_invalid_turbo_json_names_the_line`` failed whenever turbo was on
PATH, auto mode choosing the tool).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from ctxsel.adapters.js.packages import PackageGraphAdapter
from oracles import oracle_env, require

#: turbo 2.11.11's stderr for ``turbo query`` on the workspace below (measured; path shortened)
TURBO_REPORT = """  x Unable to read repository configuration /tmp/w/turbo.json:
  | invalid JSON: [Diagnostic { source_code: Some(SourceCode { text:
  | "{\\"tasks\\": {\\"build\\": {}},}\\n", line_starts:
  | None }), source: ParseDiagnostic { span: Some(30..30), message: expected
  | `}` but instead the file ends, advice: ParserAdvice { advice_list:
  | [Detail(ParserAdviceDetail { message: "the file ends here", span:
  | Some(30..30) })] } } }]

"""


def test_ascii_miette_report_gives_its_cause() -> None:
    proc = subprocess.CompletedProcess(["turbo"], 1, stdout="", stderr=TURBO_REPORT)
    message = str(PackageGraphAdapter.tool_failure(["turbo", "query"], proc))
    assert message.startswith("turbo query failed (exit 1): Unable to read repository configuration /tmp/w/turbo.json: invalid JSON")
    assert "expected `}` but instead the file ends" in message  # the wrapped rest of the cause, on one line
    assert "\n" not in message.split("\n  hint:")[0]


def test_ascii_cause_lines_are_causes() -> None:
    report = "  x load configuration\n  |-> first cause\n  `-> second cause\n   ,-[turbo.json:1:1]\n 1 | {\n"
    proc = subprocess.CompletedProcess(["turbo"], 1, stdout="", stderr=report)
    assert str(PackageGraphAdapter.tool_failure(["turbo", "ls"], proc)).startswith(
        "turbo ls failed (exit 1): load configuration | first cause | second cause")


def test_real_turbo_error_names_turbo_json(tmp_path: Path) -> None:
    require("turbo")
    root = tmp_path / "w"
    (root / "p" / "a").mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "r", "private": True, "packageManager": "npm@10.0.0",
                                                   "workspaces": ["p/*"]}))
    (root / "package-lock.json").write_text(json.dumps({"name": "r", "lockfileVersion": 3, "packages": {}}))
    (root / "p" / "a" / "package.json").write_text('{"name": "a", "version": "1.0.0"}')
    (root / "turbo.json").write_text('{"tasks": {"build": {}}\n')  # the closing brace is missing
    done = subprocess.run([sys.executable, "-m", "ctxsel", "--repo", str(root), "--adapter", "turbo", "--source", "tool", "graph"],
                          check=False, capture_output=True, text=True, timeout=300, env=oracle_env(), cwd=os.getcwd())
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert "turbo.json" in done.stderr.splitlines()[0], done.stderr
    assert len(done.stderr.strip().splitlines()) <= 3


def test_tool_mode_names_the_line_of_a_turbo_json_turbo_cannot_read(tmp_path: Path) -> None:
    require("turbo")
    root = tmp_path / "w"
    (root / "p" / "a").mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "r", "private": True, "packageManager": "npm@10.0.0",
                                                   "workspaces": ["p/*"]}))
    (root / "package-lock.json").write_text(json.dumps({"name": "r", "lockfileVersion": 3, "packages": {}}))
    (root / "p" / "a" / "package.json").write_text('{"name": "a", "version": "1.0.0"}')
    (root / "turbo.json").write_text('{\n  "tasks": {\n    "test": {"cache" false}\n  }\n}\n')
    done = subprocess.run([sys.executable, "-m", "ctxsel", "--repo", str(root), "--adapter", "turbo", "--source", "tool", "graph"],
                          check=False, capture_output=True, text=True, timeout=300, env=oracle_env(), cwd=os.getcwd())
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("ctxsel: error: turbo.json:3: invalid JSON"), done.stderr
