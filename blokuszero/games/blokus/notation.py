"""Pentobi's move notation: the squares of a piece, e.g. ``"a19,b19,c19,d19,a20"``.

Columns a-t run left to right, rows 1-20 bottom to top, squares are joined by commas.
Pentobi writes the squares in the order a1, b1, ..., a2, b2, ... so that each move has one
spelling; it reads any order, case-insensitively, and so does :func:`string_to_placement`.
"""

from __future__ import annotations

import re

import numpy as np

from . import tables as T

_SQUARE = re.compile(r"([a-t])([1-9][0-9]?)")


def square_to_string(sq: int) -> str:
    """Pentobi name of square ``sq`` (``0`` -> ``"a1"``)."""
    return f"{chr(ord('a') + sq % T.BOARD_SIZE)}{sq // T.BOARD_SIZE + 1}"


def string_to_square(text: str) -> int:
    """Square number of a Pentobi square name such as ``"t20"``; ValueError if malformed."""
    m = _SQUARE.fullmatch(text.strip().lower())
    if m is None or not 1 <= int(m.group(2)) <= T.BOARD_SIZE:
        raise ValueError(f"{text!r} is not a square of the 20x20 board (a1..t20)")
    return (int(m.group(2)) - 1) * T.BOARD_SIZE + ord(m.group(1)) - ord("a")


def placement_to_string(m: int) -> str:
    """Pentobi notation of placement ``m``, squares in Pentobi's canonical order."""
    if not 0 <= m < T.NUM_PLACEMENTS:
        raise ValueError(f"{m} is not a placement id in [0, {T.NUM_PLACEMENTS})")
    return ",".join(square_to_string(int(sq)) for sq in T.PLACEMENTS[m] if sq >= 0)


def string_to_placement(text: str) -> int:
    """Placement id of a move in Pentobi notation; ValueError naming the problem if none."""
    parts = [p for p in text.strip().split(",")]
    if not text.strip() or any(not p.strip() for p in parts):
        raise ValueError(f"move {text!r} is malformed: expected squares joined by commas, e.g. 'a1,b1'")
    squares = [string_to_square(p) for p in parts]
    if len(set(squares)) != len(squares):
        raise ValueError(f"move {text!r} names a square twice")
    m = -1
    if len(squares) <= T.MAX_PIECE_SIZE:
        m = int(T.find_placements(np.array(squares + [-1] * (T.MAX_PIECE_SIZE - len(squares))))[0])
    if m < 0:
        raise ValueError(f"move {text!r} is not the shape of any Blokus piece")
    return m
