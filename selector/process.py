"""Running the real tools (bazel, pnpm, nx, turbo): one place that bounds them in time.

Every build-tool call goes through ``run_tool`` so none can hang ctxsel and every
failure to start or finish reads the same way. Judging the exit code stays with the
caller: Bazel's 3 is a partial answer, nx's 0 can still carry an error on stderr.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Mapping

from .errors import ToolError


def run_tool(
    argv: list[str],
    cwd: Path,
    timeout: float,
    env: Mapping[str, str] | None = None,
    hint: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` in ``cwd`` with ``env`` added to ours; ToolError on a timeout or when it cannot start."""
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    try:
        return subprocess.run(
            # errors="replace": Bazel echoes a BUILD file's bytes as it read them (Latin-1), so its
            # stderr about a UTF-8 byte order mark is no UTF-8 (a UnicodeDecodeError traceback before)
            argv, cwd=cwd, env=full_env, capture_output=True, text=True, errors="replace", timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        raise ToolError(
            f"`{Path(argv[0]).name} {' '.join(argv[1:4])}` did not finish within {timeout:g} s", hint=hint
        ) from None
    except OSError as exc:
        raise ToolError(f"cannot run {argv[0]}: {exc}", hint=hint) from None
