"""Selection rules: which child a simulation follows. Interchangeable parts of the MCTS loop.

Each rule scores the children of a node from the point of view of the player who makes
the move into each child (``tree.mover``), so the same rules serve MaxN, Paranoid and
Best-Reply trees and the roles of a simultaneous-move node. The highest score among the
children available in this simulation wins (``mask``: the actions legal in this
determinization); exact ties (unvisited children under UCB1 score +inf) are broken uniformly
at random from the tree's own ``tie_seed``.

Where the tree tracks availability (determinized search), the "parent visits" of UCB1 and
PUCT are each child's availability count (Cowling et al., ISMCTS), as a child that was not
always legal must not be penalised for the simulations it could not be chosen in.

Rules read statistics; they do not keep them. Statistics gathered across simulations
(Progressive History's table, RAVE's AMAF values) are enhancements
(:mod:`.enhancements`) that a rule names in :attr:`SelectionRule.enhancements`; the loop
feeds them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba as nb
import numpy as np

from ..games.numba_random import GOLDEN, splitmix64
from ..settings import Settings, setting
from .enhancements import Enhancement, HistoryTable, SquaredValues
from .tree import Tree

#: Kernels that allocate nothing run without numba's reference counting: a call passing arrays
#: would otherwise incref and decref each of them atomically, per child scored.
_no_alloc = nb.njit(cache=True, _nrt=False)


@_no_alloc
def _tie_stream(seed, node, visits):
    """The tie-break stream's start for ``node`` at ``visits`` under the tree's ``seed``."""
    return np.uint64(seed) ^ (np.uint64(node) * GOLDEN) ^ (np.uint64(visits) << np.uint64(32))


@_no_alloc
def _tie_step(score, i, best, ties, choice, state):
    """One step of the reservoir argmax: ``(best, ties, choice, state)`` after score ``i``."""
    if score > best:
        return score, 1, i, state
    if score == best:
        ties += 1
        state += GOLDEN
        if splitmix64(state) % np.uint64(ties) == np.uint64(0):
            choice = i
    return best, ties, choice, state


@nb.njit(cache=True)
def argmax_random_ties(scores, seed, node, visits) -> int:
    """The best score's index, ties broken uniformly (reservoir sampling) by a stream drawn
    from the tree's ``seed``, the node and its visit count: each search object has its own,
    and the choice does not depend on other searches running beside it."""
    state = _tie_stream(seed, node, visits)
    best, ties, choice = -np.inf, 0, 0
    for i in range(scores.shape[0]):
        best, ties, choice, state = _tie_step(scores[i], i, best, ties, choice, state)
    return choice


@_no_alloc
def _ucb1_score(k, visits, value_sum, mover, log_n, c, lo, scale, avail, use_avail):
    """Child ``k``'s UCB1 score (see :func:`ucb1_scores`); ``log_n``: ln of the parent's visits."""
    n = visits[k]
    if n == 0:
        return np.inf
    if use_avail:
        log_n = math.log(max(avail[k], 1))
    return (value_sum[k, mover[k]] / n - lo) * scale + c * math.sqrt(log_n / n)


@nb.njit(cache=True)
def ucb1_scores(first, count, visits, value_sum, mover, parent_visits, c, lo, hi, avail,
                use_avail) -> np.ndarray:
    """UCB1: ``q_i + C sqrt(ln n_parent / n_i)``; +inf for unvisited children.

    ``q_i`` is the mean value mapped from the tree's scale [lo, hi] onto [0, 1] (the Q
    transform: C is tuned for rewards in [0, 1]); with ``use_avail`` n_parent is the child's
    availability count."""
    out = np.empty(count)
    log_n = math.log(max(parent_visits, 1))
    scale = 1.0 / (hi - lo)
    for i in range(count):
        out[i] = _ucb1_score(first + i, visits, value_sum, mover, log_n, c, lo, scale, avail,
                             use_avail)
    return out


@_no_alloc
def ucb1_select(seed, node, visits, first, count, child_visits, value_sum, mover, parent_visits,
                c, lo, hi, avail, use_avail) -> int:
    """The tie-broken argmax of :func:`ucb1_scores` (its arguments after ``visits``, the node's
    visit count), in one pass without the scores array."""
    log_n = math.log(max(parent_visits, 1))
    scale = 1.0 / (hi - lo)
    state = _tie_stream(seed, node, visits)
    best, ties, choice = -np.inf, 0, 0
    for i in range(count):
        score = _ucb1_score(first + i, child_visits, value_sum, mover, log_n, c, lo, scale,
                            avail, use_avail)
        best, ties, choice, state = _tie_step(score, i, best, ties, choice, state)
    return choice


@nb.njit(cache=True)
def ucb1_tuned_scores(first, count, visits, value_sum, value_sq, mover, parent_visits, c, lo, hi,
                      avail, use_avail) -> np.ndarray:
    """UCB1-tuned (Auer, Cesa-Bianchi & Fischer 2002):
    ``q_i + C sqrt(ln n / n_i * min(1/4, V_i))``, ``V_i = mean(x^2) - q_i^2 + sqrt(2 ln n / n_i)``
    over the values mapped onto [0, 1] as in :func:`ucb1_scores` (1/4 bounds the variance of
    a [0, 1] reward); +inf for unvisited children."""
    out = ucb1_scores(first, count, visits, value_sum, mover, parent_visits, 0.0, lo, hi, avail,
                      use_avail)  # C = 0: the mapped means q_i
    scale = 1.0 / (hi - lo)
    for i in range(count):
        k = first + i
        n = visits[k]
        if n > 0:
            log_n = math.log(max(avail[k] if use_avail else parent_visits, 1))
            q = out[i]
            p = mover[k]
            # E[((x - lo) / (hi - lo))^2] from the raw sums.
            mean_sq = (value_sq[k, p] / n - 2.0 * lo * value_sum[k, p] / n + lo * lo) * scale * scale
            variance = max(mean_sq - q * q, 0.0) + math.sqrt(2.0 * log_n / n)
            out[i] = q + c * math.sqrt(log_n / n * min(0.25, variance))
    return out


@nb.njit(cache=True)
def ucb1_tuned_select(seed, node, visits, *args) -> int:
    """:func:`ucb1_tuned_scores` (``args``) and the tie-broken argmax in one call."""
    return argmax_random_ties(ucb1_tuned_scores(*args), seed, node, visits)


# Score of an unvisited child under Progressive History, before its history term: above any
# visited child, so every child is tried once, in the order of its history.
UNVISITED = 1e9


@_no_alloc
def _progressive_history_score(k, visits, value_sum, mover, action, log_n, c, w, hist_sum,
                               hist_count, lo, scale, avail, use_avail):
    """Child ``k``'s score under :func:`progressive_history_scores`."""
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


@nb.njit(cache=True)
def progressive_history_scores(first, count, visits, value_sum, mover, action, parent_visits,
                               c, w, hist_sum, hist_count, lo, hi, avail, use_avail) -> np.ndarray:
    """UCB1 plus Progressive History (Nijssen & Winands), outside the square root:
    ``(s_a / n_a) * W / (n_i - w_i + 1)`` with s_a, n_a the mover's history of action a,
    values mapped onto [0, 1] as in :func:`ucb1_scores`.

    Unvisited children score UNVISITED plus that term (n_i = w_i = 0): still before every
    visited child, as UCB1's infinity puts them, but the most promising by history first.
    With a budget smaller than the number of moves (200 playouts, 300 moves) this decides
    which moves are looked at at all.
    """
    out = np.empty(count)
    log_n = math.log(max(parent_visits, 1))
    scale = 1.0 / (hi - lo)
    for i in range(count):
        out[i] = _progressive_history_score(first + i, visits, value_sum, mover, action, log_n, c,
                                            w, hist_sum, hist_count, lo, scale, avail, use_avail)
    return out


@_no_alloc
def progressive_history_select(seed, node, visits, first, count, child_visits, value_sum, mover,
                               action, parent_visits, c, w, hist_sum, hist_count, lo, hi, avail,
                               use_avail) -> int:
    """The tie-broken argmax of :func:`progressive_history_scores` (its arguments after
    ``visits``, the node's visit count), in one pass without the scores array."""
    log_n = math.log(max(parent_visits, 1))
    scale = 1.0 / (hi - lo)
    state = _tie_stream(seed, node, visits)
    best, ties, choice = -np.inf, 0, 0
    for i in range(count):
        score = _progressive_history_score(first + i, child_visits, value_sum, mover, action,
                                           log_n, c, w, hist_sum, hist_count, lo, scale, avail,
                                           use_avail)
        best, ties, choice, state = _tie_step(score, i, best, ties, choice, state)
    return choice


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


class SelectionRule:
    """Scores children; the MCTS loop follows the best available one.

    A rule implements :meth:`scores`; the built-in ones instead give their numba kernels'
    arguments (:meth:`kernel_args`) with ``score_kernel`` and a ``select_kernel`` that also
    picks the child, saving a call from Python per step of the descent.
    """

    #: Enhancements whose statistics the rule reads; the loop runs them with its own.
    enhancements: tuple[Enhancement, ...] = ()
    score_kernel = None  # numba: kernel_args -> scores
    select_kernel = None  # numba: (seed, node, visits, *kernel_args) -> index of the best child

    def kernel_args(self, tree: Tree, node: int) -> tuple:
        """The arguments of ``score_kernel`` for ``node``."""
        raise NotImplementedError(f"{type(self).__name__} has no numba kernels")

    def scores(self, tree: Tree, node: int) -> np.ndarray:
        """One score per child of ``node``."""
        return self.score_kernel(*self.kernel_args(tree, node))

    def select(self, tree: Tree, node: int, mask: np.ndarray | None = None) -> int:
        """The child of ``node`` to follow, among those where ``mask`` (one entry per child)
        is true (all when None)."""
        first = int(tree.first_child[node])
        if mask is None and self.select_kernel is not None:
            return first + self.select_kernel(tree.tie_seed, node, tree.visits[node],
                                              *self.kernel_args(tree, node))
        scores = self.scores(tree, node)
        if mask is not None:
            scores[~mask] = -np.inf
        return first + argmax_random_ties(scores, tree.tie_seed, node, tree.visits[node])


class UCB1(SelectionRule):
    """UCB1 with exploration constant ``c`` (rewards mapped onto [0, 1]; SPEC §2 uses C = 0.2)."""

    score_kernel = staticmethod(ucb1_scores)
    select_kernel = staticmethod(ucb1_select)

    def __init__(self, c: float = 0.2) -> None:
        self.c = c

    def kernel_args(self, tree: Tree, node: int) -> tuple:
        lo, hi = tree.value_bounds
        return (tree.first_child[node], tree.num_children[node], tree.visits, tree.value_sum,
                tree.mover, tree.visits[node], self.c, lo, hi, tree.avail, tree.track_availability)


class UCB1Tuned(SelectionRule):
    """UCB1-tuned, the root rule of the Monte Carlo Daihinmin client fumiya (SPEC §7): UCB1
    with the exploration scaled by each child's empirical variance. ``c`` = 1 is Auer et
    al.'s form; the squared values come from the :class:`SquaredValues` enhancement."""

    score_kernel = staticmethod(ucb1_tuned_scores)
    select_kernel = staticmethod(ucb1_tuned_select)

    def __init__(self, c: float = 1.0) -> None:
        self.c = c
        self.enhancements = (SquaredValues(),)

    def kernel_args(self, tree: Tree, node: int) -> tuple:
        lo, hi = tree.value_bounds
        return (tree.first_child[node], tree.num_children[node], tree.visits, tree.value_sum,
                tree.array("value_sq", shape=(tree.num_players,)), tree.mover, tree.visits[node],
                self.c, lo, hi, tree.avail, tree.track_availability)


class ProgressiveHistory(UCB1):
    """UCB1 plus Progressive History with weight ``w`` (SPEC §2: C = 0.2, W = 5).

    Reads the history table ``history`` (per player, per action: total value and count over
    all simulations of the search, tree and playout moves alike); a new one by default.
    """

    def __init__(self, c: float = 0.2, w: float = 5.0, history: HistoryTable | None = None) -> None:
        super().__init__(c)
        self.w = w
        self.history = history if history is not None else HistoryTable()
        self.enhancements = (self.history,)

    score_kernel = staticmethod(progressive_history_scores)
    select_kernel = staticmethod(progressive_history_select)

    def kernel_args(self, tree: Tree, node: int) -> tuple:
        lo, hi = tree.value_bounds
        return (tree.first_child[node], tree.num_children[node], tree.visits, tree.value_sum,
                tree.mover, tree.action, tree.visits[node], self.c, self.w, self.history.hist_sum,
                self.history.hist_count, lo, hi, tree.avail, tree.track_availability)


@dataclass(frozen=True)
class PUCTSettings(Settings):
    """PUCT's parameters (SPEC §3), declared here once: every config, preset and player reads
    them from this class."""

    c_base: float = setting(19_625.0, above=0)  # C(s) = log((1 + N(s) + c_base) / c_base) + c_init
    c_init: float = setting(1.25, low=0)  # the exploration rate's value at a node's first visits
    # Q of an unvisited child: a number (AlphaZero: 0) or "parent" (its parent's value).
    q_init: float | str = setting(0.0, low=-1, high=1, choices=("parent",))


_PUCT = PUCTSettings()


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

    def __init__(self, c_base: float = _PUCT.c_base, c_init: float = _PUCT.c_init,
                 q_init: float | str = _PUCT.q_init) -> None:
        PUCTSettings(c_base, c_init, q_init)  # checks each
        self.c_base = c_base
        self.c_init = c_init
        self.q_init = q_init

    score_kernel = staticmethod(puct_scores)
    select_kernel = staticmethod(puct_select)

    def kernel_args(self, tree: Tree, node: int) -> tuple:
        from_parent = self.q_init == "parent"
        return (node, tree.first_child[node], tree.num_children[node], tree.visits,
                tree.value_sum, tree.mover, tree.prior, self.c_base, self.c_init,
                0.0 if from_parent else float(self.q_init), from_parent, tree.avail,
                tree.track_availability)
