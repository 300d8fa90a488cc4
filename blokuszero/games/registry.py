"""Games by name, for configuration files and command lines."""

from __future__ import annotations

import functools

from .base import Game
from .encoding import Encoder


def make_game(name: str, **options) -> Game:
    """A game by its name: ``blokus``, ``tictactoe``, ``go`` (options ``size``, ``komi``,
    ``ko_rule``; ``goN`` names size N: ``go9``, ``go13``, ``go19``), ``daihinmin`` (options
    ``rules``, ``first_game``), ``kuhn_poker`` (option ``num_players``, 3 by default),
    ``prisoners_dilemma`` (option ``rounds``) or ``ggp:RULES.kif`` (a GDL description; options
    ``reasoner``, ``max_game_length``; ``ggp`` with option ``rules`` likewise)."""
    if name == "blokus":
        from .blokus import BlokusGame

        return BlokusGame()
    if name == "tictactoe":
        from .tictactoe import TicTacToeGame

        return TicTacToeGame()
    if name == "go" or (name.startswith("go") and name[2:].isdigit()):
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
    if name.startswith("ggp:"):
        return _ggp_game(name[4:], tuple(sorted(options.items())))
    if name == "ggp":  # the rules as an option: conf/game/ggp.yaml's game.rules
        rules = options.pop("rules", None)
        if not rules:
            raise ValueError("game ggp needs its rules: a GDL description (.kif), e.g. game.rules=connectfour.kif")
        return _ggp_game(str(rules), tuple(sorted(options.items())))
    raise ValueError(f"unknown game {name!r}; known: blokus, tictactoe, go, goN (N x N: go9, go13, "
                     f"go19, ...), daihinmin, kuhn_poker, prisoners_dilemma, ggp:RULES.kif")


@functools.lru_cache(maxsize=8)
def _ggp_game(path: str, options: tuple) -> Game:
    # Cached: compiling a description takes seconds, and an arena makes the game per game played.
    from .ggp import GgpGame

    return GgpGame.from_file(path, **dict(options))


def encoder_name(game: Game) -> str:
    """The name :func:`make_encoder` rebuilds ``game``'s encoder from (what a network stores):
    the game and its board size; options that leave the encoding alone (komi) are not in it."""
    return f"go{game.size}" if game.name == "go" else game.name


def make_encoder(game: Game | str) -> Encoder:
    """The network encoder of ``game`` (a Game, or a name as for :func:`make_game`): ``blokus``
    and ``go`` (any size) have one; ValueError for a game without."""
    if isinstance(game, str):
        if game.startswith("ggp"):  # not compiled only to be refused
            raise ValueError(f"game {game!r} has no network encoder; games with one: blokus, go")
        game = make_game(game)
    if game.name == "blokus":
        from .blokus.encoder import BlokusEncoder

        return BlokusEncoder(game)
    if game.name == "go":
        from .go.encoder import GoEncoder

        return GoEncoder(game)
    raise ValueError(f"game {game.name!r} has no network encoder; games with one: blokus, go")
