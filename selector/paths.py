"""Whether a path really lies inside the repository, symlinks resolved.

One check for every place that must not follow a link out of the repository (reading
sources, CODEOWNERS, the cache directory). A module of its own, with no imports beyond
``os``, so the cache can use it on the warm start path.
"""

from __future__ import annotations

import os
from pathlib import Path


def inside_root(root: Path, rel: str) -> Path | None:
    """The absolute path of ``rel`` if it really lies inside ``root`` (no symlink escapes)."""
    root_real = os.path.realpath(root)
    full = os.path.realpath(os.path.join(root_real, rel))
    if full != root_real and not full.startswith(root_real + os.sep):
        return None
    return Path(full)
