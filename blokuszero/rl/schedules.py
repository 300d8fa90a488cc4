"""How self-play and learning alternate (``train.schedule``); each schedule drives a :class:`Trainer`.

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

from typing import TYPE_CHECKING

import ray

if TYPE_CHECKING:
    from .trainer import Trainer


def _self_play_phase(trainer: Trainer, bar) -> None:
    """Play the games of the pending phase not yet in the buffer (all, unless resuming)."""
    c = trainer.counters
    done = trainer.buffer_info()["games"] - c["phase_start"]
    if c["pending_games"] - done > 0:
        trainer.play_games(c["pending_games"] - done, bar)
    if not trainer.out_of_time():  # else the phase stays pending: a rerun with more time ends it
        c["pending_games"] = 0


def _start_phase(trainer: Trainer, games: int) -> None:
    trainer.counters["pending_games"] = games
    trainer.counters["phase_start"] = trainer.buffer_info()["games"]
    trainer.checkpoint()


def paper(trainer: Trainer, bar) -> None:
    """SPEC §3's schedule: fill, then alternate training and self-play phases."""
    s, batch_size = trainer.schedule, trainer.learner_settings.batch_size
    if trainer.learner.step == 0 and trainer.counters["pending_games"] == 0:
        _start_phase(trainer, s.initial_games)
        trainer.say(f"filling the replay buffer: {s.initial_games} games")
    _self_play_phase(trainer, bar)
    while not trainer.should_stop():
        next_batch = trainer.buffer.sample_batch.remote(batch_size)
        end = min(s.total_steps, (trainer.learner.step // s.steps_per_iteration + 1) * s.steps_per_iteration)
        while trainer.learner.step < end and not trainer.out_of_time():
            # The next batch is sampled while this one trains.
            batch_ref, next_batch = next_batch, (trainer.buffer.sample_batch.remote(batch_size)
                                                 if trainer.learner.step + 1 < end else None)
            trainer.train_step(batch_ref, bar)
        if trainer.learner.step % s.checkpoint_every:
            trainer.checkpoint()
        if not trainer.should_stop():
            ray.get(trainer.buffer.drop_oldest.remote(s.games_per_iteration))
            trainer.publish()
            _start_phase(trainer, s.games_per_iteration)
            _self_play_phase(trainer, bar)


def asynchronous(trainer: Trainer, bar) -> None:
    """Self-play and learning at once, at most ``samples_per_position`` samples per position."""
    s, batch_size = trainer.schedule, trainer.learner_settings.batch_size
    running = {trainer.dispatch(w, s.games_per_task): w for w in trainer.workers}
    next_batch = None
    while not trainer.should_stop():
        done, _ = ray.wait(list(running), num_returns=len(running), timeout=0)
        for ref in done:
            worker = running.pop(ref)
            trainer.record_selfplay(ray.get(ref))
            running[trainer.dispatch(worker, s.games_per_task)] = worker
        allowed = trainer.counters["samples"] + batch_size <= s.samples_per_position * trainer.counters["positions"]
        if not allowed or trainer.buffer_info()["games"] == 0:
            ray.wait(list(running), num_returns=1, timeout=1.0)  # wait for more games
            continue
        batch_ref = next_batch or trainer.buffer.sample_batch.remote(batch_size)
        next_batch = trainer.buffer.sample_batch.remote(batch_size)
        trainer.train_step(batch_ref, bar)
        if trainer.learner.step % s.publish_every == 0:
            trainer.publish()
    if trainer.out_of_time():  # games in flight would come after the last update: dropped
        trainer.stop_selfplay(running)
        return
    for ref in running:  # let the games in flight reach the buffer
        trainer.record_selfplay(ray.get(ref))


SCHEDULES = {"paper": paper, "async": asynchronous}
