"""GDL reasoner speed per game on one core: state updates and complete random playouts per second.

A state update is one joint move: the legal moves of every role, then ``next`` (which also
evaluates the new state's legal/goal/terminal atoms), driven from Python one step at a time
as a searcher does. A random playout is a whole game of uniform joint moves from the initial
state in the reasoner's own fast path (numba for the propositional network).

    python scripts/bench_ggp.py [--games connectfour chinesecheckers4 ...] [--seconds 3]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

from blokuszero.games.ggp import GgpGame
from blokuszero.games.numba_random import seed_numba

# The rule sheets the project keeps (copies of ../shared/data/ggp).
DEFAULT_RULES = Path(__file__).resolve().parents[1] / "tests" / "data" / "ggp"


def updates_per_second(game: GgpGame, seconds: float, rng: np.random.Generator) -> float:
    r, roles = game.reasoner, range(game.num_players)
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        s = r.initial()
        while not r.is_terminal(s):
            legal = [r.legal(s, p) for p in roles]
            if min(len(m) for m in legal) == 0:  # a sheet that leaves a role stuck: the end
                break
            s = r.next(s, np.array([rng.choice(m) for m in legal]))
            count += 1
    return count / (time.perf_counter() - start)


def playouts_per_second(game: GgpGame, seconds: float) -> tuple[float, float]:
    """Playouts per second and their mean length in joint moves."""
    r = game.reasoner
    if not hasattr(r, "playout"):
        return float("nan"), float("nan")
    count, steps, start = 0, 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        steps += r.playout(r.initial(), game.max_game_length)[1]
        count += 1
    return count / (time.perf_counter() - start), steps / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default=os.environ.get("BLOKUSZERO_GGP_RULES", DEFAULT_RULES))
    parser.add_argument("--games", nargs="*", default=["tictactoe", "connectfour", "breakthrough",
                                                       "blocker", "chinesecheckers4"])
    parser.add_argument("--seconds", type=float, default=3.0, help="per measurement")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"{'game':<24}{'reasoner':<12}{'build s':>8}{'updates/s':>12}{'playouts/s':>12}"
          f"{'moves/playout':>15}")
    for name in args.games:
        start = time.perf_counter()
        game = GgpGame.from_file(Path(args.rules) / f"{name}.kif")
        build = time.perf_counter() - start
        seed_numba(args.seed)
        playouts_per_second(game, 0.2)  # compile and warm up
        ups = updates_per_second(game, args.seconds, np.random.default_rng(args.seed))
        pps, length = playouts_per_second(game, args.seconds)
        print(f"{name:<24}{game.reasoner.kind:<12}{build:>8.1f}{ups:>12,.0f}{pps:>12,.0f}"
              f"{length:>15.1f}", flush=True)


if __name__ == "__main__":
    main()
