"""Tic-tac-toe: the smallest game that proves the interface (and tests search tactics).

Actions are cells 0-8, row by row from the top left; player 0 plays x and moves first.
"""

from __future__ import annotations

import numpy as np

from .base import TERMINAL, Game, Seed, State

_LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
_MARKS = ".xo"


class TicTacToeState(State):
    """Board as 9 cells holding 0 (empty) or player + 1."""

    __slots__ = ("_cells", "_to_move", "_winner")

    def __init__(self) -> None:
        self._cells = [0] * 9
        self._to_move = 0
        self._winner = -1

    def current_player(self) -> int:
        return self._to_move

    def legal_actions(self, player: int | None = None) -> np.ndarray:
        if self._to_move == TERMINAL or player not in (None, self._to_move):
            return np.empty(0, dtype=np.int64)
        return np.array([i for i, v in enumerate(self._cells) if v == 0], dtype=np.int64)

    def apply_action(self, action: int) -> None:
        if self._to_move == TERMINAL:
            raise ValueError(f"move {action} cannot be played: the game is over")
        if not 0 <= action < 9:
            raise ValueError(f"move {action} is not a cell in [0, 9)")
        if self._cells[action]:
            raise ValueError(f"move {action} is illegal: the cell is occupied")
        self._cells[action] = self._to_move + 1
        if any(all(self._cells[i] == self._to_move + 1 for i in line) for line in _LINES):
            self._winner = self._to_move
            self._to_move = TERMINAL
        elif all(self._cells):
            self._to_move = TERMINAL
        else:
            self._to_move = 1 - self._to_move

    def clone(self) -> TicTacToeState:
        other = TicTacToeState()
        other._cells = list(self._cells)
        other._to_move = self._to_move
        other._winner = self._winner
        return other

    def returns(self) -> np.ndarray:
        if self._to_move != TERMINAL or self._winner < 0:
            return np.zeros(2)
        out = -np.ones(2)
        out[self._winner] = 1.0
        return out

    def action_to_string(self, action: int) -> str:
        return f"{'abc'[action % 3]}{3 - action // 3}"

    def string_to_action(self, text: str) -> int:
        t = text.strip().lower()
        if len(t) != 2 or t[0] not in "abc" or t[1] not in "123":
            raise ValueError(f"{text!r} is not a tic-tac-toe cell (a1..c3)")
        return (3 - int(t[1])) * 3 + "abc".index(t[0])

    def key(self) -> int:
        k = self._to_move + 1
        for v in self._cells:
            k = k * 3 + v
        return k

    def __str__(self) -> str:
        return "\n".join("".join(_MARKS[v] for v in self._cells[r * 3:r * 3 + 3]) for r in range(3))


class TicTacToeGame(Game):
    name = "tictactoe"
    num_players = 2
    num_actions = 9
    max_game_length = 9

    def new_initial_state(self, seed: Seed = None) -> TicTacToeState:
        return TicTacToeState()
