"""``python -m blokuszero.engines.go`` (console script ``blokuszero-go-gtp``): the Go GTP engine.

The command line only; the engine is :class:`.gtp_engine.GoGtpEngine`.
"""

from __future__ import annotations

import argparse
import sys

from ...games.go import GoGame
from ...games.go.game import PRIOR_KINDS, playout_rules
from ...players.factory import make_player
from ...protocols.gtp import GtpError
from ..options import (
    EngineParser,
    add_margin_flag,
    add_player_flags,
    add_seed_flag,
    add_threads_flag,
    add_time_flag,
    check_flag,
    engine_parser,
    margins,
    player_spec,
    refuse,
    use_threads,
)
from .gtp_engine import GoGtpEngine, check_komi

#: The engine's player without ``--preset``: the options go_rave takes from the flags' defaults
#: (the RAVE weights the paper's, Fuego's playouts and prior knowledge, the tree kept).
ENGINE_PLAYER = {"simulations": 10_000, "k": 1.5, "l": 1.0, "beta_unweighted": False, "form": "fuego",
                 "playout": "fuego", "n_prior": 10, "reuse_tree": True, "prior": "simple", "prior_rave": False,
                 "c": 0.0, "rave_weight_initial": 0.9, "rave_weight_final": 20_000.0}


def build_parser() -> EngineParser:
    parser = engine_parser(
        "blokuszero-go-gtp",
        "A GTP v2 Go engine: MCTS with RAVE (Fuego's form) and optional local-pattern "
        "weights (SPEC §4) over Fuego-style playouts, with even-game prior knowledge "
        "and tree reuse between moves. Reads GTP commands on stdin, answers on stdout.")
    parser.add_argument("--size", type=int, default=9, help="initial board size (GTP boardsize changes it)")
    parser.add_argument("--komi", type=float, default=6.5, help="initial komi (GTP komi changes it)")
    parser.add_argument("--playouts", type=int, help="playouts per move (0: time only; default 10000)")
    add_time_flag(parser, "wall", "; GTP time_settings / time_left shorten it when the clock demands")
    parser.add_argument("--k", type=float, help="pattern weight k when the ids match (1 = plain RAVE; default 1.5)")
    parser.add_argument("--l", type=float, help="pattern weight l when they differ (default 1)")
    parser.add_argument("--beta-unweighted", action="store_true", default=None, help="beta' from unweighted alpha_p")
    parser.add_argument("--form", choices=("fuego", "gelly_silver"), help="RAVE value form (default fuego)")
    parser.add_argument("--playout-policy",
                        help="fuego (default; Fuego-style rules: nakade, atari capture, atari defence, low "
                             "liberties, 3x3 patterns, fill-board, self-atari correction), "
                             "fuego:RULE,... with only the rules named, or uniform (eye-keeping "
                             "random moves)")
    parser.add_argument("--n-prior", type=int,
                        help="virtual visits of even-game prior knowledge on new nodes (0: none; default 10)")
    parser.add_argument("--prior", choices=PRIOR_KINDS,
                        help="the prior knowledge: simple (default; n-prior wins for captures, escapes, "
                             "nakade and patterns beside the last move, losses for self-ataris "
                             "and lone first-line moves) or fuego (Fuego's even-game scheme on "
                             "every move, n-prior and 3 n-prior games)")
    parser.add_argument("--prior-rave", action="store_true", default=None,
                        help="the prior knowledge also seeds the AMAF statistics (as Fuego)")
    parser.add_argument("--bias", type=float,
                        help="UCT bias term c sqrt(log N / n) added to the RAVE value (default 0; Fuego: 0.02)")
    parser.add_argument("--rave-weights", type=float, nargs=2,
                        metavar=("INITIAL", "FINAL"),
                        help="RAVE weights of beta' (default the paper's 0.9 20000; Fuego ships 1.0 5000)")
    parser.add_argument("--no-reuse-tree", dest="reuse_tree", action="store_false", default=None,
                        help="start each search from a new tree (default: keep the subtree of "
                             "the moves played)")
    parser.add_argument("--superko", action="store_true", help="positional superko instead of simple ko")
    parser.add_argument("--resign", type=float, default=0.05,
                        help="resign when the chosen move's win rate is below this (0: never)")
    parser.add_argument("--score-playouts", type=int, default=1000,
                        help="playouts that judge dead stones for final_score / final_status_list")
    parser.add_argument("--name", default="BlokusZero-Go", help="name reported to GTP")
    add_player_flags(parser, "a player preset of kind mcts (go_rave, go_fuego, ...); without one, go_rave "
                               "with the defaults above. The flags above override its options")
    add_seed_flag(parser, None, "random seed (default: fresh)")
    add_threads_flag(parser)
    add_margin_flag(parser, 0.0)
    return parser


def engine_from_args(args: argparse.Namespace, parser: argparse.ArgumentParser | None = None) -> GoGtpEngine:
    """The engine the command line describes; a bad option ends the program in one line naming it."""
    parser = parser or build_parser()
    check_flag(parser, "--size", args.size, int, low=2, high=25)
    check_flag(parser, "--score-playouts", args.score_playouts, int, low=1)
    if not 0 <= args.resign < 1:
        refuse(parser, "--resign", f"must be in [0, 1), not {args.resign}")
    try:
        check_komi(args.komi, args.size)
    except GtpError as err:
        refuse(parser, "--komi", f"{err}")
    weights = args.rave_weights or (None, None)
    flags = {"simulations": ("--playouts", args.playouts), "time_limit": ("--time", args.time),
             "k": ("--k", args.k), "l": ("--l", args.l), "beta_unweighted": ("--beta-unweighted", args.beta_unweighted),
             "form": ("--form", args.form), "playout": ("--playout-policy", args.playout_policy),
             "n_prior": ("--n-prior", args.n_prior), "reuse_tree": ("--no-reuse-tree", args.reuse_tree),
             "prior": ("--prior", args.prior), "prior_rave": ("--prior-rave", args.prior_rave),
             "c": ("--bias", args.bias), "rave_weight_initial": ("--rave-weights", weights[0]),
             "rave_weight_final": ("--rave-weights", weights[1])}
    if args.preset is None:  # the engine's own player: go_rave with the flags' defaults
        flags = {k: (flag, ENGINE_PLAYER.get(k) if value is None else value) for k, (flag, value) in flags.items()}
    if flags["simulations"][1] == 0 and args.time is None:
        refuse(parser, "--playouts", "0 needs --time")
    if flags["playout"][1] is not None:
        try:
            playout_rules(flags["playout"][1])
        except ValueError as err:
            refuse(parser, "--playout-policy", f"{err}")
    spec = player_spec(parser, args, "go_rave", flags)
    time_margins = margins(parser, args)
    counter = iter(range(1 << 30))

    def make(game: GoGame):
        seed = None if args.seed is None else args.seed + next(counter)
        return make_player(game, spec, seed)

    return GoGtpEngine(make, args.size, args.komi, "positional" if args.superko else "simple", args.name,
                       resign_threshold=args.resign, score_playouts=args.score_playouts, margins=time_margins)


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and serve GTP on stdin / stdout."""
    parser = build_parser()
    args = parser.parse_args(argv)
    use_threads(parser, args)
    engine = engine_from_args(args, parser)
    engine.serve(sys.stdin, sys.stdout)


if __name__ == "__main__":
    main()
