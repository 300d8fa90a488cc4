"""An external Blokus GTP engine as a Player: the client side of Pentobi's GTP dialect
(served by :mod:`blokuszero.engines.blokus`)."""

from __future__ import annotations

from ..games.blokus import tables as T
from ..games.blokus.game import BlokusState
from ..games.blokus.notation import placement_to_string, string_to_placement
from ..protocols.gtp import GtpClient, GtpError
from .base import Player


class GtpPlayer(Player):
    """Plays through an external Blokus GTP engine (e.g. ``pentobi-gtp --quiet --noresign``).

    The engine is told every move of the game with ``play`` before it is asked to ``genmove``;
    it gets the player's seed with ``set_random_seed`` when it knows that command.
    """

    def __init__(self, command: str, seed: int | None = None) -> None:
        self.client = GtpClient(command)
        self.name = self.client.name
        if seed is not None and self.client.send("known_command set_random_seed") == "true":
            self.client.send(f"set_random_seed {seed}")
        self.sent = 0  # moves of the game the engine has been told

    def reset(self) -> None:
        self.client.send("clear_board")
        self.sent = 0

    def choose_action(self, state: BlokusState) -> int:
        history = state.history()
        for colour, move in history[self.sent:]:
            self.client.send(f"play {colour + 1} {placement_to_string(move)}")
        colour = state.current_player()
        answer = self.client.send(f"genmove {colour + 1}")
        if answer.lower() in ("pass", "resign"):
            raise GtpError(f"GTP engine {self.name} answered genmove {colour + 1} with {answer!r}, "
                           f"but {T.COLOR_NAMES[colour]} has {len(state.legal_actions())} legal "
                           f"moves (Pentobi: start it with --noresign)")
        try:
            move = string_to_placement(answer)
        except ValueError as err:
            raise GtpError(f"GTP engine {self.name} answered genmove with {answer!r}: {err}") from None
        self.sent = len(history) + 1  # the engine has played its move
        return move

    def close(self) -> None:
        self.client.close()
