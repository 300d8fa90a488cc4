"""The softmax playout policy's numba kernels: its features (a move and a pair of true base
propositions), their weight index, and pi over a role's legal moves (the policy's definition and
sizes are :mod:`.softmax_policy`'s; :mod:`.propnet_playout` draws playouts from it)."""

from __future__ import annotations

import numba as nb
import numpy as np

from ..numba_random import GOLDEN


@nb.njit(cache=True)
def true_pairs(v, num_base, props, pairs):
    """The indices ``pair(i, j)`` of every pair ``i < j`` of true base propositions of ``v``,
    written to ``pairs``; returns how many."""
    k = 0
    for j in range(num_base):
        if v[j]:
            props[k] = j
            k += 1
    n = 0
    for x in range(k):
        i = props[x]
        row = i * num_base - (i * (i + 1)) // 2 - i - 1  # pair(i, j) = row + j
        for y in range(x + 1, k):
            pairs[n] = row + props[y]
            n += 1
    return n


@nb.njit(cache=True)
def feature_index(a, p, spec):
    """The weight index of feature (move ``a``, pair ``p``); ``spec`` is (pairs, size, shift,
    hashed)."""
    num_pairs, size, shift, hashed = spec
    key = a * num_pairs + p
    if hashed == 0:
        return key
    return np.int64((np.uint64(key) * GOLDEN) >> np.uint64(shift))  # Fibonacci hashing


@nb.njit(cache=True)
def legal_of(v, r, legal_start, legal_atom, legal_action, out):
    """Role ``r``'s legal actions at ``v`` into ``out``; returns how many."""
    n = 0
    for k in range(legal_start[r], legal_start[r + 1]):
        if v[legal_atom[k]] == 1:
            out[n] = legal_action[k]
            n += 1
    return n


@nb.njit(cache=True)
def softmax(theta, spec, moves, m, pairs, npairs, probs):
    """pi over ``moves[:m]`` into ``probs[:m]``, the true pairs being ``pairs[:npairs]``."""
    top = -np.inf
    for x in range(m):
        s = 0.0
        for q in range(npairs):
            s += theta[feature_index(moves[x], pairs[q], spec)]
        probs[x] = s
        if s > top:
            top = s
    total = 0.0
    for x in range(m):
        probs[x] = np.exp(probs[x] - top)
        total += probs[x]
    for x in range(m):
        probs[x] /= total


@nb.njit(cache=True)
def policy_at(v, role, net, theta, spec):
    """(legal moves, pi over them, pairs of true propositions) of ``role`` at ``v``."""
    legal_start, legal_atom, legal_action, num_base = (net.legal_start, net.legal_atom,
                                                       net.legal_action, net.num_base)
    props = np.empty(num_base, dtype=np.int64)
    pairs = np.empty(max(num_base * (num_base - 1) // 2, 1), dtype=np.int64)
    moves = np.empty(legal_atom.shape[0], dtype=np.int64)
    probs = np.empty(legal_atom.shape[0])
    m = legal_of(v, role, legal_start, legal_atom, legal_action, moves)
    npairs = true_pairs(v, num_base, props, pairs)
    if m > 0:
        softmax(theta, spec, moves, m, pairs, npairs, probs)
    return moves[:m], probs[:m], pairs[:npairs]


@nb.njit(cache=True)
def trajectory_buffers():
    """Empty trajectory buffers (tp, tm, tq, tc) for a recording playout; they grow as needed."""
    return (np.empty(256, dtype=np.int64), np.empty(64, dtype=np.int64), np.empty(64),
            np.empty((16, 5), dtype=np.int64))
