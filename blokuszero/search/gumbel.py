"""Gumbel MuZero's completed Q-values, the improved policy and the rule below the root (Danihelka
et al. 2022, "Policy improvement by planning with Gumbel"; mctx's ``gumbel_muzero_policy``).

``sigma(completed Q)`` of a node's children, the improved policy ``softmax(log pi + sigma(completed
Q))`` and :class:`GumbelInterior`, the deterministic selection rule below the root. The root's part
(Gumbel noise, sequential halving, the improved policy as the target) is a root policy:
:class:`~.root_policies.GumbelRoot`.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from .selection import SelectionRule
from .tie_break import argmax_random_ties
from .tree import Tree

_TINY = np.finfo(np.float32).tiny


@nb.njit(cache=True)
def raw_value(node, first, count, visits, value_sum, player) -> float:
    """``player``'s value of ``node`` as evaluated when it was reached (the network's v, not the
    search's mean): what the node's own visits backed up beyond its children's. With the node
    expanded at its first visit that is exactly that evaluation; where pending visits (virtual
    loss) outnumber it, the node's mean value stands in."""
    own = visits[node]
    total = value_sum[node, player]
    for i in range(count):
        own -= visits[first + i]
        total -= value_sum[first + i, player]
    if own >= 1:
        return total / own
    return value_sum[node, player] / visits[node] if visits[node] > 0 else 0.0


@nb.njit(cache=True)
def completed_q_sigma(node, first, count, visits, value_sum, mover, prior, c_visit,
                      c_scale) -> np.ndarray:
    """``sigma(completed Q)`` of the children of ``node`` (the paper's eq. 8 and appendix D).

    Q of a visited child is its mean value for the child's mover (MaxN: each mover its own
    entry); an unvisited child's Q is the mixed value ``(v + sum_b N(b) * sum_{visited} pi(b)
    q(b) / sum_{visited} pi(b)) / (1 + sum_b N(b))`` with v the node's raw value
    (:func:`raw_value`) and pi the prior. The completed values are rescaled onto [0, 1] by
    their min and max, then ``sigma(q) = (c_visit + max_b N(b)) * c_scale * q``.
    """
    out = np.empty(count)
    player = mover[first]  # turn-taking node: one mover for every child
    sum_n = 0.0
    sum_p = 0.0
    weighted = 0.0
    max_n = 0.0
    for i in range(count):
        k = first + i
        n = visits[k]
        if n > 0:
            q = value_sum[k, mover[k]] / n
            out[i] = q
            p = max(prior[k], _TINY)
            sum_p += p
            weighted += p * q
            sum_n += n
            max_n = max(max_n, float(n))
    v = raw_value(node, first, count, visits, value_sum, player)
    mixed = v if sum_n == 0 else (v + sum_n * weighted / sum_p) / (sum_n + 1.0)
    lo = np.inf
    hi = -np.inf
    for i in range(count):
        if visits[first + i] == 0:
            out[i] = mixed
        lo = min(lo, out[i])
        hi = max(hi, out[i])
    scale = (c_visit + max_n) * c_scale / max(hi - lo, 1e-8)
    for i in range(count):
        out[i] = (out[i] - lo) * scale
    return out


@nb.njit(cache=True)
def improved_policy(node, first, count, visits, value_sum, mover, prior, c_visit,
                    c_scale) -> np.ndarray:
    """``softmax(log pi + sigma(completed Q))`` over the children of ``node``: the improved
    policy (the paper's eq. 11), a probability on every child."""
    logits = completed_q_sigma(node, first, count, visits, value_sum, mover, prior, c_visit,
                               c_scale)
    top = -np.inf
    for i in range(count):
        logits[i] += math.log(max(prior[first + i], _TINY))
        top = max(top, logits[i])
    total = 0.0
    for i in range(count):
        logits[i] = math.exp(logits[i] - top)
        total += logits[i]
    return logits / total


@nb.njit(cache=True)
def gumbel_interior_scores(node, first, count, visits, value_sum, mover, prior, c_visit,
                           c_scale) -> np.ndarray:
    """Below the root (the paper's eq. 14, mctx's interior rule): ``pi'(a) - N(a) / (1 +
    sum_b N(b))`` with pi' the improved policy: visits follow pi' deterministically."""
    policy = improved_policy(node, first, count, visits, value_sum, mover, prior, c_visit, c_scale)
    total = 0.0
    for i in range(count):
        total += visits[first + i]
    for i in range(count):
        policy[i] -= visits[first + i] / (1.0 + total)
    return policy


@nb.njit(cache=True)
def gumbel_interior_select(seed, node, visits, *args) -> int:
    """:func:`gumbel_interior_scores` (``args``) and the tie-broken argmax in one call."""
    return argmax_random_ties(gumbel_interior_scores(*args), seed, node, visits)


class GumbelInterior(SelectionRule):
    """The non-root rule of Gumbel MuZero: the child whose share of the visits lags most behind
    the improved policy ``softmax(log P + sigma(completed Q))``. ``c_visit`` and ``c_scale``:
    sigma's constants (mctx's defaults 50 and 0.1). For turn-taking nodes (MaxN, Paranoid)."""

    score_kernel = staticmethod(gumbel_interior_scores)
    select_kernel = staticmethod(gumbel_interior_select)

    def __init__(self, c_visit: float = 50.0, c_scale: float = 0.1) -> None:
        self.c_visit = c_visit
        self.c_scale = c_scale

    def kernel_args(self, tree: Tree, node: int) -> tuple:
        return (node, tree.first_child[node], tree.num_children[node], tree.visits, tree.value_sum,
                tree.mover, tree.prior, self.c_visit, self.c_scale)
