"""A referee for Go matches: a GTP engine told every move that scores the finished game.

Our rules end a game after two passes and count area with every stone alive. Engines pass
when the game is settled, dead stones still on the board, so a match between engines needs a
scorer that removes them: GNU Go's ``final_score`` does (``gnugo --mode gtp --chinese-rules``).
"""

from __future__ import annotations

import numpy as np

from ...games.go import GoGame
from ...players.gtp_player import engine_argv
from ...protocols.gtp import GtpClient, GtpError
from ...referee.game_loop import RefereeRefusal


class GtpReferee:
    """Plays each move on the engine ``command`` (a refused move raises RefereeRefusal) and
    scores the end with ``final_score``: a :class:`~blokuszero.referee.game_loop.Referee`."""

    @staticmethod
    def check_game(game: object) -> None:
        """ValueError unless ``game`` is one a GTP referee scores (Go)."""
        if not isinstance(game, GoGame):
            raise ValueError(f"a GTP referee scores Go games, not {getattr(game, 'name', game)}")

    def __init__(self, command: str, game: GoGame) -> None:
        self.check_game(game)
        self.client = GtpClient(engine_argv(command), "referee")
        for line in (f"boardsize {game.size}", "clear_board", f"komi {game.komi:g}"):
            self.client.send(line)

    def play(self, player: int, vertex: str) -> None:
        """Tell the referee ``player`` played ``vertex``; RefereeRefusal if it refuses the move."""
        try:
            self.client.send(f"play {'BW'[player]} {vertex}")
        except GtpError as err:
            raise RefereeRefusal(str(err)) from err

    def result(self) -> tuple[np.ndarray, str]:
        """(returns per player, the score as the referee writes it: ``B+3.5``, ``W+0.5``, ``0``)."""
        score = self.client.send("final_score").strip()
        if score == "0":
            return np.zeros(2), score
        if score[:2] not in ("B+", "W+"):
            raise GtpError(f"the referee's final_score {score!r} is not B+x, W+x or 0")
        winner = "BW".index(score[0])
        return np.where(np.arange(2) == winner, 1.0, -1.0), score

    def close(self) -> None:
        self.client.close()
