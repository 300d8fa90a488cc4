"""Blokus over GTP in Pentobi's dialect: any Player served as an engine.

Pentobi's conventions for classic 4-colour Blokus (``pentobi_gtp/Pentobi-GTP.md`` of Pentobi):
colours are ``1``-``4`` (Blue, Yellow, Red, Green; we also take the names), moves are written as
in Pentobi's SGF files (squares joined by commas, e.g. ``a20,b20``), ``genmove`` answers ``pass``
when the colour cannot move, and ``final_score`` lists each colour's points: squares on the board
plus the bonuses (15 for all pieces, 5 more if the last was the monomino), which is the advanced
score plus 89.

Besides the standard commands it answers what Pentobi's controllers send (its ``twogtp``
sends ``set_game Blokus``, ``clear_board``, ``cputime``, ``genmove``/``play``, ``quit``):
``set_game``, ``cputime``, ``undo``, ``reg_genmove``, ``loadsgf``/``savesgf`` (Pentobi SGF),
``g``/``p`` (genmove/play for the colour to move), ``get_place``, ``get_value`` (the last search's
win estimate, 0-1), ``param`` (the player's options, and Pentobi's ``fixed_simulations``,
``use_book``, ``avoid_symmetric_draw``) and ``param_base`` (``resign``, ``accept_illegal``). A
refused command answers ``? reason`` and leaves the game as it was.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from ... import __version__
from ...games.blokus import tables as T
from ...games.blokus.game import BlokusGame, BlokusState
from ...games.blokus.notation import placement_to_string, string_to_placement
from ...games.blokus.sgf import GAME_NAME, read_sgf, write_sgf
from ...players.factory import PlayerSpec, change_options, make_player, resolve_player
from ...protocols.gtp import GtpEngine, GtpError, expect_arguments, no_arguments
from ...search import time_manager

_COLOUR_WORDS = {**{str(i + 1): i for i in range(T.NUM_COLORS)},
                 **{name.lower(): i for i, name in enumerate(T.COLOR_NAMES)}}


def parse_colour(text: str) -> int:
    """Colour index 0-3 of ``1``-``4`` or ``blue``/``yellow``/``red``/``green`` (any case)."""
    colour = _COLOUR_WORDS.get(text.lower())
    if colour is None:
        raise GtpError(f"invalid color {text!r}: expected 1-4 or blue, yellow, red, green")
    return colour


def _flag(key: str, text: str) -> bool:
    """A Pentobi boolean parameter value: ``0`` or ``1``."""
    if text not in ("0", "1"):
        raise GtpError(f"invalid value {text!r} for {key}: expected 0 or 1")
    return text == "1"


def _format_value(value: Any) -> str:
    """An option's value as ``param`` lists it and takes it back (YAML: 0.2, maxn, null)."""
    return yaml.safe_dump(value, default_flow_style=True).strip().removesuffix("...").strip()


class BlokusGtpEngine(GtpEngine):
    """Serves the player of ``spec`` (a player spec, see :mod:`blokuszero.players.factory`,
    or one resolved already) over GTP. ``set_random_seed`` rebuilds it with the new seed, so that
    a seeded engine plays the same moves every time; ``param KEY VALUE`` rebuilds it with the
    option changed (its checkpoint not read again)."""

    def __init__(self, spec: Mapping[str, Any] | PlayerSpec, seed: int = 0, name: str = "BlokusZero") -> None:
        self.game = BlokusGame()
        self.player_spec = resolve_player(spec)  # ValueError names a bad option before any command
        self.seed = seed
        self.player = make_player(self.game, self.player_spec, seed)
        self.state = BlokusState()
        self.setup = 0  # placements of a loaded set-up position, which undo does not take back
        self.engine_name = name
        self.last_mover: int | None = None  # the colour of the last generated move (get_value)
        self.avoid_symmetric_draw = True  # Pentobi's default; no effect with four colours
        self.resign = True  # Pentobi's default; four-colour games are never resigned, as in Pentobi
        super().__init__({
            "name": no_arguments("name", lambda: self.engine_name),
            "version": no_arguments("version", lambda: __version__),
            "clear_board": no_arguments("clear_board", self._clear_board),
            "set_game": self._set_game,
            "play": self._play,
            "p": lambda args: self._play([self._colour_to_move("p"), *expect_arguments(args, 1, "p <move>")]),
            "genmove": lambda args: self._genmove(args, "genmove", play=True),
            "reg_genmove": lambda args: self._genmove(args, "reg_genmove", play=False),
            "g": no_arguments("g", self._g),
            "undo": no_arguments("undo", self._undo),
            "all_legal": self._all_legal,
            "final_score": no_arguments("final_score", self._final_score),
            "get_place": self._get_place,
            "showboard": no_arguments("showboard", self._showboard),
            "loadsgf": self._loadsgf,
            "savesgf": self._savesgf,
            "cputime": no_arguments("cputime", lambda: f"{time_manager.CPU_CLOCK():.3f}"),
            "set_random_seed": self._set_random_seed,
            "get_value": no_arguments("get_value", self._get_value),
            "param": self._param,
            "param_base": self._param_base,
        })

    @property
    def spec(self) -> Mapping[str, Any]:
        """The player's options: its preset's and its spec's own, resolved (read-only)."""
        return self.player_spec.options

    def _set_position(self, state: BlokusState, setup: int = 0) -> None:
        """Replace the game by ``state``; the player starts over and is told every move."""
        self.state, self.setup = state, setup
        self.player.reset()
        for colour, move in state.history():
            self.player.inform(move, colour)

    def _clear_board(self) -> str:
        self._set_position(BlokusState())
        return ""

    def _set_game(self, args: list[str]) -> str:
        # The variant is Pentobi's SGF game name, which may hold spaces ("Blokus Duo").
        variant = " ".join(args)
        if variant != GAME_NAME:
            raise GtpError(f"unsupported game variant {variant!r}: this engine plays classic "
                           f"4-colour Blokus only ({GAME_NAME!r})")
        return self._clear_board()

    def _colour_to_move(self, command: str) -> str:
        """The colour to move, as an argument for ``p`` / ``g``; GtpError once the game is over."""
        colour = self.state.current_player()
        if colour < 0:
            raise GtpError(f"{command}: the game is over, no colour is to move")
        return str(colour + 1)

    def _place(self, colour: int, move: int) -> None:
        # Pentobi lets any colour play, not only the one to move; the next colour after it
        # (that can move) is then to move. Both calls leave the state as it was if illegal.
        if colour == self.state.current_player():
            self.state.apply_action(move)
        else:
            self.state.apply_action_for(colour, move, (colour + 1) % T.NUM_COLORS)
        self.player.inform(move, colour)

    def _play(self, args: list[str]) -> str:
        colour_text, move_text = expect_arguments(args, 2, "play <color> <move>")
        colour = parse_colour(colour_text)
        if move_text.lower() == "pass":
            if len(self.state.legal_actions(colour)):
                raise GtpError(f"{T.COLOR_NAMES[colour]} cannot pass: it has legal moves")
            return ""
        self._place(colour, string_to_placement(move_text))
        return ""

    def _genmove(self, args: list[str], command: str, play: bool) -> str:
        colour = parse_colour(expect_arguments(args, 1, f"{command} <color>")[0])
        if len(self.state.legal_actions(colour)) == 0:
            return "pass"
        state = self.state
        if colour != state.current_player():
            state = BlokusState.from_moves(state.history(), to_move=colour)
        self.last_mover = None  # until the search has answered
        move = self.player.choose_action(state)
        self.last_mover = colour
        if play:
            self._place(colour, move)
        return placement_to_string(move)

    def _g(self) -> str:
        # Once the game is over no colour can move: Pentobi then answers pass.
        if self.state.is_terminal():
            return "pass"
        return self._genmove([self._colour_to_move("g")], "g", play=True)

    def _undo(self) -> str:
        history = self.state.history()
        if len(history) <= self.setup:
            raise GtpError("cannot undo: no move has been played" + (
                " since the loaded set-up position" if self.setup else ""))
        # The colour of the undone move is to move again, as in Pentobi.
        self._set_position(BlokusState.from_moves(history[:-1], to_move=history[-1][0]), self.setup)
        return ""

    def _loadsgf(self, args: list[str]) -> str:
        if len(args) not in (1, 2):
            raise GtpError("syntax error: expected loadsgf <file> [<move_number>]")
        before_move = None
        if len(args) == 2:
            if not args[1].isdigit():
                raise GtpError(f"invalid move number {args[1]!r}: expected a positive integer")
            before_move = int(args[1])
        try:
            text = Path(args[0]).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            raise GtpError(f"cannot read {args[0]}: {err}") from None
        state = read_sgf(text, before_move)
        # The set-up placements are those in place before the first move.
        self._set_position(state, len(read_sgf(text, 1).history()))
        return ""

    def _savesgf(self, args: list[str]) -> str:
        path = expect_arguments(args, 1, "savesgf <file>")[0]
        try:
            Path(path).write_text(write_sgf(self.state, setup=self.setup), encoding="utf-8")
        except OSError as err:
            raise GtpError(f"cannot write {path}: {err}") from None
        return ""

    def _all_legal(self, args: list[str]) -> str:
        colour = parse_colour(expect_arguments(args, 1, "all_legal <color>")[0])
        return "\n".join(placement_to_string(int(m)) for m in self.state.legal_actions(colour))

    def _final_score(self) -> str:
        return " ".join(str(int(s) + T.TOTAL_SQUARES) for s in self.state.scores())

    def _get_place(self, args: list[str]) -> str:
        colour = parse_colour(expect_arguments(args, 1, "get_place <color>")[0])
        scores = self.state.scores()
        # Place 1 is the highest score; colours with equal scores share the place.
        place = 1 + int((scores > scores[colour]).sum())
        shared = int((scores == scores[colour]).sum()) > 1
        return f"{place}{' shared' if shared else ''}"

    def _showboard(self) -> str:
        points = ", ".join(f"{name} {int(s) + T.TOTAL_SQUARES}"
                           for name, s in zip(T.COLOR_NAMES, self.state.scores()))
        return f"\n{self.state}\npoints: {points}"

    def _rebuild(self, spec: PlayerSpec, seed: int) -> None:
        """A new player from ``spec`` and ``seed``, told the moves of the game so far."""
        player = make_player(self.game, spec, seed)  # may raise: then nothing has changed
        self.player.close()
        self.player, self.player_spec, self.seed, self.last_mover = player, spec, seed, None
        for colour, move in self.state.history():
            self.player.inform(move, colour)

    def _set_random_seed(self, args: list[str]) -> str:
        text = expect_arguments(args, 1, "set_random_seed <n>")[0]
        if not text.isdigit():
            raise GtpError(f"invalid seed {text!r}: expected a non-negative integer")
        self._rebuild(self.player_spec, int(text))
        return ""

    def _get_value(self) -> str:
        # Pentobi answers the root value of its last search, a win estimate in 0..1 for the colour
        # of the last generated move; ours is that colour's mean value at the root, mapped from
        # the evaluator's scale (loss .. win or shared first place) onto 0..1.
        result = getattr(self.player, "last_result", None)
        if self.last_mover is None or result is None:
            raise GtpError("no search value: get_value follows a genmove or reg_genmove answered "
                           f"by a search (this engine's player is {self.player_spec.kind.name!r})")
        value = float(result.root_value[self.last_mover])
        if np.isnan(value):
            raise GtpError("no search value: the last search ran no simulation")
        low, high = self.player.mcts.evaluator.value_bounds
        return f"{(value - low) / (high - low):.4g}"

    def _param(self, args: list[str]) -> str:
        # Pentobi's generally useful parameters, then the player's own options (its spec).
        options = self.spec
        if not args:
            listed = {"avoid_symmetric_draw": int(self.avoid_symmetric_draw), "use_book": 0}
            if "simulations" in options:
                listed["fixed_simulations"] = options["simulations"]
            listed.update({k: v for k, v in options.items() if k != "kind"})
            return "\n".join(f"{key} {_format_value(value)}" for key, value in listed.items())
        key, text = expect_arguments(args, 2, "param [<key> <value>]")
        if key == "avoid_symmetric_draw":  # only two-colour variants can be drawn symmetrically
            self.avoid_symmetric_draw = _flag(key, text)
            return ""
        if key == "use_book":
            if _flag(key, text):
                raise GtpError("use_book 1: this engine has no opening book")
            return ""
        if key == "fixed_simulations":
            key = "simulations"
        # Any option of the player's kind, also one its preset leaves unset (time_limit, mix_lambda).
        if key == "kind" or key not in set(options) | self.player_spec.kind.options:
            known = ["avoid_symmetric_draw", "use_book", *(["fixed_simulations"] if "simulations" in options else []),
                     *(k for k in options if k != "kind")]
            raise GtpError(f"unknown parameter {args[0]!r} for a {self.player_spec.kind.name} player; known: "
                           f"{', '.join(known)} and the player's other options "
                           f"(blokuszero/players/factory.py)")
        try:
            value = yaml.safe_load(text)
        except yaml.YAMLError:
            raise GtpError(f"invalid value {text!r} for {key}") from None
        self._rebuild(change_options(self.player_spec, **{key: value}), self.seed)  # ValueError names what is wrong
        return ""

    def _param_base(self, args: list[str]) -> str:
        if not args:
            return f"accept_illegal 0\nresign {int(self.resign)}"
        key, text = expect_arguments(args, 2, "param_base [<key> <value>]")
        if key == "resign":  # four-colour games are played out: genmove never answers resign
            self.resign = _flag(key, text)
        elif key == "accept_illegal":
            if _flag(key, text):
                raise GtpError("accept_illegal 1: this engine refuses moves against the rules")
        else:
            raise GtpError(f"unknown parameter {key!r}; known: accept_illegal, resign")
        return ""
