"""Playout policies of the Monte Carlo Daihinmin client (SPEC §7): numba kernels over position
vectors, and the evaluator that plays them out for the search.

Each player of a playout plays one of :data:`POLICIES` (its role):

- ``random``: fumiya's: a uniformly random legal action, never a pass on an empty field;
- ``default``: like the standard client: the weakest legal play that breaks no group or run
  in hand (:func:`blokuszero.knowledge.daihinmin.opponent_model.shape_bits`), else the weakest play; passes only
  when it must;
- ``model``: the best move of that player's learned opponent model
  (:func:`blokuszero.knowledge.daihinmin.opponent_model.choose`);
- ``model_sample``: a move drawn in proportion to that model's score
  (:func:`blokuszero.knowledge.daihinmin.opponent_model.sample`), the paper's suggestion for diverse playouts.

A chance node (20 stalled turns) draws its outcome uniformly, as the server does.
"""

from __future__ import annotations

from collections.abc import Sequence

import numba as nb
import numpy as np

from ...games.daihinmin import rules as K
from ...games.daihinmin.actions import NUM_PLAYERS, PASS
from ...games.daihinmin.game import DaihinminState
from ...knowledge.daihinmin.opponent_model import (
    IMPROVED,
    NUM_MODEL_ENTRIES,
    SIMPLE,
    choose,
    move_class,
    sample,
    shape_bits,
    strengths,
)
from ...search.evaluators import Evaluation, Evaluator

POLICIES = ("random", "default", "model", "model_sample")
RANDOM, DEFAULT, MODEL, MODEL_SAMPLE = range(4)


@nb.njit(cache=True)
def _random(s: np.ndarray, buf: np.ndarray) -> int:
    n = K.legal_plays(s, buf)
    if s[K.S_PHASE] == K.P_PLAY and s[K.S_FIELD] < 0 and n > 1:
        return buf[1 + np.random.randint(n - 1)]  # pass is first: skip it
    return buf[np.random.randint(n)]


@nb.njit(cache=True)
def _default_like(s: np.ndarray, buf: np.ndarray) -> int:
    n = K.legal_plays(s, buf)
    table = strengths(s, False)
    best = PASS
    best_key = 1 << 30
    for i in range(n):
        a = buf[i]
        if a == PASS:
            continue
        key = (shape_bits(s, a) & 3 != 0) * 100 + move_class(a, table)
        if key < best_key:
            best, best_key = a, key
    return best


@nb.njit(cache=True)
def policy_playout(s: np.ndarray, roles: np.ndarray, logp: np.ndarray, improved: bool,
                   players: np.ndarray, actions: np.ndarray, buf: np.ndarray) -> int:
    """Play ``s`` to the end in place, player ``p`` by policy ``POLICIES[roles[p]]``;
    ``logp`` [5, K] the players' model tables (read for the model roles). Fills ``players``
    / ``actions`` (-3 for chance) and returns how many moves were made."""
    t = 0
    while s[K.S_PHASE] != K.P_OVER:
        if s[K.S_PHASE] != K.P_PLAY:
            n = K.legal_plays(s, buf)
            a = buf[np.random.randint(n)]
        else:
            p = s[K.S_PLAYER]
            role = roles[p]
            if role == DEFAULT:
                a = _default_like(s, buf)
            elif role == MODEL:
                a = choose(logp[p], s, IMPROVED if improved else SIMPLE, buf)
            elif role == MODEL_SAMPLE:
                a = sample(logp[p], s, IMPROVED if improved else SIMPLE, buf)
            else:
                a = _random(s, buf)
        players[t] = K.current_player(s)
        actions[t] = a
        t += 1
        K.apply(s, a)
    return t


def play_out(state: DaihinminState, roles: np.ndarray, logp: np.ndarray, improved: bool,
             buf: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Play ``state`` to the end in place by :func:`policy_playout`; (players, actions)."""
    players = np.empty(K.MAX_MOVES, np.int64)
    actions = np.empty(K.MAX_MOVES, np.int64)
    buf = np.empty(K.MAX_LEGAL, np.int64) if buf is None else buf
    t = policy_playout(state.s, roles, logp, improved, players, actions, buf)
    return players[:t], actions[:t]


class RolePlayouts(Evaluator):
    """Playouts to the end with a policy per player (:attr:`roles`, set for each decision;
    :attr:`logp` the players' model tables, improved models); the game's returns on [0, 1], as
    :class:`~..search.evaluators.RolloutEvaluator` gives them."""

    value_bounds = (0.0, 1.0)

    def __init__(self) -> None:
        self.roles = np.full(NUM_PLAYERS, RANDOM, np.int64)
        self.logp = np.zeros((NUM_PLAYERS, NUM_MODEL_ENTRIES))
        self._buf = np.empty(K.MAX_LEGAL, np.int64)

    def evaluate(self, states: Sequence[DaihinminState]) -> list[Evaluation]:
        out = []
        for state in states:
            players, actions = play_out(state, self.roles, self.logp, True, self._buf)
            out.append(Evaluation(state.returns(), None, players, actions, utility=True))
        return out
