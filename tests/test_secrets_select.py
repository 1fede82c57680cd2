"""Secrets never reach a prompt: file-name rules and span redaction (issue 9)."""

from __future__ import annotations

import pytest

from ctxsel.errors import ParseError
from ctxsel.secrets import SecretRules, shannon_entropy

# Built at run time so this file itself holds no token-shaped literal for scanners.
AWS = "AKIA" + "IOSFODNN7EXAMPLE"
GITHUB = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
SLACK = "xoxb-" + "123456789012-abcdefABCDEF"
GOOGLE = "AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"
STRIPE = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
JWT = "eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0." + "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
KEY = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\nabc\n-----END RSA PRIVATE KEY-----"


@pytest.mark.parametrize(
    "text, secret, rule",
    [
        (f'key = "{AWS}"', AWS, "aws-access-key"),
        (f"token: {GITHUB}", GITHUB, "github-token"),
        (f"SLACK={SLACK}", SLACK, "slack-token"),
        (f"const k = '{GOOGLE}';", GOOGLE, "google-api-key"),
        (f"stripe.api_key = '{STRIPE}'", STRIPE, "stripe-key"),
        (f"auth = '{JWT}'", JWT, "jwt"),
        (f"x = '''\n{KEY}\n'''", "MIIEowIBAAKCAQEA7", "private-key"),
        ("db_password = 'hunter2!x'", "hunter2!x", "secret-assignment"),
        ("API_SECRET = 'zK9f8Lm2Qx7vB3nP'", "zK9f8Lm2Qx7vB3nP", "secret-assignment"),
        ("url = 'postgres://admin:s3cr3tPass@db:5432/x'", "s3cr3tPass", "url-password"),
    ],
)
def test_secret_spans_are_redacted(text: str, secret: str, rule: str) -> None:
    out, found = SecretRules().redact(f"line one\n{text}\n", "src/conf.py", first_line=10)
    assert secret not in out
    assert rule in {f.rule for f in found}
    assert all(f.path == "src/conf.py" and f.line >= 11 for f in found)
    assert out.count("\n") == f"line one\n{text}\n".count("\n")  # line numbers stay true


@pytest.mark.parametrize(
    "text",
    [
        "token = process.env.GITHUB_TOKEN",
        "password = getPassword(user)",
        "const tokenType = 'Bearer'",
        "secret: changeme",
        "def parse_token(tokens, index):\n    return tokens[index]",
        "API_KEY_HEADER = 'X-Api-Key'",
    ],
)
def test_ordinary_code_is_left_alone(text: str) -> None:
    out, found = SecretRules().redact(text)
    assert out == text and not found


@pytest.mark.parametrize(
    "path, secret",
    [
        (".env", True), ("config/.env.production", True), ("certs/server.pem", True), ("tls.key", True),
        ("home/.ssh/id_rsa", True), ("id_ed25519.pub", True), ("store.p12", True), (".npmrc", True),
        ("aws/credentials", True), ("gcp/service-account-prod.json", True), ("infra/prod.tfstate", True),
        ("src/keyboard.ts", False), ("src/env.ts", False), ("docs/secrets.md", True), ("src/tokens.py", False),
    ],
)
def test_secret_file_names(path: str, secret: bool) -> None:
    assert SecretRules().is_secret_file(path) is secret


def test_rules_extend_by_config_and_cannot_be_disabled() -> None:
    rules = SecretRules.from_config({
        "exclude_files": ["*.vault"],
        "allow_files": [".env.example"],
        "patterns": [{"name": "acme-token", "regex": r"ACME-[0-9a-f]{16}"}],
    })
    assert rules.is_secret_file("prod.vault") and not rules.is_secret_file(".env.example")
    assert rules.is_secret_file(".env")  # built-ins stay
    out, found = rules.redact("x = ACME-0123456789abcdef and " + AWS)
    assert "ACME-0123" not in out and AWS not in out and {f.rule for f in found} == {"acme-token", "aws-access-key"}


def test_bad_config_is_a_user_error() -> None:
    with pytest.raises(ParseError):
        SecretRules.from_config({"patterns": [{"name": "x", "regex": "("}]})
    with pytest.raises(ParseError):
        SecretRules.from_config({"exclude_files": "*.x"})


def test_entropy_orders_random_above_words() -> None:
    assert shannon_entropy("zK9f8Lm2Qx7vB3nP") > shannon_entropy("password") > 0
