"""Submitted tables as the official server judges them (UECDA.md §1, §4).

:func:`analyze` reproduces the server's reading of any 8x15 table, malformed ones included
(value = lowest column, number of cards, suit set, type, error); :func:`table_to_action`
names the action of a well-formed table and :func:`action_to_table` writes an action back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from . import engine as E
from .actions import (A_CARDS, A_JOKER_CELL, A_TYPE, FIVE_ID, GROUP_ID,
                      JGROUP_ID, JSEQ_ID, LONE_JOKER, LONE_JOKER_CELL, NUM_PLAY_ACTIONS, PASS,
                      SEQ_ID, T_GIVE, T_GROUP, T_LONE_JOKER, T_PASS, T_SEQUENCE, T_SINGLE)
from .cards import JOKER, card_cell, cards_of, hand_to_table

if TYPE_CHECKING:
    from .game import DaihinminState


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


def rank_row(previous: list[int] | None, order: list[int]) -> list[int]:
    """[6][5..9] as the server fills it during a game: rank per player from its rank array,
    which starts as the previous finishing order and has its first entries overwritten by
    the players going out (all zeros in the first game after a reset)."""
    if previous is None:
        return [0] * 5
    mibun = list(order) + list(previous[len(order):])
    row = [0] * 5
    for rank, p in enumerate(mibun):
        row[p] = rank
    return row


def _state_rows(table: np.ndarray, state: DaihinminState, ranks: list[int]) -> np.ndarray:
    s = state.s
    table[5, 5] = 0  # 11-back, off
    table[5, 6] = s[E.S_REVOLUTION]
    table[6, 0:5] = [bin(int(h)).count("1") for h in s[E.S_HAND:E.S_HAND + 5]]
    table[6, 5:10] = ranks
    table[6, 10:15] = s[E.S_SEAT:E.S_SEAT + 5]
    return table


def hand_table(state: DaihinminState, player: int, ranks: list[int]) -> np.ndarray:
    """The table the server sends ``player`` at the start of a turn: its hand, [5][2] = 1 for
    the player to move, [5][3] the player to move, [5][4] field empty, lock, counts, ranks,
    seats."""
    s = state.s
    table = hand_to_table(int(s[E.S_HAND + player]))
    mover = int(s[E.S_PLAYER])
    table[5, 2] = int(player == mover)
    table[5, 3] = mover
    table[5, 4] = int(s[E.S_FIELD] < 0)
    table[5, 7] = s[E.S_LOCK]
    return _state_rows(table, state, ranks)


def field_table(state: DaihinminState, stage: np.ndarray, actor: int, ranks: list[int]) -> np.ndarray:
    """The table the server sends everyone after a turn: the last accepted submission as it
    was written (``stage``, zeros after a clear), [5][3] the actor, [5][4] whether the field
    was empty, the lock as it stood before any clear of this turn."""
    table = np.zeros((8, 15), dtype=np.int64)
    table[:5] = stage[:5]
    table[5, 3] = actor
    table[5, 4] = int(not stage[:5].any())
    table[5, 7] = state.s[E.S_SHOWN_LOCK]
    return _state_rows(table, state, ranks)


def deal_table(hand: int, give: int, seats: list[int], counts: list[int],
               ranks: list[int]) -> np.ndarray:
    """The deal table: the hand, [5][0] = 1, [5][1] the cards to give, [5][3] = 6."""
    table = hand_to_table(hand)
    table[5, 0] = 1
    table[5, 1] = max(give, 0)
    table[5, 3] = 6
    table[6, 0:5] = counts
    table[6, 5:10] = ranks
    table[6, 10:15] = seats
    return table
