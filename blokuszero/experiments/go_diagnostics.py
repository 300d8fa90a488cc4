"""Cheap diagnostics of Go playing strength, without GTP engines or a referee.

``duel``: the playout policies play whole games against each other directly, no search
(:func:`policy_duel`): all Fuego-style rules, each rule alone and
all but each rule, every one against uniform eye-keeping moves. An informed policy should win
nearly always; a rule whose removal costs nothing, or that alone loses, is suspect.

    python scripts/go_diagnostics.py duel --games 2000

``search``: two search players (JSON player specs, see blokuszero/players/factory.py) in
one process, colours alternating (A is Black in even games), each resigning when its chosen
move's win rate is below ``--resign`` after move 10; a game played out is scored by area
(no dead-stone removal). Wins of A by colour with Wilson 95% intervals.

    python scripts/go_diagnostics.py search --games 20 --a '{"preset": "go_fuego", "k": 1.5, "simulations": 1000}' \\
        --b '{"preset": "go_rave", "k": 1.5, "simulations": 1000}'
"""

from __future__ import annotations

import argparse
import json
import time

import numba as nb
import numpy as np

from ..games.go import GoGame
from ..games.go import playouts as P
from ..games.go import rules as R
from ..match.stats import wilson_interval
from ..players.factory import make_player
from ..players.search_players import Resigning
from ..referee.game_loop import play


@nb.njit(cache=True)
def policy_duel(n, rules_a, rules_b, games, komi, seed):
    """Whole games from the empty ``n`` x ``n`` board between two playout policies themselves
    (no search): policy A (rule mask ``rules_a``, as
    :func:`~blokuszero.games.go.playouts.playout`'s) against B, A Black in even games and White
    in odd ones, area scoring with ``komi``; numba's generator seeded with ``seed``. A diagnostic: an
    informed policy should beat uniform moves nearly always.

    Returns (A's wins as Black, A's wins as White)."""
    np.random.seed(seed)
    w = n + 2
    work = np.empty(P.WORK_SIZE, np.int64)
    wins = np.zeros(2, np.int64)
    for g in range(games):
        buf = R.new_board(n)
        mo = buf.shape[0] - R.META_LEN
        a_colour = R.BLACK if g % 2 == 0 else R.WHITE
        last = 0
        while buf[mo + R.META_TOMOVE] != 0:
            colour = buf[mo + R.META_TOMOVE]
            rules = rules_a if colour == a_colour else rules_b
            chosen = P.rule_move(buf, w, colour, last, rules, work) if rules else 0
            if chosen == 0:
                chosen = P.random_point(buf, w, colour, (rules & P.SELF_ATARI) != 0, work[0:8], work[80:96])
            if chosen:
                R.play(buf, w, chosen, colour)
            else:
                R.play_pass(buf, w, colour)
            last = chosen
        black, white = R.area(buf, w)
        black_wins = black - white - komi > 0
        if black_wins == (a_colour == R.BLACK):
            wins[g % 2] += 1
    return wins[0], wins[1]


def _rate(wins: int, games: int) -> str:
    lo, hi = wilson_interval(wins, games)
    return f"{wins}/{games} = {wins / max(games, 1):.1%} [{lo:.1%}, {hi:.1%}]"


def duel(args: argparse.Namespace) -> None:
    """Each policy of the table against uniform moves: A's wins as Black, as White, in all."""
    policies = [("all rules", P.ALL_RULES)] + [(f"{name} only", bit) for name, bit in P.RULES.items()]
    policies += [(f"all but {name}", P.ALL_RULES & ~bit) for name, bit in P.RULES.items()]
    half = args.games // 2
    print(f"| policy vs uniform, {args.size}x{args.size}, komi {args.komi} | as Black | as White | all | seconds |")
    print("|---|---|---|---|---|")
    for name, rules in policies:
        start = time.process_time()
        black, white = policy_duel(args.size, rules, 0, args.games, args.komi, args.seed)
        print(f"| {name} | {_rate(black, args.games - half)} | {_rate(white, half)} | "
              f"{_rate(black + white, args.games)} | {time.process_time() - start:.1f} |", flush=True)


def search(args: argparse.Namespace) -> None:
    """Player A against player B, one game after another, a line per game."""
    spec_a, spec_b = json.loads(args.a), json.loads(args.b)
    game = GoGame(args.size, args.komi)
    wins, played = [0, 0], [0, 0]
    start = time.perf_counter()
    for g in range(args.games):
        a_colour = g % 2
        a = Resigning(make_player(game, spec_a, args.seed * 1000 + 2 * g), args.resign)
        b = Resigning(make_player(game, spec_b, args.seed * 1000 + 2 * g + 1), args.resign)
        players = [a, b] if a_colour == 0 else [b, a]
        record = play(game, game.new_initial_state(), players)
        moves = len(record.moves)
        how = "resigned" if record.result is not None else "scored"
        winner = 0 if record.returns[0] > 0 else 1
        wins[a_colour] += winner == a_colour
        played[a_colour] += 1
        print(f"game {g}: A as {'BW'[a_colour]} {'won' if winner == a_colour else 'lost'} ({how} after "
              f"{moves} moves), {time.perf_counter() - start:.0f} s", flush=True)
    print(f"A as Black {_rate(wins[0], played[0])}; as White {_rate(wins[1], played[1])}; "
          f"all {_rate(sum(wins), sum(played))}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="mode", required=True)
    for name in ("duel", "search"):
        p = sub.add_parser(name)
        p.add_argument("--games", type=int, default=2000 if name == "duel" else 20)
        p.add_argument("--size", type=int, default=9)
        p.add_argument("--komi", type=float, default=6.5)
        p.add_argument("--seed", type=int, default=1)
    sub.choices["search"].add_argument("--a", required=True, help="player A's spec (JSON)")
    sub.choices["search"].add_argument("--b", required=True, help="player B's spec (JSON)")
    sub.choices["search"].add_argument("--resign", type=float, default=0.05,
                                       help="resign below this win rate after move 10 (0: never)")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"--games must be at least 1, not {args.games}")
    if not 2 <= args.size <= 25:
        parser.error(f"--size {args.size} is not in [2, 25]")
    duel(args) if args.mode == "duel" else search(args)
