"""Blokus GTP engine on standard input/output: ``python -m blokuszero.engines.blokus`` (``blokuszero-gtp``).

Speaks the GTP dialect of Pentobi's engine for classic 4-colour Blokus, so that controllers
written for ``pentobi-gtp`` (its ``twogtp``, our arena) can drive any BlokusZero player.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

import yaml

from ...players.factory import PRESETS, PlayerSpec, resolve_player
from ...threads import set_math_threads
from .gtp_engine import BlokusGtpEngine

_EPILOG = """\
commands: protocol_version, name, version, known_command, list_commands, clear_board,
play <color> <move>, genmove <color>, all_legal <color>, final_score, showboard,
set_random_seed <n>, quit; and Pentobi's set_game Blokus, cputime, undo, reg_genmove <color>,
g, p <move>, loadsgf <file> [<move_number>], savesgf <file>, get_place <color>, get_value,
param [<key> <value>] (the player's options; fixed_simulations, use_book 0, avoid_symmetric_draw),
param_base [<key> <value>] (resign, accept_illegal 0). Colors: 1-4 or blue, yellow, red, green. Moves: Pentobi notation
(squares joined by commas, e.g. a20,b20,c20). genmove answers 'pass' when the color cannot move.

examples:
  blokuszero-gtp                                      MCTS-MaxN, 800 playouts (the paper's baseline)
  blokuszero-gtp --simulations 3200                   a stronger MCTS-MaxN
  blokuszero-gtp --checkpoint checkpoints/blokus_b2c32conv_gumbel.pt
                                     the shipped network at its strongest settings (preset network):
                                     1 CPU-second per move, its priors over playouts
  blokuszero-gtp --checkpoint checkpoints/blokus_b2c32conv_gumbel.pt --set time_limit=0.1   the same, faster
  blokuszero-gtp --checkpoint runs/x/checkpoints/ckpt_000070000.pt --preset alphazero
                                     the paper's protocol: the network at every leaf, 800 simulations
  blokuszero-gtp --preset mcts_brs --set time_limit=2.0 --set simulations=1000000
time_limit (MCTS and network players): the engine's CPU seconds per move (time.process_time, as
cputime answers); the search stops at it or at simulations (0: no cap), whichever comes first.
"""


def _option(text: str) -> tuple[str, Any]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"{text!r} is not KEY=VALUE")
    return key, yaml.safe_load(value)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="blokuszero-gtp", description=__doc__.split("\n\n")[0].replace("``", ""),
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", choices=sorted(PRESETS),
                        help="player preset (default: network with --checkpoint, else mcts_maxn)")
    parser.add_argument("--checkpoint", help="a training checkpoint (ckpt_*.pt): play its network")
    parser.add_argument("--simulations", type=int,
                        help="simulations per move (default: the preset's; network: no cap, 1 CPU-second a move)")
    parser.add_argument("--set", type=_option, action="append", default=[], metavar="KEY=VALUE",
                        help="any other option of the player (see blokuszero/players/factory.py), repeatable")
    parser.add_argument("--seed", type=int, default=0, help="random seed (set_random_seed changes it)")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch threads (default 1: a search evaluates one position at a time)")
    parser.add_argument("--name", default="BlokusZero", help="the name the engine reports")
    args = parser.parse_args(argv)
    if args.threads < 1:
        parser.error(f"--threads must be >= 1, not {args.threads}")
    return args


def player_spec(args: argparse.Namespace) -> PlayerSpec:
    """The player spec the command-line options describe, resolved (ValueError names a bad option)."""
    spec: dict[str, Any] = {"preset": args.preset or ("network" if args.checkpoint else "mcts_maxn")}
    if args.checkpoint:
        spec["checkpoint"] = args.checkpoint
    if args.simulations is not None:
        spec["simulations"] = args.simulations
    spec.update(dict(args.set))
    return resolve_player(spec)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    set_math_threads(args.threads)
    try:
        spec = player_spec(args)
        # The player is built now, so that a bad checkpoint stops the engine before any command.
        engine = BlokusGtpEngine(spec, args.seed, args.name)
    except (ValueError, OSError) as err:
        sys.exit(f"blokuszero-gtp: {err}")
    engine.serve(sys.stdin, sys.stdout)


if __name__ == "__main__":
    main()
