"""Numba kernels of the Go board: incremental groups and liberties, legality, scoring (the
playouts are :mod:`.playouts`).

The board is a padded square of side ``W = N + 2`` (a ring of BORDER points), stored with all
other per-position data in one int64 buffer so that a copy is a single array copy. Sections of
``M = W * W`` entries each, in this order, section k at offset ``k * M``:

- ``COLOR``: EMPTY, BLACK, WHITE or BORDER per point;
- ``GROUP``: the representative point of the stone's group (its id);
- ``NEXT``: the next stone of the same group (a circular list, for merging and capturing);
- ``SIZE``, ``LIBS``, ``LSUM``, ``LSQ``: per group id, its stones and its pseudo-liberties
  (each empty point counted once per adjacent stone) with their sum and sum of squares.
  A group has exactly one true liberty iff all its pseudo-liberties are the same point, i.e.
  ``LSUM^2 == LIBS * LSQ``: atari is known in O(1), no flood fill per move;
- ``EMPTY`` / ``EPOS``: the empty points as an unordered list and each point's index in it
  (uniform random playout moves in O(1));
- ``HIST`` (4 N^2 + 1 entries): the Zobrist hash of every position of the game (superko);
- ``META`` (the last META_LEN entries): scalars (see the META_* constants).

Points are ``(y + 1) * W + (x + 1)``; actions are ``y * N + x`` (row 0 at the top) and
``N * N`` is the pass.
"""

from __future__ import annotations

import numba as nb
import numpy as np

EMPTY, BLACK, WHITE, BORDER = 0, 1, 2, 3
MAX_SIZE = 25

# META fields.
META_NEMPTY = 0  # number of empty points
META_KO = 1  # point the player to move may not take back (simple ko), or 0
META_TOMOVE = 2  # colour to move (BLACK / WHITE), or 0 when the game is over
META_PASSES = 3  # consecutive passes just played by alternating colours
META_MOVES = 4  # moves played (passes included)
META_HASH = 5  # Zobrist hash of the stones on the board
META_CAPB = 6  # stones captured by black
META_CAPW = 7  # stones captured by white
META_MAXMOVES = 8  # the game ends after this many moves (a safeguard against endless games)
META_SIZE = 9  # N
META_LASTPASS = 10  # colour of the last move if it was a pass, else 0
META_LASTMOVE = 11  # point of the last move, 0 for a pass or none (informed playouts start there)
META_LEN = 12

# Legality codes.
OK, ERR_OCCUPIED, ERR_KO, ERR_SUICIDE, ERR_SUPERKO, ERR_OVER, ERR_RANGE = 0, 1, 2, 3, 4, 5, 6
ERROR_MESSAGES = ("is legal", "is on an occupied point", "retakes a ko at once",
                  "is suicide", "repeats an earlier position (positional superko)",
                  "comes after the end of the game", "is not a point of the board")

_ZOBRIST = np.random.default_rng(20260101).integers(
    1, 2**62, size=(3, (MAX_SIZE + 2) ** 2), dtype=np.int64)


def max_moves(n: int) -> int:
    """Most moves a game may take: 4 N^2 (random games end well before; see META_MAXMOVES)."""
    return 4 * n * n


@nb.njit(cache=True)
def new_board(n):
    """An empty ``n`` x ``n`` board with black to move."""
    w = n + 2
    m = w * w
    total = 9 * m + 4 * n * n + 1 + META_LEN
    buf = np.zeros(total, np.int64)
    mo = total - META_LEN
    ne = 0
    for pt in range(m):
        x, y = pt % w, pt // w
        if x == 0 or y == 0 or x == w - 1 or y == w - 1:
            buf[pt] = BORDER
        else:
            buf[7 * m + ne] = pt
            buf[8 * m + pt] = ne
            ne += 1
    buf[mo + META_NEMPTY] = ne
    buf[mo + META_TOMOVE] = BLACK
    buf[mo + META_MAXMOVES] = 4 * n * n
    buf[mo + META_SIZE] = n
    buf[9 * m] = 0  # HIST[0]: the empty board's hash
    return buf


@nb.njit(cache=True, inline="always")
def _in_atari(buf, m, g):
    libs = buf[4 * m + g]
    s = buf[5 * m + g]
    return libs > 0 and s * s == libs * buf[6 * m + g]


@nb.njit(cache=True, inline="always")
def _add_lib(buf, m, g, pt):
    buf[4 * m + g] += 1
    buf[5 * m + g] += pt
    buf[6 * m + g] += pt * pt


@nb.njit(cache=True, inline="always")
def _remove_lib(buf, m, g, pt):
    buf[4 * m + g] -= 1
    buf[5 * m + g] -= pt
    buf[6 * m + g] -= pt * pt


@nb.njit(cache=True, inline="always")
def _remove_empty(buf, m, pt):
    mo = buf.shape[0] - META_LEN
    i = buf[8 * m + pt]
    last = buf[mo + META_NEMPTY] - 1
    q = buf[7 * m + last]
    buf[7 * m + i] = q
    buf[8 * m + q] = i
    buf[mo + META_NEMPTY] = last


@nb.njit(cache=True, inline="always")
def _add_empty(buf, m, pt):
    mo = buf.shape[0] - META_LEN
    ne = buf[mo + META_NEMPTY]
    buf[7 * m + ne] = pt
    buf[8 * m + pt] = ne
    buf[mo + META_NEMPTY] = ne + 1


@nb.njit(cache=True)
def legal_code(buf, w, pt, colour):
    """OK or why ``colour`` may not play at ``pt`` (simple ko only; superko is separate)."""
    m = w * w
    mo = buf.shape[0] - META_LEN
    if buf[pt] != EMPTY:
        return ERR_OCCUPIED
    if pt == buf[mo + META_KO]:
        return ERR_KO
    for d in (1, -1, w, -w):
        q = pt + d
        c = buf[q]
        if c == EMPTY:
            return OK
        if c == BORDER:
            continue
        atari = _in_atari(buf, m, buf[m + q])
        if (c == colour) != atari:  # an own group keeps a liberty, or an enemy group is captured
            return OK
    return ERR_SUICIDE


@nb.njit(cache=True)
def hash_after(buf, w, pt, colour):
    """Zobrist hash of the stones after a legal move of ``colour`` at ``pt`` (board unchanged)."""
    m = w * w
    mo = buf.shape[0] - META_LEN
    h = buf[mo + META_HASH] ^ _ZOBRIST[colour, pt]
    enemy = 3 - colour
    seen0, seen1, seen2 = -1, -1, -1
    for d in (1, -1, w, -w):
        q = pt + d
        if buf[q] != enemy:
            continue
        g = buf[m + q]
        if g == seen0 or g == seen1 or g == seen2 or not _in_atari(buf, m, g):
            continue
        seen2, seen1, seen0 = seen1, seen0, g
        s = g
        while True:
            h ^= _ZOBRIST[enemy, s]
            s = buf[2 * m + s]
            if s == g:
                break
    return h


@nb.njit(cache=True)
def _capture(buf, m, w, g, colour):
    """Remove group ``g`` (of colour ``colour``), giving liberties to its neighbours; its size."""
    mo = buf.shape[0] - META_LEN
    s = g
    n = 0
    while True:
        buf[s] = EMPTY
        buf[mo + META_HASH] ^= _ZOBRIST[colour, s]
        _add_empty(buf, m, s)
        n += 1
        s = buf[2 * m + s]
        if s == g:
            break
    # Second pass: every neighbouring stone of another group gains a liberty per adjacency.
    s = g
    while True:
        for d in (1, -1, w, -w):
            q = s + d
            c = buf[q]
            if c == BLACK or c == WHITE:
                _add_lib(buf, m, buf[m + q], s)
        s = buf[2 * m + s]
        if s == g:
            break
    return n


@nb.njit(cache=True)
def _merge(buf, m, a, b):
    """Merge group ``b`` into group ``a`` (a is the larger); returns ``a``."""
    s = b
    while True:
        buf[m + s] = a
        s = buf[2 * m + s]
        if s == b:
            break
    na, nb_ = buf[2 * m + a], buf[2 * m + b]  # splice the two circular lists
    buf[2 * m + a] = nb_
    buf[2 * m + b] = na
    for k in (3, 4, 5, 6):
        buf[k * m + a] += buf[k * m + b]
    return a


@nb.njit(cache=True)
def play(buf, w, pt, colour):
    """``colour`` plays at ``pt`` (assumed legal): place, capture, then hand over the turn."""
    place(buf, w, pt, colour)
    _end_move(buf, w * w, colour, False)
    buf[buf.shape[0] - META_LEN + META_LASTMOVE] = pt


@nb.njit(cache=True)
def place(buf, w, pt, colour):
    """Put a stone of ``colour`` at ``pt`` (assumed legal), capture, update ko and hash;
    the turn does not change (SGF set-up stones use this alone)."""
    m = w * w
    mo = buf.shape[0] - META_LEN
    buf[pt] = colour
    buf[m + pt] = pt
    buf[2 * m + pt] = pt
    buf[3 * m + pt] = 1
    buf[4 * m + pt] = 0
    buf[5 * m + pt] = 0
    buf[6 * m + pt] = 0
    buf[mo + META_HASH] ^= _ZOBRIST[colour, pt]
    _remove_empty(buf, m, pt)
    enemy = 3 - colour
    for d in (1, -1, w, -w):
        q = pt + d
        c = buf[q]
        if c == EMPTY:
            _add_lib(buf, m, pt, q)
        elif c != BORDER:
            _remove_lib(buf, m, buf[m + q], pt)
    g = pt
    for d in (1, -1, w, -w):
        q = pt + d
        if buf[q] == colour and buf[m + q] != g:
            other = buf[m + q]
            if buf[3 * m + other] >= buf[3 * m + g]:
                g = _merge(buf, m, other, g)
            else:
                g = _merge(buf, m, g, other)
    captured = 0
    last = 0
    for d in (1, -1, w, -w):
        q = pt + d
        if buf[q] == enemy and buf[4 * m + buf[m + q]] == 0:
            captured += _capture(buf, m, w, buf[m + q], enemy)
            last = q
    buf[mo + META_CAPB + colour - 1] += captured
    # Simple ko: one stone captured by a lone stone that is now in atari.
    if captured == 1 and buf[3 * m + g] == 1 and _in_atari(buf, m, g):
        buf[mo + META_KO] = last
    else:
        buf[mo + META_KO] = 0


@nb.njit(cache=True)
def _end_move(buf, m, colour, passed):
    mo = buf.shape[0] - META_LEN
    moves = buf[mo + META_MOVES] + 1
    buf[mo + META_MOVES] = moves
    buf[9 * m + moves] = buf[mo + META_HASH]
    if passed:
        buf[mo + META_KO] = 0
        # A controller may let one colour move twice: its second pass starts a new run.
        if buf[mo + META_LASTPASS] == colour:
            buf[mo + META_PASSES] = 1
        else:
            buf[mo + META_PASSES] += 1
        buf[mo + META_LASTPASS] = colour
        buf[mo + META_LASTMOVE] = 0
    else:
        buf[mo + META_PASSES] = 0
        buf[mo + META_LASTPASS] = 0
    if buf[mo + META_PASSES] >= 2 or moves >= buf[mo + META_MAXMOVES]:
        buf[mo + META_TOMOVE] = 0
    else:
        buf[mo + META_TOMOVE] = 3 - colour


@nb.njit(cache=True)
def set_up(buf, w, points, colours, to_move):
    """Put set-up stones on the board (SGF AB/AW) and make ``to_move`` the colour to move;
    the position becomes the game's current one for superko."""
    for i in range(points.shape[0]):
        place(buf, w, points[i], colours[i])
    mo = buf.shape[0] - META_LEN
    buf[mo + META_KO] = 0
    buf[mo + META_TOMOVE] = to_move
    buf[9 * w * w + buf[mo + META_MOVES]] = buf[mo + META_HASH]


@nb.njit(cache=True)
def play_pass(buf, w, colour):
    """``colour`` passes."""
    _end_move(buf, w * w, colour, True)


@nb.njit(cache=True)
def repeats(buf, w, h):
    """Whether hash ``h`` is a position of the game so far (positional superko)."""
    m = w * w
    mo = buf.shape[0] - META_LEN
    for i in range(buf[mo + META_MOVES] + 1):
        if buf[9 * m + i] == h:
            return True
    return False


@nb.njit(cache=True)
def move_code(buf, w, pt, colour, superko):
    """OK or why ``colour`` may not play at ``pt`` under simple ko or positional superko."""
    code = legal_code(buf, w, pt, colour)
    if code == OK and superko and repeats(buf, w, hash_after(buf, w, pt, colour)):
        return ERR_SUPERKO
    return code


@nb.njit(cache=True)
def is_own_eye(buf, w, pt, colour):
    """Whether empty ``pt`` is a true eye of ``colour``: all four neighbours are its stones
    (or the edge), and the diagonals hold no enemy stone on the edge, at most one inside."""
    for d in (1, -1, w, -w):
        c = buf[pt + d]
        if c != colour and c != BORDER:
            return False
    enemy = 3 - colour
    bad = 0
    edge = 0
    for d in (w + 1, w - 1, -w + 1, -w - 1):
        c = buf[pt + d]
        if c == BORDER:
            edge = 1
        elif c == enemy:
            bad += 1
    return bad == 0 or (edge == 0 and bad == 1)


@nb.njit(cache=True)
def try_move(buf, w, pt, superko):
    """The player to move plays at ``pt`` (0: passes) if that is legal; the legality code."""
    colour = buf[buf.shape[0] - META_LEN + META_TOMOVE]
    if colour == 0:
        return ERR_OVER
    if pt == 0:
        play_pass(buf, w, colour)
        return OK
    code = move_code(buf, w, pt, colour, superko)
    if code == OK:
        play(buf, w, pt, colour)
    return code


@nb.njit(cache=True)
def legal_points(buf, w, colour, superko, skip_own_eyes, out):
    """Write the legal points of ``colour`` to ``out`` (without its own true eyes if
    ``skip_own_eyes``); their count (the pass not included)."""
    n = 0
    for pt in range(w * w):
        if buf[pt] == EMPTY and not (skip_own_eyes and is_own_eye(buf, w, pt, colour)) \
                and move_code(buf, w, pt, colour, superko) == OK:
            out[n] = pt
            n += 1
    return n


@nb.njit(cache=True)
def owners(buf, w, out):
    """Write each point's owner into ``out`` [M]: BLACK or WHITE for its stones and for empty
    regions that touch only that colour, EMPTY for the rest (regions touching both, borders)."""
    m = w * w
    seen = np.zeros(m, np.bool_)
    stack = np.empty(m, np.int64)
    region = np.empty(m, np.int64)
    for pt in range(m):
        c = buf[pt]
        if c == BLACK or c == WHITE:
            out[pt] = c
        elif c == BORDER:
            out[pt] = EMPTY
        elif not seen[pt]:
            size = 0
            touches = 0  # bit 1: black, bit 2: white
            stack[0] = pt
            seen[pt] = True
            top = 1
            while top > 0:
                top -= 1
                p = stack[top]
                region[size] = p
                size += 1
                for d in (1, -1, w, -w):
                    q = p + d
                    cq = buf[q]
                    if cq == EMPTY:
                        if not seen[q]:
                            seen[q] = True
                            stack[top] = q
                            top += 1
                    elif cq != BORDER:
                        touches |= cq
            owner = touches if touches == BLACK or touches == WHITE else EMPTY
            for i in range(size):
                out[region[i]] = owner


@nb.njit(cache=True)
def area(buf, w):
    """(black area, white area): stones plus empty regions that touch only that colour."""
    out = np.empty(w * w, np.int64)
    owners(buf, w, out)
    return (out == BLACK).sum(), (out == WHITE).sum()


def neighbours8(n: int) -> np.ndarray:
    """[N*N + 1, 8] the actions of the 8 points around each action (-1 off the board and for
    the pass): the local pattern of the paper's RAVE weighting (SPEC §4)."""
    out = np.full((n * n + 1, 8), -1, np.int64)
    steps = [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)]
    for a in range(n * n):
        x, y = a % n, a // n
        for j, (dx, dy) in enumerate(steps):
            if 0 <= x + dx < n and 0 <= y + dy < n:
                out[a, j] = (y + dy) * n + x + dx
    return out
