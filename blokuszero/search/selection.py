"""Selection rules: which child a simulation follows. Interchangeable parts of the MCTS loop.

Each rule scores the children of a node from the point of view of the player who makes
the move into each child (``tree.mover``), so the same rules serve MaxN, Paranoid and
Best-Reply trees. The highest score wins; exact ties (unvisited children under UCB1 score
+inf) are broken uniformly at random with numba's generator.

A rule may keep statistics of its own across the simulations of one search (Progressive
History's table; RAVE's AMAF values): :meth:`SelectionRule.reset` starts a search and
:meth:`SelectionRule.observe` sees every finished simulation.
"""

from __future__ import annotations

import abc
import math

import numba as nb
import numpy as np

from .tree import Tree


@nb.njit(cache=True)
def _argmax_random_ties(scores) -> int:
    best = -np.inf
    ties = 0
    choice = 0
    for i in range(scores.shape[0]):
        s = scores[i]
        if s > best:
            best, ties, choice = s, 1, i
        elif s == best:
            ties += 1
            if np.random.randint(ties) == 0:  # reservoir sampling: uniform over the ties
                choice = i
    return choice


@nb.njit(cache=True)
def ucb1_scores(first, count, visits, value_sum, mover, parent_visits, c) -> np.ndarray:
    """UCB1: ``w_i / n_i + C sqrt(ln n_parent / n_i)``; +inf for unvisited children."""
    out = np.empty(count)
    log_n = math.log(max(parent_visits, 1))
    for i in range(count):
        k = first + i
        n = visits[k]
        if n == 0:
            out[i] = np.inf
        else:
            out[i] = value_sum[k, mover[k]] / n + c * math.sqrt(log_n / n)
    return out


# Score of an unvisited child under Progressive History, before its history term: above any
# visited child, so every child is tried once, in the order of its history.
UNVISITED = 1e9


@nb.njit(cache=True)
def progressive_history_scores(first, count, visits, value_sum, mover, action, parent_visits,
                               c, w, hist_sum, hist_count) -> np.ndarray:
    """UCB1 plus Progressive History (Nijssen & Winands), outside the square root:
    ``(s_a / n_a) * W / (n_i - w_i + 1)`` with s_a, n_a the mover's history of action a.

    Unvisited children score UNVISITED plus that term (n_i = w_i = 0): still before every
    visited child, as UCB1's infinity puts them, but the most promising by history first.
    With a budget smaller than the number of moves (200 playouts, 300 moves) this decides
    which moves are looked at at all.
    """
    out = ucb1_scores(first, count, visits, value_sum, mover, parent_visits, c)
    for i in range(count):
        k = first + i
        n = visits[k]
        p = mover[k]
        a = action[k]
        if n == 0:
            out[i] = UNVISITED
        if hist_count[p, a] > 0:
            out[i] += hist_sum[p, a] / hist_count[p, a] * w / (n - value_sum[k, p] + 1.0)
    return out


@nb.njit(cache=True)
def puct_scores(node, first, count, visits, value_sum, mover, prior, c_base, c_init, q_init,
                q_from_parent) -> np.ndarray:
    """AlphaZero's PUCT: ``Q + C(s) P sqrt(N(s)) / (1 + N(s, a))`` with
    ``C(s) = log((1 + N(s) + c_base) / c_base) + c_init``. An unvisited child's Q is
    ``q_init``, or with ``q_from_parent`` the mean value of ``node`` for the child's mover."""
    out = np.empty(count)
    parent_visits = visits[node]
    c_s = math.log((1.0 + parent_visits + c_base) / c_base) + c_init
    sqrt_n = math.sqrt(parent_visits)
    for i in range(count):
        k = first + i
        n = visits[k]
        if n > 0:
            q = value_sum[k, mover[k]] / n
        elif q_from_parent and parent_visits > 0:
            q = value_sum[node, mover[k]] / parent_visits
        else:
            q = q_init
        out[i] = q + c_s * prior[k] * sqrt_n / (1.0 + n)
    return out


@nb.njit(cache=True)
def update_history(hist_sum, hist_count, players, actions, value) -> None:
    """Credit each (player, action) of a simulation with that player's value."""
    for i in range(players.shape[0]):
        p = players[i]
        hist_sum[p, actions[i]] += value[p]
        hist_count[p, actions[i]] += 1


class SelectionRule(abc.ABC):
    """Scores children; the MCTS loop follows the best."""

    def reset(self, num_players: int, num_actions: int) -> None:
        """Start a new search (rules with per-search statistics clear them here)."""

    def observe(self, tree: Tree, path: np.ndarray, players: np.ndarray, actions: np.ndarray,
                value: np.ndarray) -> None:
        """See a finished simulation: its tree ``path`` (root first), every (player, action)
        played from the root to the end (tree moves, then playout moves) and the value backed up."""

    @abc.abstractmethod
    def scores(self, tree: Tree, node: int) -> np.ndarray:
        """One score per child of ``node``."""

    def select(self, tree: Tree, node: int) -> int:
        """The child of ``node`` to follow."""
        return int(tree.first_child[node]) + _argmax_random_ties(self.scores(tree, node))


class UCB1(SelectionRule):
    """UCB1 with exploration constant ``c`` (rewards in [0, 1]; SPEC §2 uses C = 0.2)."""

    def __init__(self, c: float = 0.2) -> None:
        self.c = c

    def scores(self, tree: Tree, node: int) -> np.ndarray:
        return ucb1_scores(tree.first_child[node], tree.num_children[node], tree.visits,
                           tree.value_sum, tree.mover, tree.visits[node], self.c)


class ProgressiveHistory(UCB1):
    """UCB1 plus Progressive History with weight ``w`` (SPEC §2: C = 0.2, W = 5).

    The history table (per player, per action: total value and count over all simulations,
    tree and playout moves alike) is cleared at the start of each search.
    """

    def __init__(self, c: float = 0.2, w: float = 5.0) -> None:
        super().__init__(c)
        self.w = w
        self.hist_sum = np.zeros((1, 1))
        self.hist_count = np.zeros((1, 1))

    def reset(self, num_players: int, num_actions: int) -> None:
        self.hist_sum = np.zeros((num_players, num_actions))
        self.hist_count = np.zeros((num_players, num_actions))

    def observe(self, tree, path, players, actions, value) -> None:
        update_history(self.hist_sum, self.hist_count, players, actions, value)

    def scores(self, tree: Tree, node: int) -> np.ndarray:
        return progressive_history_scores(
            tree.first_child[node], tree.num_children[node], tree.visits, tree.value_sum,
            tree.mover, tree.action, tree.visits[node], self.c, self.w, self.hist_sum,
            self.hist_count)


class PUCT(SelectionRule):
    """AlphaZero's rule (SPEC §3): c_base = 19,625 and c_init = 1.25 in BlokusZero.

    ``q_init``: the Q of an unvisited child, a number (AlphaZero's 0, the paper preset) or
    ``"parent"``: the parent's mean value for the child's mover (Leela Zero's "first play
    urgency"). With four players and values +1 win / -1 loss, a typical Q is near -0.5, so a
    constant 0 ranks every unvisited child above every visited one: the search then visits
    each child once before it visits any twice, and the values of its children do not shape
    the visit counts until the simulations outnumber the moves. ``"parent"`` lets a child
    that evaluated better than its parent be searched again at once.
    """

    def __init__(self, c_base: float = 19_625.0, c_init: float = 1.25,
                 q_init: float | str = 0.0) -> None:
        if isinstance(q_init, str) and q_init != "parent":
            raise ValueError(f"q_init must be a number or 'parent', not {q_init!r}")
        self.c_base = c_base
        self.c_init = c_init
        self.q_init = q_init

    def scores(self, tree: Tree, node: int) -> np.ndarray:
        from_parent = self.q_init == "parent"
        return puct_scores(node, tree.first_child[node], tree.num_children[node], tree.visits,
                           tree.value_sum, tree.mover, tree.prior, self.c_base, self.c_init,
                           0.0 if from_parent else float(self.q_init), from_parent)
