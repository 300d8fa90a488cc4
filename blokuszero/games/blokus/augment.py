"""Board symmetries applied to encoded positions and their targets (SPEC §3: the paper's
future work suggests rotations and reflections).

Symmetry k (see :mod:`blokuszero.games.blokus.symmetry`) moves squares and placements and
relabels colour c as ``COLOR_MAP[k, c]``. The encoder's planes and values are indexed by
seat, j = turns after the mover, so what matters is what k does to seats:

- a rotation shifts every colour by the same step, so seats keep their index: only squares
  and placements move;
- a mirror maps colour c to r - c (mod 4): the colour j turns after the mover becomes the one
  j turns *before* the image of the mover, seat -j. Seats 1 (next) and 3 (last) swap; 0 and 2
  stay.

With the seats remapped, the images are exact for the position itself: the planes of the
mirrored (or rotated) placements, set up with the image of the mover to move, equal the
transformed planes, and so do its legal moves. For a rotation the game that follows is the
image of the original one, so pi and z carry over exactly. A mirror reverses the turn order:
after the mover, the image of the *last* colour moves, not that of the next one, and the
mirrored history planes show the colours moving in reverse order, which no real game does. A
mirrored (planes, pi, z) is therefore an approximation, a plausible sample of a game with the
opposite turn order; use mirrors for augmentation knowing that, or only the rotations
(``symmetry.ROTATIONS``).
"""

from __future__ import annotations

import numpy as np

from .symmetry import COLOR_MAP, NUM_SYMMETRIES, PLACEMENT_MAP, transform_board
from .encoder import HISTORY, NUM_PLANES, NUM_PLAYERS

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
