"""Secrets in a first hour's repositories: noise on ordinary files, and yarn's registry credentials.

Noise, measured (session 25, helper hu) with ``ctxsel select`` and SecretRules.redact over the
tracked files of 17 public monorepos: vuejs/core's Monaco theme (packages-private/template-explorer/
src/theme.ts) lost 11 lines such as ``token: 'meta.diff.header.to-file'`` to ``secret-assignment``,
with a warning on every ``select`` that reached it; create-t3-turbo's pnpm-workspace.yaml catalog
line ``better-auth: 1.4.0-beta.9`` and lockfile lines like ``'@azure/keyvault-secrets': ^4.9.0``
or ``"@material/tokens": "15.0.0-canary.684e33d25.0"`` were redacted too (50 lines in all, each
a TextMate scope or a version). No other redaction of those repositories moved.

Leak: a .yarnrc.yml with ``npmAuthIdent: "alice:s3cr3tPassw0rd"`` (or its base64) went into the
prompt whole, and ``npmAuthToken`` only when its value looked random. yarn 2+ declares both
settings ``SettingsType.SECRET`` (@yarnpkg/plugin-npm: "Authentication identity for the npm
registry (_auth in npm and yarn v1)"); ``${NPM_TOKEN}`` is how a committed file spells them safely.
The reference is docs/security.md (no tool runs here).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import write_tree

from ctxsel.secrets import SecretRules

NOT_SECRETS = [
    ("theme.ts", "    token: 'meta.diff.header.to-file',\n"),
    ("theme.ts", "    token: 'entity.other.inherited-class',\n"),
    ("pnpm-workspace.yaml", "catalog:\n  better-auth: 1.4.0-beta.9\n"),
    ("pnpm-workspace.yaml", "catalog:\n  '@azure/keyvault-secrets': ^4.9.0\n"),
    ("package-lock.json", '        "@material/tokens": "15.0.0-canary.684e33d25.0",\n'),
    ("package.json", '    "@inquirer/password": "^4.0.9",\n'),
]

STILL_SECRETS = [  # the same shapes with a credential in them
    ("theme.ts", "    token: 'Zx9kLm2Qw8pR5vTb',\n"),
    ("config.yaml", "db:\n  password: hunter2\n"),
    ("app.ts", "export const refreshTokenSecret = 'Zx9#kLm2$Qw8!pR5vT'\n"),
    ("pnpm-workspace.yaml", "catalog:\n  auth-token: 1.0.0-Zx9kLm2Qw8pR5vTbAB\n"),
    ("app.ts", "const apiToken = 'a1b2.c3d4-e5f6g7'\n"),
    ("settings.py", "DB_PASSWORD = 'correct.horse-battery.staple'\n"),  # a passphrase, not a scope name
]


@pytest.mark.parametrize(("path", "text"), NOT_SECRETS)
def test_names_and_versions_are_not_redacted(path: str, text: str) -> None:
    assert SecretRules().redact(text, path) == (text, [])


@pytest.mark.parametrize(("path", "text"), STILL_SECRETS)
def test_credentials_in_the_same_shapes_still_are(path: str, text: str) -> None:
    redacted, found = SecretRules().redact(text, path)
    assert [r.rule for r in found] == ["secret-assignment"] and "[REDACTED:secret-assignment]" in redacted


def test_select_keeps_a_monaco_theme_whole_and_quiet(tmp_path: Path, cli) -> None:
    """The vuejs/core case end to end: the theme's chunk comes back unredacted, with no warning."""
    theme = "".join(f"  {{\n    foreground: 'b5bd68',\n    token: 'meta.{w}.header.to-file',\n  }},\n"
                    for w in ("diff", "block", "tag", "function-call"))
    root = write_tree(tmp_path / "repo", {"src/theme.ts": f"export const rules = [\n{theme}]\n"})
    proc = cli("--repo", str(root), "select", "theme rules foreground header", "--format", "json", "--budget", "2000")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["redactions"] == [] and "redacted" not in proc.stderr
    assert "meta.diff.header.to-file" in "".join(c["text"] for c in out["chunks"])


YARNRC = """npmRegistryServer: "https://npm.acme.dev"
npmAuthIdent: "alice:s3cr3tPassw0rd"
npmScopes:
  acme:
    npmAuthIdent: YWxpY2U6czNjcjN0UGFzc3cwcmQ=
    npmAuthToken: "${NPM_TOKEN}"
    npmAlwaysAuth: true
  docs:
    npmAuthToken: <TOKEN>
  gh:
    npmAuthToken: ${GH_TOKEN}  # from the CI secret
    "npmAuthToken": 'plain-words-token'
"""


def test_yarn_registry_credentials_are_redacted_and_env_references_kept() -> None:
    redacted, found = SecretRules().redact(YARNRC, ".yarnrc.yml")
    assert [(r.line, r.rule) for r in found] == [(2, "yarn-auth"), (5, "yarn-auth"), (12, "yarn-auth")]
    for secret in ("s3cr3tPassw0rd", "YWxpY2U6czNjcjN0UGFzc3cwcmQ=", "plain-words-token"):
        assert secret not in redacted
    for kept in ('"${NPM_TOKEN}"', "<TOKEN>", "${GH_TOKEN}  # from the CI secret", "npmAlwaysAuth: true"):
        assert kept in redacted


def test_select_never_prints_a_yarnrc_credential(tmp_path: Path, cli) -> None:
    root = write_tree(tmp_path / "repo", {".yarnrc.yml": YARNRC, "src/registry.ts": "export const registry = 'npm.acme.dev'\n"})
    proc = cli("--repo", str(root), "select", "npmAuthIdent npmAuthToken registry acme", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert ".yarnrc.yml" in {c["path"] for c in out["chunks"]}
    assert "s3cr3tPassw0rd" not in proc.stdout and "YWxpY2U6" not in proc.stdout
    assert {r["rule"] for r in out["redactions"]} == {"yarn-auth"}
