"""Selection formulas computed by hand on a small tree (SPEC §2, §3)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from blokuszero.search import PUCT, UCB1, ProgressiveHistory, Simulation, Tree
from blokuszero.search.ucb import UNVISITED


def small_tree() -> Tree:
    """Root (15 visits, player 0 to move) with children for actions 3, 5, 7."""
    tree = Tree(num_players=2)
    tree.expand(0, np.array([3, 5, 7]), np.array([0, 0, 0]), np.array([0.5, 0.3, 0.2]))
    tree.visits[0] = 15
    tree.visits[1:4] = [10, 5, 0]
    tree.value_sum[1] = [6.0, 4.0]
    tree.value_sum[2] = [4.0, 1.0]
    return tree


def test_ucb1():
    scores = UCB1(c=0.2).scores(small_tree(), 0)
    assert scores[0] == pytest.approx(0.6 + 0.2 * math.sqrt(math.log(15) / 10))
    assert scores[1] == pytest.approx(0.8 + 0.2 * math.sqrt(math.log(15) / 5))
    assert scores[2] == math.inf


def test_puct():
    rule = PUCT(c_base=19_625, c_init=1.25, q_init=0.0)
    scores = rule.scores(small_tree(), 0)
    c_s = math.log((1 + 15 + 19_625) / 19_625) + 1.25
    assert scores[0] == pytest.approx(0.6 + c_s * 0.5 * math.sqrt(15) / 11)
    assert scores[1] == pytest.approx(0.8 + c_s * 0.3 * math.sqrt(15) / 6)
    assert scores[2] == pytest.approx(0.0 + c_s * 0.2 * math.sqrt(15) / 1)
    assert rule.select(small_tree(), 0) == 1 + int(np.argmax(scores))


def test_puct_first_play_urgency_from_the_parent():
    tree = small_tree()
    tree.value_sum[0] = [-4.5, 3.0]  # the root's mean value for player 0: -0.3
    scores = PUCT(c_base=19_625, c_init=1.25, q_init="parent").scores(tree, 0)
    c_s = math.log((1 + 15 + 19_625) / 19_625) + 1.25
    assert scores[0] == pytest.approx(0.6 + c_s * 0.5 * math.sqrt(15) / 11)  # visited: its own Q
    assert scores[2] == pytest.approx(-0.3 + c_s * 0.2 * math.sqrt(15) / 1)
    with pytest.raises(ValueError, match="q_init"):
        PUCT(q_init="zero")


def observe(history, tree, players, actions, value) -> None:
    history.on_backup(tree, Simulation(np.array([0]), np.array(players), np.array(actions),
                                       np.array(value, dtype=float), 0))


def test_progressive_history():
    rule = ProgressiveHistory(c=0.2, w=5.0)
    tree = small_tree()
    rule.history.begin(tree, num_players=2, num_actions=8, rng=np.random.default_rng(0))
    # Player 0's history: action 3 played 4 times for a total reward 3, action 7 twice for 1.
    observe(rule.history, tree, [0, 0, 0, 0], [3, 3, 3, 7], [1.0, 0.0])
    observe(rule.history, tree, [0, 0], [3, 7], [0.0, 1.0])
    scores = rule.scores(tree, 0)
    assert rule.history.hist_count[0, 3] == 4 and rule.history.hist_count[0, 7] == 2
    assert scores[0] == pytest.approx(0.6 + 0.2 * math.sqrt(math.log(15) / 10) + 0.75 * 5 / (10 - 6 + 1))
    assert scores[1] == pytest.approx(0.8 + 0.2 * math.sqrt(math.log(15) / 5))  # no history for 5
    assert scores[2] == pytest.approx(UNVISITED + 0.5 * 5 / 1)  # unvisited: first, by history


def test_history_update_credits_each_player_its_own_value():
    history = ProgressiveHistory().history
    history.begin(Tree(3), num_players=3, num_actions=4, rng=np.random.default_rng(0))
    observe(history, Tree(3), [0, 1, 2, 0], [1, 1, 2, 3], [1.0, 0.0, 0.5])
    assert history.hist_sum.tolist() == [[0, 1, 0, 1], [0, 0, 0, 0], [0, 0, 0.5, 0]]
    assert history.hist_count.tolist() == [[0, 1, 0, 1], [0, 1, 0, 0], [0, 0, 1, 0]]


def test_ties_are_broken_at_random_from_the_trees_own_seed():
    from blokuszero.games.numba_random import seed_numba

    tree = Tree(num_players=2)
    tree.expand(0, np.arange(6), np.zeros(6), np.full(6, 1 / 6))
    picks = []
    for seed in range(600):
        tree.tie_seed = seed * 7919
        picks.append(UCB1().select(tree, 0))
    counts = np.bincount(picks, minlength=7)[1:]
    assert np.all((counts > 60) & (counts < 140)), counts  # about uniform over the 6 ties
    tree.tie_seed = 3
    first = UCB1().select(tree, 0)
    seed_numba(12345)  # numba's global generator plays no part
    assert UCB1().select(tree, 0) == first
    # A new visit count draws afresh: over successive simulations every child comes up.
    seen = set()
    for n in range(40):
        tree.visits[0] = n
        seen.add(UCB1().select(tree, 0))
    assert seen == set(range(1, 7))
