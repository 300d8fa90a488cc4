"""Go over GTP v2: any Go player of the search core served as an engine.

GoGui, Sabaki, gogui-twogtp and ``scripts/go_match.py`` talk to it over stdin/stdout through
the game-agnostic command loop of :mod:`blokuszero.protocols.gtp`. Every failure is answered
``? reason`` and leaves the game as it was. The command line is ``python -m blokuszero.engines.go`` (:mod:`.cli`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

from ... import __version__
from ...games.go import GoGame, GoState
from ...players.base import Player
from ...protocols.gtp import GtpEngine, GtpError, expect_arguments, no_arguments

COLOURS = {"b": 0, "black": 0, "w": 1, "white": 1}


def check_komi(komi: float, size: int) -> None:
    """GtpError unless ``|komi|`` is at most the board's area (a larger komi decides every game)."""
    if abs(komi) > size * size:
        raise GtpError(f"unacceptable komi: {komi:g} (at most the board's {size * size} points either way)")


@dataclasses.dataclass
class Clock:
    """GTP time settings (Canadian byo-yomi) and the controller's latest time_left reports."""

    main_time: float = 0.0
    byo_yomi_time: float = 0.0
    byo_yomi_stones: int = 0
    left: dict[int, tuple[float, int]] = dataclasses.field(default_factory=dict)  # player -> (s, stones)

    @property
    def active(self) -> bool:
        # GTP: byo-yomi time 0 with stones 0 means no time limit.
        return not (self.byo_yomi_time > 0 and self.byo_yomi_stones == 0) and (
            self.main_time > 0 or self.byo_yomi_time > 0)

    def budget(self, player: int, empty_points: int) -> float | None:
        """Seconds for this move, or None without a time limit. Main time is spread over the
        moves a game still needs (about half the empty points, at least 10); in byo-yomi the
        period is spread over its stones, with a margin for the transmission."""
        if not self.active:
            return None
        seconds, stones = self.left.get(player, (self.main_time, 0))
        if stones > 0:
            return max(0.05, 0.8 * seconds / stones)
        if seconds <= 0 and self.byo_yomi_stones > 0:
            return max(0.05, 0.8 * self.byo_yomi_time / self.byo_yomi_stones)
        return max(0.05, 0.9 * seconds / max(10, empty_points // 2))


class GoGtpEngine(GtpEngine):
    """The GTP v2 Go commands over one game and a player built for each board.

    ``make_player(game)`` builds the player whenever the board size or komi changes; its
    MCTS (when it has one: ``player.mcts``) gets a per-move time limit from the GTP clock.
    """

    def __init__(self, make_player: Callable[[GoGame], Player], size: int = 9, komi: float = 6.5,
                 ko_rule: str = "simple", name: str = "BlokusZero-Go") -> None:
        self.make_player = make_player
        self.ko_rule = ko_rule
        self.engine_name = name
        self.clock = Clock()
        super().__init__({
            "name": no_arguments("name", lambda: self.engine_name),
            "version": no_arguments("version", lambda: __version__),
            "boardsize": self._boardsize, "clear_board": no_arguments("clear_board", self._clear_board),
            "komi": self._komi, "play": self._play, "genmove": self._genmove,
            "undo": no_arguments("undo", self._undo),
            "final_score": no_arguments("final_score", self._final_score),
            "showboard": no_arguments("showboard", lambda: "\n" + str(self.state)),
            "time_settings": self._time_settings, "time_left": self._time_left,
        })
        self._new_game(size, komi)

    def _new_game(self, size: int, komi: float) -> None:
        self.game = GoGame(size, komi, self.ko_rule)
        self.player = self.make_player(self.game)
        self._clear_board()

    @staticmethod
    def _colour(word: str) -> int:
        colour = COLOURS.get(word.lower())
        if colour is None:
            raise GtpError(f"syntax error: {word!r} is not a colour (b, w, black, white)")
        return colour

    def _number(self, word: str, kind: type = float) -> float:
        try:
            value = kind(word)
        except ValueError:
            raise GtpError(f"syntax error: {word!r} is not a{'n integer' if kind is int else ' number'}") from None
        if not math.isfinite(value):
            raise GtpError(f"syntax error: {word!r} is not a finite number")
        return value

    def _apply(self, state: GoState, player: int, action: int) -> None:
        """Play ``action`` for ``player`` on ``state`` (out of turn if need be); ValueError and
        ``state`` unchanged if illegal."""
        trial = state.clone()
        if trial.current_player() != player:
            trial.give_turn(player)
        trial.apply_action(action)
        state.buf[:] = trial.buf

    def _boardsize(self, args: list[str]) -> str:
        expect_arguments(args, 1, "boardsize SIZE")
        size = int(self._number(args[0], int))
        if not 2 <= size <= 25:
            raise GtpError(f"unacceptable size: {size} (2 to 25)")
        self._new_game(size, self.game.komi)
        return ""

    def _clear_board(self) -> str:
        self.state = self.game.new_initial_state()
        self.history: list[tuple[int, int]] = []
        self.player.reset()
        return ""

    def _komi(self, args: list[str]) -> str:
        expect_arguments(args, 1, "komi FLOAT")
        komi = self._number(args[0])
        check_komi(komi, self.game.size)
        if komi != self.game.komi:
            self.game = GoGame(self.game.size, komi, self.ko_rule)
            self.player = self.make_player(self.game)
            self._replay(self.history)
        return ""

    def _replay(self, history: list[tuple[int, int]]) -> None:
        state = self.game.new_initial_state()
        for player, action in history:
            self._apply(state, player, action)
        self.state, self.history = state, list(history)
        self.player.reset()

    def _play(self, args: list[str]) -> str:
        expect_arguments(args, 2, "play COLOUR VERTEX")
        player = self._colour(args[0])
        try:
            action = self.game.parse_vertex(args[1])
        except ValueError as err:
            raise GtpError(f"syntax error: {err}") from None
        try:
            self._apply(self.state, player, action)
        except ValueError as err:
            raise GtpError(f"illegal move: {err}") from None
        self.history.append((player, action))
        self.player.inform(action, player)
        return ""

    def _genmove(self, args: list[str]) -> str:
        expect_arguments(args, 1, "genmove COLOUR")
        player = self._colour(args[0])
        state = self.state.clone()
        try:
            if state.current_player() != player:
                state.give_turn(player)
        except ValueError as err:
            raise GtpError(f"cannot move: {err}") from None
        mcts = getattr(self.player, "mcts", None)
        budget = self.clock.budget(player, int((state.board() == 0).sum()))
        if mcts is not None:
            base = mcts.config
            if budget is not None:
                mcts.config = dataclasses.replace(base, time_limit=min(budget, base.time_limit or budget))
            try:
                action = self.player.choose_action(state)
            finally:
                mcts.config = base
        else:
            action = self.player.choose_action(state)
        self._apply(self.state, player, action)
        self.history.append((player, action))
        self.player.inform(action, player)
        return self.game.vertex(action)

    def _undo(self) -> str:
        if not self.history:
            raise GtpError("cannot undo: no move has been played")
        self._replay(self.history[:-1])
        return ""

    def _final_score(self) -> str:
        score = self.state.score()
        return "0" if score == 0 else f"{'B' if score > 0 else 'W'}+{abs(score):g}"

    def _time_settings(self, args: list[str]) -> str:
        expect_arguments(args, 3, "time_settings MAIN_TIME BYO_YOMI_TIME BYO_YOMI_STONES")
        main, byo = self._number(args[0]), self._number(args[1])
        stones = int(self._number(args[2], int))
        if main < 0 or byo < 0 or stones < 0:
            raise GtpError("syntax error: time settings must not be negative")
        self.clock = Clock(main, byo, stones)
        return ""

    def _time_left(self, args: list[str]) -> str:
        expect_arguments(args, 3, "time_left COLOUR TIME STONES")
        player = self._colour(args[0])
        seconds, stones = self._number(args[1]), int(self._number(args[2], int))
        if seconds < 0 or stones < 0:
            raise GtpError("syntax error: time left must not be negative")
        self.clock.left[player] = (seconds, stones)
        return ""
