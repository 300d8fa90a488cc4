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
    # the confirming run: the reading fixed from the ablation (CONFIRM_VARIANT), on seeds no
    # ablation game used (CONFIRM_SEED), 500 games (resumable, shardable like ablation)
    python scripts/ggp_experience_experiment.py confirm [--shard 0/2] [--until 08:40] \\
        [--out docs/ggp_experience_confirm.jsonl]
    # the table and the confirming run's section, spliced into the report's page (its section
    # replaced), and the ablation's records kept
    python scripts/ggp_experience_experiment.py ablation-report \\
        [--games-file runs/ggp_experience/ablation.jsonl] [--doc docs/ggp_experience.md] \\
        [--records docs/ggp_experience_ablation.jsonl] \\
        [--confirm-file docs/ggp_experience_confirm.jsonl]

Any game replays from its record: :func:`~.ggp_experience.play_game` with the record's seed,
``exp_role`` and its variant's ``experience`` and ``both`` options.
"""

from __future__ import annotations

import json
import time
import zlib
from pathlib import Path

from ..games.ggp import GgpGame
from ..match.stats import (
    paired_difference,
    score_rate,
    sign_test,
    two_proportion_test,
    wilson_interval,
)
from . import ggp_experience
from .ggp_experience import ABLATION_HEADING, RULES, VARIANTS, Variant, deadline, play_game, variant

GAME, CONFIG, PLAYOUTS = "breakthrough", "huffman2", 500
PAPER = (326, 174, 0)  # the paper's table 3: Breakthrough, Huffman d = 2, 500 games
SCORE = {"win": 1.0, "draw": 0.5, "loss": 0.0}


#: The confirming run: the reading fixed from the ablation before any of its games was played
#: (the variant with the highest rate there; no variant differed from the baseline on paired
#: games), the seed its games' seeds come from (the ablation's came from 0), and its games.
CONFIRM_VARIANT, CONFIRM_SEED, CONFIRM_GAMES = "lifetime=move", 1, 500


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index``, the same under every variant."""
    return zlib.crc32(f"ablation/{seed}/{GAME}/{CONFIG}/{index}".encode())


def cmd_ablation(args) -> None:
    """Play the variants' games into ``args.out`` (interleaved by game index, resumable)."""
    try:
        variants = [variant(n) for n in args.variants]
    except ValueError as e:
        raise SystemExit(f"error: {e}") from None
    play_variants(variants, args.games, args.seed, args.shard, args.until, args.out)


def cmd_confirm(args) -> None:
    """Play the confirming run's games into ``args.out`` (resumable, shardable)."""
    play_variants([VARIANTS[CONFIRM_VARIANT]], args.games, CONFIRM_SEED, args.shard, args.until,
                  args.out)


def play_variants(variants: list[Variant], games: int, seed: int, shard: str, until: str | None,
                  out_path: str) -> None:
    """Play games ``0..games-1`` of the headline cell under each of ``variants`` into
    ``out_path``, interleaved by game index, game i on :func:`game_seed` (``seed``, i); games
    already in the file are skipped; ``shard`` ``i/n`` plays every n-th game from the i-th;
    none starts after ``until`` (UTC HH:MM)."""
    index, count = map(int, shard.split("/"))
    stop = deadline(until)
    out = Path(out_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    done = set()
    if out.exists():
        done = {(r["variant"], r["seed"]) for r in map(json.loads, out.read_text().splitlines())}
    game = GgpGame.from_file(RULES / f"{GAME}.kif")
    tasks = [(i, v) for i in range(games) for v in variants]
    for t, (i, v) in enumerate(tasks):
        if t % count != index:
            continue
        game_i = game_seed(seed, i)
        if (v.name, game_i) in done:
            continue
        if time.time() > stop:
            print("stopped at the deadline")
            return
        record = play_game(game, CONFIG, PLAYOUTS, i % 2, game_i, experience=v.experience,
                           both=v.both)
        record = {"variant": v.name, "index": i, **record, "experience": v.experience,
                  "both": v.both}
        with out.open("a") as f:
            f.write(json.dumps(record) + "\n")
        print(json.dumps(record), flush=True)


def confirm_section(records: list[dict], ablation: list[dict]) -> str:
    """The confirming run's section (Markdown): its result against the paper's by a
    two-proportion test, and a check that none of its seeds is an ablation game's."""
    v = VARIANTS[CONFIRM_VARIANT]
    res = [r["result"] for r in records]
    w, l, d = res.count("win"), res.count("loss"), res.count("draw")
    s = score_rate(w, d, l)
    hours = sum(r["cpu_seconds"] for r in records) / 3600
    shared = {r["seed"] for r in records} & {r["seed"] for r in ablation}
    if shared:
        raise ValueError(f"the confirming run shares {len(shared)} seeds with the ablation's games")
    test = two_proportion_test(w + 0.5 * d, len(res), PAPER[0] + 0.5 * PAPER[2], sum(PAPER))
    if len(res) < CONFIRM_GAMES:
        verdict = (f"{len(res)} of the run's {CONFIRM_GAMES} games played so far; the verdict "
                   f"waits for all of them.")
    elif test["p_value"] < 0.05:
        verdict = ("The test rejects at 0.05: the reading does not reproduce the paper's "
                   "headline cell.")
    else:
        verdict = ("The test does not reject at 0.05: the headline cell at this reading lies "
                   "within the paper's result.")
    return (f"### The confirming run (fresh seeds)\n\nMade by `python scripts/ggp_experience_"
            f"experiment.py confirm` (records in `docs/ggp_experience_confirm.jsonl`). The reading, "
            f"fixed from the ablation before these games were played: **{v.name}** ({v.reading}); "
            f"every other choice as the baseline's. The games' seeds come from seed {CONFIRM_SEED} "
            f"(the ablation's from 0; none of the {len(res)} is an ablation game's seed), colours "
            f"alternating by game.\n\n| games | W-L-D | win rate (95% Wilson) | sign test p | "
            f"the paper | ours minus the paper's rate: two-proportion z, p | CPU core-hours |\n"
            f"|---|---|---|---|---|---|---|\n"
            f"| {len(res)} | {w}-{l}-{d} | {s['win_rate']:.3f} [{s['ci_low']:.3f}, "
            f"{s['ci_high']:.3f}] | {sign_test(w, l):.2g} | {PAPER[0]}-{PAPER[1]}-{PAPER[2]}, "
            f"{PAPER[0] / sum(PAPER):.3f} | {test['z']:+.2f}, {test['p_value']:.2g} | "
            f"{hours:.2f} |\n\n{verdict}\n")


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
    confirm = Path(args.confirm_file) if args.confirm_file else None
    if confirm and confirm.exists():
        kept = [json.loads(line) for line in confirm.read_text().splitlines() if line]
        section += "\n" + confirm_section(kept, records)
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
    c = sub.add_parser("confirm", help=f"the reading {CONFIRM_VARIANT} on fresh seeds")
    c.add_argument("--games", type=int, default=CONFIRM_GAMES)
    c.add_argument("--shard", default="0/1", help="i/n: play every n-th game from the i-th")
    c.add_argument("--until", default=None, help="UTC HH:MM: start no game after it")
    c.add_argument("--out", default="docs/ggp_experience_confirm.jsonl")
    r = sub.add_parser("ablation-report")
    r.add_argument("--games-file", default="runs/ggp_experience/ablation.jsonl")
    r.add_argument("--doc", default="docs/ggp_experience.md")
    r.add_argument("--records", default="docs/ggp_experience_ablation.jsonl")
    r.add_argument("--confirm-file", default="docs/ggp_experience_confirm.jsonl")
    return {"ablation": cmd_ablation, "confirm": cmd_confirm,
            "ablation-report": cmd_ablation_report}


def main(argv: list[str] | None = None) -> None:
    """The experiment's command line with the ablation's subcommands."""
    ggp_experience.main(argv, add_commands)
