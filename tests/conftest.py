"""Shared test fixtures: reference data paths."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="session")
def pentobi_games() -> list[dict]:
    """200 random games from the Pentobi 30.3 engine (see tests/data/README.md)."""
    with open(DATA / "pentobi_random_games.jsonl") as f:
        return [json.loads(line) for line in f]


def pytest_configure(config):
    # Tests run Ray actors and worker processes beside the test process on 2 cores: one
    # math-library thread each avoids oversubscription (spinning threads slow runs down 5x).
    import torch

    torch.set_num_threads(1)
