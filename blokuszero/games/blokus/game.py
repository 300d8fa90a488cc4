"""Classic 4-colour Blokus (SPEC §1) behind the common game interface.

Players 0-3 are the colours Blue, Yellow, Red, Green, moving in that order; a colour
without a legal move is skipped, and the game ends when no colour can move. Actions
are placement ids (see :mod:`.tables`), written in Pentobi's notation.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ..base import TERMINAL, Game, Seed, State
from . import kernels  # noqa: F401  (registers the numba-level interface for Blokus positions)
from . import rules as E
from . import tables as T
from .notation import placement_to_string, string_to_placement

_MOVES_BUFFER = np.empty(T.NUM_PLACEMENTS, dtype=np.int32)
PLAYOUT_POLICIES = {"uniform": E.UNIFORM, "largest_piece": E.LARGEST_PIECE}


def _colour_index(colour: int) -> int:
    if not 0 <= colour < T.NUM_COLORS:
        raise ValueError(f"{colour} is not a colour (0-3 = {', '.join(T.COLOR_NAMES)})")
    return colour


class BlokusState(State):
    """A Blokus position. All data lives in :class:`.rules.Arrays` for the numba kernels."""

    __slots__ = ("arrays",)

    def __init__(self, arrays: E.Arrays | None = None) -> None:
        if arrays is None:
            arrays = E.new_arrays()
            E.reset(arrays, E.TABLES)
        self.arrays = arrays

    @classmethod
    def from_moves(cls, moves: Iterable[tuple[int, int]], to_move: int = 0) -> BlokusState:
        """A position set up by placing ``(colour, placement)`` pairs in any colour order.

        Each placement must be legal for its colour when it is put down; ``to_move`` (or the
        next colour after it that can move) moves next.
        """
        state = cls()
        for colour, m in moves:
            state._check(_colour_index(colour), m)
            E.place(state.arrays, E.TABLES, colour, m)
        E.set_to_move(state.arrays, E.TABLES, _colour_index(to_move))
        return state

    @classmethod
    def replay(cls, players: np.ndarray, actions: np.ndarray) -> BlokusState:
        """The position after a recorded game's moves, in one numba call (for training data).

        The moves are trusted to be legal; ValueError if the colours do not follow turn order.
        """
        state = cls()
        done = E.replay(state.arrays, E.TABLES, np.asarray(players, np.int64), np.asarray(actions, np.int64))
        if done != len(actions):
            raise ValueError(f"recorded move {done} is by {T.COLOR_NAMES[int(players[done])]}, "
                             f"but {T.COLOR_NAMES[state.current_player()]} is to move")
        return state

    def current_player(self) -> int:
        return int(self.arrays.meta[E.TO_MOVE])

    def legal_actions(self, player: int | None = None) -> np.ndarray:
        """Sorted legal placements of ``player`` (default: the colour to move).

        Any colour may be asked, as Pentobi's ``all_legal`` does; none once the game is over.
        """
        if self.is_terminal():
            return np.empty(0, dtype=np.int32)
        c = self.current_player() if player is None else _colour_index(player)
        n = E.legal_moves(self.arrays, E.TABLES, c, _MOVES_BUFFER)
        return np.sort(_MOVES_BUFFER[:n])

    def _check(self, colour: int, action: int) -> None:
        code = E.move_error(self.arrays, E.TABLES, colour, int(action))
        if code != E.OK:
            what = placement_to_string(action) if code != E.ERR_RANGE else str(action)
            raise ValueError(f"{T.COLOR_NAMES[colour]} move {what} is illegal: it "
                             f"{E.ERROR_MESSAGES[code]}")

    def apply_action(self, action: int) -> None:
        c = self.current_player()
        if c == TERMINAL:
            raise ValueError(f"move {action} cannot be played: the game is over")
        self._check(c, action)
        E.apply_move(self.arrays, E.TABLES, int(action))

    def apply_action_for(self, player: int, action: int, next_player: int) -> None:
        """Play ``action`` for ``player`` out of turn, then give the turn to ``next_player``
        (or the next colour after it that can move). Best-Reply Search moves this way."""
        self._check(_colour_index(player), action)
        E.place(self.arrays, E.TABLES, player, int(action))
        E.set_to_move(self.arrays, E.TABLES, _colour_index(next_player))

    def compact(self) -> None:
        """Drop the stale candidate moves of every colour (the position is unchanged): search
        calls it on its root, so that each simulation's copy starts without them."""
        E.compact(self.arrays, E.TABLES)

    def clone(self) -> BlokusState:
        arrays = E.new_arrays()
        E.copy_into(arrays, self.arrays, E.TABLES)
        return BlokusState(arrays)

    def scores(self) -> np.ndarray:
        """Advanced score per colour: -1 per unplaced square, +15 if all 21 pieces are placed,
        +5 more if the last of them was the monomino."""
        out = np.zeros(T.NUM_COLORS, dtype=np.int64)
        E.scores(self.arrays, E.TABLES, out)
        return out

    def returns(self) -> np.ndarray:
        """+1 for every colour with the highest score, -1 for the others; zeros before the end."""
        if not self.is_terminal():
            return np.zeros(T.NUM_COLORS)
        s = self.scores()
        return np.where(s == s.max(), 1.0, -1.0)

    def action_to_string(self, action: int) -> str:
        return placement_to_string(int(action))

    def string_to_action(self, text: str) -> int:
        return string_to_placement(text)

    def key(self) -> int:
        return int(self.arrays.meta[E.KEY])

    def board(self) -> np.ndarray:
        """[20, 20] int8 array of colours (-1 empty), indexed [y, x] with y = 0 the bottom row."""
        return self.arrays.board.reshape(T.BOARD_SIZE, T.BOARD_SIZE).copy()

    def history(self) -> list[tuple[int, int]]:
        """The ``(colour, placement)`` of every move so far, in order."""
        n = int(self.arrays.meta[E.NUM_PLACED])
        return [(int(c), int(m)) for c, m in self.arrays.history[:n]]

    def squares_placed(self) -> np.ndarray:
        """Squares covered by each colour (the depth-first searches' evaluation, SPEC §2)."""
        board = self.arrays.board
        return np.bincount(board[board >= 0], minlength=T.NUM_COLORS)

    def playout(self, policy: str = "uniform", epsilon: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
        """Play random moves to the end in numba; return the (players, actions) played.

        ``policy``: ``"uniform"``, or ``"largest_piece"`` (with probability 1 - epsilon a
        uniformly random move among those of the largest piece size available, SPEC §2).
        Randomness comes from numba's generator: seed it with :func:`~blokuszero.games.numba_random.seed_numba`.
        """
        code = self.playout_code(policy)
        start = int(self.arrays.meta[E.NUM_PLACED])
        E.playout(self.arrays, E.TABLES, code, epsilon)
        moves = self.arrays.history[start:int(self.arrays.meta[E.NUM_PLACED])]
        return moves[:, 0].copy(), moves[:, 1].copy()

    def playout_code(self, policy: str) -> int:
        """The rules kernels' code of playout policy ``policy`` (for compiled search)."""
        if policy not in PLAYOUT_POLICIES:
            raise ValueError(f"unknown playout policy {policy!r}; Blokus has {sorted(PLAYOUT_POLICIES)}")
        return PLAYOUT_POLICIES[policy]

    def numba_state(self) -> tuple[E.Arrays, E.Tables]:
        """The position's arrays and the fixed tables, for compiled search
        (:mod:`blokuszero.games.kernels`)."""
        return self.arrays, E.TABLES

    def __str__(self) -> str:
        marks = "BYRG"
        rows = []
        for y in range(T.BOARD_SIZE - 1, -1, -1):
            row = self.arrays.board[y * T.BOARD_SIZE:(y + 1) * T.BOARD_SIZE]
            rows.append(f"{y + 1:2d} " + " ".join(marks[v] if v >= 0 else "." for v in row))
        rows.append("   " + " ".join("abcdefghijklmnopqrst"))
        c = self.current_player()
        rows.append("game over" if c == TERMINAL else f"{T.COLOR_NAMES[c]} to move")
        return "\n".join(rows)


class BlokusGame(Game):
    """Classic Blokus for four players, one colour each."""

    name = "blokus"
    num_players = T.NUM_COLORS
    num_actions = T.NUM_PLACEMENTS
    max_game_length = E.MAX_PLACEMENTS

    def new_initial_state(self, seed: Seed = None) -> BlokusState:
        """The empty board, Blue to move (Blokus has no chance: ``seed`` is unused)."""
        return BlokusState()

    def depth_first_heuristics(self):
        """Squares placed per colour as the evaluation, larger pieces first (stable, so the rest
        keeps its order), and the bound on the sum ``depth`` placements on (SPEC §2)."""

        def evaluate(state: BlokusState) -> np.ndarray:
            return state.squares_placed().astype(np.float64)

        def order(state: BlokusState, player: int, actions: np.ndarray) -> np.ndarray:
            return actions[np.argsort(-T.PLACEMENT_SIZE[actions], kind="stable")]

        def max_sum(state: BlokusState, depth: int) -> float:
            return float(state.squares_placed().sum() + T.MAX_PIECE_SIZE * depth)

        return evaluate, order, max_sum

    def gtp_passes(self) -> bool:
        """Pentobi's dialect: only a colour that can move is asked, and no colour resigns."""
        return False

    def gtp_colour(self, player: int) -> str:
        """Colours ``1``-``4``."""
        return str(player + 1)

    def gtp_setup(self) -> list[str]:
        """Nothing: classic Blokus has no options."""
        return []
