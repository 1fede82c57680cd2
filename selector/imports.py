"""File-level import edges around a seed: what it imports and who imports it.

The build graph knows packages and targets; inside one package it cannot tell which
file uses which. The import statements the chunker already collected can: a file
that imports the seed, or that the seed imports, is the likeliest to change with it.
Resolution is deliberately simple and offline — relative specifiers for JS/TS and
Python, dotted Python modules and Go/C/Starlark paths by suffix — and only ever
answers with files that are in the index.
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from .index import ChunkIndex

JS_EXTS = ("", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".d.ts", ".vue",
           "/index.ts", "/index.tsx", "/index.js", "/index.jsx", "/index.mjs")
PY_EXTS = (".py", ".pyi", "/__init__.py")


class Resolver:
    def __init__(self, paths: list[str]) -> None:
        self.paths = set(paths)
        self._by_name: dict[str, list[str]] | None = None
        self._by_dir: dict[str, list[str]] | None = None

    @property
    def by_name(self) -> dict[str, list[str]]:
        if self._by_name is None:  # built on first need: most lookups are relative paths
            self._by_name = {}
            for p in self.paths:
                self._by_name.setdefault(p.rpartition("/")[2], []).append(p)
        return self._by_name

    @property
    def by_dir(self) -> dict[str, list[str]]:
        if self._by_dir is None:
            self._by_dir = {}
            for p in self.paths:
                self._by_dir.setdefault(p.rpartition("/")[0], []).append(p)
        return self._by_dir

    def resolve(self, importer: str, spec: str, language: str) -> list[str]:
        here = importer.rsplit("/", 1)[0] if "/" in importer else ""
        if language in ("javascript", "typescript", "tsx"):
            if not spec.startswith("."):
                return []
            base = posixpath.normpath(posixpath.join(here, spec))
            base = base[:-3] if base.endswith((".js", ".jsx")) and base + "" not in self.paths else base
            return self._first(base, JS_EXTS)
        if language == "python":
            if spec.startswith("."):
                dots = len(spec) - len(spec.lstrip("."))
                up = here
                for _ in range(dots - 1):
                    up = up.rsplit("/", 1)[0] if "/" in up else ""
                rest = spec.lstrip(".").replace(".", "/")
                return self._first(posixpath.join(up, rest) if rest else up, PY_EXTS)
            return self._suffix(spec.replace(".", "/"), PY_EXTS)
        if language == "go":
            if not spec or "." not in spec.split("/", 1)[0]:
                return []  # the standard library
            parts = spec.split("/")
            for k in (3, 2):
                if len(parts) > k:
                    tail = "/".join(parts[-k:])
                    hits = [p for d, ps in self.by_dir.items() if d == tail or d.endswith("/" + tail)
                            for p in ps if p.endswith(".go") and not p.endswith("_test.go")]
                    if hits:
                        return sorted(hits)
            return []
        if language == "starlark":  # load("//pkg/path:defs.bzl", ...) or load(":defs.bzl")
            label = spec.lstrip("@").split("//", 1)[-1]
            pkg, _, name = label.partition(":")
            return [p for p in [posixpath.join(pkg if spec.startswith(("/", "@")) else here, name or pkg)] if p in self.paths]
        if language in ("c", "cpp"):
            return self._first(posixpath.normpath(posixpath.join(here, spec)), ("",)) or self._suffix(spec, ("",))
        return []

    def _first(self, base: str, exts: tuple[str, ...]) -> list[str]:
        for ext in exts:
            if base + ext in self.paths:
                return [base + ext]
        return []

    def _suffix(self, base: str, exts: tuple[str, ...]) -> list[str]:
        for ext in exts:
            want = base + ext
            name = want.rsplit("/", 1)[-1]
            hits = [p for p in self.by_name.get(name, []) if p == want or p.endswith("/" + want)]
            if hits:
                return sorted(hits)[:3]
        return []


def import_neighbours(index: "ChunkIndex", seeds: list[str]) -> dict[str, str]:
    """{file: why} for files the seeds import and files that import a seed."""
    resolver = Resolver(list(index.files))
    seed_set = set(seeds)
    out: dict[str, str] = {}
    for seed in seeds:
        entry = index.files.get(seed)
        if entry is None:
            continue
        for spec in entry.imports:
            for hit in resolver.resolve(seed, spec, entry.language):
                if hit not in seed_set:
                    out.setdefault(hit, f"imported by seed {seed}")
    # a specifier can only name a seed if it ends with the seed's stem (or its directory's
    # name, for index.ts / __init__.py / Go packages): a cheap filter before resolving
    wanted: set[str] = set()
    for seed in seeds:
        parts = seed.split("/")
        wanted.add(parts[-1].split(".", 1)[0])
        if len(parts) > 1:
            wanted.add(parts[-2])
    for path, entry in index.files.items():
        if path in seed_set or path in out or not entry.imports:
            continue
        for spec in entry.imports:
            tail = spec.rstrip("/").replace(":", "/").rsplit("/", 1)[-1]
            if tail.split(".", 1)[0] not in wanted and tail.rsplit(".", 1)[-1] not in wanted:
                continue
            if any(h in seed_set for h in resolver.resolve(path, spec, entry.language)):
                out[path] = f"imports seed {next(h for h in resolver.resolve(path, spec, entry.language) if h in seed_set)}"
                break
    return out
