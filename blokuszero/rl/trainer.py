"""Training orchestration: self-play actors, the buffer actor and the learner on Ray.

A newcomer reads four files: :mod:`.config` (every setting, its range and meaning),
:mod:`.schedules` (how self-play and learning alternate), :mod:`.metrics` (what TensorBoard
shows) and this one, which starts or resumes a run and owns what the schedules share: the
learner, the actors, the buffer, checkpoints and the evaluator. Its helpers: :mod:`.placement`
(the GPU layout and the learner's GPU), :mod:`.resume` (the config kept at each start, the
checkpoint's shape checked) and :mod:`.evaluation_schedule` (when the evaluator plays).

The learner runs in this (the driver's) process; self-play actors get the newest weights with
each task (a batch of games) and push finished games to the buffer actor, from which the
learner pulls sampled batches, one ahead. The buffer and the evaluator write the run directory,
so they are pinned to the driver's node; losing another node costs only its actors.

Everything needed to go on after a crash is in the newest checkpoint of ``run_dir`` and in
the buffer's shards; :meth:`Trainer.run` resumes from them. The buffer is the one source of
truth for how many games and positions were played (it counts every game that reached it,
including those that landed after the newest checkpoint). A run that has reached
``train.total_steps`` says so and changes nothing. With ``eval.enabled``, an evaluator actor
plays a small match for new checkpoints (see :mod:`blokuszero.match.evaluation`). ``train.max_minutes`` bounds
the run's wall-clock time (every start together, counted in the checkpoints), and
``train.curve_every_minutes`` keeps networks for a learning curve in ``run_dir/curve/``.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import ray
import torch
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy
from tqdm import tqdm

from ..cluster import start_ray
from ..files import write_atomic
from ..games.registry import make_encoder
from ..nn.checkpoint import latest_checkpoint, save_checkpoint, save_network, start_weights
from ..nn.model import build_model
from .actors import RemoteBuffer, RemoteCheckpointEvaluator, RemoteSelfPlayWorker
from .config import RunConfig, load_run_config
from .evaluation_schedule import EvaluationSchedule
from .game_samples import GameSampler
from .learner import Learner
from .metrics import Metrics
from .placement import check_gpus, reserve_learner_gpu
from .resume import archive_config, config_changes, shape_mismatch, wrong_shape
from .schedules import SCHEDULES, Counters
from .selfplay import SelfPlaySettings

_clock = time.monotonic  # the run's wall clock (tests may speed it up)


class Trainer:
    """Runs (or resumes) one training run in ``run_dir`` from a resolved config dict.

    The config is checked against :class:`.config.RunConfig` here, before anything is started
    or written: a bad setting is a ValueError naming it.
    """

    def __init__(self, config: dict[str, Any], run_dir: str | Path, progress: bool = True) -> None:
        self.settings: RunConfig = load_run_config(config)
        self.config = config
        self.run_dir = Path(run_dir)
        self.progress = progress
        s = self.settings
        self.model_name = s.model.name
        self.game = s.game.name  # a registry name: blokus, go9, ...
        self.search = SelfPlaySettings(**dataclasses.asdict(s.search), **dataclasses.asdict(s.selfplay))
        self.learner_settings = s.optimizer
        self.batch_size = s.optimizer.batch_size  # samples per learner step
        self.schedule = s.train
        self.hardware = s.hardware
        self.eval_settings = s.eval
        self.seed = s.seed
        self.finished: dict[str, Any] | None = None

    # ------------------------------------------------------------------ set-up
    def _start(self) -> None:
        """Resume or begin: learner, counters, Ray, buffer, actors, evaluator. Sets
        :attr:`finished` (and starts nothing, writes nothing) if the run is already done."""
        hw = self.hardware
        if hw.learner_threads:
            torch.set_num_threads(hw.learner_threads)
        torch.manual_seed(self.seed)
        weight = self.schedule.score_weight
        # Built on the CPU (a checkpoint loads there); moved to its device once Ray has given
        # it a GPU (see _place_learner).
        self.learner = Learner(build_model(self.model_name, self.game, score_head=weight > 0),
                               self.learner_settings, "cpu", score_weight=weight)
        # The network's shape, stored with every checkpoint (see nn.checkpoint.load_network).
        self.model_config = dataclasses.asdict(self.learner.model.config)
        self.counters = Counters()
        self._clock_start = _clock()
        self.games_by_node: dict[str, int] = {}  # this start's self-play games by Ray node id
        # The network the run started from (train.init_from's path and sha256), None for a
        # random one: stored in config.json and every checkpoint, so its lineage can be traced.
        self.init_from: dict[str, Any] | None = None
        self.actor_gpu_peak = 0  # the most GPU memory (bytes) one actor's allocator held, this start
        self.last_losses: dict[str, float] = {}  # the learner's figures of its latest step
        found = latest_checkpoint(self.run_dir / "checkpoints", report=self.say)
        buffer_rng = None
        if found is not None:
            buffer_rng = self._resume(*found)
            if self.learner.step >= self.schedule.total_steps or self.out_of_time():
                self.finished = self._finished_summary()
                return
        elif self.schedule.init_from is not None:
            # Grown into the run's model (train.init_grow), its new channels and blocks start from
            # the run's own seeded initialisation.
            fresh = self.learner.model.state_dict() if self.schedule.init_grow else None
            weights, self.init_from = start_weights(self.schedule.init_from, self.model_config, fresh)
            self.learner.model.load_state_dict(weights)  # only the weights: optimiser fresh, step 0
            grown = (f", grown from {self.init_from['model_name']} into {self.model_name}"
                     if self.init_from.get("grown") else "")
            self.say(f"starting from the network in {self.schedule.init_from} (sha256 "
                     f"{self.init_from['sha256'][:16]}, its step {self.init_from['step']}): its weights{grown}, "
                     f"a fresh optimiser, step 0")
        self._owns_ray = start_ray(hw.ray_address, hw.num_cpus)
        # The buffer and the evaluator write into the run directory, which is on this machine:
        # on a cluster they must run on this node (and so survive the loss of any other node).
        here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)
        try:  # a layout the cluster cannot hold is refused before anything is written
            check_gpus(self.hardware, self.eval_settings)
            # The learner trains in this process, which Ray does not place: its GPU is reserved
            # before the actors start, so that none of them shares it.
            self.learner_reservation, self.learner_gpu_ids, device = reserve_learner_gpu(self.hardware, here)
        except ValueError:
            if self._owns_ray:
                ray.shutdown()
            raise
        self.learner.to(device)
        archive_config(self.run_dir, self.config, self.init_from, self.learner.step)
        self.buffer = RemoteBuffer.options(scheduling_strategy=here).remote(
            self.game, self.schedule.buffer_games, str(self.run_dir / "buffer"),
                                          self.seed, self.schedule.augment, self.schedule.value_target)
        if buffer_rng is not None:
            ray.get(self.buffer.set_rng_state.remote(buffer_rng))
        self._count_from_buffer(report=found is not None)
        self.workers = [
            RemoteSelfPlayWorker.options(num_cpus=hw.threads_per_actor, num_gpus=hw.gpus_per_actor,
                                         scheduling_strategy="SPREAD").remote(
                self.game, self.model_name, self.search,
                int(np.random.SeedSequence([self.seed, i, self.learner.step]).generate_state(1)[0]),
                hw.actor_device, hw.half, hw.cache_size, hw.threads_per_actor,
                self.schedule.score_weight > 0, hw.actor_backend)
            for i in range(hw.actors)]
        encoder = make_encoder(self.game)
        self.metrics = Metrics(str(self.run_dir / "tensorboard"), encoder)
        self.samples = GameSampler(self.run_dir / "games", encoder, self.schedule.keep_games_every,
                                   self.counters.games)
        self.evaluations = None
        if self.eval_settings.enabled:
            ev = self.eval_settings
            evaluator = RemoteCheckpointEvaluator.options(num_cpus=ev.num_cpus, num_gpus=ev.num_gpus,
                                                          scheduling_strategy=here).remote(
                ev, str(self.run_dir), self.run_dir.name, self.seed,
                {k: getattr(self.search, k) for k in ("c_base", "c_init", "q_init")}, self.game)
            self.evaluations = EvaluationSchedule(evaluator, ev, self.learner.step,
                                                  self._keep_for_evaluation, self._log_evaluation)
        self.publish()

    def _resume(self, path: Path, state: dict) -> dict:
        """Load the checkpoint ``state``; say which settings differ from its run's. Returns the
        buffer's sampling generator state."""
        mismatch = shape_mismatch(path, state, self.model_name, self.model_config)
        if mismatch is not None:
            raise ValueError(mismatch)
        try:
            self.learner.load_state_dict(state["learner"])
        except RuntimeError as err:  # checkpoints written before shapes were stored
            raise ValueError(f"{wrong_shape(path, state['model_name'], self.model_name)}. {err}") from None
        self.counters = Counters(**state["counters"])  # older ones lack seconds and curve_points
        self._clock_start = _clock()
        torch.set_rng_state(state["rng"]["torch"])
        self.init_from = state.get("init_from")  # the run's own lineage, whatever the setting says now
        self.say(f"resumed from {path.name}: step {self.learner.step}, {self.counters.games} games played")
        if self.schedule.init_from is not None:
            started = (f"it started from {self.init_from['path']} (sha256 {self.init_from['sha256'][:16]})"
                       if self.init_from else "it started from a random network")
            self.say(f"train.init_from={self.schedule.init_from} is ignored: the run resumes from its "
                     f"own checkpoint ({started})")
        if "config" in state:
            changes = config_changes(json.loads(state["config"]), self.config)
            if changes:
                self.say(f"settings that differ from {path.name}'s: " + "; ".join(changes))
        return state["rng"]["buffer"]

    def _finished_summary(self) -> dict[str, Any]:
        s = self.schedule
        if self.learner.step >= s.total_steps:
            self.say(f"run {self.run_dir} is finished: step {self.learner.step} of train.total_steps="
                     f"{s.total_steps}; nothing to do (to extend it, set train.total_steps higher)")
        else:
            self.say(f"run {self.run_dir} is finished: {self.counters.seconds / 60:.1f} minutes of "
                     f"train.max_minutes={s.max_minutes:g} used; nothing to do (to extend it, set "
                     f"train.max_minutes higher)")
        summary_path = self.run_dir / "summary.json"
        if summary_path.is_file():
            return json.loads(summary_path.read_text())
        return {"step": self.learner.step, **dataclasses.asdict(self.counters)}

    def _count_from_buffer(self, report: bool) -> None:
        """Games and positions played: what the buffer has received (the one source of truth)."""
        info = self.buffer_info()
        games, positions = info["games_added"], info["positions_added"]
        # Shards written before the buffer kept totals know only the games still in them.
        c = self.counters
        games, positions = max(games, c.games), max(positions, c.positions)
        if report and games != c.games:
            self.say(f"the buffer holds {games - c.games} games played after the "
                     f"checkpoint: {games} games played in all")
        c.games, c.positions = games, positions

    def elapsed(self) -> float:
        """Wall-clock seconds of the run: every earlier start and this one so far."""
        return self.counters.seconds + _clock() - self._clock_start

    def out_of_time(self) -> bool:
        """Whether the run has used its ``train.max_minutes`` (never, when that is 0)."""
        limit = self.schedule.max_minutes
        return limit > 0 and self.elapsed() >= 60 * limit

    def should_stop(self) -> bool:
        """The run's end: ``total_steps`` reached or out of time."""
        return self.learner.step >= self.schedule.total_steps or self.out_of_time()

    def stop_selfplay(self, tasks: Iterable[ray.ObjectRef]) -> None:
        """End the self-play actors now, dropping their unfinished games (the run is out of time:
        games the learner would never train on are not worth waiting for). Each game reaches the
        buffer whole or not at all. ``tasks``: their running tasks, cancelled first so that Ray
        does not retry them."""
        for task in tasks:
            ray.cancel(task)
        for worker in self.workers:
            ray.kill(worker, no_restart=True)
        self.workers = []

    def say(self, text: str) -> None:
        tqdm.write(f"[train] {text}")

    @property
    def step(self) -> int:
        """Learner steps taken."""
        return self.learner.step

    def sample_batch(self) -> ray.ObjectRef:
        """A batch sampled from the buffer (a reference: it is drawn while another trains)."""
        return self.buffer.sample_batch.remote(self.batch_size)

    def games_in_buffer(self) -> int:
        """Games the buffer holds now."""
        return self.buffer_info()["games"]

    def drop_oldest(self, games: int) -> None:
        """Drop the buffer's ``games`` oldest games."""
        ray.get(self.buffer.drop_oldest.remote(games))

    def buffer_info(self) -> dict[str, int]:
        return ray.get(self.buffer.info.remote())

    def publish(self) -> None:
        """Make the learner's weights the newest version (one object for all actors)."""
        self.version = self.learner.step
        self.weights_ref = ray.put(self.learner.weights())

    # ------------------------------------------------------------------ self-play
    def dispatch(self, worker, games: int):
        """Start a task of ``games`` games on ``worker`` with the newest weights."""
        # The buffer's handle goes with each task, not to the actor's constructor: Ray cannot
        # promise a restarted actor the handles it was made with (and says so in an error line).
        return worker.play.remote(games, self.weights_ref, self.version, self.buffer)

    def record_selfplay(self, stats: dict) -> None:
        """Log a finished task; its games are in the buffer, which counts them."""
        self.games_by_node[stats["node"]] = self.games_by_node.get(stats["node"], 0) + stats["games"]
        self.actor_gpu_peak = max(self.actor_gpu_peak, stats.get("gpu_peak_bytes", 0))
        self._count_from_buffer(report=False)
        self.metrics.selfplay(stats, self.learner.step, self.version)
        self.samples.add(stats["finished"], f"step {self.learner.step}, weights version {stats['version']}")

    def play_games(self, games: int, bar) -> None:
        """Play ``games`` games on all actors with the current weights and wait for them."""
        chunks = [min(self.schedule.games_per_task, games - i)
                  for i in range(0, games, self.schedule.games_per_task)]
        idle = list(self.workers)
        running: dict = {}
        while chunks or running:
            if self.out_of_time():
                self.stop_selfplay(running)
                return
            while chunks and idle:
                worker = idle.pop()
                running[self.dispatch(worker, chunks.pop())] = worker
            done, _ = ray.wait(list(running), num_returns=1)
            idle.append(running.pop(done[0]))
            self.record_selfplay(ray.get(done[0]))
            bar.set_postfix_str(f"games {self.counters.games}")

    # ------------------------------------------------------------------ learning
    def train_step(self, batch_ref, bar) -> dict:
        """One learner update on a sampled batch; log, checkpoint when due."""
        metrics = self.last_losses = self.learner.train_step(ray.get(batch_ref))
        self.counters.samples += self.batch_size
        step = self.learner.step
        if step % self.schedule.log_every == 0:
            self.metrics.training(metrics, self.buffer_info(), step)
        if step % self.schedule.checkpoint_every == 0:
            self.checkpoint()
        self._keep_for_curve()
        bar.update(1)
        bar.set_postfix_str(f"loss {metrics['loss/total']:.3f} games {self.counters.games}")
        return metrics

    def checkpoint(self) -> Path:
        """Save everything needed to resume (the buffer's games are in its shards)."""
        ray.get(self.buffer.flush.remote())
        self._count_from_buffer(report=False)
        self.counters.seconds, self._clock_start = self.elapsed(), _clock()
        payload = {"learner": self.learner.state_dict(), "counters": dataclasses.asdict(self.counters),
                   "rng": {"torch": torch.get_rng_state(),
                           "buffer": ray.get(self.buffer.rng_state.remote())},
                   "model_name": self.model_name,
                   "model_config": self.model_config,
                   "config": json.dumps(self.config)}
        if self.init_from is not None:
            payload["init_from"] = self.init_from
        path = save_checkpoint(self.run_dir / "checkpoints", self.learner.step, payload,
                               self.schedule.keep_checkpoints)
        if self.evaluations is not None:
            self.evaluations.after_checkpoint(self.learner.step)
        self.metrics.flush()
        return path

    def _keep_for_curve(self, last: bool = False) -> None:
        """Keep the network in ``run_dir/curve/checkpoints`` once each ``curve_every_minutes`` of
        wall-clock time (a point missed while no step was made is not made up) and, if ``last``,
        at the end of the run."""
        every = self.schedule.curve_every_minutes
        if every <= 0:
            return
        due = int(self.elapsed() // (60 * every))
        if due > self.counters.curve_points or last:
            save_network(self.run_dir / "curve" / "checkpoints", self.learner.step, self.model_name,
                         self.learner.weights(), json.dumps(self.config), model_config=self.model_config,
                         init_from=self.init_from)
            self.counters.curve_points = max(due, self.counters.curve_points)
            self.say(f"kept the network of step {self.learner.step} for the curve "
                     f"({self.elapsed() / 60:.1f} minutes)")

    # ------------------------------------------------------------------ evaluation
    def _keep_for_evaluation(self, step: int) -> Path:
        """The learner's network of ``step`` in ``run_dir/eval/checkpoints``, for the evaluator."""
        return save_network(self.run_dir / "eval" / "checkpoints", step, self.model_name,
                            self.learner.weights(), json.dumps(self.config),
                            model_config=self.model_config, init_from=self.init_from)

    def _log_evaluation(self, point: dict) -> None:
        self.metrics.evaluation(point)
        self.say(f"evaluation of step {point['step']}: win rate {point['win_rate']:.1%} "
                 f"[{point['ci_low']:.1%}, {point['ci_high']:.1%}] (equal seat {point['equal_seat']:.1%}) "
                 f"in {point['games']} games")

    # ------------------------------------------------------------------ run
    def run(self) -> dict[str, Any]:
        """Train to ``total_steps`` (resuming if a checkpoint exists); return final counters."""
        self._start()
        if self.finished is not None:
            return self.finished
        try:
            with tqdm(total=self.schedule.total_steps, initial=self.learner.step, desc="training",
                      unit="step", disable=not self.progress) as bar:
                SCHEDULES[self.schedule.schedule](self, bar)
                # Every game is in the buffer now: the last checkpoint counts them all, and the
                # bar ends showing that count, as the summary does.
                self._keep_for_curve(last=True)
                self.checkpoint()
                loss = f"loss {self.last_losses['loss/total']:.3f} " if self.last_losses else ""
                bar.set_postfix_str(f"{loss}games {self.counters.games}")
            if self.evaluations is not None:
                self.evaluations.finish(self.learner.step)
            info = self.buffer_info()
            device = self.learner.device
            learner_peak = int(torch.cuda.max_memory_reserved(device)) if device.type == "cuda" else 0
            summary = {"step": self.learner.step, **dataclasses.asdict(self.counters), "buffer_games": info["games"],
                       "buffer_bytes": info["bytes"], "games_by_node": self.games_by_node,
                       "learner_device": str(device), "learner_gpu_ids": self.learner_gpu_ids,
                       # this start's peaks of the CUDA allocators (0 off CUDA): the learner's,
                       # and the largest of one actor's (from its finished tasks)
                       "gpu_peak_bytes": {"learner": learner_peak, "actor": self.actor_gpu_peak},
                       # the learner's last losses, and how many self-play games run_dir/games keeps
                       "losses": {k: v for k, v in self.last_losses.items() if k.startswith("loss/")},
                       "games_kept": len(list((self.run_dir / "games").glob("selfplay_*")))}
            write_atomic(self.run_dir / "summary.json", json.dumps(summary, indent=2))
            return summary
        finally:
            self.metrics.close()
            if self._owns_ray:
                ray.shutdown()
            elif self.learner_reservation is not None:  # Ray goes on: give the GPU share back
                ray.kill(self.learner_reservation)
