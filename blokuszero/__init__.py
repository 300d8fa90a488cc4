"""BlokusZero: AlphaZero-style self-play for 4-player Blokus on one search core for many games."""

from . import numba_cache as _numba_cache

__version__ = "0.1.0"

# Before any submodule decorates a kernel: numba's cache keyed on the package's sources.
NUMBA_CACHE = _numba_cache.configure()
