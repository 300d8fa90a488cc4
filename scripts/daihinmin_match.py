"""Run a Daihinmin match among 5 players on our copy of the official UECda server.

    python scripts/daihinmin_match.py --games 100 --log match.log
    python scripts/daihinmin_match.py --games 100 --players default,tcp:default,default,default,\
"cmd:./client -h {host} -p {port}"

Players (comma-separated, 5, player numbers in that order): ``default`` an in-process default
client; ``mc[:POLICY[/SELF][:BUDGET]]`` the in-process Monte Carlo client (playouts ``random``,
``default``, ``model`` or ``model_sample`` for the opponents, ``/SELF`` for its own moves; BUDGET
playouts per decision, or seconds as ``0.5s``); ``tcp:SPEC``
our ``blokuszero-uecda`` client playing SPEC, started as a process and connected over TCP;
``cmd:COMMAND`` any UECda client started by COMMAND ({host} and {port} filled in; a leading
``python`` is this script's interpreter). TCP
players connect to a server bound to 127.0.0.1 (``--host`` to change). Prints each player's mean
points per game with a 95% interval and writes the official game record.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

import numpy as np
from tqdm import tqdm

from blokuszero.games.daihinmin import Rules
from blokuszero.games.daihinmin.match import MatchSettings
from blokuszero.games.daihinmin.server import LocalSeat, run_match
from blokuszero.players.gtp_player import engine_argv
from blokuszero.players.daihinmin_mc import make_client
from blokuszero.protocols.uecda import TcpSeat, accept_player, listen


def _short(spec: str) -> str:
    """An in-process player's name stem: ``dflt`` for the default client (as the official
    records name it), else the spec's first part."""
    return "dflt" if spec == "default" else spec.split(":")[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--players", default="default,default,default,default,default")
    parser.add_argument("--seed", type=int, default=None,
                        help="server seed (default: time); Monte Carlo player n searches with seed + n")
    parser.add_argument("--log", default=None, help="write the game record here")
    parser.add_argument("--points", default=None,
                        help="write the points per game and player here (.npy, [games, 5])")
    parser.add_argument("--rank-reset", type=int, default=100, help="FLASH_MIBUN_NUMBER")
    parser.add_argument("--seat-every", type=int, default=5, help="RULE_SEKIGAE_NUM")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="TCP port (0: any free one)")
    args = parser.parse_args(argv)
    specs = args.players.split(",")
    if len(specs) != 5:
        parser.error(f"--players names 5 players, not {len(specs)}")
    seed = int(time.time()) if args.seed is None else args.seed
    listener = None
    processes = []
    seats = []
    try:
        for number, spec in enumerate(specs):
            if not spec.startswith(("tcp:", "cmd:")):
                try:
                    client = make_client(spec, seed + number)
                except ValueError as err:
                    parser.error(str(err))
                seats.append(LocalSeat(client, f"{_short(spec)}{number}"))
                continue
            if listener is None:
                listener = listen(args.host, args.port)
            host, port = listener.getsockname()[:2]
            if spec.startswith("tcp:"):
                command = [sys.executable, "-m", "blokuszero.engines.uecda", "-h", host, "-p",
                           str(port), "-n", f"{spec[4:].split(':')[0]}{number}", "--player",
                           spec[4:], "--seed", str(seed + number)]
            elif spec.startswith("cmd:"):
                command = engine_argv(spec[4:].format(host=host, port=port))
            else:
                parser.error(f"unknown player {spec!r}: default, mc..., tcp:SPEC or cmd:COMMAND")
            processes.append(subprocess.Popen(command))
            conn, name = accept_player(listener, number)
            seats.append(TcpSeat(conn, name))
        port = listener.getsockname()[1] if listener else 0
        bar = tqdm(total=args.games, unit="game")
        result = run_match(seats, MatchSettings(games=args.games, rank_reset=args.rank_reset,
                                                seat_change_every=args.seat_every),
                           Rules(), seed, args.log, port, lambda n, points: bar.update())
        bar.close()
    finally:
        if listener is not None:
            listener.close()
        for process in processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
    points = np.array(result.points, dtype=float)
    if args.points:
        np.save(args.points, points)
    print(f"{args.games} games, seed {seed}" + (f", record {args.log}" if args.log else ""))
    for p, name in enumerate(result.names):
        mean = points[:, p].mean()
        half = 1.96 * points[:, p].std(ddof=1) / np.sqrt(len(points)) if len(points) > 1 else 0
        print(f"player {p} {name:10s} mean points {mean:.3f} ± {half:.3f} (95%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
