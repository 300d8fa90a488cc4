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
