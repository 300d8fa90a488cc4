"""How self-play and learning alternate (``train.schedule``); each schedule drives a
:class:`~.trainer.Trainer`.

- ``paper`` (SPEC §3): fill the buffer with ``initial_games`` games, then repeat: train
  ``steps_per_iteration`` steps, drop the oldest ``games_per_iteration`` games, play as many
  new ones with the new weights. The phase under way is recorded in each checkpoint
  (``pending_games``, ``phase_start``), so a run killed during a phase finishes it on resume.
- ``async``: actors play all the time with the newest weights they were given; the learner
  trains while (samples trained) / (positions played) stays at or below
  ``samples_per_position``, and publishes weights every ``publish_every`` steps.

Both stop at ``total_steps`` or when the run is out of time (``train.max_minutes``), and end with
every game in flight in the buffer (out of time: unfinished games are dropped); the trainer then
writes the final checkpoint.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

import ray

from .config import ScheduleSettings


@dataclass
class Counters:
    """What a run has done so far, stored in every checkpoint."""

    games: int = 0  # self-play games played (as the buffer received them)
    positions: int = 0  # their positions
    samples: int = 0  # samples the learner has trained on
    pending_games: int = 0  # the paper schedule's self-play phase under way: games it plays ...
    phase_start: int = 0  # ... and the buffer's game count when it started
    seconds: float = 0.0  # wall-clock time of every earlier start
    curve_points: int = 0  # curve networks kept so far


class Driver(Protocol):
    """What a schedule drives: a :class:`~blokuszero.rl.trainer.Trainer`."""

    schedule: ScheduleSettings
    counters: Counters
    workers: list
    batch_size: int  # samples per learner step

    @property
    def step(self) -> int:
        """Learner steps taken."""

    def sample_batch(self) -> ray.ObjectRef:
        """A batch sampled from the buffer (a reference, drawn while another batch trains)."""

    def train_step(self, batch_ref: ray.ObjectRef, bar) -> dict: ...

    def games_in_buffer(self) -> int: ...

    def drop_oldest(self, games: int) -> None: ...

    def play_games(self, games: int, bar) -> None: ...

    def dispatch(self, worker, games: int) -> ray.ObjectRef: ...

    def record_selfplay(self, stats: dict[str, Any]) -> None: ...

    def stop_selfplay(self, tasks: Iterable[ray.ObjectRef]) -> None: ...

    def publish(self) -> None: ...

    def checkpoint(self) -> Any: ...

    def out_of_time(self) -> bool: ...

    def should_stop(self) -> bool: ...

    def say(self, text: str) -> None: ...


def _self_play_phase(trainer: Driver, bar) -> None:
    """Play the games of the pending phase not yet in the buffer (all, unless resuming)."""
    c = trainer.counters
    done = trainer.games_in_buffer() - c.phase_start
    if c.pending_games - done > 0:
        trainer.play_games(c.pending_games - done, bar)
    if not trainer.out_of_time():  # else the phase stays pending: a rerun with more time ends it
        c.pending_games = 0


def _start_phase(trainer: Driver, games: int) -> None:
    trainer.counters.pending_games = games
    trainer.counters.phase_start = trainer.games_in_buffer()
    trainer.checkpoint()


def paper(trainer: Driver, bar) -> None:
    """SPEC §3's schedule: fill, then alternate training and self-play phases."""
    s = trainer.schedule
    if trainer.step == 0 and trainer.counters.pending_games == 0:
        _start_phase(trainer, s.initial_games)
        trainer.say(f"filling the replay buffer: {s.initial_games} games")
    _self_play_phase(trainer, bar)
    while not trainer.should_stop():
        next_batch = trainer.sample_batch()
        end = min(s.total_steps, (trainer.step // s.steps_per_iteration + 1) * s.steps_per_iteration)
        while trainer.step < end and not trainer.out_of_time():
            # The next batch is sampled while this one trains.
            batch_ref, next_batch = next_batch, (trainer.sample_batch() if trainer.step + 1 < end else None)
            trainer.train_step(batch_ref, bar)
        if trainer.step % s.checkpoint_every:
            trainer.checkpoint()
        if not trainer.should_stop():
            trainer.drop_oldest(s.games_per_iteration)
            trainer.publish()
            _start_phase(trainer, s.games_per_iteration)
            _self_play_phase(trainer, bar)


def asynchronous(trainer: Driver, bar) -> None:
    """Self-play and learning at once, at most ``samples_per_position`` samples per position."""
    s = trainer.schedule
    running = {trainer.dispatch(w, s.games_per_task): w for w in trainer.workers}
    next_batch = None
    while not trainer.should_stop():
        done, _ = ray.wait(list(running), num_returns=len(running), timeout=0)
        for ref in done:
            worker = running.pop(ref)
            trainer.record_selfplay(ray.get(ref))
            running[trainer.dispatch(worker, s.games_per_task)] = worker
        c = trainer.counters
        allowed = c.samples + trainer.batch_size <= s.samples_per_position * c.positions
        if not allowed or trainer.games_in_buffer() == 0:
            ray.wait(list(running), num_returns=1, timeout=1.0)  # wait for more games
            continue
        batch_ref = next_batch or trainer.sample_batch()
        next_batch = trainer.sample_batch()
        trainer.train_step(batch_ref, bar)
        if trainer.step % s.publish_every == 0:
            trainer.publish()
    if trainer.out_of_time():  # games in flight would come after the last update: dropped
        trainer.stop_selfplay(running)
        return
    for ref in running:  # let the games in flight reach the buffer
        trainer.record_selfplay(ray.get(ref))


SCHEDULES = {"paper": paper, "async": asynchronous}
