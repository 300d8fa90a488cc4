"""Submitted tables as the official server judges them (UECDA.md §1, §4).

:func:`analyze` reproduces the server's reading of any 8x15 table, malformed ones included
(value = lowest column, number of cards, suit set, type, error); :func:`table_to_action`
names the action of a well-formed table and :func:`action_to_table` writes an action back.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .actions import (
    A_CARDS,
    A_JOKER_CELL,
    A_TYPE,
    FIVE_ID,
    GROUP_ID,
    JGROUP_ID,
    JSEQ_ID,
    LONE_JOKER,
    LONE_JOKER_CELL,
    NUM_PLAY_ACTIONS,
    PASS,
    SEQ_ID,
    T_GIVE,
    T_GROUP,
    T_LONE_JOKER,
    T_PASS,
    T_SEQUENCE,
    T_SINGLE,
)
from .cards import JOKER, card_cell, cards_of


class Analysis(NamedTuple):
    """The server's reading of a table: lowest column, cards, suit set (bit per row), type
    (0 pass, 1 single, 2 group, 3 sequence, 4 lone joker) and whether it is malformed."""

    value: int
    count: int
    suit: int
    kind: int
    error: bool


def card_count(table: np.ndarray) -> tuple[int, bool]:
    """Cards (cells 1 or 2) in rows 0-4, and the server's card-count error: a natural card in
    a virtual column or row 4, a value other than 0/1/2, more than one joker."""
    cells = table[:5, :15]
    ones = cells == 1
    twos = cells == 2
    bad = bool(ones[:, [0, 14]].any() or ones[4].any() or (~(ones | twos | (cells == 0))).any())
    return int(ones.sum() + twos.sum()), bad or int(twos.sum()) >= 2


def analyze(table: np.ndarray) -> Analysis:
    """The server's analysis of a submitted table (its type rules, malformed tables included)."""
    cells = np.asarray(table, dtype=np.int64)[:5, :15]
    nonzero = np.argwhere(cells.T != 0)  # column-major: the first non-zero cell by column
    count, error = card_count(cells)
    if count == 0:
        return Analysis(15 if not len(nonzero) else int(nonzero[0][0]), 0, 0, T_PASS, False)
    column, row = (int(x) for x in nonzero[0])
    kind = (T_LONE_JOKER if cells[row, column] == 2 else T_SINGLE) if count == 1 else T_PASS
    if column != 14 and cells[row, column + 1] != 0:
        length = 0
        while column + length <= 14 and cells[row, column + length] != 0:
            length += 1
        suit, number, kind = 1 << row, length, T_SEQUENCE
        error = error or length <= 2
    else:
        in_column = cells[:, column] != 0
        number = int(in_column.sum())
        suit = int(sum(1 << r for r in range(5) if in_column[r]))
        if kind == T_PASS:
            kind = T_GROUP
    if suit >= 16 and suit != 31:
        error = True
    return Analysis(column, number, suit, kind, bool(error or count != number))


def table_to_action(table: np.ndarray) -> int:
    """The action of a well-formed play table; ValueError saying why a table is none."""
    info = analyze(table)
    if info.error:
        raise ValueError("the table is not a combination the server accepts")
    if info.kind == T_PASS:
        return PASS
    if info.kind == T_LONE_JOKER:
        return LONE_JOKER
    cells = np.asarray(table)[:5, :15]
    jokers = np.argwhere(cells == 2)
    joker = tuple(int(x) for x in jokers[0]) if len(jokers) else None
    if info.kind == T_SINGLE:
        return 1 + (info.value - 1) * 4 + int(np.flatnonzero(cells[:4, info.value])[0])
    if info.kind == T_GROUP:
        if info.count == 5:
            return int(FIVE_ID[info.value])
        if joker is None:
            return int(GROUP_ID[info.value, info.suit])
        return int(JGROUP_ID[info.value, info.suit, joker[0]])
    row = info.suit.bit_length() - 1
    if joker is None:
        return int(SEQ_ID[row, info.value, info.count])
    return int(JSEQ_ID[row, info.value, info.count, joker[1]])


def action_to_table(action: int) -> np.ndarray:
    """[8, 15] table of an action's cards: a play as submitted (the joker in the cell it stands
    for; a lone joker at [0][14]), a gift as hand cells (the joker at [4][1]); zeros for pass."""
    table = np.zeros((8, 15), dtype=np.int64)
    kind = A_TYPE[action]
    if kind == T_PASS or action >= NUM_PLAY_ACTIONS and kind != T_GIVE:
        return table
    for card in cards_of(int(A_CARDS[action])):
        if card == JOKER and kind != T_GIVE:
            continue
        row, column = card_cell(card)
        table[row, column] = 2 if card == JOKER else 1
    if kind == T_LONE_JOKER:
        table[LONE_JOKER_CELL] = 2
    elif kind != T_GIVE and A_JOKER_CELL[action, 0] >= 0:
        table[tuple(A_JOKER_CELL[action])] = 2
    return table
