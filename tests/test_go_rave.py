"""RAVE in the search core: AMAF credit, alpha_p, pattern ids and weights, both value forms,
and RAVE searches on Go positions."""

from __future__ import annotations

import numpy as np
import pytest

from blokuszero.games.go import GoGame
from blokuszero.players.factory import make_player
from blokuszero.players.search_players import make_rule
from blokuszero.search import MCTS, RAVE, MCTSConfig, RolloutEvaluator, Simulation
from blokuszero.search.rave import rave_scores
from blokuszero.search.tree import Tree


def small_tree(num_actions: int, root_actions, child_actions=()) -> Tree:
    """Root (player 0 to move) expanded with ``root_actions``; its first child expanded with
    ``child_actions`` for player 1."""
    tree = Tree(2)
    tree.reach(0, 0, 1)
    tree.expand(0, np.array(root_actions), np.zeros(len(root_actions), np.int8), np.ones(len(root_actions)))
    if child_actions:
        first = int(tree.first_child[0])
        tree.expand(first, np.array(child_actions), np.ones(len(child_actions), np.int8),
                    np.ones(len(child_actions)))
    return tree


def observe(rule: RAVE, tree: Tree, path, players, actions, value, num_actions: int) -> dict:
    """Run the rule's AMAF statistics over one simulation; return the tree's AMAF rows."""
    rule.amaf.begin(tree, 2, num_actions, np.random.default_rng(0))
    rule.amaf.on_backup(tree, Simulation(np.array(path, np.int64), np.array(players, np.int64),
                                         np.array(actions, np.int64), np.array(value, np.float64),
                                         len(path) - 1))
    return tree.extra


def test_amaf_credits_later_moves_of_the_same_player_with_alpha_p():
    tree = small_tree(5, [0, 1, 2, 4], [1, 2])  # nodes 1-4 under the root, 5-6 under node 1
    rule = RAVE(skip_action=4)
    # Root move a0 (depth 0), then a playout: P1 a2, P0 a1, P1 a1, P0 a4 (skipped: a pass).
    amaf = observe(rule, tree, [0, 1], [0, 1, 0, 1, 0], [0, 2, 1, 1, 4], [1.0, 0.0], 5)
    t_len = 5
    # alpha_p = 2 - (first_p - i_p) / (len_p - i_p)
    assert amaf["amaf_u"][1] == pytest.approx(2.0)  # a0 at the root, played at once
    assert amaf["amaf_u"][2] == pytest.approx(2 - 2 / t_len)  # a1 by P0 at depth 2
    assert amaf["amaf_u"][3] == 0.0  # a2 was played by the other player only
    assert amaf["amaf_u"][4] == 0.0  # the skipped action
    assert amaf["amaf_wx"][2] == pytest.approx(2 - 2 / t_len)  # P0 won: W_p = 1
    assert amaf["amaf_u"][5] == pytest.approx(2 - (3 - 1) / (t_len - 1))  # a1 by P1, first at 3
    assert amaf["amaf_u"][6] == pytest.approx(2.0) and amaf["amaf_wx"][6] == 0.0  # P1 lost
    assert np.array_equal(amaf["amaf_w"][:7], amaf["amaf_u"][:7])  # no pattern weights
    # Gelly-Silver form: plain counts.
    gs = RAVE("gelly_silver", skip_action=4)
    amaf = observe(gs, tree, [0, 1], [0, 1, 0, 1, 0], [0, 2, 1, 1, 4], [1.0, 0.0], 5)
    assert list(amaf["amaf_w"][1:7]) == [1.0, 1.0, 0.0, 0.0, 1.0, 1.0]


def test_pattern_ids_and_weights_follow_the_paper():
    game = GoGame(3)
    neighbours = game.pattern_neighbours()
    tree = small_tree(10, list(range(10)))
    rule = RAVE(k=1.5, l=0.5, neighbours=neighbours, skip_action=9)
    # B plays the centre (4), W the corner A3 (0), B B3 (1): changes 1 (root player), 2, 1.
    amaf = observe(rule, tree, [0, 1 + 4], [0, 1, 0], [4, 0, 1], [1.0, 0.0], 10)
    assert np.all(amaf["child_pattern"][1:11] == 0)  # nothing changed at the root
    assert amaf["patterned"][0]
    # Move 0 was played where its neighbours were unchanged: the stored id (0), weight k.
    assert amaf["amaf_u"][1 + 4] == pytest.approx(2.0) and amaf["amaf_w"][1 + 4] == pytest.approx(2.0 * 1.5)
    # B3's neighbours when it was played: A3 (left, index 3) changed to the opponent's (2),
    # B2 (below, index 6) to the root player's (1): id 2 * 3^3 + 1 * 3^6 != 0, weight l.
    alpha = 2 - 2 / 3
    assert amaf["amaf_u"][1 + 1] == pytest.approx(alpha) and amaf["amaf_w"][1 + 1] == pytest.approx(alpha * 0.5)
    assert rule.amaf._move_pattern[2] == 2 * 27 + 729 and rule.amaf._move_pattern[1] == 3 ** 7
    assert amaf["amaf_w"][1 + 0] == 0.0  # A3 was played by White only
    assert not rule.amaf._change.any() and np.all(rule.amaf._first_seen == -1)  # scratch left clean


def test_value_forms():
    visits, value_sum = np.array([0, 10, 0, 0]), np.array([[0, 0], [6.0, 4.0], [0, 0], [0, 0]])
    mover = np.zeros(4, np.int8)
    amaf_w, amaf_wx, amaf_u = np.array([0, 30.0, 5.0, 0]), np.array([0, 24.0, 1.0, 0]), np.array([0, 20.0, 5.0, 0])
    def scores(**kw):
        args = dict(gelly_silver=False, c=0.0, c_rave=0.0, k_rave=100.0, rave_weight_initial=0.9,
                    rave_weight_final=20_000.0, beta_unweighted=False, first_play_urgency=7.0)
        args.update(kw)
        return rave_scores(1, 3, visits, value_sum, mover, 10, amaf_w, amaf_wx, amaf_u, *args.values())
    beta = 30 / (10 * (1 / 0.9 + 30 / 20_000) + 30)
    out = scores()
    assert out[0] == pytest.approx(beta * 0.8 + (1 - beta) * 0.6)
    assert out[1] == pytest.approx(1 / 5)  # unvisited: beta' = 1, the AMAF value
    assert out[2] == 7.0  # nothing known: first-play urgency
    beta_u = 20 / (10 * (1 / 0.9 + 20 / 20_000) + 20)
    assert scores(beta_unweighted=True)[0] == pytest.approx(beta_u * 0.8 + (1 - beta_u) * 0.6)
    gs = scores(gelly_silver=True, c=0.5, c_rave=0.3)
    beta_gs = 100 / (3 * 10 + 100)
    rave = 0.8 + 0.3 * np.sqrt(np.log(35.0) / 30)
    ucb = 0.6 + 0.5 * np.sqrt(np.log(10) / 10)
    assert gs[0] == pytest.approx(beta_gs * rave + (1 - beta_gs) * ucb)


def test_pattern_weights_need_a_neighbour_table():
    with pytest.raises(ValueError, match="neighbours"):
        RAVE(k=1.5)
    with pytest.raises(ValueError, match="form"):
        RAVE("mogo")
    rule = make_rule("rave", {"k": 1.5, "l": 1.0}, GoGame(9))
    assert rule.amaf.use_patterns and rule.amaf.skip_action == 81 and rule.amaf.neighbours.shape == (82, 8)


def search_root(game, state, seed, **options):
    rule = make_rule("rave", options, game)
    mcts = MCTS(game, MCTSConfig(simulations=400, reuse_tree=False), rule, RolloutEvaluator(), seed)
    return mcts.search(state)


def test_unit_weights_are_plain_rave_and_other_weights_change_the_search():
    game = GoGame(7)
    state = game.new_initial_state()
    plain = search_root(game, state, 3)
    unit = search_root(game, state, 3, k=1.0, l=1.0, beta_unweighted=True)
    weighted = search_root(game, state, 3, k=2.0, l=1.0)
    assert np.array_equal(plain.visits, unit.visits)
    assert not np.array_equal(plain.visits, weighted.visits)


@pytest.mark.parametrize("preset", ["go_rave", "go_rave_pattern", "go_fuego"])
def test_rave_player_captures_the_big_group(preset):
    """White's five-stone group has one liberty (C3): capturing it decides the game."""
    game = GoGame(5, komi=0.5)
    state = game.new_initial_state()
    rows = ["XXXXX", "XOOOX", "XO.OX", "XXOXX", "....."]
    stones = [(".XO".index(ch) - 1, y * 5 + x) for y, row in enumerate(rows) for x, ch in enumerate(row) if ch != "."]
    state.set_up(stones)
    player = make_player(game, {"preset": preset, "simulations": 300}, seed=5)
    assert state.action_to_string(player.choose_action(state)) == "C3"


def test_reused_tree_keeps_its_amaf_statistics_and_recomputes_pattern_ids():
    game = GoGame(7)
    state = game.new_initial_state()
    player = make_player(game, {"preset": "go_rave_pattern", "simulations": 300, "reuse_tree": True}, seed=2)
    move = player.choose_action(state)
    state.apply_action(move)
    player.inform(move, 0)
    kept = player.mcts.tree
    assert kept.visits[0] > 0 and kept.extra["amaf_w"][:kept.size].sum() > 0
    before = kept.extra["amaf_w"][:kept.size].copy()
    player.mcts.begin(state)  # the same tree, statistics kept, pattern ids to be recomputed
    assert player.mcts.tree is kept
    assert np.array_equal(kept.extra["amaf_w"][:kept.size], before)
    assert not kept.extra["patterned"][:kept.size].any()
    # A new tree starts at zero.
    player.mcts.begin(game.new_initial_state())
    assert player.mcts.tree is not kept and player.mcts.tree.extra["amaf_w"][:player.mcts.tree.size].sum() == 0
