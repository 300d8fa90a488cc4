"""Go behind the common game interface: any board size from 2 to 25, Chinese area scoring.

Player 0 is Black (moves first), player 1 White. Actions are ``y * N + x`` with row 0 at the
top and ``N * N`` the pass, written as GTP vertices (``D4``, ``pass``). The game ends on two
passes in a row by alternating players (or after :func:`rules.max_moves` moves); the winner
has the larger area (stones plus empty regions touching only its stones) after komi for White. Dead stones are
not removed: games are played until they are captured, as playouts and GTP referees do.
Ko: simple ko, or positional superko (no move may recreate an earlier position).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ..base import TERMINAL, Game, Seed, State
from . import playouts as P
from . import rules as E

COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"  # GTP skips I
KO_RULES = ("simple", "positional")
PRIOR_KINDS = ("simple", "fuego")  # even-game prior knowledge schemes (prior_knowledge)
_KEY_TO_MOVE = 0x5BD1E9955BD1E995  # odd multipliers that spread small ints over 64 bits
_KEY_KO = 0x27D4EB2F165667C5
_MASK = (1 << 64) - 1


def playout_rules(policy: str) -> int:
    """The rule bit mask of a playout policy name (see :meth:`GoState.playout`); ValueError
    naming the unknown policy or rule."""
    if policy == "uniform":
        return 0
    if policy == "fuego":
        return P.ALL_RULES
    if not policy.startswith("fuego:"):
        raise ValueError(f"Go playout policy {policy!r} is not 'uniform', 'fuego' or 'fuego:RULE,...'")
    rules = 0
    for name in policy[len("fuego:"):].split(","):
        if name not in P.RULES:
            raise ValueError(f"Go playout rule {name!r} is not one of {', '.join(P.RULES)}")
        rules |= P.RULES[name]
    return rules


class GoGame(Game):
    """Go on an ``size`` x ``size`` board with ``komi`` for White and the chosen ko rule."""

    def __init__(self, size: int = 9, komi: float = 6.5, ko_rule: str = "simple") -> None:
        if not 2 <= size <= E.MAX_SIZE:
            raise ValueError(f"board size {size} is not in [2, {E.MAX_SIZE}]")
        if ko_rule not in KO_RULES:
            raise ValueError(f"ko rule {ko_rule!r} is not one of {KO_RULES}")
        self.size = size
        self.komi = float(komi)
        self.ko_rule = ko_rule
        self.superko = ko_rule == "positional"
        self.name = "go"
        self.num_players = 2
        self.num_actions = size * size + 1
        self.pass_action = size * size
        self.max_game_length = E.max_moves(size)
        self.width = size + 2
        ys, xs = np.divmod(np.arange(size * size), size)
        self.action_point = np.append((ys + 1) * self.width + xs + 1, 0).astype(np.int64)  # [A]
        self.point_action = np.full(self.width ** 2, self.pass_action, np.int64)  # [M]
        self.point_action[self.action_point[:-1]] = np.arange(size * size)

    def new_initial_state(self, seed: Seed = None) -> GoState:
        """The empty board, Black to move (``seed`` is unused: Go has no chance)."""
        return GoState(self, E.new_board(self.size))

    def gtp_passes(self) -> bool:
        """GTP v2: an engine may pass or resign."""
        return True

    def gtp_colour(self, player: int) -> str:
        """Black ``B``, White ``W``."""
        return "BW"[player]

    def gtp_setup(self) -> list[str]:
        """The board size and komi, sent before each game."""
        return [f"boardsize {self.size}", f"komi {self.komi:g}"]

    def pattern_neighbours(self) -> np.ndarray:
        """[A, 8] the 8 neighbouring actions of each action (-1 off board): RAVE's local pattern."""
        return E.neighbours8(self.size)

    def vertex(self, action: int) -> str:
        """GTP vertex of ``action``: column letter (no I) and row number from the bottom."""
        if action == self.pass_action:
            return "pass"
        if not 0 <= action < self.pass_action:
            raise ValueError(f"action {action} is not in [0, {self.num_actions})")
        y, x = divmod(action, self.size)
        return f"{COLUMNS[x]}{self.size - y}"

    def parse_vertex(self, text: str) -> int:
        """Action of a GTP vertex (``D4``, ``pass``; any case); ValueError naming the problem."""
        t = text.strip().upper()
        if t == "PASS":
            return self.pass_action
        if len(t) < 2 or t[0] not in COLUMNS or not t[1:].isdigit():
            raise ValueError(f"{text!r} is not a vertex (a column letter A-Z without I, then a row number)")
        x, row = COLUMNS.index(t[0]), int(t[1:])
        if x >= self.size or not 1 <= row <= self.size:
            raise ValueError(f"vertex {text!r} is off the {self.size}x{self.size} board")
        return (self.size - row) * self.size + x


class GoState(State):
    """A Go position; all data in one int64 buffer for the numba kernels (see :mod:`.rules`)."""

    __slots__ = ("game", "buf", "_meta")

    def __init__(self, game: GoGame, buf: np.ndarray) -> None:
        self.game = game
        self.buf = buf
        self._meta = len(buf) - E.META_LEN

    def _m(self, field: int) -> int:
        return int(self.buf[self._meta + field])

    # --------------------------------------------------------------- interface
    def current_player(self) -> int:
        colour = self._m(E.META_TOMOVE)
        return TERMINAL if colour == 0 else colour - 1

    def legal_actions(self, player: int | None = None) -> np.ndarray:
        """Sorted legal actions of the player to move, the pass (always legal) last; none at
        the end. Only the player to move may be asked."""
        return self._actions(player, False)

    def search_actions(self) -> np.ndarray:
        """The legal actions a search considers: all but filling one's own true eye (never
        better under area scoring; the playouts skip them too)."""
        return self._actions(None, True)

    def _actions(self, player: int | None, skip_own_eyes: bool) -> np.ndarray:
        p = self.current_player()
        if p == TERMINAL or player not in (None, p):
            return np.empty(0, np.int64)
        out = np.empty(self.game.num_actions, np.int64)
        n = E.legal_points(self.buf, self.game.width, p + 1, self.game.superko,
                           skip_own_eyes, out)
        # Points run row by row like actions, so the actions come out sorted.
        return np.append(self.game.point_action[out[:n]], self.game.pass_action)

    def move_error(self, action: int) -> str | None:
        """Why ``action`` is illegal now (a sentence), or None if it is legal."""
        p = self.current_player()
        what = self.game.vertex(action) if 0 <= action < self.game.num_actions else str(action)
        if p == TERMINAL:
            return f"move {what} {E.ERROR_MESSAGES[E.ERR_OVER]}"
        if not 0 <= action < self.game.num_actions:
            return f"move {what} {E.ERROR_MESSAGES[E.ERR_RANGE]}"
        if action == self.game.pass_action:
            return None
        code = E.move_code(self.buf, self.game.width, int(self.game.action_point[action]), p + 1,
                           self.game.superko)
        return None if code == E.OK else f"move {what} {E.ERROR_MESSAGES[code]}"

    def apply_action(self, action: int) -> None:
        game = self.game
        if not 0 <= action < game.num_actions or E.try_move(
                self.buf, game.width, int(game.action_point[action]), game.superko) != E.OK:
            raise ValueError(self.move_error(int(action)))

    def clone(self) -> GoState:
        return GoState(self.game, self.buf.copy())

    def returns(self) -> np.ndarray:
        """+1 / -1 for the winner / loser by area and komi, zeros for a draw or before the end."""
        if not self.is_terminal():
            return np.zeros(2)
        s = np.sign(self.score())
        return np.array([s, -s], dtype=np.float64)

    def action_to_string(self, action: int) -> str:
        return self.game.vertex(action)

    def string_to_action(self, text: str) -> int:
        return self.game.parse_vertex(text)

    def key(self) -> int:
        """Hash of the stones, the player to move and the ko point (a signed 64-bit int)."""
        v = (self._m(E.META_HASH) ^ _KEY_TO_MOVE * self._m(E.META_TOMOVE)
             ^ _KEY_KO * self._m(E.META_KO)) & _MASK
        return v - (1 << 64) if v >= 1 << 63 else v

    # ---------------------------------------------------------------- Go-only
    def playout(self, policy: str = "uniform", epsilon: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
        """Play to the end in place (numba's generator); the (players, actions) played.

        ``policy``: ``uniform`` (random moves that keep the mover's own true eyes), ``fuego``
        (all of Fuego's rules that :mod:`.playouts` has), or ``fuego:`` and a comma-separated
        list of rule names (``fuego:atari_capture,low_liberty``), each rule a switch."""
        rules = playout_rules(policy)
        room = self.game.max_game_length - self._m(E.META_MOVES)
        players = np.empty(room, np.int64)
        points = np.empty(room, np.int64)
        t = P.playout(self.buf, self.game.width, rules, self._m(E.META_LASTMOVE), players, points)
        return players[:t], self.game.point_action[points[:t]]

    def prior_knowledge(self, kind: str = "simple") -> tuple[np.ndarray, np.ndarray]:
        """Even-game heuristics for the player to move (:func:`.playouts.prior_knowledge`):
        per action, a win rate in [0, 1] to assume and its weight in units of virtual games
        (0: unknown). ``kind``: ``simple`` (weight 1 where known; the pass never known) or
        ``fuego`` (Fuego's scheme, weights 1 and 3 for its 3 and 9 games; the pass weighs 3
        at 0.0). A search seeds new nodes with them as virtual wins."""
        if kind not in PRIOR_KINDS:
            raise ValueError(f"prior knowledge {kind!r} is not one of {PRIOR_KINDS}")
        game = self.game
        m = game.width ** 2
        value = np.zeros(m)
        weight = np.zeros(m, np.int64)
        colour = self._m(E.META_TOMOVE)
        fuego = kind == "fuego"
        if colour != 0:
            P.prior_knowledge(self.buf, game.width, colour, self._m(E.META_LASTMOVE), value, weight,
                              np.empty(P.WORK_SIZE, np.int64), fuego)
        points = game.action_point[:-1]
        return np.append(value[points], 0.0), np.append(weight[points], 3 if fuego and colour != 0 else 0)

    def area(self) -> tuple[int, int]:
        """(Black's, White's) area: stones plus empty regions bordered by that colour only."""
        black, white = E.area(self.buf, self.game.width)
        return int(black), int(white)

    def score(self) -> float:
        """Black's area minus White's minus komi (positive: Black leads)."""
        black, white = self.area()
        return black - white - self.game.komi

    def scores(self) -> np.ndarray:
        """Area per player, komi added to White's (the arena reports these)."""
        black, white = self.area()
        return np.array([black, white + self.game.komi])

    def board(self) -> np.ndarray:
        """[N, N] colours (0 empty, 1 black, 2 white), row 0 at the top."""
        return self.buf[self.game.action_point[:-1]].reshape(self.game.size, self.game.size).copy()

    def moves_played(self) -> int:
        return self._m(E.META_MOVES)

    def captures(self) -> tuple[int, int]:
        """Stones captured so far by (Black, White)."""
        return self._m(E.META_CAPB), self._m(E.META_CAPW)

    def set_up(self, stones: Iterable[tuple[int, int]], to_move: int = 0) -> None:
        """Add set-up stones ``(player, action)`` on empty points, then give the turn to
        ``to_move``; ValueError (state unchanged) if a point is taken or off the board."""
        stones = list(stones)
        taken = set()
        for player, action in stones:
            if player not in (0, 1):
                raise ValueError(f"set-up stone colour {player} is not 0 (black) or 1 (white)")
            if not 0 <= action < self.game.pass_action:
                raise ValueError(f"set-up stone {action} is not a point of the board")
            if self.buf[self.game.action_point[action]] != E.EMPTY or action in taken:
                raise ValueError(f"set-up stone at {self.game.vertex(action)} is on an occupied point")
            taken.add(action)
        if to_move not in (0, 1):
            raise ValueError(f"player to move {to_move} is not 0 (black) or 1 (white)")
        points = np.array([self.game.action_point[a] for _, a in stones], np.int64)
        colours = np.array([p + 1 for p, _ in stones], np.int64)
        E.set_up(self.buf, self.game.width, points, colours, to_move + 1)

    def give_turn(self, player: int) -> None:
        """Make ``player`` the one to move (GTP lets a controller play either colour at any
        time, and play on after two passes: a game ended by passes is resumed)."""
        if player not in (0, 1):
            raise ValueError(f"player {player} is not 0 (black) or 1 (white)")
        if self.is_terminal():
            if self._m(E.META_MOVES) >= self.game.max_game_length:
                raise ValueError(f"the game is over: it reached its {self.game.max_game_length} moves")
            self.buf[self._meta + E.META_PASSES] = 0
            self.buf[self._meta + E.META_LASTPASS] = 0
        elif self._m(E.META_TOMOVE) != player + 1:
            self.buf[self._meta + E.META_KO] = 0  # the ko ban was on the other colour
        self.buf[self._meta + E.META_TOMOVE] = player + 1

    def __str__(self) -> str:
        n = self.game.size
        rows = [f"{n - y:2d} " + " ".join(".XO"[c] for c in row) for y, row in enumerate(self.board())]
        return "\n".join(["   " + " ".join(COLUMNS[:n]), *rows])
