"""pnpm 12's unrecognized pnpm-workspace.yaml settings, against the real pnpm 12.4.2.

pnpm 12 ignores a top-level key it does not know with a warning, and fails every command
(``pnpm ls``, ``--filter``: exit 1, ERR_PNPM_UNRECOGNIZED_WORKSPACE_SETTINGS) when the root
package.json pins a pnpm the running one satisfies. ctxsel ignored every such key in silence
and answered; now it exits 2 naming pnpm-workspace.yaml, the line and the key exactly where
pnpm fails, and warns where pnpm warns.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli
from jsfixtures import PNPM_ENV, write_pkg
from oracles import require, run

from ctxsel.errors import ParseError
from ctxsel.workspace import Workspace

pytestmark = pytest.mark.oracle

#: root package.json pins: (fields, does pnpm 12.4.2 count it as pinning itself)
PINS = {
    "exact": {"packageManager": "pnpm@12.4.2"},
    "exact+hash": {"packageManager": "pnpm@12.4.2+sha512.abc"},
    "caret": {"packageManager": "pnpm@^12.0.0"},
    "v-prefix": {"packageManager": "pnpm@v12.4.2"},
    "other-version": {"packageManager": "pnpm@12.0.0"},
    "yarn": {"packageManager": "yarn@4.0.0"},
    "devEngines-range": {"packageManager": "yarn@4.0.0",
                         "devEngines": {"packageManager": {"name": "pnpm", "version": "12.x"}}},
    "devEngines-yarn-wins": {"packageManager": "pnpm@12.4.2",
                             "devEngines": {"packageManager": {"name": "yarn", "version": "4"}}},
    "devEngines-list": {"devEngines": {"packageManager": [{"name": "yarn"}, {"name": "pnpm", "version": ">=12"}]}},
    "devEngines-no-version": {"packageManager": "pnpm@12.4.2", "devEngines": {"packageManager": {"name": "pnpm"}}},
    "devEngines-bad-range": {"devEngines": {"packageManager": {"name": "pnpm", "version": "not a range!"}}},
    "devEngines-unnamed": {"packageManager": "pnpm@12.4.2", "devEngines": {"packageManager": {"version": "1"}}},
    "none": {},
}
#: pins that admit pnpm 12.4.2 by a range, not by naming it: pnpm 12.4.2 fails on an unknown key,
#: but ctxsel (which knows 12.4.2's keys only) warns instead of refusing
RANGE_PINS = {"devEngines-range", "devEngines-list"}

#: pnpm-workspace.yaml settings lines (after ``packages:``)
SETTINGS = {
    "typo": "minimumReleaseAg: 5",
    "kebab-unknown": "foo-bar: 1",
    "kebab-known": "link-workspace-packages: true",
    "pascal-known": "MinimumReleaseAge: 1",
    "refused": "stateDir: x",
    "null": "fooBar: ~",
    "schema": "$schema: x",
    "config-only": "allowNew: true",
    "npm-type": "strict-ssl: true",
    "removed-in-12": "managePackageManagerVersions: false",
    "known": "linkWorkspacePackages: true",
}


def _workspace(root: Path, pin: dict, setting: str) -> Path:
    root.mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "root", "private": True, **pin}))
    (root / "pnpm-workspace.yaml").write_text(f"packages:\n  - p/*\n{setting}\n")
    write_pkg(root, "p/a", "a")
    write_pkg(root, "p/b", "b", dependencies={"a": "workspace:*"})
    return root


def _ctxsel(root: Path) -> tuple[bool, list[str], ParseError | None]:
    """(answered, warnings, error) of ctxsel's static pnpm adapter."""
    try:
        ws = Workspace.open(root, adapter="pnpm", source="static", use_cache=False)
    except ParseError as exc:
        return False, [], exc
    ws.blast_radius(roots=["a"])
    return True, list(ws.warnings), None


def test_pins_and_keys_agree_with_pnpm(tmp_path: Path) -> None:
    """Every pin x setting pair: ctxsel fails exactly where ``pnpm --filter ...a ls`` fails,
    and warns about an unknown key exactly where pnpm does."""
    require("pnpm")
    cases = [(p, s) for p in PINS for s in ("typo", "known")] + [("exact", s) for s in SETTINGS]
    wrong = []
    for pin, setting in dict.fromkeys(cases):
        root = _workspace(tmp_path / f"{pin}-{setting}", PINS[pin], SETTINGS[setting])
        proc = run(["pnpm", "--filter", "...a", "ls", "--depth", "-1", "--json"], root, check=False, env=PNPM_ENV)
        pnpm_fails = proc.returncode != 0
        if pnpm_fails:
            assert "ERR_PNPM_UNRECOGNIZED_WORKSPACE_SETTINGS" in proc.stderr, proc.stderr
        pnpm_warns = "are not recognized by this version of pnpm" in proc.stderr
        answered, warnings, error = _ctxsel(root)
        warns = any("does not recognize" in w for w in warnings)
        if pin in RANGE_PINS and pnpm_fails:
            # deliberate: a later pnpm in the range may know the key, so ctxsel warns that 12.4.2 fails
            says_fails = any("ERR_PNPM_UNRECOGNIZED_WORKSPACE_SETTINGS" in w for w in warnings)
            if not (answered and says_fails):
                wrong.append((pin, setting, pnpm_fails, pnpm_warns, answered, warns))
        elif answered == pnpm_fails or (answered and warns != pnpm_warns):
            wrong.append((pin, setting, pnpm_fails, pnpm_warns, answered, warns))
        if error is not None:
            assert error.location is not None and error.location.path == "pnpm-workspace.yaml"
            assert error.location.line == 3
            key = SETTINGS[setting].split(":")[0]
            assert repr(key) in str(error)
    assert not wrong, wrong


def test_the_cli_exits_2_naming_file_line_and_key(tmp_path: Path) -> None:
    require("pnpm")
    root = _workspace(tmp_path / "ws", PINS["exact"], SETTINGS["typo"])
    assert run(["pnpm", "ls", "-r", "--depth", "-1", "--json"], root, check=False, env=PNPM_ENV).returncode == 1
    proc = run_cli("--repo", str(root), "--no-cache", "--adapter", "pnpm", "--source", "static", "blast-radius", "a")
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert 1 <= len(lines) <= 3 and "Traceback" not in proc.stderr, proc.stderr
    assert "pnpm-workspace.yaml:3" in proc.stderr and "'minimumReleaseAg'" in proc.stderr


def test_a_null_key_fails_pnpm_with_or_without_a_pin(tmp_path: Path) -> None:
    """``~: x`` is no unknown setting but a file pnpm cannot read ("cannot deserialize null
    into string"): every command fails, pinned or not; ctxsel read the key as 'None'."""
    require("pnpm")
    for pin in ("none", "exact"):
        root = _workspace(tmp_path / pin, PINS[pin], "~: x")
        proc = run(["pnpm", "ls", "-r", "--depth", "-1", "--json"], root, check=False, env=PNPM_ENV)
        assert proc.returncode == 1 and "cannot deserialize null" in proc.stderr, proc.stderr
        answered, _, error = _ctxsel(root)
        assert not answered and error is not None and error.location.path == "pnpm-workspace.yaml"
        assert "null key" in str(error)


def _warned(stderr: str, kind: str) -> set[str]:
    """The keys pnpm names in its ``kind`` warning line ("not recognized", "camelCase")."""
    import re

    for line in stderr.splitlines():
        if kind in line and "ignored" in line:
            body = line.split("ignored", 1)[1].split(":", 1)[1]
            return set(re.findall(r'(?:^|, )"([^"]*)"', body.strip()))
    return set()


def test_the_key_list_is_the_one_pnpm_knows(tmp_path: Path) -> None:
    """Every key of ``PNPM_WORKSPACE_SETTINGS``, PascalCased (so serde leaves it alone and pnpm
    only looks it up), is known to pnpm -- it warns "not written in camelCase", never "not
    recognized" -- and each key plus a trailing ``Zz`` is unknown to both, in one pnpm call."""
    require("pnpm")
    from ctxsel.adapters.js.pnpm import PNPM_WORKSPACE_SETTINGS, workspace_setting_issues

    known = {k[0].upper() + k[1:] for k in PNPM_WORKSPACE_SETTINGS}
    unknown = {k + "Zz" for k in PNPM_WORKSPACE_SETTINGS}
    lines = "".join(f"{k}: x\n" for k in sorted(known | unknown))
    root = _workspace(tmp_path / "ws", PINS["none"], lines)
    stderr = run(["pnpm", "ls", "-r", "--depth", "-1", "--json"], root, env=PNPM_ENV).stderr
    assert _warned(stderr, "not recognized") == unknown
    assert _warned(stderr, "camelCase") == known
    ours = workspace_setting_issues({k: "x" for k in known | unknown})
    assert set(ours.unrecognized) == unknown and set(ours.not_camel_case) == known and not ours.refused
