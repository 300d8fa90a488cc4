"""AlphaZero's PUCT kernel: ``Q + C(s) P sqrt(N(s)) / (1 + N(s, a))`` with the exploration
rate growing with the parent's visits (the rule that calls it is :mod:`.selection`'s ``PUCT``)."""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from .tie_break import argmax_random_ties


@nb.njit(cache=True)
def puct_scores(node, first, count, visits, value_sum, mover, prior, c_base, c_init, q_init,
                q_from_parent, avail, use_avail) -> np.ndarray:
    """AlphaZero's PUCT: ``Q + C(s) P sqrt(N(s)) / (1 + N(s, a))`` with
    ``C(s) = log((1 + N(s) + c_base) / c_base) + c_init``. An unvisited child's Q is
    ``q_init``, or with ``q_from_parent`` the mean value of ``node`` for the child's mover.
    With ``use_avail`` N(s) is the child's availability count."""
    out = np.empty(count)
    parent_visits = visits[node]
    c_s = math.log((1.0 + parent_visits + c_base) / c_base) + c_init
    sqrt_n = math.sqrt(parent_visits)
    for i in range(count):
        k = first + i
        n = visits[k]
        if use_avail:
            c_s = math.log((1.0 + avail[k] + c_base) / c_base) + c_init
            sqrt_n = math.sqrt(avail[k])
        if n > 0:
            q = value_sum[k, mover[k]] / n
        elif q_from_parent and parent_visits > 0:
            q = value_sum[node, mover[k]] / parent_visits
        else:
            q = q_init
        out[i] = q + c_s * prior[k] * sqrt_n / (1.0 + n)
    return out


@nb.njit(cache=True)
def puct_select(seed, node, visits, *args) -> int:
    """:func:`puct_scores` (``args``) and the tie-broken argmax in one call."""
    return argmax_random_ties(puct_scores(*args), seed, node, visits)
