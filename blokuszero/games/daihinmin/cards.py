"""Cards, the UECda 8x15 table and the official server's log notation.

A card is an index 0..52: ``(column - 1) * 4 + row`` for the natural cards (row = suit 0 spades,
1 hearts, 2 diamonds, 3 clubs; column 1..13 = ranks 3..2), and 52 the joker. A hand is a
53-bit set of those indices in an int64, so that the four suits of one rank are one nibble.

Tables are the protocol's ``int[8][15]`` (UECDA.md §1): rows 0-4 cards, rows 5-6 state. In a
submitted combination the joker is a 2 in the cell of the card it stands for (columns 0 and 14
are the virtual cards below 3 and above 2); in a hand it is the 2 at [4][1].
"""

from __future__ import annotations

import numpy as np

JOKER = 52
NUM_CARDS = 53
FULL_DECK = (1 << NUM_CARDS) - 1
SUIT_LETTERS = "SHDC"
JOKER_LETTERS = "KLMNJ"  # the joker written in row 0..4
RANK_LETTERS = "x3456789TJQKA2x"  # by column 0..14; x = a virtual column (0 or 14)
EIGHT_COLUMN = 6  # the column of rank 8


def card_index(row: int, column: int) -> int:
    """The card in table cell (row, column) of a hand; ValueError for a cell no card has."""
    if not (0 <= row <= 3 and 1 <= column <= 13):
        raise ValueError(f"cell [{row}][{column}] holds no natural card")
    return (column - 1) * 4 + row


def card_cell(card: int) -> tuple[int, int]:
    """The (row, column) of ``card`` in a hand table (the joker at [4][1])."""
    if card == JOKER:
        return 4, 1
    return card % 4, card // 4 + 1


def card_name(card: int) -> str:
    """Log notation of a card in a hand: ``S3`` .. ``C2``, the joker ``J3`` (cell [4][1])."""
    row, column = card_cell(card)
    return (JOKER_LETTERS[row] if card == JOKER else SUIT_LETTERS[row]) + RANK_LETTERS[column]


def cards_of(hand: int) -> list[int]:
    """The card indices of a hand bit set, ascending."""
    return [c for c in range(NUM_CARDS) if hand >> c & 1]


def hand_of(cards) -> int:
    """The hand bit set of some card indices."""
    hand = 0
    for c in cards:
        hand |= 1 << int(c)
    return hand


def hand_to_string(hand: int) -> str:
    """A hand in the log's order (suit by suit, then the joker) and notation."""
    return "".join(table_cells_to_string(hand_to_table(hand)))


def hand_to_table(hand: int) -> np.ndarray:
    """[8, 15] table of a hand: 1 per natural card, 2 at [4][1] for the joker."""
    table = np.zeros((8, 15), dtype=np.int64)
    for c in cards_of(hand):
        row, column = card_cell(c)
        table[row, column] = 2 if c == JOKER else 1
    return table


def table_to_hand(table: np.ndarray) -> int:
    """The hand in rows 0-4 of a hand table; ValueError if a cell is not a card a hand can hold."""
    hand = 0
    for row, column in zip(*np.nonzero(table[:5])):
        value = int(table[row, column])
        if value == 2 and (row, column) == (4, 1):
            hand |= 1 << JOKER
        elif value == 1 and row <= 3 and 1 <= column <= 13:
            hand |= 1 << card_index(int(row), int(column))
        else:
            raise ValueError(f"hand table cell [{row}][{column}] = {value} is not a card")
    return hand


def table_cells_to_string(table: np.ndarray) -> list[str]:
    """Every non-zero cell of rows 0-4 as the server logs it (row by row, column by column)."""
    out = []
    for row in range(5):
        for column in range(15):
            value = int(table[row, column])
            if value:
                letters = JOKER_LETTERS if value == 2 else SUIT_LETTERS + "J"
                out.append(letters[row] + RANK_LETTERS[column])
    return out


def parse_cells(text: str) -> np.ndarray:
    """[8, 15] table from log notation (``S3D3``, ``S9STSJKQSK``, ``KxS3S4``); ValueError if
    malformed. Suit letters read as 1 (the server logs any value but 2 with them), joker
    letters as 2. The rank ``x`` (column 0 or 14) is resolved from the joker's place among the
    cards of its row (before them: column 0, after: column 14); alone in its row, column 0
    when another card is at column 1 or 2, else 14 (a lone joker's column does not matter)."""
    if len(text) % 2:
        raise ValueError(f"{text!r} is not a list of two-letter cards")
    table = np.zeros((8, 15), dtype=np.int64)
    pending_x: list[tuple[int, int, int]] = []  # (row, value, position in text) at column x
    for k in range(0, len(text), 2):
        letter, rank = text[k], text[k + 1]
        if letter in SUIT_LETTERS:
            row, value = SUIT_LETTERS.index(letter), 1
        elif letter in JOKER_LETTERS:
            row, value = JOKER_LETTERS.index(letter), 2
        else:
            raise ValueError(f"{text[k:k + 2]!r} in {text!r}: unknown suit letter {letter!r}")
        if rank == "x":  # a joker, or a malformed submission the server logged as it was
            pending_x.append((row, value, k))
            continue
        if rank not in RANK_LETTERS:
            raise ValueError(f"{text[k:k + 2]!r} in {text!r}: unknown rank {rank!r}")
        column = RANK_LETTERS.index(rank)
        if table[row, column]:
            raise ValueError(f"{text!r} names cell {text[k:k + 2]!r} twice")
        table[row, column] = value
    for row, value, position in pending_x:
        same_row_before = [k for k in range(0, position, 2) if _row_of(text, k) == row]
        same_row_after = [k for k in range(position + 2, len(text), 2) if _row_of(text, k) == row]
        if same_row_after and not same_row_before:
            column = 0
        elif same_row_before:
            column = 14
        else:
            others = np.nonzero(table[:5, 1:14])[1] + 1
            column = 0 if len(others) and others.min() <= 2 else 14
        table[row, column] = value
    return table


def _row_of(text: str, k: int) -> int:
    letter = text[k]
    return SUIT_LETTERS.index(letter) if letter in SUIT_LETTERS else JOKER_LETTERS.index(letter)


_STRENGTH_ORDER = [JOKER] + [(column - 1) * 4 + row for column in range(13, 0, -1)
                             for row in range(4)]


def strongest_cards(hand: int, n: int) -> int:
    """The ``n`` strongest cards of a hand as the server ranks them for the exchange: the
    joker, then 2, A, K, ... and within a rank spades, hearts, diamonds, clubs (no revolution)."""
    out = 0
    for c in _STRENGTH_ORDER:
        if n == 0:
            break
        if hand >> c & 1:
            out |= 1 << c
            n -= 1
    return out
