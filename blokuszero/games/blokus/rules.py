"""Numba kernels of the Blokus rules: move generation, move application, playouts.

A position is a :class:`Arrays` tuple of plain numpy arrays, so that search code can
clone it with ``copy`` and drive it from other numba functions.

Move generation is incremental and lazy. Each colour keeps a list of candidate
placements, split by piece (the region of a piece is emptied when the piece is
placed). A placement enters the list when it is legal and
covers an *attach point* (a free square diagonal to one of the colour's pieces, or
its starting corner) the first time that square becomes one. Legality in Blokus only
ever shrinks for a colour (squares get occupied or forbidden, pieces get used) and
new moves only appear at new attach points, so a candidate that is found illegal can
be dropped for good, and a list filtered on demand is exactly the legal move list.
A placement covering several attach points is added only at the first of them that
was scanned, so the lists hold no duplicates. Scanning an attach point tests the placements
covering it that avoid its blocked edge neighbours (precomputed lists per point and neighbour
status, as Pentobi's), each with one AND of a 64-bit window mask (squares the colour may not
cover). Candidates are stored packed with their squares (``tables.PACKED``), so a legality
check reads only the colour's forbidden squares and a playout places a drawn candidate from its
packed squares. Playouts sample by rejection over the candidate regions, drawing from one
SplitMix64 stream per playout (:mod:`..numba_random`); a search first drops its root's stale
candidates (``BlokusState.compact``), which every simulation's copy would otherwise meet again.
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from ..numba_random import stream_below, stream_random, stream_seed
from . import tables as T

NO_PLAYER = -1

# meta[] layout
TO_MOVE = 0  # colour to move, or NO_PLAYER when the game is over
NUM_PLACED = 1  # placements made so far (passes are not moves)
KEY = 2  # Zobrist hash of squares and colour to move
LAST_PIECE = 3  # 4 entries: piece each colour placed last, -1 before its first move
STUCK = 7  # 4 entries: 1 once a colour has no legal move (it never gets one again)
META_SIZE = 11

NUM_PIECES = T.NUM_PIECES
MONOMINO = T.MONOMINO
MAX_PLACEMENTS = T.NUM_COLORS * T.NUM_PIECES  # 84: a game never has more
ID_MASK = (1 << T.PACKED_ID_BITS) - 1  # a packed candidate's placement id
_SQ0, _SQ_BITS = T.PACKED_ID_BITS, T.PACKED_SQUARE_BITS  # its squares' bits
_SQ_MASK = (1 << _SQ_BITS) - 1
_WINDOW_RADIUS, _WINDOW_OFFSET = T.WINDOW_RADIUS, T.WINDOW_OFFSET
_ENTRY_SHIFT = np.uint64(T.STATUS_ENTRY_SHIFT)
_ENTRY_MASK = np.uint64((1 << (T.STATUS_PIECE_SHIFT - T.STATUS_ENTRY_SHIFT)) - 1)
_PIECE_SHIFT = np.uint64(T.STATUS_PIECE_SHIFT)

# move_error() codes; ERROR_MESSAGES gives their text.
OK, ERR_RANGE, ERR_OVER, ERR_USED, ERR_OCCUPIED, ERR_EDGE, ERR_CORNER, ERR_FIRST = range(8)
ERROR_MESSAGES = {
    ERR_RANGE: "is not a placement id in [0, 30433)",
    ERR_OVER: "cannot be played: the game is over",
    ERR_USED: "uses a piece the colour has already placed",
    ERR_OCCUPIED: "covers an occupied square",
    ERR_EDGE: "shares an edge with a piece of the same colour",
    ERR_CORNER: "does not touch a piece of the same colour corner to corner",
    ERR_FIRST: "is a first move that does not cover the colour's starting corner",
}

#: The kernels' decorator. They allocate nothing, so they run without numba's reference counting
#: (``_nrt=False``): with it, every call passing the Arrays and Tables tuples increfs and decrefs
#: each of their 23 arrays with atomic operations, which was half of a playout's time.
_kernel = nb.njit(cache=True, _nrt=False)
#: The playout's two calls per move, inlined into it by numba: LLVM does not inline them, and a
#: call passes the Arrays and Tables tuples' ~200 fields on the stack (measured 13% of a playout).
_inlined_kernel = nb.njit(cache=True, _nrt=False, inline="always")

# Playout policies
UNIFORM = 0
LARGEST_PIECE = 1


class Tables(NamedTuple):
    """The fixed tables the kernels read (see :mod:`.tables`)."""

    placements: np.ndarray  # [A, 5] int16
    piece: np.ndarray  # [A] int8
    size: np.ndarray  # [A] int8
    piece_size: np.ndarray  # [21] int8
    cover_start: np.ndarray  # [400, 22] int32
    packed: np.ndarray  # [A] int64: each placement packed with its squares (tables.PACKED)
    cover_packed: np.ndarray  # [sum of sizes] int64: tables.COVER's placements, packed (tables.PACKED)
    status_start: np.ndarray  # [400 * 16 * 21 + 1] int32: per (attach point, edge status, piece) ...
    status_entries: np.ndarray  # [...] uint64: ... the placements to test, each its window mask of the
    # squares besides the attach point and its cover entry's index (tables.STATUS_ENTRIES)
    edge: np.ndarray  # [400, 4] int16
    diag: np.ndarray  # [400, 4] int16
    corners: np.ndarray  # [4] int16
    piece_start: np.ndarray  # [22] int32: the placements of piece p are piece_start[p] .. piece_start[p + 1]
    size_start: np.ndarray  # [6] int32: the pieces of k squares are size_start[k - 1] .. size_start[k]
    zobrist_square: np.ndarray  # [4, 400] int64
    zobrist_to_move: np.ndarray  # [5] int64


TABLES = Tables(T.PLACEMENTS, T.PLACEMENT_PIECE, T.PLACEMENT_SIZE.astype(np.int8), T.PIECE_SIZES,
                T.COVER_START, T.PACKED, T.COVER_PACKED, T.STATUS_START, T.STATUS_ENTRIES,
                T.EDGE_NEIGHBOURS, T.DIAG_NEIGHBOURS, T.CORNERS,
                T.PIECE_START, T.SIZE_START, T.ZOBRIST_SQUARE, T.ZOBRIST_TO_MOVE)


class Arrays(NamedTuple):
    """One Blokus position, all of it in arrays."""

    board: np.ndarray  # [400] int8: colour on each square, -1 empty
    forbidden: np.ndarray  # [4, 400] uint8: occupied, or edge-adjacent to the colour's pieces
    attach: np.ndarray  # [4, 400] uint8: squares already scanned as attach points
    blocked: np.ndarray  # [4, 28] uint64: forbidden or attach, bit x + 4 of row y + 4 (4 empty rows/bits around)
    used: np.ndarray  # [4, 21] uint8: pieces placed
    cand: np.ndarray  # [4, 30433] int64: candidate placements, packed (tables.PACKED), one region per piece
    cand_len: np.ndarray  # [4, 21] int32: candidates in each region
    meta: np.ndarray  # [META_SIZE] int64, see the layout above
    history: np.ndarray  # [84, 2] int32: (colour, placement) of each move so far


def new_arrays() -> Arrays:
    """Empty arrays; call :func:`reset` to set up the initial position."""
    return Arrays(
        board=np.empty(T.NUM_SQUARES, np.int8),
        forbidden=np.empty((T.NUM_COLORS, T.NUM_SQUARES), np.uint8),
        attach=np.empty((T.NUM_COLORS, T.NUM_SQUARES), np.uint8),
        blocked=np.empty((T.NUM_COLORS, T.BOARD_SIZE + 8), np.uint64),
        used=np.empty((T.NUM_COLORS, T.NUM_PIECES), np.uint8),
        cand=np.empty((T.NUM_COLORS, T.NUM_PLACEMENTS), np.int64),
        cand_len=np.empty((T.NUM_COLORS, T.NUM_PIECES), np.int32),
        meta=np.empty(META_SIZE, np.int64),
        history=np.empty((MAX_PLACEMENTS, 2), np.int32),
    )


@_kernel
def copy_into(dst, src, t) -> None:
    """Copy position ``src`` into ``dst`` (both :class:`Arrays`)."""
    # Element loops: slice assignment may allocate a temporary, which needs reference counting.
    for i in range(src.board.shape[0]):
        dst.board[i] = src.board[i]
    for c in range(4):
        for i in range(src.forbidden.shape[1]):
            dst.forbidden[c, i] = src.forbidden[c, i]
            dst.attach[c, i] = src.attach[c, i]
        for i in range(src.blocked.shape[1]):
            dst.blocked[c, i] = src.blocked[c, i]
        for b in range(NUM_PIECES):
            dst.used[c, b] = src.used[c, b]
            # Only the live part of each candidate region needs copying.
            lo = t.piece_start[b]
            n = src.cand_len[c, b]
            for i in range(lo, lo + n):
                dst.cand[c, i] = src.cand[c, i]
            dst.cand_len[c, b] = n
    for i in range(META_SIZE):
        dst.meta[i] = src.meta[i]
    for i in range(src.meta[NUM_PLACED]):
        dst.history[i, 0] = src.history[i, 0]
        dst.history[i, 1] = src.history[i, 1]


@nb.njit(cache=True, inline="always", _nrt=False)
def _block(blocked, c, sq) -> None:
    """Mark ``sq`` forbidden or an attach point of colour ``c`` in the bit rows."""
    blocked[c, sq // 20 + 4] |= np.uint64(1) << np.uint64(sq % 20 + 4)


@_kernel
def _scan_attach_point(s, t, c, a) -> None:
    """Mark square ``a`` as an attach point of colour ``c`` and add the moves it opens."""
    s.attach[c, a] = 1
    _block(s.blocked, c, a)
    # The window of squares around a (Manhattan distance <= 4) that c may not cover: forbidden,
    # or attach points scanned before (their moves were added then); the placements' squares
    # other than a are tested against it in one AND (tables.COVER_MASKS, in tables.STATUS_ENTRIES).
    x = a % 20
    y = a // 20
    window = np.uint64(0)
    for i in range(9):  # row y + i - 4 of the board is row y + i of the bit rows
        r = _WINDOW_RADIUS[i]
        bits = (s.blocked[c, y + i] >> np.uint64(x + 4 - r)) & np.uint64((1 << (2 * r + 1)) - 1)
        window |= bits << np.uint64(_WINDOW_OFFSET[i])
    # Only the placements that avoid a's blocked edge neighbours can pass (tables.STATUS_COVER):
    # one run of list entries, all pieces in order, the used ones skipped.
    status = 0
    for i in range(4):
        e = t.edge[a, i]
        if e >= 0 and (s.forbidden[c, e] or s.attach[c, e]):
            status |= 1 << i
    base = (a * T.NUM_EDGE_STATUSES + status) * NUM_PIECES
    for j in range(t.status_start[base], t.status_start[base + NUM_PIECES]):
        e = t.status_entries[j]
        if e & window:
            continue
        p = e >> _PIECE_SHIFT
        if s.used[c, p]:
            continue
        s.cand[c, t.piece_start[p] + s.cand_len[c, p]] = t.cover_packed[(e >> _ENTRY_SHIFT) & _ENTRY_MASK]
        s.cand_len[c, p] += 1


@_kernel
def reset(s, t) -> None:
    """Set ``s`` to the empty board, Blue to move."""
    s.board[:] = -1
    s.forbidden[:] = 0
    s.attach[:] = 0
    s.blocked[:] = 0
    s.used[:] = 0
    s.cand_len[:] = 0
    s.meta[:] = 0
    s.meta[TO_MOVE] = 0
    s.meta[KEY] = t.zobrist_to_move[0]
    for c in range(4):
        s.meta[LAST_PIECE + c] = -1
        _scan_attach_point(s, t, c, t.corners[c])


@_kernel
def _fits(forbidden, c, e) -> bool:
    """Legality of packed candidate ``e`` for colour ``c``: none of its squares forbidden.

    Corner contact is implied by candidacy, and a candidate's piece is unused (its region
    is emptied when the piece is placed). Takes a single array: passing the whole Arrays
    tuple to a function called per candidate was measured 10x slower.
    """
    return not (forbidden[c, (e >> _SQ0) & _SQ_MASK] | forbidden[c, (e >> (_SQ0 + _SQ_BITS)) & _SQ_MASK]
                | forbidden[c, (e >> (_SQ0 + 2 * _SQ_BITS)) & _SQ_MASK]
                | forbidden[c, (e >> (_SQ0 + 3 * _SQ_BITS)) & _SQ_MASK]
                | forbidden[c, (e >> (_SQ0 + 4 * _SQ_BITS)) & _SQ_MASK])


@_kernel
def move_error(s, t, c, m) -> int:
    """Why placement ``m`` is not a legal move of colour ``c`` now: OK (0) or an ERR_* code.

    Whose turn it is does not matter here (Pentobi's GTP lets any colour play).
    """
    if m < 0 or m >= t.piece.shape[0]:
        return ERR_RANGE
    if s.meta[TO_MOVE] == NO_PLAYER:
        return ERR_OVER
    if s.used[c, t.piece[m]]:
        return ERR_USED
    first = s.meta[LAST_PIECE + c] < 0
    corner = False
    for j in range(5):
        sq = t.placements[m, j]
        if sq < 0:
            break
        if s.board[sq] >= 0:
            return ERR_OCCUPIED
        if s.forbidden[c, sq]:
            return ERR_EDGE
        if first:
            corner = corner or sq == t.corners[c]
        else:
            for i in range(4):
                d = t.diag[sq, i]
                if d >= 0 and s.board[d] == c:
                    corner = True
    if not corner:
        return ERR_FIRST if first else ERR_CORNER
    return OK


@_kernel
def _has_legal(s, t, c) -> bool:
    """Whether colour ``c`` has a legal move; drops the illegal candidates it meets."""
    for b in range(NUM_PIECES - 1, -1, -1):  # large pieces first: the likelier to be left
        lo = t.piece_start[b]
        while s.cand_len[c, b] > 0:
            if _fits(s.forbidden, c, s.cand[c, lo + s.cand_len[c, b] - 1]):
                return True
            s.cand_len[c, b] -= 1
    return False


@_kernel
def _advance(s, t, c) -> None:
    """Give the turn to the next colour after ``c`` that can move, or end the game."""
    s.meta[KEY] ^= t.zobrist_to_move[s.meta[TO_MOVE]]
    nxt = NO_PLAYER
    for i in range(1, 5):
        c2 = (c + i) % 4
        if s.meta[STUCK + c2]:
            continue
        if _has_legal(s, t, c2):
            nxt = c2
            break
        s.meta[STUCK + c2] = 1
    s.meta[TO_MOVE] = nxt
    s.meta[KEY] ^= t.zobrist_to_move[nxt]


@_kernel
def _place_packed(s, t, c, e) -> None:
    """Put packed placement ``e`` (legal for colour ``c``) on the board, leaving the turn as it is.

    Its squares come from ``e`` itself, and only its ``size`` of them are visited: a playout's
    drawn candidate is placed without reading the placement table (a cache miss per move);
    playouts measured 18% faster in both phases."""
    m = e & ID_MASK
    piece = t.piece[m]
    size = t.piece_size[piece]
    n = s.meta[NUM_PLACED]
    s.history[n, 0] = c
    s.history[n, 1] = m
    s.meta[NUM_PLACED] = n + 1
    s.meta[LAST_PIECE + c] = piece
    s.used[c, piece] = 1
    s.cand_len[c, piece] = 0  # every candidate of the piece is illegal now
    key = s.meta[KEY]
    for j in range(size):
        sq = (e >> (_SQ0 + j * _SQ_BITS)) & _SQ_MASK
        s.board[sq] = c
        key ^= t.zobrist_square[c, sq]
        for c2 in range(4):
            s.forbidden[c2, sq] = 1
            _block(s.blocked, c2, sq)
        for i in range(4):
            d = t.edge[sq, i]
            if d >= 0:
                s.forbidden[c, d] = 1
                _block(s.blocked, c, d)
    s.meta[KEY] = key
    # New attach points are scanned only once every forbidden square is known.
    for j in range(size):
        sq = (e >> (_SQ0 + j * _SQ_BITS)) & _SQ_MASK
        for i in range(4):
            d = t.diag[sq, i]
            if d >= 0 and not s.forbidden[c, d] and not s.attach[c, d]:
                _scan_attach_point(s, t, c, d)


@_kernel
def place(s, t, c, m) -> None:
    """Put placement ``m`` (legal for colour ``c``) on the board, leaving the turn as it is."""
    _place_packed(s, t, c, t.packed[m])


@_inlined_kernel
def apply_move(s, t, m) -> None:
    """Play placement ``m`` (legal) for the colour to move and pass the turn on."""
    c = s.meta[TO_MOVE]
    place(s, t, c, m)
    _advance(s, t, c)


@_kernel
def replay(s, t, colours, placements) -> int:
    """Reset ``s`` and play a recorded game's moves in turn order, trusting their legality.

    Returns the number of moves played: fewer than given if a recorded colour is not the
    one to move (the record is then not a game of turn-order play).
    """
    reset(s, t)
    for i in range(placements.shape[0]):
        if s.meta[TO_MOVE] != colours[i]:
            return i
        apply_move(s, t, placements[i])
    return placements.shape[0]


@_kernel
def set_to_move(s, t, c) -> None:
    """Give the turn to colour ``c``, or to the next one after it that can move."""
    _advance(s, t, (c + 3) % 4)


@_kernel
def legal_moves(s, t, c, out) -> int:
    """Write colour ``c``'s legal placements into ``out`` (unsorted); return how many."""
    n = 0
    for b in range(NUM_PIECES):
        lo = t.piece_start[b]
        i = 0
        while i < s.cand_len[c, b]:
            e = s.cand[c, lo + i]
            if _fits(s.forbidden, c, e):
                out[n] = e & ID_MASK
                n += 1
                i += 1
            else:
                last = s.cand_len[c, b] - 1
                s.cand[c, lo + i] = s.cand[c, lo + last]
                s.cand_len[c, b] = last
    return n


@_kernel
def compact(s, t) -> None:
    """Drop every colour's illegal candidates, keeping the order of the rest.

    Candidates go stale lazily and a copy of the position inherits them: a search compacts
    its root once, so that its simulations do not each find the same stale ones again.
    """
    for c in range(4):
        for b in range(NUM_PIECES):
            lo = t.piece_start[b]
            n = 0
            for i in range(s.cand_len[c, b]):
                e = s.cand[c, lo + i]
                if _fits(s.forbidden, c, e):
                    s.cand[c, lo + n] = e
                    n += 1
            s.cand_len[c, b] = n


@_kernel
def _sample_pieces(s, t, c, first, last, x):
    """A uniformly random legal candidate of colour ``c`` (packed) among the regions of pieces
    ``first`` .. ``last - 1``, or -1 if none: a uniform draw over their candidates, an
    illegal one dropped and the draw repeated (exact, as dropped ones never come back).
    ``x``: the playout's random stream; returns (move, the stream's next state)."""
    total = 0
    for p in range(first, last):
        total += s.cand_len[c, p]
    while total > 0:
        r, x = stream_below(total, x)
        p = first
        while r >= s.cand_len[c, p]:
            r -= s.cand_len[c, p]
            p += 1
        lo = t.piece_start[p]
        e = s.cand[c, lo + r]
        if _fits(s.forbidden, c, e):
            return e, x
        n = s.cand_len[c, p] - 1
        s.cand[c, lo + r] = s.cand[c, lo + n]
        s.cand_len[c, p] = n
        total -= 1
    return -1, x


@_inlined_kernel
def _sample_move(s, t, policy, epsilon, x):
    """:func:`sample_move` drawing from the random stream ``x``; returns (the move packed, or -1,
    the stream's next state)."""
    c = s.meta[TO_MOVE]
    if policy == LARGEST_PIECE:
        u, x = stream_random(x)
        if u >= epsilon:
            for b in range(4, -1, -1):
                m, x = _sample_pieces(s, t, c, t.size_start[b], t.size_start[b + 1], x)
                if m >= 0:
                    return m, x
            return -1, x
    return _sample_pieces(s, t, c, 0, NUM_PIECES, x)


@_kernel
def sample_move(s, t, policy, epsilon) -> int:
    """A random legal move of the colour to move under a playout policy.

    UNIFORM: uniform over all legal moves. LARGEST_PIECE: with probability 1 - epsilon
    uniform over the legal moves of the largest piece size that has one, otherwise
    uniform over all legal moves (SPEC §2). Rejection sampling over the candidate
    lists is exact because illegal candidates are removed when drawn. The draws come from
    a stream seeded by one draw of numba's global generator.
    """
    e = _sample_move(s, t, policy, epsilon, stream_seed())[0]
    return e & ID_MASK if e >= 0 else -1


@_kernel
def playout(s, t, policy, epsilon) -> None:
    """Play random moves under ``policy`` until the game ends, drawing from one stream seeded
    by one draw of numba's global generator (see :mod:`..numba_random`)."""
    x = stream_seed()
    while s.meta[TO_MOVE] != NO_PLAYER:
        e, x = _sample_move(s, t, policy, epsilon, x)
        c = s.meta[TO_MOVE]
        _place_packed(s, t, c, e)
        _advance(s, t, c)


@_kernel
def scores(s, t, out) -> None:
    """Advanced score of each colour (SPEC §1): -1 per unplaced square, +15 all placed,
    +5 more if the monomino came last."""
    for c in range(4):
        unplaced = 0
        for p in range(NUM_PIECES):
            if not s.used[c, p]:
                unplaced += t.piece_size[p]
        score = -unplaced
        if unplaced == 0:
            score += 15
            if s.meta[LAST_PIECE + c] == MONOMINO:
                score += 5
        out[c] = score

