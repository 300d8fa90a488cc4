"""The opponent-model accuracy protocol of seed 003 (SPEC §7) on UECda server records.

    python scripts/daihinmin_opponent_models.py [--json] [--players 0 1] [--curve PNG]
        [--ties random|first|split|any] [--options actions|cards] [--no-random-pass]
        [--model-pass] [--features GROUP...] [--ablation] [--prior none|earlier|others] LOG...

Per record (a match) and model (random, naive Bayes, improved naive Bayes): each modelled
player's model learns the games before each game (``--prior`` first the records before it,
``earlier``, or all the others, ``others``), then predicts that player's decisions with
two or more non-pass options; accuracy = hits / such decisions, with a 95% Wilson interval,
one column per match and the pooled mean, next to the paper's figures for the default client.
``--features`` names the feature groups of the improved row (default all four: relative,
field, shape, lead); ``--ablation`` adds the improved model with each group off and the simple
one with each group on. The counting and tie rules are :func:`accuracy_protocol`'s. With ``--json``
the last line is one JSON object with the pooled accuracies in percent per row (``random``,
``naive_bayes``, ``improved``, ...) and per match under ``matches``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..games.daihinmin import rules as K
from ..games.daihinmin.actions import A_CARDS, PASS
from ..games.daihinmin.game import DaihinminGame
from ..games.daihinmin.log import read_log
from ..games.numba_random import seed_numba
from ..knowledge.daihinmin.opponent_model import FEATURES, IMPROVED, SIMPLE, OpponentModel, game_moves
from ..match.daihinmin.uecda_replay import rules_of
from ..match.stats import wilson_interval

PAPER = {"random": 20.55, "naive_bayes": 48.52, "improved": 64.52}  # default client modelled


MODELS = ("random", "naive_bayes", "improved")
TIES = ("random", "first", "split", "any")
OPTIONS = ("actions", "cards")


def option_key(action: int, options: str) -> int:
    """What makes two moves one option: the action id (``actions``: the joker standing for
    different cards or suits gives different options) or the cards played (``cards``)."""
    return int(A_CARDS[action]) if options == "cards" else int(action)


def accuracy_protocol(games: list[tuple[np.ndarray, np.ndarray, np.ndarray]], model: str,
                      players: list[int], seed: int = 0, *, features: int | None = None,
                      ties: str = "random", options: str = "actions",
                      random_pass: bool = True, model_pass: bool = False,
                      prior: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]] = ()
                      ) -> tuple[np.ndarray, np.ndarray]:
    """The paper's protocol over one match (``games`` from :func:`game_moves`): before each
    game every modelled player's model has learned the games before it; each of that
    player's decisions with >= 2 non-pass options (``options``: see :func:`option_key`) is
    predicted, from the second game on (the first has nothing learned before it) unless the
    models first learned ``prior`` (games of other records, by player number): then from the
    first.

    ``random`` draws uniformly among the options, the pass one of them if ``random_pass``
    (the paper lets a player pass at any time and leaves the pass out only when counting
    options). The models score with ``features`` (default :data:`SIMPLE` for naive Bayes,
    :data:`IMPROVED` for improved) and pass only if ``model_pass`` (then they learn the
    passes too, as the moves of class 0); their tied best moves are broken by
    ``ties``: a uniform draw (``random``), the lowest id (``first``), ``split``: 1/k of a
    hit when the move made is one of k tied options (the draw's expectation), or ``any``: a
    hit when it is one of them (the bound no tie rule passes). Returns per game (hits,
    decisions)."""
    if model not in MODELS:
        raise ValueError(f"unknown opponent model {model!r}; known: {', '.join(MODELS)}")
    if ties not in TIES or options not in OPTIONS:
        raise ValueError(f"ties must be one of {TIES} and options one of {OPTIONS}")
    if features is None:
        features = IMPROVED if model == "improved" else SIMPLE
    rng = np.random.default_rng(seed)
    seed_numba(int(rng.integers(2**31)))
    buf = np.empty(K.MAX_LEGAL, np.int64)
    models = {p: OpponentModel(features, model_pass) for p in players}
    if model != "random":
        for states, movers, actions in prior:
            for p in players:
                models[p].learn_game(states[movers == p], actions[movers == p])
    hits = np.zeros(len(games))
    moves = np.zeros(len(games), np.int64)
    for g, (states, movers, actions) in enumerate(games):
        for p in players:
            for i in np.flatnonzero(movers == p) if g or len(prior) else []:
                plays = buf[:K.legal_plays(states[i], buf)]
                keys = sorted({option_key(a, options) for a in plays if a != PASS})
                if len(keys) < 2:
                    continue
                moves[g] += 1
                made = option_key(actions[i], options)
                if model == "random":
                    hits[g] += rng.choice(keys + [PASS] if random_pass else keys) == made
                    continue
                if ties == "first":
                    hits[g] += option_key(models[p].predict(states[i], buf, True), options) == made
                elif ties == "random":
                    hits[g] += option_key(models[p].predict(states[i], buf), options) == made
                else:
                    tied = {option_key(a, options) for a in models[p].best(states[i], buf)}
                    hits[g] += (made in tied) / (len(tied) if ties == "split" else 1)
            if model != "random":
                own = movers == p
                models[p].learn_game(states[own], actions[own])
    return hits, moves


def _cell(hits: float, moves: int) -> str:
    lo, hi = wilson_interval(hits, moves)
    return f"{100 * hits / moves:6.2f}% [{100 * lo:5.2f}, {100 * hi:5.2f}]"


def rows_of(improved: int, ablation: bool) -> list[tuple[str, str, int | None]]:
    """(row name, model, feature groups) of the table: the paper's three models (the improved
    one with the groups ``improved``), and with ``ablation`` the improved one less each group
    and the simple one plus each group."""
    rows = [("random", "random", None), ("naive_bayes", "naive_bayes", SIMPLE),
            ("improved", "improved", improved)]
    if ablation:
        rows += [(f"improved -{g}", "improved", improved & ~bit) for g, bit in FEATURES.items()
                 if improved & bit]
        rows += [(f"naive_bayes +{g}", "naive_bayes", bit) for g, bit in FEATURES.items()]
    return rows


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
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the random draws; the k-th record uses seed + k")
    parser.add_argument("--ties", choices=TIES, default="random",
                        help="how a model's tied best moves count (default: a uniform draw)")
    parser.add_argument("--options", choices=OPTIONS, default="actions",
                        help="one option per action (default) or per set of cards played")
    parser.add_argument("--no-random-pass", dest="random_pass", action="store_false",
                        help="the random model never passes (default: the pass is one of its moves)")
    parser.add_argument("--model-pass", action="store_true",
                        help="the models learn and predict passes too (default: plays only)")
    parser.add_argument("--features", nargs="+", choices=list(FEATURES), default=list(FEATURES),
                        help="feature groups of the improved model (default all four)")
    parser.add_argument("--ablation", action="store_true",
                        help="add rows: improved without each feature group, simple with each")
    parser.add_argument("--prior", choices=["none", "earlier", "others"], default="none",
                        help="what the models learn before a record: nothing (one match as the "
                             "paper's protocol), the records before it (one stream of matches), "
                             "or all the other records (leave-one-record-out)")
    parser.add_argument("--curve", help="write the learning curve (PNG) here")
    parser.add_argument("--block", type=int, default=50, help="games per point of the curve")
    parser.add_argument("--json", action="store_true", help="end with one JSON line")
    args = parser.parse_args(argv)
    if any(not 0 <= p <= 4 for p in args.players):
        parser.error(f"--players takes players 0..4, not {args.players}")
    rows = rows_of(sum(FEATURES[g] for g in set(args.features)), args.ablation)
    rules = dict(ties=args.ties, options=args.options, random_pass=args.random_pass,
                 model_pass=args.model_pass)
    results: dict[str, list[tuple[float, int]]] = {name: [] for name, _, _ in rows}
    curves: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {m: [] for m in PAPER}
    records = []
    for path in args.logs:
        try:
            record = read_log(path)
            game = DaihinminGame(rules_of(record)[0])
            records.append([game_moves(g, game) for g in record.games])
        except (OSError, ValueError) as err:
            print(f"{path}: cannot read: {err}", file=sys.stderr)
            return 2
    for k, games in enumerate(records):
        learned = {"none": [], "earlier": records[:k], "others": records[:k] + records[k + 1:]}
        prior = [g for r in learned[args.prior] for g in r]
        for name, model, features in rows:
            hits, moves = accuracy_protocol(games, model, args.players, seed=args.seed + k,
                                            features=features, prior=prior, **rules)
            results[name].append((float(hits.sum()), int(moves.sum())))
            if name in curves:
                curves[name].append((hits, moves))
    total = {m: (sum(h for h, _ in r), sum(n for _, n in r)) for m, r in results.items()}
    if any(n == 0 for _, n in total.values()):
        print("no move with two or more options in these records", file=sys.stderr)
        return 2
    print(" ".join(f"{k}={v}" for k, v in rules.items())
          + f" features={','.join(sorted(set(args.features)))} prior={args.prior} seed={args.seed}")
    names = [Path(p).stem for p in args.logs] + ["pooled"]
    print(f"{'model':<22} " + " ".join(f"{n:>24}" for n in names) + f" {'paper':>7}")
    for name, r in results.items():
        cells = [_cell(h, n) for h, n in r + [total[name]]]
        paper = f"{PAPER[name]:6.2f}%" if name in PAPER else ""
        print(f"{name:<22} " + " ".join(f"{c:>24}" for c in cells) + f" {paper:>7}")
    print(f"{'decisions':<22} " + " ".join(f"{n:>24}" for _, n in results["random"] + [total["random"]]))
    if args.curve:
        shortest = min(len(h) for h, _ in curves["random"])
        plot_curve(args.curve, {m: (sum(h[:shortest] for h, _ in c), sum(n[:shortest] for _, n in c))
                                for m, c in curves.items()}, args.block)
    if args.json:
        print(json.dumps({**{m: round(100 * h / n, 2) for m, (h, n) in total.items()},
                          "moves": total["random"][1],
                          "matches": [{m: round(100 * results[m][k][0] / max(results[m][k][1], 1), 2)
                                       for m in results} for k in range(len(args.logs))]}))
    return 0
