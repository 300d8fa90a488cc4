"""Blokus GTP engine on standard input/output: ``python -m blokuszero.engines.blokus`` (``blokuszero-gtp``).

Speaks the GTP dialect of Pentobi's engine for classic 4-colour Blokus, so that controllers
written for ``pentobi-gtp`` (its ``twogtp``, our arena) can drive any BlokusZero player.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ...players.factory import PlayerSpec
from .. import options
from ..options import (
    EngineParser,
    add_player_flags,
    add_seed_flag,
    add_threads_flag,
    add_time_flag,
    engine_parser,
)
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
time_limit (--time; MCTS and network players): the engine's CPU seconds per move (time.process_time,
as cputime answers); the search stops at it or at simulations (0: no cap), whichever comes first.
"""


def build_parser() -> EngineParser:
    parser = engine_parser("blokuszero-gtp", __doc__.split("\n\n")[0].replace("``", ""), _EPILOG)
    add_player_flags(parser, "player preset (default: network with --checkpoint, else mcts_maxn)")
    parser.add_argument("--checkpoint", help="a training checkpoint (ckpt_*.pt): play its network "
                                             "(the option checkpoint)")
    parser.add_argument("--simulations", type=int,
                        help="simulations per move (default: the preset's; network: no cap, 1 CPU-second a move)")
    add_time_flag(parser, "CPU")
    add_seed_flag(parser, 0, "random seed (set_random_seed changes it)")
    add_threads_flag(parser)
    parser.add_argument("--name", default="BlokusZero", help="the name the engine reports")
    return parser


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line's options."""
    return build_parser().parse_args(argv)


def player_spec(args: argparse.Namespace) -> PlayerSpec:
    """The player spec the command-line options describe, resolved once (a bad option ends the
    program in one line naming its flag)."""
    return options.player_spec(build_parser(), args, "network" if args.checkpoint else "mcts_maxn", {
        "checkpoint": ("--checkpoint", args.checkpoint), "simulations": ("--simulations", args.simulations),
        "time_limit": ("--time", args.time)})


def main(argv: Sequence[str] | None = None) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    options.use_threads(parser, args)
    spec = player_spec(args)
    try:
        # The player is built now, so that a bad checkpoint stops the engine before any command.
        engine = BlokusGtpEngine(spec, args.seed, args.name)
    except (ValueError, OSError) as err:
        sys.exit(options.refusal("blokuszero-gtp", str(err)))
    engine.serve(sys.stdin, sys.stdout)


if __name__ == "__main__":
    main()
