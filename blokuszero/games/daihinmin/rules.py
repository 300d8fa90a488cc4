"""Numba kernels of Daihinmin's rules as the official UECda server applies them (UECDA.md §3-4).

A position is one int64 vector (indices ``S_*`` below): hands as 53-bit sets, seats, the
field, flags and the finishing order. Move generation, moves and whole random playouts run
in numba on that vector; :mod:`.game` wraps it in the common interface.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .actions import (
    A_CARDS,
    A_COUNT,
    A_EIGHT,
    A_SUIT,
    A_TYPE,
    A_VALUE,
    CHANCE_BASE,
    FIVE_ID,
    GIVE1_BASE,
    GIVE2_BASE,
    GROUP_ID,
    JGROUP_ID,
    JSEQ_ID,
    LONE_JOKER,
    PASS,
    PERMUTATIONS,
    SEQ_ID,
    T_GROUP,
    T_LONE_JOKER,
    T_SEQUENCE,
    T_SINGLE,
)
from .cards import JOKER

# Phases.
P_GIVE_DAIFUGO, P_GIVE_FUGO, P_PLAY, P_CHANCE, P_OVER = range(5)

# The state vector.
S_HAND = 0  # [5] hands, by player
S_SEAT = 5  # [5] player sitting in seat 0..4 (play goes seat 0 -> 1 -> ... -> 4 -> 0)
S_RANK = 10  # [5] rank of each player from the previous game (0 daifugo .. 4), -1 if none
S_ORDER = 15  # [5] players in finishing order (-1 not yet)
S_PHASE = 20
S_PLAYER = 21  # player to move in the play phase (the server's now_player)
S_LAST = 22  # last player whose play was accepted (leads after a clear)
S_FIELD = 23  # action on the field, -1 when it is empty
S_REVOLUTION = 24
S_LOCK = 25  # suit lock (shibari)
S_JOKER_ALONE = 26  # a lone joker is on the field: only the spade 3 may answer
S_PASSED = 27  # bit per player: passed since the last clear
S_STALL = 28  # turns in a row without an accepted play
S_OUT = 29  # number of players out
S_PLAYED = 30  # cards played so far (53-bit set)
S_GAVE_DAIFUGO = 31  # cards the daifugo gave the daihinmin
S_GAVE_FUGO = 32  # card the fugo gave the hinmin
S_TOOK_DAIFUGO = 33  # the daihinmin's strongest two, now the daifugo's
S_TOOK_FUGO = 34  # the hinmin's strongest card, now the fugo's
S_MOVES = 35  # actions applied
S_RULES = 36  # the server's rule switches that are on (R_* bits)
S_SHOWN_LOCK = 37  # the lock as the server's field table shows it after the last turn
S_SIZE = 38

R_REVOLUTION, R_LOCK, R_SEQUENCE, R_EIGHT_CUT = 1, 2, 4, 8
ALL_RULES = R_REVOLUTION | R_LOCK | R_SEQUENCE | R_EIGHT_CUT
# Not an official switch: the field clears only when every player still in has passed, so the
# last player to play answers its own play first (FujiGokoro's server and client assume this;
# the official records clear as soon as all the others have passed).
R_SELF_FOLLOW = 16

STALL_LIMIT = 20  # turns without an accepted play that end the game at random ranks
MAX_MOVES = 2 + 53 * STALL_LIMIT + STALL_LIMIT + 1
MAX_LEGAL = 2048  # room for one position's legal actions

_SUBSETS = np.zeros((16, 16), np.int64)  # [mask, k] list of sub-masks; count in column 15
for _m in range(16):
    _subs = [s for s in range(16) if s & _m == s and bin(s).count("1") >= 2]
    _SUBSETS[_m, 15] = len(_subs)
    _SUBSETS[_m, :len(_subs)] = _subs
_POPCOUNT4 = np.array([bin(m).count("1") for m in range(32)], np.int64)


@nb.njit(cache=True)
def popcount(x: int) -> int:
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@nb.njit(cache=True)
def _index_in(s: np.ndarray, start: int, value: int) -> int:
    """Index i of the five cells s[start:start + 5] holding ``value``, or -1."""
    for i in range(5):
        if s[start + i] == value:
            return i
    return -1


@nb.njit(cache=True)
def seat_of(s: np.ndarray, player: int) -> int:
    return _index_in(s, S_SEAT, player)


@nb.njit(cache=True)
def player_of_rank(s: np.ndarray, rank: int) -> int:
    return _index_in(s, S_RANK, rank)


@nb.njit(cache=True)
def current_player(s: np.ndarray) -> int:
    """Player to move, -1 over, -3 chance."""
    phase = s[S_PHASE]
    if phase == P_GIVE_DAIFUGO:
        return player_of_rank(s, 0)
    if phase == P_GIVE_FUGO:
        return player_of_rank(s, 1)
    if phase == P_PLAY:
        return s[S_PLAYER]
    if phase == P_CHANCE:
        return -3
    return -1


@nb.njit(cache=True)
def _stronger(column: int, field_column: int, revolution: int) -> bool:
    return column < field_column if revolution else column > field_column


@nb.njit(cache=True)
def legal_plays(s: np.ndarray, out: np.ndarray) -> int:
    """Fill ``out`` with the legal actions of the player to move (pass first, then ascending
    ids); the number written. Gifts in the exchange phases, outcomes at a chance node."""
    phase = s[S_PHASE]
    n = 0
    if phase == P_GIVE_DAIFUGO or phase == P_GIVE_FUGO:
        hand = s[S_HAND + current_player(s)]
        for a in range(53):
            if hand >> a & 1:
                if phase == P_GIVE_FUGO:
                    out[n] = GIVE1_BASE + a
                    n += 1
                    continue
                for b in range(a + 1, 53):
                    if hand >> b & 1:
                        out[n] = GIVE2_BASE + a * (105 - a) // 2 + (b - a - 1)
                        n += 1
        return n
    if phase == P_CHANCE:
        out_count = s[S_OUT]
        for k in range(PERMUTATIONS.shape[0]):
            ok = True
            for i in range(out_count):
                if PERMUTATIONS[k, i] != s[S_ORDER + i]:
                    ok = False
                    break
            if ok:
                out[n] = CHANCE_BASE + k
                n += 1
        return n
    if phase != P_PLAY:
        return 0
    hand = s[S_HAND + s[S_PLAYER]]
    joker = (hand >> JOKER) & 1
    field = s[S_FIELD]
    rev = s[S_REVOLUTION]
    out[n] = PASS
    n += 1
    if field < 0:
        return _all_combinations(hand, joker, s[S_RULES] & R_SEQUENCE, out, n)
    if s[S_JOKER_ALONE]:
        if hand & 1:  # the spade 3
            out[n] = 1
            n += 1
        return n
    kind = A_TYPE[field]
    value = A_VALUE[field]
    count = A_COUNT[field]
    lock = s[S_LOCK]
    suit = A_SUIT[field]
    if kind == T_SINGLE:
        for column in range(1, 14):
            if not _stronger(column, value, rev):
                continue
            for row in range(4):
                c = (column - 1) * 4 + row
                if hand >> c & 1 and (lock == 0 or suit == 1 << row):
                    out[n] = 1 + c
                    n += 1
        if joker:
            out[n] = LONE_JOKER
            n += 1
    elif kind == T_GROUP:
        for column in range(1, 14):
            if not _stronger(column, value, rev):
                continue
            held = (hand >> ((column - 1) * 4)) & 15
            if count == 5:
                if held == 15 and joker:
                    out[n] = FIVE_ID[column]
                    n += 1
                continue
            for m in range(16):
                if _POPCOUNT4[m] != count or (lock and m != suit):
                    continue
                if m & held == m:
                    out[n] = GROUP_ID[column, m]
                    n += 1
                if joker:
                    for r in range(4):
                        if m >> r & 1 and (m & ~(1 << r)) & held == (m & ~(1 << r)):
                            out[n] = JGROUP_ID[column, m, r]
                            n += 1
    elif kind == T_SEQUENCE:
        for row in range(4):
            if lock and suit != 1 << row:
                continue
            for start in range(0, 16 - count):
                ok = start >= value + count if rev == 0 else start + count - 1 < value
                if ok:
                    n = _runs_at(hand, joker, row, start, count, out, n)
    return _sorted(out, n)


@nb.njit(cache=True)
def _runs_at(hand: int, joker: int, row: int, start: int, length: int, out: np.ndarray,
             n: int) -> int:
    """Append the sequences of ``length`` cells from column ``start`` in suit ``row``."""
    missing = 0
    hole = -1
    for column in range(start, start + length):
        if column == 0 or column == 14 or not (hand >> ((column - 1) * 4 + row)) & 1:
            missing += 1
            hole = column
    if missing == 0:
        out[n] = SEQ_ID[row, start, length]
        n += 1
        if joker:
            for column in range(start, start + length):
                out[n] = JSEQ_ID[row, start, length, column]
                n += 1
    elif missing == 1 and joker:
        out[n] = JSEQ_ID[row, start, length, hole]
        n += 1
    return n


@nb.njit(cache=True)
def _all_combinations(hand: int, joker: int, sequences: int, out: np.ndarray, n: int) -> int:
    for c in range(52):
        if hand >> c & 1:
            out[n] = 1 + c
            n += 1
    if joker:
        out[n] = LONE_JOKER
        n += 1
    for column in range(1, 14):
        held = (hand >> ((column - 1) * 4)) & 15
        for k in range(_SUBSETS[held, 15]):
            out[n] = GROUP_ID[column, _SUBSETS[held, k]]
            n += 1
        if joker:
            for m in range(16):
                if _POPCOUNT4[m] < 2:
                    continue
                for r in range(4):
                    if m >> r & 1 and (m & ~(1 << r)) & held == (m & ~(1 << r)):
                        out[n] = JGROUP_ID[column, m, r]
                        n += 1
            if held == 15:
                out[n] = FIVE_ID[column]
                n += 1
    for row in range(4 if sequences else 0):
        for start in range(0, 13):
            for length in range(3, 16 - start):
                before = n
                n = _runs_at(hand, joker, row, start, length, out, n)
                if n == before:
                    break  # too many cells missing: no longer run from here either
    return _sorted(out, n)


@nb.njit(cache=True)
def _sorted(out: np.ndarray, n: int) -> int:
    out[:n].sort()
    return n


@nb.njit(cache=True)
def is_legal(s: np.ndarray, action: int, buf: np.ndarray) -> bool:
    n = legal_plays(s, buf)
    for i in range(n):
        if buf[i] == action:
            return True
    return False


@nb.njit(cache=True)
def _next_seat(s: np.ndarray, player: int) -> int:
    return s[S_SEAT + (seat_of(s, player) + 1) % 5]


@nb.njit(cache=True)
def begin_play(s: np.ndarray) -> None:
    """After the exchange: the holder of the diamond 3 moves first."""
    s[S_PHASE] = P_PLAY
    for p in range(5):
        if s[S_HAND + p] >> 2 & 1:
            s[S_PLAYER] = p
            s[S_LAST] = p


@nb.njit(cache=True)
def apply(s: np.ndarray, action: int) -> None:
    """Apply a legal ``action`` (not checked here)."""
    s[S_MOVES] += 1
    phase = s[S_PHASE]
    if phase == P_GIVE_DAIFUGO or phase == P_GIVE_FUGO:
        giver = player_of_rank(s, 0 if phase == P_GIVE_DAIFUGO else 1)
        taker = player_of_rank(s, 4 if phase == P_GIVE_DAIFUGO else 3)
        cards = A_CARDS[action]
        s[S_HAND + giver] &= ~cards
        s[S_HAND + taker] |= cards
        if phase == P_GIVE_DAIFUGO:
            s[S_GAVE_DAIFUGO] = cards
            s[S_PHASE] = P_GIVE_FUGO
        else:
            s[S_GAVE_FUGO] = cards
            begin_play(s)
        return
    if phase == P_CHANCE:
        k = action - CHANCE_BASE
        for i in range(5):
            s[S_ORDER + i] = PERMUTATIONS[k, i]
        s[S_OUT] = 5
        s[S_PHASE] = P_OVER
        return
    play(s, action)


@nb.njit(cache=True)
def play(s: np.ndarray, action: int) -> None:
    """One turn of the server's main loop: ``action`` (PASS for a pass or a rejected table)
    by the player to move, then the stall count, the field clear and the next player."""
    p = s[S_PLAYER]
    clear = False
    if action == PASS:
        s[S_PASSED] |= 1 << p
        s[S_STALL] += 1
    else:
        kind = A_TYPE[action]
        field = s[S_FIELD]
        if s[S_JOKER_ALONE]:
            s[S_JOKER_ALONE] = 0  # the spade 3 answers the lone joker
            clear = True
        elif kind != T_LONE_JOKER and field >= 0 and s[S_LOCK] == 0 and s[S_RULES] & R_LOCK:
            s[S_LOCK] = 1 if A_SUIT[action] == A_SUIT[field] else 0
        if kind == T_LONE_JOKER:
            s[S_JOKER_ALONE] = 1
            s[S_LOCK] = 0
        s[S_FIELD] = action
        s[S_HAND + p] &= ~A_CARDS[action]
        s[S_PLAYED] |= A_CARDS[action]
        s[S_LAST] = p
        s[S_STALL] = 0
        if s[S_HAND + p] == 0:
            s[S_ORDER + s[S_OUT]] = p
            s[S_OUT] += 1
        if s[S_JOKER_ALONE] == 0:
            count = A_COUNT[action]
            if (s[S_RULES] & R_REVOLUTION and (kind == T_GROUP and count >= 4
                                               or kind == T_SEQUENCE and count >= 5)):
                s[S_REVOLUTION] ^= 1
            if s[S_RULES] & R_EIGHT_CUT and A_EIGHT[action]:
                clear = True
    if s[S_STALL] >= STALL_LIMIT and s[S_OUT] <= 3:
        s[S_SHOWN_LOCK] = s[S_LOCK]
        s[S_PHASE] = P_CHANCE
        return
    if popcount(s[S_PASSED]) >= 4 - s[S_OUT] + (1 if s[S_RULES] & R_SELF_FOLLOW else 0):
        clear = True
    s[S_SHOWN_LOCK] = s[S_LOCK]  # the field table goes out before the clear
    if clear:
        s[S_FIELD] = -1
        s[S_LOCK] = 0
        s[S_JOKER_ALONE] = 0
        s[S_PASSED] = 0
        q = s[S_LAST]
        while s[S_HAND + q] == 0:
            q = _next_seat(s, q)
        s[S_PLAYER] = q
        s[S_LAST] = q
    else:
        q = _next_seat(s, p)
        while s[S_HAND + q] == 0 or (s[S_PASSED] >> q) & 1:
            q = _next_seat(s, q)
        s[S_PLAYER] = q
    if s[S_OUT] == 4:
        for q in range(5):
            if s[S_HAND + q] != 0:
                s[S_ORDER + 4] = q
        s[S_OUT] = 5
        s[S_PHASE] = P_OVER


@nb.njit(cache=True)
def playout(s: np.ndarray, players: np.ndarray, actions: np.ndarray, buf: np.ndarray) -> int:
    """Uniformly random legal actions (chance outcomes uniform too) to the end, in place, drawn
    from numba's global generator (seeded by ``games.numba_random.seed_numba``); fills
    ``players`` / ``actions`` (-3 for chance) and returns how many were played."""
    t = 0
    while s[S_PHASE] != P_OVER:
        n = legal_plays(s, buf)
        a = buf[np.random.randint(n)]
        players[t] = current_player(s)
        actions[t] = a
        t += 1
        apply(s, a)
    return t


@nb.njit(cache=True)
def playouts_from(s: np.ndarray, n: int, buf: np.ndarray) -> int:
    """``n`` random playouts from copies of ``s`` (a benchmark kernel); total actions played."""
    total = 0
    work = s.copy()
    players = np.empty(MAX_MOVES, np.int64)
    actions = np.empty(MAX_MOVES, np.int64)
    for _ in range(n):
        work[:] = s
        total += playout(work, players, actions, buf)
    return total


@nb.njit(cache=True)
def generate_all(positions: np.ndarray, buf: np.ndarray) -> int:
    """Legal actions of every row of ``positions`` [N, S_SIZE] (a benchmark kernel); how many."""
    total = 0
    for i in range(positions.shape[0]):
        total += legal_plays(positions[i], buf)
    return total
