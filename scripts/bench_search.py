"""Benchmark the search core on one core: MCTS-MaxN simulations per second in Blokus.

Positions come from the Pentobi reference games: the opening (after 4 placements) and the
middle game (after 30). Reports simulations per second and the share of time spent in
playouts (the evaluator) against tree work (selection, expansion, moves, backup). ``--profile``
instead splits a simulation's time into its parts with cProfile (which slows the Python parts
more than the numba kernels, so the shares are an upper bound for Python). Usage::

    python scripts/bench_search.py [--simulations 800] [--positions 5] [--json out.json] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import platform
import time
from pathlib import Path

import numpy as np

from blokuszero.games.blokus import BlokusGame
from blokuszero.players.factory import make_player

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "pentobi_random_games.jsonl"


def positions_after(placements: int, count: int) -> list:
    """The position after ``placements`` moves in each of the first ``count`` reference games."""
    out = []
    for line in DATA.read_text().splitlines()[:count]:
        state = BlokusGame().new_initial_state()
        for move in [m for m in json.loads(line)["moves"] if m != "pass"][:placements]:
            state.apply_action(state.string_to_action(move))
        out.append(state)
    return out


def measure(states, simulations: int) -> dict[str, float]:
    player = make_player(BlokusGame(), {"preset": "mcts_maxn", "simulations": simulations,
                                        "reuse_tree": False}, seed=0)
    mcts = player.mcts
    mcts.search(states[0])  # compile and warm up
    mcts.eval_seconds = 0.0
    sims, start = 0, time.perf_counter()
    legal = []
    for state in states:
        sims += mcts.search(state).simulations
        legal.append(len(state.legal_actions()))
    elapsed = time.perf_counter() - start
    return {"simulations_per_s": sims / elapsed, "playout_share": mcts.eval_seconds / elapsed,
            "mean_legal_moves": float(np.mean(legal))}


# Profile parts: (label, [(file suffix, function) whose cumulative time it adds, ...],
# [parts already counted inside those, subtracted]).
PARTS = [
    ("playout kernel: move generation + choice (numba, one call)", [("blokus/engine.py", "playout")], []),
    ("playout wrapper and final scores (Python)", [("search/evaluators.py", "evaluate")],
     [("blokus/engine.py", "playout")]),
    ("state copies (one clone of the root per simulation)", [("blokus/game.py", "clone")], []),
    ("tree moves: apply_action with its legality check", [("blokus/game.py", "apply_action")], []),
    ("expansion: legal moves and child priors", [("search/mcts.py", "_expand")], []),
    ("selection: UCB1 + Progressive History walk", [("search/mcts.py", "select_leaf")],
     [("blokus/game.py", "clone"), ("blokus/game.py", "apply_action"), ("search/mcts.py", "_expand")]),
    ("backup (complete: values and history table)", [("search/mcts.py", "complete")], []),
]


def profile(states, simulations: int) -> tuple[float, list[tuple[str, float]]]:
    """Seconds per simulation under cProfile and each part's share (see PARTS) of that time."""
    player = make_player(BlokusGame(), {"preset": "mcts_maxn", "simulations": simulations,
                                        "reuse_tree": False}, seed=0)
    player.mcts.search(states[0])  # compile and warm up
    profiler = cProfile.Profile()
    profiler.enable()
    sims = sum(player.mcts.search(state).simulations for state in states)
    profiler.disable()
    stats = pstats.Stats(profiler).stats  # (file, line, function) -> (.., .., own, cumulative, ..)

    def cumulative(suffix: str, function: str) -> float:
        return sum(v[3] for (f, _, name), v in stats.items() if f.endswith(suffix) and name == function)

    total = sum(v[2] for v in stats.values())
    shares = [(label, (sum(cumulative(*k) for k in add) - sum(cumulative(*k) for k in sub)) / total)
              for label, add, sub in PARTS]
    shares.append(("the rest (search loop, bookkeeping)", 1 - sum(share for _, share in shares)))
    return total / sims, shares


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=800, help="simulations per search")
    parser.add_argument("--positions", type=int, default=5, help="positions per game phase")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--profile", action="store_true", help="where a simulation's time goes")
    args = parser.parse_args()
    if args.profile:
        for phase, placements in (("opening", 4), ("middle", 30)):
            per_sim, shares = profile(positions_after(placements, args.positions), args.simulations)
            print(f"{phase}: {per_sim * 1e6:.0f} us per simulation under cProfile")
            for label, share in shares:
                print(f"  {share:6.1%}  {label}")
        return
    results = {}
    for phase, placements in (("opening", 4), ("middle", 30)):
        results[phase] = measure(positions_after(placements, args.positions), args.simulations)
    print(f"machine: {platform.machine()}, Python {platform.python_version()}, one thread; "
          f"MCTS-MaxN, {args.simulations} simulations per search, {args.positions} positions per phase")
    for phase, r in results.items():
        print(f"{phase:8s} {r['simulations_per_s']:8,.0f} simulations/s   playouts {r['playout_share']:5.1%}"
              f"   tree work {1 - r['playout_share']:5.1%}   ({r['mean_legal_moves']:.0f} legal moves)")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
