"""Search-core speed in CPU time, for side-by-side comparisons of two versions of the code.

CPU time of this process (``time.process_time``), not wall time, so that other jobs on a
shared machine disturb the figures less. Measures, each as a rate per CPU-second:

- the games' engines through the Python API (Blokus epsilon-greedy playouts, Go playouts);
- whole searches: Blokus MCTS-MaxN (Progressive History, playouts) and PUCT with uniform
  priors (the self-play search without a network) after 4 and 30 placements; Go RAVE, plain
  and pattern-weighted, from the empty 9x9 and 19x19 boards;
- tree work alone (selection, expansion, moves, backup, enhancements) with a fixed-value
  evaluator: Go RAVE and UCB1, Blokus Progressive History.

Run it once per version and round, alternating, with ``PYTHONPATH`` at each version's tree;
``--compare A.jsonl B.jsonl`` prints the medians and best rounds side by side::

    for r in 1 2 3; do for w in base new; do
      (cd $w && PYTHONPATH=$PWD python /path/to/scripts/bench_core.py >> /tmp/$w.jsonl); done; done
    python scripts/bench_core.py --compare /tmp/base.jsonl /tmp/new.jsonl

Separate processes on a shared machine still differ by several percent from run to run (the
unchanged engines' figures show it). ``--interleave OLD_TREE`` instead imports both versions
into one process (copies of the two ``blokuszero`` packages under other names) and alternates
their Go RAVE searches in ABBA order, so load changes hit both alike; it prints CPU
microseconds per simulation. Blokus is left out there: with two copies of its engine in one
process, numba's dispatcher falls back to slow argument typing for the second copy, a
measurement artefact ten times larger than any difference.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np


def _rate(run: Callable[[], object], count: int) -> float:
    start = time.process_time()
    run()
    return count / (time.process_time() - start)


def measure() -> dict[str, float]:
    """Every rate once (kernels warmed up first)."""
    sys.path.insert(0, str(Path.cwd() / "scripts"))
    from bench_search import positions_after

    from blokuszero.games.blokus import BlokusGame
    from blokuszero.games.go import GoGame
    from blokuszero.players.factory import make_player, make_rule
    from blokuszero.search import MCTS, PUCT, UCB1, MCTSConfig, ProgressiveHistory, UniformEvaluator
    from blokuszero.search.evaluators import Evaluation, Evaluator

    class Fixed(Evaluator):
        value_bounds = (0.0, 1.0)

        def evaluate(self, states):
            return [Evaluation(np.full(len(s.returns()), 0.5)) for s in states]

    out: dict[str, float] = {}
    blokus = BlokusGame()
    empty = blokus.new_initial_state()
    out["blokus engine playouts"] = _rate(
        lambda: [empty.clone().playout("largest_piece", 0.05) for _ in range(300)], 300)
    for size, n in ((9, 1500), (19, 300)):
        go_empty = GoGame(size).new_initial_state()
        out[f"go{size} engine playouts"] = _rate(lambda: [go_empty.clone().playout() for _ in range(n)], n)
    for phase, placements in (("opening", 4), ("middle", 30)):
        states = positions_after(placements, 2)

        def maxn() -> None:
            for i, s in enumerate(states):
                make_player(blokus, {"preset": "mcts_maxn", "simulations": 400, "reuse_tree": False},
                            seed=i).choose_action(s)

        def puct() -> None:
            for i, s in enumerate(states):
                MCTS(blokus, MCTSConfig(simulations=400, expand_threshold=0, reuse_tree=False), PUCT(),
                     UniformEvaluator(4), rng=i).search(s)

        out[f"blokus mcts_maxn {phase}"] = _rate(maxn, 800)
        out[f"blokus puct {phase}"] = _rate(puct, 800)
    for size, sims in ((9, 3000), (19, 600)):
        go = GoGame(size)
        for k in (1.0, 1.5):
            make_player(go, {"preset": "go_rave", "simulations": 50, "k": k}, 0).choose_action(
                go.new_initial_state())
        for k in (1.0, 1.5):
            player = make_player(go, {"preset": "go_rave", "simulations": sims, "k": k}, 0)
            out[f"go{size} rave k={k}"] = _rate(lambda: player.choose_action(go.new_initial_state()), sims)

    def tree_only(game, rule, sims: int) -> float:
        mcts = MCTS(game, MCTSConfig(simulations=sims, reuse_tree=False), rule, Fixed(), rng=0)
        return _rate(lambda: mcts.search(game.new_initial_state()), sims)

    go9 = GoGame(9)
    out["tree only: go9 rave"] = tree_only(go9, make_rule("rave", {}, go9), 3000)
    out["tree only: go9 ucb1"] = tree_only(go9, UCB1(0.7), 3000)
    out["tree only: blokus progressive history"] = tree_only(blokus, ProgressiveHistory(0.2, 5.0), 800)
    return out


def compare(a: Path, b: Path) -> None:
    """A markdown table: medians and best rounds of two files of measurements."""
    runs_a = [json.loads(line) for line in a.read_text().splitlines()]
    runs_b = [json.loads(line) for line in b.read_text().splitlines()]
    print(f"{len(runs_a)} / {len(runs_b)} rounds\n")
    print(f"| measure (per CPU-second) | {a.stem} median | {b.stem} median | change | "
          f"{a.stem} best | {b.stem} best | change |")
    print("|---|---|---|---|---|---|---|")
    for key in runs_a[0]:
        va, vb = [r[key] for r in runs_a], [r[key] for r in runs_b]
        ma, mb = statistics.median(va), statistics.median(vb)
        print(f"| {key} | {ma:,.0f} | {mb:,.0f} | {100 * (mb / ma - 1):+.1f}% | {max(va):,.0f} | "
              f"{max(vb):,.0f} | {100 * (max(vb) / max(va) - 1):+.1f}% |")


def interleave(old_tree: Path, rounds: int) -> None:
    """Go RAVE searches of the version in ``old_tree`` and of this tree, alternated in one
    process; a markdown table of CPU microseconds per simulation."""
    import importlib
    import shutil
    import tempfile

    root = Path(tempfile.mkdtemp(prefix="bench_core_"))
    here = Path(__file__).resolve().parents[1]
    for name, tree in (("bz_old", old_tree), ("bz_new", here)):
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("A", "B"),
                        help="print two files of measurements side by side instead of measuring")
    parser.add_argument("--interleave", type=Path, metavar="OLD_TREE",
                        help="compare Go searches with the checkout at OLD_TREE in one process")
    parser.add_argument("--rounds", type=int, default=12, help="rounds of --interleave")
    args = parser.parse_args()
    if args.compare:
        compare(*args.compare)
    elif args.interleave:
        interleave(args.interleave, args.rounds)
    else:
        print(json.dumps(measure()))


if __name__ == "__main__":
    main()
