"""The paper's 9x9 experiment (SPEC §4): pattern-weighted RAVE against plain RAVE.

Plays ``--games`` games between RAVE with local-pattern weights (k, l) and plain Fuego-style
RAVE (k = l = 1), the same number of playouts per move for both, colours alternating (even
games: the weighted player is Black). Writes one JSON line per game and a summary with the
weighted player's win rates by colour and their Wilson 95% intervals, to compare with the
paper's 58.6% / 47.1% (pattern (1.5, 1)) against 56.0% / 44.0% (Fuego against itself), both
at 10,000 playouts per move over 10,000 games.

    python scripts/go_rave_experiment.py --games 200 --playouts 1000 --workers 2 --out runs/go_rave
"""

from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import numpy as np

from blokuszero.games.go import GoGame
from blokuszero.games.go.sgf import write_sgf
from blokuszero.players.factory import make_player
from blokuszero.match.stats import wilson_interval


def play_one(index: int, seed: int, size: int, komi: float, playouts: int, k: float, l: float,
             beta_unweighted: bool) -> dict:
    """One game; the weighted player is Black in even games."""
    game = GoGame(size, komi)
    seeds = np.random.SeedSequence([seed, index]).generate_state(2)
    weighted = make_player(game, {"preset": "go_rave", "simulations": playouts, "k": k, "l": l,
                                  "beta_unweighted": beta_unweighted}, int(seeds[0]))
    plain = make_player(game, {"preset": "go_rave", "simulations": playouts}, int(seeds[1]))
    players = [weighted, plain] if index % 2 == 0 else [plain, weighted]
    state = game.new_initial_state()
    moves = []
    start = time.perf_counter()
    while not state.is_terminal():
        p = state.current_player()
        action = players[p].choose_action(state)
        state.apply_action(action)
        moves.append((p, action))
        for player in players:
            player.inform(action, p)
    weighted_colour = index % 2
    score = state.score()
    return {"index": index, "weighted_colour": "BW"[weighted_colour], "score": score,
            "weighted_won": bool((score > 0) == (weighted_colour == 0)) and score != 0,
            "moves": len(moves), "seconds": time.perf_counter() - start,
            "sgf": write_sgf(game, moves, {"PB": "weighted" if weighted_colour == 0 else "plain",
                                           "PW": "plain" if weighted_colour == 0 else "weighted",
                                           "RE": f"{'B' if score > 0 else 'W'}+{abs(score):g}"})}


def summarise(records: list[dict], args: argparse.Namespace) -> dict:
    out = {"games": len(records), "playouts_per_move": args.playouts, "size": args.size,
           "komi": args.komi, "k": args.k, "l": args.l, "beta_unweighted": args.beta_unweighted,
           "seed": args.seed}
    for colour in "BW":
        games = [r for r in records if r["weighted_colour"] == colour]
        wins = sum(r["weighted_won"] for r in games)
        low, high = wilson_interval(wins, len(games))
        out[f"weighted_as_{colour}"] = {"games": len(games), "wins": wins,
                                        "win_rate": wins / len(games) if games else 0.0,
                                        "ci95": [low, high]}
    wins = sum(r["weighted_won"] for r in records)
    low, high = wilson_interval(wins, len(records))
    out["weighted_overall"] = {"games": len(records), "wins": wins,
                               "win_rate": wins / len(records) if records else 0.0, "ci95": [low, high]}
    out["black_win_rate"] = (sum(r["score"] > 0 for r in records) / len(records)) if records else 0.0
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--playouts", type=int, default=1000, help="playouts per move, both players")
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--komi", type=float, default=6.5)
    parser.add_argument("--k", type=float, default=1.5, help="weight when the pattern ids match")
    parser.add_argument("--l", type=float, default=1.0, help="weight when they differ")
    parser.add_argument("--beta-unweighted", action="store_true", help="beta' from unweighted alpha_p")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("runs/go_rave_experiment"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "sgf").mkdir(exist_ok=True)
    records: list[dict] = []
    job = (args.seed, args.size, args.komi, args.playouts, args.k, args.l, args.beta_unweighted)
    with ProcessPoolExecutor(max_workers=args.workers) as pool, open(args.out / "games.jsonl", "w") as log:
        futures = [pool.submit(play_one, i, *job) for i in range(args.games)]
        for future in as_completed(futures):
            record = future.result()
            (args.out / "sgf" / f"game_{record['index']:05d}.sgf").write_text(record.pop("sgf"))
            records.append(record)
            log.write(json.dumps(record) + "\n")
            log.flush()
            summary = summarise(records, args)
            (args.out / "summary.json").write_text(json.dumps(summary, indent=2))
            b, w = summary["weighted_as_B"], summary["weighted_as_W"]
            print(f"{len(records)}/{args.games} games: weighted as Black {b['win_rate']:.1%} "
                  f"[{b['ci95'][0]:.1%}, {b['ci95'][1]:.1%}] ({b['games']}), as White "
                  f"{w['win_rate']:.1%} [{w['ci95'][0]:.1%}, {w['ci95'][1]:.1%}] ({w['games']})",
                  flush=True)
    print(json.dumps(summarise(records, args), indent=2))


if __name__ == "__main__":
    main()
