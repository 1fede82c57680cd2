"""``ctxsel pre-commit --run --timeout``: the timeout stops every test process (probe finding).

Test runners fork workers (pnpm a shell per package, jest its workers, bazel a
client); ctxsel killed only the direct child, so on ``--timeout`` the workers kept
running and -- under the pre-commit framework, which reads the hook's output through
a pipe -- kept that pipe open: the hook hung until they finished. Measured with a
runner ``sh -c 'sleep 30 & wait'`` and ``--timeout 1``: 20-30 s instead of ~1 s.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(os.name != "posix", reason="process groups are POSIX")

TESTS_DIR = Path(__file__).resolve().parent

DRIVER = textwrap.dedent('''
    import sys
    sys.path.insert(0, {tests!r})
    from ctxsel import adapters
    from ctxsel.cli import main
    from toy_workspace import ToyAdapter

    class ForkingToy(ToyAdapter):
        def test_command(self, tests):
            return ["sh", "-c", {script!r}]

    sys.modules["forking_toy"] = sys.modules[__name__]
    adapters.REGISTRY["toy"] = "forking_toy:ForkingToy"
    sys.exit(main(["--repo", {root!r}, "--adapter", "toy", "pre-commit", "--run", "--timeout", "1"]))
''')


def test_timeout_stops_the_runners_workers_and_releases_the_output_pipe(tmp_path):
    from toy_workspace import git, make_repo, write

    root = make_repo(tmp_path / "ws")
    write(root, "core/core.c", "edit\n")
    git(root, "add", "-A")
    pidfile = tmp_path / "worker.pid"
    script = f"sleep 30 & echo $! > {pidfile}; wait"
    driver = DRIVER.format(tests=str(TESTS_DIR), script=script, root=str(root))
    started = time.monotonic()
    # stdout/stderr are pipes, as under the pre-commit framework: run() returns at their EOF
    proc = subprocess.run([sys.executable, "-c", driver], capture_output=True, text=True, timeout=25)
    elapsed = time.monotonic() - started
    assert proc.returncode == 124, proc.stderr
    assert "longer than --timeout 1 s" in proc.stderr
    assert elapsed < 15, f"the hook's output stayed open for {elapsed:.1f} s"
    worker = int(pidfile.read_text())
    for _ in range(40):  # the orphaned worker is reaped by init shortly after it dies
        try:
            os.kill(worker, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        os.kill(worker, 9)
        pytest.fail("the test runner's worker outlived --timeout")


def test_a_runner_killed_by_a_signal_exits_128_plus_the_signal(tmp_path, monkeypatch):
    """A shell reports a test process killed by SIGTERM as 143; ctxsel exited 241 (-15 % 256)."""
    from toy_workspace import git, make_repo, write

    root = make_repo(tmp_path / "ws")
    write(root, "core/core.c", "edit\n")
    git(root, "add", "-A")
    driver = DRIVER.format(tests=str(TESTS_DIR), script="kill -TERM $$", root=str(root))
    proc = subprocess.run([sys.executable, "-c", driver], capture_output=True, text=True, timeout=25)
    assert proc.returncode == 143, proc.stderr
