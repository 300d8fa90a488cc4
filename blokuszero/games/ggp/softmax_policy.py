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

Everything per move runs in numba on the propositional network's state arrays
(:mod:`.softmax_features`); the playouts are the network's one playout loop
(:func:`.propnet_playout.playout`), which can record the trajectory (the true pairs, moves and
probabilities of each choice) for the learners' gradients.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from ..numba_random import stream_seed
from .game import FastGgpState, GgpGame
from .propnet_playout import policy_playout
from .softmax_features import feature_index, policy_at, true_pairs

#: Default bound on the number of weights (8 MiB of float64).
MAX_FEATURES = 1 << 20


# ---------------------------------------------------------------- the policy
class SoftmaxPolicy:
    """``pi(s, a) ∝ exp(phi(s, a) . theta)`` for a GDL game compiled to a propositional network:
    ``probabilities``, ``features`` and ``playout(state)`` for
    :class:`~blokuszero.search.rollout_evaluators.PolicyRolloutEvaluator`, and the reader of its
    weights' file (:class:`blokuszero.knowledge.ggp.softmax_gradients.TrainableSoftmaxPolicy` adds
    the gradients and writes them).
    A playout draws from a SplitMix64 stream seeded from numba's generator (seed that with
    ``games.numba_random.seed_numba``), as the uniform playout does.
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
        n = true_pairs(v, self.num_base, props, pairs)
        return np.sort(np.array([feature_index(action, p, self.spec) for p in pairs[:n]], dtype=np.int64))

    def probabilities(self, state, role: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(legal moves of ``role``, default the mover; pi over them)."""
        role = state.current_player() if role is None else role
        if role < 0:
            raise ValueError("no single role moves here: name the role")
        moves, probs, _ = policy_at(self._values(state), role, self.reasoner.net, self.theta,
                                     self.spec)
        return moves, probs

    def playout(self, state) -> tuple[np.ndarray, np.ndarray]:
        """Play ``state`` to the end with moves drawn from pi (in place); returns who chose and
        what, as ``FastGgpState.playout`` does."""
        r = self.reasoner
        stream = np.array([stream_seed()], dtype=np.uint64)
        with r._lock:
            out, t, movers, actions = policy_playout(self._values(state), r.net, r._live, stream,
                                                     self.game.max_game_length, self.theta, self.spec)
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
