"""Pickled caches under ``<repo>/.ctxsel/`` that a hostile repository can neither forge nor redirect.

Why: unpickling runs code (``__reduce__``), and ``.ctxsel/`` lives inside a work tree
someone else may have written — a repository can commit ``.ctxsel/index/meta.pickle``
(``git add -f``) or a symlink ``.ctxsel -> ../elsewhere``. So:

* Every file is ``MAGIC + HMAC-SHA256(key, payload) + payload``, and ``load`` checks the
  MAC *before* ``pickle.loads`` sees a byte. The key is 32 random bytes kept outside any
  repository, in the user's cache directory (``$CTXSEL_KEY_FILE``, else
  ``$XDG_CACHE_HOME/ctxsel/pickle.key`` or ``~/.cache/ctxsel/pickle.key``), so only this
  user's own ctxsel can have written a file that verifies. A committed or tampered file
  fails the check and reads as missing: callers rebuild, as they do for a corrupt cache.
* ``load`` and ``dump`` use a location only when every directory from the repository
  root down to the file is a real directory (no symlink) and the real path stays inside
  the real root (``trusted_dir``); otherwise the cache is skipped.

A key that cannot be stored (read-only home) becomes a per-process random key: caches
then never hit across runs, but nothing fails.
"""

from __future__ import annotations

import os
import pickle
import stat
# Constant-time comparison: hmac.compare_digest is this function when OpenSSL is absent,
# and importing hmac would pull in hashlib/OpenSSL (see hmac_sha256).
from _operator import _compare_digest as compare_digest
from pathlib import Path
from typing import Any, Callable

from .paths import inside_root, open_regular

MAGIC = b"CTXSELP1"
KEY_BYTES = 32
MAC_BYTES = 32
HEADER = len(MAGIC) + MAC_BYTES
#: Payloads above this are MACed by OpenSSL (``hmac``), below it by CPython's built-in
#: SHA-256 — see ``hmac_sha256``.
OPENSSL_ABOVE = 1 << 20
# Larger cache files are not read (treated as missing, so rebuilt): a planted sparse file must
# not make a run allocate terabytes. The index of a 14,000-chunk repository is a few MB.
MAX_BYTES = 1 << 30

_keys: dict[str, bytes] = {}  # key file path ("" = none usable) -> key, once per process


# ---------------------------------------------------------------- where
def trusted_dir(root: Path, directory: Path, create: bool = False) -> bool:
    """True when ``directory`` (under ``root``) and every directory between them is a real
    directory, not a symlink, and its real path lies inside ``root``'s real path.

    With ``create``, missing directories are made one level at a time, each only after its
    parent passed the check, so nothing is ever created through a planted symlink.
    """
    try:
        rel = directory.relative_to(root)
    except ValueError:
        return False
    if ".." in rel.parts:
        return False
    current = root
    for part in rel.parts:
        current = current / part
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            if not create:
                return False
            try:
                os.mkdir(current)
                st = os.lstat(current)
            except FileExistsError:  # made by a concurrent run: check what it is
                try:
                    st = os.lstat(current)
                except OSError:
                    return False
            except OSError:
                return False
        except (OSError, ValueError):
            return False
        if not stat.S_ISDIR(st.st_mode):  # lstat: a symlink is never S_ISDIR
            return False
    return inside_root(root, os.fspath(rel)) is not None


# ---------------------------------------------------------------- key
def key_path() -> Path | None:
    """Where the per-user key lives; outside any repository by construction."""
    explicit = os.environ.get("CTXSEL_KEY_FILE")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):  # the XDG spec says to ignore a relative value
        return Path(xdg) / "ctxsel" / "pickle.key"
    try:
        return Path.home() / ".cache" / "ctxsel" / "pickle.key"
    except (RuntimeError, KeyError):  # no home directory to speak of
        return None


def _read_key(path: Path) -> bytes | None:
    try:
        with open_regular(path) as fh:  # a FIFO at the key's path hung every cached command
            key = fh.read(KEY_BYTES + 1)
    except OSError:
        return None
    return key if len(key) == KEY_BYTES else None


def _create_key(path: Path) -> bytes | None:
    """Write a fresh key (mode 0600) where there is no file yet, then read back whatever is
    there: when two processes race, both end up with the winner's key.

    The key is written to a temporary file and hard-linked into place, which fails when the
    path exists: a file that is not a key is never replaced. ``os.replace`` did replace it:
    ``CTXSEL_KEY_FILE`` naming a wrong file turned that file into 32 random bytes, and as root
    ``CTXSEL_KEY_FILE=/dev/zero`` turned the device into a regular file (measured). Such a path
    then reads as no key, and this process uses a random one (caches are rebuilt, nothing lost).
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}")
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(os.urandom(KEY_BYTES))
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass  # another process's key, or a file that is not ours: read below, never replaced
        except OSError:  # a file system without hard links: create it in place, never over a file
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as fh:
                fh.write(os.urandom(KEY_BYTES))
    except OSError:
        return None
    finally:
        try:
            tmp.unlink()
        except OSError:
            pass
    return _read_key(path)


def key() -> bytes:
    """The per-user MAC key: read, created on first use, or a per-process random fallback."""
    path = key_path()
    name = str(path) if path is not None else ""
    found = _keys.get(name)
    if found is None:
        found = (_read_key(path) or _create_key(path)) if path is not None else None
        found = _keys[name] = found or os.urandom(KEY_BYTES)
    return found


# ---------------------------------------------------------------- MAC
def _builtin_sha256() -> Callable[..., Any] | None:
    for module in ("_sha2", "_sha256"):  # 3.12+ / 3.11
        try:
            return __import__(module).sha256
        except (ImportError, AttributeError):
            continue
    return None


def hmac_sha256(secret: bytes, data: bytes | memoryview) -> bytes:
    """HMAC-SHA256 (RFC 2104): the same bytes as ``hmac.digest(secret, data, "sha256")``.

    Small payloads use CPython's built-in SHA-256 with the RFC's two-pass construction:
    importing ``hmac`` pulls in hashlib and OpenSSL (~3 ms), more than a warm
    ``blast-radius`` spends loading its whole graph (docs/benchmarks.md,
    tests/test_warm_start.py). Large payloads go through OpenSSL, which hashes ~6x faster.
    """
    sha256 = _builtin_sha256()
    if sha256 is None or len(data) > OPENSSL_ABOVE or len(secret) > 64:
        import hmac

        return hmac.digest(secret, data, "sha256")
    block = secret.ljust(64, b"\0")  # SHA-256's block size
    inner = sha256(bytes(b ^ 0x36 for b in block))
    inner.update(data)
    return sha256(bytes(b ^ 0x5C for b in block) + inner.digest()).digest()


# ---------------------------------------------------------------- files
def load(path: Path, root: Path) -> object | None:
    """The object ``dump`` stored at ``path``; None when missing, unreadable, at an untrusted
    location, or not authenticated by this user's key (then it is never unpickled)."""
    if not trusted_dir(root, path.parent):
        return None
    try:
        # a FIFO or device planted as a cache file must not hang the run, nor a sparse
        # file of terabytes exhaust memory: regular files only, header first, size capped
        with open_regular(path, follow=False) as fh:
            head = fh.read(HEADER)
            if len(head) < HEADER or not head.startswith(MAGIC) or os.fstat(fh.fileno()).st_size > MAX_BYTES:
                return None
            data = head + fh.read(MAX_BYTES)
    except (OSError, ValueError):
        return None
    payload = memoryview(data)[HEADER:]
    if not compare_digest(data[len(MAGIC):HEADER], hmac_sha256(key(), payload)):
        return None
    try:
        return pickle.loads(payload)
    except Exception:  # authentic but from another version of ctxsel's classes: rebuild
        return None


def dump(obj: object, path: Path, root: Path) -> bool:
    """Store ``obj`` at ``path`` atomically (temp file in the same directory + ``os.replace``),
    authenticated with this user's key. Does nothing at an untrusted location or on a
    read-only repository; True when the file was written."""
    if not trusted_dir(root, path.parent, create=True):
        return False
    import tempfile  # not at module level: a warm run only reads (tempfile costs ~1 ms to import)

    payload = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    mac = hmac_sha256(key(), payload)
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    except OSError:
        return False
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(MAGIC)
            fh.write(mac)
            fh.write(payload)
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return False
    return True
