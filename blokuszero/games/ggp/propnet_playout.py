"""The one playout loop of the propositional network: joint moves to the end, drawn uniformly or
from the softmax playout policy, from one seeded SplitMix64 stream.

Uniform playouts serve the search and the network's literal ordering (:func:`sample_changes`);
the softmax policy's serve its player and, recording each choice, its learners' gradients
(:mod:`blokuszero.knowledge.ggp.softmax_gradients`).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..numba_random import stream_below, stream_random
from .propnet_kernels import _step, _sync
from .softmax_features import legal_of, softmax, trajectory_buffers, true_pairs


@nb.njit(cache=True)
def _grow(a, need):
    """``a``, or a copy with room for ``need`` rows."""
    if need <= a.shape[0]:
        return a
    b = np.empty((max(need, 2 * a.shape[0]),) + a.shape[1:], a.dtype)
    b[:a.shape[0]] = a
    return b


@nb.njit(cache=True)
def playout(v, net, live, stream, max_steps, record, theta, spec, tp, tm, tq, tc):
    """Joint moves from ``v`` to the end (or to a state where a role has no legal move), each
    role's move drawn from the SplitMix64 stream whose state is ``stream[0]`` (advanced in
    place): uniformly when ``theta`` is empty, else from the softmax policy ``theta``, ``spec``
    (see :mod:`.softmax_features`; a role with one legal move plays it without a draw).

    Returns the final values; the steps played (-1 past ``max_steps``); the number of choices T
    (roles with more than one legal move); the (role, action) of every choice (a step where
    nobody has a choice records the first role, as it is the mover); with ``record``, the base
    propositions after each step ([steps, num_base]; else [0, num_base]); and the trajectory
    buffers, filled with ``record`` under a policy: choice c had the true pairs
    ``tp[tc[c, 0]:tc[c, 1]]``, moves ``tm[tc[c, 2]:tc[c, 3]]`` with probabilities ``tq[...]``
    and chose index ``tc[c, 4]`` (the buffers grow as needed and are returned).
    """
    _sync(v, net, live)
    v = live.values
    num_base, legal_start, legal_atom, legal_action = (net.num_base, net.legal_start,
                                                       net.legal_atom, net.legal_action)
    num_roles = legal_start.shape[0] - 1
    uniform = theta.shape[0] == 0
    props = np.empty(0 if uniform else num_base, dtype=np.int64)
    pairs = np.empty(0 if uniform else max(num_base * (num_base - 1) // 2, 1), dtype=np.int64)
    moves = np.empty(0 if uniform else legal_atom.shape[0], dtype=np.int64)
    probs = np.empty(0 if uniform else legal_atom.shape[0])
    movers = np.empty(max_steps * num_roles, dtype=np.int64)
    actions = np.empty(max_steps * num_roles, dtype=np.int64)
    joint = np.empty(num_roles, dtype=np.int64)
    trajectory = record and not uniform
    record_boards = record and uniform
    trace = np.empty((64 if record_boards else 0, num_base), dtype=np.uint8)
    x = stream[0]
    n = 0
    choices = 0
    used_p = 0
    used_m = 0
    steps = 0
    while not (net.terminal_atom >= 0 and v[net.terminal_atom] == 1):
        if steps == max_steps:
            steps = -1
            break
        npairs = -1
        chose = False
        ended = False
        for r in range(num_roles):
            if uniform:  # counted, then the pick-th found: no list of the moves is made
                m = 0
                for k in range(legal_start[r], legal_start[r + 1]):
                    m += v[legal_atom[k]]
                if m == 0:  # not well formed: ends the game, as GgpState does
                    ended = True
                    break
                pick, x = stream_below(m, x)  # a draw even for a forced move
                for k in range(legal_start[r], legal_start[r + 1]):
                    if v[legal_atom[k]] == 1:
                        if pick == 0:
                            joint[r] = legal_action[k]
                            break
                        pick -= 1
            else:
                m = legal_of(v, r, legal_start, legal_atom, legal_action, moves)
                if m == 0:
                    ended = True
                    break
                pick = 0
                if m > 1:
                    if npairs < 0:
                        npairs = true_pairs(v, num_base, props, pairs)
                    softmax(theta, spec, moves, m, pairs, npairs, probs)
                    u, x = stream_random(x)
                    pick = m - 1
                    for y in range(m - 1):
                        u -= probs[y]
                        if u < 0.0:
                            pick = y
                            break
                    if trajectory:
                        tc = _grow(tc, choices + 1)
                        tp = _grow(tp, used_p + npairs)
                        tm = _grow(tm, used_m + m)
                        tq = _grow(tq, used_m + m)
                        tp[used_p:used_p + npairs] = pairs[:npairs]
                        tm[used_m:used_m + m] = moves[:m]
                        tq[used_m:used_m + m] = probs[:m]
                        tc[choices, 0] = used_p
                        tc[choices, 1] = used_p + npairs
                        tc[choices, 2] = used_m
                        tc[choices, 3] = used_m + m
                        tc[choices, 4] = pick
                        used_p += npairs
                        used_m += m
                joint[r] = moves[pick]
            if m > 1:
                movers[n] = r
                actions[n] = joint[r]
                n += 1
                choices += 1
                chose = True
        if ended:
            break
        if not chose:  # a step where nobody chooses: the first role is the mover
            movers[n] = 0
            actions[n] = joint[0]
            n += 1
        _step(joint, net, live)
        if record_boards:
            if steps == trace.shape[0]:  # double the rows kept
                grown = np.empty((2 * steps, num_base), dtype=np.uint8)
                grown[:steps] = trace
                trace = grown
            trace[steps] = v[:num_base]
        steps += 1
    stream[0] = x
    return (v.copy(), steps, choices, movers[:n], actions[:n], trace[:max(steps, 0) if record_boards else 0],
            tp, tm, tq, tc)


@nb.njit(cache=True)
def uniform_playout(v, net, live, stream, max_steps, record):
    """:func:`playout` with uniform moves: (final values, steps, movers, actions, positions)."""
    none = np.empty(0, dtype=np.int64)
    out = playout(v, net, live, stream, max_steps, record, np.empty(0),
                  (np.int64(0), np.int64(0), np.int64(0), np.int64(0)), none, none, np.empty(0),
                  np.empty((0, 5), dtype=np.int64))
    return out[0], out[1], out[3], out[4], out[5]


@nb.njit(cache=True)
def policy_playout(v, net, live, stream, max_steps, theta, spec):
    """:func:`playout` under the softmax policy ``theta``, ``spec``, recording nothing: (final
    values, steps, movers, actions)."""
    tp, tm, tq, tc = trajectory_buffers()
    out = playout(v, net, live, stream, max_steps, False, theta, spec, tp, tm, tq, tc)
    return out[0], out[1], out[3], out[4]


@nb.njit(cache=True)
def sample_changes(init, net, live, stream, steps):
    """Uniform random games from ``init`` (drawn from ``stream``) for about ``steps`` joint
    moves; the network counts how often each atom changes (``live.changes``)."""
    played = 0
    while played < steps:
        n = uniform_playout(init, net, live, stream, steps - played, False)[1]
        played += steps - played if n < 0 else max(n, 1)
