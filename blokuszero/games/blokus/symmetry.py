"""The 8 symmetries of the Blokus board as maps on squares, placements and colours.

Symmetry k maps square (x, y) by :func:`.tables.dihedral` (0 identity, 1-3 rotations by 90,
180, 270 degrees counter-clockwise, 4-7 mirror images). Each maps the starting corners onto
each other and so relabels the colours: colour c's pieces become colour ``COLOR_MAP[k, c]``'s.

Only the identity and the rotations keep the turn order (Blue, Yellow, Red, Green go round
the board clockwise); a mirror image reverses it. A position and its mirror image therefore
have the same legal moves for corresponding colours, but the games that follow differ in
who moves after whom: use mirrors for data augmentation knowing that.
"""

from __future__ import annotations

import numpy as np

from . import tables as T

NUM_SYMMETRIES = T.NUM_SYMMETRIES
ROTATIONS = (0, 1, 2, 3)


def _square_maps() -> np.ndarray:
    out = np.empty((NUM_SYMMETRIES, T.NUM_SQUARES), dtype=np.int16)
    for k in range(NUM_SYMMETRIES):
        for sq in range(T.NUM_SQUARES):
            x, y = T.dihedral(k, sq % T.BOARD_SIZE, sq // T.BOARD_SIZE)
            out[k, sq] = y * T.BOARD_SIZE + x
    return out


#: [8, 400]: image of each square under each symmetry.
SQUARE_MAP = _square_maps()


def _placement_maps() -> np.ndarray:
    out = np.empty((NUM_SYMMETRIES, T.NUM_PLACEMENTS), dtype=np.int32)
    for k in range(NUM_SYMMETRIES):
        out[k] = T.find_placements(np.where(T.PLACEMENTS >= 0, SQUARE_MAP[k][T.PLACEMENTS], -1))
    return out


#: [8, 30433]: image of each placement id under each symmetry.
PLACEMENT_MAP = _placement_maps()

#: [8, 4]: the colour whose corner is the image of colour c's corner.
COLOR_MAP = np.array([[list(T.CORNERS).index(SQUARE_MAP[k, corner]) for corner in T.CORNERS]
                      for k in range(NUM_SYMMETRIES)], dtype=np.int8)


def transform_board(board: np.ndarray, k: int) -> np.ndarray:
    """Image of a [20, 20] (or [..., 20, 20]) per-square array under symmetry ``k``."""
    flat = board.reshape(*board.shape[:-2], T.NUM_SQUARES)
    out = np.empty_like(flat)
    out[..., SQUARE_MAP[k]] = flat
    return out.reshape(board.shape)
