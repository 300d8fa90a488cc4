"""Our GGP player against ggp-base (the field's reference Java server and player library), on a
user's ggp-base build: :mod:`blokuszero.match.ggp.ggp_base`'s command line.

    python scripts/ggp_base_match.py referee RULES.kif... --ggp-base DIR [--matches 2]
        [--start-clock 60] [--play-clock 10] [--seed 0] [--player-options '--playout mast']
        [--out runs/ggp_base]
    python scripts/ggp_base_match.py player --ggp-base DIR --port 9148

``referee``: ggp-base's GameServer referees our player against its SampleMonteCarloGamer (our
role rotating); each match's record is written, a line printed per match and a table at the end.
``player``: serves a SampleMonteCarloGamer, e.g. for our own manager (``scripts/ggp_match.py``).
DIR is a ggp-base source folder built as README says (default: the GGP_BASE variable).
"""

from __future__ import annotations

import argparse
import os
import shlex
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from blokuszero.match.ggp.ggp_base import compile_drivers, format_tally, ggp_base_classpath, run_series, tally
from blokuszero.processes import stop_process

DRIVERS = Path(__file__).resolve().parent / "ggp_base"  # the Java drivers, compiled at each run


def serve_player(classpath: str, port: int) -> None:
    """ggp-base's player until this process is interrupted or terminated, which stops it too."""
    player = subprocess.Popen(["java", "-cp", classpath, "GgpBasePlayer", str(port)])
    try:
        player.wait()
    finally:
        stop_process(player)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("referee", "player"))
    parser.add_argument("rules", nargs="*", help="referee: the games' GDL descriptions (.kif)")
    parser.add_argument("--ggp-base", default=os.environ.get("GGP_BASE"),
                        help="a built ggp-base source folder (default: $GGP_BASE)")
    parser.add_argument("--matches", type=int, default=2, help="matches per game (our role rotates)")
    parser.add_argument("--start-clock", type=int, default=60)
    parser.add_argument("--play-clock", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0, help="our player's seed in the first match (+1 per match)")
    parser.add_argument("--player-options", default="", help="more options of our player (blokuszero-ggp-player)")
    parser.add_argument("--out", default="runs/ggp_base", help="folder for the match records")
    parser.add_argument("--port", type=int, default=9148, help="player: the port to serve on")
    args = parser.parse_args()
    if args.ggp_base is None:
        parser.error("name a ggp-base build: --ggp-base DIR or the GGP_BASE variable")
    if args.command == "referee" and not args.rules:
        parser.error("referee: name at least one rule sheet (.kif)")
    # Terminated, the script still stops the players and JVMs it started (its finally blocks run).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    try:
        ggp_base = ggp_base_classpath(args.ggp_base)
    except FileNotFoundError as err:
        parser.error(str(err))
    with tempfile.TemporaryDirectory(prefix="ggp_base_drivers") as build:
        classpath = compile_drivers(DRIVERS, ggp_base, Path(build))
        if args.command == "player":
            serve_player(classpath, args.port)
            return
        records = run_series(args.rules, classpath, args.out, matches=args.matches, start_clock=args.start_clock,
                             play_clock=args.play_clock, seed=args.seed,
                             player_options=shlex.split(args.player_options))
    print(format_tally(tally(records)))


if __name__ == "__main__":
    main()
