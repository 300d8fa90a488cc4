"""Where numba's on-disk cache of this package's kernels lives: one directory per digest of its sources.

numba checks a cached kernel only against its own file's contents, but a kernel holds compiled
code from other modules too: functions it calls or inlines (``games/numba_random.py`` in the
playouts), the games' ``overload`` implementations (``games/*/kernels.py``, found by type, not by
import, in ``search/compiled.py``) and module-level arrays and numbers frozen as constants. So
the cache is kept in a directory named by a SHA-256 digest of every ``.py`` file of the package:
after any edit, kernels are compiled afresh into a new directory and none is ever read stale.
The whole package rather than the modules that use numba, because a sound smaller set would
need the import and overload graph, which an analysis can get wrong; the cost is recompiling
the kernels a process uses after an edit of any package file, which users never make.

``blokuszero/__init__.py`` calls :func:`configure` before any submodule (and so before any
kernel is decorated: numba fixes a kernel's cache directory from ``numba.config.CACHE_DIR`` when
``@njit(cache=True)`` runs); it sets ``NUMBA_CACHE_DIR`` too, which numba reads when it is
imported and rereads before each compilation, and which subprocesses and Ray workers inherit
(each computes its own digest again). The parent directory is a user-set ``NUMBA_CACHE_DIR``,
else ``$XDG_CACHE_HOME/blokuszero/numba`` (``~/.cache/blokuszero/numba``), else, where that is
not writable, one in the system's temporary directory. Directories unused (not imported) for
:data:`KEEP_DAYS` days are removed when a new one is made.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

#: The environment variable numba reads (its parent, when a user sets it).
NUMBA_VARIABLE = "NUMBA_CACHE_DIR"
#: The directory this package put into ``NUMBA_VARIABLE``: a child process that inherits both
#: unchanged takes that directory's parent as its own, instead of nesting a directory in it.
CHOSEN_VARIABLE = "BLOKUSZERO_NUMBA_CACHE_DIR"
#: Digest directories not imported for this many days are deleted when a new one is made.
KEEP_DAYS = 30
#: Hex digits of the digest in a directory's name (64 bits).
NAME_DIGITS = 16

PACKAGE = Path(__file__).resolve().parent


def source_digest(package: Path = PACKAGE) -> str:
    """SHA-256 (hex) over the relative path and the bytes of every ``.py`` file under ``package``."""
    digest = hashlib.sha256()
    files = []
    for folder, subfolders, names in os.walk(package):
        subfolders[:] = [s for s in subfolders if s != "__pycache__"]
        files += [os.path.join(folder, n) for n in names if n.endswith(".py")]
    for path in sorted(files):
        with open(path, "rb") as f:
            data = f.read()
        name = Path(path).relative_to(package).as_posix()
        digest.update(f"{name}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def default_parent() -> Path:
    """Where digest directories go unless the user set ``NUMBA_CACHE_DIR``."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "blokuszero" / "numba"


def parent_directory() -> Path:
    """The user's ``NUMBA_CACHE_DIR``, the one a parent process of ours chose's parent, or the default."""
    current = os.environ.get(NUMBA_VARIABLE, "")
    if current and current == os.environ.get(CHOSEN_VARIABLE):
        return Path(current).parent
    return Path(current) if current else default_parent()


def _writable(directory: Path) -> bool:
    try:
        directory.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=directory).close()
        return True
    except OSError:
        return False


def _prune(parent: Path, keep: Path) -> None:
    """Remove digest directories under ``parent`` other than ``keep`` not used for KEEP_DAYS days."""
    old = time.time() - KEEP_DAYS * 86400
    try:
        entries = list(parent.iterdir())
    except OSError:
        return
    for entry in entries:
        name = entry.name
        if (entry != keep and len(name) == NAME_DIGITS and all(c in "0123456789abcdef" for c in name)
                and entry.is_dir() and entry.stat().st_mtime < old):
            shutil.rmtree(entry, ignore_errors=True)


def configure() -> Path | None:
    """Point numba's cache at this package's digest directory (see the module's docstring); the
    directory, or None where no writable one was found (numba then caches beside the sources)."""
    name = source_digest()[:NAME_DIGITS]
    tmp = Path(tempfile.gettempdir()) / f"blokuszero-numba-{os.getuid() if hasattr(os, 'getuid') else 0}"
    for parent in (parent_directory(), tmp):
        chosen = parent / name
        fresh = not chosen.is_dir()
        if _writable(chosen):
            break
    else:
        return None
    if fresh:
        _prune(chosen.parent, chosen)
    else:
        os.utime(chosen)  # used now: pruning goes by the directory's date
    os.environ[NUMBA_VARIABLE] = os.environ[CHOSEN_VARIABLE] = str(chosen)
    config = sys.modules.get("numba.core.config")
    if config is not None:  # numba was imported first: its config has read the variable already
        config.CACHE_DIR = str(chosen)
    return chosen
