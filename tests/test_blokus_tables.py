"""The fixed tables: counts from SPEC §1 and a pinned action-id order."""

from __future__ import annotations

import hashlib

import numpy as np

from blokuszero.games.blokus import tables as T
from blokuszero.games.blokus.notation import placement_to_string, string_to_placement


def test_counts():
    assert T.NUM_PIECES == 21
    assert T.TOTAL_SQUARES == 89
    assert np.bincount(T.PIECE_SIZES).tolist() == [0, 1, 1, 2, 5, 12]
    assert T.NUM_ORIENTATIONS == 91
    assert T.NUM_PLACEMENTS == 30_433


def test_orientation_counts_per_piece():
    expected = {"1": 1, "2": 2, "I3": 2, "V3": 4, "I4": 2, "L4": 8, "T4": 4, "O4": 1, "Z4": 4,
                "F": 8, "I5": 2, "L5": 8, "N": 8, "P": 8, "T5": 4, "U": 4, "V5": 4, "W": 4,
                "X": 1, "Y": 8, "Z5": 4}
    assert {n: len(T.orientations(n)) for n in T.PIECE_NAMES} == expected


def test_placements_are_distinct_and_on_the_board():
    cells = T.PLACEMENTS
    assert cells.max() < T.NUM_SQUARES
    assert ((cells >= 0).sum(axis=1) == T.PLACEMENT_SIZE).all()
    keys = {tuple(row) for row in cells}
    assert len(keys) == T.NUM_PLACEMENTS


def test_action_id_order_is_pinned():
    # Saved networks and games depend on this order: change it only with a migration.
    digest = hashlib.sha256(T.PLACEMENTS.astype("<i2").tobytes()
                            + T.PLACEMENT_PIECE.astype("i1").tobytes()).hexdigest()
    assert digest == PINNED_DIGEST
    assert placement_to_string(0) == "a1"
    assert placement_to_string(399) == "t20"
    assert placement_to_string(400) == "a1,b1"
    assert placement_to_string(T.NUM_PLACEMENTS - 1) == "r18,r19,s19,t19,t20"  # last Z5


def test_notation_round_trip_for_every_placement():
    for m in range(T.NUM_PLACEMENTS):
        assert string_to_placement(placement_to_string(m)) == m


def test_cover_table_lists_every_placement_at_each_of_its_squares():
    for m in range(0, T.NUM_PLACEMENTS, 97):
        for sq in T.PLACEMENTS[m][T.PLACEMENTS[m] >= 0]:
            p = T.PLACEMENT_PIECE[m]
            assert m in T.COVER[T.COVER_START[sq, p]:T.COVER_START[sq, p + 1]]
    assert len(T.COVER) == int(T.PLACEMENT_SIZE.sum())


PINNED_DIGEST = "80ce28d4e401afbf78b51cf5383d5d4d038a8cdc83591c4398139d4f75b5e64d"


def test_packed_placements_hold_their_id_and_squares():
    packed = T.PACKED
    assert (packed & ((1 << T.PACKED_ID_BITS) - 1) == np.arange(T.NUM_PLACEMENTS)).all()
    for j in range(T.MAX_PIECE_SIZE):
        square = (packed >> (T.PACKED_ID_BITS + T.PACKED_SQUARE_BITS * j)) & ((1 << T.PACKED_SQUARE_BITS) - 1)
        # Squares in order; a smaller piece repeats its last square.
        expected = np.where(T.PLACEMENTS[:, j] >= 0, T.PLACEMENTS[:, j], T.PLACEMENTS.max(axis=1))
        assert (square == expected).all()


def _window_bit(a: int, sq: int) -> int:
    dx, dy = sq % T.BOARD_SIZE - a % T.BOARD_SIZE, sq // T.BOARD_SIZE - a // T.BOARD_SIZE
    return T.WINDOW_OFFSET[dy + 4] + dx + T.WINDOW_RADIUS[dy + 4]


def test_scan_lists_are_the_cover_entries_that_avoid_the_blocked_edge_neighbours():
    rng = np.random.default_rng(0)
    for a in rng.choice(T.NUM_SQUARES, size=25, replace=False).tolist() + [0, 19, 399]:
        for status in range(T.NUM_EDGE_STATUSES):
            blocked = {int(T.EDGE_NEIGHBOURS[a, i]) for i in range(4) if status >> i & 1
                       and T.EDGE_NEIGHBOURS[a, i] >= 0}
            base = (a * T.NUM_EDGE_STATUSES + status) * T.NUM_PIECES
            entries = T.STATUS_ENTRIES[T.STATUS_START[base]:T.STATUS_START[base + T.NUM_PIECES]]
            k = (entries >> np.uint64(T.STATUS_ENTRY_SHIFT)) & np.uint64((1 << 18) - 1)
            expected = [i for i in range(T.COVER_START[a, 0], T.COVER_START[a, T.NUM_PIECES])
                        if not blocked & set(T.PLACEMENTS[T.COVER[i]].tolist())]
            assert k.tolist() == expected  # in COVER's order: the same candidates, in order
            assert ((entries >> np.uint64(T.STATUS_PIECE_SHIFT)).astype(int)
                    == T.PLACEMENT_PIECE[T.COVER[expected]]).all()
            for entry, m in zip(entries.tolist(), T.COVER[expected].tolist()):
                bits = sum(1 << _window_bit(a, sq) for sq in T.PLACEMENTS[m].tolist() if sq >= 0 and sq != a)
                assert entry & ((1 << T.STATUS_ENTRY_SHIFT) - 1) == bits
