"""A Player picks moves; the arena, evaluation and engines drive players through this."""

from __future__ import annotations

import abc
from collections.abc import Sequence

import numpy as np

from ..games.base import State


class Resign(Exception):
    """Raised by ``choose_action`` when the player gives the game up (an engine answered
    ``resign``); the arena scores it as a loss for that player."""


class Player(abc.ABC):
    """Something that picks a move: a search, a network, a random mover, an external engine."""

    def reset(self) -> None:
        """A new game starts."""

    @abc.abstractmethod
    def choose_action(self, state: State) -> int:
        """The move to play at ``state`` (which the player must not change)."""

    def inform(self, action: int, player: int) -> None:
        """``player`` has just played ``action`` (every move of the game, the player's own too)."""

    def inform_joint(self, joint: Sequence[int]) -> None:
        """The players have just played ``joint`` (one action each) at a simultaneous-move state."""

    def close(self) -> None:
        """Release what the player holds (an engine process); it plays no more games."""


class RandomPlayer(Player):
    """Uniformly random legal moves."""

    def __init__(self, seed: int | np.random.Generator | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def choose_action(self, state: State) -> int:
        return int(self.rng.choice(state.legal_actions()))


def play_turns(state: State, players: Sequence[Player]) -> int:
    """Play a turn-taking game from ``state`` to its end, in place: the player to move chooses
    and every player is informed of each move. Returns the number of moves played."""
    moves = 0
    while not state.is_terminal():
        p = state.current_player()
        if p < 0:
            raise ValueError(f"play_turns plays turn-taking games; the state's player is {p}")
        a = players[p].choose_action(state)
        state.apply_action(a)
        for q in players:
            q.inform(a, p)
        moves += 1
    return moves
