"""Matrix games played simultaneously, once or for several rounds: the smallest games with
simultaneous moves (every position is a SIMULTANEOUS node).

The default is the prisoner's dilemma on a GDL-like 0-100 scale: defecting strictly
dominates cooperating for both players, so a sound search lets cooperation lose its visits.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .base import SIMULTANEOUS, TERMINAL, Game, Seed, State

#: Prisoner's dilemma, [row action, column action, player]: 0 = cooperate, 1 = defect.
PRISONERS_DILEMMA = np.array([[[60, 60], [0, 100]],
                              [[100, 0], [20, 20]]], dtype=np.float64)


class MatrixState(State):
    """The joint actions played so far."""

    __slots__ = ("_game", "_history", "_totals")

    def __init__(self, game: MatrixGame) -> None:
        self._game = game
        self._history: list[tuple[int, ...]] = []
        self._totals = np.zeros(game.num_players)

    def current_player(self) -> int:
        return TERMINAL if len(self._history) == self._game.rounds else SIMULTANEOUS

    def legal_actions(self, player: int | None = None) -> np.ndarray:
        """Player ``player``'s actions; none for ``None`` (no single player moves here)."""
        if self.is_terminal() or player is None:
            return np.empty(0, dtype=np.int64)
        if not 0 <= player < self._game.num_players:
            raise ValueError(f"player {player} is not a player of {self._game.name}")
        return np.arange(self._game.payoffs.shape[player], dtype=np.int64)

    def apply_action(self, action: int) -> None:
        raise ValueError(f"{self._game.name} moves are simultaneous: use apply_joint_action")

    def apply_joint_action(self, joint: Sequence[int]) -> None:
        game = self._game
        if self.is_terminal():
            raise ValueError(f"joint action {tuple(joint)} cannot be played: the game is over")
        if len(joint) != game.num_players:
            raise ValueError(f"a joint action has {game.num_players} entries, not {len(joint)}")
        for p, a in enumerate(joint):
            if not 0 <= a < game.payoffs.shape[p]:
                raise ValueError(f"action {a} of player {p} is not in [0, {game.payoffs.shape[p]})")
        joint = tuple(int(a) for a in joint)
        self._totals = self._totals + game.payoffs[joint]
        self._history.append(joint)

    def clone(self) -> MatrixState:
        other = MatrixState(self._game)
        other._history = list(self._history)
        other._totals = self._totals.copy()
        return other

    def returns(self) -> np.ndarray:
        return self._totals.copy() if self.is_terminal() else np.zeros(self._game.num_players)

    def action_to_string(self, action: int) -> str:
        names = self._game.action_names
        if not 0 <= action < len(names):
            raise ValueError(f"action {action} is not in [0, {len(names)})")
        return names[action]

    def string_to_action(self, text: str) -> int:
        names = self._game.action_names
        if text.strip() not in names:
            raise ValueError(f"{text!r} is not an action of {self._game.name}: {names}")
        return names.index(text.strip())

    def key(self) -> int:
        k = 0
        for joint in self._history:
            for a in joint:
                k = (k * 1_000_003 + a + 1) % (1 << 62)
        return k


class MatrixGame(Game):
    """``payoffs[a_0, ..., a_{P-1}]`` is the payoff vector of a joint action, summed over
    ``rounds`` rounds (each player sees the previous rounds)."""

    def __init__(self, payoffs: np.ndarray = PRISONERS_DILEMMA, rounds: int = 1,
                 name: str = "prisoners_dilemma",
                 action_names: Sequence[str] = ("cooperate", "defect")) -> None:
        payoffs = np.asarray(payoffs, dtype=np.float64)
        if payoffs.ndim < 2 or payoffs.shape[-1] != payoffs.ndim - 1:
            raise ValueError(f"payoffs of shape {payoffs.shape} are not [A_0, ..., A_(P-1), P]")
        if rounds < 1:
            raise ValueError(f"rounds must be >= 1, not {rounds}")
        self.payoffs = payoffs
        self.rounds = rounds
        self.name = name
        self.num_players = payoffs.ndim - 1
        self.num_actions = int(max(payoffs.shape[:-1]))
        if len(action_names) < self.num_actions:
            raise ValueError(f"{len(action_names)} action names for {self.num_actions} actions")
        self.action_names = list(action_names)
        self.max_game_length = rounds
        self.min_utility = rounds * float(payoffs.min())
        self.max_utility = rounds * float(payoffs.max())

    def new_initial_state(self, seed: Seed = None) -> MatrixState:
        return MatrixState(self)
