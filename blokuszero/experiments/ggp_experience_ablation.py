"""Ablation over the similar-boards paper's open choices on its headline cell (SPEC §5, seed
000): Breakthrough, UCT with the experience table (Huffman, Hamming distance 2) against plain
UCT, 500 playouts per move, colours swapped in pairs. Each variant changes one choice from the
baseline (the implementation's readings); game ``i`` has the same seed and colours under every
variant, so variants pair by game.

    # games interleaved by index (game 0 of every variant, then game 1, ...), one JSON line
    # each (appends, skips games already in the file; several shards at once)
    python scripts/ggp_experience_experiment.py ablation --games 100 \\
        [--variants baseline tree=fresh ...] [--shard 0/2] [--until 08:40] \\
        [--out runs/ggp_experience/ablation.jsonl]
    # the table, spliced into the report's page (its section replaced), and the records kept
    python scripts/ggp_experience_experiment.py ablation-report \\
        [--games-file runs/ggp_experience/ablation.jsonl] [--doc docs/ggp_experience.md] \\
        [--records docs/ggp_experience_ablation.jsonl]

Any game replays from its record: :func:`~.ggp_experience.play_game` with the record's seed,
``exp_role`` and its variant's ``experience`` and ``both`` options.
"""

from __future__ import annotations

import json
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from ..games.ggp import GgpGame
from ..match.stats import paired_difference, score_rate, sign_test, wilson_interval
from . import ggp_experience
from .ggp_experience import ABLATION_HEADING, RULES, C, deadline, play_game

GAME, CONFIG, PLAYOUTS = "breakthrough", "huffman2", 500
PAPER = (326, 174, 0)  # the paper's table 3: Breakthrough, Huffman d = 2, 500 games
SCORE = {"win": 1.0, "draw": 0.5, "loss": 0.0}


@dataclass(frozen=True)
class Variant:
    """One reading of one open choice: ``experience``, the experience player's table options
    changed; ``both``, both players' UCT settings changed (the baseline's are the defaults)."""

    name: str
    reading: str
    experience: dict = field(default_factory=dict)
    both: dict = field(default_factory=dict)


#: The variants, the most promising readings first (the order games are played in).
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
        raise ValueError(f"unknown ablation variant {name!r}; known: {', '.join(VARIANTS)}")
    return VARIANTS[name]


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index``, the same under every variant."""
    return zlib.crc32(f"ablation/{seed}/{GAME}/{CONFIG}/{index}".encode())


def cmd_ablation(args) -> None:
    """Play the variants' games into ``args.out`` (interleaved by game index, resumable)."""
    try:
        variants = [variant(n) for n in args.variants]
    except ValueError as e:
        raise SystemExit(f"error: {e}") from None
    index, count = map(int, args.shard.split("/"))
    stop = deadline(args.until)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    done = set()
    if out.exists():
        done = {(r["variant"], r["seed"]) for r in map(json.loads, out.read_text().splitlines())}
    game = GgpGame.from_file(RULES / f"{GAME}.kif")
    tasks = [(i, v) for i in range(args.games) for v in variants]
    for t, (i, v) in enumerate(tasks):
        if t % count != index:
            continue
        seed = game_seed(args.seed, i)
        if (v.name, seed) in done:
            continue
        if time.time() > stop:
            print("stopped at the deadline")
            return
        record = play_game(game, CONFIG, PLAYOUTS, i % 2, seed, experience=v.experience,
                           both=v.both)
        record = {"variant": v.name, "index": i, **record, "experience": v.experience,
                  "both": v.both}
        with out.open("a") as f:
            f.write(json.dumps(record) + "\n")
        print(json.dumps(record), flush=True)


def ablation_table(records: list[dict]) -> str:
    """The ablation's section (Markdown): per variant its games, W-L-D, win rate with its
    Wilson interval, sign test, the paired comparison with the baseline on the games both
    played, and CPU core-hours."""
    by: dict[str, dict[int, dict]] = {}
    for r in records:
        by.setdefault(r["variant"], {})[r["index"]] = r
    base = by.get("baseline", {})
    lo, hi = wilson_interval(PAPER[0], sum(PAPER))
    lines = ["| variant | reading | games | W-L-D | win rate (95% Wilson) | sign test p | "
             "minus the baseline on the same games: pairs, mean score difference (95%) | "
             "better-worse games, sign test p | CPU core-hours |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name, v in VARIANTS.items():
        games = by.get(name)
        if not games:
            continue
        res = [g["result"] for g in games.values()]
        w, l, d = res.count("win"), res.count("loss"), res.count("draw")
        s = score_rate(w, d, l)
        hours = sum(g["cpu_seconds"] for g in games.values()) / 3600
        shared = sorted(set(games) & set(base)) if name != "baseline" else []
        if shared:
            p = paired_difference([SCORE[games[i]["result"]] for i in shared],
                                  [SCORE[base[i]["result"]] for i in shared])
            paired = (f"{p['pairs']}, {p['mean']:+.3f} [{p['ci_low']:+.3f}, {p['ci_high']:+.3f}]",
                      f"{p['wins']}-{p['losses']}, {p['p_value']:.2f}")
        else:
            paired = ("-", "-")
        lines.append(f"| {name} | {v.reading} | {len(res)} | {w}-{l}-{d} | {s['win_rate']:.3f} "
                     f"[{s['ci_low']:.3f}, {s['ci_high']:.3f}] | {sign_test(w, l):.2g} | "
                     f"{paired[0]} | {paired[1]} | {hours:.2f} |")
    total = sum(r["cpu_seconds"] for r in records) / 3600
    return (f"{ABLATION_HEADING}\n\nMade by `python scripts/ggp_experience_experiment.py "
            f"ablation-report` from the games of `ablation` (every game's record, its seed "
            f"included, in `docs/ggp_experience_ablation.jsonl`). The cell: {GAME}, the "
            f"experience player ({CONFIG[:-1]} d={CONFIG[-1]}) against plain UCT, {PLAYOUTS} "
            f"playouts per move, colours alternating by game. Each variant changes one choice "
            f"from the baseline; game i has the same seed and colours under every variant. "
            f"W-L-D are the experience player's; a draw scores half. The paper: "
            f"{PAPER[0]}-{PAPER[1]}-{PAPER[2]}, {PAPER[0] / sum(PAPER):.3f} "
            f"[{lo:.3f}, {hi:.3f}]. Games: {len(records)} in all, {total:.2f} CPU core-hours.\n\n"
            + "\n".join(lines) + "\n")


def splice(doc: str, section: str) -> str:
    """``doc`` with its ablation section (from :data:`ABLATION_HEADING` to the end) replaced
    by ``section``, or ``section`` appended."""
    at = doc.find(ABLATION_HEADING)
    head = doc if at < 0 else doc[:at]
    return head.rstrip("\n") + "\n\n" + section


def cmd_ablation_report(args) -> None:
    """Render the ablation section into ``args.doc`` and copy the records to ``args.records``."""
    records = [json.loads(line) for line in Path(args.games_file).read_text().splitlines() if line]
    section = ablation_table(records)
    print(section)
    if args.doc:
        doc = Path(args.doc)
        doc.write_text(splice(doc.read_text() if doc.exists() else "", section))
    if args.records:
        Path(args.records).parent.mkdir(parents=True, exist_ok=True)
        Path(args.records).write_text("".join(json.dumps(r) + "\n" for r in records))


def add_commands(sub) -> dict:
    """Add the ``ablation`` and ``ablation-report`` subcommands to ``sub``; their functions by
    name."""
    a = sub.add_parser("ablation", help="the headline cell under each reading of an open choice")
    a.add_argument("--games", type=int, default=100, help="games per variant")
    a.add_argument("--variants", nargs="+", default=list(VARIANTS), help=", ".join(VARIANTS))
    a.add_argument("--seed", type=int, default=0)
    a.add_argument("--shard", default="0/1", help="i/n: play every n-th game from the i-th")
    a.add_argument("--until", default=None, help="UTC HH:MM: start no game after it")
    a.add_argument("--out", default="runs/ggp_experience/ablation.jsonl")
    r = sub.add_parser("ablation-report")
    r.add_argument("--games-file", default="runs/ggp_experience/ablation.jsonl")
    r.add_argument("--doc", default="docs/ggp_experience.md")
    r.add_argument("--records", default="docs/ggp_experience_ablation.jsonl")
    return {"ablation": cmd_ablation, "ablation-report": cmd_ablation_report}


def main(argv: list[str] | None = None) -> None:
    """The experiment's command line with the ablation's subcommands."""
    ggp_experience.main(argv, add_commands)
