"""The 8 board symmetries: bijections on placements that preserve legality."""

from __future__ import annotations

import numpy as np

from blokuszero.games.blokus import BlokusGame, BlokusState
from blokuszero.games.blokus import tables as T
from blokuszero.games.blokus.symmetry import (
    COLOR_MAP,
    NUM_SYMMETRIES,
    PLACEMENT_MAP,
    ROTATIONS,
    SQUARE_MAP,
    transform_board,
)


def test_maps_are_bijections_and_group_elements():
    assert NUM_SYMMETRIES == 8
    for k in range(NUM_SYMMETRIES):
        assert sorted(SQUARE_MAP[k]) == list(range(T.NUM_SQUARES))
        assert sorted(PLACEMENT_MAP[k]) == list(range(T.NUM_PLACEMENTS))
        assert sorted(COLOR_MAP[k]) == [0, 1, 2, 3]
        # Pieces keep their identity.
        assert np.array_equal(T.PLACEMENT_PIECE[PLACEMENT_MAP[k]], T.PLACEMENT_PIECE)
    assert len({tuple(m) for m in PLACEMENT_MAP}) == 8  # all distinct
    assert np.array_equal(PLACEMENT_MAP[0], np.arange(T.NUM_PLACEMENTS))


def test_rotations_keep_turn_order_and_mirrors_reverse_it():
    for k in range(NUM_SYMMETRIES):
        order = [int(COLOR_MAP[k, c]) for c in range(4)]
        step = (order[1] - order[0]) % 4
        assert all((order[i + 1] - order[i]) % 4 == step for i in range(3))
        assert (step == 1) == (k in ROTATIONS)


def test_symmetries_preserve_legality():
    rng = np.random.default_rng(5)
    for stop in (0, 9, 30, 55):
        state = BlokusGame().new_initial_state()
        while not state.is_terminal() and len(state.history()) < stop:
            state.apply_action(int(rng.choice(state.legal_actions())))
        for k in range(NUM_SYMMETRIES):
            image = BlokusState.from_moves(
                [(int(COLOR_MAP[k, c]), int(PLACEMENT_MAP[k, m])) for c, m in state.history()])
            mapped_board = transform_board(np.where(state.board() >= 0, COLOR_MAP[k][state.board()], -1), k)
            assert np.array_equal(image.board(), mapped_board)
            for c in range(4):
                mapped = np.sort(PLACEMENT_MAP[k][state.legal_actions(c)]) if not state.is_terminal() else []
                assert image.legal_actions(int(COLOR_MAP[k, c])).tolist() == list(mapped)
