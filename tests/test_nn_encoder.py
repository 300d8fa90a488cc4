"""The 33 input planes and the mover's frame for values (SPEC §3)."""

from __future__ import annotations

import numpy as np
import pytest

from blokuszero.games.blokus import BlokusGame, BlokusState
from blokuszero.games.blokus.encoder import encode, encode_batch
from blokuszero.games.encoding import from_mover_frame, to_mover_frame
from blokuszero.games.testing import random_positions

BLUE, YELLOW, RED, GREEN = range(4)


def place(*moves: tuple[int, str], to_move: int) -> BlokusState:
    state = BlokusGame().new_initial_state()
    return BlokusState.from_moves([(c, state.string_to_action(m)) for c, m in moves], to_move=to_move)


def random_game(seed: int) -> list[BlokusState]:
    """Every position of a random game, the final one included."""
    return random_positions(BlokusGame(), seed)


def reference_planes(state: BlokusState) -> np.ndarray:
    """The planes straight from the definition, replaying the history one prefix at a time."""
    mover, history = state.current_player(), state.history()
    out = np.zeros((33, 20, 20), np.float32)
    for t in range(8):
        if len(history) - t < 0:
            break
        board = BlokusState.from_moves(history[:len(history) - t]).board()
        for j in range(4):
            out[4 * t + j] = board == (mover + j) % 4
    out[32] = len(history) / 84
    return out


def test_empty_board():
    planes = encode(BlokusGame().new_initial_state())
    assert planes.shape == (33, 20, 20) and planes.dtype == np.float32
    assert not planes.any()


def test_one_piece_is_on_the_plane_of_its_seat_at_row_y():
    planes = encode(place((BLUE, "a20"), to_move=YELLOW))
    # Blue moves 3 turns after Yellow; a20 is x = 0, y = 19 (the top row).
    expected = np.zeros((20, 20), np.float32)
    expected[19, 0] = 1
    assert np.array_equal(planes[3], expected)
    assert not planes[[0, 1, 2]].any()
    assert not planes[4:32].any()  # s-1 is the empty board
    assert np.all(planes[32] == 1 / 84)


def test_history_planes_stay_in_the_frame_of_the_mover_at_s():
    planes = encode(place((BLUE, "a20"), (YELLOW, "t20"), (RED, "s1,t1"), to_move=GREEN))
    occupied = {p: sorted(zip(*np.nonzero(planes[p]))) for p in range(33) if planes[p].any() and p < 32}
    # Green moves: Blue is seat 1, Yellow seat 2, Red seat 3.
    assert occupied == {
        1: [(19, 0)], 2: [(19, 19)], 3: [(0, 18), (0, 19)],  # s
        5: [(19, 0)], 6: [(19, 19)],  # s-1: before Red's move
        9: [(19, 0)],  # s-2: Blue's piece only
    }
    assert np.all(planes[32] == 3 / 84)


@pytest.mark.parametrize("seed", [0, 1])
def test_every_position_of_random_games_matches_the_definition(seed):
    positions = random_game(seed)[:-1]
    assert len(positions) > 50  # late positions have skipped colours
    for state in positions[::3]:
        assert np.array_equal(encode(state), reference_planes(state))


def test_batch_equals_single_encodings():
    positions = random_game(2)[:-1:7]
    batch = encode_batch(positions)
    assert batch.shape == (len(positions), 33, 20, 20) and batch.dtype == np.float32
    for state, planes in zip(positions, batch):
        assert np.array_equal(planes, encode(state))
    assert encode_batch([]).shape == (0, 33, 20, 20)


def test_terminal_state_cannot_be_encoded():
    positions = random_game(3)
    with pytest.raises(ValueError, match="terminal"):
        encode(positions[-1])
    with pytest.raises(ValueError, match="state 1 of the batch"):
        encode_batch([positions[0], positions[-1]])


def test_mover_frame():
    values = np.array([10, 11, 12, 13])
    assert to_mover_frame(values, YELLOW).tolist() == [11, 12, 13, 10]
    assert from_mover_frame([11, 12, 13, 10], YELLOW).tolist() == [10, 11, 12, 13]
    batch = np.arange(16).reshape(4, 4)
    movers = np.array([0, 1, 2, 3])
    relative = to_mover_frame(batch, movers)
    assert relative[:, 0].tolist() == [0, 5, 10, 15]  # each row's own mover first
    assert np.array_equal(from_mover_frame(relative, movers), batch)
    for mover in range(4):
        assert np.array_equal(from_mover_frame(to_mover_frame(batch, mover), mover), batch)


def test_value_targets_are_each_movers_point_of_view():
    positions = random_game(4)
    returns = positions[-1].returns()
    for state in positions[:-1]:
        mover = state.current_player()
        z = to_mover_frame(returns, mover)
        assert z[0] == returns[mover]
        for j in range(4):
            assert z[j] == returns[(mover + j) % 4]
