"""The UCB family's kernels: UCB1, UCB1-tuned and UCB1 with Progressive History, each child scored
from the point of view of its mover, with values mapped from the tree's scale onto [0, 1] (the
rules that call them are :mod:`.selection`'s).

UCB1 and Progressive History score and pick in one pass (no scores array, as the descent calls
them once per step); given ``scores`` they also write each child's score there.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from .tie_break import argmax_random_ties, no_alloc, tie_step, tie_stream

# Score of an unvisited child under Progressive History, before its history term: above any
# visited child, so every child is tried once, in the order of its history.
UNVISITED = 1e9


@no_alloc
def _ucb1_score(k, visits, value_sum, mover, log_n, c, lo, scale, avail, use_avail):
    """Child ``k``'s UCB1 score (see :func:`ucb1_select`); ``log_n``: ln of the parent's visits."""
    n = visits[k]
    if n == 0:
        return np.inf
    if use_avail:
        log_n = math.log(max(avail[k], 1))
    return (value_sum[k, mover[k]] / n - lo) * scale + c * math.sqrt(log_n / n)


@no_alloc
def ucb1_select(seed, node, visits, first, count, child_visits, value_sum, mover, parent_visits,
                c, lo, hi, avail, use_avail, scores=None) -> int:
    """UCB1: ``q_i + C sqrt(ln n_parent / n_i)``; +inf for unvisited children. Returns the
    tie-broken best child's index among the ``count`` from ``first`` (``seed``, ``node`` and
    ``visits``, the node's visit count, start the tie-break stream).

    ``q_i`` is the mean value mapped from the tree's scale [lo, hi] onto [0, 1] (the Q
    transform: C is tuned for rewards in [0, 1]); with ``use_avail`` n_parent is the child's
    availability count. Given ``scores``, each child's score is written there too."""
    log_n = math.log(max(parent_visits, 1))
    scale = 1.0 / (hi - lo)
    state = tie_stream(seed, node, visits)
    best, ties, choice = -np.inf, 0, 0
    for i in range(count):
        score = _ucb1_score(first + i, child_visits, value_sum, mover, log_n, c, lo, scale,
                            avail, use_avail)
        if scores is not None:
            scores[i] = score
        best, ties, choice, state = tie_step(score, i, best, ties, choice, state)
    return choice


@nb.njit(cache=True)
def ucb1_tuned_scores(first, count, visits, value_sum, value_sq, mover, parent_visits, c, lo, hi,
                      avail, use_avail) -> np.ndarray:
    """UCB1-tuned (Auer, Cesa-Bianchi & Fischer 2002):
    ``q_i + C sqrt(ln n / n_i * min(1/4, V_i))``, ``V_i = mean(x^2) - q_i^2 + sqrt(2 ln n / n_i)``
    over the values mapped onto [0, 1] as in :func:`ucb1_select` (1/4 bounds the variance of
    a [0, 1] reward); +inf for unvisited children."""
    out = np.empty(count)
    scale = 1.0 / (hi - lo)
    for i in range(count):
        k = first + i
        n = visits[k]
        if n == 0:
            out[i] = np.inf
            continue
        log_n = math.log(max(avail[k] if use_avail else parent_visits, 1))
        p = mover[k]
        q = (value_sum[k, p] / n - lo) * scale
        # E[((x - lo) / (hi - lo))^2] from the raw sums.
        mean_sq = (value_sq[k, p] / n - 2.0 * lo * value_sum[k, p] / n + lo * lo) * scale * scale
        variance = max(mean_sq - q * q, 0.0) + math.sqrt(2.0 * log_n / n)
        out[i] = q + c * math.sqrt(log_n / n * min(0.25, variance))
    return out


@nb.njit(cache=True)
def ucb1_tuned_select(seed, node, visits, *args) -> int:
    """:func:`ucb1_tuned_scores` (``args``) and the tie-broken argmax in one call."""
    return argmax_random_ties(ucb1_tuned_scores(*args), seed, node, visits)


@no_alloc
def _progressive_history_score(k, visits, value_sum, mover, action, log_n, c, w, hist_sum,
                               hist_count, lo, scale, avail, use_avail):
    """Child ``k``'s score under :func:`progressive_history_select`."""
    out = _ucb1_score(k, visits, value_sum, mover, log_n, c, lo, scale, avail, use_avail)
    n = visits[k]
    p = mover[k]
    a = action[k]
    if n == 0:
        out = UNVISITED
    if hist_count[p, a] > 0:
        wins = (value_sum[k, p] - lo * n) * scale
        out += (hist_sum[p, a] / hist_count[p, a] - lo) * scale * w / (n - wins + 1.0)
    return out


@no_alloc
def progressive_history_select(seed, node, visits, first, count, child_visits, value_sum, mover,
                               action, parent_visits, c, w, hist_sum, hist_count, lo, hi, avail,
                               use_avail, scores=None) -> int:
    """UCB1 plus Progressive History (Nijssen & Winands), outside the square root:
    ``(s_a / n_a) * W / (n_i - w_i + 1)`` with s_a, n_a the mover's history of action a,
    values mapped onto [0, 1] as in :func:`ucb1_select`, which it follows in its arguments,
    result and ``scores``.

    Unvisited children score UNVISITED plus that term (n_i = w_i = 0): still before every
    visited child, as UCB1's infinity puts them, but the most promising by history first.
    With a budget smaller than the number of moves (200 playouts, 300 moves) this decides
    which moves are looked at at all.
    """
    log_n = math.log(max(parent_visits, 1))
    scale = 1.0 / (hi - lo)
    state = tie_stream(seed, node, visits)
    best, ties, choice = -np.inf, 0, 0
    for i in range(count):
        score = _progressive_history_score(first + i, child_visits, value_sum, mover, action,
                                           log_n, c, w, hist_sum, hist_count, lo, scale, avail,
                                           use_avail)
        if scores is not None:
            scores[i] = score
        best, ties, choice, state = tie_step(score, i, best, ties, choice, state)
    return choice
