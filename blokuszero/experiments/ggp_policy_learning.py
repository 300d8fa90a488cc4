"""Apprenticeship Learning against policy-gradient Simulation Balancing on a GDL game (SPEC §6,
seed 002), end to end:

    python scripts/ggp_policy_learning.py --game tictactoe            # the paper's experiment
    python scripts/ggp_policy_learning.py --game connectfour --train 200 --test 50 --epochs 10

Stages (``--stages``, all by default; each reads what the earlier ones left in ``--out``):

- ``labels``: ``--train`` distinct states from random games, and ``--test`` more from a second
  draw (``--test-draw independent``, the paper's reading; ``disjoint``: the ``--test`` drawn
  after the training states in one sequence), V* and a* from ``--simulations`` UCT simulations
  each (cached in ``OUT/labels.npz`` and ``OUT/labels_test.npz``, or ``--labels``, with their
  settings);
- ``train``: AL and SB (M = N = 100, alpha = 0.01, rewards +1/0/-1 for the first role; SB's
  variant ``--sb-gradient psi|phi``, ``--sb-length steps|choices``, see
  :mod:`blokuszero.rl.simulation_balancing`) for
  ``--epochs`` epochs over the training states, each checkpointed per epoch (``OUT/al.npz``,
  ``OUT/sb.npz``: a stopped run goes on from there); after every epoch the MSE against V* of
  the mean of ``--test-sims`` playouts and of single playouts on the test states (epoch 0 is
  theta = 0, uniform random, UR); the learned weights go to ``OUT/{al,sb}_policy.npz``;
- ``match``: UCT (``--match-sims`` simulations a move, UCB1 c = 0.7) with each playout policy,
  the pairings of the paper's table 3, ``--match-games`` games each (``--mirror-games`` for a
  policy against itself; seats alternating in mixed pairings; a pairing of one policy with
  itself is counted for the first mover); every game's seeds, moves and returns are kept;
- ``speed``: CPU time of 100 uniform playouts (the propnet's), 100 softmax playouts and SB's
  100-playout gradient, per state, over 20 sampled states (theta ~ N(0, 0.1));
- ``report``: ``DOCS/ggp_policy_GAME.png`` (the two errors per epoch, and the mean probability
  of the likeliest move) and ``DOCS/ggp_policy_GAME.md`` (tables beside the paper's findings,
  the runs of ``--compare``, and how each choice reads the paper).

Everything flows from ``--seed``; ``OUT/results.json`` holds every figure and each stage's CPU
seconds. An unknown stage, method or variant is refused with a one-line error.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..files import write_atomic
from ..games.ggp import GgpGame
from ..games.ggp.softmax_policy import SoftmaxPolicy
from ..knowledge.ggp.softmax_gradients import TrainableSoftmaxPolicy
from ..match.stats import score_rate, sign_test
from ..players.factory import make_player
from ..referee.game_loop import play
from ..rl import simulation_balancing as sb

log = logging.getLogger("ggp_policy_learning")
TEST_DRAWS = ("independent", "disjoint")  # a second draw as the paper's; or the states after --train
RULES = Path(__file__).resolve().parents[2] / "tests" / "data" / "ggp"  # copies of shared/data/ggp
STAGES = ("labels", "train", "match", "speed", "report")
PAIRINGS = [("al", "sb"), ("al", "ur"), ("sb", "ur"), ("al", "al"), ("sb", "sb"), ("ur", "ur")]
#: Table 3 of the seed paper (tic-tac-toe): wins, draws, losses of the first policy named.
PAPER_TABLE3 = {("al", "sb"): (11, 974, 15), ("al", "ur"): (39, 949, 12),
                ("sb", "ur"): (13, 986, 1), ("al", "al"): (79, 421, 0),
                ("sb", "sb"): (1, 499, 0), ("ur", "ur"): (11, 489, 0)}


def play_game(game: GgpGame, specs: dict[str, dict], names: list[str], seeds: list[int]) -> dict:
    """One game, seat p played by policy ``names[p]`` seeded ``seeds[p]`` (the players seed
    their searches' and playouts' generators from it, so the same seeds replay the game):
    ``{"seats", "seeds", "moves", "returns"}``."""
    players = [make_player(game, specs[n], seed=sd) for n, sd in zip(names, seeds)]
    played = play(game, game.new_initial_state(), players)
    return {"seats": list(names), "seeds": [int(x) for x in seeds],
            "moves": [int(a) for _, a in played.actions],
            "returns": [float(x) for x in played.state.returns()]}


def play_match(game: GgpGame, specs: dict[str, dict], first: str, second: str, games: int,
               seed: int) -> tuple[tuple[int, int, int], list[dict]]:
    """(wins, draws, losses) of ``first`` against ``second`` and every game's record
    (:func:`play_game`): seats alternate when they differ; with the same policy on both
    seats, counted for the first mover."""
    wins = draws = losses = 0
    records = []
    for g in range(games):
        seat = g % 2 if first != second else 0
        names = [second, second]
        names[seat] = first
        record = play_game(game, specs, names, [seed * 100_003 + 2 * g + p for p in range(2)])
        mine, theirs = record["returns"][seat], record["returns"][1 - seat]
        wins += mine > theirs
        draws += mine == theirs
        losses += mine < theirs
        records.append(record)
    return (int(wins), int(draws), int(losses)), records


def cpu_seconds() -> float:
    """CPU seconds of this process and its finished children (the worker pools)."""
    import resource

    child = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + child.ru_utime + child.ru_stime


def split_errors(policy: SoftmaxPolicy, train_data: sb.LabelledStates,
                 test_data: sb.LabelledStates, game: GgpGame, sims: int, seed: int) -> dict:
    """The MSE of ``sims``-playout means on the test states that are also training states
    (``shared``) and on the others (``unshared``), with the evaluations' draws, and how many."""
    from ..games.numba_random import seed_numba

    keys = {s.key() for s in train_data.states(game)}
    states = test_data.states(game)
    shared = np.array([s.key() in keys for s in states])
    out: dict = {"shared_states": int(shared.sum()), "unshared_states": int((~shared).sum())}
    for name, mask in (("shared", shared), ("unshared", ~shared)):
        if mask.any():
            seed_numba(sb.epoch_seed(seed, 0, 1))
            out[name] = sb.evaluate(policy, [s for s, k in zip(states, mask) if k],
                                    test_data.value[mask], sims)["mse_mean"]
    return out


def top3(policy: SoftmaxPolicy, game: GgpGame) -> list[float]:
    """The three largest move probabilities at the initial state."""
    return [round(float(p), 3) for p in np.sort(policy.probabilities(game.new_initial_state())[1])[::-1][:3]]


#: How ours reads the seed paper's SB and AL (section 3.3, Algorithm 1, section 5.1), point by point.
METHOD_NOTES = [
    "Method notes: the seed paper (section 3.3, Algorithm 1, section 5.1) against this code.",
    "",
    "- Explicit in the paper and followed: theta = 0 at the start; rewards +1 / 0 / -1; alpha = "
    "0.01 for both methods; M = N = 100 separate playouts for V and for g, both drawn afresh at "
    "every update; one update per training state in the data's order (Algorithm 1's loop), an "
    "epoch being one pass over the 500 states; 500 distinct training states, each taken from a "
    "uniformly random game among its states not taken before; V* the mean reward of 10,000 UCT "
    "simulations, made once before learning; AL's a* the root child of highest mean reward; AL's "
    "update alpha psi(s, a*); features a move with a pair of true propositions, binary; 100 test "
    "states drawn by the same method, the errors measured after every epoch with 100 playouts a "
    "state.",
    "- T: the paper's playout is (s_1, a_1, ..., s_T, a_T), T its steps; so is ours by default "
    "(`--sb-length steps`). Until 2026-11-28 T counted the choices (moves drawn among several), "
    "one fewer when the last mark is forced: `--sb-length choices`.",
    "- g: the paper's pseudo-code prints phi(s_t, a_t) in g; its source (Silver and Tesauro 2009, "
    "the paper's [17]) has psi = grad log pi, which makes g the gradient of the mean outcome and "
    "which the paper's own words (the policy gradient) name. Ours: psi by default, the printed "
    "phi as `--sb-gradient phi`. Either way the sum runs over the choices: a forced move changes "
    "no probability (its psi is 0) and the pseudo-code's one move a step is the mover's (in GDL "
    "the other role's noop is not summed).",
    "- The test states: the paper draws them \"by the same method\", not saying whether states "
    "of the training set are excluded. Ours by default: a second, independent draw of 100 "
    "(`--test-draw independent`, seed stream 1), which may share states with the training set "
    "(counted below); until 2026-11-28 the test states were the 100 drawn after the 500 training "
    "states in one sequence (`--test-draw disjoint`: none shared, and rarer states, since the "
    "commonest were taken first).",
    "- Open in the paper, read here: the UCT behind V* and a* (ours: the search core's MCTS, "
    "UCB1 with c = 0.7 on rewards in [0, 1], uniform playouts); V* for the first role (xplayer) at "
    "every state, whoever moves; one weight vector for both roles (the features hold the "
    "`control` proposition, so the roles' states differ); how many epochs (the paper's figure "
    "is lost from the text: ours 50), and no stopping rule beyond that; no shuffling of the "
    "training states; the match players' search (ours: UCT, 200 simulations a move).",
    "",
]


def _core_hours(seconds) -> str:
    return "not run" if seconds is None else f"{seconds / 3600:.4f}"


def compare_rows(dirs: list[str]) -> list[str]:
    """The report's table of other runs' SB (a variant, another training-set size) read from
    their ``results.json``."""
    lines = ["Other runs (each `--out` folder's `results.json`; SB unless said; MSE of "
             "100-simulation means on its test states, and on its training states at the last "
             "epoch):", "",
             "| run | training states | g, T, test draw | test states also in training | UR test "
             "MSE | SB test MSE: best (epoch) / last | SB training MSE: UR / last | SB CPU "
             "core-hours |", "|---|---|---|---|---|---|---|---|"]
    commands = []
    for d in dirs:
        r = json.loads((Path(d) / "results.json").read_text())
        h = r["history"]["sb"]
        mm = [x["mse_mean"] for x in h]
        sims = r["label_simulations"]
        v_star = f"{sims:,} UCT simulations" if sims else "exact minimax"
        lines.append(
            f"| `{d}` | {r['train_states']} (V* {v_star}) | {r.get('sb_gradient', 'psi')}, "
            f"{r.get('sb_length', 'choices')}, {r.get('test_draw', 'disjoint')} | "
            f"{r.get('test_in_training', '?')} of {r['test_states']} | {mm[0]:.4f} | "
            f"{min(mm):.4f} ({int(np.argmin(mm))}) / {mm[-1]:.4f} | "
            f"{h[0].get('train_mse_mean', float('nan')):.4f} / "
            f"{h[-1].get('train_mse_mean', float('nan')):.4f} | "
            f"{_core_hours(r.get('train_cpu', {}).get('sb'))} |")
        commands.append(f"- `{d}`: `{r.get('commands', {}).get('train', 'not recorded')}`")
    return lines + ["", "Their commands (the training stage's):", ""] + commands + [""]


def report(results: dict, game_name: str, docs: Path, compare: list[str] = ()) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    hist = results["history"]
    ur = hist["sb"][0] if "sb" in hist else hist["al"][0]
    fig, axes = plt.subplots(1, 3, figsize=(14, 4))
    for ax, key, title in zip(axes, ["mse_mean", "mse_single", "top_prob"],
                              [f"MSE of {results['test_sims']}-simulation means vs V*",
                               "MSE of single simulations vs V*",
                               "mean probability of the likeliest move"]):
        for m, colour in (("al", "tab:red"), ("sb", "tab:blue")):
            if m in hist:
                ax.plot([r["epoch"] for r in hist[m]], [r[key] for r in hist[m]], label=m.upper(),
                        color=colour)
                if "train_" + key in hist[m][0] and key != "top_prob":
                    ax.plot([r["epoch"] for r in hist[m]], [r["train_" + key] for r in hist[m]],
                            label=m.upper() + " (training states)", color=colour, ls=":")
        if key == "mse_mean":
            for d, colour in zip(compare, ("tab:green", "tab:purple", "tab:orange", "tab:brown",
                                           "tab:pink", "tab:olive", "tab:cyan")):
                other = json.loads((Path(d) / "results.json").read_text())["history"]["sb"]
                ax.plot([r["epoch"] for r in other], [r[key] for r in other], color=colour,
                        lw=0.8, label=f"SB {Path(d).name}")
        ax.axhline(ur[key], color="gray", ls="--", label="UR")
        if "train_" + key in ur and key != "top_prob":
            ax.axhline(ur["train_" + key], color="gray", ls=":", label="UR (training states)")
        ax.set_xlabel("epoch (one update per training state)")
        ax.set_title(title, fontsize=10)
        ax.legend(fontsize=7)
    fig.suptitle(f"{game_name}: {results['train_states']} training / {results['test_states']} test "
                 f"states, V* from {results['label_simulations']:,} UCT simulations")
    fig.tight_layout()
    docs.mkdir(parents=True, exist_ok=True)
    fig.savefig(docs / f"ggp_policy_{game_name}.png", dpi=90)
    commands = "; ".join(f"{', '.join(k for k, c in results['commands'].items() if c == cmd)}: "
                         f"`{cmd}`" for cmd in dict.fromkeys(results["commands"].values()))
    lines = [f"# Learning simulation policies on {game_name}", "",
             f"Commands ({commands}) on the 2-core CI-class box; {results['train_states']} training and "
             f"{results['test_states']} test states, V* / a* from {results['label_simulations']:,} "
             f"UCT simulations, M = N = {results['M']}, alpha = {results['alpha']}, "
             f"{results['epochs']} epochs, seed {results['seed']}; SB's g sums "
             f"{results.get('sb_gradient', 'psi')}, T counts {results.get('sb_length', 'choices')}; "
             f"test states: {results.get('test_draw', 'disjoint')} draw, "
             f"{results.get('test_in_training', '?')} of them also training states. Load (uptime) as "
             f"this report was written: {results.get('load', '?')}. CPU core-hours (the last "
             f"invocation of each stage; training with the per-epoch evaluations): labels "
             f"{_core_hours(results.get('cpu', {}).get('labels'))}, AL "
             f"{_core_hours(results.get('train_cpu', {}).get('al'))}, SB "
             f"{_core_hours(results.get('train_cpu', {}).get('sb'))}, matches "
             f"{_core_hours(results.get('matches', {}).get('cpu_s'))}.", "",
             f"![errors per epoch](ggp_policy_{game_name}.png)", "",
             "Test states unless said; the training states' errors (dotted in the plot) show "
             "how well each method fits what it learns from.", "",
             "| policy | MSE of 100-sim means: epoch 0 / best (epoch) / last | MSE of single sims: "
             "epoch 0 / best / last | training states, last: MSE of means / of single sims | "
             "top move prob. (test states) | initial state's top 3 |",
             "|---|---|---|---|---|---|"]
    for m in ("ur", "al", "sb"):
        h = hist["sb" if m == "ur" else m] if (m != "ur" or "sb" in hist) else hist["al"]
        if m == "ur":
            r = h[0]
            lines.append(f"| UR | {r['mse_mean']:.4f} | {r['mse_single']:.4f} | "
                         f"{r.get('train_mse_mean', float('nan')):.4f} / "
                         f"{r.get('train_mse_single', float('nan')):.4f} | "
                         f"{r['top_prob']:.3f} | {results['top3'].get('ur')} |")
            continue
        mm = [r["mse_mean"] for r in h]
        ms = [r["mse_single"] for r in h]
        lines.append(f"| {m.upper()} | {mm[0]:.4f} / {min(mm):.4f} ({int(np.argmin(mm))}) / "
                     f"{mm[-1]:.4f} | {ms[0]:.4f} / {min(ms):.4f} / {ms[-1]:.4f} | "
                     f"{h[-1].get('train_mse_mean', float('nan')):.4f} / "
                     f"{h[-1].get('train_mse_single', float('nan')):.4f} | "
                     f"{h[-1]['top_prob']:.3f} | {results['top3'].get(m)} |")
    lines += ["", "The paper (tic-tac-toe): both AL and SB bring the single-simulation MSE below "
              "UR; the 100-simulation MSE falls with SB, while with AL it dips below UR at first "
              "and then rises; at the initial state SB's top probabilities are about 0.57, 0.29, "
              "0.10 and AL's 0.94, 0.03, 0.01 (AL near-deterministic).", ""]
    if results.get("split"):
        sp = results["split"]
        n = next(iter(sp.values()))
        lines += [f"The test states split: {n['shared_states']} also training states, "
                  f"{n['unshared_states']} not; MSE of {results['test_sims']}-simulation means on "
                  f"each part at the last epoch (shared / not): " + ", ".join(
                      f"{m.upper()} {sp[m].get('shared', float('nan')):.4f} / "
                      f"{sp[m].get('unshared', float('nan')):.4f}"
                      for m in ("ur", "al", "sb") if m in sp) + ".", ""]
    if results.get("exact"):
        e = results["exact"]
        lines += [f"V* against the exact minimax values of the test states: mean squared "
                  f"difference {e['mse']:.4f}, a* optimal in {e['best_optimal']} of "
                  f"{e['states']} test states.", ""]
    if results.get("matches"):
        mt = results["matches"]
        lines += [f"UCT with each playout policy, {mt['sims']} simulations a move, "
                  f"{mt['games']} games per pairing, {mt.get('mirror_games', mt['games'])} for a "
                  f"policy against itself (95% Wilson interval of the first policy's score, draws "
                  f"half); every game's seats, players' seeds, moves and returns are in "
                  f"`results.json` (`matches.rows[i].games`), and `play_game` with those seeds "
                  f"replays it:", "",
                  "| policy (vs) | wins | draws | losses | score | sign test p (wins against losses) "
                  "| paper (wins, draws, losses) |",
                  "|---|---|---|---|---|---|---|"]
        for row in mt["rows"]:
            w, d, lo_ = row["result"]
            r = score_rate(w, d, lo_)
            paper = PAPER_TABLE3.get((row["first"], row["second"]), "")
            lines.append(f"| {row['first'].upper()} (vs {row['second'].upper()}) | {w} | {d} | "
                         f"{lo_} | {r['win_rate']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}] | "
                         f"{sign_test(w, lo_):.2g} | {paper} |")
        lines.append("")
    if results.get("speed"):
        sp = results["speed"]
        lines += [f"Speed ({sp['features']:,} weights; CPU ms per state for 100 playouts, 20 "
                  f"sampled states, load {sp['load'].split('average:')[-1].strip()}): uniform "
                  f"(the propnet's numba playout, one Python call each) {sp['uniform']}, softmax policy "
                  f"{sp['softmax']} (one call for the 100), SB's gradient over 100 playouts "
                  f"{sp['sb_gradient']}.", ""]
    if compare:
        lines += compare_rows(list(compare))
    lines += METHOD_NOTES
    lines += results.get("notes", [])
    write_atomic(docs / f"ggp_policy_{game_name}.md", "\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="tictactoe", help="rule sheet name in tests/data/ggp")
    parser.add_argument("--rules", help="a .kif file instead of --game's")
    parser.add_argument("--train", type=int, default=500)
    parser.add_argument("--test", type=int, default=100)
    parser.add_argument("--simulations", type=int, default=10_000,
                        help="UCT simulations per label (0: exact minimax, small games only)")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--alpha", type=float, default=0.01)
    parser.add_argument("--M", type=int, default=100)
    parser.add_argument("--N", type=int, default=100)
    parser.add_argument("--test-sims", type=int, default=100)
    parser.add_argument("--methods", default="al,sb")
    parser.add_argument("--match-games", type=int, default=100)
    parser.add_argument("--mirror-games", type=int,
                        help="games of a policy against itself (default --match-games)")
    parser.add_argument("--match-sims", type=int, default=200)
    parser.add_argument("--exact", action="store_true",
                        help="compare V* and a* with exact minimax (small games only)")
    parser.add_argument("--stages", default=",".join(STAGES))
    parser.add_argument("--workers", type=int, default=1,
                        help="processes labelling states and playing the pairings side by side")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sb-gradient", default="psi",
                        help=f"what SB's g sums: {' or '.join(sb.GRADIENTS)} (phi as the paper prints it)")
    parser.add_argument("--sb-length", default="steps",
                        help=f"what SB's T counts: {' or '.join(sb.LENGTHS)}")
    parser.add_argument("--test-draw", default="independent",
                        help=f"the test states: {' or '.join(TEST_DRAWS)}")
    parser.add_argument("--labels", help="the training states' cache (default OUT/labels.npz; "
                        "a cache of more states of the same seed serves their first --train)")
    parser.add_argument("--compare", default="",
                        help="report: other runs' OUT folders, their SB rows beside this run's")
    parser.add_argument("--out", help="default runs/ggp_policy/GAME")
    parser.add_argument("--docs", default="docs")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    stages = args.stages.split(",")
    methods = args.methods.split(",")
    try:
        for name, values, known in [("stage", stages, STAGES), ("method", methods, sb.METHODS),
                                    ("sb-gradient", [args.sb_gradient], sb.GRADIENTS),
                                    ("sb-length", [args.sb_length], sb.LENGTHS),
                                    ("test-draw", [args.test_draw], TEST_DRAWS)]:
            for v in values:
                sb.check_variant(name, v, known)
    except ValueError as e:
        sys.exit(f"ggp_policy_learning: {e}")
    rules = Path(args.rules) if args.rules else RULES / f"{args.game}.kif"
    game = GgpGame.from_file(rules)
    out = Path(args.out or f"runs/ggp_policy/{game.name}")
    out.mkdir(parents=True, exist_ok=True)
    results_path = out / "results.json"
    results = json.loads(results_path.read_text()) if results_path.exists() else {}
    command = "python scripts/ggp_policy_learning.py " + " ".join(
        sys.argv[1:] if argv is None else argv)
    results.setdefault("commands", {}).update({s: command for s in stages})
    results.update(train_states=args.train, test_states=args.test,
                   label_simulations=args.simulations, M=args.M, alpha=args.alpha,
                   epochs=args.epochs, seed=args.seed, test_sims=args.test_sims,
                   sb_gradient=args.sb_gradient, sb_length=args.sb_length,
                   test_draw=args.test_draw)
    results.setdefault("history", {})
    results.setdefault("top3", {})
    results.setdefault("train_cpu", {})

    def save() -> None:
        write_atomic(results_path, json.dumps(results, indent=1))

    settings = sb.LabelSettings(game=game.name, digest=SoftmaxPolicy(game).rules_digest(),
                                states=args.train + args.test, seed=args.seed,
                                simulations=args.simulations)
    if "labels" in stages or "train" in stages:
        t = cpu_seconds()
        labels = Path(args.labels) if args.labels else out / "labels.npz"
        if args.test_draw == "disjoint":
            train_data, test_data = sb.load_or_label(game, labels, settings,
                                                     workers=args.workers).split(args.train)
        else:
            train_data = sb.load_or_label(game, labels, replace(settings, states=args.train),
                                          workers=args.workers)
            test_data = sb.load_or_label(game, labels.with_name(labels.stem + "_test.npz"),
                                         replace(settings, states=args.test, draw=1),
                                         workers=args.workers)
        train_keys = {s.key() for s in train_data.states(game)}
        results["test_in_training"] = sum(s.key() in train_keys for s in test_data.states(game))
        results.setdefault("cpu", {})["labels"] = round(cpu_seconds() - t, 1)
        if args.exact:
            exact, optimal = sb.exact_values(game, test_data.states(game), settings.role)
            results["exact"] = {
                "mse": float(np.mean((np.array(exact) - test_data.value) ** 2)),
                "best_optimal": int(sum(int(a) in o for a, o in zip(test_data.best, optimal))),
                "states": len(exact)}
        save()
    if "train" in stages:
        results["top3"]["ur"] = top3(SoftmaxPolicy(game), game)
        for method in methods:
            policy = TrainableSoftmaxPolicy(game)
            ts = sb.TrainSettings(method, epochs=args.epochs, alpha=args.alpha, M=args.M,
                                  N=args.N, test_sims=args.test_sims, seed=args.seed,
                                  train_eval=True, gradient=args.sb_gradient,
                                  length=args.sb_length)
            t = cpu_seconds()
            before = len(results["history"].get(method, []))
            hist = sb.train(policy, ts, train_data, test_data, game, out / f"{method}.npz",
                            on_epoch=lambda r, m=method: log.info("%s %s", m, r))
            if len(hist) > before:  # the invocation that trained (a finished run only resumes)
                results["train_cpu"][method] = round(cpu_seconds() - t, 1)
            results["history"][method] = hist
            results["top3"][method] = top3(policy, game)
            results.setdefault("split", {})[method] = split_errors(
                policy, train_data, test_data, game, args.test_sims, args.seed)
            policy.save(out / f"{method}_policy.npz")
            save()
        results["split"]["ur"] = split_errors(TrainableSoftmaxPolicy(game), train_data,
                                              test_data, game, args.test_sims, args.seed)
        save()
    if "match" in stages:
        specs = {"ur": {"preset": "ggp_uct", "simulations": args.match_sims}}
        for m in ("al", "sb"):
            specs[m] = {"preset": "ggp_uct", "simulations": args.match_sims, "playout": "softmax",
                        "policy_file": str(out / f"{m}_policy.npz")}
        mirror = args.mirror_games if args.mirror_games is not None else args.match_games
        jobs = [(game, specs, first, second, mirror if first == second else args.match_games,
                 args.seed * 10 + k) for k, (first, second) in enumerate(PAIRINGS)]
        t = cpu_seconds()
        if args.workers > 1:
            import concurrent.futures
            import multiprocessing

            with concurrent.futures.ProcessPoolExecutor(
                    args.workers, mp_context=multiprocessing.get_context("fork")) as pool:
                outcome = list(pool.map(play_match, *zip(*jobs)))
        else:
            outcome = [play_match(*job) for job in jobs]
        rows = [{"first": f, "second": s_, "result": list(r), "games": games}
                for (f, s_), (r, games) in zip(PAIRINGS, outcome)]
        for row in rows:
            log.info("%s vs %s: %s", row["first"], row["second"], row["result"])
        results["matches"] = {"sims": args.match_sims, "games": args.match_games,
                              "mirror_games": mirror, "rows": rows,
                              "cpu_s": round(cpu_seconds() - t, 1)}
        save()
    if "speed" in stages:
        from ..games.numba_random import seed_numba

        policy = TrainableSoftmaxPolicy(game)
        policy.theta[:] = np.random.default_rng(args.seed).normal(0, 0.1, policy.size)
        states = [sb.replay(game, p) for p in sb.sample_states(game, 20, np.random.default_rng(
            [args.seed, 9]))]
        policy.outcome_gradient(states[0], 2)  # compiled (or loaded from cache) before timing
        policy.outcomes(states[0], 2)
        game.reasoner.playout(states[0]._s, game.max_game_length)
        seed_numba(args.seed)
        laps = {}
        for name, run in [
                ("uniform", lambda s: [game.reasoner.playout(s._s, game.max_game_length)
                                       for _ in range(100)]),
                ("softmax", lambda s: policy.outcomes(s, 100)),
                ("sb_gradient", lambda s: policy.outcome_gradient(s, 100))]:
            t = time.process_time()
            for s in states:
                run(s)
            laps[name] = round(1000 * (time.process_time() - t) / len(states), 3)
        import subprocess

        laps["load"] = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
        laps["features"] = policy.size
        log.info("ms of CPU per state and 100 playouts: %s", laps)
        results["speed"] = laps
        save()
    if "report" in stages:
        import subprocess

        results["load"] = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
        save()
        report(results, game.name, Path(args.docs), [d for d in args.compare.split(",") if d])
