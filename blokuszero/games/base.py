"""The one game interface that every game family implements (modelled on OpenSpiel's pyspiel).

Search, networks and players see games only through :class:`Game` and :class:`State`.
Values are always per-player vectors; two-player zero-sum games are a special case.

Utilities: ``returns()`` lie in ``[Game.min_utility, Game.max_utility]`` (GDL goals are 0-100,
most games here use -1..1); search maps them to its own scale.

Beyond plain turn-taking, with the same interface:

- chance nodes: ``current_player()`` returns :data:`CHANCE`, ``chance_outcomes()`` lists the
  outcomes with their probabilities and ``apply_action`` plays the one drawn;
- simultaneous moves (GDL): ``current_player()`` returns :data:`SIMULTANEOUS`,
  ``legal_actions(player)`` answers per player and ``apply_joint_action(joint)`` takes one
  action per player (index = player);
- hidden information (Daihinmin): ``information_state_key(player)`` (a 64-bit hash of what
  ``player`` knows; equal for states ``player`` cannot tell apart) and
  ``sample_determinization(player, rng)`` (a full state consistent with what ``player`` knows,
  ``player``'s own private information unchanged). Perfect-information games inherit the
  defaults: the position's key, and a clone.

Optional abilities (scores, fast playouts, moves out of turn, the moves worth searching,
numba kernels, prior knowledge, ...) are Protocols in :mod:`blokuszero.games.abilities`; a game
has one by having its methods. The game families by name are in :mod:`blokuszero.games.registry`.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence

import numpy as np

TERMINAL = -1
SIMULTANEOUS = -2
CHANCE = -3

Seed = int | np.random.Generator | None


def as_rng(seed: Seed) -> np.random.Generator:
    """A numpy Generator from a seed, an existing Generator (returned as is) or None (fresh)."""
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


class State(abc.ABC):
    """A position, changed in place by :meth:`apply_action`."""

    @abc.abstractmethod
    def current_player(self) -> int:
        """The player to move (0-based), or TERMINAL (-1) when the game is over."""

    @abc.abstractmethod
    def legal_actions(self, player: int | None = None) -> np.ndarray:
        """Sorted int array of the legal actions of ``player`` (default: the player to move)."""

    @abc.abstractmethod
    def apply_action(self, action: int) -> None:
        """Play ``action`` for the player to move; ValueError (state unchanged) if illegal."""

    @abc.abstractmethod
    def clone(self) -> State:
        """An independent copy."""

    @abc.abstractmethod
    def returns(self) -> np.ndarray:
        """Float vector, one entry per player: the outcome at a terminal state, zeros before."""

    @abc.abstractmethod
    def action_to_string(self, action: int) -> str:
        """The game's usual notation for ``action``."""

    @abc.abstractmethod
    def string_to_action(self, text: str) -> int:
        """Inverse of :meth:`action_to_string`; ValueError naming the problem if malformed."""

    @abc.abstractmethod
    def key(self) -> int:
        """A 64-bit hash of the position (equal positions, equal keys)."""

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self.current_player() == TERMINAL

    def chance_outcomes(self) -> tuple[np.ndarray, np.ndarray]:
        """At a CHANCE node: the outcomes (sorted actions) and their probabilities."""
        raise NotImplementedError(f"{type(self).__name__} has no chance nodes")

    def apply_joint_action(self, joint: Sequence[int]) -> None:
        """At a SIMULTANEOUS node: play one action per player (``joint[p]`` for player ``p``);
        ValueError (state unchanged) if any is illegal."""
        raise NotImplementedError(f"{type(self).__name__} has no simultaneous moves")

    def information_state_key(self, player: int) -> int:
        """A 64-bit hash of what ``player`` knows; the position's key under perfect information."""
        return self.key()

    def sample_determinization(self, player: int, rng: np.random.Generator) -> State:
        """A full state consistent with what ``player`` knows; a clone under perfect information."""
        return self.clone()


class Game(abc.ABC):
    """Fixed facts of a game and a factory of initial states."""

    name: str
    num_players: int
    num_actions: int  # size of the fixed action space
    max_game_length: int  # most actions (joint actions at simultaneous nodes) a game can take
    min_utility: float = -1.0  # the lowest entry returns() can have
    max_utility: float = 1.0  # the highest entry returns() can have

    @abc.abstractmethod
    def new_initial_state(self, seed: Seed = None) -> State:
        """The initial position; ``seed`` drives any chance in setting it up."""
