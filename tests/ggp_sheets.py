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


def uct_first_places(game, spec: dict, games: int) -> int:
    """Games (of ``games``) where our GGP player's UCT (``spec``) ends with the highest goal
    (ties included) against uniformly random players, its seat rotating."""
    from blokuszero.engines.ggp_player import _make_player
    from blokuszero.players.base import RandomPlayer

    first = 0
    for g in range(games):
        seat = g % game.num_players
        players = [RandomPlayer(100 * g + p) for p in range(game.num_players)]
        players[seat] = _make_player(game, spec, seed=g)
        state = game.new_initial_state()
        while not state.is_terminal():
            p = state.current_player()
            a = players[p].choose_action(state)
            state.apply_action(a)
            for q in players:
                q.inform(a, p)
        first += state.returns()[seat] == state.returns().max()
    return first
