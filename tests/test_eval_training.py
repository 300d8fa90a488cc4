"""The evaluator actor during training: new checkpoints evaluated, results in TensorBoard."""

from __future__ import annotations

from pathlib import Path

import pytest
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from blokuszero.match.runner import load_records
from blokuszero.match.stats import wilson_interval
from blokuszero.rl.trainer import Trainer

EVAL = ["train.total_steps=20", "eval=small", "eval.every_steps=10", "eval.games=2", "eval.simulations=4",
        "eval.opponent.simulations=4"]


def test_presets_switch_evaluation_on_only_where_wanted(tiny_run):
    assert tiny_run.config(Path("x"))["eval"] == {"enabled": False}
    paper = tiny_run.config(Path("x"), "experiment=paper")["eval"]
    assert paper["enabled"] and paper["games"] == 40 and paper["opponent"]["simulations"] == 200
    with pytest.raises(ValueError, match=r"^eval.game is not a setting; known: \['device'"):
        Trainer(tiny_run.config(Path("x"), "eval=small", "+eval.game=3"), "x")


def test_evaluator_actor_evaluates_new_checkpoints_into_tensorboard(tmp_path, tiny_run, ray_session):
    run_dir = tmp_path / "run"
    Trainer(tiny_run.config(run_dir, *EVAL), run_dir, progress=False).run()
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
