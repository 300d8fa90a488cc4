"""``blokuszero-ggp-player`` (``python -m blokuszero.engines.ggp``): the GGP HTTP player's command line."""

from __future__ import annotations

import argparse
import logging
import threading

from ...players.ggp.uct import parse_experience
from ...search.rollout_evaluators import POLICIES
from .. import options
from ..options import (
    EngineParser,
    add_address_flags,
    add_margin_flag,
    add_player_flags,
    add_seed_flag,
    add_threads_flag,
    check_port,
    engine_parser,
    margins,
    refuse,
    use_threads,
)
from .http_player import serve
from .player_engine import DEFAULT_SPEC, GgpPlayerEngine
from .warm_up import warm_up

log = logging.getLogger(__name__)


def build_parser() -> EngineParser:
    parser = engine_parser("blokuszero-ggp-player", "BlokusZero General Game Player (GGP HTTP)")
    add_address_flags(parser, 9147, "address to bind")
    add_margin_flag(parser, 1.0)
    parser.add_argument("--simulations", type=int, default=None,
                        help="playouts per move (default: as many as the clock allows)")
    parser.add_argument("--playout", default="uniform", choices=POLICIES, help="the playout policy")
    parser.add_argument("--policy-file",
                        help="softmax playouts: weights saved by TrainableSoftmaxPolicy")
    parser.add_argument("--experience", default=None,
                        help="similar-board search experience: ENCODING+D (huffman2, appearance0, "
                             "random2, ...) or 'switch' (the pre-game rule, within the start clock)")
    add_player_flags(parser, "a player preset of kind ggp_uct (default ggp_uct); the flags above set its options")
    add_seed_flag(parser, 0)
    add_threads_flag(parser)
    return parser


def player_spec(parser: argparse.ArgumentParser, args: argparse.Namespace) -> dict:
    """The player's spec from the command line; a bad option ends the program in one line naming it."""
    if (args.playout == "softmax") != (args.policy_file is not None):
        refuse(parser, "--playout", "softmax needs --policy-file, and only it")
    try:
        experience = None if args.experience is None else parse_experience(args.experience)
    except ValueError as err:
        refuse(parser, "--experience", str(err))
    # The engine resolves it again for each move, with that move's time limit.
    return dict(options.player_spec(parser, args, DEFAULT_SPEC["preset"], {
        "simulations": ("--simulations", args.simulations or DEFAULT_SPEC["simulations"]),
        "playout": ("--playout", args.playout), "policy_file": ("--policy-file", args.policy_file),
        "experience": ("--experience", experience)}).given)


def main(argv: list[str] | None = None) -> None:
    """Serve GGP over HTTP until interrupted, after a warm-up game in the background."""
    parser = build_parser()
    args = parser.parse_args(argv)
    check_port(parser, args, allow_any=True)
    use_threads(parser, args)
    spec = player_spec(parser, args)
    try:
        engine = GgpPlayerEngine(spec, margins(parser, args).reply, args.seed)
    except ValueError as err:  # a preset of another kind
        refuse(parser, "--preset", str(err))
    logging.basicConfig(level=logging.INFO)
    server = serve(engine, args.port, args.host)
    log.info("GGP player on http://%s:%d/", args.host, server.server_address[1])
    # Serving starts at once; a match started during the warm-up waits for the same kernels
    # (numba compiles under one lock) instead of compiling them again.
    threading.Thread(target=lambda: log.info("warm-up done in %.1f s", warm_up(spec, args.seed)),
                     name="ggp-warm-up", daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
