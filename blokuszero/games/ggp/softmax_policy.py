"""The GDL games' parametrised playout policy: a softmax over binary features, the playouts it
draws and the reader of its weights' file (SPEC §6; its gradients and writer are
:mod:`blokuszero.knowledge.ggp.softmax_gradients`'s).

``pi(s, a) = exp(phi(s, a) . theta) / sum_b exp(phi(s, b) . theta)`` over the legal moves ``b``
of the role choosing, where ``phi(s, a)`` has a 1 for every feature (move ``a``, base
propositions ``i < j`` both true in ``s``) and 0 elsewhere (the paper's "move and pair of true
propositions", e.g. ``(cell 1 1 x) (cell 1 2 x) (mark 1 3)``). ``theta = 0`` is the uniform
policy.

Size: pairs grow as ``B (B - 1) / 2`` in the ``B`` base propositions, so the index is dense,
``a * P + pair(i, j)`` with ``P = B (B - 1) / 2``, only while ``A * P <= max_features``;
beyond, the dense index is hashed (Fibonacci hashing) into ``max_features`` slots (a power of
two), so the weights never take more than ``8 * max_features`` bytes whatever the game.
Tic-tac-toe (B = 29, A = 10) has 4,060 features, connect four (B = 98, A = 9) 42,777; both dense.

Everything per move runs in numba on the propositional network's state arrays. A playout
(drawing from numba's generator, seeded by the caller) can record its trajectory (the true
pairs, moves and probabilities of each choice) for the learners' gradients.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numba as nb
import numpy as np

from ..numba_random import GOLDEN
from .game import FastGgpState, GgpGame
from .propnet_kernels import next_state

#: Default bound on the number of weights (8 MiB of float64).
MAX_FEATURES = 1 << 20


# ---------------------------------------------------------------- kernels
@nb.njit(cache=True)
def _true_pairs(v, num_base, props, pairs):
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
def _index(a, p, spec):
    """The weight index of feature (move ``a``, pair ``p``)."""
    num_pairs, size, shift, hashed = spec
    key = a * num_pairs + p
    if hashed == 0:
        return key
    return np.int64((np.uint64(key) * GOLDEN) >> np.uint64(shift))  # Fibonacci hashing


@nb.njit(cache=True)
def _legal_of(v, r, legal_start, legal_atom, legal_action, out):
    n = 0
    for k in range(legal_start[r], legal_start[r + 1]):
        if v[legal_atom[k]] == 1:
            out[n] = legal_action[k]
            n += 1
    return n


@nb.njit(cache=True)
def _softmax(theta, spec, moves, m, pairs, npairs, probs):
    """pi over ``moves[:m]`` into ``probs[:m]``."""
    top = -np.inf
    for x in range(m):
        s = 0.0
        for q in range(npairs):
            s += theta[_index(moves[x], pairs[q], spec)]
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
def _grow(a, need):
    """``a``, or a copy with room for ``need`` rows."""
    if need <= a.shape[0]:
        return a
    b = np.empty((max(need, 2 * a.shape[0]),) + a.shape[1:], a.dtype)
    b[:a.shape[0]] = a
    return b


@nb.njit(cache=True)
def _playout(v, net, live, max_steps, theta, spec, record, tp, tm, tq, tc):
    """Moves drawn from pi to the end (forced moves played as they are; the network ``net``
    moves its state ``live``, its lock held by the caller). Returns the final
    values, the number of choices T (-1 past ``max_steps``), the (role, action) of each choice
    (a step where nobody chooses records the first role's move, as the uniform playout does)
    and, with ``record``, the trajectory: choice c had the true pairs ``tp[tc[c, 0]:tc[c, 1]]``,
    moves ``tm[tc[c, 2]:tc[c, 3]]`` with probabilities ``tq[...]`` and chose index ``tc[c, 4]``
    (the buffers grow as needed and are returned)."""
    legal_start, legal_atom, legal_action = net.legal_start, net.legal_atom, net.legal_action
    terminal_atom = net.terminal_atom
    num_roles = legal_start.shape[0] - 1
    num_base = net.num_base
    props = np.empty(num_base, dtype=np.int64)
    pairs = np.empty(max(num_base * (num_base - 1) // 2, 1), dtype=np.int64)
    moves = np.empty(legal_atom.shape[0], dtype=np.int64)
    probs = np.empty(legal_atom.shape[0])
    movers = np.empty(max_steps * num_roles, dtype=np.int64)
    actions = np.empty(max_steps * num_roles, dtype=np.int64)
    joint = np.empty(num_roles, dtype=np.int64)
    n = 0
    choices = 0
    used_p = 0
    used_m = 0
    steps = 0
    while not (terminal_atom >= 0 and v[terminal_atom] == 1):
        if steps == max_steps:
            return v, -1, movers[:n], actions[:n], tp, tm, tq, tc
        npairs = -1
        chose = False
        for r in range(num_roles):
            m = _legal_of(v, r, legal_start, legal_atom, legal_action, moves)
            if m == 0:  # not well formed: ends the game, as GgpState does
                return v, choices, movers[:n], actions[:n], tp, tm, tq, tc
            if m == 1:
                joint[r] = moves[0]
                continue
            if npairs < 0:
                npairs = _true_pairs(v, num_base, props, pairs)
            _softmax(theta, spec, moves, m, pairs, npairs, probs)
            u = np.random.random()
            pick = m - 1
            for x in range(m - 1):
                u -= probs[x]
                if u < 0.0:
                    pick = x
                    break
            joint[r] = moves[pick]
            if record:
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
            movers[n] = r
            actions[n] = joint[r]
            n += 1
            choices += 1
            chose = True
        if not chose:
            movers[n] = 0
            actions[n] = joint[0]
            n += 1
        v = next_state(v, joint, net, live)
        steps += 1
    return v, choices, movers[:n], actions[:n], tp, tm, tq, tc


@nb.njit(cache=True)
def _buffers():
    return (np.empty(256, dtype=np.int64), np.empty(64, dtype=np.int64), np.empty(64),
            np.empty((16, 5), dtype=np.int64))


@nb.njit(cache=True)
def _policy_at(v, role, net, theta, spec):
    """(legal moves, pi over them, pairs of true propositions) of ``role`` at ``v``."""
    legal_start, legal_atom, legal_action, num_base = (net.legal_start, net.legal_atom,
                                                       net.legal_action, net.num_base)
    props = np.empty(num_base, dtype=np.int64)
    pairs = np.empty(max(num_base * (num_base - 1) // 2, 1), dtype=np.int64)
    moves = np.empty(legal_atom.shape[0], dtype=np.int64)
    probs = np.empty(legal_atom.shape[0])
    m = _legal_of(v, role, legal_start, legal_atom, legal_action, moves)
    npairs = _true_pairs(v, num_base, props, pairs)
    if m > 0:
        _softmax(theta, spec, moves, m, pairs, npairs, probs)
    return moves[:m], probs[:m], pairs[:npairs]


# ---------------------------------------------------------------- the policy
class SoftmaxPolicy:
    """``pi(s, a) ∝ exp(phi(s, a) . theta)`` for a GDL game compiled to a propositional network:
    ``probabilities``, ``features`` and ``playout(state)`` for
    :class:`~blokuszero.search.playout_policies.PolicyRolloutEvaluator`, and the reader of its
    weights' file (:class:`blokuszero.knowledge.ggp.softmax_gradients.TrainableSoftmaxPolicy` adds
    the gradients and writes them).
    Random draws come from numba's generator (seed it with ``games.numba_random.seed_numba``).
    """

    def __init__(self, game: GgpGame, max_features: int = MAX_FEATURES,
                 theta: np.ndarray | None = None) -> None:
        """Args:
          game: a GDL game whose reasoner is the propositional network.
          max_features: the bound on the number of weights (a power of two); a game with more
            (move, pair) features hashes them into this many.
          theta: initial weights (default zeros: the uniform policy).
        """
        if game.reasoner.kind != "propnet":
            raise ValueError(f"{game.name}: a softmax playout policy needs the propositional "
                             f"network, the game uses the {game.reasoner.kind}")
        if max_features < 2 or max_features & (max_features - 1):
            raise ValueError(f"max_features must be a power of two >= 2, not {max_features}")
        self.game = game
        self.max_features = int(max_features)
        self.reasoner = game.reasoner
        self.num_base = len(game.reasoner.base)
        self.num_pairs = self.num_base * (self.num_base - 1) // 2
        dense = game.num_actions * self.num_pairs
        self.hashed = dense > max_features
        self.size = max_features if self.hashed else max(dense, 1)
        shift = 64 - int(max_features).bit_length() + 1
        self.spec = (np.int64(self.num_pairs), np.int64(self.size), np.int64(shift),
                     np.int64(self.hashed))
        if theta is None:
            theta = np.zeros(self.size)
        theta = np.asarray(theta, dtype=np.float64)
        if theta.shape != (self.size,):
            raise ValueError(f"theta has shape {theta.shape}, the policy needs ({self.size},)")
        self.theta = theta

    # ------------------------------------------------------------- state access
    @staticmethod
    def _values(state) -> np.ndarray:
        if not isinstance(state, FastGgpState):
            raise TypeError(f"expected a propositional-network GDL state, got {type(state).__name__}")
        return state._s

    # ------------------------------------------------------------- the policy
    def features(self, state, action: int) -> np.ndarray:
        """Sorted weight indices of the features active for ``action`` at ``state``."""
        v = self._values(state)
        props = np.empty(self.num_base, dtype=np.int64)
        pairs = np.empty(max(self.num_pairs, 1), dtype=np.int64)
        n = _true_pairs(v, self.num_base, props, pairs)
        return np.sort(np.array([_index(action, p, self.spec) for p in pairs[:n]], dtype=np.int64))

    def probabilities(self, state, role: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(legal moves of ``role``, default the mover; pi over them)."""
        role = state.current_player() if role is None else role
        if role < 0:
            raise ValueError("no single role moves here: name the role")
        moves, probs, _ = _policy_at(self._values(state), role, self.reasoner.net, self.theta,
                                     self.spec)
        return moves, probs

    def playout(self, state) -> tuple[np.ndarray, np.ndarray]:
        """Play ``state`` to the end with moves drawn from pi (in place); returns who chose and
        what, as ``FastGgpState.playout`` does."""
        r = self.reasoner
        with r._lock:
            out, t, movers, actions, *_ = _playout(self._values(state), r.net, r._live,
                                                   self.game.max_game_length, self.theta,
                                                   self.spec, False, *_buffers())
        if t < 0:
            raise RuntimeError(f"a playout passed {self.game.max_game_length} joint moves")
        state._set(out)
        return movers, actions

    # ------------------------------------------------------------- files
    def rules_digest(self) -> str:
        """A digest of the game's base propositions and moves: weights fit only this game."""
        text = json.dumps([[str(b) for b in self.reasoner.base],
                           [str(m) for m in self.reasoner.moves]])
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @classmethod
    def load(cls, game: GgpGame, path: str | Path) -> SoftmaxPolicy:
        """Weights saved by :meth:`save` for ``game`` (refused for another game)."""
        with np.load(path) as data:
            theta, meta = data["theta"], json.loads(str(data["meta"]))
        policy = cls(game, max_features=int(meta["max_features"]))
        if meta["digest"] != policy.rules_digest() or policy.size != len(theta):
            raise ValueError(f"{path}: weights of {meta['game']!r} (digest {meta['digest']}, "
                             f"{len(theta)} weights) do not fit {game.name!r} "
                             f"(digest {policy.rules_digest()}, {policy.size} weights)")
        policy.theta = theta.astype(np.float64)
        return policy
