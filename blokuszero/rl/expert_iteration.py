"""Expert iteration's self-play (Anthony, Tian & Barber 2017): each move is searched as the
play-time ``network`` preset searches, and the root's visit counts become the policy target.

Every leaf is valued by one playout of the game's own uniform policy and the network is asked
only for the priors of a node once it has ``expand_threshold`` visits (AlphaGo's expansion
threshold, :class:`~blokuszero.search.evaluators.PlayoutPriors`), so one network call serves that
many simulations and a move gets hundreds to thousands of simulations for the CPU time that
:class:`~.selfplay.LockstepSelfPlay` spends on a few dozen network leaves. The simulations run
in the compiled loop (:mod:`blokuszero.search.compiled`), one game at a time: there is no batch of
leaves to form. The compiled loop adds no root noise; the first ``temperature_moves`` moves are
sampled by visit count. The value target stays the game's outcome.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from ..games.base import Game
from ..search.alphazero import network_search
from ..search.evaluators import Evaluator, PlayoutPriors
from ..search.mcts import MCTS
from .records import GameRecord, RecordBuilder
from .selfplay import SelfPlaySettings, SelfPlayStats, finish_game, play_move


class ExpertIterationSelfPlay:
    """Plays games one at a time with the play-time search over ``evaluator``'s priors; the
    interface of :class:`~.selfplay.LockstepSelfPlay` (``play``, ``weights_version``)."""

    def __init__(self, game: Game, evaluator: Evaluator, settings: SelfPlaySettings,
                 seed: int | None = None) -> None:
        if not settings.leaf_playouts:
            raise ValueError("expert iteration's self-play needs search.leaf_playouts: true")
        self.game = game
        self.evaluator = evaluator
        self.settings = settings
        self.seeds = np.random.SeedSequence(seed)
        self.weights_version = 0

    def search(self, seed: np.random.SeedSequence) -> MCTS:
        """A fresh search of this self-play's settings, its randomness from ``seed``."""
        s = self.settings
        rng = np.random.default_rng(seed)
        config, rule = network_search(False, c_base=s.c_base, c_init=s.c_init, q_init=s.q_init, tree="maxn",
                                      simulations=s.simulations, expand_threshold=s.expand_threshold)
        # The playouts draw from the search's generator, as the network preset's do.
        return MCTS(self.game, config, rule, PlayoutPriors(self.evaluator, rng), rng)

    def play(self, num_games: int, on_game: Callable[[GameRecord], None] | None = None,
             stop: Callable[[], bool] | None = None) -> SelfPlayStats:
        """Play ``num_games`` complete games; call ``on_game`` with each as it ends. ``stop``, if
        given, is asked before each move: once it answers True the game under way is dropped and
        the statistics so far returned."""
        s = self.settings
        stats = SelfPlayStats()
        start = time.perf_counter()
        for _ in range(num_games):
            spawned = self.seeds.spawn(1)[0]
            game_seed = int(spawned.generate_state(1)[0])
            full_seed, fast_seed, draw_seed = spawned.spawn(3)
            full_search = self.search(full_seed)
            fast_search = self.search(fast_seed) if s.fast_simulations else None
            draws = np.random.default_rng(draw_seed)  # full or fast, move by move
            state = self.game.new_initial_state()
            record = RecordBuilder(game_seed, self.weights_version)
            while not state.is_terminal():
                if stop is not None and stop():
                    stats.seconds = time.perf_counter() - start
                    return stats
                full = fast_search is None or draws.random() < s.full_search_fraction
                search, other = (full_search, fast_search) if full else (fast_search, full_search)
                if other is not None:  # trees are reused only between searches of one kind
                    other.tree = None
                expansions = search.evaluator.expansions
                result = search.search(state, simulations=s.simulations if full else s.fast_simulations)
                called = search.evaluator.expansions - expansions
                stats.simulations += result.simulations
                stats.evaluations += called
                stats.batches += called
                stats.batch_capacity += called
                play_move(state, search, result, record, s.temperature_moves, full)
                stats.positions += 1
            game = finish_game(state, record)
            stats.games += 1
            stats.last_game = game
            if on_game is not None:
                on_game(game)
        stats.seconds = time.perf_counter() - start
        return stats
