"""Statistics of match results."""

from __future__ import annotations

import math


def wilson_interval(wins: float, games: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score interval of a win rate (95% for the default z); (0, 1) with no games.

    The bounds always contain the estimate ``wins / games``: at 0 or ``games`` wins the formula's
    bound is 0 or 1 exactly, but rounding leaves it a hair inside (k of k: 0.9999999999999999 for
    k = 4, 10, 14, ...), so they are clamped to it."""
    if games <= 0:
        return 0.0, 1.0
    p = wins / games
    denom = 1.0 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    return max(0.0, min(centre - half, p)), min(1.0, max(centre + half, p))


def sign_test(wins: int, losses: int) -> float:
    """Two-sided exact sign test of ``wins`` against ``losses`` (draws left out): the chance
    under even odds of a split at least this uneven; 1.0 with no decided games."""
    if wins < 0 or losses < 0:
        raise ValueError(f"wins and losses must be >= 0, not {wins}, {losses}")
    n, k = wins + losses, max(wins, losses)
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(k, n + 1))
    return min(1.0, 2 * tail / 2**n)
