"""Games by name, for configuration files and command lines."""

from __future__ import annotations

from .base import Game


def make_game(name: str) -> Game:
    """A game by its name: ``blokus`` or ``tictactoe``."""
    if name == "blokus":
        from .blokus import BlokusGame

        return BlokusGame()
    if name == "tictactoe":
        from .tictactoe import TicTacToeGame

        return TicTacToeGame()
    raise ValueError(f"unknown game {name!r}; known: blokus, tictactoe")
