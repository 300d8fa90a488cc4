"""Benchmark Daihinmin on one core: playouts, move generation, the match server.

Figures:

- ``playouts``: uniformly random playouts (pass included, as the server allows it) from the
  start of a game (after the deal, first game of a match: no exchange) inside numba, copy +
  playout; the champion client FujiGokoro spends about 5,000 playouts per decision;
- ``movegen``: legal-action lists per second over the positions of random games (numba);
- ``server``: games per second of our UECda server with 5 default clients, in-process and
  over TCP on 127.0.0.1 (our ``blokuszero-uecda`` clients as child processes);
- ``mc_<policy>``: the Monte Carlo client's search over the play-phase positions of random
  games: playouts per second, each with its determinization and UCB1-tuned root selection,
  and decisions per second at ``--mc-playouts`` per decision, in CPU time (the process's, so
  that other jobs on the machine count less); playouts ``random``, ``default`` (every player
  default-like), ``model`` (the opponents play improved models learned from 100 games of the
  official record in tests/data, the searcher random) and ``model/model`` (the searcher too
  plays the models pooled);
- ``model``: the improved opponent model: learning one player's moves of a game, and one
  prediction, in microseconds (over 100 games of random play);
- ``hands``: hand estimation per decision (CPU ms): drawing ``--hand-deals`` determinizations
  and weighting them by the models of ``mc_model`` (``hand_weight`` 0.5) at player 0's turns in
  games 100-109 of the official record, the median effective number of deals, and the share of
  the opponents' cards the deals place right, weighted and uniform (the same deals equally
  weighted).

The best of ``--repeats`` timings is reported with the median. Usage::

    python -m blokuszero.bench daihinmin [--seconds 3] [--repeats 3] [--games 200] [--mc-playouts 100]
        [--hand-deals 1000] [--no-server] [--json out.json]
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np

from ..games.daihinmin import DaihinminGame
from ..games.daihinmin import rules as E
from ..games.numba_random import seed_numba
from ..games.testing import random_positions
from ..knowledge.daihinmin.opponent_model import IMPROVED, OpponentModel
from ..match.daihinmin.uecda_server import LocalSeat, serve_match
from ..match.daihinmin.uecda_settings import MatchSettings
from ..players.daihinmin.default_client import DefaultClient
from ..players.daihinmin.monte_carlo import MonteCarloPlayer
from .harness import data_path, finish, load, parser, timed_rate


def playout_rate(seconds: float) -> tuple[float, float]:
    """(playouts per second, actions per playout) from the start of a game."""
    state = DaihinminGame(first_game=True).new_initial_state(0)
    buf = np.empty(E.MAX_LEGAL, np.int64)
    seed_numba(1)
    E.playouts_from(state.s, 1, buf)
    moves = 0

    def step() -> int:
        nonlocal moves
        moves += E.playouts_from(state.s, 200, buf)
        return 200

    rate, done = timed_rate(step, seconds)
    return rate, moves / done


def movegen_rate(seconds: float) -> tuple[float, float]:
    """(generations per second, legal actions per position) over random games' positions."""
    game = DaihinminGame()
    positions = np.array([p.s for seed in range(20) for p in random_positions(game, seed)
                          if not p.is_terminal()])
    buf = np.empty(E.MAX_LEGAL, np.int64)
    E.generate_all(positions[:2], buf)
    actions = 0

    def step() -> int:
        nonlocal actions
        actions += E.generate_all(positions, buf)
        return len(positions)

    rate, done = timed_rate(step, seconds)
    return rate, actions / done


def server_rate(games: int, tcp: bool) -> float:
    """Games per second of a match of 5 default clients."""
    settings = MatchSettings(games=games)
    if not tcp:
        seats = [LocalSeat(DefaultClient(), f"dflt{i}") for i in range(5)]
        start = time.perf_counter()
        serve_match(seats, settings, seed=1)
        return games / (time.perf_counter() - start)
    import subprocess

    from ..protocols.uecda import TcpSeat, accept_player, listen

    listener = listen("127.0.0.1", 0)
    port = listener.getsockname()[1]
    processes, seats = [], []
    for i in range(5):
        processes.append(subprocess.Popen(
            [sys.executable, "-m", "blokuszero.engines.daihinmin", "-h", "127.0.0.1", "-p", str(port),
             "-n", f"dflt{i}"], stderr=subprocess.DEVNULL))
        seats.append(TcpSeat(*accept_player(listener, i)))
    start = time.perf_counter()
    serve_match(seats, settings, seed=1)
    rate = games / (time.perf_counter() - start)
    for p in processes:
        p.wait(timeout=30)
    listener.close()
    return rate


def learned_models(games: int = 100) -> tuple[np.ndarray, np.ndarray]:
    """(logp [5, K], modelled [5]): improved models of the five default clients of the
    official record in tests/data, learned from its first ``games`` games."""
    from ..games.daihinmin.log import read_log
    from ..knowledge.daihinmin.opponent_model import game_moves
    from ..match.daihinmin.uecda_replay import rules_of

    record = read_log(data_path("daihinmin_default5_match1.log", "daihinmin/default5_match1.log"))
    game = DaihinminGame(rules_of(record)[0])
    models = [OpponentModel(IMPROVED) for _ in range(5)]
    for g in record.games[:games]:
        states, movers, actions = game_moves(g, game)
        for p, model in enumerate(models):
            model.learn_game(states[movers == p], actions[movers == p])
    return np.stack([m.logp for m in models]), np.ones(5, np.bool_)


def mc_rate(policy: str, playouts: int, seconds: float) -> tuple[float, float]:
    """(playouts per second, decisions per second) of the Monte Carlo player, CPU time."""
    game = DaihinminGame()
    positions = [p for seed in range(10) for p in random_positions(game, seed)
                 if not p.is_terminal() and p.s[E.S_PHASE] == E.P_PLAY
                 and len(p.legal_actions()) > 1]
    opponents, _, own = policy.partition("/")  # the labels name OPPONENTS[/SELF]
    player = MonteCarloPlayer(playouts=playouts, playout=opponents, self_playout=own or None, seed=0)
    if player.uses_models:
        player.playout_models = learned_models()
    player.choose_action(positions[0])  # compile
    decisions = sims = 0

    def step() -> int:
        nonlocal decisions, sims
        player.choose_action(positions[decisions % len(positions)])
        sims += player.last_result.simulations
        decisions += 1
        return 1

    rate, done = timed_rate(step, seconds, time.process_time)
    return sims / done * rate, rate


def model_times() -> tuple[float, float]:
    """(microseconds to learn one player's moves of a game, microseconds per prediction), CPU."""
    rng = np.random.default_rng(0)
    mine = []
    for seed in range(100):  # player 0's play-phase moves in games of random play
        state, states, actions = DaihinminGame().new_initial_state(seed), [], []
        while not state.is_terminal():
            a = int(rng.choice(state.legal_actions())) if state.current_player() != -3 else \
                int(state.legal_actions()[0])
            if state.current_player() == 0 and state.s[E.S_PHASE] == E.P_PLAY:
                states.append(state.s.copy())
                actions.append(a)
            state.apply_action(a)
        mine.append((np.array(states).reshape(-1, E.S_SIZE), np.array(actions, np.int64)))
    model = OpponentModel(IMPROVED)
    model.learn_game(*mine[0])
    start = time.process_time()
    for states, actions in mine:
        model.learn_game(states, actions)
    learn_us = (time.process_time() - start) / len(mine) * 1e6
    positions = np.concatenate([s for s, _ in mine])
    buf = np.empty(E.MAX_LEGAL, np.int64)
    start = time.process_time()
    for s in positions:
        model.predict(s, buf)
    return learn_us, (time.process_time() - start) / len(positions) * 1e6


def hand_estimation_time(deals: int) -> dict[str, float]:
    """CPU ms per decision, median effective deals, the opponents' cards placed right (weighted
    and uniform) of :func:`~..knowledge.daihinmin.hand_estimation.weighted_deals` at player 0's
    turns of games 100-109 of the official record, the history before each turn seen."""
    from ..games.daihinmin.log import read_log
    from ..knowledge.daihinmin.hand_estimation import effective_size, placement_accuracy, weighted_deals
    from ..knowledge.daihinmin.opponent_model import game_moves
    from ..match.daihinmin.uecda_replay import rules_of

    record = read_log(data_path("daihinmin_default5_match1.log", "daihinmin/default5_match1.log"))
    game = DaihinminGame(rules_of(record)[0])
    logp, _ = learned_models()
    turns = []
    for g in record.games[100:110]:
        states, movers, actions = game_moves(g, game)
        turns += [(states[t], states[:t], movers[:t], actions[:t]) for t in range(len(actions)) if movers[t] == 0]
    rng = np.random.default_rng(0)
    s, seen, movers, actions = turns[0]
    weighted_deals(s, 0, seen, movers, actions, logp, IMPROVED, 2, 0.5, rng)  # compile
    pools = []
    start = time.process_time()
    for s, seen, movers, actions in turns:
        pools.append(weighted_deals(s, 0, seen, movers, actions, logp, IMPROVED, deals, 0.5, rng))
    ms = (time.process_time() - start) / len(turns) * 1e3
    hands = [s[E.S_HAND:E.S_HAND + 5] for s, *_ in turns]
    return {"ms_per_decision": ms, "deals": deals, "decisions": len(turns),
            "median_effective_deals": float(np.median([effective_size(w) for _, w in pools])),
            "placed_weighted": float(np.mean([placement_accuracy(d, w, h, 0) for (d, w), h in zip(pools, hands)])),
            "placed_uniform": float(np.mean([placement_accuracy(d, np.full(len(w), 1 / len(w)), h, 0)
                                             for (d, w), h in zip(pools, hands)]))}


def main(argv: list[str] | None = None) -> None:
    command = parser("daihinmin", __doc__)
    command.add_argument("--seconds", type=float, default=3.0)
    command.add_argument("--repeats", type=int, default=3)
    command.add_argument("--games", type=int, default=200)
    command.add_argument("--mc-playouts", type=int, default=100)
    command.add_argument("--hand-deals", type=int, default=1000, help="deals per decision (hands)")
    command.add_argument("--no-server", action="store_true", help="skip the server figures")
    args = command.parse_args(argv)
    load_before = load()
    out = {}
    for name, fn in (("playouts", lambda: playout_rate(args.seconds)),
                     ("movegen", lambda: movegen_rate(args.seconds))):
        runs = [fn() for _ in range(args.repeats)]
        rates = [r[0] for r in runs]
        out[name] = {"best": max(rates), "median": statistics.median(rates),
                     "per_item": runs[0][1]}
        print(f"{name}: best {max(rates):,.0f}/s, median {statistics.median(rates):,.0f}/s "
              f"({'actions per playout' if name == 'playouts' else 'legal actions per position'}"
              f" {runs[0][1]:.1f})")
    for policy in ("random", "default", "model", "model/model"):
        runs = [mc_rate(policy, args.mc_playouts, args.seconds) for _ in range(args.repeats)]
        best = max(runs)
        out[f"mc_{policy}"] = {"playouts_per_s": best[0], "decisions_per_s": best[1],
                               "playouts_per_decision": args.mc_playouts}
        print(f"mc_{policy}: best {best[0]:,.0f} playouts/s (each with a determinization), "
              f"{best[1]:.1f} decisions/s at {args.mc_playouts} playouts")
    learn_us, predict_us = model_times()
    out["model"] = {"learn_game_us": learn_us, "predict_us": predict_us}
    print(f"model (improved): learn one player's game {learn_us:.1f} us, predict {predict_us:.2f} us")
    hands = out["hands"] = min((hand_estimation_time(args.hand_deals) for _ in range(args.repeats)),
                               key=lambda r: r["ms_per_decision"])
    print(f"hands: {hands['ms_per_decision']:.1f} CPU ms per decision for {args.hand_deals} deals (best of "
          f"{args.repeats}), median effective deals {hands['median_effective_deals']:.0f}, opponents' cards "
          f"placed right {hands['placed_weighted']:.3f} weighted, {hands['placed_uniform']:.3f} uniform "
          f"({hands['decisions']} decisions)")
    for name, tcp in (() if args.no_server else (("server_in_process", False), ("server_tcp", True))):
        rate = server_rate(args.games, tcp)
        out[name] = rate
        print(f"{name}: {rate:.1f} games/s ({args.games} games, 5 default clients)")
    finish("daihinmin", args, out, load_before)
