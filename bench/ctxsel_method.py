"""Run ``ctxsel select`` as the protocol prescribes: one whole-process CLI call per budget.

Calling the CLI (not an in-process API) measures what a user gets, including
start-up and the incremental index update, and keeps the benchmark honest
about the JSON contract.  When the installed ctxsel has no ``select`` command
yet, the method is reported as unavailable instead of failing the run.
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from functools import lru_cache
from pathlib import Path

from bench.baselines import Chunk, Selection

SCOPES: tuple[str, ...] = ("blast-radius", "graph", "repo")
CALL_TIMEOUT = 600  # a first index of a large repository is the slow call


def method_names() -> list[str]:
    return ["ctxsel"] + [f"ctxsel:{s}" for s in SCOPES]


def scope_of(method: str) -> str | None:
    return method.split(":", 1)[1] if ":" in method else None


def _ctxsel_argv() -> list[str]:
    return [sys.executable, "-m", "ctxsel"]


@lru_cache(maxsize=1)
def _select_help() -> tuple[int, str]:
    try:
        proc = subprocess.run(_ctxsel_argv() + ["select", "--help"], capture_output=True,
                              text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return -1, str(exc)
    return proc.returncode, proc.stdout


def unavailable_reason() -> str | None:
    """None when ``ctxsel select`` exists, else why it cannot be run."""
    code, text = _select_help()
    if code == -1:
        return f"ctxsel not runnable: {text}"
    if code != 0:
        return "this ctxsel has no `select` command"
    return None


def _explains_scope() -> bool:
    """Whether select can list its scope's files (needed for scope recall)."""
    return "--explain-scope" in _select_help()[1]


def _scope_paths(doc: dict) -> tuple[list[str] | None, str | None]:
    """The searched scope's files, if the JSON reports them (key names still settling)."""
    for key in ("scope_paths", "scope_files"):
        if isinstance(doc.get(key), list):
            mode = doc["scope"].get("mode") if isinstance(doc.get("scope"), dict) else None
            return [str(p) for p in doc[key]], mode
    scope = doc.get("scope")
    if isinstance(scope, dict):
        for key in ("paths", "files", "file_paths"):
            val = scope.get(key)
            if isinstance(val, list):
                return [str(p) for p in val], scope.get("mode")
        return None, scope.get("mode")
    if isinstance(scope, list):
        return [str(p) for p in scope], None
    return None, scope if isinstance(scope, str) else None


def parse(doc: dict) -> Selection:
    chunks = [Chunk(path=str(c["path"]), start_line=int(c["start_line"]), end_line=int(c["end_line"]),
                    tokens=int(c.get("tokens") or 0), score=float(c.get("score") or 0.0))
              for c in doc.get("chunks", [])]
    paths, mode = _scope_paths(doc)
    return Selection(chunks=chunks, reported_tokens=int(doc.get("tokens") or 0),
                     scope_paths=paths, scope_mode=mode)


def select_api(checkout: Path, query: str, seed: str, budget: int, scope: str | None) -> Selection:
    """The same call in process (``ctxsel.select.select``): no interpreter start per call.

    For quick tuning sweeps only; the published figures use the CLI, as the protocol says."""
    try:
        from ctxsel.select import SelectRequest
        from ctxsel.select import select as ctxsel_select
    except ImportError as exc:
        return Selection(chunks=[], error=f"ctxsel.select API unavailable: {exc}")
    start = time.perf_counter()
    try:
        result = ctxsel_select(checkout, SelectRequest(query=query, seeds=[seed], budget=budget, scope=scope))
        sel = parse(result.as_json(explain_scope=True))
    except Exception as exc:  # a failing case is recorded, never fatal to the sweep
        return Selection(chunks=[], error=f"{type(exc).__name__}: {exc}"[:500],
                         seconds=time.perf_counter() - start)
    sel.seconds = time.perf_counter() - start
    return sel


def select(checkout: Path, query: str, seed: str, budget: int, scope: str | None) -> Selection:
    argv = _ctxsel_argv() + ["--repo", str(checkout), "--quiet", "select", query, "--seed", seed,
                             "--budget", str(budget), "--format", "json"]
    if scope:
        argv += ["--scope", scope]
    if _explains_scope():
        argv.append("--explain-scope")
    start = time.perf_counter()
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=CALL_TIMEOUT)
    except subprocess.TimeoutExpired:
        return Selection(chunks=[], error=f"timeout after {CALL_TIMEOUT}s")
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        return Selection(chunks=[], error=(proc.stderr.strip() or f"exit {proc.returncode}")[-500:],
                         seconds=elapsed)
    try:
        sel = parse(json.loads(proc.stdout))
    except (ValueError, KeyError, TypeError) as exc:
        return Selection(chunks=[], error=f"bad JSON from ctxsel select: {exc}", seconds=elapsed)
    sel.seconds = elapsed
    return sel
