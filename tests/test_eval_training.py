"""The evaluator actor during training: new checkpoints evaluated, results in TensorBoard."""

from __future__ import annotations

from pathlib import Path

import pytest
import ray
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from blokuszero.match.runner import load_records
from blokuszero.match.stats import wilson_interval
from blokuszero.rl.trainer import Trainer

ROOT = Path(__file__).resolve().parents[1]
TINY = ["train.schedule=paper", "train.total_steps=20", "train.initial_games=6", "train.buffer_games=40",
        "train.steps_per_iteration=10", "train.games_per_iteration=3", "train.checkpoint_every=10",
        "train.log_every=5", "train.games_per_task=3", "search.simulations=4",
        "selfplay.games_in_parallel=3", "optimizer.batch_size=8", "progress=false"]
EVAL = ["eval=small", "eval.every_steps=10", "eval.games=2", "eval.simulations=4",
        "eval.opponent.simulations=4"]


def config(run_dir: Path, *overrides: str) -> dict:
    with initialize_config_dir(config_dir=str(ROOT / "conf"), version_base="1.3"):
        cfg = compose("config", overrides=[*TINY, f"run_dir={run_dir}", *overrides])
    return OmegaConf.to_container(cfg, resolve=True)


def test_presets_switch_evaluation_on_only_where_wanted():
    assert config(Path("x"))["eval"] == {"enabled": False}
    paper = config(Path("x"), "experiment=paper")["eval"]
    assert paper["enabled"] and paper["games"] == 40 and paper["opponent"]["simulations"] == 200
    with pytest.raises(ValueError, match=r"^eval.game is not a setting; known: \['device'"):
        Trainer(config(Path("x"), "eval=small", "+eval.game=3"), "x")


def test_evaluator_actor_evaluates_new_checkpoints_into_tensorboard(tmp_path):
    run_dir = tmp_path / "run"
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        Trainer(config(run_dir, *EVAL), run_dir, progress=False).run()
    finally:
        ray.shutdown()
    events = EventAccumulator(str(run_dir / "tensorboard")).Reload()
    # step 10 (every_steps after the start), then the run's last step (final: true)
    steps = [e.step for e in events.Scalars("eval/win_rate")]
    assert steps == [10, 20]
    for tag in ("eval/ci_low", "eval/ci_high", "eval/equal_seat", "eval/mean_score", "eval/opponent_mean_score"):
        assert [e.step for e in events.Scalars(tag)] == steps
    # The last point's figures are its stored games': the network's wins (a return above 0),
    # their Wilson interval, the equal seat of those games (logged as float32).
    records = load_records(run_dir / "eval" / "run@20" / "games.jsonl")
    wins = sum(r > 0 for g in records for seat, r in zip(g["seating"], g["returns"]) if seat == "blokuszero")
    winners = sum(r > 0 for g in records for r in g["returns"])
    logged = [events.Scalars(t)[-1].value for t in ("eval/win_rate", "eval/ci_low", "eval/ci_high", "eval/equal_seat")]
    assert logged == pytest.approx([wins / 2, *wilson_interval(wins, 2), winners / 8], abs=1e-6)
    for step in steps:  # each evaluated network is kept, and its games are stored
        assert (run_dir / "eval" / "checkpoints" / f"ckpt_{step:09d}.pt").exists()
        assert len(load_records(run_dir / "eval" / f"run@{step}" / "games.jsonl")) == 2
