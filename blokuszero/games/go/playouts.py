"""Go playouts in numba: uniform eye-keeping ones, Fuego-style informed ones, and the
ownership statistics of many playouts.

A playout plays to the end of the game (two passes in a row, or the move limit), checking
simple ko only (positional superko is not checked inside playouts). Informed playouts: before
the uniform random move (which keeps each side's own true eyes, as the plain playout
does), each rule switched on in the ``rules`` bit mask is tried in Fuego's order of priority;
the first that proposes a legal move that fills no own true eye plays it (a random one of its
candidates):

- ``ATARI_CAPTURE``: the last move's group is in atari: take its liberty;
- ``ATARI_DEFENCE``: an own group next to the last move is in atari: capture an enemy group in
  atari next to it, or extend on its liberty if that leaves it more than one liberty;
- ``LOW_LIBERTY``: a group next to the last move has two liberties: for one's own, a liberty
  that gives it three or more; for the enemy's, a liberty that ataris it without self-atari;
- ``FILL_BOARD``: a few random empty points whose eight neighbours are all empty on the board
  (Fuego's fill-board, for big open areas).

Nakade and Fuego's 3x3 patterns are not implemented. Liberties are counted exactly (a group's
stones are walked through the ``NEXT`` list), up to the few that a rule needs.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .engine import (BLACK, EMPTY, META_LASTPASS, META_LEN, META_MOVES, META_NEMPTY, META_PASSES,
                     META_SIZE, META_TOMOVE, OK, WHITE, is_own_eye, legal_code, owners, play, play_pass)

ATARI_CAPTURE, ATARI_DEFENCE, LOW_LIBERTY, FILL_BOARD = 1, 2, 4, 8
RULES = {"atari_capture": ATARI_CAPTURE, "atari_defence": ATARI_DEFENCE, "low_liberty": LOW_LIBERTY,
         "fill_board": FILL_BOARD}
ALL_RULES = ATARI_CAPTURE | ATARI_DEFENCE | LOW_LIBERTY | FILL_BOARD
FILL_BOARD_TRIES = 3  # random points tried for fill-board per move
WORK_SIZE = 96  # int64 work space of rule_move


@nb.njit(cache=True, inline="always")
def random_point(buf, w, colour):
    """A uniformly random legal point of ``colour`` that is not its own true eye, or 0 (pass)."""
    m = w * w
    n = buf[buf.shape[0] - META_LEN + META_NEMPTY]
    while n > 0:
        i = np.random.randint(n)
        pt = buf[7 * m + i]
        if not is_own_eye(buf, w, pt, colour) and legal_code(buf, w, pt, colour) == OK:
            return pt
        # Not playable now: swap it behind the candidates still to try.
        n -= 1
        q = buf[7 * m + n]
        buf[7 * m + i] = q
        buf[8 * m + q] = i
        buf[7 * m + n] = pt
        buf[8 * m + pt] = n
    return 0


@nb.njit(cache=True)
def _liberties(buf, w, g, limit, out):
    """Write up to ``limit`` distinct liberties of the group with id ``g`` to ``out``; their count."""
    m = w * w
    n = 0
    s = g
    while True:
        for d in (1, -1, w, -w):
            q = s + d
            if buf[q] == EMPTY:
                seen = False
                for i in range(n):
                    if out[i] == q:
                        seen = True
                if not seen:
                    out[n] = q
                    n += 1
                    if n >= limit:
                        return n
        s = buf[2 * m + s]
        if s == g:
            return n


@nb.njit(cache=True)
def _liberties_after(buf, w, pt, colour, limit, scratch, libs):
    """Up to ``limit``: the liberties ``colour``'s stone at ``pt`` would have (empty neighbours,
    the liberties of the own groups it joins but ``pt``, one more per enemy group it captures).
    ``scratch`` and ``libs`` are work space (at least ``limit + 4`` entries)."""
    m = w * w
    n = 0
    for d in (1, -1, w, -w):
        q = pt + d
        c = buf[q]
        if c == EMPTY:
            libs[n] = q
            n += 1
        elif c == 3 - colour:
            g = buf[m + q]
            if _liberties(buf, w, g, 2, scratch) == 1:
                n += 1  # a capture frees at least this stone's point
                libs[n - 1] = -q
        elif c == colour:
            k = _liberties(buf, w, buf[m + q], limit + 1, scratch)
            for i in range(k):
                if scratch[i] == pt:
                    continue
                seen = False
                for j in range(n):
                    if libs[j] == scratch[i]:
                        seen = True
                if not seen:
                    libs[n] = scratch[i]
                    n += 1
        if n >= limit:
            return limit
    return n


@nb.njit(cache=True)
def _playable(buf, w, pt, colour):
    return pt != 0 and not is_own_eye(buf, w, pt, colour) and legal_code(buf, w, pt, colour) == OK


@nb.njit(cache=True)
def _add(cands, n, pt):
    for i in range(n):
        if cands[i] == pt:
            return n
    cands[n] = pt
    return n + 1


@nb.njit(cache=True)
def rule_move(buf, w, colour, last, rules, work):
    """The move the first proposing rule of ``rules`` picks for ``colour`` after the enemy's
    move at ``last`` (0: none), or 0 to leave it to the random move. ``work``: WORK_SIZE
    int64 entries of work space (allocated once per playout: numba allocations are slow)."""
    m = w * w
    enemy = 3 - colour
    scratch, libs, cands, spare = work[0:8], work[8:16], work[16:80], work[80:96]
    if last != 0 and buf[last] == enemy:
        if rules & ATARI_CAPTURE:
            if _liberties(buf, w, buf[m + last], 2, libs) == 1 and _playable(buf, w, libs[0], colour):
                return libs[0]
        if rules & ATARI_DEFENCE:
            n = 0
            for d in (1, -1, w, -w):
                q = last + d
                if buf[q] != colour or _liberties(buf, w, buf[m + q], 2, libs) != 1:
                    continue
                escape = libs[0]
                # Capture an enemy group in atari that touches the group in danger.
                g = buf[m + q]
                s = g
                while True:
                    for e in (1, -1, w, -w):
                        r = s + e
                        if buf[r] == enemy and _liberties(buf, w, buf[m + r], 2, scratch) == 1 \
                                and _playable(buf, w, scratch[0], colour) and n < 60:
                            n = _add(cands, n, scratch[0])
                    s = buf[2 * m + s]
                    if s == g:
                        break
                if _playable(buf, w, escape, colour) and _liberties_after(buf, w, escape, colour, 2, scratch, spare) >= 2:
                    n = _add(cands, n, escape)
            if n > 0:
                return cands[np.random.randint(n)]
        if rules & LOW_LIBERTY:
            n = 0
            for d in (1, -1, w, -w):
                q = last + d
                c = buf[q]
                if (c != colour and c != enemy) or _liberties(buf, w, buf[m + q], 3, libs) != 2:
                    continue
                for i in range(2):
                    pt = libs[i]
                    if not _playable(buf, w, pt, colour):
                        continue
                    after = _liberties_after(buf, w, pt, colour, 3, scratch, spare)
                    if (c == colour and after >= 3) or (c == enemy and after >= 2):
                        n = _add(cands, n, pt)
            # The last move's own group, if it has two liberties, is such an enemy group too.
            if _liberties(buf, w, buf[m + last], 3, libs) == 2:
                for i in range(2):
                    pt = libs[i]
                    if _playable(buf, w, pt, colour) and _liberties_after(buf, w, pt, colour, 2, scratch, spare) >= 2:
                        n = _add(cands, n, pt)
            if n > 0:
                return cands[np.random.randint(n)]
    if rules & FILL_BOARD:
        ne = buf[buf.shape[0] - META_LEN + META_NEMPTY]
        for _ in range(FILL_BOARD_TRIES):
            if ne == 0:
                break
            pt = buf[7 * m + np.random.randint(ne)]
            open_area = True
            for d in (1, -1, w, -w, w + 1, w - 1, -w + 1, -w - 1):
                if buf[pt + d] != EMPTY:
                    open_area = False
                    break
            if open_area and legal_code(buf, w, pt, colour) == OK:
                return pt
    return 0


@nb.njit(cache=True)
def playout(buf, w, rules, last, out_players, out_points):
    """Play to the end from this position, each move first offered to the rules in the bit
    mask ``rules`` (0: uniform random moves that keep the mover's own true eyes) around the
    previous move (``last`` for the first; 0: none). Uses numba's generator.

    Writes the mover (0 black, 1 white) and point (0 = pass) of each move; returns the count.
    """
    mo = buf.shape[0] - META_LEN
    work = np.empty(WORK_SIZE, np.int64)
    t = 0
    while buf[mo + META_TOMOVE] != 0:
        colour = buf[mo + META_TOMOVE]
        chosen = rule_move(buf, w, colour, last, rules, work) if rules else 0
        if chosen == 0:
            chosen = random_point(buf, w, colour)
        out_players[t] = colour - 1
        out_points[t] = chosen
        t += 1
        if chosen:
            play(buf, w, chosen, colour)
        else:
            play_pass(buf, w, colour)
        last = chosen
    return t


@nb.njit(cache=True)
def ownership(buf, w, playouts, to_move, rules, out):
    """Add to ``out`` [M], over ``playouts`` playouts (rules as :func:`playout`'s) from this
    position with ``to_move`` to move (a finished game is played on), +1 where Black owns the
    point at the end and -1 where White does: the statistics dead stones are judged by."""
    m = w * w
    mo = buf.shape[0] - META_LEN
    n = buf[mo + META_SIZE]
    players = np.empty(4 * n * n, np.int64)
    points = np.empty(4 * n * n, np.int64)
    owner = np.empty(m, np.int64)
    for _ in range(playouts):
        b = buf.copy()
        b[mo + META_TOMOVE] = to_move
        b[mo + META_PASSES] = 0
        b[mo + META_LASTPASS] = 0
        # The finished game's moves count against the limit too: give the playout its own.
        b[mo + META_MOVES] = 0
        playout(b, w, rules, 0, players, points)
        owners(b, w, owner)
        for pt in range(m):
            if owner[pt] == BLACK:
                out[pt] += 1.0
            elif owner[pt] == WHITE:
                out[pt] -= 1.0
