"""Apprenticeship Learning against policy-gradient Simulation Balancing on a GDL game (SPEC §6,
seed 002), end to end:

    python scripts/ggp_policy_learning.py --game tictactoe            # the paper's experiment
    python scripts/ggp_policy_learning.py --game connectfour --train 200 --test 50 --epochs 10

Stages (``--stages``, all by default; each reads what the earlier ones left in ``--out``):

- ``labels``: ``--train`` + ``--test`` distinct states from random games, V* and a* from
  ``--simulations`` UCT simulations each (cached in ``OUT/labels.npz`` with their settings);
- ``train``: AL and SB (M = N = 100, alpha = 0.01, rewards +1/0/-1 for the first role) for
  ``--epochs`` epochs over the training states, each checkpointed per epoch (``OUT/al.npz``,
  ``OUT/sb.npz``: a stopped run goes on from there); after every epoch the MSE against V* of
  the mean of ``--test-sims`` playouts and of single playouts on the test states (epoch 0 is
  theta = 0, uniform random, UR); the learned weights go to ``OUT/{al,sb}_policy.npz``;
- ``match``: UCT (``--match-sims`` simulations a move, UCB1 c = 0.7) with each playout policy,
  the pairings of the paper's table 3, ``--match-games`` games each (seats alternating in mixed
  pairings; a pairing of one policy with itself is counted for the first mover);
- ``speed``: CPU time of 100 uniform playouts (the propnet's), 100 softmax playouts and SB's
  100-playout gradient, per state, over 20 sampled states (theta ~ N(0, 0.1));
- ``report``: ``DOCS/ggp_policy_GAME.png`` (the two errors per epoch, and the mean probability
  of the likeliest move) and ``DOCS/ggp_policy_GAME.md`` (tables beside the paper's findings).

Everything flows from ``--seed``; ``OUT/results.json`` holds every figure.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path

import numpy as np

from ..files import write_atomic
from ..games.ggp import GgpGame
from ..games.ggp.softmax_policy import SoftmaxPolicy
from ..knowledge.ggp.softmax_gradients import TrainableSoftmaxPolicy
from ..match.stats import score_rate
from ..players.factory import make_player
from ..referee.game_loop import play
from ..rl import simulation_balancing as sb

log = logging.getLogger("ggp_policy_learning")
RULES = Path(__file__).resolve().parents[2] / "tests" / "data" / "ggp"  # copies of shared/data/ggp
STAGES = ("labels", "train", "match", "speed", "report")
PAIRINGS = [("al", "sb"), ("al", "ur"), ("sb", "ur"), ("al", "al"), ("sb", "sb"), ("ur", "ur")]
#: Table 3 of the seed paper (tic-tac-toe): wins, draws, losses of the first policy named.
PAPER_TABLE3 = {("al", "sb"): (11, 974, 15), ("al", "ur"): (39, 949, 12),
                ("sb", "ur"): (13, 986, 1), ("al", "al"): (79, 421, 0),
                ("sb", "sb"): (1, 499, 0), ("ur", "ur"): (11, 489, 0)}


def play_match(game: GgpGame, specs: dict[str, dict], first: str, second: str, games: int,
               seed: int) -> tuple[int, int, int]:
    """(wins, draws, losses) of ``first`` against ``second``: seats alternate when they differ;
    with the same policy on both seats, counted for the first mover."""
    wins = draws = losses = 0
    for g in range(games):
        seat = g % 2 if first != second else 0
        names = [second, second]
        names[seat] = first
        players = [make_player(game, specs[n], seed=seed * 100_003 + 2 * g + p)
                   for p, n in enumerate(names)]
        state = game.new_initial_state()
        play(game, state, players)
        mine, theirs = state.returns()[seat], state.returns()[1 - seat]
        wins += mine > theirs
        draws += mine == theirs
        losses += mine < theirs
    return int(wins), int(draws), int(losses)


def top3(policy: SoftmaxPolicy, game: GgpGame) -> list[float]:
    """The three largest move probabilities at the initial state."""
    return [round(float(p), 3) for p in np.sort(policy.probabilities(game.new_initial_state())[1])[::-1][:3]]


def report(results: dict, game_name: str, docs: Path) -> None:
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
             f"{results['epochs']} epochs, seed {results['seed']}. Load (uptime) as this report was written: "
             f"{results.get('load', '?')}. CPU seconds of training (the last invocation, with "
             f"the per-epoch evaluations): "
             f"AL {results.get('train_cpu', {}).get('al', '?')}, SB "
             f"{results.get('train_cpu', {}).get('sb', '?')}.", "",
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
    if results.get("exact"):
        e = results["exact"]
        lines += [f"V* against the exact minimax values of the test states: mean squared "
                  f"difference {e['mse']:.4f}, a* optimal in {e['best_optimal']} of "
                  f"{e['states']} test states.", ""]
    if results.get("matches"):
        mt = results["matches"]
        lines += [f"UCT with each playout policy, {mt['sims']} simulations a move, "
                  f"{mt['games']} games per pairing (95% Wilson interval of the first policy's "
                  f"score, draws half):", "",
                  "| policy (vs) | wins | draws | losses | score | paper (wins, draws, losses) |",
                  "|---|---|---|---|---|---|"]
        for row in mt["rows"]:
            w, d, lo_ = row["result"]
            r = score_rate(w, d, lo_)
            paper = PAPER_TABLE3.get((row["first"], row["second"]), "")
            lines.append(f"| {row['first'].upper()} (vs {row['second'].upper()}) | {w} | {d} | "
                         f"{lo_} | {r['win_rate']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}] | {paper} |")
        lines.append("")
    if results.get("speed"):
        sp = results["speed"]
        lines += [f"Speed ({sp['features']:,} weights; CPU ms per state for 100 playouts, 20 "
                  f"sampled states, load {sp['load'].split('average:')[-1].strip()}): uniform "
                  f"(the propnet's numba playout, one Python call each) {sp['uniform']}, softmax policy "
                  f"{sp['softmax']} (one call for the 100), SB's gradient over 100 playouts "
                  f"{sp['sb_gradient']}.", ""]
    lines += results.get("notes", [])
    write_atomic(docs / f"ggp_policy_{game_name}.md", "\n".join(lines) + "\n")


def exact_values(game: GgpGame, states, role: int = 0) -> tuple[list[float], list[set[int]]]:
    """Exact minimax values (of ``role``, on -1..1) and the optimal moves of two-player
    turn-taking ``states`` by memoised search (small games only)."""
    memo: dict[int, float] = {}

    def value(state) -> float:
        key = state.key()
        if key not in memo:
            if state.is_terminal():
                memo[key] = state.returns()[role] / 50.0 - 1.0
            else:
                sign = 1 if state.current_player() == role else -1
                kids = []
                for a in state.legal_actions():
                    child = state.clone()
                    child.apply_action(int(a))
                    kids.append(sign * value(child))
                memo[key] = sign * max(kids)
        return memo[key]

    values, best = [], []
    for s in states:
        values.append(value(s))
        sign = 1 if s.current_player() == role else -1
        kids = {}
        for a in s.legal_actions():
            child = s.clone()
            child.apply_action(int(a))
            kids[int(a)] = sign * value(child)
        top = max(kids.values())
        best.append({a for a, v in kids.items() if v == top})
    return values, best


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="tictactoe", help="rule sheet name in tests/data/ggp")
    parser.add_argument("--rules", help="a .kif file instead of --game's")
    parser.add_argument("--train", type=int, default=500)
    parser.add_argument("--test", type=int, default=100)
    parser.add_argument("--simulations", type=int, default=10_000, help="UCT simulations per label")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--alpha", type=float, default=0.01)
    parser.add_argument("--M", type=int, default=100)
    parser.add_argument("--N", type=int, default=100)
    parser.add_argument("--test-sims", type=int, default=100)
    parser.add_argument("--methods", default="al,sb")
    parser.add_argument("--match-games", type=int, default=100)
    parser.add_argument("--match-sims", type=int, default=200)
    parser.add_argument("--exact", action="store_true",
                        help="compare V* and a* with exact minimax (small games only)")
    parser.add_argument("--stages", default=",".join(STAGES))
    parser.add_argument("--workers", type=int, default=1,
                        help="processes labelling states and playing the pairings side by side")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", help="default runs/ggp_policy/GAME")
    parser.add_argument("--docs", default="docs")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    stages = args.stages.split(",")
    if unknown := set(stages) - set(STAGES):
        parser.error(f"unknown stages {sorted(unknown)}; known: {STAGES}")
    methods = args.methods.split(",")
    if unknown := set(methods) - set(sb.METHODS):
        parser.error(f"unknown methods {sorted(unknown)}; known: {sb.METHODS}")
    rules = Path(args.rules) if args.rules else RULES / f"{args.game}.kif"
    game = GgpGame.from_file(rules)
    out = Path(args.out or f"runs/ggp_policy/{game.name}")
    out.mkdir(parents=True, exist_ok=True)
    results_path = out / "results.json"
    results = json.loads(results_path.read_text()) if results_path.exists() else {}
    command = "python scripts/ggp_policy_learning.py " + " ".join(
        sys.argv[1:] if argv is None else argv)
    results.setdefault("commands", {}).update({s: command for s in stages if s != "report"})
    results.update(train_states=args.train, test_states=args.test,
                   label_simulations=args.simulations, M=args.M, alpha=args.alpha,
                   epochs=args.epochs, seed=args.seed, test_sims=args.test_sims)
    results.setdefault("history", {})
    results.setdefault("top3", {})
    results.setdefault("train_cpu", {})

    def save() -> None:
        write_atomic(results_path, json.dumps(results, indent=1))

    settings = sb.LabelSettings(game=game.name, digest=SoftmaxPolicy(game).rules_digest(),
                                states=args.train + args.test, seed=args.seed,
                                simulations=args.simulations)
    data = None
    if "labels" in stages or "train" in stages:
        data = sb.load_or_label(game, out / "labels.npz", settings, workers=args.workers)
        train_data, test_data = data.split(args.train)
        if args.exact:
            exact, optimal = exact_values(game, test_data.states(game), settings.role)
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
                                  train_eval=True)
            t = time.process_time()
            hist = sb.train(policy, ts, train_data, test_data, game, out / f"{method}.npz",
                            on_epoch=lambda r, m=method: log.info("%s %s", m, r))
            results["train_cpu"][method] = round(time.process_time() - t, 1)  # this invocation
            results["history"][method] = hist
            results["top3"][method] = top3(policy, game)
            policy.save(out / f"{method}_policy.npz")
            save()
    if "match" in stages:
        specs = {"ur": {"preset": "ggp_uct", "simulations": args.match_sims}}
        for m in ("al", "sb"):
            specs[m] = {"preset": "ggp_uct", "simulations": args.match_sims, "playout": "softmax",
                        "policy_file": str(out / f"{m}_policy.npz")}
        jobs = [(game, specs, first, second, args.match_games, args.seed * 10 + k)
                for k, (first, second) in enumerate(PAIRINGS)]
        t = time.process_time()
        if args.workers > 1:
            import concurrent.futures
            import multiprocessing

            with concurrent.futures.ProcessPoolExecutor(
                    args.workers, mp_context=multiprocessing.get_context("fork")) as pool:
                outcome = list(pool.map(play_match, *zip(*jobs)))
        else:
            outcome = [play_match(*job) for job in jobs]
        rows = [{"first": f, "second": s_, "result": list(r)}
                for (f, s_), r in zip(PAIRINGS, outcome)]
        for row in rows:
            log.info("%s vs %s: %s", row["first"], row["second"], row["result"])
        results["matches"] = {"sims": args.match_sims, "games": args.match_games, "rows": rows}
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
        report(results, game.name, Path(args.docs))
