"""``python -m blokuszero.engines.go`` (console script ``blokuszero-go-gtp``): the Go GTP engine.

The command line only; the engine is :class:`.gtp_engine.GoGtpEngine`.
"""

from __future__ import annotations

import argparse
import sys

from ...games.go import GoGame
from ...games.go.game import PRIOR_KINDS, playout_rules
from ...players.factory import make_player, resolve_spec
from ...protocols.gtp import GtpError
from ...settings import SettingError
from .gtp_engine import GoGtpEngine, check_komi


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="blokuszero-go-gtp",
        description="A GTP v2 Go engine: MCTS with RAVE (Fuego's form) and optional local-pattern "
                    "weights (SPEC §4) over Fuego-style playouts, with even-game prior knowledge "
                    "and tree reuse between moves. Reads GTP commands on stdin, answers on stdout.")
    parser.add_argument("--size", type=int, default=9, help="initial board size (GTP boardsize changes it)")
    parser.add_argument("--komi", type=float, default=6.5, help="initial komi (GTP komi changes it)")
    parser.add_argument("--playouts", type=int, default=10_000, help="playouts per move (0: time only)")
    parser.add_argument("--time", type=float, default=None,
                        help="seconds per move (with --playouts, whichever ends first); GTP "
                             "time_settings / time_left shorten it when the clock demands")
    parser.add_argument("--k", type=float, default=1.5, help="pattern weight k when the ids match (1 = plain RAVE)")
    parser.add_argument("--l", type=float, default=1.0, help="pattern weight l when they differ")
    parser.add_argument("--beta-unweighted", action="store_true", help="beta' from unweighted alpha_p")
    parser.add_argument("--form", choices=("fuego", "gelly_silver"), default="fuego", help="RAVE value form")
    parser.add_argument("--playout-policy", default="fuego",
                        help="fuego (Fuego-style rules: nakade, atari capture, atari defence, low "
                             "liberties, 3x3 patterns, fill-board, self-atari correction), "
                             "fuego:RULE,... with only the rules named, or uniform (eye-keeping "
                             "random moves)")
    parser.add_argument("--n-prior", type=int, default=10,
                        help="virtual visits of even-game prior knowledge on new nodes (0: none)")
    parser.add_argument("--prior", choices=PRIOR_KINDS, default="simple",
                        help="the prior knowledge: simple (n-prior wins for captures, escapes, "
                             "nakade and patterns beside the last move, losses for self-ataris "
                             "and lone first-line moves) or fuego (Fuego's even-game scheme on "
                             "every move, n-prior and 3 n-prior games)")
    parser.add_argument("--prior-rave", action="store_true",
                        help="the prior knowledge also seeds the AMAF statistics (as Fuego)")
    parser.add_argument("--bias", type=float, default=0.0,
                        help="UCT bias term c sqrt(log N / n) added to the RAVE value (Fuego: 0.02)")
    parser.add_argument("--rave-weights", type=float, nargs=2, default=(0.9, 20_000.0),
                        metavar=("INITIAL", "FINAL"),
                        help="RAVE weights of beta' (default the paper's 0.9 20000; Fuego ships 1.0 5000)")
    parser.add_argument("--no-reuse-tree", dest="reuse_tree", action="store_false",
                        help="start each search from a new tree (default: keep the subtree of "
                             "the moves played)")
    parser.add_argument("--superko", action="store_true", help="positional superko instead of simple ko")
    parser.add_argument("--resign", type=float, default=0.05,
                        help="resign when the chosen move's win rate is below this (0: never)")
    parser.add_argument("--score-playouts", type=int, default=1000,
                        help="playouts that judge dead stones for final_score / final_status_list")
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: fresh)")
    parser.add_argument("--name", default="BlokusZero-Go", help="name reported to GTP")
    return parser


def engine_from_args(args: argparse.Namespace) -> GoGtpEngine:
    """The engine the command line describes."""
    if not 2 <= args.size <= 25:
        raise SystemExit(f"error: --size {args.size} is not in [2, 25]")
    if args.playouts < 0:
        raise SystemExit(f"error: --playouts must be >= 0, not {args.playouts}")
    if not 0 <= args.resign < 1:
        raise SystemExit(f"error: --resign must be in [0, 1), not {args.resign}")
    if args.score_playouts < 1:
        raise SystemExit(f"error: --score-playouts must be >= 1, not {args.score_playouts}")
    if args.playouts == 0 and args.time is None:
        raise SystemExit("error: --playouts 0 needs --time")
    spec = {"preset": "go_rave", "simulations": args.playouts, "time_limit": args.time,
            "k": args.k, "l": args.l, "beta_unweighted": args.beta_unweighted, "form": args.form,
            "playout": args.playout_policy, "n_prior": args.n_prior, "reuse_tree": args.reuse_tree,
            "prior": args.prior, "prior_rave": args.prior_rave, "c": args.bias,
            "rave_weight_initial": args.rave_weights[0], "rave_weight_final": args.rave_weights[1]}
    try:
        playout_rules(args.playout_policy)
    except ValueError as err:
        raise SystemExit(f"error: --playout-policy: {err}") from None
    try:
        resolve_spec(spec)
        check_komi(args.komi, args.size)
    except SettingError as err:
        option = {"simulations": "--playouts", "time_limit": "--time", "c": "--bias",
                  "rave_weight_initial": "--rave-weights", "rave_weight_final": "--rave-weights",
                  }.get(err.name, f"--{err.name.replace('_', '-')}")
        raise SystemExit(f"error: {option} {err.problem}") from None
    except GtpError as err:
        raise SystemExit(f"error: --komi: {err}") from None
    counter = iter(range(1 << 30))

    def make(game: GoGame):
        seed = None if args.seed is None else args.seed + next(counter)
        return make_player(game, spec, seed)

    return GoGtpEngine(make, args.size, args.komi, "positional" if args.superko else "simple", args.name,
                       resign_threshold=args.resign, score_playouts=args.score_playouts)


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and serve GTP on stdin / stdout."""
    engine = engine_from_args(build_parser().parse_args(argv))
    engine.serve(sys.stdin, sys.stdout)


if __name__ == "__main__":
    main()
