"""Players: anything that picks a move (searches, random, later networks and engines)."""

from .base import Player, RandomPlayer
from .factory import PRESETS, make_player, resolve_spec
from .search_players import DepthFirstPlayer, MCTSPlayer

__all__ = ["Player", "RandomPlayer", "MCTSPlayer", "DepthFirstPlayer", "PRESETS", "make_player",
           "resolve_spec"]
