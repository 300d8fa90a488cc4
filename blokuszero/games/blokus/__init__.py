"""Classic 4-colour Blokus: rules in numba, Pentobi notation and SGF, board symmetries."""

from .game import BlokusGame, BlokusState

__all__ = ["BlokusGame", "BlokusState"]
