"""Tic-tac-toe's rules by hand (its conformance check: tests/test_games_conformance.py)."""

from __future__ import annotations

import pytest

from blokuszero.games.tictactoe import TicTacToeGame


def test_win_and_draw():
    state = TicTacToeGame().new_initial_state()
    for cell in (0, 3, 1, 4, 2):  # x completes the top row
        state.apply_action(cell)
    assert state.is_terminal() and state.returns().tolist() == [1.0, -1.0]
    state = TicTacToeGame().new_initial_state()
    for cell in (0, 1, 2, 4, 3, 5, 7, 6, 8):
        state.apply_action(cell)
    assert state.is_terminal() and state.returns().tolist() == [0.0, 0.0]


def test_errors():
    state = TicTacToeGame().new_initial_state()
    state.apply_action(4)
    with pytest.raises(ValueError, match="occupied"):
        state.apply_action(4)
    with pytest.raises(ValueError, match="not a tic-tac-toe cell"):
        state.string_to_action("d4")
