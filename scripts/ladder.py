"""Elo ladder of every player in the matches stored under some directories.

    python scripts/ladder.py evaluations/                 # every evaluation and arena run there
    python scripts/ladder.py evaluations/ outputs/ --anchor "mcts_maxn 800" --figure docs/ladder.png
"""

from __future__ import annotations

import argparse

from blokuszero.match.ladder import fit_elo, format_ladder, load_seats, plot_ladder, scores, seat_rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("roots", nargs="+", help="directories searched for match.json + games.jsonl")
    parser.add_argument("--anchor", help="the player rated 0 (default: the one in the most games)")
    parser.add_argument("--prior-sd", type=float, default=2000.0,
                        help="weak prior on ratings, in Elo (keeps unbeaten players finite); 0: none")
    parser.add_argument("--figure", help="also draw the ladder as a PNG here")
    parser.add_argument("--title", default="Elo ladder", help="the figure's title")
    args = parser.parse_args()
    seats = [g for root in args.roots for g in load_seats(root)]
    games = scores(seats)
    if not games:
        raise SystemExit(f"ladder: no stored matches (match.json and games.jsonl) under {args.roots}")
    try:
        ratings = fit_elo(games, anchor=args.anchor, prior_sd=args.prior_sd or None)
    except ValueError as err:
        raise SystemExit(f"ladder: {err}") from None
    print(f"{len(games)} games")
    print(format_ladder(ratings, seat_rates(seats)))
    if args.figure:
        plot_ladder(ratings, args.figure, f"{args.title} ({len(games)} games)")
        print(f"figure: {args.figure}")


if __name__ == "__main__":
    main()
