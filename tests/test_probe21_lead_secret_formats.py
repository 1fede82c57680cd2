"""Session 21 probe: provider tokens with a fixed shape that reached prompts unredacted.

Old: an Azure connection string's AccountKey, SendGrid, Hugging Face, PyPI, Shopify,
DigitalOcean, Databricks, Linear, Postman, Grafana, Twilio and Telegram tokens and age
secret keys were emitted as written: none has a secret-sounding name before it when it sits
in a string literal, and none matched a built-in rule. The samples are built at run time
(random tails of each format's length), so this file holds no token-shaped literal.
"""

from __future__ import annotations

import random
import string

import pytest

from ctxsel.secrets import SecretRules

RNG = random.Random(21)
HEX = "0123456789abcdef"
ALNUM = string.ascii_letters + string.digits
BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"


def tail(alphabet: str, n: int) -> str:
    return "".join(RNG.choice(alphabet) for _ in range(n))


SAMPLES = [
    ("azure-key", "AccountKey=" + tail(ALNUM + "+/", 86) + "==", "DefaultEndpointsProtocol=https;AccountName=acme;{};EndpointSuffix=core.windows.net"),
    ("azure-key", "SharedAccessKey=" + tail(ALNUM + "+/", 43) + "=", "Endpoint=sb://x.servicebus.windows.net/;SharedAccessKeyName=root;{}"),
    ("sendgrid-key", "SG." + tail(ALNUM + "_-", 22) + "." + tail(ALNUM + "_-", 43), "const key = '{}'"),
    ("huggingface-token", "hf_" + tail(string.ascii_letters, 34), "HF = \"{}\""),
    ("pypi-token", "pypi-AgEIcHlwaS5vcmc" + tail(ALNUM + "_-", 60), "password: {}"),
    ("shopify-token", "shpat_" + tail(HEX, 32), "fetch(url, {{ headers: {{ 'X-Shopify-Access-Token': '{}' }} }})"),
    ("digitalocean-token", "dop_v1_" + tail(HEX, 64), "do = '{}'"),
    ("databricks-token", "dapi" + tail(HEX, 32), "host, tok = 'x', '{}'"),
    ("linear-key", "lin_api_" + tail(ALNUM, 40), "new LinearClient('{}')"),
    ("postman-key", "PMAK-" + tail(HEX, 24) + "-" + tail(HEX, 34), "x = '{}'"),
    ("grafana-token", "glsa_" + tail(ALNUM, 32) + "_" + tail(HEX, 8), "x = '{}'"),
    ("twilio-key", "SK" + tail(HEX, 32), "client = Client('{}', other)"),
    ("telegram-bot-token", "1234567890:AA" + tail(ALNUM + "_-", 33), "bot = Bot('{}')"),
    ("age-secret-key", "AGE-SECRET-KEY-1" + tail(BECH32, 58), "{}"),
]


@pytest.mark.parametrize("rule, token, line", SAMPLES, ids=[s[0] for s in SAMPLES])
def test_provider_tokens_are_redacted(rule: str, token: str, line: str) -> None:
    text = "first\n" + line.format(token) + "\nlast\n"
    out, found = SecretRules().redact(text, "src/conf.ts")
    secret = token.split("=", 1)[1] if rule == "azure-key" else token
    assert secret not in out
    assert rule in {f.rule for f in found}
    assert out.count("\n") == text.count("\n") and out.startswith("first\n") and out.endswith("\nlast\n")


@pytest.mark.parametrize("text", [
    "const SKU_PREFIX = 'SKU'",
    "import { dapiClient } from './dapi'",
    "hf_hub_download(repo_id='x')",
    "AccountKey={accountKey}",
    "const SG = { x: 1 }; SG.init()",
    "shpat_ = shopify.token",
    "glc_default_config = {}",
    "timeout: 1234567890, AA: true",
    "AGE-SECRET-KEY-1 is the prefix of an age identity",
    "sha = 'SK' + hexdigest(32)",
])
def test_ordinary_code_with_the_prefixes_is_left_alone(text: str) -> None:
    out, found = SecretRules().redact(text)
    assert out == text and not found


VALUE = tail(ALNUM, 12) + "7!" + tail(ALNUM, 4)


@pytest.mark.parametrize("line", [
    "define('DB_PASSWORD', '{}');",                      # PHP (WordPress's wp-config.php)
    "os.environ.setdefault(\"SECRET_KEY\", \"{}\")",
    "config.set('api_token', '{}')",
    "<password>{}</password>",                           # XML configuration
    "headers['X-Api-Key'] = '{}'",
    "let api_key: &str = \"{}\";",                        # a type annotation between name and value
    "const apiKey: string = \"{}\";",
    "private clientSecret: string | undefined = '{}';",
])
def test_names_and_values_in_other_shapes_are_redacted(line: str) -> None:
    """Old: the assignment rule wanted ``name = value`` or ``name: value``; these shapes kept the value."""
    out, found = SecretRules().redact(line.format(VALUE), "src/settings.php")
    assert VALUE not in out and [f.rule for f in found] == ["secret-assignment"]


@pytest.mark.parametrize("text", [
    'const fields = ["count_count", "avg_latency", "sum_tokens", "p95_duration"]',  # a list, not a call
    'CREATE UNIQUE INDEX "k" ON "ApiKeyEnvironment"("apiKeyId", "environmentId");',  # two names
    "t('password', 'Password')",
    "<password>changeme</password>",
    "<token>${TOKEN}</token>",
    "private readonly clientSecret: Map<string, number> = new Map();",
    "def check(password: str = DEFAULT_PASSWORD):",
    "token: Token = tokens[i]",
])
def test_lists_names_and_typed_code_are_left_alone(text: str) -> None:
    out, found = SecretRules().redact(text, "src/x.ts")
    assert out == text and not found
