"""Selection at simultaneous-move nodes: each role draws its own action (decoupled), here by
Exp3 (Auer et al.; as used for simultaneous-move MCTS by Lanctot, Lisý & Winands, 2013).

Deterministic decoupled UCT lets symmetric roles move in lockstep: in the prisoner's dilemma
both try "defect" in the same simulations, see mutual defection and return to cooperation, so
the dominated action keeps its visits. Exp3 samples each role's action from its own mixed
strategy, and its importance-weighted reward estimates are unbiased whatever the other roles
play, so a dominated action loses its visits.

Per row of a simultaneous-move node (one (role, action)), in the tree's arrays:
``exp3_x`` the cumulative importance-weighted reward (values mapped onto [0, 1]) and
``exp3_p`` the probability with which the row was last drawn.
"""

from __future__ import annotations

import numpy as np

from .tree import Tree


class Exp3:
    """``sigma_i = (1 - gamma) softmax(eta X)_i + gamma / K`` with ``eta = gamma / K`` over a
    role's K available actions; after the simulation the drawn action's X grows by its
    value / sigma."""

    def __init__(self, gamma: float = 0.1) -> None:
        if not 0.0 < gamma <= 1.0:
            raise ValueError(f"Exp3's gamma must be in (0, 1], not {gamma}")
        self.gamma = gamma

    def select(self, tree: Tree, node: int, mask: np.ndarray, rng: np.random.Generator) -> int:
        """Draw the row of the role whose rows of ``node`` are ``mask``."""
        rows = int(tree.first_child[node]) + np.flatnonzero(mask)
        k = len(rows)
        x = tree.array("exp3_x")[rows]
        weights = np.exp(self.gamma / k * (x - x.max()))
        sigma = (1.0 - self.gamma) * weights / weights.sum() + self.gamma / k
        i = int(rng.choice(k, p=sigma / sigma.sum()))
        tree.array("exp3_p")[rows[i]] = sigma[i]
        return int(rows[i])

    def update(self, tree: Tree, path: np.ndarray, value: np.ndarray) -> None:
        """Credit the rows drawn on ``path`` with their role's value."""
        drawn = path[tree.array("exp3_p")[path] > 0]
        if len(drawn) == 0:
            return
        lo, hi = tree.value_bounds
        movers = tree.mover[drawn]
        tree.extra["exp3_x"][drawn] += (value[movers] - lo) / (hi - lo) / tree.extra["exp3_p"][drawn]
