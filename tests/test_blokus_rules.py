"""Blokus rules beyond the Pentobi replays: first moves, errors, scoring, an independent oracle."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blokuszero.games.blokus import BlokusGame, BlokusState
from blokuszero.games.blokus import rules as E
from blokuszero.games.blokus import tables as T
from blokuszero.games.numba_random import seed_numba


def oracle_legal(state: BlokusState, colour: int) -> np.ndarray:
    """Legal placements by brute force over all 30,433, straight from the rules (SPEC §1)."""
    board = state.board().ravel()
    cells = T.PLACEMENTS
    valid = cells >= 0
    safe = np.where(valid, cells, 0)
    own = np.append(board == colour, False)  # index 400 = off the board
    free = np.where(valid, board[safe] < 0, True).all(axis=1)
    edge = np.where(valid[:, :, None], T.EDGE_NEIGHBOURS[safe], T.NUM_SQUARES)
    edge = np.where(edge < 0, T.NUM_SQUARES, edge)
    touches_edge = own[edge].any(axis=(1, 2))
    diag = np.where(valid[:, :, None], T.DIAG_NEIGHBOURS[safe], T.NUM_SQUARES)
    diag = np.where(diag < 0, T.NUM_SQUARES, diag)
    corner = own[diag].any(axis=(1, 2))
    if not own.any():
        corner = (cells == T.CORNERS[colour]).any(axis=1)
    used = {T.PLACEMENT_PIECE[m] for c, m in state.history() if c == colour}
    unused = ~np.isin(T.PLACEMENT_PIECE, list(used))
    return np.flatnonzero(free & ~touches_edge & corner & unused)


def test_58_first_moves_for_each_colour():
    state = BlokusGame().new_initial_state()
    for colour in range(4):
        legal = state.legal_actions(colour)
        assert len(legal) == 58
        assert all(T.CORNERS[colour] in T.PLACEMENTS[m] for m in legal)


def test_turn_order_and_corners():
    state = BlokusGame().new_initial_state()
    for colour, corner in enumerate(["a20", "t20", "t1", "a1"]):
        assert state.current_player() == colour
        state.apply_action(state.string_to_action(corner))
    assert state.current_player() == 0


def _opening() -> BlokusState:
    state = BlokusGame().new_initial_state()
    for corner in ["a20", "t20", "t1", "a1"]:
        state.apply_action(state.string_to_action(corner))
    return state  # Blue to move, monominoes used


@pytest.mark.parametrize("move, reason", [
    ("a20,b20", "covers an occupied square"),
    ("b20,c20", "shares an edge with a piece of the same colour"),
    ("d17,e17", "does not touch a piece of the same colour corner to corner"),
    ("b19", "uses a piece the colour has already placed"),
])
def test_illegal_moves_are_explained_and_change_nothing(move, reason):
    state = _opening()
    before = (state.key(), state.history(), state.legal_actions().tolist())
    with pytest.raises(ValueError, match=f"Blue move {move} is illegal: it {reason}"):
        state.apply_action(state.string_to_action(move))
    assert (state.key(), state.history(), state.legal_actions().tolist()) == before


def test_first_move_must_cover_the_corner():
    state = BlokusGame().new_initial_state()
    with pytest.raises(ValueError, match="first move that does not cover the colour's starting corner"):
        state.apply_action(state.string_to_action("b19"))
    assert state.history() == []


@pytest.mark.parametrize("text, reason", [
    ("z99", "not a square"),
    ("a1,,b1", "malformed"),
    ("", "malformed"),
    ("a1,c3", "not the shape of any Blokus piece"),
    ("a1,b1,c1,d1,e1,f1", "not the shape of any Blokus piece"),
    ("a1,a1", "names a square twice"),
    ("a21", "not a square"),
])
def test_malformed_moves(text, reason):
    with pytest.raises(ValueError, match=reason):
        BlokusGame().new_initial_state().string_to_action(text)


def test_out_of_range_and_finished_game():
    state = BlokusGame().new_initial_state()
    with pytest.raises(ValueError, match="not a placement id"):
        state.apply_action(T.NUM_PLACEMENTS)
    seed_numba(1)
    state.playout()
    assert state.is_terminal()
    with pytest.raises(ValueError, match="game is over"):
        state.apply_action(0)


def _all_pieces_for_blue(monomino_last: bool, seed: int) -> BlokusState | None:
    """Blue alone places all 21 pieces, largest first; None if this seed gets stuck."""
    rng = np.random.default_rng(seed)
    moves: list[tuple[int, int]] = []
    while len(moves) < T.NUM_PIECES:
        legal = BlokusState.from_moves(moves).legal_actions(0)
        mono = T.PLACEMENT_PIECE[legal] == T.MONOMINO
        if monomino_last and len(moves) < T.NUM_PIECES - 1:
            legal = legal[~mono]
        elif not monomino_last and not moves:
            legal = legal[mono]
        if len(legal) == 0:
            return None
        largest = legal[T.PLACEMENT_SIZE[legal] == T.PLACEMENT_SIZE[legal].max()]
        moves.append((0, int(rng.choice(largest))))
    return BlokusState.from_moves(moves)


@pytest.mark.parametrize("monomino_last, blue_score", [(True, 20), (False, 15)])
def test_bonus_for_placing_all_pieces(monomino_last, blue_score):
    state = next(s for seed in range(50) if (s := _all_pieces_for_blue(monomino_last, seed)))
    assert len(state.history()) == 21
    assert state.scores().tolist() == [blue_score, -89, -89, -89]
    assert len(state.legal_actions(0)) == 0
    assert state.current_player() == 1  # Blue has nothing left: Yellow moves


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), stop=st.integers(0, 84))
def test_legal_moves_match_brute_force_oracle(seed, stop):
    rng = np.random.default_rng(seed)
    state = BlokusGame().new_initial_state()
    while not state.is_terminal() and len(state.history()) < stop:
        state.apply_action(int(rng.choice(state.legal_actions())))
    for colour in range(4):
        expected = oracle_legal(state, colour) if not state.is_terminal() else []
        assert state.legal_actions(colour).tolist() == list(expected)
    # Invariants of the position.
    board = state.board().ravel()
    for colour in range(4):
        pieces = [m for c, m in state.history() if c == colour]
        assert (board == colour).sum() == T.PLACEMENT_SIZE[pieces].sum()
        assert len({T.PLACEMENT_PIECE[m] for m in pieces}) == len(pieces)
    if not state.is_terminal():
        assert len(state.legal_actions()) > 0


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), policy=st.sampled_from(["uniform", "largest_piece"]))
def test_numba_playout_plays_legal_games(seed, policy):
    seed_numba(seed)
    state = BlokusGame().new_initial_state()
    players, actions = state.playout(policy=policy, epsilon=0.05)
    assert state.is_terminal()
    assert list(zip(players.tolist(), actions.tolist())) == state.history()
    replay = BlokusGame().new_initial_state()
    for colour, m in state.history():
        assert replay.current_player() == colour
        replay.apply_action(m)  # raises if the playout made an illegal move
    assert replay.is_terminal() and replay.key() == state.key()
    assert np.array_equal(replay.scores(), state.scores())


def test_playout_is_reproducible_by_seed():
    games = []
    for _ in range(2):
        seed_numba(42)
        state = BlokusGame().new_initial_state()
        state.playout("largest_piece", epsilon=0.05)
        games.append(state.history())
    assert games[0] == games[1]


def test_largest_piece_policy_prefers_large_pieces():
    seed_numba(3)
    state = BlokusGame().new_initial_state()
    for _ in range(12):  # the opening: pentominoes are always available
        a = E.sample_move(state.arrays, E.TABLES, E.LARGEST_PIECE, 0.0)
        assert T.PLACEMENT_SIZE[a] == 5
        state.apply_action(a)


def _middle_game() -> BlokusState:
    """30 random placements: used pieces and stale candidates in every colour's lists."""
    rng = np.random.default_rng(30)
    state = BlokusGame().new_initial_state()
    for _ in range(30):
        state.apply_action(int(rng.choice(state.legal_actions())))
    return state


@pytest.mark.parametrize("policy, compact", [(E.LARGEST_PIECE, False), (E.LARGEST_PIECE, True),
                                             (E.UNIFORM, False)])
def test_playout_moves_are_uniform_over_their_set(policy, compact):
    # Largest piece (epsilon 0): uniform over the legal moves of the largest size that has one;
    # uniform: over all legal moves. Draws from copies of one position (stale candidates
    # included, or compacted away) must hit exactly that set, evenly (chi-square).
    from scipy.stats import chisquare

    state = _middle_game()
    if compact:
        state.compact()
    legal = oracle_legal(state, state.current_player())  # leaves the candidate lists as they are
    assert compact or state.arrays.cand_len[state.current_player()].sum() > len(legal)  # stale ones
    if policy == E.LARGEST_PIECE:
        legal = legal[T.PLACEMENT_SIZE[legal] == T.PLACEMENT_SIZE[legal].max()]
    seed_numba(5)
    draws = 60 * len(legal)
    counts = dict.fromkeys(legal.tolist(), 0)
    for _ in range(draws):
        a = E.sample_move(state.clone().arrays, E.TABLES, policy, 0.0)
        assert a in counts
        counts[a] += 1
    assert chisquare(list(counts.values())).pvalue > 1e-4


def test_unknown_playout_policy():
    with pytest.raises(ValueError, match="unknown playout policy 'greedy'"):
        BlokusGame().new_initial_state().playout("greedy")


def test_move_out_of_turn():
    state = _opening()  # Blue to move
    state.apply_action_for(2, state.string_to_action("s2,s3"), next_player=0)
    assert state.history()[-1] == (2, state.string_to_action("s2,s3"))
    assert state.current_player() == 0
    with pytest.raises(ValueError, match="Red move"):
        state.apply_action_for(2, state.string_to_action("s2"), next_player=0)


def test_key_depends_on_position_and_transposes():
    a = BlokusGame().new_initial_state()
    b = BlokusGame().new_initial_state()
    assert a.key() == b.key()
    x = a.clone()
    x.apply_action(x.string_to_action("a20"))
    assert x.key() != a.key()
    # Same pieces on the same squares by a different route: equal keys.
    p = BlokusState.from_moves([(0, a.string_to_action("a20")), (1, a.string_to_action("t20"))], 2)
    q = BlokusState.from_moves([(1, a.string_to_action("t20")), (0, a.string_to_action("a20"))], 2)
    assert p.key() == q.key()
