"""Go over GTP v2: any Go player of the search core served as an engine.

GoGui, Sabaki, gogui-twogtp and ``scripts/go_match.py`` talk to it over stdin/stdout through
the game-agnostic command loop of :mod:`blokuszero.protocols.gtp`. Every failure is answered
``? reason`` and leaves the game as it was. The command line is ``python -m blokuszero.engines.go`` (:mod:`.cli`).

Besides the standard commands: ``final_score`` and ``final_status_list`` (dead stones judged by
:mod:`blokuszero.games.go.scoring`; :mod:`.endgame`), fixed and free handicap (:mod:`.handicap`),
``loadsgf``, ``kgs-genmove_cleanup``, and ``time_settings`` / ``time_left``, which ``genmove``
honours by shortening that move's search (the clock: :mod:`blokuszero.search.time_manager`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ... import __version__
from ...games.go import GoGame, GoState
from ...games.go.scoring import final_status, format_score
from ...games.go.sgf import read_sgf
from ...players.base import Player
from ...protocols.gtp import GtpEngine, GtpError, expect_arguments, no_arguments
from ...search.time_manager import WALL_CLOCK, Margins, TimeManager
from ...settings import check_value
from .endgame import cleanup_move, status_list
from .handicap import free_handicap_points, handicap_points

COLOURS = {"b": 0, "black": 0, "w": 1, "white": 1}


def check_komi(komi: float, size: int) -> None:
    """GtpError unless ``|komi|`` is at most the board's area (a larger komi decides every game)."""
    if abs(komi) > size * size:
        raise GtpError(f"unacceptable komi: {komi:g} (at most the board's {size * size} points either way)")


class GoGtpEngine(GtpEngine):
    """The GTP v2 Go commands over one game and a player built for each board.

    ``make_player(game)`` builds the player whenever the board size or komi changes; its
    MCTS (when it has one: ``player.mcts``) gets a per-move time limit from the GTP clock.
    ``genmove`` answers ``resign`` when the chosen move's win rate (its mean playout reward, in
    [0, 1]) is below ``resign_threshold`` after at least ``RESIGN_MIN_SIMULATIONS`` simulations
    (0: never resign). ``final_score`` and ``final_status_list`` judge dead stones from
    ``score_playouts`` playouts (:mod:`blokuszero.games.go.scoring`). The GTP clock is a
    :class:`~blokuszero.search.time_manager.TimeManager` with ``margins``; ``timer`` gives the seconds it
    counts, and the search's time limit is measured in them too (tests drive a fake one).
    """

    RESIGN_MIN_SIMULATIONS = 100  # fewer playouts are too noisy to give up on

    def __init__(self, make_player: Callable[[GoGame], Player], size: int = 9, komi: float = 6.5,
                 ko_rule: str = "simple", name: str = "BlokusZero-Go", resign_threshold: float = 0.0,
                 score_playouts: int = 1000, timer: Callable[[], float] = WALL_CLOCK,
                 margins: Margins | None = None) -> None:
        if not 0 <= resign_threshold < 1:
            raise ValueError(f"resign_threshold must be in [0, 1), not {resign_threshold}")
        check_value("score_playouts", score_playouts, int, low=1)
        self.make_player = make_player
        self.ko_rule = ko_rule
        self.engine_name = name
        self.resign_threshold = resign_threshold
        self.score_playouts = score_playouts
        self.timer = timer
        self.random_seed: int | None = None  # from set_random_seed; kept for every player built
        self.margins = margins or Margins()
        self.clock = TimeManager(margins=self.margins, source=timer)
        super().__init__({
            "name": no_arguments("name", lambda: self.engine_name),
            "version": no_arguments("version", lambda: __version__),
            "boardsize": self._boardsize, "clear_board": no_arguments("clear_board", self._clear_board),
            "komi": self._komi, "play": self._play, "genmove": self._genmove,
            "kgs-genmove_cleanup": self._genmove_cleanup,
            "undo": no_arguments("undo", self._undo),
            "final_score": no_arguments("final_score", self._final_score),
            "final_status_list": self._final_status_list,
            "fixed_handicap": self._fixed_handicap, "place_free_handicap": self._place_free_handicap,
            "set_free_handicap": self._set_free_handicap, "loadsgf": self._loadsgf,
            "showboard": no_arguments("showboard", lambda: "\n" + str(self.state)),
            "time_settings": self._time_settings, "time_left": self._time_left,
            "set_random_seed": self._set_random_seed,
        })
        self._new_game(size, komi)

    def _new_game(self, size: int, komi: float) -> None:
        self.game = GoGame(size, komi, self.ko_rule)
        self.player = self._make_player()
        self._clear_board()

    def _make_player(self) -> Player:
        """The player for the current game, its search seeded by ``set_random_seed`` if given."""
        player = self.make_player(self.game)
        mcts = getattr(player, "mcts", None)
        if self.random_seed is not None and mcts is not None:
            mcts.rng = np.random.default_rng(self.random_seed)
        return player

    def _set_random_seed(self, args: list[str]) -> str:
        """Seed the search (a match runner gives each game its own seed this way)."""
        expect_arguments(args, 1, "set_random_seed SEED")
        seed = int(self._number(args[0], int))
        if seed < 0:
            raise GtpError(f"syntax error: seed {seed} is negative")
        if getattr(self.player, "mcts", None) is None:
            raise GtpError("cannot seed: this player has no search")
        self.random_seed = seed
        self.player.mcts.rng = np.random.default_rng(seed)
        return ""

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
        self.setup: list[tuple[int, int]] = []  # handicap / SGF set-up stones (player, action)
        self.setup_to_move = 0
        self.history: list[tuple[int, int]] = []
        self.player.reset()
        return ""

    def _komi(self, args: list[str]) -> str:
        expect_arguments(args, 1, "komi FLOAT")
        komi = self._number(args[0])
        check_komi(komi, self.game.size)
        if komi != self.game.komi:
            self.game = GoGame(self.game.size, komi, self.ko_rule)
            self.player = self._make_player()
            self._replay(self.setup, self.setup_to_move, self.history)
        return ""

    def _replay(self, setup: list[tuple[int, int]], to_move: int, history: list[tuple[int, int]]) -> None:
        """Make the position ``setup`` then ``history``; ValueError and nothing changed if a
        move is illegal."""
        state = self.game.new_initial_state()
        if setup:
            state.set_up(setup, to_move)
        for player, action in history:
            self._apply(state, player, action)
        self.state, self.setup, self.setup_to_move, self.history = state, list(setup), to_move, list(history)
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

    def _search(self, args: list[str], usage: str) -> tuple[int, int, bool]:
        """Run the player for the colour in ``args`` within the clock's budget; (player, action,
        whether it resigns). Counts the time it took on the clock."""
        expect_arguments(args, 1, usage)
        player = self._colour(args[0])
        started = self.timer()
        state = self.state.clone()
        try:
            if state.current_player() != player:
                state.give_turn(player)
        except ValueError as err:
            raise GtpError(f"cannot move: {err}") from None
        mcts = getattr(self.player, "mcts", None)
        # A game still needs about half its empty points' moves.
        budget = self.clock.budget(player, int((state.board() == 0).sum()) // 2)
        if mcts is not None:
            base, clock = mcts.config, mcts.clock
            if budget is not None:
                mcts.config = dataclasses.replace(base, time_limit=min(budget, base.time_limit or budget))
            mcts.clock = self.timer  # the budget is in the GTP clock's seconds
            try:
                action = self.player.choose_action(state)
            finally:
                mcts.config, mcts.clock = base, clock
        else:
            action = self.player.choose_action(state)
        self.clock.spend(player, self.timer() - started)
        return player, action, self._hopeless(player, action)

    def _hopeless(self, player: int, action: int) -> bool:
        """Whether the search's win rate for ``action`` is below the resignation threshold."""
        result = getattr(self.player, "last_result", None)
        if not self.resign_threshold or result is None or result.simulations < self.RESIGN_MIN_SIMULATIONS:
            return False
        chosen = np.flatnonzero(result.actions == action)
        return bool(chosen.size and result.values[chosen[0], player] < self.resign_threshold)

    def _commit(self, player: int, action: int) -> str:
        self._apply(self.state, player, action)
        self.history.append((player, action))
        self.player.inform(action, player)
        return self.game.vertex(action)

    def _genmove(self, args: list[str]) -> str:
        player, action, hopeless = self._search(args, "genmove COLOUR")
        return "resign" if hopeless else self._commit(player, action)

    def _genmove_cleanup(self, args: list[str]) -> str:
        """KGS's cleanup phase after a disputed end: as genmove, but never resigns, and instead
        of passing while the opponent's dead stones are still on the board it plays on a
        liberty of them (the legal one it owns most surely) so that they get captured."""
        player, action, _ = self._search(args, "kgs-genmove_cleanup COLOUR")
        if action == self.game.pass_action:
            action = cleanup_move(self.state, player, action, self.score_playouts)
        return self._commit(player, action)

    def _undo(self) -> str:
        if not self.history:
            raise GtpError("cannot undo: no move has been played")
        self._replay(self.setup, self.setup_to_move, self.history[:-1])
        return ""

    def _final_score(self) -> str:
        return format_score(final_status(self.state, self.score_playouts).score)

    def _final_status_list(self, args: list[str]) -> str:
        """The stones of one status, a group per line (as GNU Go writes them)."""
        expect_arguments(args, 1, "final_status_list STATUS")
        return status_list(self.state, args[0], self.score_playouts)

    def _handicap(self, stones: list[int]) -> str:
        """Put black handicap stones on the empty board, White to move; their vertices."""
        if self.state.board().any() or self.history:
            raise GtpError("board not empty")
        self._replay([(0, a) for a in stones], 1, [])
        return " ".join(self.game.vertex(a) for a in stones)

    def _stones(self, args: list[str], usage: str) -> int:
        expect_arguments(args, 1, usage)
        return int(self._number(args[0], int))

    def _fixed_handicap(self, args: list[str]) -> str:
        return self._handicap(handicap_points(self.game.size, self._stones(args, "fixed_handicap NUMBER")))

    def _place_free_handicap(self, args: list[str]) -> str:
        return self._handicap(free_handicap_points(self.game.size,
                                                   self._stones(args, "place_free_handicap NUMBER")))

    def _set_free_handicap(self, args: list[str]) -> str:
        if len(args) < 2:
            raise GtpError("syntax error: expected set_free_handicap VERTEX VERTEX ... (at least two)")
        try:
            stones = [self.game.parse_vertex(v) for v in args]
        except ValueError as err:
            raise GtpError(f"syntax error: {err}") from None
        if self.game.pass_action in stones or len(set(stones)) < len(stones):
            raise GtpError("bad vertex list: a pass or a repeated vertex")
        if len(stones) >= self.game.size ** 2:
            raise GtpError(f"bad vertex list: {len(stones)} stones leave no empty point")
        self._handicap(stones)
        return ""

    def _loadsgf(self, args: list[str]) -> str:
        """``loadsgf FILE [MOVE_NUMBER]``: the position before move MOVE_NUMBER (all moves
        without it); board size and komi as the file says."""
        if len(args) not in (1, 2):
            raise GtpError("syntax error: expected loadsgf FILENAME [MOVE_NUMBER]")
        moves = int(self._number(args[1], int)) - 1 if len(args) == 2 else None
        if moves is not None and moves < 0:
            raise GtpError(f"syntax error: move number {args[1]} is not >= 1")
        try:
            record = read_sgf(Path(args[0]).read_text(encoding="utf-8"))
        except OSError as err:
            raise GtpError(f"cannot load file: {err.strerror}: {args[0]}") from None
        except (ValueError, UnicodeDecodeError) as err:
            raise GtpError(f"cannot load file: {err}") from None
        check_komi(record.komi, record.size)
        before = self.game, self.player
        if (record.size, record.komi) != (self.game.size, self.game.komi):
            self.game = GoGame(record.size, record.komi, self.ko_rule)
            self.player = self._make_player()
        try:
            self._replay(record.setup, record.to_move, record.moves[:moves])
        except ValueError as err:
            self.game, self.player = before
            raise GtpError(f"cannot load file: {err}") from None
        return ""

    def _time_settings(self, args: list[str]) -> str:
        expect_arguments(args, 3, "time_settings MAIN_TIME BYO_YOMI_TIME BYO_YOMI_STONES")
        main, byo = self._number(args[0]), self._number(args[1])
        stones = int(self._number(args[2], int))
        if main < 0 or byo < 0 or stones < 0:
            raise GtpError("syntax error: time settings must not be negative")
        self.clock = TimeManager(main, byo, stones, self.margins, self.timer)
        return ""

    def _time_left(self, args: list[str]) -> str:
        expect_arguments(args, 3, "time_left COLOUR TIME STONES")
        player = self._colour(args[0])
        seconds, stones = self._number(args[1]), int(self._number(args[2], int))
        if seconds < 0 or stones < 0:
            raise GtpError("syntax error: time left must not be negative")
        self.clock.report(player, seconds, stones)
        return ""
