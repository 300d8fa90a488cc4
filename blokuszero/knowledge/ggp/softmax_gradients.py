"""The GDL softmax playout policy's gradients and the writer of its weights' file (SPEC §6, seed
002): what the game-agnostic learners of ``rl.simulation_balancing`` read and write.

The policy itself (features, probabilities, playouts, the weights' reader) is
:class:`~blokuszero.games.ggp.softmax_policy.SoftmaxPolicy`. Here, in numba on the
propositional network's state arrays: the outcomes of ``n`` playouts, the policy-gradient sum
``z / (N T) sum_t psi(s_t, a_t)`` of simulation balancing and
``psi(s, a) = grad_theta log pi(s, a) = phi(s, a) - sum_b pi(s, b) phi(s, b)``. Gradients come
back sparse (feature indices, values). Outcomes ``z`` are one role's goal rescaled from 0..100
to -1..+1 (win +1, draw 0, loss -1 in two-player games). The playouts are the network's one
playout loop (:func:`~blokuszero.games.ggp.propnet_playout.playout`) under the policy, recording
the trajectories the gradients read (one loop for playing and learning).
"""

from __future__ import annotations

import json
from pathlib import Path

import numba as nb
import numpy as np

from ...files import write_atomic
from ...games.ggp.game import GgpGame
from ...games.ggp.propnet_playout import playout
from ...games.ggp.softmax_features import feature_index, policy_at, trajectory_buffers
from ...games.ggp.softmax_policy import MAX_FEATURES, SoftmaxPolicy
from ...games.numba_random import stream_seed


# ---------------------------------------------------------------- kernels
@nb.njit(cache=True)
def _add_psi(spec, moves, m, chosen, pairs, probs, weight, g):
    """g += weight * psi(s, moves[chosen]), psi = phi(s, a) - sum_b pi(s, b) phi(s, b), with
    ``probs`` = pi(s, .) over ``moves[:m]`` and ``pairs`` the true pairs of s."""
    for x in range(m):
        coef = weight * ((1.0 if x == chosen else 0.0) - probs[x])
        if coef != 0.0:
            for q in range(pairs.shape[0]):
                g[feature_index(moves[x], pairs[q], spec)] += coef


@nb.njit(cache=True)
def _goal(v, r, net):
    best = 0.0
    for k in range(net.goal_start[r], net.goal_start[r + 1]):
        if v[net.goal_atom[k]] == 1 and net.goal_value[k] > best:
            best = net.goal_value[k]
    return best


@nb.njit(cache=True)
def _add_phi(spec, move, pairs, weight, g):
    """g += weight * phi(s, move), ``pairs`` the true pairs of s."""
    for q in range(pairs.shape[0]):
        g[feature_index(move, pairs[q], spec)] += weight


@nb.njit(cache=True)
def _simulate(v0, sims, role, net, live, max_steps, theta, spec, record, use_phi, per_step, g):
    """Outcome z in [-1, 1] for ``role`` of each of ``sims`` playouts from ``v0``; with
    ``record``, also g += sum over them of z / (sims T) sum_t x(s_t, a_t) over the choices
    (Algorithm 1's policy gradient, ``g`` dense), x = phi with ``use_phi`` else psi, T the
    playout's steps with ``per_step`` else its choices."""
    z = np.empty(sims)
    tp, tm, tq, tc = trajectory_buffers()
    stream = np.empty(1, dtype=np.uint64)
    stream[0] = stream_seed()
    for k in range(sims):
        v, steps, t, _, _, _, tp, tm, tq, tc = playout(v0, net, live, stream, max_steps, record,
                                                       theta, spec, tp, tm, tq, tc)
        if steps < 0:
            raise RuntimeError("a playout passed the game's length bound without ending")
        z[k] = _goal(v, role, net) / 50.0 - 1.0
        if not record or t == 0 or z[k] == 0.0:  # a draw adds nothing
            continue
        w = z[k] / (sims * (steps if per_step else t))
        for c in range(t):
            if use_phi:
                _add_phi(spec, tm[tc[c, 2] + tc[c, 4]], tp[tc[c, 0]:tc[c, 1]], w, g)
            else:
                _add_psi(spec, tm[tc[c, 2]:tc[c, 3]], tc[c, 3] - tc[c, 2], tc[c, 4],
                         tp[tc[c, 0]:tc[c, 1]], tq[tc[c, 2]:tc[c, 3]], w, g)
    return z


@nb.njit(cache=True)
def _log_gradient(v, role, chosen, net, theta, spec, g):
    """g += psi(s, a) for ``role``'s move at index ``chosen`` of its legal moves."""
    moves, probs, pairs = policy_at(v, role, net, theta, spec)
    _add_psi(spec, moves, moves.shape[0], chosen, pairs, probs, 1.0, g)


# ---------------------------------------------------------------- the learning policy
class DenseGradient:
    """A dense accumulator read back sparse: (indices of the non-zero entries, values)."""

    def __init__(self, size: int) -> None:
        self.value = np.zeros(size)

    def take(self) -> tuple[np.ndarray, np.ndarray]:
        """(indices, values) accumulated, then clears."""
        idx = np.flatnonzero(self.value)
        vals = self.value[idx].copy()
        self.value[idx] = 0.0
        return idx, vals


class TrainableSoftmaxPolicy(SoftmaxPolicy):
    """A :class:`SoftmaxPolicy` that learns: the linear-softmax policy interface of
    :mod:`blokuszero.rl.simulation_balancing` (``theta``, ``probabilities``, ``log_gradient``,
    ``outcomes``, ``outcome_gradient``) and :meth:`save` (``load`` reads it back)."""

    def __init__(self, game: GgpGame, max_features: int = MAX_FEATURES,
                 theta: np.ndarray | None = None) -> None:
        super().__init__(game, max_features, theta)
        self._acc = DenseGradient(self.size)

    def log_gradient(self, state, action: int, role: int | None = None
                     ) -> tuple[np.ndarray, np.ndarray]:
        """psi(s, a) = grad log pi(s, a), sparse: (indices, values)."""
        role = state.current_player() if role is None else role
        moves, _ = self.probabilities(state, role)
        hit = np.flatnonzero(moves == action)
        if len(hit) == 0:
            raise ValueError(f"move {action} is not legal for role {role} here")
        a = self._acc
        _log_gradient(self._values(state), role, int(hit[0]), self.reasoner.net, self.theta,
                      self.spec, a.value)
        return a.take()

    def outcomes(self, state, sims: int, role: int = 0) -> np.ndarray:
        """z in [-1, 1] for ``role`` after each of ``sims`` playouts from ``state``."""
        r = self.reasoner  # the kernels move the network's own state: hold its lock
        with r._lock:
            return _simulate(self._values(state), sims, role, r.net, r._live,
                             self.game.max_game_length, self.theta, self.spec, False, False,
                             False, self._acc.value)

    def outcome_gradient(self, state, sims: int, role: int = 0, use_phi: bool = False,
                         per_step: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Simulation balancing's ``g = sum_k z_k / (sims T_k) sum_t x(s_t, a_t)`` over
        ``sims`` playouts, sparse, and the outcomes: x is psi, or phi with ``use_phi`` (as the
        seed paper prints it); T_k playout k's steps, or with ``per_step=False`` its choices
        (moves drawn among several); the sum runs over the choices either way."""
        a = self._acc
        r = self.reasoner
        with r._lock:
            z = _simulate(self._values(state), sims, role, r.net, r._live,
                          self.game.max_game_length, self.theta, self.spec, True,
                          use_phi, per_step, a.value)
        idx, vals = a.take()
        return idx, vals, z

    def save(self, path: str | Path) -> Path:
        """Write theta and what it indexes (atomically)."""
        meta = {"game": self.game.name, "digest": self.rules_digest(), "size": self.size,
                "max_features": self.max_features}

        def write(f) -> None:
            np.savez(f, theta=self.theta, meta=json.dumps(meta))

        return write_atomic(path, write)
