"""Games by name, for configuration files and command lines."""

from __future__ import annotations

import functools

from .base import Game


def make_game(name: str, **options) -> Game:
    """A game by its name: ``blokus``, ``tictactoe``, ``go`` (options ``size``, ``komi``,
    ``ko_rule``; ``go9``, ``go13``, ``go19`` name the usual sizes), or ``ggp:RULES.kif`` (a
    GDL description; options ``reasoner``, ``max_game_length``)."""
    if name == "blokus":
        from .blokus import BlokusGame

        return BlokusGame()
    if name == "tictactoe":
        from .tictactoe import TicTacToeGame

        return TicTacToeGame()
    if name in ("go", "go9", "go13", "go19"):
        from .go import GoGame

        return GoGame(**{"size": int(name[2:] or 9), **options})
    if name.startswith("ggp:"):
        return _ggp_game(name[4:], tuple(sorted(options.items())))
    raise ValueError(f"unknown game {name!r}; known: blokus, tictactoe, go, go9, go13, go19, "
                     "ggp:RULES.kif")


@functools.lru_cache(maxsize=8)
def _ggp_game(path: str, options: tuple) -> Game:
    # Cached: compiling a description takes seconds, and an arena makes the game per game played.
    from .ggp import GgpGame

    return GgpGame.from_file(path, **dict(options))
