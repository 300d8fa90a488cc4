"""Blokus's implementation of the numba-level game interface (:mod:`blokuszero.games.kernels`).

Registered for positions held in :class:`.rules.Arrays` when this module is imported (the
Blokus package imports it). Each function does what :class:`.game.BlokusState` does in Python,
through the same rules kernels, so a compiled search makes the same changes to the position
(candidate lists included) and the same random draws as the Python loop.
"""

from __future__ import annotations

import numba as nb
from numba.core import types
from numba.extending import overload

from .. import kernels as K
from . import rules as E


def _is_blokus(state) -> bool:
    return isinstance(state, types.BaseNamedTuple) and state.instance_class is E.Arrays


@nb.njit(cache=True)
def search_actions(s, t, out) -> int:
    """The sorted legal placements of the colour to move, as ``legal_actions()``."""
    n = E.legal_moves(s, t, s.meta[E.TO_MOVE], out)
    out[:n].sort()
    return n


@nb.njit(cache=True, _nrt=False)
def playout(s, t, policy, epsilon, players, actions) -> int:
    """``BlokusState.playout``: random moves to the end; the moves into ``players``/``actions``."""
    start = s.meta[E.NUM_PLACED]
    E.playout(s, t, policy, epsilon)
    n = s.meta[E.NUM_PLACED] - start
    for i in range(n):
        players[i] = s.history[start + i, 0]
        actions[i] = s.history[start + i, 1]
    return n


@nb.njit(cache=True, _nrt=False)
def returns(s, t, out) -> None:
    """``BlokusState.returns``: +1 for every colour with the highest score, -1 for the others."""
    if s.meta[E.TO_MOVE] != E.NO_PLAYER:
        for c in range(4):
            out[c] = 0.0
        return
    E.scores(s, t, out)  # small integers, exact in out's floats
    best = max(max(out[0], out[1]), max(out[2], out[3]))
    for c in range(4):
        out[c] = 1.0 if out[c] == best else -1.0


# The per-simulation calls run without reference counting, as the rules kernels do (see
# rules._kernel): the Arrays and Tables tuples passed through would otherwise be increfed and
# decrefed array by array on every call. search_actions sorts, which may allocate.
_JIT = {"cache": True, "_nrt": False}
_JIT_NRT = {"cache": True}


@overload(K.state_copy, jit_options=_JIT)
def _copy(dst, src, t):
    if _is_blokus(dst):
        return lambda dst, src, t: E.copy_into(dst, src, t)


@overload(K.state_to_move, jit_options=_JIT)
def _to_move(s, t):
    if _is_blokus(s):
        return lambda s, t: s.meta[E.TO_MOVE]


@overload(K.state_key, jit_options=_JIT)
def _key(s, t):
    if _is_blokus(s):
        return lambda s, t: s.meta[E.KEY]


@overload(K.state_search_actions, jit_options=_JIT_NRT)
def _search_actions(s, t, out):
    if _is_blokus(s):
        return lambda s, t, out: search_actions(s, t, out)


@overload(K.state_apply, jit_options=_JIT)
def _apply(s, t, action):
    if _is_blokus(s):
        return lambda s, t, action: E.apply_move(s, t, action)


@overload(K.state_playout, jit_options=_JIT)
def _playout(s, t, policy, epsilon, players, actions):
    if _is_blokus(s):
        return lambda s, t, policy, epsilon, players, actions: playout(s, t, policy, epsilon,
                                                                        players, actions)


@overload(K.state_returns, jit_options=_JIT)
def _returns(s, t, out):
    if _is_blokus(s):
        return lambda s, t, out: returns(s, t, out)


@overload(K.state_scores, jit_options=_JIT)
def _scores(s, t, out):
    if _is_blokus(s):
        return lambda s, t, out: E.scores(s, t, out)
