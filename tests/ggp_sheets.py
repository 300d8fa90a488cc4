"""Where the GDL rule sheets (../shared/data/ggp, not in the repository) are found, and a
cache of their compiled games so that each sheet is grounded once per test session."""

from __future__ import annotations

import functools
import os
from pathlib import Path

import pytest

_CANDIDATES = [os.environ.get("BLOKUSZERO_GGP_RULES", ""),
               str(Path(__file__).resolve().parents[1].parent / "shared" / "data" / "ggp"),
               "/work/shared/data/ggp"]
RULES_DIR = next((Path(p) for p in _CANDIDATES if p and (Path(p) / "perft.json").exists()), None)
SHEETS = sorted(p.stem for p in RULES_DIR.glob("*.kif")) if RULES_DIR else []

needs_sheets = pytest.mark.skipif(
    RULES_DIR is None, reason="GGP rule sheets not found: set BLOKUSZERO_GGP_RULES to the folder "
                              "holding perft.json and the .kif files (../shared/data/ggp)")


@functools.lru_cache(maxsize=None)
def sheet_game(name: str, reasoner: str = "auto"):
    """The compiled game of rule sheet ``name`` (cached)."""
    from blokuszero.games.ggp import GgpGame

    return GgpGame.from_file(RULES_DIR / f"{name}.kif", reasoner=reasoner)
