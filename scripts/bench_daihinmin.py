"""Benchmark Daihinmin on one core: playouts, move generation, the match server.

Figures:

- ``playouts``: uniformly random playouts (pass included, as the server allows it) from the
  start of a game (after the deal, first game of a match: no exchange) inside numba, copy +
  playout; the champion client FujiGokoro spends about 5,000 playouts per decision;
- ``movegen``: legal-action lists per second over the positions of random games (numba);
- ``server``: games per second of our UECda server with 5 default clients, in-process and
  over TCP on 127.0.0.1 (our ``blokuszero-uecda`` clients as child processes).

The best of ``--repeats`` timings is reported with the median. Usage::

    python scripts/bench_daihinmin.py [--seconds 3] [--repeats 3] [--games 200] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time

import numpy as np

from blokuszero.games.daihinmin import DaihinminGame
from blokuszero.games.daihinmin import engine as E
from blokuszero.games.daihinmin.default_client import DefaultClient
from blokuszero.games.daihinmin.match import MatchSettings
from blokuszero.games.daihinmin.server import LocalSeat, run_match
from blokuszero.games.testing import random_positions


def playout_rate(seconds: float) -> tuple[float, float]:
    """(playouts per second, actions per playout) from the start of a game."""
    state = DaihinminGame(first_game=True).new_initial_state(0)
    buf = np.empty(E.MAX_LEGAL, np.int64)
    E.seed(1)
    E.playouts_from(state.s, 1, buf)
    done = moves = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        moves += E.playouts_from(state.s, 200, buf)
        done += 200
    return done / (time.perf_counter() - start), moves / done


def movegen_rate(seconds: float) -> tuple[float, float]:
    """(generations per second, legal actions per position) over random games' positions."""
    game = DaihinminGame()
    positions = np.array([p.s for seed in range(20) for p in random_positions(game, seed)
                          if not p.is_terminal()])
    buf = np.empty(E.MAX_LEGAL, np.int64)
    E.generate_all(positions[:2], buf)
    done = actions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        actions += E.generate_all(positions, buf)
        done += len(positions)
    return done / (time.perf_counter() - start), actions / done


def server_rate(games: int, tcp: bool) -> float:
    """Games per second of a match of 5 default clients."""
    settings = MatchSettings(games=games)
    if not tcp:
        seats = [LocalSeat(DefaultClient(), f"dflt{i}") for i in range(5)]
        start = time.perf_counter()
        run_match(seats, settings, seed=1)
        return games / (time.perf_counter() - start)
    import subprocess

    from blokuszero.protocols.uecda import TcpSeat, accept_player, listen

    listener = listen("127.0.0.1", 0)
    port = listener.getsockname()[1]
    processes, seats = [], []
    for i in range(5):
        processes.append(subprocess.Popen(
            [sys.executable, "-m", "blokuszero.engines.uecda", "-h", "127.0.0.1", "-p", str(port),
             "-n", f"dflt{i}"], stderr=subprocess.DEVNULL))
        seats.append(TcpSeat(*accept_player(listener, i)))
    start = time.perf_counter()
    run_match(seats, settings, seed=1)
    rate = games / (time.perf_counter() - start)
    for p in processes:
        p.wait(timeout=30)
    listener.close()
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    out = {"machine": platform.processor() or platform.machine(),
           "load": os.getloadavg()[0]}
    for name, fn in (("playouts", lambda: playout_rate(args.seconds)),
                     ("movegen", lambda: movegen_rate(args.seconds))):
        runs = [fn() for _ in range(args.repeats)]
        rates = [r[0] for r in runs]
        out[name] = {"best": max(rates), "median": statistics.median(rates),
                     "per_item": runs[0][1]}
        print(f"{name}: best {max(rates):,.0f}/s, median {statistics.median(rates):,.0f}/s "
              f"({'actions per playout' if name == 'playouts' else 'legal actions per position'}"
              f" {runs[0][1]:.1f})")
    for name, tcp in (("server_in_process", False), ("server_tcp", True)):
        rate = server_rate(args.games, tcp)
        out[name] = rate
        print(f"{name}: {rate:.1f} games/s ({args.games} games, 5 default clients)")
    out["load_after"] = os.getloadavg()[0]
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
