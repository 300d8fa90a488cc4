"""Root policies composed around the search loop (mctx's ``policies.py``): Dirichlet noise on
the root's priors and the move played from the root's visit counts with a temperature
(AlphaZero's), or Gumbel's root (:class:`GumbelRoot`: Gumbel-top-k sampling, sequential halving
and the improved policy as the target; Danihelka et al. 2022).

Self-play and players share these; the loop itself knows nothing of noise or temperature.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ..games.base import State
from .enhancements import Enhancement
from .gumbel import completed_q_sigma, improved_policy
from .tie_break import argmax_random_ties
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
    """A root move of ``result`` (a :class:`~blokuszero.search.mcts.SearchResult`): the root
    policy's own choice where it made one (Gumbel's: its noise is the exploration, so the
    temperature is not used), else most visits (temperature 0; ties to the better mean value
    for its mover), else sampled with probability proportional to ``visits ** (1 /
    temperature)``. ``player``: only that player's moves (a role's action at a
    simultaneous-move root)."""
    if result.action is not None and player is None:
        return int(result.action)
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


def policy_target(result) -> tuple[np.ndarray, np.ndarray]:
    """(root moves, probabilities) a search teaches the policy: the root policy's improved
    policy where it gives one (Gumbel's, over every legal move), else the visit counts
    normalised (AlphaZero's pi, over the visited moves)."""
    if result.policy is not None:
        return result.actions, result.policy
    visited = result.visits > 0
    return result.actions[visited], result.visits[visited] / result.visits[visited].sum()


@functools.lru_cache(maxsize=256)
def considered_visits(max_considered: int, simulations: int) -> tuple[int, ...]:
    """Sequential halving's schedule (Karnin, Koren & Somekh 2013, laid out as mctx does): for
    each of ``simulations`` root visits, the visit count a root child must have to be chosen.

    ``max_considered`` (m) children are visited in turn, each phase giving every child still
    considered ``max(1, n // (ceil(log2 m) * considered))`` more visits, then halving those
    considered (at least 2); the best of those with the required count is visited next.
    """
    if max_considered <= 1:
        return tuple(range(simulations))
    phases = math.ceil(math.log2(max_considered))
    schedule: list[int] = []
    considered, level = max_considered, 0
    while len(schedule) < simulations:
        for _ in range(max(1, simulations // (phases * considered))):
            schedule.extend([level] * considered)
            level += 1
        considered = max(2, considered // 2)
    return tuple(schedule[:simulations])


class GumbelRoot:
    """Gumbel MuZero's root (Danihelka et al. 2022; mctx's ``gumbel_muzero_policy``) for any
    turn-taking tree: each child gets Gumbel noise ``g`` (scaled by ``gumbel_scale``; 0: none,
    for play), the search visits the children by sequential halving over the score ``g + log
    P + sigma(completed Q)`` (:func:`considered_visits`; the first ``max_considered`` visits
    are Gumbel-top-k sampling without replacement), the move played is the best-scoring of the
    most visited, and the policy target is ``softmax(log P + sigma(completed Q))`` over every
    child. Q is the mover's own entry of the value vector (MaxN).

    The MCTS loop calls :meth:`begin`, :meth:`on_expand` when the root gets children, and
    :meth:`select` at the root; a reused tree's earlier visits count for Q, not for the
    schedule of this search.
    """

    def __init__(self, max_considered: int = 16, gumbel_scale: float = 1.0, c_visit: float = 50.0,
                 c_scale: float = 0.1) -> None:
        if max_considered < 1:
            raise ValueError(f"max_considered must be >= 1, not {max_considered}")
        self.max_considered = max_considered
        self.gumbel_scale = gumbel_scale
        self.c_visit = c_visit
        self.c_scale = c_scale
        self.budget = 1
        self.gumbel = np.zeros(0)
        self.baseline = np.zeros(0, np.int64)
        self._rng = np.random.default_rng(0)

    def begin(self, tree: Tree, simulations: int, rng: np.random.Generator) -> None:
        """A search of ``simulations`` simulations starts on ``tree``."""
        self._rng = rng
        expanded = tree.is_expanded(ROOT)
        # The first simulation of an unexpanded root evaluates the root itself.
        self.budget = max(simulations - (0 if expanded else 1), 1)
        self.gumbel = np.zeros(0)
        if expanded:
            self.on_expand(tree)

    def on_expand(self, tree: Tree) -> None:
        """The root has its children: draw their noise; visits from now on are this search's."""
        kids = tree.children(ROOT)
        self.gumbel = self.gumbel_scale * self._rng.gumbel(size=len(kids))
        self.baseline = tree.visits[kids].astype(np.int64)

    def _args(self, tree: Tree) -> tuple:
        return (ROOT, tree.first_child[ROOT], tree.num_children[ROOT], tree.visits, tree.value_sum,
                tree.mover, tree.prior, self.c_visit, self.c_scale)

    def _scores(self, tree: Tree) -> np.ndarray:
        first, count = int(tree.first_child[ROOT]), int(tree.num_children[ROOT])
        logits = np.log(np.maximum(tree.prior[first:first + count].astype(np.float64), 1e-38))
        return self.gumbel + logits + completed_q_sigma(*self._args(tree))

    def _visits(self, tree: Tree) -> np.ndarray:
        return tree.visits[tree.children(ROOT)] - self.baseline

    def _best(self, tree: Tree, scores: np.ndarray, eligible: np.ndarray) -> int:
        scores[~eligible] = -np.inf
        return int(tree.first_child[ROOT]) + argmax_random_ties(scores, tree.tie_seed, ROOT,
                                                                tree.visits[ROOT])

    def select(self, tree: Tree) -> int:
        """The root child the next simulation visits."""
        visits = self._visits(tree)
        schedule = considered_visits(min(self.max_considered, len(visits)), self.budget)
        done = int(visits.sum())
        # Past the budget (a longer search than announced): keep on among the most visited.
        wanted = schedule[done] if done < len(schedule) else visits.max()
        eligible = visits == wanted
        if not eligible.any():
            eligible = visits == visits.max()
        return self._best(tree, self._scores(tree), eligible)

    def action(self, tree: Tree) -> int:
        """The move to play: the best-scoring of this search's most visited children."""
        visits = self._visits(tree)
        return int(tree.action[self._best(tree, self._scores(tree), visits == visits.max())])

    def policy(self, tree: Tree) -> np.ndarray:
        """The improved policy over the root's children (sums to one)."""
        return improved_policy(*self._args(tree))
