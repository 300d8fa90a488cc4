"""When a run's evaluator plays: new checkpoints handed to the evaluator actor (one at a time,
every ``eval.every_steps`` steps), its results logged, and the last step evaluated at the end."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import ray

from .config import EvalSettings


class EvaluationSchedule:
    """Drives the ``evaluator`` actor (:class:`~.actors.CheckpointEvaluator`) from the learner's
    steps. ``keep_network(step)`` writes the network of ``step`` where the evaluator reads it
    (its own copy: the training checkpoints rotate away); ``log(point)`` takes each result."""

    def __init__(self, evaluator, settings: EvalSettings, step: int,
                 keep_network: Callable[[int], Path], log: Callable[[dict], None]) -> None:
        self.evaluator = evaluator
        self.settings = settings
        self.keep_network = keep_network
        self.log = log
        self.evaluating: ray.ObjectRef | None = None
        self.evaluated_step = step

    def after_checkpoint(self, step: int, due: bool = False) -> None:
        """Log a finished evaluation; give the idle evaluator the network of ``step`` when at
        least ``every_steps`` steps have passed or it is ``due`` (a checkpoint that comes while it
        is busy is skipped)."""
        self.collect(wait=False)
        due = due or step - self.evaluated_step >= self.settings.every_steps
        if self.evaluating is None and due:
            self.evaluating = self.evaluator.evaluate.remote(str(self.keep_network(step)), step)
            self.evaluated_step = step

    def collect(self, wait: bool) -> None:
        """Log the evaluation under way if it has finished (``wait``: wait for it)."""
        if self.evaluating is None:
            return
        done, _ = ray.wait([self.evaluating], timeout=None if wait else 0)
        if not done:
            return
        point = ray.get(self.evaluating)
        self.evaluating = None
        self.log(point)

    def finish(self, step: int) -> None:
        """Wait for the evaluation under way and, with ``eval.final``, evaluate ``step`` too."""
        self.collect(wait=True)
        if self.settings.final and self.evaluated_step < step:
            self.after_checkpoint(step, due=True)
            self.collect(wait=True)
