"""Gumbel MuZero's root and interior rule (Danihelka et al. 2022) on hand-made roots, and the
switch from the config to the search of self-play and of the network player."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest
import torch

from blokuszero.games.registry import make_game
from blokuszero.games.tictactoe import TicTacToeGame
from blokuszero.games.toy import ExplicitTreeGame
from blokuszero.nn.checkpoint import save_network
from blokuszero.nn.model import build_model
from blokuszero.players.factory import make_player
from blokuszero.rl.config import load_run_config
from blokuszero.rl.selfplay import LockstepSelfPlay, SelfPlaySettings
from blokuszero.search import MCTS, PUCT, GumbelInterior, GumbelRoot, Tree, policy_target
from blokuszero.search.alphazero import network_search
from blokuszero.search.evaluators import Evaluation, Evaluator, UniformEvaluator
from blokuszero.search.gumbel import completed_q_sigma, improved_policy, raw_value
from blokuszero.search.root_policies import considered_visits
from blokuszero.settings import SettingError


def hand_tree() -> Tree:
    """Root (player 0 to move, evaluated once at v = 0.1 for player 0) with four children of
    priors 0.4, 0.3, 0.2, 0.1; the first two visited (3 and 1 times), the others not."""
    tree = Tree(num_players=2)
    tree.expand(0, np.array([0, 1, 2, 3]), np.array([0, 0, 0, 0]), np.array([0.4, 0.3, 0.2, 0.1]))
    tree.visits[1:5] = [3, 1, 0, 0]
    tree.value_sum[1] = [1.5, -1.5]  # Q = 0.5 for player 0
    tree.value_sum[2] = [-0.2, 0.2]  # Q = -0.2
    tree.visits[0] = 5  # its own evaluation and the four visits below
    tree.value_sum[0] = [0.1 + 1.5 - 0.2, -0.1 - 1.5 + 0.2]
    return tree


def kernel_args(tree: Tree, c_visit: float = 50.0, c_scale: float = 0.1) -> tuple:
    return (0, tree.first_child[0], tree.num_children[0], tree.visits, tree.value_sum, tree.mover,
            tree.prior, c_visit, c_scale)


def test_completed_q_by_hand():
    tree = hand_tree()
    assert raw_value(0, 1, 4, tree.visits, tree.value_sum, 0) == pytest.approx(0.1)
    # Mixed value: (v + sum N * prior-weighted Q of the visited) / (1 + sum N).
    weighted = (0.4 * 0.5 + 0.3 * -0.2) / (0.4 + 0.3)
    mixed = (0.1 + 4 * weighted) / 5
    completed = np.array([0.5, -0.2, mixed, mixed])
    rescaled = (completed - completed.min()) / (completed.max() - completed.min())
    expected = (50 + 3) * 0.1 * rescaled  # max N = 3
    assert completed_q_sigma(*kernel_args(tree)) == pytest.approx(expected)


def test_improved_policy_by_hand_sums_to_one():
    tree = hand_tree()
    sigma = completed_q_sigma(*kernel_args(tree))
    logits = np.log([0.4, 0.3, 0.2, 0.1]) + sigma
    expected = np.exp(logits - logits.max()) / np.exp(logits - logits.max()).sum()
    policy = improved_policy(*kernel_args(tree))
    assert policy == pytest.approx(expected)
    assert policy.sum() == pytest.approx(1.0)
    # Visited with a high Q gains mass over its prior; the low-Q visited child loses it.
    assert policy[0] > 0.4 and policy[1] < 0.3


def test_interior_rule_follows_the_improved_policy():
    tree = hand_tree()
    rule = GumbelInterior(c_visit=50.0, c_scale=0.1)
    policy = improved_policy(*kernel_args(tree))
    assert rule.scores(tree, 0) == pytest.approx(policy - np.array([3, 1, 0, 0]) / (1 + 4))
    assert rule.select(tree, 0) == 1 + int(np.argmax(policy - np.array([3, 1, 0, 0]) / 5))


def test_sequential_halving_schedule():
    assert considered_visits(4, 7) == (0, 0, 0, 0, 1, 1, 2)
    assert considered_visits(2, 4) == (0, 0, 1, 1)
    assert considered_visits(1, 3) == (0, 1, 2)
    schedule = considered_visits(16, 64)
    assert schedule[:16] == (0,) * 16  # Gumbel-top-16: every considered move once first
    assert schedule[16:24] == (1,) * 8  # then the better half again
    assert len(considered_visits(16, 31)) == 31


class FixedPriors(Evaluator):
    """Fixed priors over the legal moves and a value of 0 for every player."""

    provides_priors = True

    def __init__(self, prior: list[float]) -> None:
        self.prior = np.asarray(prior)

    def evaluate(self, states):
        return [Evaluation(np.zeros(2), self.prior[: len(s.legal_actions())]) for s in states]


# Player 0 picks one of four moves ending the game; its payoffs fall with the index.
FOUR_MOVES = ExplicitTreeGame((0, [(1.0, -1.0), (0.5, -0.5), (0.0, 0.0), (-1.0, 1.0)]), 2)


def gumbel_search(simulations: int, considered: int, prior, gumbel_scale: float = 0.0,
                  seed: int = 0) -> MCTS:
    config, rule = network_search(True, simulations=simulations, expand_threshold=0,
                                  gumbel_considered=considered, gumbel_scale=gumbel_scale)
    return MCTS(FOUR_MOVES, config, rule, FixedPriors(prior), seed)


def test_sequential_halving_visits_on_a_hand_made_root():
    # 8 simulations: the root's evaluation, then 7 root visits halved as (0, 0, 0, 0, 1, 1, 2):
    # each move once, the two best (by log P + sigma(Q)) again, the best of those a third time.
    result = gumbel_search(8, 4, [0.25] * 4).search(FOUR_MOVES.new_initial_state())
    assert result.visits.tolist() == [3, 2, 1, 1]
    assert result.action == 0
    values = np.array([1.0, 0.5, 0.0, -1.0])  # completed Q: every move visited
    sigma = (50 + 3) * 0.1 * (values - values.min()) / (values.max() - values.min())
    expected = np.exp(np.log(0.25) + sigma) / np.exp(np.log(0.25) + sigma).sum()
    assert result.policy == pytest.approx(expected)
    actions, probs = policy_target(result)
    assert sorted(actions) == [0, 1, 2, 3] and probs.sum() == pytest.approx(1.0)


def test_gumbel_top_k_samples_the_considered_moves_by_their_noisy_prior():
    # With m = 2 of 4 moves, only two are ever visited; noise-free that is the prior's top 2.
    result = gumbel_search(6, 2, [0.1, 0.2, 0.3, 0.4]).search(FOUR_MOVES.new_initial_state())
    assert set(np.flatnonzero(result.visits)) == {2, 3}
    # With noise the pair varies with the seed, and every draw visits exactly two moves.
    pairs = set()
    for seed in range(30):
        visits = gumbel_search(6, 2, [0.1, 0.2, 0.3, 0.4], 1.0, seed).search(
            FOUR_MOVES.new_initial_state()).visits
        assert (visits > 0).sum() == 2
        pairs.add(tuple(np.flatnonzero(visits)))
    assert len(pairs) > 2


def test_a_reused_tree_schedules_only_this_searchs_visits():
    game = TicTacToeGame()
    config, rule = network_search(True, simulations=20, expand_threshold=0, gumbel_considered=4)
    mcts = MCTS(game, config, rule, UniformEvaluator(2), 0)
    state = game.new_initial_state()
    first = mcts.search(state)
    state.apply_action(first.action)
    mcts.advance(first.action)
    before = mcts.tree.visits[mcts.tree.children(0)].copy() if mcts.tree else 0
    second = mcts.search(state)
    assert (second.visits - before).sum() == 20  # the whole budget went to root visits
    assert second.policy.sum() == pytest.approx(1.0)


def test_gumbel_settings_are_checked():
    with pytest.raises(ValueError, match="dirichlet_epsilon"):
        from blokuszero.search import MCTSConfig

        MCTSConfig(root_policy="gumbel", dirichlet_epsilon=0.25)


def play_tictactoe(**settings) -> list:
    games = []
    LockstepSelfPlay(TicTacToeGame(), UniformEvaluator(2),
                     SelfPlaySettings(simulations=6, games_in_parallel=2, **settings), 0).play(2, games.append)
    return games


def test_the_switch_reaches_self_play():
    selfplay = LockstepSelfPlay(TicTacToeGame(), UniformEvaluator(2),
                                SelfPlaySettings(simulations=6, gumbel=True), 0)
    slot = selfplay._new_slot()
    assert isinstance(slot.mcts.root_policy, GumbelRoot) and isinstance(slot.mcts.rule, GumbelInterior)
    assert slot.mcts.config.dirichlet_epsilon == 0  # Gumbel's noise replaces Dirichlet's
    puct = LockstepSelfPlay(TicTacToeGame(), UniformEvaluator(2), SelfPlaySettings(simulations=6), 0)
    assert puct._new_slot().mcts.root_policy is None and isinstance(puct._new_slot().mcts.rule, PUCT)
    for game in play_tictactoe(gumbel=True):
        state = TicTacToeGame().new_initial_state()
        for t, action in enumerate(game.actions):
            actions, probs = game.policy(t)
            # The improved policy: a probability on every legal move, summing to one.
            assert sorted(actions) == sorted(state.legal_actions())
            assert probs.sum() == pytest.approx(1.0, abs=1e-6)
            state.apply_action(int(action))


def test_the_switch_reaches_the_run_config():
    config = load_run_config({"search": {"gumbel": True, "simulations": 8}})
    assert config.search.gumbel is True
    with pytest.raises(SettingError, match="search.gumbel"):
        load_run_config({"search": {"gumbel": "yes"}})


def test_the_switch_reaches_the_network_player():
    go = make_game("go9")
    player = make_player(go, {"preset": "alphazero", "model": "b2c32conv", "gumbel": True,
                              "simulations": 4}, seed=0)
    assert isinstance(player.mcts.root_policy, GumbelRoot)
    assert player.mcts.config.gumbel_scale == 0  # a player plays without noise by default
    state = go.new_initial_state()
    assert player.choose_action(state) in state.legal_actions()


def test_a_checkpoint_plays_with_the_search_it_was_trained_with(tmp_path):
    go = make_game("go9")
    torch.manual_seed(0)
    model = build_model("b2c32conv", "go9")
    run = {"search": {"gumbel": True, "q_init": "parent", "c_init": 2.0, "simulations": 8,
                      "dirichlet_epsilon": 0.25, "gumbel_considered": 4}}
    path = save_network(tmp_path, 10, "b2c32conv", model.state_dict(), json.dumps(run),
                        model_config=dataclasses.asdict(model.config))
    player = make_player(go, {"preset": "alphazero", "checkpoint": str(path),
                                           "simulations": 5}, seed=0)
    cfg = player.mcts.config
    assert isinstance(player.mcts.root_policy, GumbelRoot) and cfg.gumbel_considered == 4
    assert cfg.simulations == 5 and cfg.dirichlet_epsilon == 0  # the player's own, not self-play's
    # The spec's own settings win over the checkpoint's.
    puct = make_player(go, {"preset": "alphazero", "checkpoint": str(path),
                                         "gumbel": False, "simulations": 5}, seed=0)
    assert isinstance(puct.mcts.rule, PUCT) and puct.mcts.rule.q_init == "parent"
    assert puct.mcts.rule.c_init == 2.0
    assert math.isclose(puct.mcts.rule.c_base, 19_625.0)


def test_the_arena_plays_a_checkpoint_with_its_training_settings(tmp_path):
    from blokuszero.match.arena import Match
    from blokuszero.match.runner import run_match

    torch.manual_seed(0)
    model = build_model("b2c32conv", "go9")
    run = {"search": {"gumbel": True, "gumbel_considered": 4, "q_init": "parent"}}
    path = save_network(tmp_path / "ckpt", 10, "b2c32conv", model.state_dict(), json.dumps(run),
                        model_config=dataclasses.asdict(model.config))
    match = Match("go9", ["net", "random"], {"net": {"preset": "alphazero", "checkpoint": str(path),
                                                     "simulations": 3},
                                             "random": {"preset": "random"}},
                  random_opening_moves=0)
    summary = run_match(match, 1, 0, tmp_path / "match", progress=False)
    config = summary["players"]["net"]["config"]
    assert config["gumbel"] is True and config["gumbel_considered"] == 4 and config["q_init"] == "parent"
    assert config["simulations"] == 3
