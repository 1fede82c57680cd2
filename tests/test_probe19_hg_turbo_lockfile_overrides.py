"""turbo 2 narrows lockfile changes under berry ``patch:`` resolutions and bun ``overrides``/``patchedDependencies``.

ctxsel gave up (every package changed) on a berry yarn.lock when the root package.json's
``resolutions`` held a ``patch:`` reference, and on a text bun.lock with ``overrides`` or
``patchedDependencies``. turbo 2.11.11 narrows all of them (measured, ``turbo ls
--filter=...[HEAD^]``; the rules follow turborepo-lockfiles):

- berry: a ``patch:`` resolution resolves to the package it patches (``Locator::from_patch_reference``:
  ``patch:lodash@npm%3A4.17.21#./p.patch`` -> ``lodash@npm:4.17.21``), so a change of the patch
  entry alone changes nothing and a change of the unpatched entry changes its users;
- bun: ``overrides[name]`` replaces the range of every lookup of ``name`` (a package.json's, and a
  dependency's found by name): the entry locking ``name@<override>`` if any, else the usual entry
  whatever its version, and a dependency of an overridden name, or of a name with a locked
  patched version, is looked up so, not nested under its parent; a ``patchedDependencies`` entry makes its patch path part of that
  ident's version (a patch added, removed or moved changes its users; the file's contents do
  not); two entries locking one ident with different checksums make turbo refuse the file.

Fixtures: probe18's (berry: ``a -> lodash``, ``b -> react -> loose-envify``, ``b -> a``, ``c -> b``,
``d -> loose-envify``; bun: ``w0 -> e0 -> e1``, ``w1 -> e2``, ``w2 -> w0``).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import test_probe18_ht_berry_lockfile as berry
import test_probe18_ht_bun_lockfile as bun
from jsfixtures import selected_tests, turbo_filter
from oracles import require

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
PATCH = "patch:lodash@npm%3A4.17.21#./p.patch"


def berry_lock(unpatched: str = "4.17.21", patch_hash: str = "aaa", le: str = "1.4.0", patched_entry: bool = True) -> str:
    """probe18's berry lockfile as yarn writes it under ``resolutions: {lodash: PATCH}``: the
    unpatched ``lodash@npm:4.17.21`` entry and the patch entry."""
    text = berry.lock(le=le)
    if not patched_entry:
        return text
    text = text.replace('"lodash@npm:^4.17.0":\n  version: 4.17.21\n  resolution: "lodash@npm:4.17.21"',
                        f'"lodash@npm:4.17.21":\n  version: {unpatched}\n  resolution: "lodash@npm:{unpatched}"')
    suffix = "locator=root%40workspace%3A."
    return text.replace('"loose-envify@npm:', (
        f'"lodash@{PATCH}::{suffix}":\n  version: 4.17.21\n'
        f'  resolution: "lodash@{PATCH}::version=4.17.21&hash={patch_hash}&{suffix}"\n'
        '  checksum: 10c0/ppp\n  languageName: node\n  linkType: hard\n\n"loose-envify@npm:'), 1)


#: name -> (resolutions, base lockfile, head lockfile, package dirs turbo 2.11.11 marks) (measured)
BERRY: dict[str, tuple[dict[str, str], str, str, set[str]]] = {
    "patch-entry-only": ({"lodash": PATCH}, berry_lock(), berry_lock(patch_hash="bbb"), set()),
    "unpatched-entry": ({"lodash": PATCH}, berry_lock(), berry_lock(unpatched="4.17.22"), {"p/a", "p/b", "p/c"}),
    "other-package": ({"lodash": PATCH}, berry_lock(), berry_lock(le="1.5.0"), {"p/b", "p/c", "p/d"}),
    "scoped-to-a": ({"a/lodash": PATCH}, berry_lock(), berry_lock(unpatched="4.17.22"), {"p/a", "p/b", "p/c"}),
    "older-yarn-reference": ({"lodash": "patch:lodash@4.17.21#./p.patch"}, berry_lock(), berry_lock(unpatched="4.17.22"),
                             {"p/a", "p/b", "p/c"}),
    "patched-package-not-locked": ({"lodash": PATCH}, berry_lock(patched_entry=False), berry_lock(le="1.5.0", patched_entry=False),
                                   {"p/b", "p/c", "p/d"}),
}


def bun_lock(overrides: dict[str, str] | None = None, patched: dict[str, str] | None = None, **kwargs: Any) -> str:
    data = json.loads(bun.lock(**kwargs))
    if overrides:
        data["overrides"] = overrides
    if patched:
        data["patchedDependencies"] = patched
    return json.dumps(data, indent=2) + "\n"


P0 = {"e0@1.0.0": "patches/e0.patch"}
PATCHES = {"patches/e0.patch": "--- a\n+++ b\n", "patches/e0-v2.patch": "--- a\n+++ b\n", "patches/e2.patch": "x\n"}
#: name -> (base lockfile, head lockfile, head patch files, package dirs turbo 2.11.11 marks) (measured)
BUN: dict[str, tuple[str, str, dict[str, str], set[str]]] = {
    "override-checksum-only": (bun_lock({"e1": "1.0.0"}), bun_lock({"e1": "1.0.0"}, sha="sha512-x"), PATCHES, set()),
    "override-bumped-with-entry": (bun_lock({"e1": "1.0.0"}), bun_lock({"e1": "1.0.1"}, e1="1.0.1"), PATCHES, {"p/w0", "p/w2"}),
    "override-added": (bun_lock(), bun_lock({"e1": "1.0.0"}), PATCHES, set()),
    "override-of-a-direct-dependency": (
        bun_lock({"e2": "1.0.5"}, extra={"zz/e2": ["e2@1.0.5", "", {}, "sha512-q"]}),
        bun_lock({"e2": "1.0.6"}, extra={"zz/e2": ["e2@1.0.6", "", {}, "sha512-q"]}), PATCHES, {"p/w1"}),
    "overridden-hoisted-entry-bumped": (
        bun_lock({"e2": "1.0.5"}, extra={"zz/e2": ["e2@1.0.5", "", {}, "sha512-q"]}),
        bun_lock({"e2": "1.0.5"}, extra={"e2": ["e2@1.0.3", "", {}, "sha512-c"], "zz/e2": ["e2@1.0.5", "", {}, "sha512-q"]}),
        PATCHES, set()),
    "override-of-a-transitive-dependency": (
        bun_lock({"e1": "1.0.5"}, extra={"zz/e1": ["e1@1.0.5", "", {}, "sha512-q"]}),
        bun_lock({"e1": "1.0.6"}, extra={"zz/e1": ["e1@1.0.6", "", {}, "sha512-q"]}), PATCHES, {"p/w0", "p/w2"}),
    "patch-moved": (bun_lock(patched=P0), bun_lock(patched={"e0@1.0.0": "patches/e0-v2.patch"}), PATCHES, {"p/w0", "p/w2"}),
    "patch-added": (bun_lock(), bun_lock(patched={"e2@1.0.0": "patches/e2.patch"}), PATCHES, {"p/w1"}),
    "patch-contents-only": (bun_lock(patched=P0), bun_lock(patched=P0), {**PATCHES, "patches/e0.patch": "changed\n"}, set()),
    # a dependency of an overridden or patched name is looked up by name, not nested under its parent
    "overridden-name-not-nested": (bun_lock({"e1": "1.0.0"}, e1="1.0.1"),
                                   bun_lock({"e1": "1.0.0"}, e1="1.0.1", extra={"e0/e1": ["e1@1.0.5", "", {}, "sha512-n"]}),
                                   PATCHES, set()),
    "patched-name-not-nested": (
        bun_lock(patched={"e1@1.0.1": "patches/e0.patch"}, e1="1.0.1", extra={"e0/e1": ["e1@1.0.0", "", {}, "sha512-n"]}),
        bun_lock(patched={"e1@1.0.1": "patches/e2.patch"}, e1="1.0.1", extra={"e0/e1": ["e1@1.0.0", "", {}, "sha512-n"]}),
        PATCHES, {"p/w0", "p/w2"}),
    # ... but only a patched version that is locked: else the nested entry is what counts
    "patched-version-not-locked": (
        bun_lock(patched={"e1@1.0.1": "patches/e0.patch"}, extra={"e0/e1": ["e1@1.0.5", "", {}, "sha512-b"]}),
        bun_lock(patched={"e1@1.0.1": "patches/e0.patch"}, e1="1.0.5", extra={"e0/e1": ["e1@1.0.5", "", {}, "sha512-b"]}),
        PATCHES, set()),
    "one-ident-two-checksums": (bun_lock(), bun_lock(extra={"w1/e2": ["e2@1.0.0", "", {}, "sha512-other"]}), PATCHES,
                                {"p/w0", "p/w1", "p/w2"}),
}


def commit(root: Path, files: dict[str, str], message: str) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    subprocess.run([*GIT, "add", "-A"], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-qm", message, "--allow-empty"], cwd=root, check=True)


def berry_workspace(root: Path, case: str) -> Path:
    resolutions, before, after, _ = BERRY[case]
    berry.workspace(root, "checksum-only")
    manifest = json.loads((root / "package.json").read_text())
    commit(root, {"package.json": json.dumps({**manifest, "resolutions": resolutions}, indent=2), "yarn.lock": before}, "base")
    commit(root, {"yarn.lock": after}, "change")
    return root


def bun_workspace(root: Path, case: str) -> Path:
    before, after, files, _ = BUN[case]
    bun.workspace(root, "checksum-only")
    commit(root, {"bun.lock": before, **PATCHES}, "base")
    commit(root, {"bun.lock": after, **files}, "change")
    return root


def selected(root: Path) -> set[str]:
    return {f"p/{t}" for t in selected_tests(root, "turbo", "--since", "HEAD^")}


@pytest.mark.parametrize("case", sorted(BERRY))
def test_berry_patch_resolutions(tmp_path: Path, case: str) -> None:
    """Old: every package for each case."""
    assert selected(berry_workspace(tmp_path / "ws", case)) == BERRY[case][3]


@pytest.mark.parametrize("case", sorted(BUN))
def test_bun_overrides_and_patches(tmp_path: Path, case: str) -> None:
    """Old: every package for each case."""
    assert selected(bun_workspace(tmp_path / "ws", case)) == BUN[case][3]


@pytest.mark.oracle
@pytest.mark.parametrize("case", sorted(BERRY))
def test_turbo_berry(tmp_path: Path, case: str) -> None:
    require("turbo")
    root = berry_workspace(tmp_path / "ws", case)
    assert turbo_filter(root, "...[HEAD^]") == BERRY[case][3] == selected(root)


@pytest.mark.oracle
@pytest.mark.parametrize("case", sorted(BUN))
def test_turbo_bun(tmp_path: Path, case: str) -> None:
    require("turbo")
    root = bun_workspace(tmp_path / "ws", case)
    assert turbo_filter(root, "...[HEAD^]") == BUN[case][3] == selected(root)
