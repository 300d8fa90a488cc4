"""Where the GDL rule sheets are (tests/data/ggp, copies of ../shared/data/ggp; another folder
by ``BLOKUSZERO_GGP_RULES``), and a cache of their compiled games so that each sheet is grounded
once per test session."""

from __future__ import annotations

import functools
import os
from pathlib import Path

RULES_DIR = Path(os.environ.get("BLOKUSZERO_GGP_RULES") or Path(__file__).parent / "data" / "ggp")
if not (RULES_DIR / "perft.json").is_file():
    raise FileNotFoundError(f"GGP rule sheets not found: {RULES_DIR} holds no perft.json "
                            f"(BLOKUSZERO_GGP_RULES names the folder)")
SHEETS = sorted(p.stem for p in RULES_DIR.glob("*.kif"))
#: Sheets whose compilation takes several seconds (checkers and ttcc4 the most): their tests are slow.
SLOW_SHEETS = {"checkers", "chinesecheckers4", "breakthrough", "knightthrough", "ttcc4",
               "ttcc4_2player"}


@functools.lru_cache(maxsize=None)
def sheet_game(name: str, reasoner: str = "auto"):
    """The compiled game of rule sheet ``name`` (cached)."""
    from blokuszero.games.ggp import GgpGame

    return GgpGame.from_file(RULES_DIR / f"{name}.kif", reasoner=reasoner)


def uct_first_places(game, spec: dict, games: int) -> int:
    """Games (of ``games``) where our GGP player's UCT (``spec``, of kind ``ggp_uct``) ends with the highest goal
    (ties included) against uniformly random players, its seat rotating."""
    from blokuszero.players.base import RandomPlayer
    from blokuszero.players.factory import make_player
    from blokuszero.referee.game_loop import play

    first = 0
    for g in range(games):
        seat = g % game.num_players
        players = [RandomPlayer(100 * g + p) for p in range(game.num_players)]
        players[seat] = make_player(game, spec, seed=g)
        state = game.new_initial_state()
        play(game, state, players)
        first += state.returns()[seat] == state.returns().max()
    return first
