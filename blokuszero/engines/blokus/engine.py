"""Blokus over GTP in Pentobi's dialect: any Player served as an engine.

Pentobi's conventions for classic 4-colour Blokus (``pentobi_gtp/Pentobi-GTP.md`` of Pentobi):
colours are ``1``-``4`` (Blue, Yellow, Red, Green; we also take the names), moves are written as
in Pentobi's SGF files (squares joined by commas, e.g. ``a20,b20``), ``genmove`` answers ``pass``
when the colour cannot move, and ``final_score`` lists each colour's points: squares on the board
plus the bonuses (15 for all pieces, 5 more if the last was the monomino), which is the advanced
score plus 89.
"""

from __future__ import annotations

from collections.abc import Callable

from ... import __version__
from ...games.blokus import tables as T
from ...games.blokus.game import BlokusState
from ...games.blokus.notation import placement_to_string, string_to_placement
from ...players.base import Player
from ...protocols.gtp import GtpEngine, GtpError, expect_arguments, no_arguments

_COLOUR_WORDS = {**{str(i + 1): i for i in range(T.NUM_COLORS)},
                 **{name.lower(): i for i, name in enumerate(T.COLOR_NAMES)}}


def parse_colour(text: str) -> int:
    """Colour index 0-3 of ``1``-``4`` or ``blue``/``yellow``/``red``/``green`` (any case)."""
    colour = _COLOUR_WORDS.get(text.lower())
    if colour is None:
        raise GtpError(f"invalid color {text!r}: expected 1-4 or blue, yellow, red, green")
    return colour


class BlokusGtpEngine(GtpEngine):
    """Serves a Blokus player over GTP. ``make_player(seed)`` builds it; ``set_random_seed``
    rebuilds it with the new seed, so that a seeded engine plays the same moves every time."""

    def __init__(self, make_player: Callable[[int], Player], seed: int = 0, name: str = "BlokusZero") -> None:
        self.make_player = make_player
        self.player = make_player(seed)
        self.state = BlokusState()
        self.engine_name = name
        super().__init__({
            "name": no_arguments("name", lambda: self.engine_name),
            "version": no_arguments("version", lambda: __version__),
            "clear_board": no_arguments("clear_board", self._clear_board),
            "play": self._play,
            "genmove": self._genmove,
            "all_legal": self._all_legal,
            "final_score": no_arguments("final_score", self._final_score),
            "showboard": no_arguments("showboard", self._showboard),
            "set_random_seed": self._set_random_seed,
        })

    def _clear_board(self) -> str:
        self.state = BlokusState()
        self.player.reset()
        return ""

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

    def _genmove(self, args: list[str]) -> str:
        colour = parse_colour(expect_arguments(args, 1, "genmove <color>")[0])
        if len(self.state.legal_actions(colour)) == 0:
            return "pass"
        state = self.state
        if colour != state.current_player():
            state = BlokusState.from_moves(state.history(), to_move=colour)
        move = self.player.choose_action(state)
        self._place(colour, move)
        return placement_to_string(move)

    def _all_legal(self, args: list[str]) -> str:
        colour = parse_colour(expect_arguments(args, 1, "all_legal <color>")[0])
        return "\n".join(placement_to_string(int(m)) for m in self.state.legal_actions(colour))

    def _final_score(self) -> str:
        return " ".join(str(int(s) + T.TOTAL_SQUARES) for s in self.state.scores())

    def _showboard(self) -> str:
        points = ", ".join(f"{name} {int(s) + T.TOTAL_SQUARES}"
                           for name, s in zip(T.COLOR_NAMES, self.state.scores()))
        return f"\n{self.state}\npoints: {points}"

    def _set_random_seed(self, args: list[str]) -> str:
        text = expect_arguments(args, 1, "set_random_seed <n>")[0]
        if not text.isdigit():
            raise GtpError(f"invalid seed {text!r}: expected a non-negative integer")
        self.player = self.make_player(int(text))
        return ""
