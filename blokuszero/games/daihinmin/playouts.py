"""Playout policies of the Monte Carlo client (SPEC §7), numba kernels over position vectors.

Each player of a playout plays one of :data:`POLICIES` (its role):

- ``random``: fumiya's: a uniformly random legal action, never a pass on an empty field;
- ``default``: like the standard client: the weakest legal play that breaks no group or run
  in hand (:func:`.opponent_model.shape_bits`), else the weakest play; passes only when it
  must;
- ``model``: the best move of that player's learned opponent model
  (:func:`.opponent_model.choose`);
- ``model_sample``: a move drawn in proportion to that model's score
  (:func:`.opponent_model.sample`), the paper's suggestion for diverse playouts.

A chance node (20 stalled turns) draws its outcome uniformly, as the server does.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from . import engine as E
from .actions import PASS
from .opponent_model import IMPROVED, SIMPLE, choose, move_class, sample, shape_bits, strengths

POLICIES = ("random", "default", "model", "model_sample")
RANDOM, DEFAULT, MODEL, MODEL_SAMPLE = range(4)


@nb.njit(cache=True)
def _random(s: np.ndarray, buf: np.ndarray) -> int:
    n = E.legal_plays(s, buf)
    if s[E.S_PHASE] == E.P_PLAY and s[E.S_FIELD] < 0 and n > 1:
        return buf[1 + np.random.randint(n - 1)]  # pass is first: skip it
    return buf[np.random.randint(n)]


@nb.njit(cache=True)
def _default_like(s: np.ndarray, buf: np.ndarray) -> int:
    n = E.legal_plays(s, buf)
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
    while s[E.S_PHASE] != E.P_OVER:
        if s[E.S_PHASE] != E.P_PLAY:
            n = E.legal_plays(s, buf)
            a = buf[np.random.randint(n)]
        else:
            p = s[E.S_PLAYER]
            role = roles[p]
            if role == DEFAULT:
                a = _default_like(s, buf)
            elif role == MODEL:
                a = choose(logp[p], s, IMPROVED if improved else SIMPLE, buf)
            elif role == MODEL_SAMPLE:
                a = sample(logp[p], s, IMPROVED if improved else SIMPLE, buf)
            else:
                a = _random(s, buf)
        players[t] = E.current_player(s)
        actions[t] = a
        t += 1
        E.apply(s, a)
    return t
