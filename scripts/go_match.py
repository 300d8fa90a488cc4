"""Games between two GTP engines, refereed and scored by GNU Go (Chinese rules).

Colours alternate (engine 1 is Black in even games). Every move goes to the referee first:
a move the referee refuses loses the game for its player; ``resign`` loses too. Two passes in a
row end the game and the referee's ``final_score`` decides it. Writes one SGF per game, one
JSON line per game and ``summary.json`` with each engine's win rate as Black, as White and in
all, with Wilson 95% intervals.

    python scripts/go_match.py --games 10 --size 9 \\
        --engine1 "python -m blokuszero.engines.go --playouts 5000 --seed 1" --name1 ours \\
        --engine2 "gnugo --mode gtp --level 1" --name2 gnugo-1 --out runs/go_match
"""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import time
from pathlib import Path

from blokuszero.games.go import GoGame
from blokuszero.games.go.sgf import write_sgf
from blokuszero.match.stats import wilson_interval
from blokuszero.protocols.gtp import GtpClient, GtpError

REFEREE = "gnugo --mode gtp --chinese-rules"


def client(command: str, name: str) -> GtpClient:
    """The engine ``command`` in a child process; Debian installs GNU Go in /usr/games, which
    is not always on PATH."""
    argv = shlex.split(command)
    if argv and shutil.which(argv[0]) is None and shutil.which(f"/usr/games/{argv[0]}"):
        argv[0] = f"/usr/games/{argv[0]}"
    return GtpClient(argv, name)


def play_game(index: int, black: GtpClient, white: GtpClient, referee: GtpClient,
              game: GoGame) -> dict:
    """One game; the record holds the winner's colour, the score or reason and the SGF."""
    for engine in (black, white, referee):
        engine.send(f"boardsize {game.size}")
        engine.send("clear_board")
        engine.send(f"komi {game.komi}")
    engines = (black, white)
    moves: list[tuple[int, int]] = []
    passes, winner, reason = 0, None, ""
    start = time.perf_counter()
    while passes < 2 and len(moves) < game.max_game_length:
        p = len(moves) % 2
        colour = "BW"[p]
        vertex = engines[p].send(f"genmove {colour}")
        if vertex.lower() == "resign":
            winner, reason = 1 - p, f"{colour} resigned"
            break
        try:
            referee.send(f"play {colour} {vertex}")
            engines[1 - p].send(f"play {colour} {vertex}")
        except GtpError as err:
            winner, reason = 1 - p, f"{colour} {vertex} refused: {err}"
            break
        action = game.parse_vertex(vertex)
        moves.append((p, action))
        passes = passes + 1 if action == game.pass_action else 0
    score = referee.send("final_score")  # "B+3.5", "W+0.5" or "0"
    if winner is not None:  # resignation or a refused move
        result = f"{'BW'[winner]}+{'R' if 'resigned' in reason else 'F'}"
    else:
        winner = None if score == "0" else "BW".index(score[0])
        result, reason = score, f"score {score}"
    sgf = write_sgf(game, moves, {"PB": black.name, "PW": white.name, "RE": result,
                                  "GC": f"game {index}; {reason}; referee: {REFEREE}"})
    return {"index": index, "black": black.name, "white": white.name,
            "winner": None if winner is None else (black.name, white.name)[winner],
            "result": result, "reason": reason, "moves": len(moves),
            "seconds": time.perf_counter() - start, "sgf": sgf}


def summarise(records: list[dict], names: tuple[str, str]) -> dict:
    out: dict = {"games": len(records)}
    for name in names:
        entry = {}
        for colour in ("black", "white", "all"):
            games = [r for r in records if colour == "all" or r[colour] == name]
            wins = sum(r["winner"] == name for r in games)
            low, high = wilson_interval(wins, len(games))
            entry[colour] = {"games": len(games), "wins": wins,
                             "win_rate": wins / len(games) if games else 0.0, "ci95": [low, high]}
        out[name] = entry
    return out


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
    parser.add_argument("--out", type=Path, default=Path("runs/go_match"))
    args = parser.parse_args()
    if args.name1 == args.name2:
        parser.error("the two engines need different names")
    game = GoGame(args.size, args.komi)
    (args.out / "sgf").mkdir(parents=True, exist_ok=True)
    one, two = client(args.engine1, args.name1), client(args.engine2, args.name2)
    referee = client(args.referee, "referee")
    records = []
    try:
        with open(args.out / "games.jsonl", "w") as log:
            for i in range(args.games):
                black, white = (one, two) if i % 2 == 0 else (two, one)
                record = play_game(i, black, white, referee, game)
                (args.out / "sgf" / f"game_{i:04d}.sgf").write_text(record.pop("sgf"))
                records.append(record)
                log.write(json.dumps(record) + "\n")
                log.flush()
                print(f"game {i}: {record['black']} (B) vs {record['white']} (W): {record['result']} "
                      f"in {record['moves']} moves, {record['seconds']:.0f} s", flush=True)
                summary = summarise(records, (args.name1, args.name2))
                summary.update(engine1=args.engine1, engine2=args.engine2, size=args.size,
                               komi=args.komi, referee=args.referee)
                (args.out / "summary.json").write_text(json.dumps(summary, indent=2))
    finally:
        for engine in (one, two, referee):
            engine.close()
    for name in (args.name1, args.name2):
        for colour in ("black", "white", "all"):
            e = summary[name][colour]
            print(f"{name:12s} {colour:5s} {e['wins']:3d}/{e['games']:3d} = {e['win_rate']:6.1%} "
                  f"[{e['ci95'][0]:.1%}, {e['ci95'][1]:.1%}]")


if __name__ == "__main__":
    main()
