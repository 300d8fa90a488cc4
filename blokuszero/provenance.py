"""Which source made a file: the git revision of the package and whether its tree had changes.

Every checkpoint, every run's config record and every match summary stores :func:`source`, so that
a figure can be traced to the code that produced it. Outside a git checkout (an installed wheel)
the revision is ``"unknown"`` and ``dirty`` is ``None``.
"""

from __future__ import annotations

import functools
import subprocess
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(["git", *args], capture_output=True, text=True, cwd=_PACKAGE, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


@functools.cache
def source() -> dict[str, str | bool | None]:
    """``{"git_revision": sha or "unknown", "dirty": bool or None}`` for this process's package.

    ``dirty`` is true when tracked files differ from the revision or untracked, non-ignored files
    exist (a new module not yet committed changes what runs as much as an edit does). Computed once
    per process: the code a process runs does not change under it.
    """
    top = _git("rev-parse", "--show-toplevel")
    # Only a checkout whose package this is: an install inside some other repository's tree
    # (a virtual environment in a clone) is not that repository's revision.
    revision = _git("rev-parse", "HEAD") if top and Path(top.strip()).resolve() == _PACKAGE.parent else None
    if revision is None:
        return {"git_revision": "unknown", "dirty": None}
    status = _git("status", "--porcelain")
    return {"git_revision": revision.strip(), "dirty": None if status is None else bool(status.strip())}
