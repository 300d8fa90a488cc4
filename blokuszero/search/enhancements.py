"""Enhancements: parts that hook into the MCTS loop at expansion and at backup.

An enhancement may seed a newly expanded node's statistics (:meth:`Enhancement.on_expand`),
see each node the first time a simulation reaches it, with its state (:meth:`Enhancement.on_reach`:
statistics added there are counted in ``tree.array(SEEDED_VISITS)`` so that the search tells
them from real visits), and sees every finished simulation whole (:meth:`Enhancement.on_backup`):
the tree rows of its path (their keys in ``tree.key``), every move from the root to the end
with its mover (tree part first, then the playout), the positions the playout went through
when the enhancement asks for them (``needs_boards``) and the value backed up. Selection rules read what
enhancements gather (Progressive History reads :class:`HistoryTable`, RAVE reads
:class:`~blokuszero.search.rave.AmafStatistics`); several enhancements run in one search, in
the order given.
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from ..games.abilities import HasPriorKnowledge, implements
from ..games.base import State
from .tree import SEEDED_VISITS, Tree


class Simulation(NamedTuple):
    """One finished simulation, as enhancements see it at backup (a tuple: built once per
    simulation, it must be cheap)."""

    path: np.ndarray  # [D] tree rows from the root
    players: np.ndarray  # [T] the mover of each move, tree moves then playout moves
    actions: np.ndarray  # [T] the moves
    value: np.ndarray  # [P] the value backed up (the tree shape's)
    tree_moves: int  # how many of the moves were made in the tree
    boards: object = None  # the playout's positions (the evaluator's ``boards``), if asked for


class Enhancement:
    """A part of a search run at the start, at each expansion, when a node is first reached
    and at each backup."""

    #: True if :meth:`on_backup` needs the positions of each playout (``Simulation.boards``):
    #: the search then asks its evaluator to record them.
    needs_boards = False

    #: Whether :meth:`on_backup` reads the simulation's moves (else the loop leaves them
    #: empty, saving their assembly per simulation).
    reads_moves: bool = True

    def begin(self, tree: Tree, num_players: int, num_actions: int,
              rng: np.random.Generator) -> None:
        """A search starts on ``tree`` (maybe reused from the last search)."""

    def on_expand(self, tree: Tree, node: int, state: State) -> None:
        """``node`` (at ``state``) got children; their rows may be seeded here."""

    def on_reach(self, tree: Tree, node: int, state: State) -> None:
        """A simulation reached ``node`` (at ``state``) for the first time (the root: when a
        new tree starts); its statistics may be seeded here (add the visits seeded to
        ``tree.array(SEEDED_VISITS, np.int64)`` too)."""

    def on_backup(self, tree: Tree, simulation: Simulation) -> None:
        """A simulation finished and was backed up."""


@nb.njit(cache=True)
def update_history(hist_sum, hist_count, players, actions, value) -> None:
    """Credit each (player, action) of a simulation with that player's value."""
    for i in range(players.shape[0]):
        p = players[i]
        hist_sum[p, actions[i]] += value[p]
        hist_count[p, actions[i]] += 1


def history_arrays(num_players: int, num_actions: int) -> tuple[np.ndarray, np.ndarray]:
    """Zeroed ``(hist_sum, hist_count)`` [P, A], interleaved in one array: selection reads both
    entries of each child's action, which then share a cache line (the table is too large for
    the cache: 4 x 30,433 actions in Blokus)."""
    both = np.zeros((num_players, num_actions, 2))
    return both[:, :, 0], both[:, :, 1]


class HistoryTable(Enhancement):
    """Per player and action: total value and count over every move of every simulation of
    the search (Progressive History's table; Nijssen & Winands). Cleared at each search."""

    def __init__(self) -> None:
        self.hist_sum, self.hist_count = history_arrays(1, 1)

    def begin(self, tree, num_players, num_actions, rng) -> None:
        self.hist_sum, self.hist_count = history_arrays(num_players, num_actions)

    def on_backup(self, tree, simulation) -> None:
        update_history(self.hist_sum, self.hist_count, simulation.players, simulation.actions,
                       simulation.value)


@nb.njit(cache=True)
def add_squares(value_sq, path, value) -> None:
    """Add each player's squared value to every row of ``path``."""
    for n in path:
        for p in range(value.shape[0]):
            value_sq[n, p] += value[p] * value[p]


class SquaredValues(Enhancement):
    """Per tree row and player, the sum of squared backed-up values (``tree.array
    ("value_sq")``): with ``value_sum`` and ``visits`` the empirical variance UCB1-tuned
    needs."""

    reads_moves = False

    def on_backup(self, tree, simulation) -> None:
        add_squares(tree.array("value_sq", shape=(tree.num_players,)), simulation.path,
                    simulation.value)


class PriorKnowledge(Enhancement):
    """Prior knowledge as virtual wins (Gelly & Silver 2007; Fuego's even-game knowledge):
    each new child whose move the state knows something about starts with ``n_prior`` visits
    per unit of weight at the state's win rate for it (``state.prior_knowledge(kind)``: per
    action a win rate in [0, 1] and a weight, 0 where unknown; a state without the method gets
    nothing). For two-player zero-sum games: the other player is credited the complement on
    the tree's value scale. The virtual visits count as seeded (``SEEDED_VISITS``). With ``rave``
    the same virtual games also seed the child's AMAF statistics where the tree has them (the
    rows ``amaf_w``, ``amaf_wx``, ``amaf_u`` of :class:`~blokuszero.search.rave.AmafStatistics`),
    as Fuego initialises both values."""

    def __init__(self, n_prior: int, kind: str = "simple", rave: bool = False) -> None:
        if n_prior < 1:
            raise ValueError(f"n_prior must be >= 1 virtual visits, not {n_prior}")
        self.n_prior = int(n_prior)
        self.kind = kind
        self.rave = rave

    def on_expand(self, tree: Tree, node: int, state: State) -> None:
        if not implements(state, HasPriorKnowledge):
            return
        value, weight = state.prior_knowledge(self.kind)
        kids = tree.children(node)
        actions = tree.action[kids]
        n = self.n_prior * weight[actions]
        lo, hi = tree.value_bounds
        v = lo + (hi - lo) * value[actions]
        movers = tree.mover[kids]
        tree.visits[kids] += n.astype(tree.visits.dtype)
        # Seeded, not real: a child is expanded, and the move played chosen, by real visits;
        # else every child seeded with n >= expand_threshold virtual visits is expanded when
        # first reached and each simulation grows a chain of nodes.
        tree.array(SEEDED_VISITS, np.int64)[kids] += n.astype(np.int64)
        for p in range(tree.num_players):
            tree.value_sum[kids, p] += n * np.where(movers == p, v, lo + hi - v)
        if self.rave and "amaf_w" in tree.extra:
            x = tree.extra
            x["amaf_w"][kids] += n
            x["amaf_u"][kids] += n
            x["amaf_wx"][kids] += n * v
