"""Blokus in the browser: ``blokuszero-board`` (``python -m blokuszero.engines.blokus.board``).

Serves a page on 127.0.0.1 (``--host`` to change) where a person plays any colours against the
players named here, steps through game records from the folders named here, saves and opens
Pentobi SGF files and asks a search for its top moves.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml
from aiohttp import web

from ....players.factory import PRESETS, player_settings
from ....players.gtp_player import engine_argv
from ....threads import set_math_threads
from .records import RecordShelf
from .server import LOOPBACK_NAMES, make_app
from .table import PERSON, Table

#: The shipped network (checkpoints/README.md), beside the package in a source checkout.
SHIPPED_NETWORK = Path(__file__).resolve().parents[4] / "checkpoints" / "blokus_b2c32conv_gumbel.pt"

_EPILOG = f"""\
players (--player NAME=SPEC, repeatable): SPEC is a preset ({', '.join(sorted(PRESETS))})
or a YAML mapping of a player spec (blokuszero/players/factory.py). Without --player the board offers
'network': the shipped network ({SHIPPED_NETWORK.name}) at its default play settings.
The page seats '{PERSON}' or one of these players at each colour; it can start no other program.

examples:
  blokuszero-board                                        you are Blue, the network plays the rest
  blokuszero-board --player maxn=mcts_maxn --seats you,maxn,you,maxn
  blokuszero-board --player 'pentobi={{kind: gtp, command: "pentobi-gtp --quiet --noresign --level 3"}}'
  blokuszero-board --records runs/cpu-default --records runs/arena   watch self-play and arena games
"""


def _player(text: str) -> tuple[str, dict[str, Any]]:
    """``NAME=SPEC`` of the command line: a preset's name or a YAML mapping of a player spec."""
    name, sep, spec = text.partition("=")
    if not sep or not name or not spec:
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=SPEC (e.g. maxn=mcts_maxn)")
    if name == PERSON:
        raise argparse.ArgumentTypeError(f"{name!r} is the person's seat; name the player otherwise")
    try:
        value = yaml.safe_load(spec)
    except yaml.YAMLError as err:
        raise argparse.ArgumentTypeError(f"player {name!r}: {spec!r} is not YAML: {err}") from None
    if isinstance(value, str) and value in PRESETS:
        return name, {"preset": value}
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"player {name!r}: {spec!r} is neither a preset "
                                         f"({', '.join(sorted(PRESETS))}) nor a YAML mapping")
    return name, value


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="blokuszero-board", description=__doc__.split("\n\n")[0].replace("``", ""),
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--player", type=_player, action="append", default=[], metavar="NAME=SPEC",
                        help="a player the page may seat (repeatable; default: network=the shipped network)")
    parser.add_argument("--seats", help=f"the first game's seats, Blue,Yellow,Red,Green: '{PERSON}' or a "
                        f"player's name (default: {PERSON} as Blue, the first player elsewhere)")
    parser.add_argument("--analysis", help="the player whose search analyses positions (an MCTS or network "
                        "player; default: the first such player; 'none': no analysis)")
    parser.add_argument("--records", action="append", default=[], metavar="DIR",
                        help="a folder of game records (.blksgf, games.jsonl) the page may open (repeatable)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to serve on (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=8040, help="port (default 8040; 0: any free port)")
    parser.add_argument("--seed", type=int, default=0, help="the players' random seed")
    parser.add_argument("--threads", type=int, default=1, help="torch threads for network players")
    return parser.parse_args(argv)


def _check_player(name: str, spec: dict[str, Any]) -> dict[str, Any]:
    """``spec``'s settings, checked before the server starts (a bad option, a missing checkpoint
    or engine program stops it with one line)."""
    try:
        settings = player_settings(spec)
    except (ValueError, OSError) as err:
        raise ValueError(f"player {name!r}: {err}") from None
    if settings["kind"] == "gtp":
        program = engine_argv(str(settings.get("command", "")))[:1]
        if not program or shutil.which(program[0]) is None:
            raise ValueError(f"player {name!r}: engine program {program[0] if program else ''!r} not found")
    return settings


def build(args: argparse.Namespace) -> tuple[Table, RecordShelf]:
    """The table and record shelf the options describe; ValueError names a bad option."""
    players = dict(args.player) or {"network": {"preset": "network", "checkpoint": str(SHIPPED_NETWORK)}}
    kinds = {name: _check_player(name, spec)["kind"] for name, spec in players.items()}
    first = next(iter(players))
    seats = args.seats.split(",") if args.seats else [PERSON, first, first, first]
    analysis = args.analysis
    if analysis is None:
        analysis = next((n for n, k in kinds.items() if k in ("mcts", "alphazero")), None)
    elif analysis == "none":
        analysis = None
    elif kinds.get(analysis) not in ("mcts", "alphazero"):
        raise ValueError(f"--analysis {analysis!r}: not one of the MCTS or network players "
                         f"{[n for n, k in kinds.items() if k in ('mcts', 'alphazero')]}")
    return Table(players, seats, analysis, args.seed), RecordShelf(args.records)


async def serve(app: web.Application, host: str, port: int) -> None:
    """Serve ``app`` until interrupted, saying where and who can reach it."""
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    try:
        await site.start()
    except OSError as err:
        await runner.cleanup()
        raise ValueError(f"cannot serve on {host}:{port}: {err.strerror} (try another --port)") from None
    bound = runner.addresses[0]
    reach = ("this machine only" if host in LOOPBACK_NAMES
             else "other machines too: anyone who reaches this address can play and open the records")
    print(f"BlokusZero board on http://{host}:{bound[1]}/ ({reach}); Ctrl-C stops it", flush=True)
    stop = asyncio.Event()
    # SIGTERM ends the server as Ctrl-C does: the engines it started are closed on the way out.
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    try:
        await stop.wait()
    finally:
        await runner.cleanup()


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    set_math_threads(args.threads)
    try:
        table, shelf = build(args)
        loopback = args.host in LOOPBACK_NAMES
        asyncio.run(serve(make_app(table, shelf, loopback), args.host, args.port))
    except ValueError as err:
        sys.exit(f"blokuszero-board: {err}")
    except KeyboardInterrupt:
        print("board stopped", flush=True)


if __name__ == "__main__":
    main()
