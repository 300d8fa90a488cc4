"""The fixed action-id space of Daihinmin: every combination the official server accepts, the
exchange gifts and the chance outcomes of a stalled game.

Ids, in this order (sizes pinned by ``tests/test_daihinmin_rules.py``):

- ``0`` pass;
- ``1 + card``: singles (52);
- ``LONE_JOKER``: the joker alone (one id wherever it is written);
- groups of one rank (columns 1..13): natural suit sets of 2-4 cards (11 per rank), then suit
  sets of 2-4 with the joker standing for one of their suits (28 per rank), then four of a
  kind + the joker in row 4 (1 per rank);
- sequences of one suit: natural runs of 3..13 cards in columns 1..13 (66 per suit), then runs
  of 3..14 cells in columns 0..14 with the joker in exactly one cell (442 per suit; columns 0
  and 14, the virtual cards, only hold the joker);
- gifts of the exchange: two cards (the daifugo, unordered pairs of the 53 cards), one card
  (the fugo);
- chance outcomes: the finishing order given at random after 20 turns without an accepted
  play (one id per permutation of the 5 players, lexicographic).

Per action the arrays below give what the server's analysis of its table gives
(UECDA.md §4): type, value (lowest column), number of cards, suit set (bit per row, the
joker counting for the row it is written in), whether it holds an 8, and its cards.
"""

from __future__ import annotations

import itertools

import numpy as np

from .cards import EIGHT_COLUMN, JOKER

NUM_PLAYERS = 5

# Action types; T_SINGLE..T_LONE_JOKER are the server's analysis types 1..4.
T_PASS, T_SINGLE, T_GROUP, T_SEQUENCE, T_LONE_JOKER, T_GIVE, T_CHANCE = range(7)

PASS = 0
LONE_JOKER = 53
LONE_JOKER_CELL = (0, 14)  # where the default client writes it (log "Kx")


def _build():
    rows = []  # (type, value, count, suit, eight, cards, joker_row, joker_col)

    def add(kind, value, count, suit, cards, jcell=(-1, -1)):
        if kind == T_SEQUENCE:
            eight = value <= EIGHT_COLUMN <= value + count - 1
        else:
            eight = kind in (T_SINGLE, T_GROUP) and value == EIGHT_COLUMN
        rows.append((kind, value, count, suit, int(eight), cards, jcell[0], jcell[1]))

    add(T_PASS, 0, 0, 0, 0)
    for card in range(52):
        add(T_SINGLE, card // 4 + 1, 1, 1 << (card % 4), 1 << card)
    add(T_LONE_JOKER, LONE_JOKER_CELL[1], 1, 1 << LONE_JOKER_CELL[0], 1 << JOKER, LONE_JOKER_CELL)
    masks = [m for m in range(16) if bin(m).count("1") >= 2]
    for column in range(1, 14):
        base = (column - 1) * 4
        for m in masks:
            add(T_GROUP, column, bin(m).count("1"), m, m << base)
    for column in range(1, 14):
        base = (column - 1) * 4
        for m in masks:
            for s in range(4):
                if m >> s & 1:
                    natural = (m & ~(1 << s)) << base
                    add(T_GROUP, column, bin(m).count("1"), m, natural | 1 << JOKER, (s, column))
    for column in range(1, 14):
        add(T_GROUP, column, 5, 31, 15 << (column - 1) * 4 | 1 << JOKER, (4, column))
    for suit in range(4):
        for length in range(3, 14):
            for start in range(1, 15 - length):
                cards = sum(1 << ((c - 1) * 4 + suit) for c in range(start, start + length))
                add(T_SEQUENCE, start, length, 1 << suit, cards)
    for suit in range(4):
        for length in range(3, 15):
            for start in range(0, 16 - length):
                for j in range(start, start + length):
                    cols = [c for c in range(start, start + length) if c != j]
                    if any(c in (0, 14) for c in cols):
                        continue  # a virtual column can only hold the joker
                    cards = sum(1 << ((c - 1) * 4 + suit) for c in cols) | 1 << JOKER
                    add(T_SEQUENCE, start, length, 1 << suit, cards, (suit, j))
    for a, b in itertools.combinations(range(53), 2):
        add(T_GIVE, 0, 2, 0, 1 << a | 1 << b)
    for a in range(53):
        add(T_GIVE, 0, 1, 0, 1 << a)
    for perm in itertools.permutations(range(NUM_PLAYERS)):
        add(T_CHANCE, 0, 0, 0, 0)
    return rows


_ROWS = _build()
NUM_ACTIONS = len(_ROWS)
A_TYPE = np.array([r[0] for r in _ROWS], dtype=np.int64)  # [A]
A_VALUE = np.array([r[1] for r in _ROWS], dtype=np.int64)  # [A] lowest column (server's value)
A_COUNT = np.array([r[2] for r in _ROWS], dtype=np.int64)  # [A]
A_SUIT = np.array([r[3] for r in _ROWS], dtype=np.int64)  # [A] rows used, bit per row
A_EIGHT = np.array([r[4] for r in _ROWS], dtype=np.int64)  # [A] clears the field (8-cut)
A_CARDS = np.array([r[5] for r in _ROWS], dtype=np.int64)  # [A] cards leaving the hand
A_JOKER_CELL = np.array([(r[6], r[7]) for r in _ROWS], dtype=np.int64)  # [A, 2] (-1 if none)

GIVE2_BASE = int(np.flatnonzero(A_TYPE == T_GIVE)[0])
GIVE1_BASE = GIVE2_BASE + 53 * 52 // 2
CHANCE_BASE = int(np.flatnonzero(A_TYPE == T_CHANCE)[0])
NUM_PLAY_ACTIONS = GIVE2_BASE
PERMUTATIONS = np.array(list(itertools.permutations(range(NUM_PLAYERS))),
                        dtype=np.int64)  # [120, 5]

# Lookup tables for move generation: -1 where no action.
GROUP_ID = np.full((15, 16), -1, np.int64)  # [column, suit set] natural group
JGROUP_ID = np.full((15, 16, 4), -1, np.int64)  # [column, suit set, joker's suit]
FIVE_ID = np.full(15, -1, np.int64)  # [column] four of a kind + joker
SEQ_ID = np.full((4, 15, 16), -1, np.int64)  # [suit, start, length] natural run
JSEQ_ID = np.full((4, 15, 16, 15), -1, np.int64)  # [suit, start, length, joker column]
for _a in range(NUM_PLAY_ACTIONS):
    _t, _v, _n, _s = A_TYPE[_a], A_VALUE[_a], A_COUNT[_a], A_SUIT[_a]
    _jr, _jc = A_JOKER_CELL[_a]
    if _t == T_GROUP and _n == 5:
        FIVE_ID[_v] = _a
    elif _t == T_GROUP and _jr >= 0:
        JGROUP_ID[_v, _s, _jr] = _a
    elif _t == T_GROUP:
        GROUP_ID[_v, _s] = _a
    elif _t == T_SEQUENCE and _jr >= 0:
        JSEQ_ID[_jr, _v, _n, _jc] = _a
    elif _t == T_SEQUENCE:
        SEQ_ID[int(_s).bit_length() - 1, _v, _n] = _a


def give_action(cards: int) -> int:
    """The gift action of a set of one or two cards."""
    chosen = [c for c in range(53) if cards >> c & 1]
    if len(chosen) == 1:
        return GIVE1_BASE + chosen[0]
    if len(chosen) == 2:
        a, b = chosen
        return GIVE2_BASE + a * (105 - a) // 2 + (b - a - 1)
    raise ValueError(f"a gift is one or two cards, not {len(chosen)}")


def chance_action(order) -> int:
    """The chance outcome giving finishing order ``order`` (5 player numbers)."""
    hits = np.flatnonzero((PERMUTATIONS == np.asarray(order)).all(axis=1))
    if len(hits) != 1:
        raise ValueError(f"{order} is not an order of the {NUM_PLAYERS} players")
    return CHANCE_BASE + int(hits[0])
