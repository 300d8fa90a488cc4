"""Games between two GTP engines, refereed and scored by GNU Go (Chinese rules), on the match
runner (blokuszero/match/runner.py).

Colours alternate (engine 1 is Black in even games). Every move goes to the referee too: a move
it refuses loses the game for its player; ``resign`` loses too, and so does an engine that
crashes or answers an illegal move (the game is forfeited, the reason printed and stored as
``forfeit`` in ``games.jsonl``; the match goes on). Two passes in a row end the game
and the referee's ``final_score`` decides it (it removes dead stones, which our area count does
not). Writes one SGF per game (``games/``), ``games.jsonl``, ``match.json`` (``--resume`` plays
only the missing games) and ``summary.json`` with each engine's win rate as Black, as White and
in all, with Wilson 95% intervals.

    python scripts/go_match.py --games 10 --size 9 \\
        --engine1 "python -m blokuszero.engines.go --playouts 5000 --seed 1" --name1 ours \\
        --engine2 "gnugo --mode gtp --level 1" --name2 gnugo-1 --out runs/go_match

To play another checkout of this engine, start it with ``python -P -m`` (``env
PYTHONPATH=/other/checkout python -P -m blokuszero.engines.go``): plain ``python -m`` puts the
current directory first on the import path, so run from a clone it would import that clone's
engine instead, whatever ``PYTHONPATH`` says.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from blokuszero.match.arena import Match
from blokuszero.match.runner import run_match
from blokuszero.match.summary import format_by_colour

REFEREE = "gnugo --mode gtp --chinese-rules"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--engine1", required=True, help="command line of the first GTP engine")
    parser.add_argument("--engine2", required=True, help="command line of the second GTP engine")
    parser.add_argument("--name1", default="engine1")
    parser.add_argument("--name2", default="engine2")
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--komi", type=float, default=6.5)
    parser.add_argument("--referee", default=REFEREE, help="GTP command of the scoring referee")
    parser.add_argument("--seed", type=int, default=0, help="seeds the engines that take set_random_seed")
    parser.add_argument("--workers", type=int, default=1, help="games played side by side")
    parser.add_argument("--resume", action="store_true", help="keep the games already stored in --out")
    parser.add_argument("--out", type=Path, default=Path("runs/go_match"))
    args = parser.parse_args()
    if args.name1 == args.name2:
        parser.error("the two engines need different names")
    if args.games < 1:
        parser.error(f"--games must be at least 1, not {args.games}: a match needs a game to play")
    match = Match("go", (args.name1, args.name2),
                  {args.name1: {"kind": "gtp", "command": args.engine1},
                   args.name2: {"kind": "gtp", "command": args.engine2}},
                  game_options={"size": args.size, "komi": args.komi}, seating="rotate", referee=args.referee)
    summary = run_match(match, args.games, args.seed, args.out, args.workers, resume=args.resume,
                        label=f"{args.name1} vs {args.name2}")
    print(format_by_colour(summary))


if __name__ == "__main__":
    main()
