"""Players: anything that picks a move: random, MCTS and depth-first searches, network players
(kind ``alphazero``), external GTP engines (gtp_player.py), GDL games' UCT (ggp_uct.py) and the
Daihinmin clients: the standard one (daihinmin_default_client.py) and the Monte Carlo one
(daihinmin_mc.py) with its playout policies (daihinmin_playouts.py); all made by
:func:`make_player` (table clients by ``factory.make_client``) from one spec language."""

from .base import Player, RandomPlayer
from .factory import PRESETS, make_player, resolve_spec
from .search_players import DepthFirstPlayer, MCTSPlayer

__all__ = ["Player", "RandomPlayer", "MCTSPlayer", "DepthFirstPlayer", "PRESETS", "make_player",
           "resolve_spec"]
