"""GDL reasoner speed per game on one core: state updates and complete random playouts per second.

A state update is one joint move: the legal moves of every role, then ``next`` (which also
brings the new state's legal/goal/terminal atoms up to date), driven from Python one step at
a time as a searcher does. A random playout is a whole game of uniform joint moves from the
initial state in the reasoner's own fast path (numba for the propositional network).

    python scripts/bench_ggp.py [--games connectfour chinesecheckers4 ...] [--seconds 3]
    python scripts/bench_ggp.py --baseline OTHER/propnet.py --rounds 3   # side by side

``--baseline`` loads another version of ``propnet.py`` (e.g. ``git show main:...`` saved to a
file) and measures it on the same grounding, alternating with this one round by round.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import os
import sys
import time
from pathlib import Path

import numpy as np

from blokuszero.games.ggp import GgpGame
from blokuszero.games.ggp.gdl import specialize
from blokuszero.games.ggp.reasoner import ground
from blokuszero.games.numba_random import seed_numba

# The rule sheets the project keeps (copies of ../shared/data/ggp).
DEFAULT_RULES = Path(__file__).resolve().parents[1] / "tests" / "data" / "ggp"


def updates_per_second(r, seconds: float, rng: np.random.Generator) -> float:
    """Joint moves per second through ``r.legal`` and ``r.next`` from Python."""
    roles = range(len(r.roles))
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        s = r.initial()
        while not r.is_terminal(s):
            legal = [r.legal(s, p) for p in roles]
            if min(len(m) for m in legal) == 0:  # a sheet that leaves a role stuck: the end
                break
            # m[rng.integers(len(m))]: uniform like rng.choice(m), at a fraction of its cost
            s = r.next(s, np.array([m[rng.integers(len(m))] for m in legal]))
            count += 1
    return count / (time.perf_counter() - start)


def playouts_per_second(r, seconds: float, max_steps: int) -> tuple[float, float]:
    """Playouts per second and their mean length in joint moves."""
    if not hasattr(r, "playout"):
        return float("nan"), float("nan")
    count, steps, start = 0, 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        steps += r.playout(r.initial(), max_steps)[1]
        count += 1
    return count / (time.perf_counter() - start), steps / count


def load_baseline(path: str):
    """The ``PropNet`` class of another ``propnet.py``, importing this package's modules."""
    name = "blokuszero.games.ggp._baseline_propnet"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module.PropNet


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default=os.environ.get("BLOKUSZERO_GGP_RULES", DEFAULT_RULES))
    parser.add_argument("--games", nargs="*", default=["tictactoe", "connectfour", "breakthrough",
                                                       "blocker", "chinesecheckers4"])
    parser.add_argument("--seconds", type=float, default=3.0, help="per measurement")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--baseline", help="another propnet.py, measured alternately beside")
    parser.add_argument("--rounds", type=int, default=1, help="alternating rounds per game")
    args = parser.parse_args()
    baseline = load_baseline(args.baseline) if args.baseline else None
    print(f"{'game':<24}{'reasoner':<12}{'build s':>8}{'updates/s':>12}{'playouts/s':>12}"
          f"{'moves/playout':>15}")
    for name in args.games:
        start = time.perf_counter()
        game = GgpGame.from_file(Path(args.rules) / f"{name}.kif")
        versions = [(game.reasoner.kind, game.reasoner, time.perf_counter() - start)]
        if baseline is not None and game.reasoner.kind == "propnet":
            start = time.perf_counter()
            desc = dataclasses.replace(game.description, clauses=specialize(game.description))
            other = baseline(desc, ground(desc))
            versions.append(("baseline", other, time.perf_counter() - start))
        results = {label: [] for label, _, _ in versions}
        for r in range(args.rounds):
            for label, reasoner, _ in versions:
                seed_numba(args.seed + r)
                playouts_per_second(reasoner, 0.2, game.max_game_length)  # compile, warm up
                ups = updates_per_second(reasoner, args.seconds,
                                         np.random.default_rng(args.seed + r))
                pps, length = playouts_per_second(reasoner, args.seconds, game.max_game_length)
                results[label].append((ups, pps, length))
        for label, _, build in versions:
            ups, pps, length = np.mean(results[label], axis=0)
            print(f"{name:<24}{label:<12}{build:>8.1f}{ups:>12,.0f}{pps:>12,.0f}{length:>15.1f}",
                  flush=True)


if __name__ == "__main__":
    main()
