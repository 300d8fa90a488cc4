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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("A", "B"),
                        help="print two files of measurements side by side instead of measuring")
    args = parser.parse_args()
    if args.compare:
        compare(*args.compare)
    else:
        print(json.dumps(measure()))


if __name__ == "__main__":
    main()
