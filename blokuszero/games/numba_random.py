"""The one place that seeds numba's random generator.

numba's compiled code draws from its own global generator, separate from numpy's; the games'
fast paths (Blokus and Go playouts, Blokus's random moves) use it, so a seeded run seeds it here.
"""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(cache=True)
def seed_numba(seed: int) -> None:
    """Seed numba's global generator (the games' numba playouts and random moves)."""
    np.random.seed(seed)
