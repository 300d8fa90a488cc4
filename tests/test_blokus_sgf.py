"""Pentobi Blokus SGF files: round trip, Pentobi's layout, setup properties, errors."""

from __future__ import annotations

import numpy as np
import pytest

from blokuszero.games.blokus import BlokusGame
from blokuszero.games.blokus.sgf import read_sgf, write_sgf
from blokuszero.games.numba_random import seed_numba


def test_round_trip_of_random_games():
    for seed in range(5):
        seed_numba(seed)
        state = BlokusGame().new_initial_state()
        state.playout("largest_piece", epsilon=0.05)
        text = write_sgf(state, {"GC": f"seed {seed}", "C": "a ] and a \\ inside"})
        assert text.startswith("(;GM[Blokus]")
        again = read_sgf(text)
        assert again.history() == state.history()
        assert np.array_equal(again.scores(), state.scores())
        assert again.is_terminal()


def test_reads_pentobi_layout_with_variations():
    # Layout as Pentobi writes its opening books: whitespace and newlines between
    # properties, squares in any order, extra properties, and variations (main line = first).
    text = """(
;GM[Blokus]
 CA[UTF-8]
(
  ;1[a17,b17,a18,a19,a20]
   TE[1]
  ;2[t20,t19,t18,t17,s17]
  ;3[T1,T2,T3,S4,T4]
  (;4[a1,b1,c1])
  (;4[a1])
)
(
  ;1[b17,a18,b18,a19,a20]
)
)
"""
    state = read_sgf(text)
    assert [state.action_to_string(m) for _, m in state.history()] == [
        "a17,b17,a18,a19,a20", "s17,t17,t18,t19,t20", "t1,t2,t3,s4,t4", "a1,b1,c1"]
    assert state.current_player() == 0


def test_setup_properties():
    state = read_sgf("(;GM[Blokus]A2[t20][s19,r19]A4[a1]PL[3];3[t1])")
    assert [(c, state.action_to_string(m)) for c, m in state.history()] == [
        (1, "t20"), (1, "r19,s19"), (3, "a1"), (2, "t1")]
    assert state.current_player() == 3


@pytest.mark.parametrize("text, reason", [
    ("(;GM[Blokus Duo];1[e10])", "not classic Blokus"),
    ("(;GM[Blokus];1[a20];1[t20])", r"node 2, 1\[t20\]: Blue is not to move \(Yellow is\)"),
    ("(;GM[Blokus];1[b19])", "node 1, 1\\[b19\\]: Blue move b19 is illegal"),
    ("(;GM[Blokus];1[a20]", r"expected '\)'"),
    ("(;GM[Blokus];1[a20", "not closed with ']'"),
    ("(;GM[Blokus];1[x5])", "not a square"),
    ("GM[Blokus]", "expected '\\('"),
    ("(;GM[Blokus]PL[7])", "not a colour"),
    ("(;GM[Blokus]FF)", "has no \\[value\\]"),
])
def test_errors_name_the_problem(text, reason):
    with pytest.raises(ValueError, match=reason):
        read_sgf(text)
