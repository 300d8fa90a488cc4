"""The search core's speed in parts, in CPU time, for side-by-side comparisons of two versions of
the code.

CPU time of this process (``time.process_time``), not wall time, so that other jobs on a
shared machine disturb the figures less. Measures, each as a rate per CPU-second:

- the games' engines through the Python API (Blokus epsilon-greedy playouts, Go playouts);
- whole searches: Blokus MCTS-MaxN (Progressive History, playouts) and PUCT with uniform
  priors (the self-play search without a network) after 4 and 30 placements; Go RAVE, plain
  and pattern-weighted, from the empty 9x9 and 19x19 boards;
- tree work alone (selection, expansion, moves, backup, enhancements) with a fixed-value
  evaluator: Go RAVE and UCB1, Blokus Progressive History.

Without options it prints one JSON line of rates. ``--before OLD_TREE`` measures the checkout at
OLD_TREE (its package, by this tree's measuring code, each round in a fresh process) and this
tree, alternating (ABBA) for ``--rounds`` rounds, and prints their medians and best rounds side
by side; ``--compare A.jsonl B.jsonl`` prints the same table for two files of such lines gathered
otherwise (each line one plain run)::

    python -m blokuszero.bench search_parts --before ../main --rounds 8
    python -m blokuszero.bench search_parts --compare /tmp/base.jsonl /tmp/new.jsonl

Separate processes on a shared machine still differ by several percent from run to run (the
unchanged engines' figures show it). ``--interleave OLD_TREE`` instead imports both versions
into one process (copies of the two ``blokuszero`` packages under other names) and alternates
their Go RAVE searches in ABBA order, so load changes hit both alike; it prints CPU
microseconds per simulation. Blokus is left out there: with two copies of its engine in one
process, numba's dispatcher falls back to slow argument typing for the second copy, a
measurement artefact ten times larger than any difference.

``--scale`` multiplies every count (simulations, playouts) by a fraction, for a quick check.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from ..games.blokus import BlokusGame
from ..games.go import GoGame
from ..players.factory import make_player
from ..players.search_players import make_rule
from ..search import MCTS, PUCT, UCB1, MCTSConfig, ProgressiveHistory, UniformEvaluator
from ..search.evaluators import Evaluation, Evaluator
from .harness import ROOT, cpu_rate, finish, load, parser, positions_after, run_in_checkout


class Fixed(Evaluator):
    """Every leaf worth 0.5 to every player: the tree's own work, without playouts or a network."""

    value_bounds = (0.0, 1.0)

    def evaluate(self, states):
        return [Evaluation(np.full(len(s.returns()), 0.5)) for s in states]


def measure(scale: float = 1.0) -> dict[str, float]:
    """Every rate once (kernels warmed up first), every count times ``scale``."""

    def n(count: int) -> int:
        return max(1, round(count * scale))

    out: dict[str, float] = {}
    blokus = BlokusGame()
    empty = blokus.new_initial_state()
    out["blokus engine playouts"] = cpu_rate(
        lambda: [empty.clone().playout("largest_piece", 0.05) for _ in range(n(300))], n(300))
    for size, playouts in ((9, n(1500)), (19, n(300))):
        go_empty = GoGame(size).new_initial_state()
        out[f"go{size} engine playouts"] = cpu_rate(
            lambda: [go_empty.clone().playout() for _ in range(playouts)], playouts)
    sims = n(400)
    for phase, placements in (("opening", 4), ("middle", 30)):
        states = positions_after(placements, 2)

        def maxn() -> None:
            for i, s in enumerate(states):
                make_player(blokus, {"preset": "mcts_maxn", "simulations": sims, "reuse_tree": False},
                            seed=i).choose_action(s)

        def puct() -> None:
            for i, s in enumerate(states):
                MCTS(blokus, MCTSConfig(simulations=sims, expand_threshold=0, reuse_tree=False), PUCT(),
                     UniformEvaluator(4), rng=i).search(s)

        out[f"blokus mcts_maxn {phase}"] = cpu_rate(maxn, 2 * sims)
        out[f"blokus puct {phase}"] = cpu_rate(puct, 2 * sims)
    for size, go_sims in ((9, n(3000)), (19, n(600))):
        go = GoGame(size)
        for k in (1.0, 1.5):
            make_player(go, {"preset": "go_rave", "simulations": 50, "k": k}, 0).choose_action(
                go.new_initial_state())
        for k in (1.0, 1.5):
            player = make_player(go, {"preset": "go_rave", "simulations": go_sims, "k": k}, 0)
            out[f"go{size} rave k={k}"] = cpu_rate(lambda: player.choose_action(go.new_initial_state()), go_sims)

    def tree_only(game, rule, sims: int) -> float:
        mcts = MCTS(game, MCTSConfig(simulations=sims, reuse_tree=False), rule, Fixed(), rng=0)
        return cpu_rate(lambda: mcts.search(game.new_initial_state()), sims)

    go9 = GoGame(9)
    out["tree only: go9 rave"] = tree_only(go9, make_rule("rave", {}, go9), n(3000))
    out["tree only: go9 ucb1"] = tree_only(go9, UCB1(0.7), n(3000))
    out["tree only: blokus progressive history"] = tree_only(blokus, ProgressiveHistory(0.2, 5.0), n(800))
    return out


def side_by_side(old_tree: Path, rounds: int, scale: float) -> dict[str, list[dict[str, float]]]:
    """``rounds`` measurements of the checkout at ``old_tree`` and of this tree, alternating
    (ABBA), each in a fresh process running this module on that tree's package."""
    runs: dict[str, list[dict[str, float]]] = {"before": [], "this": []}
    trees = {"before": old_tree, "this": ROOT}
    for r in range(rounds):
        for label in (("before", "this") if r % 2 == 0 else ("this", "before")):
            out = run_in_checkout(trees[label], "search_parts", ["--scale", str(scale)])
            runs[label].append(json.loads(out.splitlines()[0]))
    return runs


def compare(runs_a: list[dict[str, float]], runs_b: list[dict[str, float]], a: str, b: str) -> None:
    """A markdown table: medians and best rounds of two lists of measurements."""
    print(f"{len(runs_a)} / {len(runs_b)} rounds\n")
    print(f"| measure (per CPU-second) | {a} median | {b} median | change | "
          f"{a} best | {b} best | change |")
    print("|---|---|---|---|---|---|---|")
    for key in runs_a[0]:
        va, vb = [r[key] for r in runs_a], [r[key] for r in runs_b]
        ma, mb = statistics.median(va), statistics.median(vb)
        print(f"| {key} | {ma:,.0f} | {mb:,.0f} | {100 * (mb / ma - 1):+.1f}% | {max(va):,.0f} | "
              f"{max(vb):,.0f} | {100 * (max(vb) / max(va) - 1):+.1f}% |")


def interleave(old_tree: Path, rounds: int) -> dict[str, dict[str, list[float]]]:
    """Go RAVE searches of the version in ``old_tree`` and of this tree, alternated in one
    process; a markdown table of CPU microseconds per simulation."""
    import importlib
    import shutil
    import tempfile

    root = Path(tempfile.mkdtemp(prefix="bench_core_"))
    for name, tree in (("bz_old", old_tree), ("bz_new", ROOT)):
        shutil.copytree(tree / "blokuszero", root / name,
                        ignore=shutil.ignore_patterns("__pycache__"))
    sys.path.insert(0, str(root))
    versions = {name: (importlib.import_module(f"{name}.players.factory"),
                       importlib.import_module(f"{name}.games.go")) for name in ("bz_old", "bz_new")}
    cases = {"go9 rave": (9, 1.0, 2000), "go9 rave, pattern (1.5, 1)": (9, 1.5, 2000),
             "go19 rave": (19, 1.0, 400)}

    def cost(name: str, case: str, seed: int) -> float:
        factory, go_module = versions[name]
        size, k, sims = cases[case]
        game = go_module.GoGame(size)
        player = factory.make_player(game, {"preset": "go_rave", "simulations": sims, "k": k}, seed)
        start = time.process_time()
        player.choose_action(game.new_initial_state())
        return (time.process_time() - start) / sims * 1e6

    for name in versions:  # compile and load the kernels of both
        for case in cases:
            cost(name, case, 0)
    results: dict[tuple[str, str], list[float]] = {(n, c): [] for n in versions for c in cases}
    for r in range(rounds):
        for case in cases:
            for name in (("bz_old", "bz_new") if r % 2 == 0 else ("bz_new", "bz_old")):
                results[(name, case)].append(cost(name, case, r))
    shutil.rmtree(root)
    print(f"{rounds} rounds, ABBA, CPU microseconds per simulation (lower is faster)\n")
    print("| search | old median | new median | change | old best | new best | change |")
    print("|---|---|---|---|---|---|---|")
    for case in cases:
        a, b = results[("bz_old", case)], results[("bz_new", case)]
        ma, mb = statistics.median(a), statistics.median(b)
        print(f"| {case} | {ma:.1f} | {mb:.1f} | {100 * (mb / ma - 1):+.1f}% | {min(a):.1f} | "
              f"{min(b):.1f} | {100 * (min(b) / min(a) - 1):+.1f}% |")
    return {case: {"old": results[("bz_old", case)], "new": results[("bz_new", case)]} for case in cases}


def _lines(path: Path) -> list[dict[str, float]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def main(argv: list[str] | None = None) -> None:
    command = parser("search_parts", __doc__)
    command.add_argument("--compare", nargs=2, type=Path, metavar=("A", "B"),
                         help="print two files of measurements side by side instead of measuring")
    command.add_argument("--before", type=Path, metavar="OLD_TREE",
                         help="measure the checkout at OLD_TREE and this tree in alternating rounds, side by side")
    command.add_argument("--interleave", type=Path, metavar="OLD_TREE",
                         help="compare Go searches with the checkout at OLD_TREE in one process")
    command.add_argument("--rounds", type=int, default=12, help="rounds of --interleave and --before")
    command.add_argument("--scale", type=float, default=1.0, help="every count times this (a quick check)")
    args = command.parse_args(argv)
    load_before = load()
    if args.compare:
        a, b = args.compare
        results = {a.stem: _lines(a), b.stem: _lines(b)}
        compare(results[a.stem], results[b.stem], a.stem, b.stem)
    elif args.before:
        results = side_by_side(args.before, args.rounds, args.scale)
        compare(results["before"], results["this"], "before", "this")
    elif args.interleave:
        results = interleave(args.interleave, args.rounds)
    else:
        results = measure(args.scale)
        print(json.dumps(results), flush=True)
    # The plain run's standard output is one JSON line, gathered into files for --compare.
    finish("search_parts", args, results, load_before, stream=None if args.compare or args.before or args.interleave
           else sys.stderr)
