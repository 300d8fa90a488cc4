"""The statistics every comparison of players uses: win rates with Wilson intervals and the
equal seat measured from the games, paired comparisons (sign test, paired mean difference), and
a block bootstrap for games that depend on each other.

- A win rate is read against the **equal seat**: the win rate of a seat no stronger than the
  others, measured from the games as the mean number of winning seats per game over the number
  of seats. Where a shared first place is a win for every seat in it (Blokus), it is above
  ``1 / seats``: 115 seat wins in 100 games of 4 seats give 28.75%, not 25%.
- Paired comparisons pair two players' results on the same game or seed: the sign test counts
  the pairs each side won (ties left out); the paired mean difference has a normal interval when
  pairs are independent, and a block bootstrap interval when they are not.
- Two rates from independent games (ours against a paper's) compare by a two-proportion
  z-test.
- The **block bootstrap** resamples whole dependence blocks (consecutive games that share state:
  Daihinmin's ranks carry over from game to game and reset every ``rank_reset`` games, so a block
  is the games between two resets), from a seeded generator, so an interval is reproducible.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

Z95 = 1.959963984540054  # the standard normal's 97.5% quantile: two-sided 95% intervals


def wilson_interval(wins: float, games: int, z: float = Z95) -> tuple[float, float]:
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


def win_rate(wins: float, games: int) -> dict[str, float]:
    """``games``, ``wins``, ``win_rate`` and its Wilson 95% interval (``ci_low``, ``ci_high``)."""
    low, high = wilson_interval(wins, games)
    return {"games": games, "wins": wins, "win_rate": wins / games if games else 0.0,
            "ci_low": low, "ci_high": high}


def decided_share(wins: int, losses: int) -> dict[str, float]:
    """One side's ``share`` of the decided games (ties left out) with its Wilson 95% interval
    (``ci_low``, ``ci_high``) and the exact two-sided sign test's ``p_value``; 0.5 with none."""
    low, high = wilson_interval(wins, wins + losses)
    return {"share": wins / (wins + losses) if wins + losses else 0.5, "ci_low": low, "ci_high": high,
            "p_value": sign_test(wins, losses)}


def score_rate(wins: int, draws: int, losses: int) -> dict[str, float]:
    """:func:`win_rate` of a two-sided result with draws counted half (the score); an equal
    player scores 0.5."""
    return win_rate(wins + 0.5 * draws, wins + draws + losses)


def equal_seat(winners: Iterable[int], seats: int) -> float:
    """The equal seat's win rate: mean winning seats per game (``winners``, one count per game)
    over ``seats``; ``1 / seats`` with no games (every game then has exactly one winner)."""
    counts = list(winners)
    if seats < 1:
        raise ValueError(f"seats must be >= 1, not {seats}")
    if any(w < 0 or w > seats for w in counts):
        raise ValueError(f"a game of {seats} seats has 0 to {seats} winning seats, not {counts}")
    return sum(counts) / len(counts) / seats if counts else 1.0 / seats


def seat_win_rates(games: Iterable[Sequence[tuple[str, bool]]]) -> dict[str, dict[str, float]]:
    """Per player, over ``games`` (each a (player, won) pair per seat): :func:`win_rate` over the
    seats it took and ``equal_seat``, the equal seat of exactly those games (each game weighted
    by the seats the player held in it), so that players who met different tables are each
    read against their own."""
    wins: dict[str, int] = {}
    seats: dict[str, int] = {}
    equal: dict[str, float] = {}
    for game in games:
        share = sum(won for _, won in game) / len(game)
        for player, won in game:
            wins[player] = wins.get(player, 0) + bool(won)
            seats[player] = seats.get(player, 0) + 1
            equal[player] = equal.get(player, 0.0) + share
    return {p: {**win_rate(wins[p], seats[p]), "equal_seat": equal[p] / seats[p]} for p in seats}


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


def two_proportion_test(a_wins: float, a_games: int, b_wins: float, b_games: int) -> dict[str, float]:
    """Two-sided two-proportion z-test (pooled variance) that rates ``a_wins / a_games`` and
    ``b_wins / b_games`` are equal: ``z`` (positive when a's rate is higher) and ``p_value``; the
    same p as a chi-squared test of the 2x2 table without continuity correction."""
    if a_games < 1 or b_games < 1:
        raise ValueError(f"both samples need games, not {a_games} and {b_games}")
    if not (0 <= a_wins <= a_games and 0 <= b_wins <= b_games):
        raise ValueError(f"wins must lie in 0..games, not {a_wins}/{a_games} and {b_wins}/{b_games}")
    pooled = (a_wins + b_wins) / (a_games + b_games)
    se = math.sqrt(pooled * (1 - pooled) * (1 / a_games + 1 / b_games))
    diff = a_wins / a_games - b_wins / b_games
    if se == 0:  # both rates 0 or both 1
        return {"z": 0.0, "p_value": 1.0}
    z = diff / se
    return {"z": z, "p_value": math.erfc(abs(z) / math.sqrt(2))}


def block_bootstrap(values: Sequence[float] | np.ndarray, block: int, seed: int = 0,
                    resamples: int = 10000, level: float = 0.95) -> tuple[float, float]:
    """Percentile interval (``level``) of the mean of ``values`` by a block bootstrap: ``values``
    cut into consecutive blocks of ``block`` (the last one may be shorter), whole blocks drawn
    with replacement as many as there are, ``resamples`` times, from
    ``numpy.random.default_rng(seed)``; each resample's mean is over the values of its blocks.
    ValueError with fewer than two blocks (one block cannot show how blocks vary)."""
    x = np.asarray(values, dtype=float)
    if block < 1:
        raise ValueError(f"block must be >= 1, not {block}")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), not {level}")
    starts = np.arange(0, len(x), block)
    if len(starts) < 2:
        raise ValueError(f"a block bootstrap needs at least 2 blocks; {len(x)} values in blocks of "
                         f"{block} make {len(starts)}")
    sums, sizes = np.add.reduceat(x, starts), np.diff(np.append(starts, len(x)))
    draws = np.random.default_rng(seed).integers(len(starts), size=(resamples, len(starts)))
    means = sums[draws].sum(axis=1) / sizes[draws].sum(axis=1)
    tail = (1 - level) / 2
    return float(np.quantile(means, tail)), float(np.quantile(means, 1 - tail))


def paired_difference(a: Sequence[float], b: Sequence[float], block: int | None = None,
                      seed: int = 0, resamples: int = 10000) -> dict[str, Any]:
    """Paired comparison of ``a`` and ``b`` (one result each per game or seed, in the same
    order): ``mean`` of ``a - b`` with its 95% interval, ``wins`` / ``losses`` / ``ties`` of
    ``a`` and the sign test's ``p_value``. ``block`` None: independent pairs, a normal
    interval (the mean plus or minus 1.96 standard errors); else a :func:`block_bootstrap`
    over blocks of ``block`` consecutive pairs (``interval`` names which), None bounds when
    there are fewer than two blocks."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"paired results need two sequences of one length, not {x.shape} and {y.shape}")
    d = x - y
    n = len(d)
    wins, losses = int(np.sum(d > 0)), int(np.sum(d < 0))
    out: dict[str, Any] = {"pairs": n, "mean": float(d.mean()) if n else 0.0, "wins": wins,
                           "losses": losses, "ties": n - wins - losses,
                           "p_value": sign_test(wins, losses)}
    if block is None:
        half = Z95 * float(d.std(ddof=1)) / math.sqrt(n) if n > 1 else math.inf
        return {**out, "ci_low": out["mean"] - half, "ci_high": out["mean"] + half,
                "interval": "normal, independent pairs"}
    if len(range(0, n, block)) < 2:
        return {**out, "ci_low": None, "ci_high": None,
                "interval": f"none: fewer than 2 blocks of {block}"}
    low, high = block_bootstrap(d, block, seed, resamples)
    return {**out, "ci_low": low, "ci_high": high,
            "interval": f"block bootstrap, blocks of {block}, {resamples} resamples, seed {seed}"}


def format_paired(name_a: str, name_b: str, paired: dict[str, Any], unit: str = "") -> str:
    """One line for the console: the mean difference, its interval, the sign test."""
    low, high = paired["ci_low"], paired["ci_high"]
    interval = "no interval" if low is None else f"95% [{low:+.3f}, {high:+.3f}]"
    return (f"{name_a} - {name_b}: mean difference {paired['mean']:+.3f}{unit} over {paired['pairs']} "
            f"paired results, {interval} ({paired['interval']}); {name_a} ahead / behind / level "
            f"{paired['wins']}-{paired['losses']}-{paired['ties']}, sign test p = {paired['p_value']:.3g}")
