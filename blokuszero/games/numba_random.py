"""The one place that seeds numba's random generator, and the cheap streams drawn from it.

numba's compiled code draws from its own global generator, separate from numpy's; the games'
fast paths (Blokus and Go playouts, Blokus's random moves) use it, so a seeded run seeds it here.
A hot loop that draws hundreds of numbers (a Blokus playout) takes one seed from that generator
and carries a SplitMix64 stream (Steele, Lea & Flood 2014) in a local variable: a draw is a few
multiplications instead of a call into numba's Mersenne Twister through thread-local state.
"""

from __future__ import annotations

import numba as nb
import numpy as np

#: SplitMix64's increment (the golden ratio in 64 bits).
GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_LOW32 = np.uint64(0xFFFFFFFF)
_TWO_POW_M53 = 1.0 / (1 << 53)


@nb.njit(cache=True)
def seed_numba(seed: int) -> None:
    """Seed numba's global generator (the games' numba playouts and random moves)."""
    np.random.seed(seed)


@nb.njit(cache=True, inline="always")
def splitmix64(x):
    """SplitMix64's output function: a well-mixed 64-bit value from ``x`` (uint64)."""
    x = (x ^ (x >> np.uint64(30))) * _MIX1
    x = (x ^ (x >> np.uint64(27))) * _MIX2
    return x ^ (x >> np.uint64(31))


@nb.njit(cache=True)
def stream_seed():
    """A stream's start (uint64), one draw from numba's seeded global generator."""
    return np.uint64(np.random.randint(0, 0x7FFFFFFFFFFFFFFF))


@nb.njit(cache=True, inline="always", _nrt=False)
def stream_below(n, x):
    """``(r, x')``: r uniform in [0, n) (0 < n < 2**32) from stream state ``x``, and the next state.

    Lemire's multiply-and-shift on the top 32 bits, with his rejection step, so that every
    value has probability exactly 1/n (Lemire 2019, "Fast random integer generation in an
    interval")."""
    nn = np.uint64(n)
    x += GOLDEN
    m = (splitmix64(x) >> np.uint64(32)) * nn
    if (m & _LOW32) < nn:
        threshold = (np.uint64(1 << 32) - nn) % nn
        while (m & _LOW32) < threshold:
            x += GOLDEN
            m = (splitmix64(x) >> np.uint64(32)) * nn
    return np.int64(m >> np.uint64(32)), x


@nb.njit(cache=True, inline="always", _nrt=False)
def stream_random(x):
    """``(u, x')``: u uniform in [0, 1) on the 2**-53 grid from stream state ``x``, and the next state."""
    x += GOLDEN
    return np.float64(splitmix64(x) >> np.uint64(11)) * _TWO_POW_M53, x
