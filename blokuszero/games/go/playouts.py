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
- ``NAKADE`` (tried first): an empty region of 3 to 5 points beside the last move, bordered
  by one colour, in a killing shape (straight or bent three, pyramid four, bulky or crossed
  five): its vital point, the one point with the most neighbours inside the region; the
  attacker kills there and the defender makes two eyes there;
- ``PATTERNS`` (after the liberty rules): an empty neighbour of the last move (8 around it)
  whose 3x3 neighbourhood matches one of MoGo's patterns (:mod:`.patterns`);
- ``FILL_BOARD``: a few random empty points whose eight neighbours are all empty on the board
  (Fuego's fill-board, for big open areas);
- ``SELF_ATARI``: a correction, not a proposer: a pattern, fill-board or random move that
  would leave the mover's group of two or more stones in atari (capturing nothing) is not
  played; the random move tries another point (a side with only such moves passes, which
  also keeps sekis alive).

Liberties are counted exactly (a group's stones are walked through the ``NEXT`` list), up to
the few that a rule needs.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .patterns import TABLE
from .rules import (
    BLACK,
    BORDER,
    EMPTY,
    META_LASTPASS,
    META_LEN,
    META_MOVES,
    META_NEMPTY,
    META_PASSES,
    META_SIZE,
    META_TOMOVE,
    OK,
    WHITE,
    is_own_eye,
    legal_code,
    owners,
    play,
    play_pass,
)

ATARI_CAPTURE, ATARI_DEFENCE, LOW_LIBERTY, FILL_BOARD, NAKADE, PATTERNS, SELF_ATARI = 1, 2, 4, 8, 16, 32, 64
RULES = {"nakade": NAKADE, "atari_capture": ATARI_CAPTURE, "atari_defence": ATARI_DEFENCE,
         "low_liberty": LOW_LIBERTY, "patterns": PATTERNS, "fill_board": FILL_BOARD,
         "self_atari": SELF_ATARI}
ALL_RULES = ATARI_CAPTURE | ATARI_DEFENCE | LOW_LIBERTY | FILL_BOARD | NAKADE | PATTERNS | SELF_ATARI
FILL_BOARD_TRIES = 3  # random points tried for fill-board per move
WORK_SIZE = 112  # int64 work space of rule_move and the random move
NAKADE_MAX = 5  # largest eye space with a killing shape


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
def _self_atari(buf, w, pt, colour, scratch, spare):
    """Whether ``colour``'s stone at ``pt`` would join its own stones into a group with one
    liberty (captures count as liberties): a self-atari of two or more stones."""
    joins = False
    for d in (1, -1, w, -w):
        if buf[pt + d] == colour:
            joins = True
    return joins and _liberties_after(buf, w, pt, colour, 2, scratch, spare) < 2


@nb.njit(cache=True)
def _nakade(buf, w, last, colour, region):
    """The vital point of a killing eye shape next to ``last`` that ``colour`` may play, or 0
    (see the module docstring). ``region``: NAKADE_MAX int64 entries of work space."""
    for d in (1, -1, w, -w):  # the regions the last stone borders
        start = last + d
        if buf[start] != EMPTY:
            continue
        # Flood the empty region from ``start``, giving up once it outgrows NAKADE_MAX.
        region[0] = start
        size, i, touches, too_big = 1, 0, 0, False
        while i < size and not too_big:
            q = region[i]
            i += 1
            for e in (1, -1, w, -w):
                r = q + e
                c = buf[r]
                if c == EMPTY:
                    seen = False
                    for j in range(size):
                        if region[j] == r:
                            seen = True
                    if not seen:
                        if size == NAKADE_MAX:
                            too_big = True
                            break
                        region[size] = r
                        size += 1
                elif c != BORDER:
                    touches |= c
                    if touches == BLACK | WHITE:
                        too_big = True  # bordered by both colours: no eye space
                        break
        if too_big or size < 3 or (touches != BLACK and touches != WHITE):
            continue
        # Degrees inside the region: the killing shapes are exactly those with one point of
        # highest degree among sizes 3 (any), 4 (a point of degree 3) and 5 (a point of degree
        # 4, or a 2x2 square plus one: 5 adjacencies).
        vital, top, unique, adjacencies = 0, -1, False, 0
        for a in range(size):
            deg = 0
            for b in range(size):
                diff = region[a] - region[b]
                if diff == 1 or diff == -1 or diff == w or diff == -w:
                    deg += 1
            adjacencies += deg
            if deg > top:
                vital, top, unique = region[a], deg, True
            elif deg == top:
                unique = False
        adjacencies //= 2
        killing = size == 3 or (size == 4 and top == 3) or (size == 5 and (top == 4 or adjacencies == 5))
        if killing and unique and _playable(buf, w, vital, colour):
            return vital
    return 0


@nb.njit(cache=True, inline="always")
def neighbourhood(buf, w, pt):
    """The 3x3 code of ``pt`` (:mod:`.patterns`): its 8 neighbours' colours in base 4."""
    code = 0
    f = 1
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            if dx != 0 or dy != 0:
                code += buf[pt + dy * w + dx] * f
                f *= 4
    return code


@nb.njit(cache=True, inline="always")
def random_point(buf, w, colour, safe, scratch, spare):
    """A uniformly random legal point of ``colour`` that is not its own true eye (nor, if
    ``safe``, a self-atari of two or more stones: :func:`_self_atari`), or 0 (pass).
    ``scratch``, ``spare``: 8 int64 entries of work space each."""
    m = w * w
    n = buf[buf.shape[0] - META_LEN + META_NEMPTY]
    while n > 0:
        i = np.random.randint(n)
        pt = buf[7 * m + i]
        if not is_own_eye(buf, w, pt, colour) and legal_code(buf, w, pt, colour) == OK \
                and not (safe and _self_atari(buf, w, pt, colour, scratch, spare)):
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
def rule_move(buf, w, colour, last, rules, work):
    """The move the first proposing rule of ``rules`` picks for ``colour`` after the enemy's
    move at ``last`` (0: none), or 0 to leave it to the random move. ``work``: WORK_SIZE
    int64 entries of work space (allocated once per playout: numba allocations are slow)."""
    m = w * w
    enemy = 3 - colour
    scratch, libs, cands, spare = work[0:8], work[8:16], work[16:80], work[80:96]
    if last != 0 and buf[last] == enemy:
        if rules & NAKADE:
            pt = _nakade(buf, w, last, colour, work[96:96 + NAKADE_MAX])
            if pt != 0:
                return pt
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
                if (_playable(buf, w, escape, colour)
                        and _liberties_after(buf, w, escape, colour, 2, scratch, spare) >= 2):
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
        if rules & PATTERNS:
            n = 0
            safe = rules & SELF_ATARI
            for d in (1, -1, w, -w, w + 1, w - 1, -w + 1, -w - 1):
                pt = last + d
                if buf[pt] == EMPTY and TABLE[colour, neighbourhood(buf, w, pt)] \
                        and _playable(buf, w, pt, colour) \
                        and not (safe and _self_atari(buf, w, pt, colour, scratch, spare)):
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
            chosen = random_point(buf, w, colour, (rules & SELF_ATARI) != 0, work[0:8], work[80:96])
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


@nb.njit(cache=True)
def prior_knowledge(buf, w, colour, last, value, weight, work, fuego=False):
    """Even-game knowledge about every move of ``colour`` after the enemy's ``last`` (0: none),
    written per point to ``value`` (a win rate to assume) and ``weight`` (how many units of
    virtual games, 0 where nothing is known). ``work``: WORK_SIZE int64 entries.

    Simple (``fuego`` False), weight 1 where known: good (1.0): captures, extends an own group
    out of atari to two or more liberties, the vital point of a killing eye shape beside the
    last move, a 3x3 pattern move beside it; bad (0.0): a self-atari of two or more stones that
    captures nothing, a first-line move with no stone within distance 2.

    Fuego's even-game scheme (``fuego`` True; ``GoUctDefaultPriorKnowledge`` of svn2github/fuego,
    its 3 and 9 games as weights 1 and 3): when some good move exists (the playout rules would
    choose), every move weighs 3 at 1.0 if good, else 0.0 if a self-atari, 0.6 if a 3x3
    pattern matches anywhere on the board, else 0.4; otherwise, when any pattern matches,
    weight 1 at 0.0 (self-atari), 1.0 (pattern) or 0.5; otherwise only self-ataris, weight 1
    at 0.0."""
    m = w * w
    enemy = 3 - colour
    size = buf[buf.shape[0] - META_LEN + META_SIZE]
    scratch, libs, spare = work[0:8], work[8:16], work[80:96]
    vital = _nakade(buf, w, last, colour, work[96:96 + NAKADE_MAX]) if last != 0 and buf[last] == enemy else 0
    any_good = False
    any_pattern = False
    for pt in range(m):
        weight[pt] = 0
        if buf[pt] != EMPTY or not _playable(buf, w, pt, colour):
            continue
        good = pt == vital
        captures = False
        for d in (1, -1, w, -w):
            q = pt + d
            c = buf[q]
            if c == enemy and _liberties(buf, w, buf[m + q], 2, libs) == 1:
                captures = True
            elif c == colour and _liberties(buf, w, buf[m + q], 2, libs) == 1 \
                    and _liberties_after(buf, w, pt, colour, 2, scratch, spare) >= 2:
                good = True
        good = good or captures
        pattern = TABLE[colour, neighbourhood(buf, w, pt)]
        if last != 0 and not good:
            diff = pt - last
            if (diff == 1 or diff == -1 or diff == w or diff == -w or diff == w + 1 or diff == w - 1
                    or diff == -w + 1 or diff == -w - 1) and pattern:
                good = True
        self_atari = not captures and _self_atari(buf, w, pt, colour, scratch, spare)
        if fuego:
            # Codes for the second pass: 1 self-atari, 2 pattern, 3 good, 4 other.
            weight[pt] = 3 if good else (1 if self_atari else (2 if pattern else 4))
            any_good = any_good or good
            any_pattern = any_pattern or pattern
            continue
        bad = self_atari
        if not bad:
            x, y = pt % w, pt // w
            if x == 1 or y == 1 or x == size or y == size:
                bad = True  # unless a stone is near
                for dy in range(-2, 3):
                    for dx in range(-2, 3):
                        if abs(dx) + abs(dy) <= 2 and 1 <= x + dx <= size and 1 <= y + dy <= size:
                            c = buf[pt + dy * w + dx]
                            if c == BLACK or c == WHITE:
                                bad = False
        if bad:
            value[pt] = 0.0
            weight[pt] = 1
        elif good:
            value[pt] = 1.0
            weight[pt] = 1
    if fuego:
        for pt in range(m):
            code = weight[pt]
            if code == 0:
                continue
            if any_good:
                weight[pt] = 3
                value[pt] = 1.0 if code == 3 else (0.0 if code == 1 else (0.6 if code == 2 else 0.4))
            elif any_pattern:
                weight[pt] = 1
                value[pt] = 0.0 if code == 1 else (1.0 if code == 2 else 0.5)
            elif code == 1:
                weight[pt] = 1
                value[pt] = 0.0
            else:
                weight[pt] = 0
