"""Fixed tables of classic Blokus: pieces, orientations and the 30,433 placements.

The action id of a placement is its index in :data:`PLACEMENTS`, ordered by
piece (the order of :data:`PIECE_NAMES`), then orientation (the order in which
:func:`orientations` first meets it), then the translation of the orientation's
bounding box, row-major from the bottom-left (y, then x). This order is part of
the public interface: saved networks and games depend on it, and
``tests/test_blokus_tables.py`` pins it with a digest.

Squares are numbered ``sq = y * 20 + x`` with x = column (a..t = 0..19) and
y = row (1..20 = 0..19), so square 0 is Pentobi's ``a1`` (bottom-left).
"""

from __future__ import annotations

import numpy as np

BOARD_SIZE = 20
NUM_SQUARES = BOARD_SIZE * BOARD_SIZE
NUM_COLORS = 4
COLOR_NAMES = ("Blue", "Yellow", "Red", "Green")
MAX_PIECE_SIZE = 5

# Pentobi's piece names and one orientation of each, as (x, y) cells.
PIECE_SHAPES: dict[str, tuple[tuple[int, int], ...]] = {
    "1": ((0, 0),),
    "2": ((0, 0), (1, 0)),
    "I3": ((0, 0), (1, 0), (2, 0)),
    "V3": ((0, 0), (1, 0), (0, 1)),
    "I4": ((0, 0), (1, 0), (2, 0), (3, 0)),
    "L4": ((0, 0), (1, 0), (0, 1), (0, 2)),
    "T4": ((0, 0), (1, 0), (2, 0), (1, 1)),
    "O4": ((0, 0), (1, 0), (0, 1), (1, 1)),
    "Z4": ((0, 0), (1, 0), (1, 1), (2, 1)),
    "F": ((1, 0), (0, 1), (1, 1), (1, 2), (2, 2)),
    "I5": ((0, 0), (1, 0), (2, 0), (3, 0), (4, 0)),
    "L5": ((0, 0), (1, 0), (0, 1), (0, 2), (0, 3)),
    "N": ((0, 0), (1, 0), (1, 1), (2, 1), (3, 1)),
    "P": ((0, 0), (1, 0), (0, 1), (1, 1), (0, 2)),
    "T5": ((1, 0), (1, 1), (0, 2), (1, 2), (2, 2)),
    "U": ((0, 0), (2, 0), (0, 1), (1, 1), (2, 1)),
    "V5": ((0, 0), (1, 0), (2, 0), (0, 1), (0, 2)),
    "W": ((0, 0), (1, 0), (1, 1), (2, 1), (2, 2)),
    "X": ((1, 0), (0, 1), (1, 1), (2, 1), (1, 2)),
    "Y": ((0, 0), (1, 0), (2, 0), (3, 0), (1, 1)),
    "Z5": ((0, 0), (1, 0), (1, 1), (1, 2), (2, 2)),
}
PIECE_NAMES = tuple(PIECE_SHAPES)
NUM_PIECES = len(PIECE_NAMES)
PIECE_SIZES = np.array([len(PIECE_SHAPES[n]) for n in PIECE_NAMES], dtype=np.int8)
TOTAL_SQUARES = int(PIECE_SIZES.sum())  # 89
MONOMINO = PIECE_NAMES.index("1")

# Starting corner of each colour, as Pentobi places them: Blue a20, Yellow t20, Red t1, Green a1.
CORNERS = np.array([19 * BOARD_SIZE + 0, 19 * BOARD_SIZE + 19, 0 * BOARD_SIZE + 19, 0],
                   dtype=np.int16)

# The 8 maps of the square onto itself, as functions of (x, y) in [0, n) x [0, n);
# index 0 is the identity, 1-3 rotate counter-clockwise by 90/180/270 degrees,
# 4-7 are the mirror image (x -> n-1-x) followed by the same rotations.
_DIHEDRAL = (
    lambda x, y, n: (x, y),
    lambda x, y, n: (n - 1 - y, x),
    lambda x, y, n: (n - 1 - x, n - 1 - y),
    lambda x, y, n: (y, n - 1 - x),
    lambda x, y, n: (n - 1 - x, y),
    lambda x, y, n: (n - 1 - y, n - 1 - x),
    lambda x, y, n: (x, n - 1 - y),
    lambda x, y, n: (y, x),
)
NUM_SYMMETRIES = len(_DIHEDRAL)


def dihedral(k: int, x: int, y: int, n: int = BOARD_SIZE) -> tuple[int, int]:
    """Apply dihedral map ``k`` (0-7) to cell (x, y) of an n x n square."""
    return _DIHEDRAL[k](x, y, n)


def _normalise(cells) -> tuple[tuple[int, int], ...]:
    min_x = min(x for x, _ in cells)
    min_y = min(y for _, y in cells)
    return tuple(sorted(((x - min_x, y - min_y) for x, y in cells), key=lambda c: (c[1], c[0])))


def orientations(name: str) -> list[tuple[tuple[int, int], ...]]:
    """Distinct orientations of a piece, each normalised to touch x=0 and y=0.

    Cells are sorted by (y, x). Order: first appearance under the maps of :func:`dihedral`.
    """
    out: list[tuple[tuple[int, int], ...]] = []
    for k in range(NUM_SYMMETRIES):
        # n only shifts the result, which _normalise removes; any n works.
        shape = _normalise([dihedral(k, x, y, 5) for x, y in PIECE_SHAPES[name]])
        if shape not in out:
            out.append(shape)
    return out


def _build_placements():
    squares, pieces, orients = [], [], []
    orientation_id = 0
    for piece, name in enumerate(PIECE_NAMES):
        for shape in orientations(name):
            width = 1 + max(x for x, _ in shape)
            height = 1 + max(y for _, y in shape)
            for dy in range(BOARD_SIZE - height + 1):
                for dx in range(BOARD_SIZE - width + 1):
                    cells = [(y + dy) * BOARD_SIZE + x + dx for x, y in shape]
                    squares.append(cells + [-1] * (MAX_PIECE_SIZE - len(cells)))
                    pieces.append(piece)
                    orients.append(orientation_id)
            orientation_id += 1
    return (np.array(squares, dtype=np.int16), np.array(pieces, dtype=np.int8),
            np.array(orients, dtype=np.int16), orientation_id)


#: [A, 5] squares of each placement, sorted ascending (= Pentobi's a1, b1, ..., a2 order), -1 padded.
PLACEMENTS, PLACEMENT_PIECE, PLACEMENT_ORIENTATION, NUM_ORIENTATIONS = _build_placements()
NUM_PLACEMENTS = len(PLACEMENTS)  # 30,433
PLACEMENT_SIZE = PIECE_SIZES[PLACEMENT_PIECE]  # [A]


def _square_set_keys(cells: np.ndarray) -> np.ndarray:
    """One int64 per row of squares (-1 padded), independent of the order within the row."""
    padded = np.sort(np.where(cells < 0, NUM_SQUARES, cells).astype(np.int64), axis=1)
    return (padded * (NUM_SQUARES + 1) ** np.arange(cells.shape[1], dtype=np.int64)).sum(axis=1)


_KEYS = _square_set_keys(PLACEMENTS)
_KEY_ORDER = np.argsort(_KEYS)


def find_placements(cells: np.ndarray) -> np.ndarray:
    """Placement ids of rows of squares ([N, 5], any order, -1 padded); -1 where none fits."""
    keys = _square_set_keys(np.atleast_2d(cells))
    pos = np.minimum(np.searchsorted(_KEYS, keys, sorter=_KEY_ORDER), NUM_PLACEMENTS - 1)
    found = _KEY_ORDER[pos]
    return np.where(_KEYS[found] == keys, found, -1)


def _build_cover():
    """Placements covering each square, grouped by piece: a CSR table indexed [sq, piece]."""
    lists = [[[] for _ in range(NUM_PIECES)] for _ in range(NUM_SQUARES)]
    for m, cells in enumerate(PLACEMENTS):
        for sq in cells[cells >= 0]:
            lists[sq][PLACEMENT_PIECE[m]].append(m)
    start = np.zeros((NUM_SQUARES, NUM_PIECES + 1), dtype=np.int32)
    flat: list[int] = []
    for sq in range(NUM_SQUARES):
        for p in range(NUM_PIECES):
            start[sq, p] = len(flat)
            flat.extend(lists[sq][p])
        start[sq, NUM_PIECES] = len(flat)
    return start, np.array(flat, dtype=np.int16)


#: COVER[COVER_START[sq, p]:COVER_START[sq, p + 1]] = placements of piece p covering square sq.
COVER_START, COVER = _build_cover()


#: Bits of a packed placement (:data:`PACKED`): the id in the low 15 bits, then its squares, 9
#: bits each (a piece of fewer than 5 squares repeats its last one).
PACKED_ID_BITS = 15
PACKED_SQUARE_BITS = 9


def _pack(placements: np.ndarray) -> np.ndarray:
    ids = np.arange(len(placements), dtype=np.int64)
    squares = np.maximum.accumulate(placements.astype(np.int64), axis=1)  # -1 padding -> last square
    shifts = PACKED_ID_BITS + PACKED_SQUARE_BITS * np.arange(MAX_PIECE_SIZE, dtype=np.int64)
    return ids | np.bitwise_or.reduce(squares << shifts, axis=1)


#: Each placement packed with its squares into one int64: a candidate list holding these tests
#: legality without reading PLACEMENTS.
PACKED = _pack(PLACEMENTS)
COVER_PACKED = PACKED[COVER]  # [len(COVER)] the packed placement of each COVER entry


def _neighbours(offsets) -> np.ndarray:
    out = np.full((NUM_SQUARES, 4), -1, dtype=np.int16)
    for sq in range(NUM_SQUARES):
        x, y = sq % BOARD_SIZE, sq // BOARD_SIZE
        k = 0
        for ox, oy in offsets:
            if 0 <= x + ox < BOARD_SIZE and 0 <= y + oy < BOARD_SIZE:
                out[sq, k] = (y + oy) * BOARD_SIZE + x + ox
                k += 1
    return out


EDGE_NEIGHBOURS = _neighbours(((1, 0), (-1, 0), (0, 1), (0, -1)))  # [400, 4], -1 padded
DIAG_NEIGHBOURS = _neighbours(((1, 1), (-1, 1), (1, -1), (-1, -1)))  # [400, 4], -1 padded


#: The window of a square a: the squares within Manhattan distance 4 of it (any two squares of
#: a piece of at most 5 squares are), 41 bits, row by row from dy = -4 to 4: row dy holds
#: dx = -WINDOW_RADIUS[dy + 4] .. WINDOW_RADIUS[dy + 4] from bit WINDOW_OFFSET[dy + 4] on.
WINDOW_RADIUS = tuple(4 - abs(dy) for dy in range(-4, 5))
WINDOW_OFFSET = tuple(int(x) for x in np.cumsum([0] + [2 * r + 1 for r in WINDOW_RADIUS[:-1]]))


def _build_cover_masks() -> np.ndarray:
    """For each COVER entry (square a, placement m): the squares of m other than a as bits of
    a's window (WINDOW_OFFSET). Every placement covering a lies in it, so one AND with the
    window of blocked squares tests all of m's squares at once."""
    square_of_entry = np.repeat(np.arange(NUM_SQUARES), np.diff(COVER_START[:, [0, NUM_PIECES]]).ravel())
    cells = PLACEMENTS[COVER].astype(np.int64)  # [K, 5]
    a = square_of_entry[:, None]
    dx = cells % BOARD_SIZE - a % BOARD_SIZE
    dy = cells // BOARD_SIZE - a // BOARD_SIZE
    keep = (cells >= 0) & (cells != a)
    assert (np.abs(dx) + np.abs(dy))[keep].max() <= 4
    offset = np.array(WINDOW_OFFSET, dtype=np.int64)[np.clip(dy + 4, 0, 8)]
    bits = np.where(keep, offset + dx + 4 - np.abs(dy), 0).astype(np.uint64)
    return np.bitwise_or.reduce(np.where(keep, np.uint64(1) << bits, np.uint64(0)), axis=1)


COVER_MASKS = _build_cover_masks()  # [len(COVER)] uint64


#: Edge-neighbour statuses of an attach point: bit i set when EDGE_NEIGHBOURS[a, i] is blocked.
NUM_EDGE_STATUSES = 16


def _build_status_cover():
    """COVER entries of each (attach point a, status of its edge neighbours, piece), as Pentobi's
    per-point move lists: the entries of a whose placement covers none of a's blocked edge
    neighbours. A placement covering a blocked square fails the window test anyway, so a scan
    that visits only these finds the same placements in the same order (a sub-sequence of
    COVER's), testing far fewer: an attach point always has the two edge neighbours it shares
    with the diagonal piece square that made it blocked."""
    square_of_entry = np.repeat(np.arange(NUM_SQUARES), np.diff(COVER_START[:, [0, NUM_PIECES]]).ravel())
    piece_of_entry = PLACEMENT_PIECE[COVER].astype(np.int64)
    cells = PLACEMENTS[COVER]  # [K, 5]
    touch = np.zeros(len(COVER), dtype=np.int64)  # which of a's edge neighbours the placement covers
    for i in range(4):
        e = EDGE_NEIGHBOURS[square_of_entry, i]
        touch |= ((e >= 0)[:, None] & (cells == e[:, None])).any(axis=1).astype(np.int64) << i
    entries, keys = [], []
    for status in range(NUM_EDGE_STATUSES):
        k = np.flatnonzero((touch & status) == 0)
        entries.append(k)
        keys.append((square_of_entry[k] * NUM_EDGE_STATUSES + status) * NUM_PIECES + piece_of_entry[k])
    entries, keys = np.concatenate(entries), np.concatenate(keys)
    order = np.lexsort((entries, keys))
    start = np.zeros(NUM_SQUARES * NUM_EDGE_STATUSES * NUM_PIECES + 1, dtype=np.int32)
    np.cumsum(np.bincount(keys, minlength=len(start) - 1), out=start[1:])
    return start, entries[order].astype(np.int32)


#: STATUS_COVER[STATUS_START[i]:STATUS_START[i + 1]], i = (a * 16 + status) * 21 + piece: the COVER
#: entries (indices into COVER, COVER_MASKS, COVER_PACKED) of piece's placements covering a and none of the
#: edge neighbours of a that ``status`` marks blocked, in COVER's order.
STATUS_START, STATUS_COVER = _build_status_cover()

#: The same lists with each entry in one word for a scan reading it in order: the entry's window
#: mask (COVER_MASKS, bits 0..40), its index into COVER (COVER_PACKED) from bit 41, its piece from
#: bit 59.
STATUS_ENTRY_SHIFT, STATUS_PIECE_SHIFT = 41, 59
assert WINDOW_OFFSET[-1] + 1 == STATUS_ENTRY_SHIFT
assert len(COVER) < 1 << (STATUS_PIECE_SHIFT - STATUS_ENTRY_SHIFT)
STATUS_ENTRIES = (COVER_MASKS[STATUS_COVER]
                  | (STATUS_COVER.astype(np.uint64) << np.uint64(STATUS_ENTRY_SHIFT))
                  | (PLACEMENT_PIECE[COVER[STATUS_COVER]].astype(np.uint64) << np.uint64(STATUS_PIECE_SHIFT)))

# Candidate move lists are kept per colour in one array split into one region per piece; a
# region holds at most every placement of its piece once, so it cannot overflow. Placements
# are ordered by piece, and pieces by size.
#: PIECE_START[p] .. PIECE_START[p + 1] are the placements (and the candidate region) of piece p.
PIECE_START = np.searchsorted(PLACEMENT_PIECE, np.arange(NUM_PIECES + 1)).astype(np.int32)
#: SIZE_START[k - 1] .. SIZE_START[k] are the pieces of k squares.
SIZE_START = np.searchsorted(PIECE_SIZES, np.arange(1, MAX_PIECE_SIZE + 2)).astype(np.int32)
assert (np.diff(PLACEMENT_PIECE) >= 0).all() and (np.diff(PIECE_SIZES) >= 0).all()

# Random 64-bit keys for position hashing: one per (colour, square), one per colour to move.
_zobrist_rng = np.random.default_rng(0x426C6F6B7573)
ZOBRIST_SQUARE = _zobrist_rng.integers(0, 2**63, size=(NUM_COLORS, NUM_SQUARES), dtype=np.int64)
ZOBRIST_TO_MOVE = _zobrist_rng.integers(0, 2**63, size=NUM_COLORS + 1, dtype=np.int64)
