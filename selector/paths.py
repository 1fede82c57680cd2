"""Whether a path really lies inside the repository, symlinks resolved.

One check for every place that must not follow a link out of the repository (reading
sources, CODEOWNERS, the cache directory), and one way to open a file a repository may have
swapped for something else (``open_regular``). A module of its own, with no imports beyond
``os``, so the cache can use it on the warm start path.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO


def inside_root(root: Path, rel: str) -> Path | None:
    """The absolute path of ``rel`` if it really lies inside ``root`` (no symlink escapes)."""
    root_real = os.path.realpath(root)
    full = os.path.realpath(os.path.join(root_real, rel))
    if full != root_real and not full.startswith(root_real + os.sep):
        return None
    return Path(full)


def open_regular(path: str | os.PathLike[str], follow: bool = True) -> BinaryIO:
    """``open(path, "rb")`` that refuses anything but a regular file, without blocking.

    A repository can hold a FIFO where a manifest, a source or a cache file is expected
    (``mkfifo package.json``): a plain ``open`` waits for a writer forever. O_NONBLOCK makes
    opening a FIFO return at once, and ``fstat`` on the opened descriptor (not the name, which
    could be swapped in between) turns away FIFOs, devices, sockets and directories with an
    ``OSError``, which every caller already treats as "unreadable". ``follow=False`` also
    refuses a symlink (O_NOFOLLOW).
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | (0 if follow else getattr(os, "O_NOFOLLOW", 0))
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            code = errno.EISDIR if stat.S_ISDIR(mode) else errno.EINVAL
            raise OSError(code, "not a regular file", os.fspath(path))
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_text(path: str | os.PathLike[str], errors: str = "strict") -> str:
    """A regular file's text (UTF-8), through ``open_regular``: a manifest that is a FIFO or a
    device raises ``OSError`` like a missing one, instead of hanging the run."""
    with open_regular(path) as fh:
        return fh.read().decode("utf-8", errors=errors)
