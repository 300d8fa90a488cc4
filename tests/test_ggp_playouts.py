"""MAST and NST playout policies: their statistics, their choices, and UCT with them."""

from __future__ import annotations

import json

import numpy as np
import pytest
from ggp_sheets import sheet_game, uct_first_places
from test_ggp_reasoner import PICK3

from blokuszero.games.ggp import GgpGame
from blokuszero.search.rollout_evaluators import PolicyRolloutEvaluator


def test_rewards_are_goals_rescaled_to_unit_range():
    game = GgpGame(PICK3)
    ev = PolicyRolloutEvaluator(game, "mast", rng=0)
    assert ev.utility == (0.0, 100.0)
    assert list(ev.terminal_value(np.array([0.0, 50.0, 100.0]), ev.utility)) == [0.0, 0.5, 1.0]
    # A playout's value is the end's goals on that scale.
    state = game.new_initial_state()
    [evaluation] = ev.evaluate([state.clone()])
    assert set(evaluation.value) <= {0.0, 0.5, 1.0} and len(evaluation.value) == game.num_players


def test_mast_learns_mean_reward_per_move_and_prefers_the_better():
    game = GgpGame(PICK3)
    ev = PolicyRolloutEvaluator(game, "mast", tau=0.05, rng=0)
    ev._learn([1, 1], [7, 8], np.array([0.5, 1.0, 0.0]))
    ev._learn([1], [7], np.array([0.5, 0.0, 1.0]))
    assert ev._mean((1, 7)) == 0.5 and ev._mean((1, 8)) == 1.0
    picks = [ev._mast(1, np.array([7, 8])) for _ in range(200)]
    # exp(-0.5 / 0.05) ~ 4.5e-5: move 8 nearly always
    assert picks.count(8) >= 198


def test_nst_uses_longer_ngrams_once_seen_enough():
    game = GgpGame(PICK3)
    ev = PolicyRolloutEvaluator(game, "nst", epsilon=0.0, min_visits=2, rng=0)
    for _ in range(2):  # after move 5, move 7 did well; alone, move 8 did better
        ev._learn([0, 1], [5, 7], np.array([0.0, 1.0, 0.0]))
    for _ in range(4):
        ev._learn([1], [8], np.array([0.0, 0.9, 0.0]))
        ev._learn([1], [7], np.array([0.0, 0.0, 0.0]))
    # 1-grams: 7 -> 2/6 = 0.33, 8 -> 0.9; 2-gram (5, 7) -> 1.0 counts after move 5 only.
    assert ev._nst(1, np.array([7, 8]), []) == 8
    assert ev._nst(1, np.array([7, 8]), [5]) == 8  # mean(0.33, 1.0) = 0.67 < 0.9
    for _ in range(16):  # 7 -> 18/22 = 0.82; with (5, 7): mean(0.82, 1.0) = 0.91 > 0.9
        ev._learn([0, 1], [5, 7], np.array([0.0, 1.0, 0.0]))
    assert ev._nst(1, np.array([7, 8]), [5]) == 7
    assert ev._nst(1, np.array([7, 8]), [6]) == 8  # no such 2-gram: 1-grams only


@pytest.mark.parametrize("policy", ["mast", "nst"])
def test_playouts_reach_the_end_at_simultaneous_nodes(policy):
    game = GgpGame(PICK3)
    ev = PolicyRolloutEvaluator(game, policy, rng=1)
    for _ in range(20):
        (out,) = ev.evaluate([game.new_initial_state()])
        assert out.value.shape == (3,) and 0 <= out.value.min() <= out.value.max() <= 1
    assert ev.stats


@pytest.mark.parametrize("policy", ["mast", "nst"])
def test_uct_with_learned_playouts_beats_random(policy):
    spec = {"kind": "ggp_uct", "c": 0.7, "simulations": 200, "playout": policy}
    assert uct_first_places(sheet_game("connectfour"), spec, games=6) >= 5


def test_arena_plays_gdl_games_and_counts_wins_above_the_middle_goal(tmp_path):
    """``game=ggp game.rules=...`` in the arena: UCT against random on tic-tac-toe; a seat wins
    with a goal above 50, so a drawn game (50 each) is nobody's win."""
    from ggp_sheets import RULES_DIR

    from blokuszero.match.arena import Match
    from blokuszero.match.runner import run_match

    match = Match(game="ggp", game_options={"rules": str(RULES_DIR / "tictactoe.kif")},
                  seats=["uct", "random"], players={"uct": {"preset": "uct", "simulations": 200},
                                                    "random": {"preset": "random"}})
    summary = run_match(match, games=6, seed=0, out_dir=tmp_path, progress=False)
    records = [json.loads(line) for line in (tmp_path / "games.jsonl").read_text().splitlines()]
    assert len(records) == 6 and "above 50" in summary["win_rule"]
    decided = sum(1 for r in records if max(r["returns"]) > 50)
    wins = summary["players"]["uct"]["wins"] + summary["players"]["random"]["wins"]
    assert wins == decided and summary["players"]["uct"]["wins"] >= 4
