"""Selection rules: which child a simulation follows. Interchangeable parts of the MCTS loop,
each over its numba kernel (:mod:`.ucb`: UCB1, UCB1-tuned, Progressive History; :mod:`.puct`;
RAVE's and Gumbel's in :mod:`.rave` and :mod:`.gumbel`).

Each rule scores the children of a node from the point of view of the player who makes
the move into each child (``tree.mover``), so the same rules serve MaxN, Paranoid and
Best-Reply trees and the roles of a simultaneous-move node. The highest score among the
children available in this simulation wins (``mask``: the actions legal in this
determinization); exact ties (unvisited children under UCB1 score +inf) are broken uniformly
at random from the tree's own ``tie_seed`` (:mod:`.tie_break`).

Where the tree tracks availability (determinized search), the "parent visits" of UCB1 and
PUCT are each child's availability count (Cowling et al., ISMCTS), as a child that was not
always legal must not be penalised for the simulations it could not be chosen in.

Rules read statistics; they do not keep them. Statistics gathered across simulations
(Progressive History's table, RAVE's AMAF values) are enhancements
(:mod:`.enhancements`) that a rule names in :attr:`SelectionRule.enhancements`; the loop
feeds them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..settings import Settings, setting
from .enhancements import Enhancement, HistoryTable, SquaredValues
from .puct import puct_scores, puct_select
from .tie_break import argmax_random_ties
from .tree import Tree
from .ucb import progressive_history_select, ucb1_select, ucb1_tuned_scores, ucb1_tuned_select


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
        """The kernels' arguments for ``node`` (``select_kernel`` takes them after the seed, node
        and visits)."""
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
    """UCB1 with exploration constant ``c`` (rewards mapped onto [0, 1]; SPEC §2 uses C = 0.2).
    Its kernel scores and picks in one pass; :meth:`scores` has it write the scores too."""

    select_kernel = staticmethod(ucb1_select)

    def __init__(self, c: float = 0.2) -> None:
        self.c = c

    def scores(self, tree: Tree, node: int) -> np.ndarray:
        out = np.empty(int(tree.num_children[node]))
        self.select_kernel(tree.tie_seed, node, tree.visits[node], *self.kernel_args(tree, node), out)
        return out

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
