"""A cached graph is reused only by the ctxsel code that built it.

Adapter fixes change the answer for unchanged manifests, so a graph cached by an older
ctxsel (before `pip install -U`, or before an edit to an editable install) must be
rebuilt, not served until the repo's own files happen to change.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import ctxsel
import ctxsel.adapters.js.turbo as turbo_module
from ctxsel import cache
from ctxsel.cache import cached_graph
from ctxsel.graph import BuildGraph


def test_the_stamped_code_covers_the_package_and_its_adapters() -> None:
    dirs = cache._code_dirs()
    for module in (cache, turbo_module, ctxsel):
        path = os.path.abspath(module.__file__ or "")
        assert any(path.startswith(d + os.sep) for d in dirs), (path, dirs)
    assert not any(a != b and b.startswith(a + os.sep) for a in dirs for b in dirs)  # each file walked once


def test_editing_ctxsel_code_rebuilds_the_cached_graph(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code = tmp_path / "site" / "ctxsel"
    (code / "adapters" / "__pycache__").mkdir(parents=True)
    module = code / "adapters" / "turbo.py"
    module.write_text("RULE = 1\n")
    monkeypatch.setattr(cache, "_code_dirs", lambda: [str(code)])
    repo = tmp_path / "repo"
    repo.mkdir()
    builds: list[int] = []

    def build(tracker: cache.InputTracker) -> BuildGraph:
        builds.append(1)
        return BuildGraph("test", str(repo))

    cached_graph(repo, "code-test", build)
    cached_graph(repo, "code-test", build)
    assert len(builds) == 1  # nothing changed: reused
    (code / "adapters" / "__pycache__" / "turbo.cpython-311.pyc").write_bytes(b"x")
    cached_graph(repo, "code-test", build)
    assert len(builds) == 1  # Python writing its byte code is no upgrade

    module.write_text("RULE = 22\n")  # an upgrade rewrites the module
    cached_graph(repo, "code-test", build)
    assert len(builds) == 2
    cached_graph(repo, "code-test", build)
    assert len(builds) == 2
