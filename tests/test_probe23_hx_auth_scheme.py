"""Session 23 (helper hx): an HTTP Authorization header's scheme in any case is redacted.

The auth-header rule matched ``Basic``/``Bearer``/``Token`` only as spelled with a capital, but
the scheme is a case-insensitive token (RFC 9110, section 11.1), and the most common credential
of this shape in a checkout is written lower-case: ``actions/checkout`` persists
``http.https://github.com/.extraheader AUTHORIZATION: basic <base64(x-access-token:ghs_...)>``,
and scripts copy that line (``git -c http.extraheader="AUTHORIZATION: basic ..."``).
Look-alikes whose value is not random (prose about the scheme) stay readable, as before.
"""

from __future__ import annotations

import pytest

from conftest import run_cli, write_tree
from ctxsel.secrets import SecretRules

CREDENTIAL = "eC1hY2Nlc3MtdG9rZW46Z2hzX0FCQ0RFRkdISUpLTE1OT1BRUlNUVVZXWFla"  # x-access-token:ghs_ABC...


@pytest.mark.parametrize("line", [
    f"\textraheader = AUTHORIZATION: basic {CREDENTIAL}",
    f'git -c http.extraheader="AUTHORIZATION: basic {CREDENTIAL}" fetch origin',
    f'curl -H "authorization: BASIC {CREDENTIAL}" https://api.example.com',
    f'headers = {{"Authorization": "bearer {CREDENTIAL}"}}',
    f"Authorization: token {CREDENTIAL}",
])
def test_any_case_of_the_scheme_is_redacted(line: str) -> None:
    text, found = SecretRules().redact(line + "\n", "x.sh")
    assert CREDENTIAL not in text
    assert [r.rule for r in found] == ["auth-header"]


@pytest.mark.parametrize("line", [
    "the authorization: basic authentication-scheme-documentation",
    "Authorization: basic-auth-is-described-in-rfc7617",
])
def test_prose_about_the_scheme_stays_readable(line: str) -> None:
    assert SecretRules().redact(line + "\n", "README.md") == (line + "\n", [])


def test_the_persisted_checkout_header_never_reaches_select_output(tmp_path) -> None:
    write_tree(tmp_path, {"ci/fetch.sh": f'#!/bin/sh\ngit -c http.extraheader="AUTHORIZATION: basic {CREDENTIAL}" fetch\n'})
    proc = run_cli("--repo", str(tmp_path), "select", "fetch extraheader", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert CREDENTIAL not in proc.stdout
    assert "ci/fetch.sh" in proc.stdout and "auth-header" in proc.stdout
