"""Benchmark the Blokus engine on one core.

Measures legal-move generation on every position of the 200 Pentobi reference games,
and complete random playouts from the empty board (uniform, and the epsilon-greedy
"largest piece" policy of SPEC §2), both inside numba (what search uses) and through the
Python API. Usage::

    python scripts/bench_blokus.py [--seconds 5] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import numba as nb
import numpy as np

from blokuszero.games.blokus import BlokusGame
from blokuszero.games.blokus import rules as E
from blokuszero.games.numba_random import seed_numba

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "pentobi_random_games.jsonl"


def reference_positions() -> list[E.Arrays]:
    """Every position (before each placement) of the Pentobi reference games."""
    positions = []
    for line in DATA.read_text().splitlines():
        state = BlokusGame().new_initial_state()
        for move in json.loads(line)["moves"]:
            if move != "pass":
                positions.append(state.clone().arrays)
                state.apply_action(state.string_to_action(move))
    return positions


@nb.njit(cache=True)
def _generate_all(positions, scratch, t, out, copy_only):
    total = 0
    for pos in positions:
        # Work on a copy: generation prunes stale candidates, and a search always
        # generates on a fresh position.
        E.copy_into(scratch, pos, t)
        if not copy_only:
            total += E.legal_moves(scratch, t, scratch.meta[E.TO_MOVE], out)
    return total


@nb.njit(cache=True)
def _playouts(root, scratch, t, n, policy, epsilon):
    moves = 0
    for _ in range(n):
        E.copy_into(scratch, root, t)
        E.playout(scratch, t, policy, epsilon)
        moves += scratch.meta[E.NUM_PLACED]
    return moves


def _rate(fn, seconds: float) -> tuple[float, int]:
    """Calls of ``fn(k)`` per second (k = calls in one batch), over about ``seconds``."""
    fn(1)
    k, start = 1, time.perf_counter()
    done = 0
    while time.perf_counter() - start < seconds:
        fn(k)
        done += k
        k = min(k * 2, 4096)
    return done / (time.perf_counter() - start), done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    t = E.TABLES
    results: dict[str, float] = {}

    positions = nb.typed.List(reference_positions())
    scratch, out = E.new_arrays(), np.empty(t.piece.shape[0], np.int32)
    _generate_all(positions, scratch, t, out, False)
    _generate_all(positions, scratch, t, out, True)
    reps = max(1, int(args.seconds))
    start = time.perf_counter()
    for _ in range(reps):
        moves = _generate_all(positions, scratch, t, out, False)
    gen = time.perf_counter() - start
    start = time.perf_counter()
    for _ in range(reps):
        _generate_all(positions, scratch, t, out, True)
    copy = time.perf_counter() - start
    n = len(positions) * reps
    results["positions"] = len(positions)
    results["mean_legal_moves"] = moves / len(positions)
    results["movegen_per_s"] = n / gen
    results["movegen_per_s_excluding_copy"] = n / (gen - copy)

    root = E.new_arrays()
    E.reset(root, t)
    seed_numba(0)
    for name, policy, eps in (("uniform", E.UNIFORM, 0.0), ("largest_piece", E.LARGEST_PIECE, 0.05)):
        rate, _ = _rate(lambda k: _playouts(root, scratch, t, k, policy, eps), args.seconds)
        results[f"playouts_per_s_{name}"] = rate
    game = BlokusGame()
    empty = game.new_initial_state()

    def api_playouts(k: int) -> None:
        for _ in range(k):
            empty.clone().playout()

    results["playouts_per_s_uniform_python_api"] = _rate(api_playouts, args.seconds)[0]

    print(f"machine: {platform.processor() or platform.machine()}, {platform.python_version()}, "
          f"numba {nb.__version__}, one thread")
    for key, value in results.items():
        print(f"{key:40s} {value:12,.1f}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
