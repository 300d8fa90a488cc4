"""Games by name: one spec per game family (its names, how it is made, its network encoder and
its record format), read by configuration files, command lines, training and the match layer.

A spec names what it makes by import path (``module:name``), imported on use: importing the
registry imports no game, so no numba kernel compiles and no torch loads for a game not played.
"""

from __future__ import annotations

import functools
import importlib
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .base import Game, State
from .encoding import Encoder


def _load(path: str) -> Any:
    """The object at ``module:name``, its module imported."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


@dataclass(frozen=True)
class RecordFormat:
    """How a family's played games are stored: the file suffix, and the writer (``module:function``,
    called as :meth:`write`)."""

    suffix: str
    writer: str

    def write(self, game: Game, state: State, moves: Sequence[tuple[int, int]], seating: Sequence[str],
              comment: str, result: str | None) -> str:
        """The record of a game played to ``state``: ``moves`` as (player, action) pairs, the
        players by seat, a comment, and ``result`` when a referee or a resignation decided it."""
        return _load(self.writer)(game, state, moves, seating, comment, result)


def _construct(cls: type[Game], name: str, options: dict[str, Any]) -> Game:
    return cls(**options)


def _construct_ignoring_options(cls: type[Game], name: str, options: dict[str, Any]) -> Game:
    return cls()  # a game without options; conf/game/'s shared ``rules: null`` reaches it too


def _own_name(game: Game) -> str:
    return game.name


@dataclass(frozen=True)
class GameSpec:
    """One game family: the names that make it, its Game class, its encoder and record format."""

    names: str  # the family's names as an error lists them
    pattern: str  # a regular expression that the family's names match in full
    game: str  # ``module:Class`` of its Game
    make: Callable[[type[Game], str, dict[str, Any]], Game] = _construct  # (class, name, options) -> Game
    encoder: str | None = None  # ``module:Class`` of its network Encoder (made from the game), if any
    encoder_name: Callable[[Game], str] = _own_name  # the name make_encoder rebuilds the encoder from
    record: RecordFormat | None = None  # how the arena stores its games, if it does

    def make_game(self, name: str, **options) -> Game:
        """The game called ``name`` (one of this family's) with ``options``."""
        return self.make(_load(self.game), name, options)

    def owns(self, game: Game) -> bool:
        """Whether ``game`` is of this family, by its class (a GDL game is named after its file)."""
        module, _, cls = self.game.partition(":")
        loaded = sys.modules.get(module)  # not imported: no game of the family exists
        return loaded is not None and isinstance(game, getattr(loaded, cls))


def _make_go(cls: type[Game], name: str, options: dict[str, Any]) -> Game:
    return cls(**{"size": int(name[2:] or 9), **options})  # goN: N x N; go: 9 x 9


def _go_encoder_name(game: Game) -> str:
    return f"go{game.size}"  # the encoding depends on the board size, not on komi or the ko rule


def _make_ggp(cls: type[Game], name: str, options: dict[str, Any]) -> Game:
    if name.startswith("ggp:"):
        return _ggp_game(cls, name[4:], tuple(sorted(options.items())))
    rules = options.pop("rules", None)  # the rules as an option: conf/game/ggp.yaml's game.rules
    if not rules:
        raise ValueError("game ggp needs its rules: a GDL description (.kif), e.g. game.rules=connectfour.kif")
    return _ggp_game(cls, str(rules), tuple(sorted(options.items())))


@functools.lru_cache(maxsize=8)
def _ggp_game(cls: type[Game], path: str, options: tuple) -> Game:
    # Cached: compiling a description takes seconds, and an arena makes the game per game played.
    return cls.from_file(path, **dict(options))


#: Every game family, in the order errors list them.
SPECS: tuple[GameSpec, ...] = (
    GameSpec("blokus", "blokus", "blokuszero.games.blokus:BlokusGame", make=_construct_ignoring_options,
             encoder="blokuszero.games.blokus.encoder:BlokusEncoder",
             record=RecordFormat(".blksgf", "blokuszero.games.blokus.sgf:write_record")),
    GameSpec("tictactoe", "tictactoe", "blokuszero.games.tictactoe:TicTacToeGame",
             make=_construct_ignoring_options),
    GameSpec("go, goN (N x N: go9, go13, go19, ...)", r"go\d*", "blokuszero.games.go:GoGame", make=_make_go,
             encoder="blokuszero.games.go.encoder:GoEncoder", encoder_name=_go_encoder_name,
             record=RecordFormat(".sgf", "blokuszero.games.go.sgf:write_record")),
    GameSpec("daihinmin", "daihinmin", "blokuszero.games.daihinmin:DaihinminGame"),
    GameSpec("kuhn_poker", "kuhn_poker", "blokuszero.games.kuhn:KuhnGame"),
    GameSpec("prisoners_dilemma", "prisoners_dilemma", "blokuszero.games.matrix:MatrixGame"),
    GameSpec("ggp:RULES.kif", r"ggp(:.*)?", "blokuszero.games.ggp:GgpGame", make=_make_ggp),
)


def game_spec(name: str) -> GameSpec:
    """The spec of the family that game name ``name`` belongs to; ValueError for an unknown name."""
    for spec in SPECS:
        if re.fullmatch(spec.pattern, name):
            return spec
    raise ValueError(f"unknown game {name!r}; known: {', '.join(spec.names for spec in SPECS)}")


def spec_of(game: Game) -> GameSpec | None:
    """The spec of ``game``'s family; None for a game no spec makes (tests' toy games)."""
    return next((spec for spec in SPECS if spec.owns(game)), None)


def record_format(game: Game) -> RecordFormat | None:
    """How the arena stores ``game``'s played games (SGF for Blokus and Go); None for others."""
    spec = spec_of(game)
    return None if spec is None else spec.record


def make_game(name: str, **options) -> Game:
    """A game by its name: ``blokus``, ``tictactoe``, ``go`` (options ``size``, ``komi``,
    ``ko_rule``; ``goN`` names size N: ``go9``, ``go13``, ``go19``), ``daihinmin`` (options
    ``rules``, ``first_game``), ``kuhn_poker`` (option ``num_players``, 3 by default),
    ``prisoners_dilemma`` (option ``rounds``) or ``ggp:RULES.kif`` (a GDL description; options
    ``reasoner``, ``max_game_length``; ``ggp`` with option ``rules`` likewise)."""
    return game_spec(name).make_game(name, **options)


def _with_encoder(spec: GameSpec | None, game: Game | str) -> GameSpec:
    if spec is None or spec.encoder is None:
        name = game if isinstance(game, str) else game.name
        known = ", ".join(spec.names for spec in SPECS if spec.encoder)
        raise ValueError(f"game {name!r} has no network encoder; games with one: {known}")
    return spec


def encoder_name(game: Game) -> str:
    """The name :func:`make_encoder` rebuilds ``game``'s encoder from (what a network stores):
    the game and its board size; options that leave the encoding alone (komi) are not in it."""
    return _with_encoder(spec_of(game), game).encoder_name(game)


def make_encoder(game: Game | str) -> Encoder:
    """The network encoder of ``game`` (a Game, or a name as for :func:`make_game`): ``blokus``
    and ``go`` (any size) have one; ValueError for a game without (made only if it has one)."""
    if isinstance(game, str):
        spec = _with_encoder(game_spec(game), game)
        game = spec.make_game(game)
    else:
        spec = _with_encoder(spec_of(game), game)
    return _load(spec.encoder)(game)
