"""Board symmetries on encoded data: exact for the position, turn order reversed by mirrors."""

from __future__ import annotations

import numpy as np
import pytest

from blokuszero.games.blokus import BlokusGame, BlokusState
from blokuszero.games.blokus.encoder import (
    SEAT_MAP,
    encode,
    encode_batch,
    transform_planes,
    transform_policy,
    transform_value,
)
from blokuszero.games.blokus.symmetry import COLOR_MAP, NUM_SYMMETRIES, PLACEMENT_MAP, ROTATIONS
from blokuszero.games.encoding import to_mover_frame
from blokuszero.games.testing import random_positions

MIRRORS = tuple(k for k in range(NUM_SYMMETRIES) if k not in ROTATIONS)


@pytest.fixture(scope="module")
def game() -> list[BlokusState]:
    """Every position of one random game, the final one included."""
    return random_positions(BlokusGame(), 11)


def image(state: BlokusState, k: int) -> BlokusState:
    """The position made of the images of ``state``'s placements, in the same order, with the
    image of its mover to move."""
    moves = [(int(COLOR_MAP[k, c]), int(PLACEMENT_MAP[k, m])) for c, m in state.history()]
    return BlokusState.from_moves(moves, to_move=int(COLOR_MAP[k, state.current_player()]))


def legal_mask(state: BlokusState) -> np.ndarray:
    mask = np.zeros(30433, bool)
    mask[state.legal_actions()] = True
    return mask


def test_seat_map():
    assert SEAT_MAP[list(ROTATIONS)].tolist() == [[0, 1, 2, 3]] * 4
    assert SEAT_MAP[list(MIRRORS)].tolist() == [[0, 3, 2, 1]] * 4  # next and last swap
    for k in range(NUM_SYMMETRIES):
        for mover in range(4):
            for j in range(4):
                seat = (COLOR_MAP[k, (mover + j) % 4] - COLOR_MAP[k, mover]) % 4
                assert seat == SEAT_MAP[k, j]


@pytest.mark.parametrize("k", range(NUM_SYMMETRIES))
def test_planes_and_legal_moves_of_the_image_position(game, k):
    for state in game[:-1:6]:
        mapped = image(state, k)
        assert mapped.current_player() == COLOR_MAP[k, state.current_player()]
        assert np.array_equal(encode(mapped), transform_planes(encode(state), k))
        assert np.array_equal(legal_mask(mapped), transform_policy(legal_mask(state), k))


@pytest.mark.parametrize("k", range(NUM_SYMMETRIES))
def test_value_targets_follow_the_colours(game, k):
    returns = game[-1].returns()
    mapped_returns = np.empty(4)
    mapped_returns[COLOR_MAP[k]] = returns
    for state in game[:-1:5]:
        mover = state.current_player()
        assert np.array_equal(to_mover_frame(mapped_returns, COLOR_MAP[k, mover]),
                              transform_value(to_mover_frame(returns, mover), k))


@pytest.mark.parametrize("k", range(NUM_SYMMETRIES))
def test_rotations_keep_the_continuation_and_mirrors_reverse_it(game, k):
    state, after = game[10], game[11]
    mapped = image(state, k)
    mapped.apply_action(int(PLACEMENT_MAP[k, after.history()[-1][1]]))
    mover = state.current_player()
    if k in ROTATIONS:
        assert mapped.current_player() == COLOR_MAP[k, after.current_player()]
    else:
        # Before any colour is stuck the original passes to mover + 1, the image to the
        # image of mover - 1: a mirrored (pi, z) belongs to another game.
        assert after.current_player() == (mover + 1) % 4
        assert mapped.current_player() == COLOR_MAP[k, (mover - 1) % 4]


def test_transforms_compose_as_the_group(game):
    planes = encode_batch(game[:-1:9])
    policy = np.random.default_rng(0).random((3, 30433))
    values = np.arange(8).reshape(2, 4)
    once = planes
    for _ in range(4):
        once = transform_planes(once, 1)
    assert np.array_equal(once, planes)
    for k in MIRRORS:
        assert np.array_equal(transform_planes(transform_planes(planes, k), k), planes)
        assert np.array_equal(transform_policy(transform_policy(policy, k), k), policy)
        assert np.array_equal(transform_value(transform_value(values, k), k), values)
    assert np.array_equal(transform_planes(planes, 2), transform_planes(transform_planes(planes, 1), 1))
    assert np.array_equal(transform_policy(policy, 2), transform_policy(transform_policy(policy, 1), 1))
    assert np.all(transform_planes(planes, 5)[:, 32] == planes[:, 32])
