"""Pentobi's Blokus SGF game files (``.blksgf``), read and written.

Format (Pentobi's ``libpentobi_base/Pentobi-SGF.md``): an SGF 4 game tree with
``GM[Blokus]``; each move node holds one property ``1`` .. ``4`` (Blue, Yellow, Red, Green)
whose value is the move in Pentobi notation. The root may set up a position with
``A1`` .. ``A4`` (pieces per colour, several values) and ``PL`` (colour to play).
Only the main line (the first variation at every branch) is read; the SGF syntax itself is
:mod:`blokuszero.games.sgf`'s, shared with Go.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..sgf import read_main_line, write_game
from . import tables as T
from .game import BlokusGame, BlokusState
from .notation import placement_to_string, string_to_placement

GAME_NAME = "Blokus"
_MOVE_PROPS = ("1", "2", "3", "4")
_SETUP_PROPS = ("A1", "A2", "A3", "A4")


def write_sgf(state: BlokusState, properties: Mapping[str, str] | None = None, setup: int = 0) -> str:
    """The moves that led to ``state`` as a Blokus SGF game.

    ``properties`` adds root properties (e.g. ``{"GC": "seed 7", "RE": "..."}``). The first
    ``setup`` placements (a position set up in any colour order, as :func:`read_sgf` of a file
    with ``A1``-``A4`` builds it) go into the root as ``A1``-``A4`` with ``PL``, the rest as moves.
    """
    history = state.history()
    root: dict[str, str | list[str]] = {"GM": GAME_NAME, "FF": "4", "CA": "UTF-8", "AP": "BlokusZero"}
    if setup:
        for c, prop in enumerate(_SETUP_PROPS):
            pieces = [placement_to_string(m) for colour, m in history[:setup] if colour == c]
            if pieces:
                root[prop] = pieces
        to_move = history[setup][0] if setup < len(history) else state.current_player()
        if to_move >= 0:
            root["PL"] = _MOVE_PROPS[to_move]
    root.update(properties or {})
    return write_game(root, ({_MOVE_PROPS[c]: placement_to_string(m)} for c, m in history[setup:]))


def write_record(game: BlokusGame, state: BlokusState, moves: Sequence[tuple[int, int]],
                 seating: Sequence[str], comment: str, result: str | None) -> str:
    """A played game's record (the registry's record writer): ``comment`` and the players by seat
    in the game comment. The state holds the moves, and Blokus ends by its scores: ``moves``
    and ``result`` are not needed."""
    return write_sgf(state, {"GC": f"{comment}, seats (Blue Yellow Red Green): {' '.join(seating)}"})


def read_sgf(text: str, before_move: int | None = None) -> BlokusState:
    """Replay a Blokus SGF game (main line) and return the final position, or with
    ``before_move`` the position before the main line's move of that number (1 = the first
    move after any set-up; one more than the number of moves = the final position).

    ValueError names the node and move if the file is not classic Blokus, a move is
    illegal or out of turn, or the game has no move ``before_move``.
    """
    nodes = read_main_line(text)
    root = nodes[0]
    game = root.get("GM", [GAME_NAME])[0]
    if game != GAME_NAME:
        raise ValueError(f"SGF: game {game!r} is not classic Blokus (GM[{GAME_NAME}])")
    setup = [(c, string_to_placement(v)) for c, p in enumerate(_SETUP_PROPS) for v in root.get(p, [])]
    to_move = 0
    if "PL" in root:
        pl = root["PL"][0]
        if pl not in _MOVE_PROPS:
            raise ValueError(f"SGF: PL[{pl}] is not a colour 1-4")
        to_move = _MOVE_PROPS.index(pl)
    state = BlokusState.from_moves(setup, to_move)
    played = 0
    for number, node in enumerate(nodes):
        for c, prop in enumerate(_MOVE_PROPS):
            for value in node.get(prop, []):
                played += 1
                if played == before_move:
                    return state
                try:
                    m = string_to_placement(value)
                    if state.current_player() != c:
                        mover = "nobody" if state.is_terminal() else T.COLOR_NAMES[state.current_player()]
                        raise ValueError(f"{T.COLOR_NAMES[c]} is not to move ({mover} is)")
                    state.apply_action(m)
                except ValueError as err:
                    raise ValueError(f"SGF node {number}, {prop}[{value}]: {err}") from None
    if before_move is not None and not 1 <= before_move <= played + 1:
        raise ValueError(f"SGF: the game has {played} moves, so no position before move {before_move}")
    return state
