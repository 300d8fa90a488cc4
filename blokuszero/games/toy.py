"""Small multi-player games for testing search: explicit game trees and a claiming game.

``ExplicitTreeGame`` plays a hand-written tree, so a search can be checked against the
textbook answer. ``ClaimGame`` lets any player move at any time, which Best-Reply Search
needs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Union

import numpy as np

from .base import TERMINAL, Game, Seed, State

# A tree node: a leaf payoff vector, or (player to move, [children]); action i = child i.
TreeSpec = Union[tuple[float, ...], tuple[int, list["TreeSpec"]]]


def _is_leaf(node: TreeSpec) -> bool:
    return not isinstance(node[1], list)


class ExplicitTreeState(State):
    """A position in an explicit tree: the path of child indices taken from the root."""

    __slots__ = ("_game", "_path", "_node")

    def __init__(self, game: ExplicitTreeGame) -> None:
        self._game = game
        self._path: list[int] = []
        self._node: TreeSpec = game.tree

    def current_player(self) -> int:
        return TERMINAL if _is_leaf(self._node) else int(self._node[0])

    def legal_actions(self, player: int | None = None) -> np.ndarray:
        if self.is_terminal() or player not in (None, self.current_player()):
            return np.empty(0, dtype=np.int64)
        return np.arange(len(self._node[1]))

    def apply_action(self, action: int) -> None:
        if self.is_terminal() or not 0 <= action < len(self._node[1]):
            raise ValueError(f"action {action} is not legal at node {self._path}")
        self._node = self._node[1][action]
        self._path.append(int(action))

    def clone(self) -> ExplicitTreeState:
        other = ExplicitTreeState(self._game)
        other._path = list(self._path)
        other._node = self._node
        return other

    def returns(self) -> np.ndarray:
        if not self.is_terminal():
            return np.zeros(self._game.num_players)
        return np.array(self._node, dtype=float)

    def action_to_string(self, action: int) -> str:
        return str(action)

    def string_to_action(self, text: str) -> int:
        if not text.strip().isdigit():
            raise ValueError(f"{text!r} is not a child index")
        return int(text)

    def key(self) -> int:
        return hash(tuple(self._path)) & (2**63 - 1)

    def __str__(self) -> str:
        return f"path {self._path}"


class ExplicitTreeGame(Game):
    """A game given as a tree of nested specs; payoffs in [-1, 1] like returns."""

    name = "explicit_tree"

    def __init__(self, tree: TreeSpec, num_players: int) -> None:
        self.tree = tree
        self.num_players = num_players

        def walk(node: TreeSpec) -> tuple[int, int]:
            if _is_leaf(node):
                if len(node) != num_players:
                    raise ValueError(f"leaf {node} needs {num_players} payoffs")
                return 0, 0
            stats = [walk(child) for child in node[1]]
            return 1 + max(d for d, _ in stats), max([len(node[1])] + [b for _, b in stats])

        self.max_game_length, self.num_actions = walk(tree)

    def new_initial_state(self, seed: Seed = None) -> ExplicitTreeState:
        return ExplicitTreeState(self)


class ClaimState(State):
    """Cells with values; a move claims a free cell, whose value goes to the claimer."""

    __slots__ = ("_game", "_owner", "_to_move")

    def __init__(self, game: ClaimGame) -> None:
        self._game = game
        self._owner = np.full(len(game.values), -1, dtype=np.int64)
        self._to_move = 0

    def current_player(self) -> int:
        return self._to_move

    def legal_actions(self, player: int | None = None) -> np.ndarray:
        if self._to_move == TERMINAL:
            return np.empty(0, dtype=np.int64)
        return np.flatnonzero(self._owner < 0)

    def apply_action(self, action: int) -> None:
        self.apply_action_for(self._to_move, action, (self._to_move + 1) % self._game.num_players)

    def apply_action_for(self, player: int, action: int, next_player: int) -> None:
        """Claim ``action`` for ``player`` (in or out of turn); ``next_player`` moves next."""
        if self._to_move == TERMINAL:
            raise ValueError(f"cell {action} cannot be claimed: the game is over")
        if not 0 <= action < len(self._owner) or self._owner[action] >= 0:
            raise ValueError(f"cell {action} is not free")
        self._owner[action] = player
        self._to_move = next_player if (self._owner < 0).any() else TERMINAL

    def clone(self) -> ClaimState:
        other = ClaimState(self._game)
        other._owner = self._owner.copy()
        other._to_move = self._to_move
        return other

    def points(self) -> np.ndarray:
        """Sum of the values each player has claimed (the search's evaluation)."""
        owned = self._owner >= 0
        return np.bincount(self._owner[owned], weights=self._game.values[owned],
                           minlength=self._game.num_players)

    def returns(self) -> np.ndarray:
        if self._to_move != TERMINAL:
            return np.zeros(self._game.num_players)
        p = self.points()
        return np.where(p == p.max(), 1.0, -1.0)

    def action_to_string(self, action: int) -> str:
        return f"c{action}"

    def string_to_action(self, text: str) -> int:
        if not (text.startswith("c") and text[1:].isdigit()):
            raise ValueError(f"{text!r} is not a cell such as 'c0'")
        return int(text[1:])

    def key(self) -> int:
        return hash((self._to_move, self._owner.tobytes())) & (2**63 - 1)

    def __str__(self) -> str:
        return f"owners {self._owner.tolist()}, player {self._to_move} to move"


class ClaimGame(Game):
    """Players claim cells of given values in turn; the largest total wins."""

    name = "claim"

    def __init__(self, values: Sequence[float], num_players: int = 3) -> None:
        self.values = np.asarray(values, dtype=float)
        self.num_players = num_players
        self.num_actions = len(self.values)
        self.max_game_length = len(self.values)

    def new_initial_state(self, seed: Seed = None) -> ClaimState:
        return ClaimState(self)
