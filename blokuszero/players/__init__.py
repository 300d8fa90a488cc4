"""Players: anything that picks a move: random, MCTS and depth-first searches (search_players.py),
network players (kind ``alphazero``, network_player.py), external GTP engines (gtp_player.py), and
in a folder per game family its own: GDL games' UCT (``ggp/``) and the Daihinmin clients
(``daihinmin/``); all made by :func:`make_player` (table clients by ``factory.make_client``) from
one spec language, the kinds by name in registry.py."""

from .base import Player, RandomPlayer
from .factory import PRESETS, make_player, resolve_spec
from .search_players import DepthFirstPlayer, MCTSPlayer

__all__ = ["Player", "RandomPlayer", "MCTSPlayer", "DepthFirstPlayer", "PRESETS", "make_player",
           "resolve_spec"]
