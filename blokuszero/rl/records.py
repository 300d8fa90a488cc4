"""A finished self-play game: moves, search targets and outcome, as compact arrays.

Games, not positions, are what actors send and the buffer keeps: a position is rebuilt by
replaying the moves (one numba call), so each stores only its search statistics.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class GameRecord:
    """One self-play game. Position t is the state before move t."""

    players: np.ndarray  # [T] int8: who made move t
    actions: np.ndarray  # [T] int32: move t (placement id)
    policy_start: np.ndarray  # [T + 1] int64: position t's targets are [policy_start[t], policy_start[t+1])
    policy_actions: np.ndarray  # [K] int32: root moves with a target probability
    policy_probs: np.ndarray  # [K] float32: pi (visit counts normalised, or Gumbel's improved
    #                           policy); a position with none (a fast search) has no target
    returns: np.ndarray  # [P] float32: outcome per player (+1 win, -1 loss)
    scores: np.ndarray  # [P] float32: final score per player (Blokus: the advanced score)
    weights_version: int  # network version that played the game
    seed: int  # seed of the game's randomness

    @property
    def num_positions(self) -> int:
        return len(self.actions)

    def policy(self, t: int) -> tuple[np.ndarray, np.ndarray]:
        """(actions, pi) of position t."""
        lo, hi = self.policy_start[t], self.policy_start[t + 1]
        return self.policy_actions[lo:hi], self.policy_probs[lo:hi]

    def to_arrays(self, prefix: str) -> dict[str, np.ndarray]:
        """Named arrays for an ``.npz`` file (several games per file, told apart by prefix)."""
        return {f"{prefix}{k}": np.asarray(getattr(self, k)) for k in _FIELDS}

    @classmethod
    def from_arrays(cls, arrays, prefix: str) -> GameRecord:
        values = {k: arrays[f"{prefix}{k}"] for k in _FIELDS}
        values["weights_version"] = int(values["weights_version"])
        values["seed"] = int(values["seed"])
        return cls(**values)

    def value_target(self, kind: str, margin_scale: float = 10.0) -> np.ndarray:
        """The value target z per player (absolute order).

        ``outcome``: the game's returns, +1 win and -1 loss (SPEC §3, the paper's target).
        ``margin``: ``tanh((score_p - best other score) / margin_scale)``: the same sign as the
        outcome, graded by how far ahead or behind the player finished. Not in the paper; it
        carries more signal per game, which short runs need (the CPU default uses it).
        """
        if kind == "outcome":
            return self.returns
        if kind == "margin":
            s = self.scores.astype(np.float64)
            best_other = np.array([np.delete(s, p).max() for p in range(len(s))])
            return np.tanh((s - best_other) / margin_scale).astype(np.float32)
        raise ValueError(f"value target {kind!r} is not one of ('outcome', 'margin')")

    @property
    def nbytes(self) -> int:
        return sum(np.asarray(getattr(self, k)).nbytes for k in _FIELDS)


_FIELDS = ("players", "actions", "policy_start", "policy_actions", "policy_probs", "returns",
           "scores", "weights_version", "seed")


class RecordBuilder:
    """Collects a game's moves and search targets while it is played."""

    def __init__(self, seed: int, weights_version: int) -> None:
        self.seed = seed
        self.weights_version = weights_version
        self.players: list[int] = []
        self.actions: list[int] = []
        self.targets: list[tuple[np.ndarray, np.ndarray]] = []

    def add(self, player: int, action: int, target_actions: np.ndarray, target_probs: np.ndarray) -> None:
        """Move ``action`` by ``player`` and the position's policy target (moves and their
        probabilities: search.root_policies.policy_target; none for a position not recorded as a
        policy target)."""
        self.players.append(player)
        self.actions.append(action)
        self.targets.append((np.asarray(target_actions), np.asarray(target_probs)))

    def finish(self, returns: np.ndarray, scores: np.ndarray) -> GameRecord:
        sizes = [len(a) for a, _ in self.targets]
        return GameRecord(
            players=np.array(self.players, np.int8), actions=np.array(self.actions, np.int32),
            policy_start=np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
            policy_actions=np.concatenate([a for a, _ in self.targets]).astype(np.int32),
            policy_probs=np.concatenate([p for _, p in self.targets]).astype(np.float32),
            returns=np.asarray(returns, np.float32), scores=np.asarray(scores, np.float32),
            weights_version=self.weights_version, seed=self.seed)
