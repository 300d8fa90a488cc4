"""Ray actors: self-play workers, the replay buffer and the evaluator of new checkpoints.

Self-play actors restart when they die (``max_restarts=-1``) and their unfinished task is run
again (``max_task_retries=-1``); a restarted actor draws fresh seeds so that it does not play
the games it already sent.
"""

from __future__ import annotations

import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import ray
import torch

from ..games.registry import make_encoder, make_game
from ..match.evaluation import Candidate, evaluate
from ..nn.evaluator import NetworkEvaluator
from ..nn.model import build_model
from .config import EvalSettings
from .expert_iteration import ExpertIterationSelfPlay
from .replay import ReplayBuffer, TrainingBatch
from .selfplay import LockstepSelfPlay, SelfPlaySettings


class SelfPlayWorker:
    """Plays games of ``game`` (a registry name) with the newest weights it was given and sends
    them to the buffer."""

    def __init__(self, game: str, model_name: str, settings: SelfPlaySettings, seed: int,
                 device: str = "cpu", half: bool = False, cache_size: int = 0, threads: int = 1,
                 score_head: bool = False, backend: str = "torch") -> None:
        torch.set_num_threads(threads)
        context = ray.get_runtime_context()
        if context.was_current_actor_reconstructed:
            seed = int(np.random.SeedSequence([seed, time.time_ns()]).generate_state(1)[0])
        rules = make_game(game)
        # The learner's shape (its weights load here); the score head is not used in search.
        self.evaluator = NetworkEvaluator(build_model(model_name, game, score_head=score_head),
                                          make_encoder(rules),
                                          device=device, half=half, cache_size=cache_size, backend=backend)
        selfplay = ExpertIterationSelfPlay if settings.leaf_playouts else LockstepSelfPlay
        self.selfplay = selfplay(rules, self.evaluator, settings, seed)
        self.version = -1

    def play(self, num_games: int, weights: dict, version: int, buffer) -> dict:
        """Play ``num_games`` games with weights ``version``, each sent to the ``buffer`` actor
        as it ends; return the statistics."""
        if version != self.version:
            self.evaluator.set_weights(weights, version)
            self.selfplay.weights_version = version
            self.version = version
        pending, finished = [], []

        def on_game(record) -> None:
            pending.append(buffer.add.remote(record))
            finished.append((record.players, record.actions))  # for the run's sample of games
        stats = self.selfplay.play(num_games, on_game=on_game)
        ray.get(pending)  # the games are in the buffer before the task reports done
        out = {k: v for k, v in asdict(stats).items() if k != "last_game"}
        out["last_game"] = stats.last_game
        out["finished"] = finished
        out["version"] = version
        out["node"] = ray.get_runtime_context().get_node_id()
        out["gpu_peak_bytes"] = _gpu_peak_bytes(self.evaluator.device)
        return out

    def placement(self) -> dict:
        """Where Ray put this actor: its node, the GPU ids and resources Ray assigned it, its
        torch threads and its network's device."""
        context = ray.get_runtime_context()
        return {"node": context.get_node_id(), "gpu_ids": [str(i) for i in ray.get_gpu_ids()],
                "resources": context.get_assigned_resources(), "threads": torch.get_num_threads(),
                "device": str(self.evaluator.device)}


def _gpu_peak_bytes(device: torch.device) -> int:
    """The most memory this process's CUDA allocator has held on ``device`` (0 off CUDA)."""
    return int(torch.cuda.max_memory_reserved(device)) if device.type == "cuda" else 0


class GpuReservation:
    """Holds a Ray GPU share for the learner, which trains in the driver process (not in a Ray
    worker): while this actor lives, Ray places no other actor on that share."""

    def gpu_ids(self) -> list[str]:
        return [str(i) for i in ray.get_gpu_ids()]


class BufferActor(ReplayBuffer):
    """The replay buffer of ``game`` (a registry name) as a Ray actor, with its own sampling
    generator."""

    def __init__(self, game: str, capacity: int, directory: str, seed: int, augment: bool,
                 value_target: str) -> None:
        super().__init__(capacity, make_encoder(game), directory, value_target=value_target)
        self.rng = np.random.default_rng(seed)
        self.augment = augment

    def sample_batch(self, batch_size: int) -> TrainingBatch:
        return self.sample(batch_size, self.rng, self.augment)

    def info(self) -> dict:
        return {"games": self.num_games, "positions": self.num_positions,
                "games_added": self.games_added, "positions_added": self.positions_added,
                "bytes": self.nbytes}

    def rng_state(self) -> dict:
        return self.rng.bit_generator.state

    def set_rng_state(self, state: dict) -> None:
        self.rng.bit_generator.state = state


RemoteSelfPlayWorker = ray.remote(max_restarts=-1, max_task_retries=-1)(SelfPlayWorker)
RemoteBuffer = ray.remote(BufferActor)
RemoteGpuReservation = ray.remote(num_cpus=0)(GpuReservation)


# Evaluation during training: the trainer hands the evaluator the network of a new checkpoint
# (saved to run_dir/eval/checkpoints, since the training checkpoints rotate) whenever it is idle
# and at least every_steps steps have passed; it plays the match of blokuszero.match.evaluation
# (1 BlokusZero seat vs the opponent in every other seat, stored and resumable in
# run_dir/eval/<run>@<step>/) and the trainer logs eval/win_rate and its interval.


class CheckpointEvaluator:
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


RemoteCheckpointEvaluator = ray.remote(max_restarts=-1, max_task_retries=-1)(CheckpointEvaluator)
