"""The paper's experiment on similar-board search experience in GGP (SPEC §5; seed 000, tables
2-4 and 6): UCT with the search experience against plain UCT, and the switching rule.

    # games, colours swapped in pairs, one JSON line each (appends, skips games already in the
    # file; several shards at once)
    python scripts/ggp_experience_experiment.py play --pairs 50 --playouts 500 \\
        [--games breakthrough connectfour pawnwhopping] [--configs huffman2 ...] \\
        [--reading baseline] [--shard 0/2] [--until 20:00] [--out runs/ggp_experience/games.jsonl]
    # the switching rule's pre-game measurement per game (10 games of 10 moves, 250 playouts)
    python scripts/ggp_experience_experiment.py switch [--games ...] [--out runs/ggp_experience/switch.json]
    # table (Markdown) and figure from what was played, beside the paper's figures
    python scripts/ggp_experience_experiment.py report [--doc docs/ggp_experience.md] \\
        [--png docs/ggp_experience.png] [--records docs/ggp_experience_games.jsonl]
    # ablation, ablation-report: the ablation over the paper's open choices on its headline
    # cell (blokuszero.experiments.ggp_experience_ablation, whose main adds them)

A configuration is an encoding (``huffman``, ``appearance``, ``random``) and the Hamming
distance ``d`` of the boards that seed a node (``huffman2``: Huffman, ``d`` = 2). Both players
run UCT (UCB1 c = 0.7 on rewards in [0, 1], uniform playouts, tree reuse, the move with most
real visits) with the same playouts per move; only the experience player adds the table.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..games.ggp import GgpGame
from ..match.stats import score_rate, sign_test, two_proportion_test
from ..players.factory import make_player, resolve_spec
from ..players.ggp.uct import parse_experience, switch_distance
from ..referee.game_loop import play

# The rule sheets the project keeps (copies of ../shared/data/ggp).
RULES = Path(__file__).resolve().parents[2] / "tests" / "data" / "ggp"
GAMES = ("breakthrough", "connectfour", "pawnwhopping")
CONFIGS = ("huffman0", "huffman2", "appearance0", "appearance2", "random2")
C = 0.7

#: The paper's figures (wins, losses, draws of the experience player in 500 games at 500
#: playouts and the sign-test p it prints; table 2 for random, table 3 for the others) and its switching measurements at
#: 250 playouts (table 4: mean distance; table 5: mean per-distance std).
PAPER = {
    "breakthrough": {"random2": (193, 307, 0, 2.11e-2), "appearance0": (302, 198, 0, 3.80e-6),
                     "appearance2": (377, 123, 0, 5.23e-31), "huffman0": (312, 188, 0, 3.24e-8),
                     "huffman2": (326, 174, 0, 1.01e-11), "switch": (2.23, 1.62e-2)},
    "connectfour": {"random2": (219, 271, 10, 2.11e-2), "appearance0": (288, 199, 13, 6.39e-5),
                    "appearance2": (133, 359, 8, 4.96e-25), "huffman0": (309, 183, 8, 1.47e-8),
                    "huffman2": (283, 208, 8, 9.79e-4), "switch": (4.52, 6.72e-3)},
    "pawnwhopping": {"appearance0": (269, 213, 18, 1.22e-2), "appearance2": (343, 150, 7, 1.93e-18),
                     "huffman0": (346, 147, 7, 1.52e-19), "huffman2": (362, 129, 9, 1.25e-26),
                     "switch": (2.85, 8.50e-3)},
}
#: Table 6: the win rates of Huffman d = 0, d = 2 and switching averaged over the paper's 10 games.
PAPER_AVERAGE = {"d=0": 0.622, "d=2": 0.571, "switch": 0.631}


@dataclass(frozen=True)
class Variant:
    """One reading of one open choice: ``experience``, the experience player's table options
    changed; ``both``, both players' UCT settings changed (the baseline's are the defaults)."""

    name: str
    reading: str
    experience: dict = field(default_factory=dict)
    both: dict = field(default_factory=dict)


#: The readings of the paper's open choices: the baseline (this implementation's) and variants
#: that each change one choice, the most promising first (the order the ablation plays them in).
#: ``play --reading NAME`` plays a table under one of them.
VARIANTS = {v.name: v for v in (
    Variant("baseline", f"table for the whole game; a node seeded once, when first reached, "
            f"with the summed rewards and visits of its similar boards; tree path and playout "
            f"boards stored; the move with most real visits; both players c = {C}, tree reused "
            f"between moves, 500 simulations per move"),
    Variant("tree=fresh", "both players search each move from a new tree rooted at the "
            "position (2.2: each turn's MCTS has the current board as root; 4.3: equal "
            "playouts so both trees have the same nodes), 500 simulations per move",
            both={"reuse_tree": False}),
    Variant("weight=mean", "a reached node receives its similar boards' pooled mean reward "
            "as one visit, not their summed rewards and visits", experience={"weight": "mean"}),
    Variant("c=0.4", "both players c = 0.4 (CadiaPlayer's C = 40 on rewards 0-100, the "
            "paper's GGP reference [6])", both={"c": 0.4}),
    Variant("c=1.41", "both players c = 1.41 (sqrt 2, UCB1 of Kocsis and Szepesvari [5])",
            both={"c": 1.41}),
    Variant("lifetime=move", "the table is emptied at the start of each move's search",
            experience={"lifetime": "move"}),
    Variant("stored=path", "only the tree path's boards are stored, no playout positions",
            experience={"stored": "path"}),
    Variant("move=all", "the move with most visits, seeded visits counted (4.2 rejects this)",
            experience={"move": "all"}),
)}


def variant(name: str) -> Variant:
    """The variant ``name``; ValueError naming the known ones."""
    if name not in VARIANTS:
        raise ValueError(f"unknown reading {name!r}; known: {', '.join(VARIANTS)}")
    return VARIANTS[name]


def play_game(game: GgpGame, config: str, playouts: int, exp_role: int, seed: int, *,
              experience: dict | None = None, both: dict | None = None) -> dict:
    """One game, the experience player in role ``exp_role``; the record. ``experience``: further
    options of the experience player's table (readings of the paper's open choices);
    ``both``: settings of both players' UCT instead of the defaults (``c``, ``reuse_tree``)."""
    rng = np.random.default_rng(seed)
    base = {"kind": "ggp_uct", "c": C, "simulations": playouts, "playout": "uniform", **(both or {})}
    table = {**parse_experience(config), **(experience or {})}
    players = []
    for role in range(game.num_players):
        spec = {**base, "experience": table} if role == exp_role else base
        players.append(make_player(game, spec, int(rng.integers(2**31))))
    state, start = game.new_initial_state(), time.process_time()
    moves = len(play(game, state, players).moves)
    goals = state.returns()
    mine, theirs = goals[exp_role], max(g for r, g in enumerate(goals) if r != exp_role)
    result = "win" if mine > theirs else "loss" if mine < theirs else "draw"
    return {"game": game.name, "config": config, "playouts": playouts, "seed": seed,
            "exp_role": exp_role, "result": result, "goals": goals.tolist(), "moves": moves,
            "cpu_seconds": round(time.process_time() - start, 2)}


def deadline(text: str | None) -> float:
    """``HH:MM`` (UTC, today) as a time.time() value; no limit without it."""
    if text is None:
        return float("inf")
    now = dt.datetime.now(dt.timezone.utc)
    h, m = map(int, text.split(":"))
    return now.replace(hour=h, minute=m, second=0, microsecond=0).timestamp()


def table_seed(seed: int, game: str, config: str, pair: int, exp_role: int) -> int:
    """The seed of one game of ``play --seed seed``: the ``pair``-th colour-swapped pair of a
    cell, the experience player in ``exp_role``."""
    return zlib.crc32(f"{seed}/{game}/{config}/{pair}/{exp_role}".encode())


def cmd_play(args) -> None:
    try:
        reading = variant(args.reading)
    except ValueError as e:
        raise SystemExit(f"error: {e}") from None
    index, count = map(int, args.shard.split("/"))
    stop = deadline(args.until)
    games = {g: GgpGame.from_file(RULES / f"{g}.kif") for g in args.games}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    # Resuming: a game already in the file (same game, configuration, playouts, seed and
    # reading) is not played again.
    done = set()
    if out.exists():
        for line in out.read_text().splitlines():
            if line:
                r = json.loads(line)
                done.add((r["game"], r["config"], r["playouts"], r["seed"],
                          r.get("reading", "baseline")))
    tasks = [(r, g, c) for r in range(args.pairs) for g in args.games for c in args.configs]
    for i, (r, g, c) in enumerate(tasks):
        if i % count != index:
            continue
        for exp_role in (0, 1):
            if time.time() > stop:
                print("stopped at the deadline")
                return
            seed = table_seed(args.seed, g, c, r, exp_role)
            if (g, c, args.playouts, seed, reading.name) in done:
                continue
            record = {**play_game(games[g], c, args.playouts, exp_role, seed,
                                  experience=reading.experience, both=reading.both),
                      "reading": reading.name}
            with out.open("a") as f:
                f.write(json.dumps(record) + "\n")
            print(json.dumps(record), flush=True)


def cmd_switch(args) -> None:
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    results = json.loads(out.read_text()) if out.exists() else {}
    for g in args.games:
        game = GgpGame.from_file(RULES / f"{g}.kif")
        start = time.process_time()
        spec = resolve_spec({"kind": "ggp_uct", "c": C, "simulations": args.playouts,
                             "playout": "uniform"})
        d, report = switch_distance(game, spec, args.seed, games=args.selfplay_games,
                                    moves=args.moves, playouts=args.playouts)
        results[g] = {"distance": d, "mean_distance": report.mean_distance,
                      "mean_std": report.mean_std, "counts": report.counts.tolist(),
                      "games": args.selfplay_games, "moves": args.moves,
                      "playouts": args.playouts, "seed": args.seed,
                      "cpu_seconds": round(time.process_time() - start, 1)}
        print(g, json.dumps({k: v for k, v in results[g].items() if k != "counts"}), flush=True)
        out.write_text(json.dumps(results, indent=1))


def tally(records: list[dict]) -> dict:
    """(game, playouts, config) -> wins, losses, draws and CPU seconds of its games."""
    cells: dict = {}
    for r in records:
        w = cells.setdefault((r["game"], r["playouts"], r["config"]),
                             {"win": 0, "loss": 0, "draw": 0, "cpu": []})
        w[r["result"]] += 1
        w["cpu"].append(r["cpu_seconds"])
    return cells


def main_playouts(cells: dict, game: str) -> int:
    """The playouts per move of ``game`` with the most games (the averages and the figure's)."""
    counts: dict[int, int] = {}
    for (g, p, _), w in cells.items():
        if g == game:
            counts[p] = counts.get(p, 0) + w["win"] + w["loss"] + w["draw"]
    return max(counts, key=lambda p: (counts[p], p))


def rate(w: int, l: int, d: int) -> float:
    """The score (draws half) of ``w`` wins, ``l`` losses and ``d`` draws."""
    return score_rate(w, d, l)["win_rate"]


NOTES = """
Notes on the method (where the paper leaves a choice open, what this implementation does):

- Under the baseline reading the table lasts a whole game (it is not cleared between moves; under
  lifetime=move it is emptied as each move's search begins); a node is seeded once, when a
  simulation first reaches it (the paper's one new node per simulation), with the summed rewards
  and visits of every stored board within d; the move played is the one with most real visits.
- Boards stored: every node of the simulation's tree path and every position of its playout.
- Tree distance (switching rule): edges between the reached node and the row where the similar
  board was last recorded in the current search, plus, for a playout board, the moves it lay
  past that row (through the row's child on the playout's first move when that child is on the
  node's path). Boards recorded in earlier searches are not measured.
- Mean distance: over every similar board found in the 10 games; mean std: for each distance,
  the standard deviation over the games of its share of the game's similar boards, averaged
  over distances 0 to the largest seen.
- Appearance order: order of first appearance over the cells of the pre-game positions (initial
  position first), codes 0, 1, 10, 11, ...; Huffman: frequencies over the same positions.
- Random encoding at d = 2: the paper's table 2 does not print d, but it chose the random
  key's 20 bits by how often boards at Hamming distance 2 are found (its figure 7) and studies
  the random encoding's distance-2 boards (its 4.6.1, figure 9); it has no random row for Pawn
  Whopping. Its table 2 prints p = 2.11e-02 for Breakthrough's 193-307 as for Connect Four's
  219-271; the sign test of 193-307 gives 3.9e-07 (of 219-271, 2.11e-02), so the Breakthrough
  figure looks copied from the row above it.
- The switching rule's measurement is deterministic (seed 0): 10 self-play games of 10 moves at
  250 playouts per move, Huffman d = 2, one measuring player playing both sides.
"""


#: The page's section that ``ablation-report`` writes (:mod:`.ggp_experience_ablation`) and
#: ``report`` keeps when it rewrites the page.
ABLATION_HEADING = "## Ablation over the paper's open choices (headline cell)"


def kept_section(doc_path: str | None) -> str:
    """The ablation section of the page at ``doc_path`` ('' without one)."""
    if not doc_path or not Path(doc_path).exists():
        return ""
    text = Path(doc_path).read_text()
    at = text.find(ABLATION_HEADING)
    return "" if at < 0 else "\n" + text[at:]


def cmd_report(args) -> None:
    records = [json.loads(line) for line in Path(args.games_file).read_text().splitlines() if line]
    readings = sorted({r.get("reading", "baseline") for r in records})
    if len(readings) > 1:  # one table, one reading: cells of two readings do not add up
        raise SystemExit(f"error: {args.games_file} mixes the readings {', '.join(readings)}; "
                         f"report one reading's games")
    reading = VARIANTS[readings[0]] if readings else VARIANTS["baseline"]
    switch = json.loads(Path(args.switch).read_text()) if Path(args.switch).exists() else {}
    cells = tally(records)
    games = [g for g in GAMES if any(k[0] == g for k in cells)]
    main = {g: main_playouts(cells, g) for g in games}
    lines = ["| game | playouts | player | ours W-L-D | ours win rate (95% CI) | ours sign-test p | "
             "CPU s per game | paper W-L-D (500 playouts) | paper p | ours vs paper: z, p |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for g in games:
        for p in sorted({k[1] for k in cells if k[0] == g}, key=lambda p: (p != main[g], p)):
            for c in CONFIGS:
                if (g, p, c) not in cells:
                    continue
                w = cells[(g, p, c)]
                r = score_rate(w["win"], w["draw"], w["loss"])
                paper = PAPER.get(g, {}).get(c)
                ptxt = "-" if paper is None else f"{paper[0]}-{paper[1]}-{paper[2]}"
                pp = "-" if paper is None else f"{paper[3]:.2e}"
                versus = "-"
                if paper is not None:  # scores, a draw half a win, on both sides
                    test = two_proportion_test(w["win"] + w["draw"] / 2, w["win"] + w["loss"] + w["draw"],
                                               paper[0] + paper[2] / 2, sum(paper[:3]))
                    versus = f"{test['z']:+.2f}, {test['p_value']:.2g}"
                lines.append(f"| {g} | {p} | {c[:-1]} d={c[-1]} | {w['win']}-{w['loss']}-"
                             f"{w['draw']} | {r['win_rate']:.3f} "
                             f"({r['ci_low']:.2f}-{r['ci_high']:.2f}) | {sign_test(w['win'], w['loss']):.2e} | "
                             f"{np.mean(w['cpu']):.1f} | {ptxt} | {pp} | {versus} |")
    switch_lines = ["| game | self-play games | similar boards found | mean tree distance | "
                    "mean per-distance std | choice | paper distance / std (250 playouts) |",
                    "|---|---|---|---|---|---|---|"]
    for g in games:
        s = switch.get(g)
        if s is None:
            continue
        paper = PAPER[g]["switch"]
        found = int(np.sum([np.sum(c) for c in s["counts"]]))
        switch_lines.append(f"| {g} | {len(s['counts'])} | {found:,} | {s['mean_distance']:.2f} | "
                            f"{s['mean_std']:.2e} | d={s['distance']} | "
                            f"{paper[0]} / {paper[1]:.2e} |")

    def main_rate(g: str, config: str) -> float | None:
        w = cells.get((g, main[g], config))
        return None if w is None else rate(w["win"], w["loss"], w["draw"])

    average = {}
    for label, config in (("d=0", "huffman0"), ("d=2", "huffman2")):
        rates = [main_rate(g, config) for g in games]
        average[label] = float(np.mean(rates)) if None not in rates else float("nan")
    chosen = [main_rate(g, f"huffman{switch[g]['distance']}") if g in switch else None
              for g in games]
    average["switch"] = float(np.mean(chosen)) if None not in chosen else float("nan")
    avg_line = ("| | Huffman d=0 | Huffman d=2 | switching |\n|---|---|---|---|\n"
                f"| ours ({', '.join(f'{g} {main[g]}' for g in games)} playouts) | "
                f"{average['d=0']:.3f} | {average['d=2']:.3f} | {average['switch']:.3f} |\n"
                f"| paper (10 games, 500 playouts) | {PAPER_AVERAGE['d=0']} | "
                f"{PAPER_AVERAGE['d=2']} | {PAPER_AVERAGE['switch']} |")
    counts = sorted({w["win"] + w["loss"] + w["draw"] for (g, p, _), w in cells.items()
                     if p == main[g]})
    text = ("# Similar-board search experience in GGP: the similar-boards paper's experiment\n\n"
            "Made by `python scripts/ggp_experience_experiment.py report` from the games of "
            "`play` and the measurements of `switch`. Each cell: the experience player "
            "(UCT + the table, an encoding, Hamming distance d) against plain UCT, the same "
            "playouts per move, colours swapped in pairs; W-L-D are the experience player's, "
            f"the sign test leaves draws out. The reading of the paper's open choices: "
            f"**{reading.name}** ({reading.reading}). Games: "
            f"{len(records)} in all; {counts[0]}-{counts[-1]} per cell at "
            + ", ".join(f"{g} {main[g]}" for g in games) + " playouts per move (the paper: 500 "
            "games per cell, 500 playouts everywhere; the run's machine, load and budget are in "
            "BENCHMARKS.md, \"Similar-board search experience in GGP\")."
            + (f" Hundreds of games per cell were not affordable in this run: {counts[0]}-"
               f"{counts[-1]} per cell, CPU seconds per game in the table." if counts[-1] < 100
               else "")
            + f" Every game's record, its seed included, is in `{args.records or args.games_file}`."
            + " Ours vs paper: a two-proportion z-test of the two scores (z > 0: ours higher)."
            + "\n\n" + "\n".join(lines) + "\n\nSwitching rule (pre-game "
            "self-play, Huffman d=2):\n\n" + "\n".join(switch_lines) + "\n\nAveraged win rates "
            "over the games above at their main playouts (a draw counts half):\n\n" + avg_line
            + "\n" + NOTES)
    print(text)
    for path in (args.doc, args.png, args.records):
        if path:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
    if args.doc:  # the ablation's section, made by ablation-report, is kept
        Path(args.doc).write_text(text + kept_section(args.doc))
    if args.png:
        plot(cells, games, main, Path(args.png))
    if args.records:  # every game with its seed, to replay any of them
        Path(args.records).write_text("".join(json.dumps(r) + "\n" for r in records))


def plot(cells: dict, games: list[str], main: dict[str, int], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 4.5))
    width = 0.8 / len(CONFIGS)
    for i, c in enumerate(CONFIGS):
        xs, ys, errs, paper = [], [], [], []
        for j, g in enumerate(games):
            if (g, main[g], c) not in cells:
                continue
            w = cells[(g, main[g], c)]
            score = score_rate(w["win"], w["draw"], w["loss"])
            r, lo, hi = score["win_rate"], score["ci_low"], score["ci_high"]
            xs.append(j + (i - len(CONFIGS) / 2 + 0.5) * width)
            ys.append(r)
            errs.append((r - lo, hi - r))
            p = PAPER.get(g, {}).get(c)
            paper.append(np.nan if p is None else rate(*p[:3]))
        if xs:
            ax.bar(xs, ys, width, yerr=np.array(errs).T, capsize=2, ecolor="grey",
                   label=c[:-1] + " d=" + c[-1])
            ax.scatter(xs, paper, marker="*", s=70, color="black", zorder=3,
                       label="the paper (500 playouts)" if i == 0 else None)
    ax.axhline(0.5, color="grey", lw=0.8)
    ax.set_xticks(range(len(games)), [f"{g} ({main[g]} playouts)" for g in games])
    ax.set_ylabel("win rate vs plain UCT")
    ax.set_ylim(0, 1)
    ax.set_title("Search experience vs plain UCT: ours (bars, 95% CI), the paper's at 500 "
                 "playouts (stars)", fontsize=10)
    ax.legend(fontsize=7, ncol=6, loc="upper center", bbox_to_anchor=(0.5, -0.1))
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main(argv: list[str] | None = None, more: Callable | None = None) -> None:
    """The command line; ``more(subparsers)`` adds further subcommands and returns their
    functions by name (the ablation's)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("play")
    p.add_argument("--games", nargs="+", default=list(GAMES))
    p.add_argument("--configs", nargs="+", default=list(CONFIGS))
    p.add_argument("--pairs", type=int, default=50, help="colour-swapped game pairs per cell")
    p.add_argument("--playouts", type=int, default=500)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--reading", default="baseline", help="the open choices' reading: " + ", ".join(VARIANTS))
    p.add_argument("--shard", default="0/1", help="i/n: play every n-th task from the i-th")
    p.add_argument("--until", default=None, help="UTC HH:MM: start no game after it")
    p.add_argument("--out", default="runs/ggp_experience/games.jsonl")
    s = sub.add_parser("switch")
    s.add_argument("--games", nargs="+", default=list(GAMES))
    s.add_argument("--playouts", type=int, default=250)
    s.add_argument("--selfplay-games", type=int, default=10)
    s.add_argument("--moves", type=int, default=10)
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--out", default="runs/ggp_experience/switch.json")
    r = sub.add_parser("report")
    r.add_argument("--games-file", default="runs/ggp_experience/games.jsonl")
    r.add_argument("--switch", default="runs/ggp_experience/switch.json")
    r.add_argument("--doc", default=None)
    r.add_argument("--png", default=None)
    r.add_argument("--records", default=None, help="write every game's record (seed included)")
    commands = {"play": cmd_play, "switch": cmd_switch, "report": cmd_report,
                **(more(sub) if more else {})}
    args = parser.parse_args(argv)
    for name in getattr(args, "configs", []):
        if parse_experience(name) == "switch":
            raise ValueError("play takes encodings with a distance (huffman2, ...); see switch")
    commands[args.command](args)

