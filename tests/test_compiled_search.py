"""The compiled MCTS loop (search/compiled.py) computes exactly what the Python loop computes."""

from __future__ import annotations

import numpy as np
import pytest

from blokuszero.games.blokus import BlokusGame
from blokuszero.games.kernels import state_apply
from blokuszero.games.tictactoe import TicTacToeGame
from blokuszero.players.factory import make_player
from blokuszero.search import MCTS, UCB1, MCTSConfig, ProgressiveHistory, RolloutEvaluator
from blokuszero.search.compiled import compiled_parts
from blokuszero.search.mcts import MCTS as MCTSClass

ROWS = ("parent", "action", "mover", "prior", "visits", "value_sum", "first_child",
        "num_children", "to_move", "key")


def opening(placements: int = 4):
    state = BlokusGame().new_initial_state()
    for move in ["a20", "t20,t19", "t1,s1,r1", "a1,a2,b2,c2"][:placements]:
        state.apply_action(state.string_to_action(move))
    return state


def searcher(compiled: bool, rule: str, seed: int, reward: str = "win", **config):
    game = BlokusGame()
    if rule == "ph":
        return MCTS(game, MCTSConfig(compiled=compiled, **config), ProgressiveHistory(0.2, 5.0),
                    RolloutEvaluator("largest_piece", 0.05, reward=reward), rng=seed)
    return MCTS(game, MCTSConfig(compiled=compiled, **config), UCB1(0.7), RolloutEvaluator(reward=reward),
                rng=seed)


def assert_same_tree(a: MCTS, b: MCTS) -> None:
    assert a.tree.size == b.tree.size
    for name in ROWS:
        np.testing.assert_array_equal(getattr(a.tree, name)[:a.tree.size],
                                      getattr(b.tree, name)[:b.tree.size], err_msg=name)


@pytest.mark.parametrize("rule, placements, seed", [("ph", 4, 3), ("ucb1", 0, 5)])
def test_compiled_loop_grows_the_same_tree_as_the_python_loop(rule, placements, seed, monkeypatch):
    state = opening(placements)
    python = searcher(False, rule, seed, simulations=150)
    compiled = searcher(True, rule, seed, simulations=150)
    python_state, compiled_state = state.clone(), state.clone()
    for move in range(2):  # a second search on the reused subtree
        expected = python.search(python_state)
        with monkeypatch.context() as m:  # the compiled path takes no Python step per simulation
            m.setattr(MCTSClass, "select_leaf", lambda *a: pytest.fail("Python loop used"))
            got = compiled.search(compiled_state)
        assert_same_tree(python, compiled)
        assert compiled.tree.size > 1024  # the kernel asked for rows (the tree starts at 1,024)
        np.testing.assert_array_equal(got.visits, expected.visits)
        if rule == "ph":
            np.testing.assert_array_equal(python.rule.history.hist_sum, compiled.rule.history.hist_sum)
            np.testing.assert_array_equal(python.rule.history.hist_count,
                                          compiled.rule.history.hist_count)
        action = int(expected.actions[np.argmax(expected.visits)])
        for mcts, s in ((python, python_state), (compiled, compiled_state)):
            mcts.advance(action)
            s.apply_action(action)
    # The root state itself is left as the Python loop leaves it (its move lists included).
    np.testing.assert_array_equal(python_state.legal_actions(), compiled_state.legal_actions())


def near_the_end(placements_left: int = 3):
    """A position ``placements_left`` placements before the end of a seeded random game."""
    game = BlokusGame()
    rng = np.random.default_rng(0)
    end = game.new_initial_state()
    while not end.is_terminal():
        end.apply_action(int(rng.choice(end.legal_actions())))
    moves = end.history()
    state = game.new_initial_state()
    for colour, m in moves[:-placements_left]:
        state.apply_action(m)
    return state


@pytest.mark.parametrize("reward", ["win", "rank", "quality"])
def test_compiled_loop_at_terminal_positions(reward):
    state = near_the_end()  # the tree meets game ends
    runs = []
    for compiled in (False, True):
        mcts = searcher(compiled, "ph", 11, reward, simulations=400)
        runs.append(mcts)
        mcts.search(state.clone())
    assert_same_tree(*runs)
    assert (runs[1].tree.to_move[:runs[1].tree.size] == -1).any()  # terminal nodes in the tree
    # the quality bonus's statistics: one score per simulation and colour, the same in both loops
    np.testing.assert_array_equal(runs[0].evaluator.score_stats, runs[1].evaluator.score_stats)
    if reward == "quality":
        assert np.all(runs[1].evaluator.score_stats[0] == 400)


def test_the_quality_statistics_are_the_searchs_own():
    mcts, state = searcher(True, "ucb1", 3, "quality", simulations=120), opening()
    mcts.search(state)
    first = mcts.evaluator.score_stats.copy()
    mcts.search(state)  # the reused tree keeps its values, the statistics start again
    assert np.all(first[0] == 120) and np.all(mcts.evaluator.score_stats[0] == 120)
    assert not np.array_equal(first[1], mcts.evaluator.score_stats[1])  # other playouts, other means


def test_rank_reward_values_places_where_the_win_reward_sees_only_losses():
    # Late in a game where one colour's lead is out of reach, every other colour's playouts
    # all end in losses under the win reward; by rank they still tell second place from last.
    state, values = near_the_end(8), {}
    for reward in ("win", "rank"):
        mcts = searcher(True, "ucb1", 2, reward, simulations=300)
        mcts.search(state.clone())
        values[reward] = mcts.tree.value_sum[0] / mcts.tree.visits[0]
    losers = values["win"] == 0.0
    assert losers.sum() == 3  # three colours never win
    places = values["rank"][losers]
    assert len(set(np.round(places, 6))) == 3 and np.all((places > 0) & (places < 1))


def test_compiled_loop_only_where_it_computes_the_same():
    state = opening()
    game = BlokusGame()
    cases = [MCTSConfig(tree="paranoid"), MCTSConfig(dirichlet_epsilon=0.25), MCTSConfig(virtual_loss=True),
             MCTSConfig(compiled=False)]
    for config in cases:
        mcts = MCTS(game, config, ProgressiveHistory(), RolloutEvaluator("largest_piece", 0.05), rng=0)
        mcts.begin(state)
        assert compiled_parts(mcts, state) is None, config
    ttt = TicTacToeGame()  # no numba-level interface
    mcts = MCTS(ttt, MCTSConfig(), UCB1(), RolloutEvaluator(), rng=0)
    mcts.begin(ttt.new_initial_state())
    assert compiled_parts(mcts, ttt.new_initial_state()) is None
    mcts = MCTS(game, MCTSConfig(), ProgressiveHistory(), RolloutEvaluator("largest_piece"), rng=0)
    mcts.begin(state)
    assert compiled_parts(mcts, state) is not None


def test_time_budget_in_the_compiled_loop():
    mcts = searcher(True, "ph", 0, simulations=0, time_limit=0.2)
    searcher(True, "ph", 0, simulations=2).search(opening())  # compiled first
    result = mcts.search(opening())
    assert result.simulations > 10 and result.visits.sum() == result.simulations


def test_the_interface_is_for_compiled_code_only():
    with pytest.raises(NotImplementedError, match="numba.extending.overload"):
        state_apply(None, None, 0)


@pytest.mark.parametrize("q_init, reward", [("parent", "win"), (0.0, "win"), ("parent", "rank"), (0.0, "quality")])
def test_compiled_loop_with_network_priors_at_expansion(q_init, reward, monkeypatch):
    # AlphaGo's expansion threshold: PUCT over a network's priors, one playout per leaf. The
    # kernel stops at each node to expand and the network's priors go in from Python.
    spec = {"kind": "alphazero", "model": "b2c32conv", "gumbel": False, "q_init": q_init,
            "leaf_playouts": True, "reward": reward, "expand_threshold": 3, "simulations": 120}
    python = make_player(BlokusGame(), {**spec, "compiled": False}, seed=4).mcts
    compiled = make_player(BlokusGame(), spec, seed=4).mcts
    state = opening()
    python.search(state.clone())
    with monkeypatch.context() as m:
        m.setattr(MCTSClass, "select_leaf", lambda *a: pytest.fail("Python loop used"))
        compiled.search(state.clone())
    assert_same_tree(python, compiled)
    expanded = compiled.tree.first_child[:compiled.tree.size] >= 0
    assert compiled.evaluator.expansions == python.evaluator.expansions == expanded.sum() > 5
    # The priors are the network's, not uniform: they differ between a node's children.
    first, count = compiled.tree.first_child[0], compiled.tree.num_children[0]
    assert np.ptp(compiled.tree.prior[first:first + count]) > 1e-4
