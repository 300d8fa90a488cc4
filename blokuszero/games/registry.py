"""Games by name, for configuration files and command lines."""

from __future__ import annotations

from .base import Game


def make_game(name: str, **options) -> Game:
    """A game by its name: ``blokus``, ``tictactoe``, ``go`` (options ``size``, ``komi``,
    ``ko_rule``; ``go9``, ``go13``, ``go19`` name the usual sizes), ``daihinmin`` (options
    ``rules``, ``first_game``), ``kuhn_poker`` (option ``num_players``, 3 by default) or
    ``prisoners_dilemma`` (option ``rounds``)."""
    if name == "blokus":
        from .blokus import BlokusGame

        return BlokusGame()
    if name == "tictactoe":
        from .tictactoe import TicTacToeGame

        return TicTacToeGame()
    if name in ("go", "go9", "go13", "go19"):
        from .go import GoGame

        return GoGame(**{"size": int(name[2:] or 9), **options})
    if name == "daihinmin":
        from .daihinmin import DaihinminGame

        return DaihinminGame(**options)
    if name == "kuhn_poker":
        from .kuhn import KuhnGame

        return KuhnGame(**options)
    if name == "prisoners_dilemma":
        from .matrix import MatrixGame

        return MatrixGame(**options)
    raise ValueError(f"unknown game {name!r}; known: blokus, tictactoe, go, go9, go13, go19, "
                     f"daihinmin, kuhn_poker, prisoners_dilemma")
