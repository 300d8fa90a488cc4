"""MoGo's 3x3 patterns around the last move, as a lookup table for the numba playouts.

A point's 3x3 neighbourhood is its 8 neighbours' colours (EMPTY, BLACK, WHITE, BORDER) read as
a base-4 number, neighbour ``i`` of :data:`STEPS` the digit of ``4 ** i``. :data:`TABLE`
``[colour, code]`` says whether a move of ``colour`` on an empty point with that neighbourhood
matches one of the patterns, under the 8 symmetries of the square and with the colours swapped.

The patterns are the published ones of Gelly, Wang, Munos and Teytaud, "Modification of UCT
with patterns in Monte-Carlo Go" (INRIA RR-6062, 2006; Fuego's and Pachi's playouts use the same
set): hane, cut1, cut2 and the first-line patterns, centre = the move. Symbols: ``X`` and ``O``
stones of the two colours, ``.`` empty, ``#`` off the board, ``x`` anything but X, ``o``
anything but O, ``?`` anything. A pattern with a ``mover`` applies only when the player to move
owns that pattern colour.
"""

from __future__ import annotations

import itertools

import numpy as np

from .rules import BLACK, BORDER, EMPTY, WHITE

#: (dx, dy) of the 8 neighbours, row by row from the top left (dy = -1 is the row above).
STEPS = ((-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1))

#: (name, three rows from the top, mover or None).
PATTERNS = (
    ("hane enclosing", ("XOX", "...", "???"), None),
    ("hane non-cutting", ("XO.", "...", "?.?"), None),
    ("hane magari", ("XO?", "X..", "x.?"), None),
    ("hane thin", ("XOO", "...", "?.?"), "X"),
    ("cut1 unprotected", ("XO?", "O.o", "?o?"), None),
    ("cut1 peeped", ("XO?", "O.X", "???"), None),
    ("cut2", ("?X?", "O.O", "ooo"), None),
    ("edge chase", ("X.?", "O.?", "###"), None),
    ("edge block cut", ("OX?", "X.O", "###"), None),
    ("edge block connection", ("?X?", "x.O", "###"), None),
    ("edge sagari", ("?XO", "x.x", "###"), None),
    ("edge cut", ("?OX", "X.O", "###"), None),
)


def _symmetries() -> list:
    """The 8 maps of the square's symmetry group on (dx, dy)."""
    return [lambda x, y: (x, y), lambda x, y: (-x, y), lambda x, y: (x, -y), lambda x, y: (-x, -y),
            lambda x, y: (y, x), lambda x, y: (-y, x), lambda x, y: (y, -x), lambda x, y: (-y, -x)]


def build_table(patterns=PATTERNS) -> np.ndarray:
    """[3, 4**8] bool: ``table[colour, code]`` for a move of ``colour`` (1 black, 2 white)."""
    table = np.zeros((3, 4 ** 8), np.bool_)
    for name, rows, mover in patterns:
        if len(rows) != 3 or any(len(r) != 3 for r in rows) or rows[1][1] != ".":
            raise ValueError(f"pattern {name!r} is not 3 rows of 3 with an empty centre")
        for x_colour in (BLACK, WHITE):
            o_colour = 3 - x_colour
            allowed = {"X": (x_colour,), "O": (o_colour,), ".": (EMPTY,), "#": (BORDER,),
                       "x": (EMPTY, o_colour, BORDER), "o": (EMPTY, x_colour, BORDER),
                       "?": (EMPTY, BLACK, WHITE, BORDER)}
            movers = (BLACK, WHITE) if mover is None else ({"X": x_colour, "O": o_colour}[mover],)
            for sym in _symmetries():
                choices = []
                for dx, dy in STEPS:
                    sx, sy = sym(dx, dy)
                    symbol = rows[sy + 1][sx + 1]
                    if symbol not in allowed:
                        raise ValueError(f"pattern {name!r}: unknown symbol {symbol!r}")
                    choices.append(allowed[symbol])
                for colours in itertools.product(*choices):
                    code = sum(c * 4 ** i for i, c in enumerate(colours))
                    table[list(movers), code] = True
    return table


TABLE = build_table()
