"""MCTS-MaxN simulations per CPU-second in Blokus, on one core.

Positions come from the Pentobi reference games: the opening (after 4 placements) and the
middle game (after 30). Reports simulations per CPU-second (``time.process_time``, robust to a
loaded machine) of the paper's MCTS-MaxN, side by side in one run, alternating round by round:

- this tree's search (the compiled loop, ``search/compiled.py``) and, with ``--python-loop``, the
  Python loop on this tree's engine (``compiled=False``);
- with ``--before DIR``: the same measurement of another checkout's package (e.g. the main
  branch) by this tree's measuring code, in a subprocess (``harness.run_in_checkout``);
- with ``--pentobi BINARY``: Pentobi's GTP engine (one thread, no book) on the same positions,
  one ``genmove`` per position at each ``--pentobi-levels`` level, its rate the simulations of
  its ``Sim N`` log line over its ``cputime`` difference.

``--spec JSON`` (repeatable) measures those player specs instead of MCTS-MaxN, e.g. a network
player with ``leaves_per_batch`` against one without.

``--split`` instead measures the compiled search's CPU time per simulation and its playout part
alone. ``--profile`` splits a simulation's time into its parts with cProfile (the Python loop;
cProfile slows the Python parts more than the numba kernels, so the shares are an upper bound
for Python). Usage::

    python -m blokuszero.bench blokus_mcts [--simulations 800] [--positions 5] [--rounds 2] [--python-loop]
        [--before ../main] [--pentobi pentobi-gtp] [--pentobi-levels 6 7] [--json out.json]
        [--split] [--profile] [--spec '{"preset": "alphazero", "checkpoint": PATH}' ...]
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import platform
import pstats
import re
import subprocess
import time
from pathlib import Path

import numba as nb
import numpy as np

from ..games.blokus import BlokusGame
from ..games.blokus import rules as E
from ..players.factory import make_player
from .harness import finish, load, parser, positions_after, reference_games, run_in_checkout

PHASES = (("opening", 4), ("middle", 30))


def measure(states, simulations: int, python_loop: bool = False,
            spec: dict | None = None) -> dict[str, float]:
    """Simulations per CPU-second (and per wall second) on ``states`` of the paper's MCTS-MaxN,
    or of the player ``spec`` (a player factory spec; its own ``simulations`` win)."""
    spec = {"preset": "mcts_maxn", "simulations": simulations, **(spec or {}), "reuse_tree": False}
    if python_loop:
        spec["compiled"] = False
    player = make_player(BlokusGame(), spec, seed=0)
    mcts = player.mcts
    mcts.search(states[0].clone())  # compile and warm up
    sims, cpu, wall = 0, time.process_time(), time.perf_counter()
    for state in states:
        sims += mcts.search(state.clone()).simulations
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return {"simulations_per_cpu_s": sims / cpu, "simulations_per_s": sims / wall,
            "simulations": sims}


def measure_before(directory: Path, simulations: int, positions: int) -> dict[str, dict]:
    """:func:`measure` of the package of the checkout in ``directory``, in a subprocess."""
    out = run_in_checkout(directory, "blokus_mcts", ["--ours-json", "--simulations", str(simulations),
                                                "--positions", str(positions)])
    return json.loads(out.strip().splitlines()[-1])


@nb.njit(cache=True)
def _playouts(root, work, t, n, policy, epsilon) -> None:
    for _ in range(n):
        E.copy_into(work, root, t)
        E.playout(work, t, policy, epsilon)


def split(states, simulations: int) -> dict[str, float]:
    """CPU microseconds per simulation of the compiled search, and of its playout part alone
    (copy of the compacted root, epsilon-greedy largest-piece playout), on ``states``."""
    search = measure(states, simulations)
    roots = [state.clone() for state in states]
    for root in roots:
        root.compact()
    work = roots[0].clone()
    _playouts(roots[0].arrays, work.arrays, E.TABLES, 1, E.LARGEST_PIECE, 0.05)  # compile
    cpu = time.process_time()
    for root in roots:
        _playouts(root.arrays, work.arrays, E.TABLES, simulations, E.LARGEST_PIECE, 0.05)
    cpu = time.process_time() - cpu
    return {"simulation_us": 1e6 / search["simulations_per_cpu_s"],
            "playout_us": 1e6 * cpu / (simulations * len(roots))}


SIM_LINE = re.compile(r"\bSim (\d+),")


def measure_pentobi(binary: str, level: int, placements: int, count: int) -> dict[str, float]:
    """Pentobi's simulations per CPU-second: one ``genmove`` per position (one thread, no book,
    seed 1), simulations from its ``Sim N`` stderr lines, CPU time from ``cputime``."""
    colours = ("blue", "yellow", "red", "green")
    sims, cpu = 0, 0.0
    for moves in reference_games(count):
        state = BlokusGame().new_initial_state()
        commands = []
        for move in moves[:placements]:
            commands.append(f"play {colours[state.current_player()]} {move}")
            state.apply_action(state.string_to_action(move))
        commands += ["cputime", f"genmove {colours[state.current_player()]}", "cputime", "quit"]
        run = subprocess.run([binary, "--nobook", "--noresign", "--threads", "1", "--seed", "1",
                              "--level", str(level)], input="\n".join(commands) + "\n",
                             capture_output=True, text=True, check=True, timeout=600)
        answers = [block[2:].strip() for block in run.stdout.split("\n\n") if block.startswith("=")]
        times = [float(a) for a in answers if re.fullmatch(r"[0-9.]+", a)]
        found = SIM_LINE.findall(run.stderr)
        if len(times) != 2 or not found:
            raise RuntimeError(f"unexpected answer from {binary}: {run.stdout[-300:]!r} {run.stderr[-300:]!r}")
        sims += int(found[-1])
        cpu += times[1] - times[0]
    return {"simulations_per_cpu_s": sims / cpu, "simulations": sims}


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
                                        "reuse_tree": False, "compiled": False}, seed=0)
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


def main(argv: list[str] | None = None) -> None:
    command = parser("blokus_mcts", __doc__)
    command.add_argument("--simulations", type=int, default=800, help="simulations per search")
    command.add_argument("--positions", type=int, default=5, help="positions per game phase")
    command.add_argument("--rounds", type=int, default=1, help="alternating rounds of every measurement")
    command.add_argument("--python-loop", action="store_true", help="also the Python loop on this tree")
    command.add_argument("--before", type=Path, help="also this checkout (e.g. the main branch)")
    command.add_argument("--pentobi", help="also this pentobi-gtp binary")
    command.add_argument("--pentobi-levels", type=int, nargs="+", default=[6], help="Pentobi levels")
    command.add_argument("--ours-json", action="store_true", help=argparse.SUPPRESS)  # for --before
    command.add_argument("--profile", action="store_true", help="where a simulation's time goes")
    command.add_argument("--split", action="store_true", help="compiled search: playout share")
    command.add_argument("--spec", action="append", type=json.loads, default=[],
                         help="instead of MCTS-MaxN, these player specs (JSON, repeatable), side by side")
    args = command.parse_args(argv)
    load_before = load()
    # Network players on one thread too (torch is imported only when a spec needs it).
    if any(spec.get("preset") == "alphazero" or spec.get("kind") == "alphazero" for spec in args.spec):
        import torch
        torch.set_num_threads(1)
    if args.split:
        parts = {}
        for phase, placements in PHASES:
            r = parts[phase] = split(positions_after(placements, args.positions), args.simulations)
            print(f"{phase}: {r['simulation_us']:.0f} us per simulation, of which the playout "
                  f"{r['playout_us']:.0f} us ({r['playout_us'] / r['simulation_us']:.0%}); load "
                  f"{os.getloadavg()[0]:.1f}")
        finish("blokus_mcts", args, parts, load_before)
        return
    if args.profile:
        profiles = {}
        for phase, placements in PHASES:
            per_sim, shares = profile(positions_after(placements, args.positions), args.simulations)
            profiles[phase] = {"us_per_simulation": per_sim * 1e6, "shares": dict(shares)}
            print(f"{phase}: {per_sim * 1e6:.0f} us per simulation under cProfile")
            for label, share in shares:
                print(f"  {share:6.1%}  {label}")
        finish("blokus_mcts", args, profiles, load_before)
        return
    if args.ours_json:
        print(json.dumps({phase: measure(positions_after(placements, args.positions), args.simulations)
                          for phase, placements in PHASES}))
        return
    results: dict[str, dict[str, list[float]]] = {phase: {} for phase, _ in PHASES}

    def record(phase: str, name: str, r: dict) -> None:
        results[phase].setdefault(name, []).append(r["simulations_per_cpu_s"])

    for _ in range(args.rounds):
        if args.before:
            for phase, r in measure_before(args.before, args.simulations, args.positions).items():
                record(phase, "before", r)
        for phase, placements in PHASES:
            states = positions_after(placements, args.positions)
            for spec in args.spec:
                record(phase, json.dumps(spec), measure(states, args.simulations, spec=spec))
            if args.spec:
                continue
            record(phase, "ours", measure(states, args.simulations))
            if args.python_loop:
                record(phase, "python loop", measure(states, args.simulations, python_loop=True))
            for level in args.pentobi_levels if args.pentobi else ():
                record(phase, f"pentobi level {level}",
                       measure_pentobi(args.pentobi, level, placements, args.positions))
    searched = "the specs below" if args.spec else "MCTS-MaxN"
    print(f"machine: {platform.machine()}, Python {platform.python_version()}, one thread; load "
          f"{os.getloadavg()[0]:.1f}; {searched}, {args.simulations} simulations per search unless "
          f"a spec says, {args.positions} positions per phase, {args.rounds} round(s); "
          f"simulations per CPU-second")
    for phase, rows in results.items():
        first = next(iter(rows))  # ours, or the first spec: the others' ratios are to it
        for name, rates in rows.items():
            ratio = "" if name == first else f"   first / this {np.mean(rows[first]) / np.mean(rates):5.2f}"
            print(f"{phase:8s} {name:18s} {np.mean(rates):9,.0f}  ({', '.join(f'{r:,.0f}' for r in rates)}){ratio}")
    finish("blokus_mcts", args, results, load_before)
