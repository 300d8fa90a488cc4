"""Fuego-style playout rules (games/go/playouts.py): each rule on a hand-made position, and
every informed playout replayed move by move through the checked interface."""

from __future__ import annotations

import numpy as np
import pytest
from test_go_rules import position

from blokuszero.experiments.go_diagnostics import policy_duel
from blokuszero.games.go import GoGame
from blokuszero.games.go import playouts as P
from blokuszero.games.go.game import playout_rules
from blokuszero.games.numba_random import seed_numba


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


def test_nakade_plays_the_vital_point_of_killing_shapes_only():
    # Straight three bordered by White (its last stone B4 beside it): the middle point.
    state = position(GoGame(5), [".....", "OOOOO", "O...O", "OOOOO", "....."])
    assert proposals(state, "B4", P.NAKADE) == {"C3"}
    # Bent three: the corner point.
    state = position(GoGame(5), ["OOOO.", "O..O.", "O.OO.", "OOO..", "....."])
    assert proposals(state, "C3", P.NAKADE) == {"B4"}
    # Pyramid four: the point touching the other three.
    state = position(GoGame(7), [".......", "OOOOO..", "O...O..", "OO.OO..", ".OOO...", ".......", "......."])
    assert proposals(state, "B6", P.NAKADE) == {"C5"}
    # Straight four lives (no single vital point); a space touching both colours is no eye.
    state = position(GoGame(7), [".......", "OOOOOO.", "O....O.", "OOOOOO.", ".......", ".......", "......."])
    assert proposals(state, "B6", P.NAKADE) == {"none"}
    state = position(GoGame(5), [".....", "OOOOO", "O...X", "OOOOO", "....."])
    assert proposals(state, "B4", P.NAKADE) == {"none"}


def test_pattern_table_matches_mogo_shapes_under_symmetry_and_colour_swap():
    from blokuszero.games.go.patterns import build_table
    table = build_table()
    # White's C4 between Black's B4 and D4: the enclosing hane under it at C3, whoever moves.
    state = position(GoGame(5), [".....", ".XOX.", ".....", ".....", "....."])
    got = proposals(state, "C4", P.PATTERNS)
    assert "C3" in got and "C2" not in got
    game = state.game
    c3 = int(game.action_point[game.parse_vertex("C3")])
    code = P.neighbourhood(state.buf, game.width, c3)
    assert table[1, code] and table[2, code]
    # The same shape turned upside down and with the colours swapped matches too.
    flipped = position(GoGame(5), [".....", ".....", ".....", ".OXO.", "....."], to_move=1)
    c3_code = P.neighbourhood(flipped.buf, game.width, c3)
    assert table[2, c3_code]
    # A lone stone matches nothing.
    lone = position(GoGame(5), [".....", "..O..", ".....", ".....", "....."])
    assert proposals(lone, "C4", P.PATTERNS) == {"none"}
    with pytest.raises(ValueError, match="unknown symbol"):
        build_table((("bad", ("XO?", "Z..", "???"), None),))


def test_self_atari_correction_refuses_to_atari_own_groups():
    # Black's only legal moves, A1 and A3, each leave A2-B2 and the new stone one liberty.
    state = position(GoGame(3), [".O.", "XXO", ".O."])
    game = state.game
    work = np.empty(P.WORK_SIZE, np.int64)
    plain, safe = set(), set()
    for seed in range(50):
        seed_numba(seed)
        plain.add(int(P.random_point(state.buf.copy(), game.width, 1, False, work[:8], work[80:96])))
        safe.add(int(P.random_point(state.buf.copy(), game.width, 1, True, work[:8], work[80:96])))
    a1, a3 = (int(game.action_point[game.parse_vertex(v)]) for v in ("A1", "A3"))
    assert plain == {a1, a3} and safe == {0}  # the corrected side passes
    # With White's B1 gone A1 gives two liberties (A3, B1): no self-atari.
    state = position(GoGame(3), [".O.", "XXO", "..."])
    seed_numba(0)
    assert P.random_point(state.buf.copy(), game.width, 1, True, work[:8], work[80:96]) != 0


@pytest.mark.parametrize("policy", ["fuego", "fuego:atari_capture", "fuego:low_liberty,fill_board",
                                    "fuego:nakade,patterns,self_atari"])
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


def test_prior_knowledge_of_even_games():
    # White to move; White's C4 is in atari (liberty C5), Black's D4 too (liberty E4).
    state = position(GoGame(5), ["...O.", ".XOX.", "..XO.", ".....", "....."], to_move=1)
    value, known = state.prior_knowledge()
    game = state.game
    at = {v: game.parse_vertex(v) for v in ("C5", "E4", "A1", "E1", "C2", "A5")}
    assert known[at["C5"]] and value[at["C5"]] == 1.0  # saves C4
    assert known[at["E4"]] and value[at["E4"]] == 1.0  # captures D4
    assert known[at["A1"]] and value[at["A1"]] == 0.0  # first line, nothing near
    assert not known[at["C2"]] and not known[game.pass_action]
    assert not known[at["A5"]]  # first line but B4 is near
    # A self-atari of two or more stones that captures nothing.
    state = position(GoGame(3), [".O.", "XXO", ".O."])
    value, known = state.prior_knowledge()
    a1 = state.game.parse_vertex("A1")
    assert known[a1] and value[a1] == 0.0


def test_prior_knowledge_seeds_new_children_as_virtual_wins():
    from blokuszero.players.factory import make_player
    from blokuszero.search.tree import ROOT
    state = position(GoGame(5), ["...O.", ".XOX.", "..XO.", ".....", "....."], to_move=1)
    player = make_player(state.game, {"preset": "go_fuego", "simulations": 1, "n_prior": 7}, seed=0)
    player.mcts.begin(state)
    tree = player.mcts.tree
    kids = tree.children(ROOT)
    by_action = dict(zip(tree.action[kids].tolist(), kids.tolist()))
    good, bad = by_action[state.game.parse_vertex("E4")], by_action[state.game.parse_vertex("A1")]
    assert tree.visits[good] == 7 and tree.value_sum[good, 1] == 7.0 and tree.value_sum[good, 0] == 0.0
    assert tree.visits[bad] == 7 and tree.value_sum[bad, 1] == 0.0 and tree.value_sum[bad, 0] == 7.0
    assert tree.visits[by_action[state.game.parse_vertex("C2")]] == 0
    # Seeded, not real: a seeded child is not expanded on first reach (before, every known
    # move was, and the Fuego scheme, which seeds every move, grew 2,500 nodes a simulation).
    assert tree.real_visits(good) == 0 and tree.real_visits(bad) == 0
    player = make_player(state.game, {"preset": "go_fuego", "simulations": 200, "prior": "fuego",
                                      "n_prior": 3}, seed=0)
    player.choose_action(state)
    assert player.mcts.tree.size < 200 * state.game.num_actions
    assert player.last_result.visits.sum() == 200  # real visits only
    with pytest.raises(ValueError, match="n_prior"):
        make_player(state.game, {"preset": "go_fuego", "n_prior": -1})


def test_fuego_prior_knowledge_scheme():
    # Fuego's even-game scheme: with a good move on the board (here a capture and an escape)
    # every move weighs 3 units, at 1.0 (good), 0.0 (self-atari), 0.6 (pattern) or 0.4.
    state = position(GoGame(5), ["...O.", ".XOX.", "..XO.", ".....", "....."], to_move=1)
    value, weight = state.prior_knowledge("fuego")
    game = state.game
    at = {v: game.parse_vertex(v) for v in ("C5", "E4", "A1", "C2")}
    assert weight[at["C5"]] == 3 and value[at["C5"]] == 1.0
    assert weight[at["E4"]] == 3 and value[at["E4"]] == 1.0
    assert weight[at["A1"]] == 3 and value[at["A1"]] in (0.4, 0.6)  # no first-line rule here
    assert weight[game.pass_action] == 3 and value[game.pass_action] == 0.0
    empty = [a for a in range(game.pass_action) if state.buf[game.action_point[a]] == 0]
    assert set(weight[empty].tolist()) == {3} and set(value[empty].tolist()) <= {0.0, 0.4, 0.6, 1.0}
    assert not weight[[a for a in range(game.pass_action) if a not in empty]].any()
    # The empty board: no good move, no pattern: nothing known but the pass.
    state = GoGame(9).new_initial_state()
    value, weight = state.prior_knowledge("fuego")
    assert weight[:-1].sum() == 0 and weight[-1] == 3
    with pytest.raises(ValueError, match="'pachi' is not one of"):
        state.prior_knowledge("pachi")


def test_fuego_prior_seeds_visits_and_amaf_statistics():
    from blokuszero.players.factory import make_player
    from blokuszero.search.tree import ROOT
    state = position(GoGame(5), ["...O.", ".XOX.", "..XO.", ".....", "....."], to_move=1)
    spec = {"preset": "go_fuego", "simulations": 1, "n_prior": 3, "prior": "fuego"}
    for rave in (False, True):
        player = make_player(state.game, {**spec, "prior_rave": rave}, seed=0)
        player.mcts.begin(state)
        tree = player.mcts.tree
        kids = tree.children(ROOT)
        by_action = dict(zip(tree.action[kids].tolist(), kids.tolist()))
        e4 = by_action[state.game.parse_vertex("E4")]
        assert tree.visits[e4] == 9 and tree.value_sum[e4, 1] == 9.0
        assert tree.extra["amaf_w"][e4] == (9.0 if rave else 0.0)
        assert tree.extra["amaf_wx"][e4] == (9.0 if rave else 0.0)
    with pytest.raises(ValueError, match="prior"):
        make_player(state.game, {**spec, "prior": "pachi"})


def test_policy_names():
    assert playout_rules("uniform") == 0 and playout_rules("fuego") == P.ALL_RULES
    assert playout_rules("fuego:atari_capture,fill_board") == P.ATARI_CAPTURE | P.FILL_BOARD
    assert playout_rules("fuego:nakade,patterns") == P.NAKADE | P.PATTERNS
    with pytest.raises(ValueError, match="'ladder' is not one of"):
        playout_rules("fuego:ladder")
    with pytest.raises(ValueError, match="not 'uniform'"):
        playout_rules("pachi")


def test_informed_policy_beats_uniform_moves_in_whole_games():
    # The policies alone, no search: Fuego's rules should win nearly every game against
    # uniform moves (97% over 2,000 games), and a policy against itself about half.
    black, white = policy_duel(9, P.ALL_RULES, 0, 200, 6.5, 1)
    assert black + white >= 170 and min(black, white) >= 80
    black, white = policy_duel(9, 0, 0, 400, 6.5, 2)
    assert 150 <= black + white <= 250  # Black's edge and White's komi balance out
