"""Root policies composed around the search loop (mctx's ``policies.py``): Dirichlet noise on
the root's priors, and the move played from the root's visit counts with a temperature.

Self-play and players share these; the loop itself knows nothing of noise or temperature.
"""

from __future__ import annotations

import numpy as np

from ..games.base import State
from .enhancements import Enhancement
from .tree import ROOT, Tree


class RootNoise(Enhancement):
    """``P <- (1 - epsilon) P + epsilon Dir(alpha)`` on the root's children, once per search,
    as soon as the root has children (SPEC §3: epsilon 0.25, alpha 0.02 in self-play).
    Drawn from the search's generator."""

    reads_moves = False

    def __init__(self, epsilon: float, alpha: float) -> None:
        self.epsilon = epsilon
        self.alpha = alpha
        self._rng = np.random.default_rng(0)
        self._noised = True

    def begin(self, tree, num_players, num_actions, rng) -> None:
        self._rng = rng
        self._noised = False
        self._noise(tree)

    def on_expand(self, tree, node, state: State) -> None:
        if node == ROOT:
            self._noise(tree)

    def _noise(self, tree: Tree) -> None:
        if self._noised or not tree.is_expanded(ROOT):
            return
        kids = tree.children(ROOT)
        noise = self._rng.dirichlet(np.full(len(kids), self.alpha))
        tree.prior[kids] = (1 - self.epsilon) * tree.prior[kids] + self.epsilon * noise
        self._noised = True


def move_temperature(moves_played: int, temperature_moves: int) -> float:
    """1 for the first ``temperature_moves`` moves of a game (sampled by visit count), then 0
    (the most visited move): SPEC §3 samples moves 1-20 in self-play."""
    return 1.0 if moves_played < temperature_moves else 0.0


def choose_action(result, temperature: float = 0.0, rng: np.random.Generator | None = None,
                  player: int | None = None) -> int:
    """A root move of ``result`` (a :class:`~blokuszero.search.mcts.SearchResult`): most visits
    (temperature 0; ties to the better mean value for its mover), else sampled with probability
    proportional to ``visits ** (1 / temperature)``. ``player``: only that player's moves
    (a role's action at a simultaneous-move root)."""
    rows = np.arange(len(result.actions)) if player is None else np.flatnonzero(result.movers == player)
    if len(rows) == 0:
        raise ValueError(f"the search result has no move of player {player}")
    visits = result.visits[rows]
    if temperature > 0:
        weights = visits.astype(np.float64) ** (1.0 / temperature)
        pick = (rng or np.random.default_rng()).choice(len(weights), p=weights / weights.sum())
        return int(result.actions[rows[pick]])
    own = np.nan_to_num(result.values[rows, result.movers[rows]], nan=-np.inf)
    best = np.lexsort((-own, -visits))[0]
    return int(result.actions[rows[best]])
