"""Benchmark the Blokus engine on one core.

Measures legal-move generation on every position of the 200 Pentobi reference games,
and complete random playouts from the empty board (uniform, and the epsilon-greedy
"largest piece" policy of SPEC §2), both inside numba (what search uses) and through the
Python API. Usage::

    python -m blokuszero.bench blokus [--seconds 5] [--games 200] [--json out.json]
"""

from __future__ import annotations

import platform
import time
from collections.abc import Callable

import numba as nb
import numpy as np

from ..games.blokus import BlokusGame
from ..games.blokus import rules as E
from ..games.numba_random import seed_numba
from .harness import every_position, finish, load, parser, timed_rate


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


def _rate(fn: Callable[[int], object], seconds: float) -> float:
    """Calls of ``fn(k)`` per second (k = calls in one batch, doubling up to 4,096), over about
    ``seconds``, after one untimed call."""
    fn(1)
    batch = 1

    def step() -> int:
        nonlocal batch
        fn(batch)
        done, batch = batch, min(batch * 2, 4096)
        return done

    return timed_rate(step, seconds)[0]


def main(argv: list[str] | None = None) -> None:
    command = parser("blokus", __doc__)
    command.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    command.add_argument("--games", type=int, help="only the first GAMES reference games' positions (default: all 200)")
    args = command.parse_args(argv)
    load_before = load()
    t = E.TABLES
    results: dict[str, float] = {}

    positions = nb.typed.List([state.arrays for state in every_position(args.games)])
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
        results[f"playouts_per_s_{name}"] = _rate(lambda k: _playouts(root, scratch, t, k, policy, eps), args.seconds)
    game = BlokusGame()
    empty = game.new_initial_state()

    def api_playouts(k: int) -> None:
        for _ in range(k):
            empty.clone().playout()

    results["playouts_per_s_uniform_python_api"] = _rate(api_playouts, args.seconds)

    print(f"machine: {platform.processor() or platform.machine()}, {platform.python_version()}, "
          f"numba {nb.__version__}, one thread")
    for key, value in results.items():
        print(f"{key:40s} {value:12,.1f}")
    finish("blokus", args, results, load_before)
