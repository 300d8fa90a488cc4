"""Go SGF: round trips of played games, main-line reading, and clear errors on bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blokuszero.games.go import GoGame
from blokuszero.games.go.sgf import read_sgf, write_sgf
from blokuszero.games.numba_random import seed_numba


@pytest.mark.parametrize("size", [9, 13, 25])
def test_playout_games_round_trip(size):
    game = GoGame(size, komi=7.5)
    seed_numba(size)
    state = game.new_initial_state()
    players, actions = state.playout()
    moves = list(zip(players.tolist(), actions.tolist()))
    text = write_sgf(game, moves, {"PB": "black [bot]", "RE": "B+3.5"})
    assert text.startswith("(;FF[4]GM[1]") and f"SZ[{size}]" in text and "KM[7.5]" in text
    record = read_sgf(text)
    assert (record.size, record.komi, record.moves) == (size, 7.5, moves)
    assert record.properties["PB"] == "black [bot]"
    assert np.array_equal(record.replay().board(), state.board())


def test_setup_stones_variations_and_tt_pass():
    text = "(;GM[1]FF[4]SZ[9]KM[0.5]AB[cc][gg]C[two \\] stones]\n;W[ee];B[tt](;W[dd];B[]) (;W[aa]))"
    record = read_sgf(text)
    assert record.setup == [(0, 20), (0, 60)] and record.to_move == 1
    assert record.moves == [(1, 40), (0, 81), (1, 30), (0, 81)]
    assert record.properties["C"] == "two ] stones"
    state = record.replay()
    assert state.board()[2, 2] == 1 and state.board()[3, 3] == 2 and state.current_player() == 1
    again = read_sgf(write_sgf(record.game(), record.moves, setup=record.setup))
    assert again.setup == record.setup and again.moves == record.moves


@pytest.mark.parametrize("text,why", [
    ("", "no game tree"),
    ("(;GM[2]SZ[9])", "not Go"),
    ("(;SZ[30])", "SZ\\[30\\]"),
    ("(;SZ[9]KM[x])", "komi"),
    ("(;SZ[9];B[zz])", "not a point"),
    ("(;SZ[9];B[aa]", "not closed"),
    ("(;SZ[9];B[aa", "not closed with"),
    ("(;SZ[9];B)", "has no \\[value\\]"),
    ("(;SZ[9];B[aa];B[bb])", "out of turn"),
    ("(;SZ[9];B[aa];W[aa])", "occupied"),
    ("(;SZ[9]AB[aa:cc])", "compressed"),
])
def test_bad_sgf_is_named(text, why):
    with pytest.raises(ValueError, match=why):
        read_sgf(text).replay()


def test_main_line_follows_the_first_variation():
    record = read_sgf("(;SZ[9](;B[aa];W[bb](;B[cc])(;B[dd]))(;B[ee]))")
    assert [a for _, a in record.moves] == [0, 10, 20]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="();[]\\ABWSZKMPLabcdt019:\n ", max_size=60))
def test_any_text_reads_or_fails_with_value_error(text):
    try:
        read_sgf(text).replay()
    except ValueError:
        pass
