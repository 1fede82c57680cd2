"""Keep secrets out of prompts: skip secret-bearing files, redact secret-looking spans.

Two layers, because they fail differently. A file named ``.env`` or ``id_rsa`` is a
secret as a whole, whatever its content looks like, so it is never indexed. A normal
source file may still hold a pasted key or token; those spans are replaced by
``[REDACTED:<rule>]`` before any text leaves ctxsel, and each one is reported (path,
line, rule) so a user can see what was hidden and fix the source.

Both lists are extendable per repository (``[secrets]`` in ``.ctxsel.toml`` or
``[tool.ctxsel.secrets]`` in pyproject.toml): ``exclude_files`` (globs),
``allow_files`` (globs exempted from the name rules, e.g. ``"*.key.example"``),
``patterns`` (``{name = "...", regex = "..."}``). The built-in rules cannot be
switched off by config: a repository cannot opt itself into leaking.
"""

from __future__ import annotations

import math
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

from .errors import Location, ParseError
from .globs import FNMATCH, glob_regex

# Matched against the file's base name and against its whole repo-relative path.
SECRET_FILE_GLOBS: tuple[str, ...] = (
    ".env", ".env.*", "*.env", ".envrc",
    "*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore", "*.p8", "*.ppk",
    "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*",
    ".netrc", "_netrc", ".npmrc", ".pypirc", ".git-credentials", ".htpasswd", ".pgpass",
    "credentials", "credentials.*", "*credentials*.json", "client_secret*.json",
    "service-account*.json", "*serviceaccount*.json",
    # Terraform reads variable values from *.tfvars and from *.tfvars.json (terraform.tfvars.json,
    # *.auto.tfvars.json: "Input Variables", terraform docs)
    "secrets.*", "*.secrets", "*.tfstate", "*.tfstate.*", "*.tfvars", "*.tfvars.json",
    "*.kdbx", "*.gpg", ".dockercfg", ".docker/config.json", ".aws/credentials", ".ssh/*",
    # kubectl's credentials (client keys, tokens) and other tools' token files
    "kubeconfig", "*.kubeconfig", ".kube/config", ".vault-token", ".s3cfg", ".boto", ".my.cnf",
    ".terraformrc", "terraform.rc",
)

# (rule name, regex); group "secret" (when present) is the span replaced, else the whole match.
BUILTIN_PATTERNS: tuple[tuple[str, str], ...] = (
    ("private-key", r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)"),
    ("aws-access-key", r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}\b"),
    ("github-token", r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b"),
    ("gitlab-token", r"\bglpat-[A-Za-z0-9_\-]{20,}\b"),
    # bot/user/legacy tokens, app-level tokens (xapp-1-...) and refresh tokens (xoxe-1-...)
    ("slack-token", r"\b(?:xox[abposr]|xoxe|xapp)-[A-Za-z0-9-]{10,}\b"),
    ("slack-webhook", r"https://hooks\.slack\.com/services/[A-Za-z0-9_/]{20,}"),
    ("google-api-key", r"\bAIza[0-9A-Za-z_\-]{35}\b"),
    ("stripe-key", r"\b(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{16,}\b"),
    # a webhook endpoint's signing secret: whoever has it can forge Stripe's events
    ("stripe-webhook-secret", r"\bwhsec_[0-9A-Za-z+/]{24,}"),
    ("openai-key", r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_\-]{32,}\b"),
    ("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("jwt", r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
    # the password runs to the authority's last "@": an unencoded "@" in it is common in a DSN
    # (postgresql://app:p@ss@db), and a password stopped at its first "@" left the rest in the prompt.
    # Three characters at least: "postgres://{}:{}@…".format(…) and test URLs like mariadb://a:b@c
    # are the only 1-2 character "passwords" in 68,804 files of 22 public repositories
    ("url-password", r"\b[a-z][a-z0-9+.\-]*://[^\s/:@'\"]+:(?P<secret>[^\s/'\"]{3,})@"),
    # Provider tokens with a fixed shape (the formats gitleaks' rules document): a prefix no
    # ordinary identifier has, and a random tail of a set length.
    ("azure-key", r"(?:AccountKey|SharedAccessKey)=(?P<secret>[A-Za-z0-9+/]{20,}={0,2})"),
    # an Azure Storage shared access signature: the signed version (sv=YYYY-MM-DD) and its
    # signature (sig=, base64 and usually percent-encoded); the URL grants access until it expires
    ("azure-sas", r"\bsv=\d{4}-\d\d-\d\d[^\s'\"<>]*?&sig=(?P<secret>[A-Za-z0-9%+/=]{20,})"),
    # .netrc's "machine HOST [login NAME] password SECRET", tokens separated by any white space (so
    # also on separate lines), pasted into a script or a document (the file .netrc itself is excluded)
    ("netrc-password", r"\bmachine[ \t]+\S+(?:\s+(?:login|account)[ \t]+\S+){0,2}\s+password[ \t]+(?P<secret>\S+)"),
    # a PuTTY key file's private part (format 2 and 3), pasted where the .ppk name rule cannot see it
    # (whole lines of base64 only: the "Private-MAC:" line after them is a checksum, and no key has 64 lines)
    ("putty-private-key", r"(?m)^Private-Lines:[ \t]*\d+[ \t]*\r?\n(?P<secret>[A-Za-z0-9+/=]+(?=\r?$)(?:\r?\n[A-Za-z0-9+/=]+(?=\r?$)){0,63})"),
    ("sendgrid-key", r"\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}\b"),
    ("huggingface-token", r"\b(?:hf_|api_org_)[A-Za-z]{34}\b"),
    ("pypi-token", r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,}"),
    ("shopify-token", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b"),
    ("digitalocean-token", r"\bdo[opr]_v1_[a-f0-9]{64}\b"),
    ("databricks-token", r"\bdapi[a-f0-9]{32}(?:-\d)?\b"),
    ("linear-key", r"\blin_api_[A-Za-z0-9]{40}\b"),
    ("postman-key", r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b"),
    ("grafana-token", r"\bgl(?:c|sa)_[A-Za-z0-9+/_]{32,}={0,2}"),
    ("twilio-key", r"\bSK[0-9a-fA-F]{32}\b"),
    ("telegram-bot-token", r"\b[0-9]{8,10}:AA[A-Za-z0-9_\-]{33}\b"),
    ("age-secret-key", r"\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b"),
)

# name = "value" where the name says secret and the value looks random (checked in code).
_ASSIGNMENT = re.compile(
    r"""(?ix)
    # the whole name, taken atomically (lookahead + backreference): a regex that looks for the
    # keyword inside the name backtracks cubically on a line like "tokentokentoken..."
    (?=(?P<name>(?<![A-Za-z0-9_.\-])[A-Za-z0-9_.\-]+))(?P=name)
    # a closing quote, or quote and bracket: headers['X-Api-Key'] = ...
    (?:["']\]?)?
    # a type annotation: const apiKey: string = "...", let api_key: &str = "..."
    (?:[^\S\n]*:[^\S\n]*[&A-Za-z_][\w&'<>\[\].,|?\ ]{0,60}?(?=[^\S\n]*=[^=>]))?
    # not \s: "db:" must not take the next line's "password" as its value and hide that assignment
    [^\S\n]*(?::=|=>|[:=])[^\S\n]*
    # a quoted value may hold parentheses too: Django's generated SECRET_KEY draws from
    # "a-z0-9!@#$%^&*(-_=+)" (get_random_secret_key), unquoted they would be a call;
    # a quoted literal may sit in a template literal's expression: `...?api_key=${"..."}`
    (?:\$\{[^\S\n]*(?=["'`]))?(?P<quote>["'`])?(?P<secret>(?(quote)[A-Za-z0-9+/=_\-.~!@#$%^&*()]|[A-Za-z0-9+/=_\-.~!@#$%^&*]){6,})(?(quote)(?P=quote))
    """
)
# The same name and value in two other shapes, trusted only when the value looks random:
# a call's first two arguments (PHP's define('DB_PASSWORD', '...'), setdefault("SECRET_KEY", "..."),
# django-environ's env("DJANGO_SECRET_KEY", default="...")) and an XML element (<password>...</password>).
_PAIR = re.compile(
    r"""(?x)
    \([^\S\n]*(?P<open>["'])(?=(?P<name>[A-Za-z0-9_.\-]+))(?P=name)(?P=open)[^\S\n]*,[^\S\n]*
    (?:default[^\S\n]*=[^\S\n]*)?
    (?P<quote>["'`])(?P<secret>[A-Za-z0-9+/=_\-.~!@#$%^&*()]{6,})(?P=quote)
    """
)
_ELEMENT = re.compile(r"<(?=(?P<name>[A-Za-z0-9_.\-:]+))(?P=name)>(?P<quote>)(?P<secret>[A-Za-z0-9+/=_\-.~!@#$%^&*]{6,})</(?P=name)>")


# ``_auth`` / ``auth`` as a whole name: npm's ``_auth = base64(user:password)``, Docker's ``"auth": ...``
_ASSIGNMENT_HINT = re.compile(r"(?i)passw|passphrase|pwd|secret|token|api[_\-]?key|apikey|access[_\-]?key|private[_\-]?key|auth[_\-]?key|credential"
                              r"|(?<![A-Za-z0-9])_?auth\b")

# Spans a regex finds but only a check confirms: (rule, regex, check of group "secret" or the match).
# A PEM private key in base64 ("LS0tLS1CRUdJTi" is "-----BEGIN"), as kubeconfig's client-key-data
# holds it; and the credentials of an HTTP Authorization header, whose scheme is case-insensitive
# (RFC 9110, 11.1): actions/checkout persists ``AUTHORIZATION: basic <token>`` in .git/config.
_B64_PEM = re.compile(r"LS0tLS1CRUdJTi[A-Za-z0-9+/]{8,}={0,2}")
# yarn 2+'s registry credentials in .yarnrc.yml, settings yarn itself declares SECRET
# (@yarnpkg/plugin-npm): ``npmAuthIdent`` is ``user:password`` or its base64, which neither the
# random-looking nor the password-name rule sees. The span takes the quotes with the value.
_YARN_AUTH = re.compile(r"""\bnpmAuth(?:Ident|Token)["']?[ \t]*:[ \t]*(?P<secret>"[^"\n]*"|'[^'\n]*'|[^\s#"'][^\s#]*)""")
_AUTH_HEADER = re.compile(r"(?i:\bauthorization)[\"']?[ \t]*[:=,][ \t]*[\"'`]?(?i:Basic|Bearer|Token)[ \t]+"
                          r"(?P<secret>[A-Za-z0-9+/=_\-.~]{16,})")

# Configuration files, where an unquoted value is as much a literal as a quoted one in code
# (``password = hunter2`` in an .ini, ``password: hunter2`` in YAML).
CONFIG_SUFFIXES = (".ini", ".cfg", ".conf", ".cnf", ".properties", ".yaml", ".yml", ".env")


@dataclass(frozen=True)
class Redaction:
    """One hidden span: where it was and which rule hid it (never the secret itself)."""

    path: str
    line: int
    rule: str
    end_line: int = 0  # last line the span touches (a private key spans many); 0 means ``line``

    def __post_init__(self) -> None:
        if self.end_line < self.line:
            object.__setattr__(self, "end_line", self.line)


@dataclass
class SecretRules:
    file_globs: tuple[str, ...] = SECRET_FILE_GLOBS
    allow_globs: tuple[str, ...] = ()
    patterns: list[tuple[str, re.Pattern[str]]] = field(default_factory=list)
    min_entropy: float = 3.0

    @classmethod
    def from_config(cls, table: dict[str, Any] | None = None, where: str = ".ctxsel.toml") -> "SecretRules":
        """Built-in rules plus a repository's ``[secrets]`` table."""
        table = table or {}
        extra_files = _str_list(table.get("exclude_files", []), "secrets.exclude_files", where)
        allow = _str_list(table.get("allow_files", []), "secrets.allow_files", where)
        compiled = [(name, re.compile(rx)) for name, rx in BUILTIN_PATTERNS]
        for i, item in enumerate(table.get("patterns", []) or []):
            if not isinstance(item, dict) or not isinstance(item.get("regex"), str):
                raise ParseError(f"secrets.patterns[{i}] needs a regex string", Location(where))
            try:
                compiled.append((str(item.get("name", f"custom-{i}")), re.compile(item["regex"])))
            except re.error as exc:
                raise ParseError(f"secrets.patterns[{i}]: bad regex: {exc}", Location(where)) from None
            if nested_repeat(item["regex"]):
                raise ParseError(f"secrets.patterns[{i}]: {item['regex']!r} repeats a group that itself repeats "
                                 "(like (a+)+): it can take exponential time on one line; write it without the nesting",
                                 Location(where))
        return cls(SECRET_FILE_GLOBS + tuple(extra_files), tuple(allow), compiled)

    def __post_init__(self) -> None:
        if not self.patterns:
            self.patterns = [(name, re.compile(rx)) for name, rx in BUILTIN_PATTERNS]
        # one regex per glob list (fnmatch per glob per file was the slowest part of listing a repo)
        self._deny = _globs_regex(self.file_globs)
        self._allow = _globs_regex(self.allow_globs)

    # ------------------------------------------------------------ files
    def is_secret_file(self, path: str) -> bool:
        """True for files whose name says they hold secrets (repo-relative POSIX path)."""
        name = path.rsplit("/", 1)[-1]
        if self._allow is not None and _matches(self._allow, path, name):
            return False
        return self._deny is not None and _matches(self._deny, path, name)

    # ------------------------------------------------------------ spans
    def redact(self, text: str, path: str = "", first_line: int = 1) -> tuple[str, list[Redaction]]:
        """``text`` with secret-looking spans replaced, and where they were.

        ``first_line`` is the line number of ``text``'s first line in its file, so the
        report points at the file, not at the chunk.
        """
        spans: list[tuple[int, int, str]] = []
        folded = _fold(text)
        for name, rx in self.patterns:
            if not _may_match(rx, text, folded):
                continue
            for m in rx.finditer(text):
                start, end = _secret_span(m)
                if end > start:
                    spans.append((start, end, name))
        for name, rx, check in _CHECKED_PATTERNS:
            if not _may_match(rx, text, folded):
                continue
            for m in rx.finditer(text):
                start, end = _secret_span(m)
                if end > start and check(text[start:end]):
                    spans.append((start, end, name))
        config = path.lower().endswith(CONFIG_SUFFIXES)
        if path.lower().endswith((".yaml", ".yml")) and "Secret" in text:
            spans.extend((start, end, "kubernetes-secret") for start, end in kubernetes_secret_values(text))
        # the full pattern is slow; it runs only on the lines that may name a password/secret/token/key
        # (an assignment never spans lines, so per line it finds what it finds in the whole text)
        for line_start, line_end in _hint_lines(folded):
            for rx in (_ASSIGNMENT, _PAIR, _ELEMENT):
                for m in rx.finditer(text, line_start, line_end):
                    if not _ASSIGNMENT_HINT.search(m.group("name")):
                        continue  # an assignment, but not to a password/secret/token/key name
                    value = m.group("secret")
                    if _VERSION.fullmatch(value):
                        continue  # a package's version, not its credential
                    if _ETH_ADDRESS.fullmatch(value):
                        continue  # sellToken: '0xA0b8…eB48', a token contract's public address (a key is 64 hex digits)
                    if not m.group("quote") and (text[m.end():m.end() + 1] in ("(", "[")
                                                 or re.fullmatch(r"[A-Za-z_$][A-Za-z_$]*", value)):
                        continue  # getPassword(user), tokens[i], an identifier: code, not a value
                    if not m.group("quote") and not config and value.startswith("!"):
                        continue  # hasToken: !!tokenData.token, a negation in code: not a value
                    if rx is not _ASSIGNMENT and re.fullmatch(r"[A-Za-z_$][A-Za-z_$]*", value):
                        continue  # index("apiKeyId", "environmentId"): two names, not a name and its value
                    # a quoted literal assigned to a password/secret is one, random-looking or not
                    literal_password = (rx is _ASSIGNMENT and _PASSWORD_NAME.search(m.group("name")) is not None
                                        and (bool(m.group("quote")) or (config and not value.startswith(("/", "./", "../", "~/")))))
                    if (literal_password and not _is_name(value)) or (len(value) >= 8 and _looks_random(value, self.min_entropy)):
                        spans.append((m.start("secret"), m.end("secret"), "secret-assignment"))
        if not spans:
            return text, []
        spans.sort(key=lambda s: (s[0], -s[1]))
        merged: list[tuple[int, int, str]] = []
        for s in spans:  # overlapping matches become one redaction (the first rule names it)
            if merged and s[0] < merged[-1][1]:
                prev = merged[-1]
                merged[-1] = (prev[0], max(prev[1], s[1]), prev[2])
            else:
                merged.append(s)
        out: list[str] = []
        found: list[Redaction] = []
        pos = 0
        line = first_line  # the line of ``pos``: counted on from the previous span, since counting
        # from the start of the text for each span took minutes on a file of 40,000 redacted lines
        for start, end, name in merged:
            out.append(text[pos:start])
            line += text.count("\n", pos, start)
            # keep the line count, so line numbers of the chunk stay true
            out.append(f"[REDACTED:{name}]" + "\n" * text.count("\n", start, end))
            found.append(Redaction(path, line, name, line + text.count("\n", start, end - 1)))
            line += text.count("\n", start, end)
            pos = end
        out.append(text[pos:])
        return "".join(out), found


_BUILTIN = dict(BUILTIN_PATTERNS)
# Literals a pattern cannot match without (any one of them), keyed by (regex source, flags):
# ``str in text`` runs at memory speed, while ``re`` tries a pattern with no literal prefix
# at every position. Keyed by the source, so an edited pattern simply loses its shortcut.
_NEEDS_ONE_OF: dict[tuple[str, int], tuple[str, ...]] = {
    (rx, re.compile(rx).flags): needs for rx, needs in (
        (_BUILTIN["aws-access-key"], ("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA")),
        (_BUILTIN["github-token"], ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")),
        (_BUILTIN["gitlab-token"], ("glpat-",)),
        (_BUILTIN["slack-token"], ("xox", "xapp-")),
        (_BUILTIN["google-api-key"], ("AIza",)),
        (_BUILTIN["stripe-key"], ("_live_", "_test_")),
        (_BUILTIN["stripe-webhook-secret"], ("whsec_",)),
        (_BUILTIN["openai-key"], ("sk-",)),
        (_BUILTIN["npm-token"], ("npm_",)),
        (_BUILTIN["jwt"], ("eyJ",)),
        (_BUILTIN["url-password"], ("://",)),
        (_BUILTIN["azure-key"], ("AccountKey=", "SharedAccessKey=")),
        (_BUILTIN["azure-sas"], ("sig=",)),
        (_BUILTIN["netrc-password"], ("machine",)),
        (_BUILTIN["putty-private-key"], ("Private-Lines:",)),
        (_BUILTIN["sendgrid-key"], ("SG.",)),
        (_BUILTIN["huggingface-token"], ("hf_", "api_org_")),
        (_BUILTIN["pypi-token"], ("pypi-AgEIcHlwaS5vcmc",)),
        (_BUILTIN["shopify-token"], ("shpat_", "shpca_", "shppa_", "shpss_")),
        (_BUILTIN["digitalocean-token"], ("doo_v1_", "dop_v1_", "dor_v1_")),
        (_BUILTIN["databricks-token"], ("dapi",)),
        (_BUILTIN["linear-key"], ("lin_api_",)),
        (_BUILTIN["postman-key"], ("PMAK-",)),
        (_BUILTIN["grafana-token"], ("glc_", "glsa_")),
        (_BUILTIN["twilio-key"], ("SK",)),
        (_BUILTIN["telegram-bot-token"], (":AA",)),
        (_BUILTIN["age-secret-key"], ("AGE-SECRET-KEY-1",)),
        (_YARN_AUTH.pattern, ("npmAuth",)),
    )
}
# The same for case-insensitive patterns, looked up in the folded text (``_fold``).
_NEEDS_ONE_OF_FOLDED: dict[tuple[str, int], tuple[str, ...]] = {
    (_AUTH_HEADER.pattern, _AUTH_HEADER.flags): ("authorization",),
}
# Every match of _ASSIGNMENT_HINT contains one of these, in folded text.
_HINT_WORDS: tuple[str, ...] = (
    "passw", "passphrase", "pwd", "secret", "token", "apikey", "api_key", "api-key", "access_key", "access-key",
    "accesskey", "private_key", "private-key", "privatekey", "credential", "auth",
)
# ``re``'s IGNORECASE matches an ASCII letter with its other case and with these four (checked
# over all of Unicode in the tests); folding them keeps "in folded" a superset of a match.
_FOLD_TABLE: dict[int, str] = {**{c: chr(c + 32) for c in range(ord("A"), ord("Z") + 1)},
                                0x130: "i", 0x131: "i", 0x17F: "s", 0x212A: "k"}


def _fold(text: str) -> str:
    """``text`` with every character that IGNORECASE matches to an ASCII letter replaced by the
    lower-case letter, position for position."""
    low = text.lower()
    if text.isascii():
        return low
    if len(low) != len(text):  # "İ" lowers to two characters: offsets would shift
        return text.translate(_FOLD_TABLE)
    return low.replace("\u017f", "s").replace("\u0131", "i")  # the two that lower() leaves


def _may_match(rx: re.Pattern[str], text: str, folded: str) -> bool:
    """False only when ``rx`` cannot match ``text`` (a literal it needs is absent)."""
    key = (rx.pattern, rx.flags)
    needs = _NEEDS_ONE_OF.get(key)
    if needs is not None:
        return any(n in text for n in needs)
    needs = _NEEDS_ONE_OF_FOLDED.get(key)
    if needs is not None:
        return any(n in folded for n in needs)
    return True


def _hint_lines(folded: str) -> list[tuple[int, int]]:
    """(start, end) offsets of the lines that may hold an _ASSIGNMENT_HINT match, in order."""
    lines: set[tuple[int, int]] = set()
    for word in _HINT_WORDS:
        i = folded.find(word)
        while i != -1:
            end = folded.find("\n", i)
            end = len(folded) if end == -1 else end
            lines.add((folded.rfind("\n", 0, i) + 1, end))
            i = folded.find(word, end)
    return sorted(lines)


def _is_base64_private_key(value: str) -> bool:
    """A base64 blob that decodes to a PEM private key (not a certificate: those are public)."""
    import base64
    import binascii

    head = value[:400]  # the first line is all that is needed
    try:
        decoded = base64.b64decode(head[: len(head) - len(head) % 4])
    except (binascii.Error, ValueError):
        return False
    return b"PRIVATE KEY" in decoded.split(b"\n", 1)[0]


_CHECKED_PATTERNS: tuple[tuple[str, re.Pattern[str], Callable[[str], bool]], ...] = (
    ("private-key", _B64_PEM, _is_base64_private_key),
    ("auth-header", _AUTH_HEADER, lambda value: _looks_random(value, 3.0)),
    ("yarn-auth", _YARN_AUTH, lambda value: _is_credential_value(value.strip("\"'"))),
)


_YAML_DOCUMENT = re.compile(r"^---[^\S\n]*(?:#[^\n]*)?$", re.M)
_SECRET_KIND = re.compile(r"""^kind:[^\S\n]*(["']?)Secret\1[^\S\n]*(?:#[^\n]*)?$""", re.M)
_SECRET_DATA = re.compile(r"^(?:data|stringData):[^\S\n]*(?:#[^\n]*)?$", re.M)
_YAML_ENTRY = re.compile(r"[ ]+[^\s:#][^:\n]*:(?:[^\S\n]+(?P<value>[^\n]*))?")


def kubernetes_secret_values(text: str) -> list[tuple[int, int]]:
    """Spans of the values of a Kubernetes ``kind: Secret`` manifest's ``data``/``stringData``.

    Kubernetes keeps a Secret's payload there (``data`` base64, which hides it from every other
    rule: ``DATABASE_URL: cG9zdGdyZXM6Ly9...`` is a URL with its password), so each value is a
    secret whatever its name; gitleaks' ``kubernetes-secret`` and secretlint's ``no-k8s-kind-secret``
    flag such manifests whole. A block scalar (``config.json: |``) is hidden line by line; a Helm
    template (``{{ .Values.password | b64enc }}``) names a value instead of holding one and stays.
    """
    spans: list[tuple[int, int]] = []
    bounds = [0] + [m.end() for m in _YAML_DOCUMENT.finditer(text)] + [len(text)]
    for doc_start, doc_end in zip(bounds, bounds[1:]):
        if not _SECRET_KIND.search(text, doc_start, doc_end):
            continue
        for section in _SECRET_DATA.finditer(text, doc_start, doc_end):
            pos = section.end() + 1
            block_indent = -1  # inside a block scalar: lines indented deeper than its key
            while pos < doc_end:
                eol = text.find("\n", pos, doc_end)
                eol = doc_end if eol == -1 else eol
                line = text[pos:eol]
                indent = len(line) - len(line.lstrip(" "))
                if line.strip() and not line.lstrip().startswith("#"):
                    if indent == 0:
                        break  # the next top-level key: the section ended
                    if block_indent >= 0 and indent > block_indent:
                        spans.append((pos + indent, eol))
                    else:
                        block_indent = -1
                        entry = _YAML_ENTRY.fullmatch(line)
                        value = (entry.group("value") or "").rstrip() if entry else ""
                        if value[:1] in ("|", ">") and value:
                            block_indent = indent
                        elif value and not value.lstrip("\"'").startswith("{{"):
                            start = pos + entry.start("value")  # type: ignore[union-attr]
                            spans.append((start, start + len(value)))
                pos = eol + 1
    return spans


def _is_credential_value(value: str) -> bool:
    """A value that is the credential itself, not a ``${NPM_TOKEN}`` reference to the environment
    (the usual spelling in a committed .yarnrc.yml), a documentation placeholder (``<TOKEN>``) or empty."""
    return bool(value) and not re.fullmatch(r"\$\{[^}]*\}|<[^>]*>", value)


def nested_repeat(regex: str) -> bool:
    """True when an unbounded repeat contains another unbounded repeat (``(a+)+``, ``(\\w*\\s?)*``).

    Such a pattern backtracks exponentially on a line that almost matches, and Python's ``re``
    cannot be interrupted: one ``[secrets]`` pattern in a repository's config would hang every
    run over it. Atomic groups and possessive repeats do not backtrack and are allowed.
    """
    try:
        if sys.version_info >= (3, 11):
            from re import _constants as c
            from re import _parser as parser
        else:  # pragma: no cover - exercised on 3.10 only
            import sre_constants as c
            import sre_parse as parser
        tree = parser.parse(regex)
    except Exception:
        return False
    repeats = {c.MAX_REPEAT, c.MIN_REPEAT}

    def walk(items: Any, inside: bool) -> bool:
        for op, av in items:
            if op in repeats:
                unbounded = av[1] == c.MAXREPEAT
                if unbounded and inside:
                    return True
                if walk(av[2], inside or unbounded):
                    return True
            elif op == c.SUBPATTERN:
                if walk(av[-1], inside):
                    return True
            elif op == c.BRANCH:
                if any(walk(alt, inside) for alt in av[1]):
                    return True
            elif op in (c.ASSERT, c.ASSERT_NOT):
                if walk(av[1], inside):
                    return True
            elif op == c.GROUPREF_EXISTS:
                if any(walk(alt, inside) for alt in av[1:] if alt is not None):
                    return True
            elif op == getattr(c, "ATOMIC_GROUP", None):
                if walk(av, False):  # nothing backtracks into it; what is inside still can
                    return True
        return False

    return walk(tree, False)


def _secret_span(m: re.Match[str]) -> tuple[int, int]:
    if "secret" in m.re.groupindex and m.group("secret") is not None:
        return m.start("secret"), m.end("secret")
    return m.start(), m.end()


def _globs_regex(globs: tuple[str, ...]) -> tuple[re.Pattern[str] | None, re.Pattern[str] | None] | None:
    """(regex for base names, regex for whole paths): globs with a '/' match the path's tail.
    Globs read as ``fnmatch.fnmatchcase`` reads them (``globs.FNMATCH``): ``*`` crosses ``/``."""
    names = [_fnmatch_source(g) for g in globs if "/" not in g]
    paths = [_fnmatch_source(g) for g in globs if "/" in g] + [_fnmatch_source("*/" + g) for g in globs if "/" in g]
    if not names and not paths:
        return None
    return (re.compile("|".join(names)) if names else None, re.compile("|".join(paths)) if paths else None)


def _fnmatch_source(glob: str) -> str:
    return r"(?:" + glob_regex(glob, dialect=FNMATCH) + r")\Z"


def _matches(rx: tuple[re.Pattern[str] | None, re.Pattern[str] | None], path: str, name: str) -> bool:
    by_name, by_path = rx
    return bool((by_name is not None and by_name.match(name)) or (by_path is not None and by_path.match(path)))


def shannon_entropy(value: str) -> float:
    """Bits per character; random tokens score ~4-6, words and identifiers ~2.5-3.5."""
    if not value:
        return 0.0
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


_PASSWORD_NAME = re.compile(r"(?i)passw|passphrase|secret")


def _is_name(value: str) -> bool:
    """A dotted name (process.env.TOKEN), a plain word or a constant name ("changeme", "API_TOKEN")."""
    return bool(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+", value)
                or re.fullmatch(r"[a-z]+(?:[_\-][a-z]+)*|[A-Z]+(?:_[A-Z]+)*", value))


def _is_scope_name(value: str) -> bool:
    """Lower-case words joined by dots and dashes: a TextMate scope or message key
    (``token: 'meta.diff.header.to-file'`` in a Monaco theme), never a generated credential. Not a
    name for a literal assigned to a password, where ``correct.horse-battery.staple`` is a passphrase."""
    return re.fullmatch(r"[a-z]+(?:[._\-][a-z]+)*", value) is not None


#: a dependency's version or range (``better-auth: 1.4.0-beta.9``, ``keyvault-secrets: ^4.9.0`` in
#: a pnpm catalog): the name says auth/secret, the value is no credential
_VERSION = re.compile(r"[~^<>=v]{0,2}\d+(?:\.\d+){1,3}(?:[-+][0-9a-z.\-]+)?")


#: an Ethereum address: 20 bytes of a public key's hash, public by design (what a wallet shows to be
#: paid); cowswap's tests name token contracts ``sellToken``/``TOKEN_A`` with them. A private key is 32 bytes.
_ETH_ADDRESS = re.compile(r"0x[0-9a-fA-F]{40}")


def _looks_random(value: str, min_entropy: float) -> bool:
    """A value that is a secret rather than code: random-looking, not a name or placeholder."""
    if _is_name(value) or _is_scope_name(value):
        return False
    classes = sum(bool(re.search(rx, value)) for rx in (r"[a-z]", r"[A-Z]", r"[0-9]", r"[^A-Za-z0-9]"))
    return classes >= 2 and shannon_entropy(value) >= min_entropy


def _str_list(value: Any, key: str, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ParseError(f"{key} must be a list of strings", Location(where))
    return list(value)
