"""The network's 33 input planes for a Blokus position, and the mover's frame (SPEC §3).

Plane ``4 t + j`` (t = 0..7, j = 0..3) holds, as 0/1 on a [20, 20] grid indexed [y, x] like
:meth:`BlokusState.board`, the squares of the colour j turns after the player to move at s
(j = 0: the mover) in the position t placements ago, s-t. Positions are counted in
placements (a skipped colour makes none); those before the first placement are empty.
Plane 32 is filled with (pieces on the board) / 84.

Every plane, history included, is relative to the mover at s, as AlphaZero's history planes
are relative to the current player. (The paper's Table 1, "the player to move of 7 moves
before s", can also be read as the mover at s-7; one frame keeps each colour on one plane index.)

The network's 4 values and the value targets z are in the same frame: index j = the colour
j turns after the mover; :func:`to_mover_frame` and :func:`from_mover_frame` convert. Policy
logits and targets need no conversion: they are indexed by placement id (30,433), which names
squares and a piece, never a colour (the mover is the colour that plays it).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import engine as E
from . import tables as T
from .game import BlokusState

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


def _seat_index(mover, sign: int) -> np.ndarray:
    mover = np.asarray(mover)
    return (sign * mover[..., None] + np.arange(NUM_PLAYERS)) % NUM_PLAYERS


def to_mover_frame(values: np.ndarray, mover) -> np.ndarray:
    """Per-colour ``values`` [..., 4] seen from ``mover`` (int or array over the leading dims):
    ``out[..., j] = values[..., (mover + j) % 4]``, j = 0 the mover."""
    values = np.asarray(values)
    return np.take_along_axis(values, np.broadcast_to(_seat_index(mover, 1), values.shape), axis=-1)


def from_mover_frame(values: np.ndarray, mover) -> np.ndarray:
    """Inverse of :func:`to_mover_frame`: ``out[..., c] = values[..., (c - mover) % 4]``."""
    values = np.asarray(values)
    return np.take_along_axis(values, np.broadcast_to(_seat_index(mover, -1), values.shape), axis=-1)
