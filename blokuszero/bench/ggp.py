"""GDL reasoner speed per game on one core: state updates and complete random playouts per second.

A state update is one joint move: the legal moves of every role, then ``next`` (which also
brings the new state's legal/goal/terminal atoms up to date), driven from Python one step at
a time as a searcher does. A random playout is a whole game of uniform joint moves from the
initial state in the reasoner's own fast path (numba for the propositional network).

    python -m blokuszero.bench ggp [--games connectfour chinesecheckers4 ...] [--seconds 3]
    python -m blokuszero.bench ggp --baseline OTHER/propnet.py --rounds 3   # side by side

``--baseline`` loads another version of ``propnet.py`` (e.g. ``git show main:...`` saved to a
file) and measures it on the same grounding, alternating with this one round by round.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import sys
import time
from pathlib import Path

import numpy as np

from ..games.ggp import GgpGame
from ..games.ggp.gdl import specialize
from ..games.ggp.reasoner import ground
from ..games.numba_random import seed_numba
from .harness import data_path, finish, load, parser, timed_rate


def updates_per_second(r, seconds: float, rng: np.random.Generator) -> float:
    """Joint moves per second through ``r.legal`` and ``r.next`` from Python."""
    roles = range(len(r.roles))

    def game() -> int:
        count, s = 0, r.initial()
        while not r.is_terminal(s):
            legal = [r.legal(s, p) for p in roles]
            if min(len(m) for m in legal) == 0:  # a sheet that leaves a role stuck: the end
                break
            # m[rng.integers(len(m))]: uniform like rng.choice(m), at a fraction of its cost
            s = r.next(s, np.array([m[rng.integers(len(m))] for m in legal]))
            count += 1
        return count

    return timed_rate(game, seconds)[0]


def playouts_per_second(r, seconds: float, max_steps: int) -> tuple[float, float]:
    """Playouts per second and their mean length in joint moves."""
    if not hasattr(r, "playout"):
        return float("nan"), float("nan")
    steps = 0

    def playout() -> int:
        nonlocal steps
        steps += r.playout(r.initial(), max_steps)[1]
        return 1

    rate, count = timed_rate(playout, seconds)
    return rate, steps / count


def load_baseline(path: str):
    """The ``PropNet`` class of another ``propnet.py``, importing this package's modules."""
    name = "blokuszero.games.ggp._baseline_propnet"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module.PropNet


def main(argv: list[str] | None = None) -> None:
    command = parser("ggp", __doc__)
    command.add_argument("--rules", help="the folder of rule sheets (default: BLOKUSZERO_GGP_RULES, else "
                         "tests/data/ggp, else ../shared/data/ggp)")
    command.add_argument("--games", nargs="*", default=["tictactoe", "connectfour", "breakthrough",
                                                        "blocker", "chinesecheckers4"])
    command.add_argument("--seconds", type=float, default=3.0, help="per measurement")
    command.add_argument("--seed", type=int, default=0)
    command.add_argument("--baseline", help="another propnet.py, measured alternately beside")
    command.add_argument("--rounds", type=int, default=1, help="alternating rounds per game")
    args = command.parse_args(argv)
    load_before = load()
    rules = Path(args.rules or os.environ.get("BLOKUSZERO_GGP_RULES") or data_path("ggp", "ggp"))
    results: dict[str, dict[str, dict[str, float]]] = {}
    baseline = load_baseline(args.baseline) if args.baseline else None
    print(f"{'game':<24}{'reasoner':<12}{'build s':>8}{'updates/s':>12}{'playouts/s':>12}"
          f"{'moves/playout':>15}")
    for name in args.games:
        start = time.perf_counter()
        game = GgpGame.from_file(rules / f"{name}.kif")
        versions = [(game.reasoner.kind, game.reasoner, time.perf_counter() - start)]
        if baseline is not None and game.reasoner.kind == "propnet":
            start = time.perf_counter()
            desc = dataclasses.replace(game.description, clauses=specialize(game.description))
            other = baseline(desc, ground(desc))
            versions.append(("baseline", other, time.perf_counter() - start))
        rounds: dict[str, list[tuple[float, float, float]]] = {label: [] for label, _, _ in versions}
        for r in range(args.rounds):
            for label, reasoner, _ in versions:
                seed_numba(args.seed + r)
                playouts_per_second(reasoner, 0.2, game.max_game_length)  # compile, warm up
                ups = updates_per_second(reasoner, args.seconds,
                                         np.random.default_rng(args.seed + r))
                pps, length = playouts_per_second(reasoner, args.seconds, game.max_game_length)
                rounds[label].append((ups, pps, length))
        results[name] = {}
        for label, _, build in versions:
            ups, pps, length = np.mean(rounds[label], axis=0)
            results[name][label] = {"build_s": build, "updates_per_s": ups, "playouts_per_s": pps,
                                    "moves_per_playout": length}
            print(f"{name:<24}{label:<12}{build:>8.1f}{ups:>12,.0f}{pps:>12,.0f}{length:>15.1f}",
                  flush=True)
    finish("ggp", args, results, load_before)
