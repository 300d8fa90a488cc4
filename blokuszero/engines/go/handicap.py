"""Go's handicap stones over GTP: the fixed layout GTP v2 prescribes and our choice of free ones."""

from __future__ import annotations

import numpy as np

from ...protocols.gtp import GtpError


def handicap_points(size: int, stones: int) -> list[int]:
    """Actions of GTP's fixed handicap layout: star points on the 3rd line (4th from 13x13 up),
    corners first, then the sides' middles and the centre as GTP v2 section 4.1.1 orders them.
    GtpError where GTP allows no such layout (boards under 7x7; over 4 stones on 7x7 and even
    boards; over 9 elsewhere)."""
    if size < 7:
        raise GtpError(f"invalid number of stones: no fixed handicap on a {size}x{size} board (7x7 and up)")
    most = 4 if size == 7 or size % 2 == 0 else 9
    if not 2 <= stones <= most:
        raise GtpError(f"invalid number of stones: {stones} (2 to {most} on {size}x{size})")
    lo = 2 if size < 13 else 3
    hi, mid = size - 1 - lo, size // 2
    # (column, row from the top): D4 Q16 D16 Q4 on 19x19, then D10 Q10, K4 K16, K10.
    corners = [(lo, hi), (hi, lo), (lo, lo), (hi, hi)]
    sides, centre = [(lo, mid), (hi, mid), (mid, hi), (mid, lo)], [(mid, mid)]
    layout = {2: corners[:2], 3: corners[:3], 4: corners, 5: corners + centre, 6: corners + sides[:2],
              7: corners + sides[:2] + centre, 8: corners + sides, 9: corners + sides + centre}[stones]
    return [y * size + x for x, y in layout]


def free_handicap_points(size: int, stones: int) -> list[int]:
    """Our choice of ``stones`` free handicap stones: the fixed layout as far as it goes, then
    each further stone on the point farthest from those placed (off the first two lines where
    the board has room), ties to the lowest action."""
    if not 2 <= stones < size * size:
        raise GtpError(f"invalid number of stones: {stones} (2 to {size * size - 1} on {size}x{size})")
    fixed = 0 if size < 7 else (4 if size == 7 or size % 2 == 0 else 9)
    chosen = handicap_points(size, min(stones, fixed)) if fixed >= 2 else []
    ys, xs = np.divmod(np.arange(size * size), size)
    edge = np.minimum(np.minimum(xs, ys), np.minimum(size - 1 - xs, size - 1 - ys))
    inner = edge >= 2 if size >= 7 else np.ones(size * size, bool)
    free = np.ones(size * size, bool)
    free[chosen] = False
    while len(chosen) < stones:
        if chosen:
            cy, cx = np.divmod(np.array(chosen), size)
            dist = ((ys[:, None] - cy) ** 2 + (xs[:, None] - cx) ** 2).min(axis=1).astype(float)
        else:
            dist = -((ys - size // 2) ** 2 + (xs - size // 2) ** 2).astype(float)  # the centre first
        pool = free & inner if (free & inner).any() else free
        best = int(np.argmax(np.where(pool, dist, -np.inf)))
        chosen.append(best)
        free[best] = False
    return chosen
