"""The opponent-model accuracy protocol of seed 003 (SPEC §7) on UECda server records.

    python scripts/daihinmin_opponent_models.py [--json] [--players 0 1] [--curve PNG] LOG...

Per record (a match) and model (random, naive Bayes, improved naive Bayes): each modelled
player's model learns the games before each game, then predicts that player's moves with two
or more non-pass options; accuracy = hits / such moves, with a 95% Wilson interval, one row
per match and the pooled mean, next to the paper's figures for the default client. With
``--json`` the last line is one JSON object with the mean accuracies in percent under
``random``, ``naive_bayes`` and ``improved``, and per match under ``matches``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from blokuszero.games.daihinmin.game import DaihinminGame
from blokuszero.games.daihinmin.log import read_log
from blokuszero.games.daihinmin.opponent_model import MODELS, accuracy_protocol, game_moves
from blokuszero.games.daihinmin.replay import rules_of
from blokuszero.match.stats import wilson_interval

PAPER = {"random": 20.55, "naive_bayes": 48.52, "improved": 64.52}  # default client modelled


def _cell(hits: int, moves: int) -> str:
    lo, hi = wilson_interval(hits, moves)
    return f"{100 * hits / moves:6.2f}% [{100 * lo:5.2f}, {100 * hi:5.2f}]"


def plot_curve(path: str, curves: dict[str, tuple[np.ndarray, np.ndarray]], block: int) -> None:
    """Accuracy per block of ``block`` games against games learned, one line per model."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4))
    for model, (hits, moves) in curves.items():
        n = (len(hits) - 1) // block
        h = hits[1:1 + n * block].reshape(n, block).sum(1)
        m = moves[1:1 + n * block].reshape(n, block).sum(1)
        x = 1 + block * np.arange(n) + block / 2
        ax.plot(x, 100 * h / np.maximum(m, 1), marker="o", label=model)
        ax.axhline(PAPER[model], ls=":", color=ax.lines[-1].get_color())
    ax.set_xlabel("games learned")
    ax.set_ylabel("accuracy, %")
    ax.set_title(f"moves with >= 2 non-pass options, per {block} games")
    ax.set_ylim(0, 100)
    ax.legend(title="dotted: the paper")
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("logs", nargs="+", help="server game records (.log)")
    parser.add_argument("--players", type=int, nargs="+", default=[0, 1, 2, 3, 4],
                        help="players modelled, each by its own model (default all five)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random tie-breaks")
    parser.add_argument("--curve", help="write the learning curve (PNG) here")
    parser.add_argument("--block", type=int, default=50, help="games per point of the curve")
    parser.add_argument("--json", action="store_true", help="end with one JSON line")
    args = parser.parse_args(argv)
    if any(not 0 <= p <= 4 for p in args.players):
        parser.error(f"--players takes players 0..4, not {args.players}")
    results: dict[str, list[tuple[int, int]]] = {m: [] for m in MODELS}
    curves: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {m: [] for m in MODELS}
    print(f"{'match':<40} " + " ".join(f"{m:>24}" for m in MODELS))
    for k, path in enumerate(args.logs):
        try:
            record = read_log(path)
            game = DaihinminGame(rules_of(record)[0])
            games = [game_moves(g, game) for g in record.games]
        except (OSError, ValueError) as err:
            print(f"{path}: cannot read: {err}", file=sys.stderr)
            return 2
        row = []
        for m in MODELS:
            hits, moves = accuracy_protocol(games, m, args.players, seed=args.seed + k)
            results[m].append((int(hits.sum()), int(moves.sum())))
            curves[m].append((hits, moves))
            row.append(_cell(*results[m][-1]))
        print(f"{Path(path).name:<40} " + " ".join(f"{c:>24}" for c in row))
    total = {m: (sum(h for h, _ in r), sum(n for _, n in r)) for m, r in results.items()}
    if any(n == 0 for _, n in total.values()):
        print("no move with two or more options in these records", file=sys.stderr)
        return 2
    print(f"{'mean (pooled)':<40} " + " ".join(f"{_cell(*total[m]):>24}" for m in MODELS))
    print(f"{'paper (default client)':<40} "
          + " ".join(f"{PAPER[m]:>23.2f}%" for m in MODELS))
    if args.curve:
        shortest = min(len(h) for h, _ in curves[MODELS[0]])
        plot_curve(args.curve, {m: (sum(h[:shortest] for h, _ in c), sum(n[:shortest] for _, n in c))
                                for m, c in curves.items()}, args.block)
    if args.json:
        print(json.dumps({**{m: round(100 * h / n, 2) for m, (h, n) in total.items()},
                          "moves": total["random"][1],
                          "matches": [{m: round(100 * results[m][k][0] / max(results[m][k][1], 1), 2)
                                       for m in MODELS} for k in range(len(args.logs))]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
