"""A Player picks moves; the arena, evaluation and engines drive players through this."""

from __future__ import annotations

import abc
from collections.abc import Sequence

import numpy as np

from ..games.base import Game, State


class Resign(Exception):
    """Raised by ``choose_action`` when the player gives the game up (an engine answered
    ``resign``); the game loop scores it as a loss for that player."""


class PlayerFailure(Exception):
    """Raised by ``choose_action`` when the player cannot answer: an external engine crashed,
    answered nonsense or missed its clock. The game loop forfeits the game or substitutes a move."""


class Player(abc.ABC):
    """Something that picks a move: a search, a network, a random mover, an external engine."""

    def reset(self) -> None:
        """A new game starts."""

    @abc.abstractmethod
    def choose_action(self, state: State, player: int | None = None) -> int:
        """The move to play at ``state`` (which the player must not change); at a
        simultaneous-move state, the action of seat ``player``."""

    def inform(self, action: int, player: int) -> None:
        """``player`` has just played ``action`` (every move of the game, the player's own too)."""

    def outside_cpu(self) -> float:
        """CPU seconds the last ``choose_action`` spent outside this process (an external engine's,
        as it reports them); 0 for a player that thinks in this process."""
        return 0.0

    def inform_joint(self, joint: Sequence[int]) -> None:
        """The players have just played ``joint`` (one action each) at a simultaneous-move state."""

    def close(self) -> None:
        """Release what the player holds (an engine process); it plays no more games."""


class RandomPlayer(Player):
    """Uniformly random legal moves."""

    def __init__(self, seed: int | np.random.Generator | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def choose_action(self, state: State, player: int | None = None) -> int:
        return int(self.rng.choice(state.legal_actions(player)))



def make_random_player(game: Game, spec: object, rng: np.random.Generator) -> RandomPlayer:
    """The ``random`` kind."""
    return RandomPlayer(rng)
