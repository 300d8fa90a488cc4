"""Networks of two sizes trained side by side on a kept buffer (rl/buffer_fit.py, scripts/fit_buffer.py):
the held-out games are the newest and never trained on, the grown network starts level with the
small one, both learn, and bad input stops with one line."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest
import torch
from project_scripts import load_script

from blokuszero.games.blokus import BlokusGame
from blokuszero.games.blokus.encoder import BlokusEncoder
from blokuszero.nn.checkpoint import save_network
from blokuszero.nn.model import build_model
from blokuszero.rl.buffer_fit import fit, split_games, spread_positions, target_entropy
from blokuszero.rl.config import LearnerSettings
from blokuszero.rl.records import RecordBuilder
from blokuszero.rl.replay import ReplayBuffer, TrainingBatch


@pytest.fixture(scope="module")
def kept(tmp_path_factory) -> tuple[Path, Path]:
    """A run's buffer of 10 uniformly random Blokus games whose policy target is always the
    lowest-numbered legal move (something to learn), and a b2c32conv network to start from."""
    directory = tmp_path_factory.mktemp("run")
    buffer = ReplayBuffer(10, BlokusEncoder(), directory / "buffer", shard_games=3)
    rng = np.random.default_rng(0)
    for seed in range(10):
        state = BlokusGame().new_initial_state()
        builder = RecordBuilder(seed=seed, weights_version=0)
        while not state.is_terminal():
            legal = state.legal_actions()
            action = int(rng.choice(legal))
            builder.add(state.current_player(), action, np.array([legal.min()]), np.ones(1))
            state.apply_action(action)
        buffer.add(builder.finish(state.returns(), state.scores()))
    buffer.flush()
    torch.manual_seed(0)
    net = build_model("b2c32conv", "blokus")
    start = save_network(directory / "start", 1, "b2c32conv", net.state_dict(),
                         model_config=dataclasses.asdict(net.config))
    return directory / "buffer", start


def test_the_newest_games_are_held_out(kept):
    buffer, _ = kept
    train, judge = split_games(buffer, "blokus", 0.2)
    everything = [g.seed for _, g in ReplayBuffer(100, BlokusEncoder(), buffer).games]
    assert [g.seed for _, g in train.games] == everything[:8]
    assert [g.seed for _, g in judge.games] == everything[8:] == [8, 9]


def test_both_sizes_start_level_and_learn(kept):
    buffer, start = kept
    settings = LearnerSettings(batch_size=16, learning_rate=0.01)
    result = fit(buffer, start, ["b2c32conv", "b4c64conv"], steps=8, settings=settings, measure_every=4,
                 heldout=0.2, heldout_positions=64, report=lambda _: None)
    assert result.steps == [0, 4, 8] and (result.train_games, result.heldout_games) == (8, 2)
    small, large = result.policy["b2c32conv"], result.policy["b4c64conv"]
    assert small[0] == pytest.approx(large[0], abs=1e-5)  # grown: the same network at step 0
    assert result.value["b2c32conv"][0] == pytest.approx(result.value["b4c64conv"][0], abs=1e-5)
    assert small[-1] < small[0] - 0.05 and large[-1] < large[0] - 0.05  # the target can be learned
    assert small[1] != pytest.approx(large[1], abs=1e-4)  # and the two networks did not stay one
    assert 0 < result.cpu_per_step["b2c32conv"] < result.cpu_per_step["b4c64conv"]
    assert result.target_entropy == 0.0  # one target move each: nothing below a zero loss
    paired = result.against_first["b4c64conv"]["policy"]  # by held-out game: two of them
    assert paired["pairs"] == 2 and paired["mean"] == pytest.approx(large[-1] - small[-1], abs=0.05)


def test_target_entropy_is_the_mean_over_positions_with_a_target():
    probs = np.array([[0.5, 0.5, 0.0], [0.0, 0.0, 0.0], [0.25, 0.25, 0.5], [2.0, 0.0, 0.0]], np.float32)
    batch = TrainingBatch(planes=np.zeros((4, 1, 1, 1), np.float32), policy_index=np.zeros((4, 3), np.int64),
                          policy_probs=probs, legal_index=np.zeros((4, 3), np.int64),
                          values=np.zeros((4, 4), np.float32), scores=np.zeros((4, 4), np.float32))
    assert target_entropy(batch) == pytest.approx((np.log(2) + 1.5 * np.log(2) + 0.0) / 3)


def test_held_out_positions_are_spread_over_every_game(kept):
    buffer, _ = kept
    _, judge = split_games(buffer, "blokus", 0.2)
    sizes = [record.num_positions for _, record in judge.games]
    batch, games = spread_positions(judge, 40)
    assert sorted(set(games)) == [0, 1] and 40 <= len(games) <= 42
    stride = -(-sum(sizes) // 40)
    assert len(games) == sum(len(range(g % stride, n, stride)) for g, n in enumerate(sizes))
    assert batch.planes.shape[0] == len(games)


@pytest.mark.parametrize("arguments, message", [
    (["missing", "--models", "b2c32conv"], "fit_buffer: missing is not a directory"),
    (["BUFFER", "--models", "b2c32conv", "--heldout", "1"], "heldout must lie strictly between 0 and 1"),
    (["BUFFER", "--models", "b9c9"], "unknown model size 'b9c9'"),
    (["BUFFER", "--models", "b2c32conv", "--optimizer", "nope"],
     "no optimizer settings .*nope.yaml; known: cpu, paper"),
])
def test_bad_input_stops_with_one_line(kept, arguments, message):
    buffer, start = kept
    with pytest.raises(SystemExit) as stopped:
        load_script("fit_buffer").main(["--start", str(start), "--steps", "1",
                                        *[str(buffer) if a == "BUFFER" else a for a in arguments]])
    text = str(stopped.value)
    assert "\n" not in text and re.search(message, text), text


def test_the_target_noise_benchmark_searches_positions_of_the_newest_games(kept, tmp_path, capsys):
    """``python -m blokuszero.bench selfplay --target-noise BUFFER``: positions of the buffer's newest
    tenth of games (here its newest game), two searches each, every figure a share in [0, 1]."""
    import json

    from blokuszero.bench.selfplay import main as selfplay_bench

    buffer, start = kept
    selfplay_bench(["--target-noise", str(buffer), "--checkpoint", str(start), "--simulations", "20",
                    "--positions", "4", "--json", str(tmp_path / "noise.json")])
    assert "positions of " in capsys.readouterr().out
    row = json.loads((tmp_path / "noise.json").read_text())["results"][0]
    assert row["positions"] == 4 and row["simulations"] == 20
    for key in ("tv_between_searches", "tv_network_to_search", "top_move_agreement_between_searches",
                "network_top_prior_is_search_top_move"):
        assert 0 <= row[key] <= 1
