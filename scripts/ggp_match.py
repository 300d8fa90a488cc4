"""Plays GGP matches between HTTP players (ours or foreign, by URL):
:mod:`blokuszero.match.ggp.game_manager`'s command line.

    python scripts/ggp_match.py RULES.kif URL1 URL2 ... [--start-clock 10] [--play-clock 5]
        [--matches 1] [--rotate] [--out matches/]

Players are given in role order; each match is written as JSON; results are printed.
"""

from __future__ import annotations

import argparse

import numpy as np

from blokuszero.match.ggp.game_manager import run_matches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rules", help="the game's GDL description (.kif)")
    parser.add_argument("players", nargs="+", help="player URLs in role order")
    parser.add_argument("--start-clock", type=float, default=10.0)
    parser.add_argument("--play-clock", type=float, default=5.0)
    parser.add_argument("--matches", type=int, default=1)
    parser.add_argument("--rotate", action="store_true", help="rotate the players' roles per match")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="ggp_matches", help="folder for the match records")
    args = parser.parse_args()
    goals = run_matches(args.rules, args.players, args.out, matches=args.matches,
                        rotate=args.rotate, seed=args.seed, start_clock=args.start_clock,
                        play_clock=args.play_clock)
    for url, values in goals.items():
        print(f"{url}: mean goal {np.mean(values):.1f} over {len(values)} matches")


if __name__ == "__main__":
    main()
