"""The network's 33 input planes for a Blokus position, the mover's frame, and the board
symmetries on encoded data (SPEC §3).

Plane ``4 t + j`` (t = 0..7, j = 0..3) holds, as 0/1 on a [20, 20] grid indexed [y, x] like
:meth:`BlokusState.board`, the squares of the colour j turns after the player to move at s
(j = 0: the mover) in the position t placements ago, s-t. Positions are counted in
placements (a skipped colour makes none); those before the first placement are empty.
Plane 32 is filled with (pieces on the board) / 84.

Every plane, history included, is relative to the mover at s, as AlphaZero's history planes
are relative to the current player. (The paper's Table 1, "the player to move of 7 moves
before s", can also be read as the mover at s-7; one frame keeps each colour on one plane index.)

The network's 4 values and the value targets z are in the same frame: index j = the colour
j turns after the mover; :func:`~blokuszero.games.encoding.to_mover_frame` and
:func:`~blokuszero.games.encoding.from_mover_frame` convert. Policy
logits and targets need no conversion: they are indexed by placement id (30,433), which names
squares and a piece, never a colour (the mover is the colour that plays it).

:class:`BlokusEncoder` is this encoding as the game's :class:`~blokuszero.games.encoding.Encoder`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..encoding import Encoder, PolicyMap
from . import rules as E
from . import tables as T
from .game import BlokusGame, BlokusState
from .symmetry import COLOR_MAP, NUM_SYMMETRIES, PLACEMENT_MAP, ROTATIONS, transform_board

NUM_PLAYERS = T.NUM_COLORS
HISTORY = 8  # positions s, s-1, ..., s-7
NUM_PLANES = HISTORY * NUM_PLAYERS + 1  # 33
BOARD_SIZE = T.BOARD_SIZE
NUM_ACTIONS = T.NUM_PLACEMENTS  # 30,433 policy outputs, one per placement id


def encode(state: BlokusState) -> np.ndarray:
    """[33, 20, 20] float32 input planes of ``state``; ValueError once the game is over."""
    return encode_batch([state])[0]


def encode_batch(states: Sequence[BlokusState]) -> np.ndarray:
    """[B, 33, 20, 20] float32 input planes of ``states`` (layout in the module docstring)."""
    if not states:
        return np.zeros((0, NUM_PLANES, BOARD_SIZE, BOARD_SIZE), np.float32)
    arrays = [s.arrays for s in states]
    mover = np.array([a.meta[E.TO_MOVE] for a in arrays], np.int64)  # [B]
    if (mover == E.NO_PLAYER).any():
        raise ValueError(f"state {int(np.argmax(mover == E.NO_PLAYER))} of the batch is terminal: "
                         "no player to move, so no input planes")
    placed = np.array([a.meta[E.NUM_PLACED] for a in arrays], np.int64)  # [B]
    history = np.stack([a.history for a in arrays])  # [B, 84, 2]
    board = np.stack([a.board for a in arrays]).astype(np.int64)  # [B, 400]

    # placed_at[b, sq]: index of the placement that covered sq (84 = never). Squares are never
    # emptied, so sq is occupied at s-t exactly when placed_at < placed - t.
    made = np.arange(E.MAX_PLACEMENTS) < placed[:, None]  # [B, 84]; later rows are stale memory
    cells = T.PLACEMENTS[np.where(made, history[:, :, 1], 0)]  # [B, 84, 5]
    hit = made[:, :, None] & (cells >= 0)
    batch, move, _ = np.nonzero(hit)
    placed_at = np.full(board.shape, E.MAX_PLACEMENTS, np.int64)
    placed_at[batch, cells[hit]] = move

    present = placed_at[:, None, :] < (placed[:, None] - np.arange(HISTORY))[:, :, None]  # [B, 8, 400]
    seat = (board - mover[:, None]) % NUM_PLAYERS  # [B, 400]; empty squares are never present
    owned = seat[:, None, :] == np.arange(NUM_PLAYERS)[:, None]  # [B, 4, 400]
    out = np.empty((len(states), NUM_PLANES, T.NUM_SQUARES), np.float32)
    out[:, :-1] = (present[:, :, None, :] & owned[:, None, :, :]).reshape(len(states), -1, T.NUM_SQUARES)
    out[:, -1] = (placed / E.MAX_PLACEMENTS)[:, None]
    return out.reshape(len(states), NUM_PLANES, BOARD_SIZE, BOARD_SIZE)


# ---------------------------------------------------------------- symmetries
# Board symmetries applied to encoded positions and their targets (SPEC §3: the paper's
# future work suggests rotations and reflections).
#
# Symmetry k (see :mod:`blokuszero.games.blokus.symmetry`) moves squares and placements and
# relabels colour c as ``COLOR_MAP[k, c]``. The encoder's planes and values are indexed by
# seat, j = turns after the mover, so what matters is what k does to seats:
#
# - a rotation shifts every colour by the same step, so seats keep their index: only squares
#   and placements move;
# - a mirror maps colour c to r - c (mod 4): the colour j turns after the mover becomes the one
#   j turns *before* the image of the mover, seat -j. Seats 1 (next) and 3 (last) swap; 0 and 2
#   stay.
#
# With the seats remapped, the images are exact for the position itself: the planes of the
# mirrored (or rotated) placements, set up with the image of the mover to move, equal the
# transformed planes, and so do its legal moves. For a rotation the game that follows is the
# image of the original one, so pi and z carry over exactly. A mirror reverses the turn order:
# after the mover, the image of the *last* colour moves, not that of the next one, and the
# mirrored history planes show the colours moving in reverse order, which no real game does. A
# mirrored (planes, pi, z) is therefore an approximation, a plausible sample of a game with the
# opposite turn order; use mirrors for augmentation knowing that, or only the rotations
# (``symmetry.ROTATIONS``).

#: [8, 4]: seat j of a position becomes seat SEAT_MAP[k, j] of its image under symmetry k
#: (the same for every mover, since COLOR_MAP[k] is c -> +-c + r).
SEAT_MAP = ((COLOR_MAP - COLOR_MAP[:, :1]) % NUM_PLAYERS).astype(np.int64)
_SEAT_SOURCE = np.argsort(SEAT_MAP, axis=1)  # [8, 4]: the seat whose data lands on seat j
# [8, 33]: the input plane that lands on each plane (plane 32, the piece count, stays).
_PLANE_SOURCE = np.concatenate([
    (NUM_PLAYERS * np.arange(HISTORY)[:, None] + _SEAT_SOURCE[:, None, :]).reshape(NUM_SYMMETRIES, -1),
    np.full((NUM_SYMMETRIES, 1), NUM_PLANES - 1)], axis=1)
_PLACEMENT_SOURCE = np.argsort(PLACEMENT_MAP, axis=1)  # [8, 30433]


def transform_planes(planes: np.ndarray, k: int) -> np.ndarray:
    """Image under symmetry ``k`` of encoded planes [..., 33, 20, 20]."""
    return transform_board(planes[..., _PLANE_SOURCE[k], :, :], k)


def transform_policy(policy: np.ndarray, k: int) -> np.ndarray:
    """Image of per-placement data [..., 30433] (pi, logits, legal masks):
    ``out[..., PLACEMENT_MAP[k, m]] = policy[..., m]``."""
    return policy[..., _PLACEMENT_SOURCE[k]]


def transform_value(values: np.ndarray, k: int) -> np.ndarray:
    """Image of mover's-frame values [..., 4] (z or v): ``out[SEAT_MAP[k, j]] = values[j]``."""
    return values[..., _SEAT_SOURCE[k]]


def placement_anchors() -> np.ndarray:
    """[30433] square of each placement's anchor: the centre of its bounding box (rounded
    down and to the left), i.e. the translation offset plus a constant per orientation."""
    cells = T.PLACEMENTS.astype(np.int64)
    real = cells >= 0
    x, y = cells % T.BOARD_SIZE, cells // T.BOARD_SIZE
    big = T.BOARD_SIZE  # ignored by min (padding)
    x_lo, x_hi = np.where(real, x, big).min(1), np.where(real, x, -1).max(1)
    y_lo, y_hi = np.where(real, y, big).min(1), np.where(real, y, -1).max(1)
    return (y_lo + (y_hi - y_lo) // 2) * T.BOARD_SIZE + x_lo + (x_hi - x_lo) // 2


class BlokusEncoder(Encoder):
    """The 33 planes above; policy map: one plane per piece orientation (91), placement m's
    logit at its anchor square (:func:`placement_anchors`); exact symmetries: the rotations.

    Within one orientation the placements are the translations of one shape, so anchor =
    translation offset + a constant and every placement owns one (plane, square) cell. The
    constant puts the anchor at the centre of the bounding box rather than its corner: a 1x1
    convolution sees only the trunk's receptive field around the anchor (radius 5 squares for
    2 blocks), and from the centre the piece's cells and the edge and corner neighbours that
    decide its legality lie within 3 squares, against 5 from the corner.
    """

    num_planes = NUM_PLANES
    board_size = BOARD_SIZE
    symmetries = ROTATIONS
    score_scale = 20.0  # advanced scores run from -89 (nothing placed) to +20

    def __init__(self, game: BlokusGame | None = None) -> None:
        self.game = game or BlokusGame()

    def encode_batch(self, states: Sequence[BlokusState]) -> np.ndarray:
        return encode_batch(states)

    def policy_map(self) -> PolicyMap:
        index = T.PLACEMENT_ORIENTATION.astype(np.int64) * T.NUM_SQUARES + placement_anchors()
        return PolicyMap(planes=T.NUM_ORIENTATIONS, globals=0, index=index)

    def replay(self, players: np.ndarray, actions: np.ndarray) -> BlokusState:
        return BlokusState.replay(players, actions)  # one numba call

    def board(self, state: BlokusState) -> np.ndarray:
        return state.board()[::-1].astype(np.int64)  # row 20 at the top, as Pentobi draws it

    def players(self) -> list[tuple[str, tuple[int, int, int]]]:
        return list(zip(T.COLOR_NAMES, [(30, 90, 220), (230, 200, 20), (210, 40, 40), (40, 170, 60)]))

    def transform_planes(self, planes: np.ndarray, k: int) -> np.ndarray:
        return transform_planes(planes, k)

    def transform_actions(self, actions: np.ndarray, k: int) -> np.ndarray:
        return PLACEMENT_MAP[k][actions]

    def transform_values(self, values: np.ndarray, k: int) -> np.ndarray:
        return transform_value(values, k)

