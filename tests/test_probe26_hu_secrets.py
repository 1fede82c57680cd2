"""Django's generated SECRET_KEY, and a negation in code taken for a token (session 26, helper hu).

Leak, measured: wagtail/bakerydemo commits ``SECRET_KEY = "c6u0-9c!7nilj_ysatsda0(f@e_2mws2f!6m0n^o*4#*q#kzp)"``
in bakerydemo/settings/base.py, and ``ctxsel select`` put it into the prompt whole. Django's
``startproject`` writes ``SECRET_KEY = 'django-insecure-' + get_random_secret_key()``, 50 characters
drawn from ``abcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*(-_=+)`` (django/core/management/utils.py);
the assignment rule's value class had no parentheses, so a key holding one was not seen: 863 of
1,000 such keys went through. Parentheses are now part of a quoted value (unquoted they are a call).

Noise, measured over the tracked files of 16 public repositories (scripts/fp.py in the session's
scratch): 36 lines such as ``hasToken: !!this.tokenData?.accessToken`` (ever-gauzy, ghostfolio,
cowswap) or ``(click)="showPassword = !showPassword"`` were redacted as ``secret-assignment``. An
unquoted value starting with ``!`` in code is a negation; no other redaction of those repositories moved.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from conftest import write_tree

from ctxsel.secrets import SecretRules

# django.core.management.utils.get_random_secret_key's alphabet and length (Django 3.1-5.x)
DJANGO_KEY_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*(-_=+)"
BAKERYDEMO_KEY = "c6u0-9c!7nilj_ysatsda0(f@e_2mws2f!6m0n^o*4#*q#kzp)"


def _django_keys(n: int) -> list[str]:
    rng = random.Random(26)
    return ["django-insecure-" + "".join(rng.choice(DJANGO_KEY_CHARS) for _ in range(50)) for _ in range(n)]


@pytest.mark.parametrize("template", [
    "SECRET_KEY = '{key}'\n",
    'SECRET_KEY = "{key}"\n',
    "SECRET_KEY = os.environ.get('DJANGO_SECRET_KEY', '{key}')\n",
    "SECRET_KEY = env('DJANGO_SECRET_KEY', default='{key}')\n",
])
def test_generated_django_secret_keys_are_redacted(template: str) -> None:
    rules = SecretRules()
    leaked = []
    for key in _django_keys(300) + [BAKERYDEMO_KEY]:
        redacted, found = rules.redact(template.format(key=key), "mysite/settings.py")
        if key.removeprefix("django-insecure-")[4:] in redacted or not found:
            leaked.append(key)
    assert leaked == []


def test_select_never_prints_a_committed_django_key(tmp_path: Path, cli) -> None:
    settings = (f'"""Django settings for bakerydemo."""\nimport os\n\nSECRET_KEY = "{BAKERYDEMO_KEY}"\n'
                "DEBUG = True\nALLOWED_HOSTS = ['*']\n")
    root = write_tree(tmp_path / "repo", {"bakerydemo/settings/base.py": settings,
                                          "bakerydemo/urls.py": "urlpatterns = []\n"})
    for fmt in ("json", "markdown"):
        proc = cli("--repo", str(root), "select", "django settings secret key debug", "--format", fmt)
        assert proc.returncode == 0, proc.stderr
        assert "c6u0-9c" not in proc.stdout and "kzp)" not in proc.stdout
        assert "ALLOWED_HOSTS" in proc.stdout  # the file was packed, its key hidden
        if fmt == "json":
            assert [r["rule"] for r in json.loads(proc.stdout)["redactions"]] == ["secret-assignment"]


NEGATIONS = [  # measured lines, each redacted before
    ("oauth-authorization-server.ts", "      hasCsrfToken: !!csrfTokenFromRequest,\n"),
    ("oauth-validator.ts", "    const hasSecret = !!this.config.introspection.clientSecret;\n"),
    ("auth-manager.ts", "      hasRefreshToken: !!this.tokenData?.refreshToken,\n"),
    ("login.component.html", '<a (click)="showPassword = !showPassword">\n'),
    ("setup.component.ts", "    this.showPassword = !this.showPassword;\n"),
    ("user-account-access.html", '(click)="isAccessTokenHidden = !isAccessTokenHidden"\n'),
]


@pytest.mark.parametrize(("path", "text"), NEGATIONS)
def test_a_negation_is_not_a_token(path: str, text: str) -> None:
    assert SecretRules().redact(text, path) == (text, [])


@pytest.mark.parametrize(("path", "text"), [
    ("app.ts", "const apiToken = '!Zx9kLm2Qw8pR5vT'\n"),  # quoted: a literal, whatever it starts with
    ("config.ini", "[db]\npassword = !Zx9kLm2Qw8\n"),  # a config value, not code
    ("config.yaml", "db:\n  password: '!hunter2(x)'\n"),
])
def test_values_starting_with_a_bang_are_still_secrets(path: str, text: str) -> None:
    redacted, found = SecretRules().redact(text, path)
    assert [r.rule for r in found] == ["secret-assignment"] and "Zx9kLm2" not in redacted and "hunter2" not in redacted


@pytest.mark.parametrize("text", [
    "password = getpass()\n",
    "token = get_token(user_id)\n",
    "secret = load_secret(path)\n",
])
def test_calls_are_still_not_values(text: str) -> None:
    assert SecretRules().redact(text, "app.py") == (text, [])


# A Kubernetes Secret manifest: its data values are base64, which hid them from every other rule
# (measured: DATABASE_URL, username and a whsec_ webhook secret went through; only `password`,
# by its name, was redacted). Kubernetes keeps a Secret's payload under data/stringData, and
# gitleaks' "kubernetes-secret" rule flags any `kind: Secret` YAML.
K8S_SECRET = """apiVersion: v1
kind: Secret
metadata:
  name: app-secrets
type: Opaque
data:
  DATABASE_URL: cG9zdGdyZXM6Ly9hcHA6WnBxOHduM0BkYjo1NDMyL2FwcA==
  username: YWRtaW4=
  # rotated 2026-11
  password: MWYyZDFlMmU2N2Rm
stringData:
  STRIPE_WEBHOOK: "whsec_Zpq8wn3XkLm2Qw8pR5vTb"
  from_helm: {{ .Values.redisPassword | b64enc }}
  config.json: |
    {"endpoint": "https://api.acme.dev", "key": "Zpq8wn3XkLm2"}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: app-config
data:
  LOG_LEVEL: debug
"""


def test_kubernetes_secret_values_are_redacted_and_a_configmap_is_not() -> None:
    redacted, found = SecretRules().redact(K8S_SECRET, "deploy/app-secret.yaml")
    assert [(r.line, r.rule) for r in found] == [(7, "kubernetes-secret"), (8, "kubernetes-secret"),
                                                 (10, "kubernetes-secret"), (12, "kubernetes-secret"),
                                                 (15, "kubernetes-secret")]
    for secret in ("cG9zdGdyZXM6", "YWRtaW4=", "MWYyZDFl", "whsec_", "Zpq8wn3XkLm2", "api.acme.dev"):
        assert secret not in redacted
    for kept in ("name: app-secrets", "{{ .Values.redisPassword | b64enc }}", "LOG_LEVEL: debug", "# rotated"):
        assert kept in redacted
    assert len(redacted.split("\n")) == len(K8S_SECRET.split("\n"))


def test_a_secret_kind_elsewhere_is_not_a_manifest() -> None:
    for path, text in [("deploy/app.yaml", "kind: SecretStore\ndata:\n  region: eu-west-1\n"),
                       ("src/k8s.ts", "const m = `kind: Secret\ndata:\n  region: eu-west-1\n`\n"),
                       ("deploy/app.yaml", "spec:\n  kind: Secret\ndata:\n  region: eu-west-1\n")]:
        assert SecretRules().redact(text, path) == (text, [])


def test_select_never_prints_a_kubernetes_secret(tmp_path: Path, cli) -> None:
    root = write_tree(tmp_path / "repo", {"deploy/app-secret.yaml": K8S_SECRET,
                                          "src/app.py": "DATABASE_URL = os.environ['DATABASE_URL']\n"})
    for fmt in ("json", "markdown"):
        proc = cli("--repo", str(root), "select", "app secrets database url stripe webhook config", "--format", fmt)
        assert proc.returncode == 0, proc.stderr
        assert "deploy/app-secret.yaml" in proc.stdout
        assert "cG9zdGdyZXM6" not in proc.stdout and "whsec_" not in proc.stdout and "Zpq8wn3XkLm2" not in proc.stdout


def test_many_redactions_in_one_file_take_linear_time() -> None:
    """Each redaction's line number was counted from the start of the text: a 1 MiB YAML of
    40,000 ``password:`` lines took 84 s per read (20,000: 20.5 s; measured, session 26), so
    one such file stalled every ``index`` and ``select``. Now 2 s for 40,000 here."""
    import time

    n = 30_000
    text = "db:\n" + "  password: Zx9kLm2Qw8\n" * n + "  key: |\n" + "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n"
    started = time.perf_counter()
    redacted, found = SecretRules().redact(text, "values.yaml")
    elapsed = time.perf_counter() - started
    assert [r.line for r in found[:3]] == [2, 3, 4] and found[n - 1].line == n + 1
    assert (found[-1].rule, found[-1].line, found[-1].end_line) == ("private-key", n + 3, n + 5)
    assert len(redacted.split("\n")) == len(text.split("\n"))
    assert elapsed < 12, f"{elapsed:.1f} s for {n} redactions"


@pytest.mark.parametrize(("path", "text"), [  # measured lines of cowprotocol/cowswap, each redacted before
    ("approveUtils.test.ts", "const mockTokenAddress = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'\n"),
    ("getTwapOrderStatus.test.ts", "  sellToken: '0xB4FBF271143F4FBf7B91A5ded31805e42b2208d6',\n"),
    ("useTradeQuotePolling.test.tsx.snap", '    "buyTokenAddress": "0x0625aFB445C3B6B7B929342a04A22599fd5dBB59",\n'),
])
def test_an_ethereum_address_is_public(path: str, text: str) -> None:
    assert SecretRules().redact(text, path) == (text, [])


def test_an_ethereum_private_key_is_still_a_secret() -> None:
    text = "const PRIVATE_KEY = '0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318'\n"
    redacted, found = SecretRules().redact(text, "deploy.ts")
    assert [r.rule for r in found] == ["secret-assignment"] and "4c0883a6" not in redacted
