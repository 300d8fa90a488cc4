"""Scoring a finished Go game with its dead stones removed, as GTP's ``final_score`` and
``final_status_list`` do.

Engines pass when the game is settled, dead stones still on the board. Which stones are dead
is judged from playout ownership (Fuego's way): from the final position, many eye-keeping
random playouts are played on; a group whose points end up, on average, in the opponent's area
is dead, unless it survives most playouts that refuse self-ataris of two or more stones
(:data:`.playouts.SELF_ATARI`): random playouts fill the shared liberties of a seki and kill
one side at random, the corrected ones leave a seki standing (and alone would keep some dead
groups alive that only a self-atari kills). Seki: an alive group that shares a liberty with an
alive group of the other colour (in a finished game under Chinese rules the dame are filled,
so only seki leaves such points).
The area is then counted with the dead stones taken off (Chinese rules, komi for White).
This agrees with GNU Go's ``final_score`` and ``final_status_list dead`` on the games of
``tests/data/go_gnugo_scored/`` (``tests/test_go_gnugo.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..numba_random import seed_numba
from . import rules as E
from .game import GoState
from .playouts import SELF_ATARI, ownership

ALIVE, DEAD, SEKI = "alive", "dead", "seki"
RESCUE = 0.5  # a group its colour owns by this margin in corrected playouts is not dead
STATUSES = (ALIVE, DEAD, SEKI)


@dataclass(frozen=True)
class FinalStatus:
    """Per-point results of the dead-stone judgement; arrays are [N, N], row 0 at the top."""

    ownership: np.ndarray  # mean owner at the playouts' end: +1 Black, -1 White
    status: np.ndarray  # object array: "alive", "dead", "seki" on stones, "" on empty points
    group: np.ndarray  # the group (an id shared by its stones) of each stone, -1 on empty points
    score: float  # Black's area minus White's minus komi, dead stones removed


def final_status(state: GoState, playouts: int = 1000, seed: int = 0) -> FinalStatus:
    """Judge every stone of ``state`` alive, dead or in seki and score the game without the dead.

    ``playouts`` random games from this position (the colour to move, or Black after the end,
    moves first) decide; ``seed`` seeds numba's generator, so a position always scores the same.
    """
    if playouts < 1:
        raise ValueError(f"playouts must be >= 1, not {playouts}")
    game, buf, w = state.game, state.buf, state.game.width
    points = game.action_point[:-1]  # [A - 1]
    to_move = state.current_player()
    first = E.BLACK if to_move < 0 else to_move + 1
    colour = buf[points]  # [A - 1]
    group = buf[w * w + points]  # [A - 1] representative point of each stone's group
    stone = colour != E.EMPTY
    _, inverse = np.unique(np.where(stone, group, -1), return_inverse=True)

    def ownership_of(rules: int) -> tuple[np.ndarray, np.ndarray]:
        """Mean owner per point (+1 Black) and per stone its group's mean ownership from its
        own colour's point of view, over ``playouts`` playouts with ``rules``."""
        seed_numba(seed)
        total = np.zeros(w * w)
        ownership(buf, w, playouts, first, rules, total)
        own = total[points] / playouts  # [A - 1]
        signed = np.where(colour == E.BLACK, own, -own)
        return own, (np.bincount(inverse, signed) / np.bincount(inverse))[inverse]

    # Uniform playouts: the judgement GNU Go was found to agree with on the stored games; the
    # self-atari-corrected ones rescue the groups they keep (sekis).
    own, uniform = ownership_of(0)
    _, corrected = ownership_of(SELF_ATARI)
    dead = stone & (uniform < 0) & ~(corrected > RESCUE)
    board = buf.copy()
    board[points[dead]] = E.EMPTY  # area reads only the colour section
    status = np.full(len(points), "", object)
    status[stone] = ALIVE
    status[dead] = DEAD
    status[_seki(board, w, points, group, stone & ~dead)] = SEKI
    black, white = E.area(board, w)
    n = game.size
    return FinalStatus(own.reshape(n, n), status.reshape(n, n), np.where(stone, group, -1).reshape(n, n),
                       float(black - white - game.komi))


def _seki(board: np.ndarray, w: int, points: np.ndarray, group: np.ndarray, alive: np.ndarray) -> np.ndarray:
    """[A - 1] alive stones whose group shares a liberty with an alive group of the other colour."""
    steps = np.array([1, -1, w, -w])
    colour = board[points]
    shared = np.zeros(w * w, bool)  # empty points touching alive stones of both colours
    touches = np.zeros((w * w, 3), bool)
    for c in (E.BLACK, E.WHITE):
        nbrs = (points[alive & (colour == c)][:, None] + steps).ravel()
        touches[nbrs, c] = True
    shared[:] = touches[:, E.BLACK] & touches[:, E.WHITE] & (board[: w * w] == E.EMPTY)
    # Groups with a stone next to a shared point are in seki; mark every stone of them.
    next_to = alive & shared[points[:, None] + steps].any(axis=1)
    return alive & np.isin(group, group[next_to])


def format_score(score: float) -> str:
    """GTP's form of a score: ``B+3.5``, ``W+0.5`` or ``0``."""
    return "0" if score == 0 else f"{'B' if score > 0 else 'W'}+{abs(score):g}"
