"""An external GTP engine as a Player: Blokus in Pentobi's dialect (served by
:mod:`blokuszero.engines.blokus`, or ``pentobi-gtp``) and Go in GTP v2 (GNU Go, our
:mod:`blokuszero.engines.go`)."""

from __future__ import annotations

import os
import shlex
import shutil
import sys

import numpy as np

from ..games.abilities import HasGtpDialect, implements
from ..games.base import Game, State
from ..protocols.gtp import GtpClient, GtpError
from .base import Player, PlayerFailure, Resign
from .registry import PlayerSpec


def engine_argv(command: str) -> list[str]:
    """``command`` split into words, as an engine's program to start. ``python`` or ``python3``
    is this process's interpreter (the one that has this package: a bare ``python`` on PATH may be
    another, e.g. when a virtual environment is not activated). Any other program is started by
    its full path, found on PATH or else in /usr/games (where Debian installs GNU Go, not always on
    PATH): engines that find their data beside ``argv[0]``, as ``pentobi-gtp`` finds its opening
    books, see no directory in a bare name and would play without it."""
    argv = shlex.split(command)
    if argv and argv[0] in ("python", "python3"):
        argv[0] = sys.executable
    elif argv and "/" not in argv[0]:
        found = shutil.which(argv[0]) or shutil.which(f"/usr/games/{argv[0]}")
        argv[0] = os.path.abspath(found) if found else argv[0]
    return argv


class GtpPlayer(Player):
    """Plays ``game`` through an external GTP engine (e.g. ``pentobi-gtp --quiet --noresign``,
    ``gnugo --mode gtp``).

    The engine is told every move of the game (the ones :meth:`inform` reports) with ``play``
    before it is asked to ``genmove``; a Go engine gets the board size and komi at each new
    game. It gets the player's seed with ``set_random_seed`` when it knows that command.
    A Go engine's ``resign`` raises :class:`Resign`; an engine that crashes, refuses a move it
    is told or answers nonsense raises :class:`PlayerFailure`.
    """

    def __init__(self, command: str, game: Game, seed: int | None = None) -> None:
        if not implements(game, HasGtpDialect):
            raise ValueError(f"a GTP player plays games with a GTP dialect (Blokus, Go), not {game.name}")
        self.game = game
        self.client = GtpClient(engine_argv(command))
        self.name = self.client.name
        if seed is not None and self.client.send("known_command set_random_seed") == "true":
            self.client.send(f"set_random_seed {seed}")
        self.untold: list[tuple[int, int]] = []  # (player, action) the engine has not been told
        self.own: tuple[int, int] | None = None  # the engine's last genmove, already on its board
        # Pentobi's cputime: the engine's own CPU seconds, so that a match reports both sides' time.
        self.reports_cpu = self.client.send("known_command cputime") == "true"
        self.last_cpu = 0.0

    def _colour(self, player: int) -> str:
        return self.game.gtp_colour(player)

    def reset(self) -> None:
        for command in self.game.gtp_setup():
            self.client.send(command)
        self.client.send("clear_board")
        self.untold, self.own = [], None

    def inform(self, action: int, player: int) -> None:
        if (player, action) == self.own:
            self.own = None
        else:
            self.untold.append((player, action))

    def choose_action(self, state: State, player: int | None = None) -> int:
        try:
            return self._genmove(state)
        except GtpError as err:
            raise PlayerFailure(str(err)) from err

    def _genmove(self, state: State) -> int:
        self.last_cpu = 0.0
        for player, action in self.untold:
            self.client.send(f"play {self._colour(player)} {state.action_to_string(action)}")
        self.untold = []
        player = state.current_player()
        before = self._cputime()
        answer = self.client.send(f"genmove {self._colour(player)}")
        self.last_cpu = self._cputime() - before
        if not self.game.gtp_passes() and answer.lower() in ("pass", "resign"):
            # genmove is asked only of a colour that can move (the arena passes for the others).
            raise GtpError(f"GTP engine {self.name} answered genmove {self._colour(player)} with "
                           f"{answer!r}, but it has {len(state.legal_actions())} legal moves "
                           f"(Pentobi: start it with --noresign)")
        if answer.lower() == "resign":
            raise Resign(f"GTP engine {self.name} resigned")
        try:
            move = state.string_to_action(answer)
        except ValueError as err:
            raise GtpError(f"GTP engine {self.name} answered genmove {self._colour(player)} with "
                           f"{answer!r}: {err}") from None
        self.own = (player, move)
        return move

    def _cputime(self) -> float:
        if not self.reports_cpu:
            return 0.0
        answer = self.client.send("cputime")
        try:
            return float(answer)
        except ValueError:
            raise GtpError(f"GTP engine {self.name} answered cputime with {answer!r}, not seconds") from None

    def outside_cpu(self) -> float:
        return self.last_cpu

    def close(self) -> None:
        self.client.close()


def make_gtp_player(game: Game, spec: PlayerSpec, rng: np.random.Generator) -> GtpPlayer:
    """The ``gtp`` kind: the engine of ``command``, seeded from ``rng``."""
    command = spec.settings.get("command")
    if not command:
        raise ValueError(f"a gtp player needs the engine's command line as 'command' (got {command!r})")
    return GtpPlayer(command, game, int(rng.integers(2**31)))
