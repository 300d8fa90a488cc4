"""Benchmark Go playouts on one core, for 9x9, 13x13 and 19x19 (SPEC §4).

Three figures per board size:

- ``engine``: eye-keeping random playouts from the empty board inside numba (copy + playout);
- ``search``: playouts per second of a whole MCTS search with plain Fuego-style RAVE
  (k = l = 1), tree descent, expansion, playout and AMAF update included;
- ``search_pattern``: the same with the paper's pattern weights (k, l) = (1.5, 1); the ratio
  is the cost of the local-similarity method (the paper measured about 7% in Fuego).

Searches alternate between the two rules ``--repeats`` times; the best rate of each is
reported (the least disturbed by other jobs on the machine) together with the median.
Usage::

    python -m blokuszero.bench go [--sizes 9 13 19] [--seconds 3] [--repeats 5] [--json out.json]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numba as nb
import numpy as np

from ..games.go import GoGame
from ..games.go import playouts as P
from ..games.numba_random import seed_numba
from ..players.factory import make_player
from .harness import finish, load, parser, timed_rate


@nb.njit(cache=True)
def _playouts(root, w, n, rules, players, points):
    moves = 0
    for _ in range(n):
        buf = root.copy()
        moves += P.playout(buf, w, rules, 0, players, points)
    return moves


def engine_rate(game: GoGame, seconds: float, rules: int = 0,
                clock=time.perf_counter) -> tuple[float, float]:
    """(playouts per second, moves per playout) inside numba, with the playout rules ``rules``
    (a bit mask of :mod:`blokuszero.games.go.playouts`; 0: uniform), timed by ``clock``."""
    root = game.new_initial_state().buf
    players = np.empty(game.max_game_length, np.int64)
    points = np.empty(game.max_game_length, np.int64)
    _playouts(root, game.width, 1, rules, players, points)
    moves = 0

    def step() -> int:
        nonlocal moves
        moves += _playouts(root, game.width, 100, rules, players, points)
        return 100

    rate, done = timed_rate(step, seconds, clock)
    return rate, moves / done


def search_rate(game: GoGame, k: float, simulations: int, seed: int, preset: str = "go_rave",
                clock=time.perf_counter) -> float:
    """Playouts per second (by ``clock``) of one RAVE search from the empty board."""
    player = make_player(game, {"preset": preset, "simulations": simulations, "k": k, "l": 1.0}, seed)
    state = game.new_initial_state()
    start = clock()
    player.choose_action(state)
    return simulations / (clock() - start)


def main(argv: list[str] | None = None) -> None:
    command = parser("go", __doc__)
    command.add_argument("--sizes", type=int, nargs="+", default=[9, 13, 19])
    command.add_argument("--seconds", type=float, default=3.0, help="time of the engine measurement")
    command.add_argument("--simulations", type=int, default=10_000, help="playouts per search on 9x9 "
                         "(scaled down by the board's area for larger boards)")
    command.add_argument("--repeats", type=int, default=5, help="searches per rule and size")
    command.add_argument("--rules-only", action="store_true",
                         help="only the engine rate of each Fuego-style playout rule alone and of all "
                              "together next to uniform playouts (no searches), in CPU time, the "
                              "parts alternating over --repeats rounds")
    args = command.parse_args(argv)
    load_before = load()
    results = rule_rates(args) if args.rules_only else search_rates(args)
    finish("go", args, results, load_before)


def search_rates(args: argparse.Namespace) -> dict:
    """Print (and return) the engine's playouts per second and RAVE searches' per size."""
    seed_numba(0)
    results: dict = {"sizes": {}}
    for size in args.sizes:
        game = GoGame(size)
        rate, length = engine_rate(game, args.seconds)
        simulations = max(500, args.simulations * 81 // (size * size))
        search_rate(game, 1.0, 50, 0)  # compile and warm up both rules
        search_rate(game, 1.5, 50, 0)
        plain, pattern = [], []
        for r in range(args.repeats):
            plain.append(search_rate(game, 1.0, simulations, r))
            pattern.append(search_rate(game, 1.5, simulations, r))
        entry = {"engine_playouts_per_s": rate, "moves_per_playout": length,
                 "search_simulations": simulations,
                 "search_playouts_per_s": max(plain), "search_median": statistics.median(plain),
                 "search_pattern_playouts_per_s": max(pattern),
                 "search_pattern_median": statistics.median(pattern),
                 "pattern_overhead": 1.0 - max(pattern) / max(plain)}
        results["sizes"][size] = entry
        print(f"{size}x{size}: engine {rate:,.0f} playouts/s ({length:.0f} moves each); search "
              f"({simulations} playouts) plain RAVE {max(plain):,.0f}/s (median {statistics.median(plain):,.0f}), "
              f"pattern (1.5, 1) {max(pattern):,.0f}/s (median {statistics.median(pattern):,.0f}): "
              f"overhead {entry['pattern_overhead']:.1%}", flush=True)
    return results


def rule_rates(args: argparse.Namespace) -> dict:
    """Print (and return) playouts per CPU second per Fuego-style rule and size: uniform, each
    rule alone (the self-atari correction on its own corrects only the random moves), the four
    rules of the first version together, and all; the parts alternate, ``--repeats`` rounds."""
    seed_numba(0)
    before = P.ATARI_CAPTURE | P.ATARI_DEFENCE | P.LOW_LIBERTY | P.FILL_BOARD
    parts = {"uniform": 0, **P.RULES, "first four": before, "fuego (all)": P.ALL_RULES}
    results: dict = {"sizes": {}}
    for size in args.sizes:
        game = GoGame(size)
        rates: dict[str, list[float]] = {name: [] for name in parts}
        lengths: dict[str, float] = {}
        for r in range(args.repeats):
            for name, rules in parts.items():
                rate, lengths[name] = engine_rate(game, args.seconds, rules, time.process_time)
                rates[name].append(rate)
        results["sizes"][size] = {name: {"playouts_per_cpu_s": rates[name], "moves_per_playout": lengths[name]}
                                  for name in parts}
        for name in parts:
            each = " ".join(f"{x:8,.0f}" for x in rates[name])
            print(f"{size}x{size} {name:14s} {each} playouts/CPU s ({lengths[name]:.0f} moves each)", flush=True)
        # Whole searches: the uniform-playout engine (go_rave) and the Fuego-style one
        # (go_fuego: its playouts and prior knowledge), alternating.
        simulations = max(500, args.simulations * 81 // (size * size))
        searches: dict[str, list[float]] = {"go_rave": [], "go_fuego": []}
        for preset in searches:
            search_rate(game, 1.0, 50, 0, preset)  # compile and warm up
        for r in range(args.repeats):
            for preset, out in searches.items():
                out.append(search_rate(game, 1.0, simulations, r, preset, time.process_time))
        results["sizes"][size]["searches"] = searches
        for preset, out in searches.items():
            each = " ".join(f"{x:8,.0f}" for x in out)
            print(f"{size}x{size} search {preset:8s} ({simulations} playouts) {each} playouts/CPU s", flush=True)
    return results
