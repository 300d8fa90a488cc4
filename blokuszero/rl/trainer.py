"""Training orchestration: self-play actors, the buffer actor and the learner on Ray.

Two schedules (``schedule.schedule``):

- ``paper`` (SPEC §3): fill the buffer with ``initial_games`` games, then repeat: train
  ``steps_per_iteration`` steps, drop the oldest ``games_per_iteration`` games, play as many
  new ones with the new weights.
- ``async``: actors play all the time with the newest weights they were given; the learner
  trains while (samples trained) / (positions played) stays at or below
  ``samples_per_position``, and publishes weights every ``publish_every`` steps.

Everything needed to go on after a crash is in the newest checkpoint of ``run_dir`` and in
the buffer's shards; :meth:`Trainer.run` resumes from them. With ``eval.enabled``, an evaluator
actor plays a small match for new checkpoints (see :mod:`.evaluation`).
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import time
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import ray
import torch
from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm

from ..games.encoding import Encoder
from ..games.registry import make_encoder
from ..nn.checkpoint import latest_checkpoint, save_checkpoint, save_network
from ..nn.model import ModelConfig, build_model
from .actors import RemoteBuffer, RemoteSelfPlayWorker
from .evaluation import EvalSettings, RemoteEvaluator
from .learner import Learner, LearnerSettings
from .selfplay import SelfPlaySettings

SCHEDULES = ("paper", "async")
VALUE_TARGETS = ("outcome", "margin")


@dataclass(frozen=True)
class ScheduleSettings:
    schedule: str = "paper"  # paper | async
    total_steps: int = 70_000  # learner updates of the whole run (SPEC §3: 70,000)
    buffer_games: int = 10_000  # replay buffer capacity in games (SPEC §3: 10,000)
    initial_games: int = 10_000  # games played before training starts (SPEC §3: a full buffer)
    steps_per_iteration: int = 1_000  # paper: steps between self-play phases (SPEC §3: 1,000)
    games_per_iteration: int = 1_000  # paper: games dropped and played per phase (SPEC §3: 1,000)
    samples_per_position: float = 4.0  # async: most training samples per self-play position
    publish_every: int = 100  # async: steps between weight versions
    games_per_task: int = 16  # games an actor plays before it can take new weights
    augment: bool = False  # random board rotations of training positions (not in the paper)
    value_target: str = "outcome"  # outcome (+1 / -1, the paper's) or margin (score margin; see records.py)
    checkpoint_every: int = 1_000  # steps between checkpoints (and at every iteration's end)
    keep_checkpoints: int = 3
    log_every: int = 50  # steps between TensorBoard points

    def __post_init__(self) -> None:
        if self.schedule not in SCHEDULES:
            raise ValueError(f"schedule {self.schedule!r} is not one of {SCHEDULES}")
        if self.value_target not in VALUE_TARGETS:
            raise ValueError(f"value_target {self.value_target!r} is not one of {VALUE_TARGETS}")


@dataclass(frozen=True)
class HardwareSettings:
    ray_address: str | None = None  # join this Ray cluster ("auto", "host:6379"); None = start one here
    num_cpus: int | None = None  # CPUs of a Ray cluster started here (None: all)
    actors: int = 1  # self-play actors
    actor_device: str = "cpu"  # cpu | cuda
    gpus_per_actor: float = 0.0  # Ray GPU share of each actor
    threads_per_actor: int = 1  # torch threads in each actor
    half: bool = False  # float16 inference on CUDA
    cache_size: int = 0  # evaluations cached per actor (transpositions)
    learner_device: str = "cpu"
    learner_threads: int = 0  # torch threads of the learner (0: torch's default)


def _settings(cls, values: dict[str, Any], group: str):
    known = set(cls.__dataclass_fields__)
    unknown = set(values) - known
    if unknown:
        raise ValueError(f"config group {group!r}: unknown key(s) {sorted(unknown)}; known: {sorted(known)}")
    hints = typing.get_type_hints(cls)
    for key, value in values.items():
        declared = typing.get_args(hints[key]) or (hints[key],)
        # A whole number is a fine float; True/False are not numbers here.
        allowed = tuple(t for a in declared for t in ((int, float) if a is float else (a,)))
        if not isinstance(value, allowed) or (isinstance(value, bool) and bool not in allowed):
            names = " or ".join("None" if a is type(None) else a.__name__ for a in declared)
            raise ValueError(f"config group {group!r}: {key} must be {names}, not {value!r}")
    return cls(**values)


def _git_revision() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                              cwd=Path(__file__).parent, timeout=10).stdout.strip() or "unknown"
    except OSError:
        return "unknown"


_COLOURS = np.array([[40, 40, 40], [30, 90, 220], [230, 200, 20], [210, 40, 40], [40, 170, 60]], np.uint8)


def board_image(encoder: Encoder, record, cell: int = 8) -> np.ndarray:
    """[3, H, W] uint8 picture of a game's final board, as the encoder draws it."""
    board = encoder.board(encoder.replay(record.players, record.actions))
    picture = _COLOURS[board + 1].repeat(cell, 0).repeat(cell, 1)
    return picture.transpose(2, 0, 1)


class Trainer:
    """Runs (or resumes) one training run in ``run_dir`` from a resolved config dict."""

    def __init__(self, config: dict[str, Any], run_dir: str | Path, progress: bool = True) -> None:
        self.game = config["game"]["name"]  # a registry name: blokus, go9, ...
        self.encoder = make_encoder(self.game)  # ValueError for a game without one
        self.config = config
        self.run_dir = Path(run_dir)
        self.progress = progress
        self.model_name = config["model"]["name"]
        self.search = _settings(SelfPlaySettings, {**config["search"], **config["selfplay"]}, "search/selfplay")
        self.learner_settings = _settings(LearnerSettings, config["optimizer"], "optimizer")
        self.schedule = _settings(ScheduleSettings, config["train"], "train")
        self.hardware = _settings(HardwareSettings, config["hardware"], "hardware")
        self.eval_settings = _settings(EvalSettings, config.get("eval", {}), "eval")
        self.seed = int(config["seed"])

    # ------------------------------------------------------------------ set-up
    def _start(self) -> None:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        (self.run_dir / "config.json").write_text(json.dumps(
            {"config": self.config, "git_revision": _git_revision()}, indent=2))
        hw = self.hardware
        if hw.learner_threads:
            torch.set_num_threads(hw.learner_threads)
        torch.manual_seed(self.seed)
        self.learner = Learner(build_model(self.model_name, self.game), self.learner_settings, hw.learner_device)
        # The network's shape, stored with every checkpoint (see nn.checkpoint.load_network).
        self.model_config = dataclasses.asdict(self.learner.model.config)
        # pending_games / phase_start: the paper schedule's self-play phase under way, if any.
        self.counters = {"games": 0, "positions": 0, "samples": 0, "pending_games": 0, "phase_start": 0}
        found = latest_checkpoint(self.run_dir / "checkpoints", report=self._say)
        buffer_rng = None
        if found is not None:
            path, state = found
            stored = state.get("model_config")
            mismatch = (f"checkpoint {path} holds a {state['model_name']} network of another shape "
                        f"than this run's model {self.model_name}; resume with the code that wrote "
                        f"it, or start a new run (name=...)")
            # Filled in as built: shapes stored before a field existed take its default.
            if stored is not None and dataclasses.asdict(ModelConfig(**stored)) != self.model_config:
                raise ValueError(f"{mismatch}. Stored: {stored}; this run: {self.model_config}")
            try:
                self.learner.load_state_dict(state["learner"])
            except RuntimeError as err:  # checkpoints written before shapes were stored
                raise ValueError(f"{mismatch}. {err}") from None
            self.counters = dict(state["counters"])
            torch.set_rng_state(state["rng"]["torch"])
            buffer_rng = state["rng"]["buffer"]
            self._say(f"resumed from {path.name}: step {self.learner.step}, "
                      f"{self.counters['games']} games played")
        self._owns_ray = not ray.is_initialized()
        if self._owns_ray:
            # "local" starts a new instance even if another one runs on this machine.
            ray.init(address=hw.ray_address or "local",
                     num_cpus=hw.num_cpus if hw.ray_address is None else None,
                     include_dashboard=False, log_to_driver=False)
        self.buffer = RemoteBuffer.remote(self.game, self.schedule.buffer_games, str(self.run_dir / "buffer"),
                                          self.seed, self.schedule.augment, self.schedule.value_target)
        if buffer_rng is not None:
            ray.get(self.buffer.set_rng_state.remote(buffer_rng))
        self.workers = [
            RemoteSelfPlayWorker.options(num_cpus=hw.threads_per_actor, num_gpus=hw.gpus_per_actor).remote(
                self.game, self.model_name, self.search, self.buffer,
                int(np.random.SeedSequence([self.seed, i, self.learner.step]).generate_state(1)[0]),
                hw.actor_device, hw.half, hw.cache_size, hw.threads_per_actor)
            for i in range(hw.actors)]
        self.writer = SummaryWriter(str(self.run_dir / "tensorboard"))
        self.evaluator, self._evaluating, self._evaluated_step = None, None, self.learner.step
        if self.eval_settings.enabled:
            ev = self.eval_settings
            self.evaluator = RemoteEvaluator.options(num_cpus=ev.num_cpus, num_gpus=ev.num_gpus).remote(
                ev, str(self.run_dir), self.run_dir.name, self.seed,
                {k: getattr(self.search, k) for k in ("c_base", "c_init", "q_init")}, self.game)
        self._publish()
        self._window = {"start": time.perf_counter(), "games": 0, "positions": 0, "sims": 0,
                        "evals": 0, "capacity": 0, "seconds": 0.0}

    def _say(self, text: str) -> None:
        tqdm.write(f"[train] {text}")

    def _publish(self) -> None:
        """Make the learner's weights the newest version (one object for all actors)."""
        self.version = self.learner.step
        self.weights_ref = ray.put(self.learner.weights())

    # ------------------------------------------------------------------ self-play
    def _dispatch(self, worker, games: int):
        return worker.play.remote(games, self.weights_ref, self.version)

    def _record_selfplay(self, stats: dict) -> None:
        self.counters["games"] += stats["games"]
        self.counters["positions"] += stats["positions"]
        w = self._window
        w["games"] += stats["games"]
        w["positions"] += stats["positions"]
        w["sims"] += stats["simulations"]
        w["evals"] += stats["evaluations"]
        w["capacity"] += stats["batch_capacity"]
        w["seconds"] += stats["seconds"]
        step = self.learner.step
        elapsed = max(time.perf_counter() - w["start"], 1e-9)
        self.writer.add_scalar("selfplay/games_per_hour", w["games"] * 3600 / elapsed, step)
        self.writer.add_scalar("selfplay/positions_per_s", w["positions"] / elapsed, step)
        self.writer.add_scalar("search/nn_batch_fill", w["evals"] / max(w["capacity"], 1), step)
        self.writer.add_scalar("search/evals_per_s", w["evals"] / max(w["seconds"], 1e-9), step)
        self.writer.add_scalar("weights/version_lag", self.version - stats["version"], step)
        if stats["last_game"] is not None:
            self.writer.add_image("selfplay/final_board", board_image(self.encoder, stats["last_game"]), step)

    def _play_games(self, games: int, bar) -> None:
        """Play ``games`` games on all actors with the current weights and wait for them."""
        chunks = [min(self.schedule.games_per_task, games - i)
                  for i in range(0, games, self.schedule.games_per_task)]
        idle = list(self.workers)
        running: dict = {}
        while chunks or running:
            while chunks and idle:
                worker = idle.pop()
                running[self._dispatch(worker, chunks.pop())] = worker
            done, _ = ray.wait(list(running), num_returns=1)
            idle.append(running.pop(done[0]))
            self._record_selfplay(ray.get(done[0]))
            bar.set_postfix_str(f"games {self.counters['games']}")

    # ------------------------------------------------------------------ learning
    def _train_step(self, batch_ref) -> dict:
        metrics = self.learner.train_step(ray.get(batch_ref))
        self.counters["samples"] += self.learner_settings.batch_size
        if self.learner.step % self.schedule.log_every == 0:
            for key, value in metrics.items():
                self.writer.add_scalar(key, value, self.learner.step)
            info = ray.get(self.buffer.info.remote())
            self.writer.add_scalar("buffer/games", info["games"], self.learner.step)
            self.writer.add_scalar("buffer/positions", info["positions"], self.learner.step)
        if self.learner.step % self.schedule.checkpoint_every == 0:
            self.checkpoint()
        return metrics

    def checkpoint(self) -> Path:
        """Save everything needed to resume (the buffer's games are in its shards)."""
        ray.get(self.buffer.flush.remote())
        payload = {"learner": self.learner.state_dict(), "counters": dict(self.counters),
                   "rng": {"torch": torch.get_rng_state(),
                           "buffer": ray.get(self.buffer.rng_state.remote())},
                   "model_name": self.model_name,
                   "model_config": self.model_config,
                   "config": json.dumps(self.config)}
        path = save_checkpoint(self.run_dir / "checkpoints", self.learner.step, payload,
                               self.schedule.keep_checkpoints)
        self._evaluate_new_checkpoint()
        self.writer.flush()
        return path

    # ------------------------------------------------------------------ evaluation
    def _evaluate_new_checkpoint(self, due: bool = False) -> None:
        """Log a finished evaluation; give the idle evaluator the newest weights when at least
        ``every_steps`` steps have passed or it is ``due`` (a checkpoint that comes while it is
        busy is skipped)."""
        if self.evaluator is None:
            return
        self._collect_evaluation(wait=False)
        step = self.learner.step
        due = due or step - self._evaluated_step >= self.eval_settings.every_steps
        if self._evaluating is None and due:
            # Its own copy of the network: the training checkpoints rotate away.
            path = save_network(self.run_dir / "eval" / "checkpoints", step, self.model_name,
                                self.learner.weights(), json.dumps(self.config),
                                model_config=self.model_config)
            self._evaluating = self.evaluator.evaluate.remote(str(path), step)
            self._evaluated_step = step

    def _collect_evaluation(self, wait: bool) -> None:
        if self._evaluating is None:
            return
        done, _ = ray.wait([self._evaluating], timeout=None if wait else 0)
        if not done:
            return
        point = ray.get(self._evaluating)
        self._evaluating = None
        step = point["step"]
        for key in ("win_rate", "ci_low", "ci_high", "mean_score", "opponent_mean_score"):
            self.writer.add_scalar(f"eval/{key}", point[key], step)
        self._say(f"evaluation of step {step}: win rate {point['win_rate']:.1%} "
                  f"[{point['ci_low']:.1%}, {point['ci_high']:.1%}] in {point['games']} games")

    def _finish_evaluations(self) -> None:
        """Wait for the evaluation under way and, if wanted, evaluate the last step too."""
        if self.evaluator is None:
            return
        self._collect_evaluation(wait=True)
        if self.eval_settings.final and self._evaluated_step < self.learner.step:
            self._evaluate_new_checkpoint(due=True)
            self._collect_evaluation(wait=True)

    def _self_play_phase(self, bar) -> None:
        """Play the games of the pending phase not yet in the buffer (all, unless resuming)."""
        c = self.counters
        done = ray.get(self.buffer.info.remote())["games"] - c["phase_start"]
        if c["pending_games"] - done > 0:
            self._play_games(c["pending_games"] - done, bar)
        c["pending_games"] = 0

    def _start_phase(self, games: int) -> None:
        # Recorded in a checkpoint, so that a run killed during the phase finishes it on resume.
        self.counters["pending_games"] = games
        self.counters["phase_start"] = ray.get(self.buffer.info.remote())["games"]
        self.checkpoint()

    def _train_paper(self, bar) -> None:
        s = self.schedule
        if self.learner.step == 0 and self.counters["pending_games"] == 0:
            self._start_phase(s.initial_games)
            self._say(f"filling the replay buffer: {s.initial_games} games")
        self._self_play_phase(bar)
        while self.learner.step < s.total_steps:
            next_batch = self.buffer.sample_batch.remote(self.learner_settings.batch_size)
            end = min(s.total_steps, (self.learner.step // s.steps_per_iteration + 1) * s.steps_per_iteration)
            while self.learner.step < end:
                batch_ref, next_batch = next_batch, (self.buffer.sample_batch.remote(
                    self.learner_settings.batch_size) if self.learner.step + 1 < end else None)
                metrics = self._train_step(batch_ref)
                bar.update(1)
                bar.set_postfix_str(f"loss {metrics['loss/total']:.3f} games {self.counters['games']}")
            if self.learner.step % self.schedule.checkpoint_every:
                self.checkpoint()
            if self.learner.step < s.total_steps:
                ray.get(self.buffer.drop_oldest.remote(s.games_per_iteration))
                self._publish()
                self._start_phase(s.games_per_iteration)
                self._self_play_phase(bar)

    def _train_async(self, bar) -> None:
        s = self.schedule
        running = {self._dispatch(w, s.games_per_task): w for w in self.workers}
        next_batch = None
        while self.learner.step < s.total_steps:
            done, _ = ray.wait(list(running), num_returns=len(running), timeout=0)
            for ref in done:
                worker = running.pop(ref)
                self._record_selfplay(ray.get(ref))
                running[self._dispatch(worker, s.games_per_task)] = worker
            allowed = self.counters["samples"] + self.learner_settings.batch_size <= \
                s.samples_per_position * self.counters["positions"]
            if not allowed or ray.get(self.buffer.info.remote())["games"] == 0:
                ray.wait(list(running), num_returns=1, timeout=1.0)  # wait for more games
                continue
            batch_ref = next_batch or self.buffer.sample_batch.remote(self.learner_settings.batch_size)
            next_batch = self.buffer.sample_batch.remote(self.learner_settings.batch_size)
            metrics = self._train_step(batch_ref)
            if self.learner.step % s.publish_every == 0:
                self._publish()
            bar.update(1)
            bar.set_postfix_str(f"loss {metrics['loss/total']:.3f} games {self.counters['games']}")
        for ref in running:  # let the games in flight reach the buffer
            self._record_selfplay(ray.get(ref))
        if self.learner.step % s.checkpoint_every:
            self.checkpoint()

    # ------------------------------------------------------------------ run
    def run(self) -> dict[str, Any]:
        """Train to ``total_steps`` (resuming if a checkpoint exists); return final counters."""
        self._start()
        try:
            with tqdm(total=self.schedule.total_steps, initial=self.learner.step, desc="training",
                      unit="step", disable=not self.progress) as bar:
                if self.schedule.schedule == "paper":
                    self._train_paper(bar)
                else:
                    self._train_async(bar)
            self._finish_evaluations()
            info = ray.get(self.buffer.info.remote())
            summary = {"step": self.learner.step, **self.counters, "buffer_games": info["games"],
                       "buffer_bytes": info["bytes"]}
            (self.run_dir / "summary.json").write_text(json.dumps(summary, indent=2))
            return summary
        finally:
            self.writer.close()
            if self._owns_ray:
                ray.shutdown()

