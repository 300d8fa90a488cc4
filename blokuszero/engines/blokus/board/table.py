"""The board's game in play: which colour is a person's and which a player's, the moves so
far, undo, a player's move, the search's view of a position, and what the page draws.

Players are made by the project's factory from the specs the server was started with, one per
colour that plays, and are told every move; after an undo, a new game or a loaded file each is
reset and told the game again (a GTP engine replays it, a search forgets its tree). A player
that fails (an engine that ended or answered nonsense) is dropped with a message and made anew
for its next move.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .... import __version__
from ....games.blokus import tables as T
from ....games.blokus.game import BlokusGame, BlokusState
from ....games.blokus.notation import placement_to_string, string_to_placement
from ....games.blokus.sgf import write_sgf
from ....players.base import Player, PlayerFailure, Resign
from ....players.factory import make_player
from ....players.search_players import MCTSPlayer
from ....protocols.gtp import GtpError
from .records import GameLine, game_from_sgf

#: A seat a person plays from the page.
PERSON = "you"


def _squares(m: int) -> list[list[int]]:
    """The (x, y) squares of placement ``m``, y = 0 the bottom row."""
    return [[int(sq) % T.BOARD_SIZE, int(sq) // T.BOARD_SIZE] for sq in T.PLACEMENTS[m] if sq >= 0]


def _colours_between(first: int, stop: int) -> list[int]:
    """Colours from ``first`` up to (not including) ``stop`` in turn order."""
    out, c = [], first
    while c != stop and len(out) < T.NUM_COLORS:
        out.append(c)
        c = (c + 1) % T.NUM_COLORS
    return out


def describe(line: GameLine, ply: int) -> dict[str, Any]:
    """What the page draws of ``line`` after ``ply`` moves: the board (rows top to bottom), the
    colour to move, scores, each colour's remaining pieces, the moves with the colours that had
    to pass before them, the last move's squares, and at the end the winners."""
    state = line.position(ply)
    placed = line.start.history() + line.moves[:ply]
    remaining = [[name for p, name in enumerate(T.PIECE_NAMES)
                  if p not in {int(T.PLACEMENT_PIECE[m]) for c, m in placed if c == colour}]
                 for colour in range(T.NUM_COLORS)]
    moves, expected = [], line.start.current_player()
    for colour, m in line.moves[:ply]:
        moves.append({"colour": colour, "move": placement_to_string(m),
                      "passed": _colours_between(expected, colour) if expected >= 0 else []})
        expected = (colour + 1) % T.NUM_COLORS
    to_move = state.current_player()
    over = state.is_terminal()
    scores = state.scores()
    return {
        "board": state.board()[::-1].tolist(),
        "to_move": -1 if over else to_move,
        "passing": [] if over or not moves else _colours_between(expected, to_move),
        "scores": scores.tolist(),
        "squares": state.squares_placed().tolist(),
        "remaining": remaining,
        "moves": moves,
        "ply": ply,
        "length": len(line.moves),
        "last_move": ({"colour": line.moves[ply - 1][0], "squares": _squares(line.moves[ply - 1][1])}
                      if ply else None),
        "over": over,
        "winners": np.flatnonzero(scores == scores.max()).tolist() if over else [],
        "players": line.players,
        "title": line.title,
    }


def top_moves(result, mover: int, count: int) -> list[dict[str, Any]]:
    """The ``count`` most visited root moves of a search result for ``mover``: move, squares,
    visits, visit share and mean value for the mover (-1 a sure loss, +1 a sure win)."""
    rows = np.flatnonzero(result.movers == mover)
    total = max(int(result.visits[rows].sum()), 1)
    best = rows[np.argsort(-result.visits[rows], kind="stable")][:count]
    return [{"move": placement_to_string(int(result.actions[k])), "squares": _squares(int(result.actions[k])),
             "visits": int(result.visits[k]), "share": float(result.visits[k]) / total,
             "value": None if np.isnan(result.values[k, mover]) else float(result.values[k, mover])}
            for k in best if result.visits[k] > 0]


class Table:
    """One game at a time, a person at the page against the server's players.

    ``players``: name -> player spec (checked by the caller); ``seats``: per colour
    :data:`PERSON` or a player's name; ``analyst``: the player whose search analyses positions
    (an MCTS or network player), or None.
    """

    def __init__(self, players: Mapping[str, Mapping[str, Any]], seats: Sequence[str],
                 analyst: str | None = None, seed: int = 0) -> None:
        self.game = BlokusGame()
        self.specs = dict(players)
        self.analyst_name = analyst
        self.seed = seed
        self._analyst: MCTSPlayer | None = None
        self._players: dict[int, tuple[str, Player]] = {}
        self.seats = self._check_seats(seats)
        self.line = GameLine(BlokusState(), [], "", list(self.seats))
        self.state = BlokusState()

    def _check_seats(self, seats: Sequence[str]) -> list[str]:
        seats = [str(s) for s in seats]
        if len(seats) != T.NUM_COLORS:
            raise ValueError(f"seats: one per colour ({', '.join(T.COLOR_NAMES)}), not {len(seats)}")
        for colour, seat in zip(T.COLOR_NAMES, seats):
            if seat != PERSON and seat not in self.specs:
                raise ValueError(f"{colour}: unknown player {seat!r}; this board offers {PERSON!r} and "
                                 f"{', '.join(map(repr, self.specs)) or 'no player'} (players come only "
                                 f"from the server's command line)")
        return seats

    # --- what the page sees -------------------------------------------------------------
    def view(self) -> dict[str, Any]:
        """:func:`describe` of the game so far, with the seats and whose move the page waits for."""
        out = describe(self.line, len(self.line.moves))
        to_move = out["to_move"]
        out.update(seats=self.seats, players=self.seats,
                   waiting_for=("game over" if to_move < 0 else
                                PERSON if self.seats[to_move] == PERSON else "player"))
        return out

    # --- moves --------------------------------------------------------------------------
    def play(self, colour: int, text: str) -> None:
        """A person's move for ``colour`` in Pentobi notation; ValueError (the rules' reason)
        for a move out of turn, on a player's seat or illegal."""
        if not 0 <= colour < T.NUM_COLORS:
            raise ValueError(f"colour {colour} is not one of 0-3 ({', '.join(T.COLOR_NAMES)})")
        to_move = self.state.current_player()
        if to_move < 0:
            raise ValueError("the game is over: no more moves")
        if colour != to_move:
            raise ValueError(f"it is {T.COLOR_NAMES[to_move]}'s turn, not {T.COLOR_NAMES[colour]}'s")
        if self.seats[colour] != PERSON:
            raise ValueError(f"{T.COLOR_NAMES[colour]} is played by {self.seats[colour]!r}, not from the page")
        self._apply(colour, string_to_placement(text))

    def _apply(self, colour: int, m: int) -> None:
        self.state.apply_action(m)  # ValueError with the rules' reason; the state is unchanged then
        self.line.moves.append((colour, m))
        for _, player in self._players.values():
            player.inform(m, colour)

    def player_move(self) -> str:
        """Let the player of the colour to move play; returns its move. ValueError if a person
        is to move or the game is over; RuntimeError (saying which engine and why) if the
        player failed, which is then dropped."""
        colour = self.state.current_player()
        if colour < 0:
            raise ValueError("the game is over: no more moves")
        if self.seats[colour] == PERSON:
            raise ValueError(f"{T.COLOR_NAMES[colour]} is yours to move")
        name, player = self._player(colour)
        try:
            m = int(player.choose_action(self.state.clone()))
            self._apply(colour, m)
        except (PlayerFailure, Resign, GtpError, OSError, ValueError) as err:
            self._drop(colour)
            raise RuntimeError(f"{T.COLOR_NAMES[colour]}'s player {name!r} failed: {err} "
                               f"(it is started again for its next move)") from None
        return placement_to_string(m)

    def _player(self, colour: int) -> tuple[str, Player]:
        name = self.seats[colour]
        if colour not in self._players:
            try:
                player = make_player(self.game, self.specs[name], self.seed + colour)
            except (ValueError, OSError, GtpError) as err:
                raise RuntimeError(f"{T.COLOR_NAMES[colour]}'s player {name!r} cannot start: {err}") from None
            self._players[colour] = (name, player)
            self._tell_game(player)
        return self._players[colour]

    def _drop(self, colour: int) -> None:
        _, player = self._players.pop(colour)
        try:
            player.close()
        except (OSError, GtpError, PlayerFailure):
            pass  # the engine is gone already: nothing is left to release

    def _tell_game(self, player: Player) -> None:
        player.reset()
        for colour, m in self.line.start.history() + self.line.moves:
            player.inform(m, colour)

    def _restart(self, line: GameLine) -> None:
        state = line.position(len(line.moves))
        self.line, self.state = line, state
        for colour in list(self._players):
            try:
                self._tell_game(self._players[colour][1])
            except (PlayerFailure, GtpError, OSError):
                self._drop(colour)

    # --- the game as a whole ------------------------------------------------------------
    def new_game(self, seats: Sequence[str] | None = None) -> None:
        """An empty board, with new seats if given (checked)."""
        if seats is not None:
            self.seats = self._check_seats(seats)
            for colour in [c for c, (name, _) in self._players.items() if name != self.seats[c]]:
                self._drop(colour)  # an engine no longer seated ends now, not at the server's end
        self._restart(GameLine(BlokusState(), [], "", list(self.seats)))

    def undo(self) -> int:
        """Take back the players' moves since the person's last move and that move (one move
        when nobody plays from the page); returns how many moves were taken back."""
        moves = self.line.moves
        if not moves:
            raise ValueError("there is no move to undo")
        keep = len(moves) - 1
        if PERSON in self.seats:
            while keep > 0 and self.seats[moves[keep][0]] != PERSON:
                keep -= 1
        self._restart(GameLine(self.line.start, moves[:keep], self.line.title, self.line.players))
        return len(moves) - keep

    def load(self, line: GameLine) -> None:
        """Continue from a recorded game's position (its set-up and moves)."""
        self._restart(GameLine(line.start.clone(), list(line.moves), line.title, list(self.seats)))

    def load_sgf(self, text: str) -> None:
        """Continue from a Pentobi SGF game; ValueError naming what is wrong with it."""
        self.load(game_from_sgf(text))

    def sgf(self) -> str:
        """The game as a Pentobi SGF file: the set-up, the moves, the players by colour (``P1``..
        ``P4``), the date and this program (``AP``)."""
        props = {f"P{c + 1}": "person" if seat == PERSON else seat for c, seat in enumerate(self.seats)}
        props.update(AP=f"BlokusZero:{__version__}", DT=datetime.date.today().isoformat())
        return write_sgf(self.state, props, setup=len(self.line.start.history()))

    # --- analysis -----------------------------------------------------------------------
    def analyse(self, state: BlokusState, count: int = 6) -> dict[str, Any]:
        """The analyst's search of ``state``: its most visited moves for the colour to move."""
        if self.analyst_name is None:
            raise ValueError("this board has no analysis player (start it with --analysis NAME)")
        mover = state.current_player()
        if mover < 0:
            raise ValueError("the game is over: there is nothing to analyse")
        if self._analyst is None:
            player = make_player(self.game, self.specs[self.analyst_name], self.seed + 99)
            if not isinstance(player, MCTSPlayer):
                player.close()
                raise ValueError(f"analysis player {self.analyst_name!r} keeps no search statistics: "
                                 f"choose an MCTS or network player")
            self._analyst = player
        self._analyst.reset()
        result = self._analyst.mcts.search(state.clone())
        return {"colour": mover, "player": self.analyst_name, "simulations": int(result.simulations),
                "moves": top_moves(result, mover, count)}

    def close(self) -> None:
        """End every engine the table started."""
        for colour in list(self._players):
            self._drop(colour)
        if self._analyst is not None:
            self._analyst.close()
