"""Shared test fixtures: reference data, a tiny training run's config, a local Ray session."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
CONF = Path(__file__).resolve().parents[1] / "conf"


@pytest.fixture(scope="session")
def pentobi_games() -> list[dict]:
    """200 random games from the Pentobi 30.3 engine (see tests/data/README.md)."""
    with open(DATA / "pentobi_random_games.jsonl") as f:
        return [json.loads(line) for line in f]


@dataclass(frozen=True)
class TinyRun:
    """A training run small enough for a test: 40 steps of 8 positions, self-play games of 4
    simulations, a checkpoint every 10 steps."""

    overrides: tuple[str, ...] = (
        "train.schedule=paper", "train.total_steps=40", "train.initial_games=6", "train.buffer_games=40",
        "train.steps_per_iteration=10", "train.games_per_iteration=3", "train.checkpoint_every=10",
        "train.log_every=5", "train.games_per_task=3", "search.simulations=4", "selfplay.games_in_parallel=3",
        "optimizer.batch_size=8", "progress=false")

    def config(self, run_dir: Path, *overrides: str) -> dict:
        """conf/'s run config with these overrides, ``run_dir`` and ``overrides`` (later ones win), resolved."""
        from hydra import compose, initialize_config_dir
        from omegaconf import OmegaConf

        with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
            cfg = compose("config", overrides=[*self.overrides, f"run_dir={run_dir}", *overrides])
        return OmegaConf.to_container(cfg, resolve=True)


@pytest.fixture(scope="session")
def tiny_run() -> TinyRun:
    return TinyRun()


@pytest.fixture(scope="module")
def ray_session():
    """A local Ray of 2 CPUs for the module's tests."""
    import ray

    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def pytest_configure(config):
    # Tests run Ray actors and worker processes beside the test process on 2 cores: one
    # math-library thread each avoids oversubscription (spinning threads slow runs down 5x).
    import torch

    torch.set_num_threads(1)
