"""Files that are either whole or absent: the one atomic-write helper of the project.

Checkpoints, replay-buffer shards, match files and a run's config are all written through
:func:`write_atomic`: the data goes to a temporary file in the same directory, is flushed to the
disk (``fsync``), and only then takes the final name with ``os.replace``, which is atomic on
POSIX and Windows. A crash at any moment leaves either the old file or the new one, never a
torn one; a stray ``*.tmp`` file is the only trace.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


def write_atomic(path: str | Path, data: bytes | str | Callable[[BinaryIO], None]) -> Path:
    """Write ``data`` (bytes, text as UTF-8, or a function that writes to a binary file) to
    ``path`` atomically; return ``path``. The directory must exist."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        with open(tmp, "wb") as f:
            if callable(data):
                data(f)
            else:
                f.write(data.encode("utf-8") if isinstance(data, str) else data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path
