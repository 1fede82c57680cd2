"""Secret formats that reached ``select``'s output (session 27, helper hu).

Measured with the session's non-editable install on a repository of one file per form (values
random, shapes as the providers and tools document them), every ``--format``: these went out whole.

* ``.netrc`` text in a file of another name (``machine HOST login NAME password SECRET``, on one
  line or several, or echoed into ~/.netrc by a script): the file-name rule only knows ``.netrc``;
* Slack app-level tokens (``xapp-1-…``) and refresh tokens (``xoxe-1-…``); Stripe webhook signing
  secrets (``whsec_…``); the private lines of a PuTTY key pasted into a document; an Azure Storage
  SAS URL's signature (``sv=2022-11-02&…&sig=…``);
* a quoted literal inside a template literal's expression (`` `…?api_key=${"…"}` ``);
* a URL password holding an unencoded ``@`` (``postgresql://app:p@ss@db``) lost only the part
  before its first ``@``;
* ``terraform.tfvars.json`` and ``*.auto.tfvars.json``, which Terraform reads as it reads
  ``*.tfvars`` (terraform docs, "Input Variables"), were indexed.

Noise, measured over the tracked text files of 22 public repositories (68,804 files, the
session's fp.py): the rules below add no redaction there.
"""

from __future__ import annotations

import json
import random
import string
from pathlib import Path

import pytest
from conftest import write_tree

from ctxsel.secrets import SecretRules

RNG = random.Random(2027)


def _rand(n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    return "".join(RNG.choice(alphabet) for _ in range(n))


HEX = "0123456789abcdef"
# (path, text, secret): the secret must not survive redaction
FORMS = [
    ("ci/auth.txt", "machine api.github.com login octocat password {s}\n", _rand(18)),
    ("docs/netrc.example", "machine registry.example.com\n  login deploy\n  password {s}\n", _rand(18)),
    ("scripts/setup.sh", "echo 'machine github.com login bot password {s}' > ~/.netrc\n", _rand(18)),
    ("src/slack_app.py", "SocketModeHandler(app, '{s}').start()\n",
     "xapp-1-A" + _rand(10, string.ascii_uppercase + string.digits) + "-" + _rand(13, string.digits) + "-" + _rand(64, HEX)),
    ("src/slack_refresh.py", "refresh({s!r})\n", "xoxe-1-" + _rand(146, string.ascii_uppercase + string.digits)),
    ("src/hook.js", "stripe.webhooks.constructEvent(body, sig, '{s}');\n", "whsec_" + _rand(32)),
    ("docs/putty.txt", "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: eddsa-key\nPublic-Lines: 1\n"
     "AAAAC3NzaC1lZDI1NTE5AAAAIOCm\nPrivate-Lines: 1\n{s}\nPrivate-MAC: " + _rand(64, HEX) + "\n", _rand(64)),
    ("src/blob.py", "URL = 'https://acct.blob.core.windows.net/c?sv=2022-11-02&ss=b&srt=sco&sp=rl"
     "&se=2030-01-01T00:00:00Z&sig={s}'\n", _rand(40) + "%3D"),
    ("src/api.ts", "const u = `https://api.example.com/v1?api_key=${{'{s}'}}`;\n", _rand(40)),
    ("src/db.py", "DSN = 'postgresql://app:Xy7@{s}@db:5432/x'\n", _rand(10)),
]
NAMED = ["infra/terraform.tfvars.json", "infra/prod.auto.tfvars.json"]


@pytest.mark.parametrize(("path", "template", "secret"), FORMS, ids=[f[0] for f in FORMS])
def test_the_form_is_redacted(path: str, template: str, secret: str) -> None:
    text = template.format(s=secret)
    redacted, found = SecretRules().redact(text, path)
    assert found, redacted
    assert secret not in redacted and redacted.count("\n") == text.count("\n")


@pytest.mark.parametrize("path", NAMED)
def test_terraform_json_variable_files_are_secret_files(path: str) -> None:
    assert SecretRules().is_secret_file(path)


def test_select_emits_none_of_them_in_any_format(tmp_path: Path, cli) -> None:
    files: dict[str, str] = {}
    for path, template, secret in FORMS:
        files[path] = files.get(path, "") + template.format(s=secret)
    tf_value = _rand(20)
    for path in NAMED:
        files[path] = json.dumps({"db_password": tf_value}) + "\n"
    root = write_tree(tmp_path / "repo", files)
    query = "machine login password token api key secret sig engine stripe slack putty refresh db_password"
    for fmt in ("json", "markdown", "paths"):
        proc = cli("--repo", str(root), "select", query, "--budget", "50000", "--format", fmt)
        assert proc.returncode == 0, proc.stderr
        out = proc.stdout + proc.stderr
        assert [s for _, _, s in FORMS if s in out] == [] and tf_value not in out
        if fmt == "json":
            packed = {c["path"] for c in json.loads(proc.stdout)["chunks"]}
            assert {p for p, _, _ in FORMS} <= packed  # each file went out, its secret hidden
            assert not packed & set(NAMED)
    # nor the search terms stored in the index
    stored = b"".join(p.read_bytes() for p in (root / ".ctxsel" / "index").glob("*.pickle"))
    assert [s for _, _, s in FORMS if len(s) > 8 and s.lower().encode() in stored] == []
