"""The training system: learner, buffer, checkpoints, a tiny run, kill and resume, actor restarts."""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import ray
import torch
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from blokuszero.games.blokus import BlokusGame
from blokuszero.games.blokus.encoder import BlokusEncoder
from blokuszero.games.blokus.sgf import read_sgf
from blokuszero.nn.checkpoint import checkpoint_paths, latest_checkpoint, load_checkpoint, load_network, save_checkpoint
from blokuszero.nn.evaluator import NetworkEvaluator
from blokuszero.nn.model import build_model
from blokuszero.rl.learner import Learner, LearnerSettings
from blokuszero.rl.replay import ReplayBuffer
from blokuszero.rl.selfplay import LockstepSelfPlay, SelfPlaySettings
from blokuszero.rl.trainer import Trainer

ROOT = Path(__file__).resolve().parents[1]
BLOKUS = BlokusEncoder()


def self_play_games(n: int, seed: int = 0):
    evaluator = NetworkEvaluator(build_model("b2c32conv", "blokus"), BLOKUS)
    games = []
    LockstepSelfPlay(BlokusGame(), evaluator, SelfPlaySettings(simulations=4, games_in_parallel=n),
                     seed).play(n, games.append)
    return games


def test_self_play_records_are_complete_games():
    games = self_play_games(2)
    for g in games:
        state = BlokusGame().new_initial_state()
        for t, (p, a) in enumerate(zip(g.players, g.actions)):
            assert state.current_player() == p
            actions, probs = g.policy(t)
            assert a in actions and probs.sum() == pytest.approx(1.0)
            assert set(actions) <= set(state.legal_actions())
            state.apply_action(int(a))
        assert state.is_terminal() and np.array_equal(state.returns(), g.returns)
        assert np.array_equal(state.scores(), g.scores)


def test_self_play_stops_when_asked():
    """``stop`` (a benchmark's time limit) ends play between simulation rounds, games unfinished."""
    rounds = itertools.count()
    stats = LockstepSelfPlay(BlokusGame(), NetworkEvaluator(build_model("b2c32conv", "blokus"), BLOKUS),
                             SelfPlaySettings(simulations=4, games_in_parallel=2), 0).play(
        2, stop=lambda: next(rounds) >= 3)
    assert (stats.batches, stats.simulations, stats.games) == (3, 6, 0)


def test_value_targets():
    game = self_play_games(1)[0]
    assert np.array_equal(game.value_target("outcome"), game.returns)
    margin = game.value_target("margin")
    assert np.all(np.abs(margin) < 1)
    assert np.all(margin[game.returns < 0] < 0) and np.all(margin[game.returns > 0] >= 0)  # signs agree
    best = int(np.argmax(game.scores))
    others = np.delete(game.scores, best)
    assert margin[best] == pytest.approx(np.tanh((game.scores[best] - others.max()) / 10), abs=1e-6)
    with pytest.raises(ValueError, match="value target 'score'"):
        game.value_target("score")


def test_buffer_persists_samples_and_drops(tmp_path):
    games = self_play_games(4)
    buffer = ReplayBuffer(capacity=3, encoder=BLOKUS, directory=tmp_path, shard_games=2)
    for g in games:
        buffer.add(g)
    assert buffer.num_games == 3  # capacity
    batch = buffer.sample(5, np.random.default_rng(0), augment=True)
    assert batch.planes.shape == (5, 33, 20, 20) and batch.values.shape == (5, 4)
    assert ((batch.policy_index >= 0).sum(1) > 0).all()
    for i in range(5):  # targets lie on legal moves (after the same rotation)
        assert set(batch.policy_index[i][batch.policy_index[i] >= 0]) <= set(batch.legal_index[i])
    buffer.flush()
    again = ReplayBuffer(capacity=3, encoder=BLOKUS, directory=tmp_path)  # what a restarted run sees
    assert again.num_games == 3
    assert [g.seed for _, g in again.games] == [g.seed for _, g in buffer.games]
    again.drop_oldest(2)
    assert again.num_games == 1
    assert ReplayBuffer(capacity=3, encoder=BLOKUS, directory=tmp_path).num_games == 1  # shards of dropped games gone


def test_buffer_counts_every_game_it_ever_received(tmp_path):
    """The run's count of games played comes from the buffer (before: from the checkpoint, which
    missed the games that landed after it)."""
    games = self_play_games(4)
    buffer = ReplayBuffer(capacity=3, encoder=BLOKUS, directory=tmp_path, shard_games=2)
    for g in games:
        buffer.add(g)
    buffer.flush()
    positions = sum(g.num_positions for g in games)
    again = ReplayBuffer(capacity=3, encoder=BLOKUS, directory=tmp_path)
    assert (again.games_added, again.positions_added) == (4, positions)
    again.drop_oldest(3)  # every shard deleted: the totals stay in oldest.json
    assert not list(tmp_path.glob("shard_*.npz"))
    assert ReplayBuffer(capacity=3, encoder=BLOKUS, directory=tmp_path).games_added == 4


def test_network_overfits_a_fixed_batch():
    torch.manual_seed(0)
    buffer = ReplayBuffer(capacity=10, encoder=BLOKUS)
    for g in self_play_games(2):
        buffer.add(g)
    batch = buffer.sample(16, np.random.default_rng(1))
    learner = Learner(build_model("b2c32conv", "blokus"), LearnerSettings(learning_rate=0.005))
    first = learner.train_step(batch)
    for _ in range(150):
        last = learner.train_step(batch)
    assert last["loss/value"] < 0.1 * first["loss/value"]
    assert last["loss/policy"] < 0.5 * first["loss/policy"]


def test_learning_rate_schedule():
    learner = Learner(build_model("b2c32conv", "blokus"), LearnerSettings())
    assert learner.learning_rate(40_000) == 1e-3 and learner.learning_rate(40_001) == 1e-4


def test_corrupt_checkpoint_is_reported_and_skipped(tmp_path):
    save_checkpoint(tmp_path, 10, {"learner": {"step": 10}})
    newest = save_checkpoint(tmp_path, 20, {"learner": {"step": 20}})
    data = bytearray(newest.read_bytes())
    data[len(data) // 2] ^= 0xFF  # one flipped byte
    newest.write_bytes(bytes(data))
    messages = []
    path, state = latest_checkpoint(tmp_path, report=messages.append)
    assert state["learner"]["step"] == 10
    assert messages == [f"skipping checkpoint {newest} does not match its digest (damaged)"]
    newest.with_suffix(".sha256").unlink()  # as if the write had stopped before the digest
    with pytest.raises(ValueError, match="has no digest file"):
        load_checkpoint(newest)


def test_checkpoint_keeps_the_network_shape(tiny_run, tmp_path):
    """A checkpoint loads as the network it was trained as, and a run refuses to resume from
    one whose network has another shape than its configured model (say after an upgrade)."""
    torch.manual_seed(0)
    model = build_model("b2c32conv", "blokus", value_hidden=16)
    learner = Learner(model, LearnerSettings())
    learner.step = 5
    save_checkpoint(tmp_path / "checkpoints", 5, {
        "learner": learner.state_dict(), "counters": {}, "rng": {}, "model_name": "b2c32conv",
        "model_config": dataclasses.asdict(model.config), "config": "{}"})
    loaded, step = load_network(tmp_path / "checkpoints" / "ckpt_000000005.pt")
    assert step == 5 and loaded.config == model.config
    with pytest.raises(ValueError, match="network of another shape .* start a new run"):
        Trainer(tiny_run.config(tmp_path), tmp_path, progress=False).run()


def test_checkpoints_rotate(tmp_path):
    for step in range(1, 6):
        save_checkpoint(tmp_path, step, {"step": step}, keep=2)
    assert [p.name for p in checkpoint_paths(tmp_path)] == ["ckpt_000000005.pt", "ckpt_000000004.pt"]


def test_bad_config_names_the_key(tiny_run, tmp_path):
    config = tiny_run.config(tmp_path)
    config["train"]["steps"] = 5
    with pytest.raises(ValueError, match=r"^train.steps is not a setting; known: \['augment'"):
        Trainer(config, tmp_path)
    config = tiny_run.config(tmp_path, "optimizer.momentum=fast")
    with pytest.raises(ValueError, match="^optimizer.momentum must be float, not 'fast'$"):
        Trainer(config, tmp_path)
    for overrides in ((), ("hardware=gpu8", "experiment=paper")):  # the shipped configs pass
        Trainer(tiny_run.config(tmp_path, *overrides), tmp_path)


@pytest.mark.parametrize("override, message", [
    ("search.simulations=-5", "search.simulations must be >= 1, not -5"),
    ("search.simulations=abc", "search.simulations must be int, not 'abc'"),
    ("search.simulations=2 selfplay.leaves_per_tree=2",
     "search.simulations must be more than selfplay.leaves_per_tree (2), not 2"),
    ("search.q_init=maybe", "search.q_init must be one of ['parent'], not 'maybe'"),
    ("search.dirichlet_epsilon=1.5", "search.dirichlet_epsilon must be <= 1, not 1.5"),
    ("train.schedule=fast", "train.schedule must be one of ['async', 'paper'], not 'fast'"),
    ("optimizer.batch_size=0", "optimizer.batch_size must be >= 1, not 0"),
    ("hardware.actors=0", "hardware.actors must be >= 1, not 0"),
    ("model=b2c32conv model.name=b99", "model.name must be one of"),
    ("eval=small eval.opponent.preset=nobody", "eval.opponent is not a valid player: unknown player preset"),
    ("+surprise=1", "surprise is not a setting"),
])
def test_bad_settings_are_refused_before_anything_starts(tiny_run, tmp_path, override, message):
    run_dir = tmp_path / "run"
    with pytest.raises(ValueError, match=re.escape(message)):
        Trainer(tiny_run.config(run_dir, *override.split()), run_dir)
    assert not run_dir.exists()


def test_train_py_refuses_a_bad_setting_in_one_line_and_writes_nothing(tmp_path):
    """Before: the check came after Ray started (a Ray-actor traceback) and left runs/<name>."""
    run_dir = tmp_path / "run"
    done = subprocess.run([sys.executable, str(ROOT / "train.py"), f"run_dir={run_dir}", "search.simulations=-5"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stderr.strip() == "train.py: search.simulations must be >= 1, not -5"
    assert not run_dir.exists() and list(tmp_path.iterdir()) == []


def test_schema_matches_the_config_files(tiny_run):
    """Every key of every conf/ group file is a field of its schema, and every field is set by
    the default config (so the YAML files and the dataclasses cannot drift apart)."""
    from blokuszero.rl.config import RunConfig

    schema = OmegaConf.structured(RunConfig)  # the dataclasses are Hydra structured configs
    for group_dir in (ROOT / "conf").iterdir():
        if group_dir.is_dir() and group_dir.name != "experiment":
            for path in group_dir.glob("*.yaml"):
                keys = set(OmegaConf.load(path)) - {"defaults"}
                assert keys <= set(schema[group_dir.name]), path
    composed = tiny_run.config(Path("/nonexistent"))
    assert {k: set(v) if isinstance(v, dict) else None for k, v in composed.items() if k != "eval"} == \
        {k: set(schema[k]) if OmegaConf.is_dict(schema[k]) else None for k in schema if k != "eval"}


@pytest.mark.slow  # 31 s; .ci/run runs it in its slow line
def test_tiny_run_killed_and_resumed(tiny_run, tmp_path, request):
    run_dir = tmp_path / "run"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    command = [sys.executable, str(ROOT / "train.py"), *tiny_run.overrides, f"run_dir={run_dir}", "hardware.num_cpus=1"]
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.time() + 240
        while time.time() < deadline and not any(
                int(p.stem[5:]) >= 20 for p in checkpoint_paths(run_dir / "checkpoints")):
            time.sleep(0.5)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the whole run, Ray included, as a crash would
        proc.wait()
    saved_path, saved = latest_checkpoint(run_dir / "checkpoints")
    step = saved["learner"]["step"]
    assert 20 <= step < 40
    assert (run_dir / "tensorboard").is_dir() and any((run_dir / "tensorboard").iterdir())
    games_on_disk = ReplayBuffer(capacity=40, encoder=BLOKUS, directory=run_dir / "buffer").num_games

    request.getfixturevalue("ray_session")  # Ray for the resumed run, in this process
    trainer = Trainer(tiny_run.config(run_dir), run_dir)
    trainer._start()
    try:
        assert trainer.learner.step == step
        resumed = trainer.learner.optimizer.state_dict()["state"]
        for key, value in saved["learner"]["optimizer"]["state"].items():
            assert torch.equal(resumed[key]["momentum_buffer"], value["momentum_buffer"])
        assert ray.get(trainer.buffer.info.remote())["games"] == games_on_disk > 0
    finally:
        trainer.metrics.close()
    summary = Trainer(tiny_run.config(run_dir, "train.keep_games_every=2"), run_dir).run()
    assert summary["step"] == 40
    assert summary["games"] > saved["counters"]["games"]
    # Every 2nd game of the resumed start kept as Pentobi SGF, numbered on from the games before it.
    kept = sorted((run_dir / "games").glob("selfplay_*.blksgf"))
    numbers = [int(p.stem[9:]) for p in kept]
    assert kept and all(n % 2 == 0 and saved["counters"]["games"] < n <= summary["games"] for n in numbers)
    assert all(read_sgf(p.read_text()).is_terminal() for p in kept)


@pytest.mark.slow  # about 30 s: a run started, then stopped as Ctrl-C stops it
def test_ctrl_c_stops_a_run_with_one_line_saying_how_to_resume(tiny_run, tmp_path):
    run_dir = tmp_path / "run"
    command = [sys.executable, str(ROOT / "train.py"), *tiny_run.overrides, f"run_dir={run_dir}", "hardware.num_cpus=1",
               "train.total_steps=100000"]
    proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        deadline = time.time() + 240
        while time.time() < deadline and not checkpoint_paths(run_dir / "checkpoints"):
            time.sleep(0.5)
        assert checkpoint_paths(run_dir / "checkpoints"), "no checkpoint within 240 s"
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C sends: the whole group
        output, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    lines = [line for line in output.splitlines() if line.strip()]
    assert proc.returncode != 0 and "Traceback" not in output, output[-3000:]
    assert re.fullmatch(r"train\.py: stopped; `python .*train\.py .*` resumes the run from its newest checkpoint, "
                        r"ckpt_\d{9}\.pt", lines[-1]), lines


def _train_py(tiny_run, run_dir: Path, *overrides: str) -> subprocess.CompletedProcess:
    """train.py on ``tiny_run`` (the fixture) with ``overrides``, in a process of its own."""
    return subprocess.run([sys.executable, str(ROOT / "train.py"), *tiny_run.overrides, f"run_dir={run_dir}",
                           "hardware.num_cpus=1", *overrides], cwd=run_dir.parent, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})


@pytest.mark.slow  # about 50 s on 2 shared cores: three starts of a run
def test_a_run_counts_every_game_says_only_its_own_words_and_a_finished_run_changes_nothing(tiny_run,
        tmp_path, request, capsys):
    run_dir = tmp_path / "run"
    done = _train_py(tiny_run, run_dir, "train.total_steps=10")
    assert done.returncode == 0, done.stderr[-3000:]
    # Only our lines: before, Ray's token-authentication warning and a core_worker error line.
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert all(line.startswith(("[train] ", "done: ", "  ", "next:")) for line in lines), lines
    # The ending: elapsed time, steps, games, the last losses, the run directory, what to run next.
    assert re.search(r"^done: step 10 in [\d.]+ minutes, 6 self-play games, \d+ positions; final loss [\d.]+ "
                     r"\(policy [\d.]+, value [\d.]+\)$", done.stdout, re.M), done.stdout
    assert f"run directory {run_dir}: checkpoints/, tensorboard/" in done.stdout
    assert "blokuszero-board --player " in done.stdout and f"tensorboard --logdir {run_dir}/tensorboard" in done.stdout
    summary = json.loads((run_dir / "summary.json").read_text())
    _, final = latest_checkpoint(run_dir / "checkpoints")
    buffer = ReplayBuffer(capacity=40, encoder=BLOKUS, directory=run_dir / "buffer")
    # One source of truth: the last checkpoint is written after the last game is in.
    assert final["counters"]["games"] == summary["games"] == buffer.games_added == 6
    assert final["counters"]["positions"] == summary["positions"] == buffer.positions_added

    files = {p: p.stat().st_mtime_ns for p in run_dir.rglob("*")}
    again = _train_py(tiny_run, run_dir, "train.total_steps=10")
    assert again.returncode == 0 and "is finished: step 10 of train.total_steps=10" in again.stdout
    assert {p: p.stat().st_mtime_ns for p in run_dir.rglob("*")} == files  # nothing written

    # Games that reached the buffer after the newest checkpoint (a run killed between the two)
    # are counted on resume; a changed setting is reported; each start's config is archived.
    extra = self_play_games(2, seed=5)
    late = ReplayBuffer(capacity=40, encoder=BLOKUS, directory=run_dir / "buffer")
    for g in extra:
        late.add(g)
    late.flush()
    request.getfixturevalue("ray_session")
    capsys.readouterr()
    trainer = Trainer(tiny_run.config(run_dir, "train.total_steps=20"), run_dir)
    trainer._start()
    trainer.metrics.close()
    said = capsys.readouterr().out
    assert trainer.counters.games == 8
    assert "the buffer holds 2 games played after the checkpoint: 8 games played in all" in said
    assert "settings that differ from ckpt_000000010.pt's: " in said and "train.total_steps: 10 -> 20" in said
    archived = sorted((run_dir / "configs").iterdir())
    assert len(archived) == 2 and json.loads(archived[1].read_text())["step"] == 10


def test_killed_self_play_actor_is_restarted(tiny_run, tmp_path, ray_session):
    trainer = Trainer(tiny_run.config(tmp_path, "train.schedule=async", "train.total_steps=30",
                                  "train.samples_per_position=0.5"), tmp_path)
    outcome = {}
    thread = threading.Thread(target=lambda: outcome.update(trainer.run()))
    thread.start()
    deadline = time.time() + 120
    while time.time() < deadline and not (getattr(trainer, "learner", None) and trainer.learner.step > 2):
        time.sleep(0.2)
    ray.kill(trainer.workers[0], no_restart=False)  # the actor dies; Ray starts it again
    thread.join(timeout=300)
    assert not thread.is_alive()
    assert outcome["step"] == 30 and outcome["games"] > 0


def test_ray_workers_use_the_drivers_numba_cache_directory(ray_session):
    # Workers import the package afresh: importing it keys numba's cache on the sources
    # (blokuszero/numba_cache.py) before a worker decorates any kernel, as in the driver.
    import blokuszero

    @ray.remote
    def cache_directory():
        import numba

        import blokuszero

        return str(blokuszero.NUMBA_CACHE), numba.config.CACHE_DIR

    assert ray.get(cache_directory.remote()) == (str(blokuszero.NUMBA_CACHE),) * 2


def test_the_cpu_strong_preset_is_bounded_by_the_wall_clock():
    """`experiment=cpu_strong` (the 3-hour curve in BENCHMARKS) loads, ends by its clock within 3 hours and
    keeps networks for the curve; its search is Gumbel's."""
    from blokuszero.rl.config import load_run_config

    with initialize_config_dir(config_dir=str(ROOT / "conf"), version_base="1.3"):
        cfg = compose("config", overrides=["experiment=cpu_strong"])
    settings = load_run_config(OmegaConf.to_container(cfg, resolve=True))
    assert 0 < settings.train.max_minutes <= 180 and settings.train.curve_every_minutes > 0
    assert settings.train.total_steps > 100_000  # the clock, not the step count, ends it
    assert settings.search.gumbel and not settings.eval.enabled and settings.name == "cpu_strong"


@pytest.mark.parametrize("schedule", ["async", pytest.param("paper", marks=pytest.mark.slow)])
def test_a_run_stops_at_its_wall_clock_limit_keeps_curve_networks_and_then_stays_finished(tiny_run,
        schedule, tmp_path, ray_session, monkeypatch, capsys):
    import blokuszero.rl.trainer as trainer_module

    # The run's clock advances one second each time it is read (a few times per learner step, once
    # a second while waiting for games), so the run is short and its curve points certain.
    ticks = itertools.count()
    monkeypatch.setattr(trainer_module, "_clock", lambda: float(next(ticks)))
    overrides = (f"train.schedule={schedule}", "train.total_steps=1000000", "train.max_minutes=3",
                 "train.curve_every_minutes=0.5", "train.checkpoint_every=1000")
    summary = Trainer(tiny_run.config(tmp_path, *overrides), tmp_path).run()
    _, final = latest_checkpoint(tmp_path / "checkpoints")
    seconds = final["counters"]["seconds"]
    assert 0 < summary["step"] == final["learner"]["step"] < 1000000
    # Stopped at the first check past 3 minutes; the slack is Ray's and the final checkpoint's.
    assert 180 <= seconds < 200 and summary["seconds"] == seconds
    curve = tmp_path / "curve" / "checkpoints"
    kept = [int(p.stem[5:]) for p in checkpoint_paths(curve)]  # newest first
    assert kept[0] == summary["step"]  # the last network is kept
    assert len(kept) == len(set(kept)) >= 2 and final["counters"]["curve_points"] <= 6
    assert load_network(curve / f"ckpt_{kept[-1]:09d}.pt")[1] == kept[-1]
    assert json.loads(load_checkpoint(curve / f"ckpt_{kept[-1]:09d}.pt")["config"])["train"]["max_minutes"] == 3
    assert "kept the network of step" in capsys.readouterr().out

    files = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")}
    again = Trainer(tiny_run.config(tmp_path, *overrides), tmp_path).run()
    assert again["step"] == summary["step"]
    assert "minutes of train.max_minutes=3 used; nothing to do" in capsys.readouterr().out
    assert {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")} == files  # nothing written

    # A higher limit extends the run by what it adds, and the curve goes on.
    longer = Trainer(tiny_run.config(tmp_path, *overrides[:2], "train.max_minutes=4", *overrides[3:]), tmp_path).run()
    assert longer["step"] > summary["step"] and 240 <= longer["seconds"] < 260
    assert "train.max_minutes: 3 -> 4" in capsys.readouterr().out
    assert [int(p.stem[5:]) for p in checkpoint_paths(curve)][0] == longer["step"]


def test_an_expert_iteration_run_trains_from_the_shipped_network_on_its_searches(tiny_run, tmp_path, ray_session):
    """search.leaf_playouts: the actor plays with the play-time search (rl/expert_iteration.py),
    its network in ONNX Runtime, and the learner trains on those games from the shipped network."""
    shipped = ROOT / "checkpoints" / "blokus_b2c32conv_gumbel.pt"
    overrides = ("search.leaf_playouts=true", "search.gumbel=false", "search.dirichlet_epsilon=0",
                 "search.simulations=32", "search.expand_threshold=4", "hardware.actor_backend=onnxruntime",
                 f"train.init_from={shipped}")
    summary = Trainer(tiny_run.config(tmp_path, *overrides), tmp_path).run()
    assert summary["step"] == 40 and summary["games"] >= 6
    _, final = latest_checkpoint(tmp_path / "checkpoints")
    assert json.loads(final["config"])["search"]["leaf_playouts"] is True
    games = [g for _, g in ReplayBuffer(100, BLOKUS, tmp_path / "buffer").games]
    assert games and all(np.diff(g.policy_start).min() > 0 for g in games)  # a target at every move
    # 32 simulations a move, a few of them reused: visit counts, not one network leaf per move
    assert all(len(g.policy(t)[0]) > 1 for g in games for t in range(10))
