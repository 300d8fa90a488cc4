"""KataGo's sample-efficiency parts (Wu 2019): playout cap randomisation and the auxiliary score
target, each from its switch to the search and the learner."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from blokuszero.games.blokus import BlokusGame
from blokuszero.games.blokus.encoder import BlokusEncoder
from blokuszero.games.tictactoe import TicTacToeGame
from blokuszero.nn import policy_value_loss
from blokuszero.nn.evaluator import NetworkEvaluator
from blokuszero.nn.model import build_model
from blokuszero.rl.config import load_run_config
from blokuszero.rl.learner import Learner, LearnerSettings
from blokuszero.rl.replay import ReplayBuffer
from blokuszero.rl.selfplay import LockstepSelfPlay, SelfPlaySettings
from blokuszero.search.evaluators import UniformEvaluator
from blokuszero.settings import SettingError


def capped_games(fraction: float, gumbel: bool = False, games: int = 6):
    records = []
    settings = SelfPlaySettings(simulations=8, fast_simulations=3, full_search_fraction=fraction,
                                games_in_parallel=3, gumbel=gumbel)
    stats = LockstepSelfPlay(TicTacToeGame(), UniformEvaluator(2), settings, 0).play(games, records.append)
    return records, stats


@pytest.mark.parametrize("gumbel", [False, True])
def test_playout_cap_records_only_full_searches_as_policy_targets(gumbel):
    records, stats = capped_games(0.5, gumbel)
    full = sum(int((np.diff(g.policy_start) > 0).sum()) for g in records)
    fast = stats.positions - full
    assert full > 0 and fast > 0
    assert stats.simulations == 8 * full + 3 * fast  # each search ran its own budget
    for g in records:
        for t in range(g.num_positions):
            actions, probs = g.policy(t)
            assert len(actions) == 0 or probs.sum() == pytest.approx(1.0, abs=1e-6)


def test_playout_cap_shares_follow_the_fraction():
    records, stats = capped_games(0.25, games=30)
    full = sum(int((np.diff(g.policy_start) > 0).sum()) for g in records)
    share = full / stats.positions
    # Binomial(n, 0.25): the share lies within 4 standard deviations.
    assert abs(share - 0.25) < 4 * math.sqrt(0.25 * 0.75 / stats.positions)
    everything, _ = capped_games(1.0)
    assert all((np.diff(g.policy_start) > 0).all() for g in everything)


def test_fast_searches_play_without_root_noise():
    selfplay = LockstepSelfPlay(TicTacToeGame(), UniformEvaluator(2),
                                SelfPlaySettings(simulations=8, fast_simulations=3), 0)
    slot = selfplay._new_slot()
    assert slot.mcts.config.dirichlet_epsilon == 0.25 and slot.fast.config.dirichlet_epsilon == 0
    assert slot.fast.config.simulations == 3
    with pytest.raises(SettingError, match="fast_simulations"):
        load_run_config({"search": {"simulations": 8, "fast_simulations": 8}})


def test_positions_without_a_policy_target_leave_the_policy_loss_alone():
    logits = torch.tensor([[math.log(3), 0.0], [0.0, 0.0]])  # P = (3/4, 1/4), (1/2, 1/2)
    pi = torch.tensor([[1.0, 0.0], [0.0, 0.0]])  # the second position: a fast search, no target
    losses = policy_value_loss(logits, torch.zeros(2, 2), pi, torch.zeros(2, 2))
    assert losses.policy.item() == pytest.approx(math.log(4 / 3))  # the mean over one, not two


def test_score_loss_by_hand():
    scores = torch.tensor([[0.5, -1.0]])
    target = torch.tensor([[1.0, -1.0]])
    losses = policy_value_loss(torch.zeros(1, 2), torch.zeros(1, 2), torch.tensor([[1.0, 0.0]]),
                               torch.zeros(1, 2), scores=scores, target_scores=target, score_weight=0.5)
    assert losses.score.item() == pytest.approx(0.25)
    assert losses.total.item() == pytest.approx(losses.value.item() + losses.policy.item() + 0.125)


def blokus_batch(n: int = 16):
    torch.manual_seed(0)
    evaluator = NetworkEvaluator(build_model("b2c32conv", "blokus"), BlokusEncoder())
    games = []
    LockstepSelfPlay(BlokusGame(), evaluator, SelfPlaySettings(simulations=2, games_in_parallel=2),
                     0).play(2, games.append)
    buffer = ReplayBuffer(10, BlokusEncoder())
    for g in games:
        buffer.add(g)
    return games, buffer.sample(n, np.random.default_rng(0), augment=True)


def test_the_score_target_comes_from_the_games_scores_in_the_movers_frame():
    games, batch = blokus_batch()
    finals = {tuple(np.sort(g.scores / 20.0)) for g in games}
    for row in batch.scores:  # a permutation (seats in the mover's frame) of one game's scores
        assert tuple(np.sort(row)) in finals


def test_the_score_weight_reaches_the_learner_and_trains_the_head():
    _, batch = blokus_batch()
    settings = LearnerSettings(learning_rate=0.01)
    with pytest.raises(ValueError, match="score head"):
        Learner(build_model("b2c32conv", "blokus"), settings, score_weight=1.0)
    torch.manual_seed(0)
    model = build_model("b2c32conv", "blokus", score_head=True)
    logits, values, scores = model.heads(torch.tensor(batch.planes))
    assert scores.shape == values.shape == (16, 4)
    assert model(torch.tensor(batch.planes))[1].shape == (16, 4)  # search sees two outputs still
    learner = Learner(model, settings, score_weight=1.0)
    first = learner.train_step(batch)["loss/score"]
    for _ in range(30):
        last = learner.train_step(batch)["loss/score"]
    assert first > 0 and last < 0.5 * first
    without = Learner(build_model("b2c32conv", "blokus"), settings).train_step(batch)
    assert without["loss/score"] == 0.0
    config = load_run_config({"train": {"score_weight": 0.5}})
    assert config.train.score_weight == 0.5
