"""Fuego-style playout rules (games/go/playouts.py): each rule on a hand-made position, and
every informed playout replayed move by move through the checked interface."""

from __future__ import annotations

import numpy as np
import pytest

from blokuszero.games.go import GoGame
from blokuszero.games.go import playouts as P
from blokuszero.games.go.game import playout_rules
from blokuszero.games.numba_random import seed_numba
from test_go_rules import play, position


def proposals(state, last: str, rules: int, tries: int = 200) -> set[str]:
    """The moves ``rules`` propose for the player to move after ``last``, over ``tries`` draws."""
    game = state.game
    point = int(game.action_point[game.parse_vertex(last)])
    seen = set()
    for seed in range(tries):
        seed_numba(seed)
        buf = state.buf.copy()
        pt = P.rule_move(buf, game.width, state.current_player() + 1, point, rules, np.empty(P.WORK_SIZE, np.int64))
        seen.add("none" if pt == 0 else game.vertex(int(game.point_action[pt])))
    return seen


def test_atari_capture_takes_the_last_move_in_atari():
    # White's last stone C3 is in atari: its only liberty is C2.
    state = position(GoGame(5), [".....", "..X..", ".XOX.", ".....", "....."], to_move=0)
    assert proposals(state, "C3", P.ATARI_CAPTURE) == {"C2"}
    assert proposals(state, "C3", 0) == {"none"}


def test_atari_defence_extends_or_captures():
    # White's D3 put Black C3 in atari (liberty C4); extending there gives it three liberties.
    state = position(GoGame(5), [".....", ".....", ".OXO.", "..O..", "....."])
    assert proposals(state, "D3", P.ATARI_DEFENCE) == {"C4"}
    # D3 is itself in atari (liberty D2): capturing it saves C3 too.
    state = position(GoGame(5), [".....", "...X.", ".OXOX", "..O..", "....."])
    assert proposals(state, "D3", P.ATARI_DEFENCE) == {"C4", "D2"}
    # Extending to C4 would leave one liberty (C5): no defence worth playing.
    state = position(GoGame(5), [".....", ".O.O.", ".OXO.", "..O..", "....."])
    assert proposals(state, "D3", P.ATARI_DEFENCE) == {"none"}


def test_low_liberty_ataris_the_enemy_or_gains_liberties():
    # White's last move D3 has two liberties (D2, E3); Black may atari it.
    state = position(GoGame(5), [".....", "...X.", "..XO.", ".....", "....."], to_move=0)
    got = proposals(state, "D3", P.LOW_LIBERTY)
    assert got == {"D2", "E3"}


def test_fill_board_plays_only_in_open_areas():
    state = position(GoGame(9), ["XXXXXXXXX"] * 3 + ["........."] * 6, to_move=1)
    for move in proposals(state, "A9", P.FILL_BOARD, tries=50) - {"none"}:
        a = state.game.parse_vertex(move)
        y, x = divmod(a, 9)
        assert 1 <= x <= 7 and 4 <= y <= 7  # all eight neighbours empty and on the board


@pytest.mark.parametrize("policy", ["fuego", "fuego:atari_capture", "fuego:low_liberty,fill_board"])
def test_informed_playouts_are_legal_games(policy):
    game = GoGame(9)
    seed_numba(5)
    for _ in range(20):
        state = game.new_initial_state()
        players, actions = state.clone().playout(policy)
        for p, a in zip(players, actions):  # the checked interface refuses any illegal move
            assert state.current_player() == p
            state.apply_action(int(a))
        assert state.is_terminal()


def test_policy_names():
    assert playout_rules("uniform") == 0 and playout_rules("fuego") == P.ALL_RULES
    assert playout_rules("fuego:atari_capture,fill_board") == P.ATARI_CAPTURE | P.FILL_BOARD
    with pytest.raises(ValueError, match="'nakade' is not one of"):
        playout_rules("fuego:nakade")
    with pytest.raises(ValueError, match="not 'uniform'"):
        playout_rules("pachi")
