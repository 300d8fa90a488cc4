"""Expert iteration's self-play: the play-time search's visit counts as targets, the network
asked only at expansions, seeded, and refused where the settings cannot run it."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import torch
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from blokuszero.games.blokus import BlokusGame
from blokuszero.games.blokus.encoder import BlokusEncoder
from blokuszero.nn.evaluator import NetworkEvaluator
from blokuszero.nn.model import build_model
from blokuszero.rl.config import load_run_config
from blokuszero.rl.expert_iteration import ExpertIterationSelfPlay
from blokuszero.rl.selfplay import LockstepSelfPlay, SelfPlaySettings
from blokuszero.settings import SettingError

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = dict(leaf_playouts=True, gumbel=False, dirichlet_epsilon=0.0, simulations=64, expand_threshold=8,
                temperature_moves=8)


def play(seed: int, games: int = 1, **overrides):
    torch.manual_seed(0)
    evaluator = NetworkEvaluator(build_model("b2c32conv", "blokus"), BlokusEncoder())
    selfplay = ExpertIterationSelfPlay(BlokusGame(), evaluator, SelfPlaySettings(**{**SETTINGS, **overrides}), seed)
    records = []
    stats = selfplay.play(games, records.append)
    return records, stats, evaluator


def test_games_are_complete_with_visit_count_targets_over_legal_moves():
    [record], stats, _ = play(seed=3)
    state = BlokusGame().new_initial_state()
    for t in range(record.num_positions):
        assert record.players[t] == state.current_player()
        actions, pi = record.policy(t)
        legal = set(state.legal_actions())
        assert set(actions.tolist()) <= legal and len(actions) > 0
        assert np.isclose(pi.sum(), 1.0) and (pi > 0).all()
        if t >= SETTINGS["temperature_moves"]:  # then the most visited move is played
            assert pi[actions.tolist().index(record.actions[t])] == pi.max()
        state.apply_action(int(record.actions[t]))
    assert state.is_terminal()
    assert np.array_equal(record.returns, state.returns())
    assert stats.games == 1 and stats.positions == record.num_positions


def test_the_network_is_asked_only_for_expanded_nodes():
    _, stats, evaluator = play(seed=4)
    assert stats.simulations >= 64 * stats.positions
    # each call serves expand_threshold (8) visits of the node it expands, roots aside
    assert 0 < stats.evaluations <= stats.simulations / 8 + stats.positions
    assert evaluator.evaluations == stats.evaluations


def test_a_seed_replays_the_same_games_and_another_seed_does_not():
    first, _, _ = play(seed=5)
    again, _, _ = play(seed=5)
    other, _, _ = play(seed=6)
    assert np.array_equal(first[0].actions, again[0].actions) and first[0].seed == again[0].seed
    assert not np.array_equal(first[0].actions, other[0].actions)


def test_fast_searches_record_no_policy_target():
    [record], _, _ = play(seed=7, fast_simulations=16, full_search_fraction=0.5)
    sizes = np.diff(record.policy_start)
    assert (sizes == 0).any() and (sizes > 0).any()


@pytest.mark.parametrize("change, message", [
    ({"gumbel": True},
     "search.leaf_playouts searches by PUCT with the visit counts as target: set search.gumbel=false"),
    ({"dirichlet_epsilon": 0.25}, "search.leaf_playouts runs without root noise: set search.dirichlet_epsilon=0"),
])
def test_settings_it_cannot_run_are_refused_naming_the_fix(change, message):
    search = {**{k: v for k, v in SETTINGS.items() if k != "temperature_moves"}, **change}
    with pytest.raises(SettingError, match=re.escape(message)):
        load_run_config({"search": search})


def test_the_lockstep_loop_refuses_leaf_playouts():
    evaluator = NetworkEvaluator(build_model("b2c32conv", "blokus"), BlokusEncoder())
    with pytest.raises(ValueError, match="expert iteration"):
        LockstepSelfPlay(BlokusGame(), evaluator, SelfPlaySettings(**SETTINGS), 0)


def test_the_experiment_preset_starts_from_the_shipped_network_with_the_play_time_search():
    with initialize_config_dir(config_dir=str(ROOT / "conf"), version_base="1.3"):
        cfg = compose("config", overrides=["experiment=expert_iteration"])
    settings = load_run_config(OmegaConf.to_container(cfg, resolve=True))
    assert settings.search.leaf_playouts and not settings.search.gumbel
    assert settings.search.expand_threshold == 16 and settings.search.simulations == 800
    assert (ROOT / settings.train.init_from).is_file()
    assert 0 < settings.train.max_minutes <= 120
