"""Evaluation during training: a Ray actor plays a small match for new checkpoints.

The trainer hands the evaluator the network of a new checkpoint (saved to ``run_dir/eval/
checkpoints``, since the training checkpoints rotate) whenever the evaluator is idle and at
least ``every_steps`` steps have passed since the last one; the evaluator plays the match of
:mod:`blokuszero.match.evaluation` (1 BlokusZero seat vs the opponent in every other seat: 3 in
Blokus; stored and resumable
in ``run_dir/eval/<run>@<step>/``) and the trainer logs ``eval/win_rate`` and its interval.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ray

from ..match.evaluation import Candidate, evaluate
from .config import EvalSettings


class Evaluator:
    """Plays evaluation matches for one run; results stay in ``run_dir/eval``."""

    def __init__(self, settings: EvalSettings, run_dir: str, run_name: str, seed: int,
                 puct: dict[str, Any], game: str) -> None:
        self.settings = settings
        self.game = game  # a registry name: the network's seat against opponents in all the others
        self.puct = dict(puct)  # the run's c_base, c_init, q_init: the network searches as in self-play
        self.out_dir = Path(run_dir) / "eval"
        self.run_name = run_name
        self.seed = seed

    def evaluate(self, network_path: str, step: int) -> dict[str, Any]:
        """Play the match for the network saved at ``network_path``; return its curve point."""
        s = self.settings
        candidate = Candidate(step, f"{self.run_name}@{step}", {"checkpoint": network_path})
        network = {"preset": "alphazero", "simulations": s.simulations, "device": s.device, **self.puct}
        # Every evaluation plays the same seeds: differences between steps are not the openings'.
        return evaluate([candidate], network, s.opponent, s.games, self.seed, self.out_dir,
                        s.random_opening_moves, self.game, workers=s.workers, progress=False, resume=True)[0]


RemoteEvaluator = ray.remote(max_restarts=-1, max_task_retries=-1)(Evaluator)
