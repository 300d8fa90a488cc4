"""Gumbel's root against PUCT with Dirichlet noise: CPU time per simulation and record size.

Alternates the two, same network (untrained b2c32conv, torch seed 0) and positions, one torch
thread, process CPU time (robust to other jobs on the machine):

- a single search of ``--simulations`` from Blokus positions after 4, 12 and 24 random moves;
- lockstep self-play of ``--games`` games at ``--selfplay-simulations`` (the CPU default's 8),
  with the bytes of a game record (Gumbel's target covers every legal move, PUCT's the visited).

    python -m blokuszero.bench gumbel --repeats 2
"""

from __future__ import annotations

import time

import numpy as np
import torch

from ..games.blokus import BlokusGame
from ..games.blokus.encoder import BlokusEncoder
from ..nn.evaluator import NetworkEvaluator
from ..nn.model import build_model
from ..rl.selfplay import LockstepSelfPlay, SelfPlaySettings
from ..search.alphazero import network_search
from ..search.mcts import MCTS
from .harness import finish, load, parser

NAMES = {False: "puct+dirichlet", True: "gumbel"}


def positions(game: BlokusGame, seed: int) -> list:
    rng = np.random.default_rng(seed)
    out = []
    for stop in (4, 12, 24):
        state = game.new_initial_state()
        for _ in range(stop):
            state.apply_action(int(rng.choice(state.legal_actions())))
        out.append(state)
    return out


def search_ms(game, evaluator, gumbel: bool, simulations: int, seed: int) -> float:
    """CPU milliseconds per simulation of one search from each position (no tree reuse)."""
    config, rule = network_search(gumbel, simulations=simulations, expand_threshold=0, q_init="parent",
                                  reuse_tree=False)
    mcts = MCTS(game, config, rule, evaluator, seed)
    states = positions(game, seed)
    start = time.process_time()
    for state in states:
        mcts.search(state)
    return 1000 * (time.process_time() - start) / (simulations * len(states))


def selfplay(game, evaluator, gumbel: bool, games: int, simulations: int, seed: int) -> dict:
    records = []
    settings = SelfPlaySettings(simulations=simulations, games_in_parallel=games, q_init="parent",
                                gumbel=gumbel)
    start = time.process_time()
    stats = LockstepSelfPlay(game, evaluator, settings, seed).play(games, records.append)
    cpu = time.process_time() - start
    return {"ms_per_sim": 1000 * cpu / stats.simulations,
            "targets_per_position": float(np.mean([len(g.policy_actions) / g.num_positions for g in records])),
            "kb_per_game": float(np.mean([g.nbytes for g in records])) / 1024}


def main(argv: list[str] | None = None) -> None:
    command = parser("gumbel", __doc__)
    command.add_argument("--simulations", type=int, default=64)
    command.add_argument("--selfplay-simulations", type=int, default=8)
    command.add_argument("--games", type=int, default=8)
    command.add_argument("--repeats", type=int, default=2)
    args = command.parse_args(argv)
    load_before = load()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    game = BlokusGame()
    evaluator = NetworkEvaluator(build_model("b2c32conv", "blokus"), BlokusEncoder())
    for gumbel in NAMES:  # warm-up: numba compilation
        search_ms(game, evaluator, gumbel, 4, 0)
    results: dict[str, list[dict[str, float]]] = {name: [] for name in NAMES.values()}
    for rep in range(args.repeats):
        for gumbel, name in NAMES.items():
            ms = search_ms(game, evaluator, gumbel, args.simulations, rep)
            sp = selfplay(game, evaluator, gumbel, args.games, args.selfplay_simulations, rep)
            results[name].append({"search_ms_per_sim": ms, "selfplay_ms_per_sim": sp["ms_per_sim"],
                                  "targets_per_position": sp["targets_per_position"], "kb_per_game": sp["kb_per_game"]})
            print(f"{name:15s} repeat {rep}: search {ms:.2f} ms/sim ({args.simulations} sims); self-play "
                  f"{sp['ms_per_sim']:.2f} ms/sim ({args.selfplay_simulations} sims, {args.games} games), "
                  f"{sp['targets_per_position']:.1f} targets/position, {sp['kb_per_game']:.1f} KB/game")
    finish("gumbel", args, results, load_before)
