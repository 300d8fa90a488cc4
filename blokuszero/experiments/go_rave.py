"""The paper's 9x9 experiment (SPEC §4): pattern-weighted RAVE against plain RAVE.

Plays ``--games`` games between RAVE with local-pattern weights (k, l) and plain Fuego-style
RAVE (k = l = 1), the same number of playouts per move for both, colours alternating (even
games: the weighted player is Black), on the match runner (blokuszero/match/runner.py):
``games.jsonl``, one SGF per game, ``match.json`` (``--resume`` plays only the missing games)
and ``summary.json``. Prints the weighted player's win rates as Black, as White and in all,
with Wilson 95% intervals, to compare with the paper's 58.6% / 47.1% (pattern (1.5, 1)) against
56.0% / 44.0% (Fuego against itself), both at 10,000 playouts per move over 10,000 games.

    python scripts/go_rave_experiment.py --games 200 --playouts 1000 --workers 2 --out runs/go_rave

``--playout-policy fuego`` gives both players Fuego-style playouts (the paper ran Fuego's).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..games.go.game import playout_rules
from ..match.arena import Match
from ..match.runner import run_match
from ..match.summary import format_by_colour


def experiment(args: argparse.Namespace) -> Match:
    """The match the command line describes: seat 0 (Black) is the weighted player in even games."""
    weighted = {"preset": "go_rave", "simulations": args.playouts, "k": args.k, "l": args.l,
                "beta_unweighted": args.beta_unweighted, "playout": args.playout_policy}
    plain = {"preset": "go_rave", "simulations": args.playouts, "playout": args.playout_policy}
    return Match("go", ("weighted", "plain"), {"weighted": weighted, "plain": plain},
                 game_options={"size": args.size, "komi": args.komi}, seating="rotate")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--playouts", type=int, default=1000, help="playouts per move, both players")
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--komi", type=float, default=6.5)
    parser.add_argument("--k", type=float, default=1.5, help="weight when the pattern ids match")
    parser.add_argument("--l", type=float, default=1.0, help="weight when they differ")
    parser.add_argument("--beta-unweighted", action="store_true", help="beta' from unweighted alpha_p")
    parser.add_argument("--playout-policy", default="uniform",
                        help="both players' playouts: uniform, fuego or fuego:RULE,... (as the Go engine's)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--resume", action="store_true", help="keep the games already stored in --out")
    parser.add_argument("--out", type=Path, default=Path("runs/go_rave_experiment"))
    args = parser.parse_args()
    try:
        playout_rules(args.playout_policy)
    except ValueError as err:
        parser.error(f"--playout-policy: {err}")
    summary = run_match(experiment(args), args.games, args.seed, args.out, args.workers,
                        resume=args.resume, label="pattern RAVE vs RAVE")
    print(f"{summary['games']} games, {args.size}x{args.size}, komi {args.komi:g}, "
          f"{args.playouts} playouts per move; summary in {args.out / 'summary.json'}")
    print(format_by_colour(summary, ["weighted"]))
