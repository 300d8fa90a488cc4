"""Self-play of many games in lockstep, their leaves evaluated in one network batch.

Every round, each game's tree gives ``leaves_per_tree`` leaves (virtual loss keeps them
apart); all non-terminal leaves of all games go to the evaluator at once. After
``simulations`` simulations per tree, every game plays a move: sampled in proportion to the
visit counts for its first ``temperature_moves`` moves, the most visited after (SPEC §3).
A finished game is handed on and a new one takes its slot.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..games.base import Game, State
from ..search.evaluators import Evaluator
from ..search.mcts import MCTS, MCTSConfig
from ..search.policies import choose_action, move_temperature
from ..search.selection import PUCT
from ..settings import SettingError
from .config import LockstepSettings, SearchSettings
from .records import GameRecord, RecordBuilder


@dataclass(frozen=True)
class SelfPlaySettings(LockstepSettings, SearchSettings):
    """What an actor needs: the ``search`` group's settings and the ``selfplay`` group's."""

    def __post_init__(self) -> None:
        super().__post_init__()
        # The first round's leaves all stop at the unexpanded root: with no more simulations than
        # leaves per tree, no child is ever visited and there is no move to choose.
        if self.simulations <= self.leaves_per_tree:
            raise SettingError("search.simulations", f"must be more than selfplay.leaves_per_tree "
                               f"({self.leaves_per_tree}), not {self.simulations}")


@dataclass
class SelfPlayStats:
    games: int = 0
    positions: int = 0
    simulations: int = 0
    evaluations: int = 0  # states sent to the evaluator
    batches: int = 0
    batch_capacity: int = 0  # leaves that could have been in those batches
    seconds: float = 0.0
    last_game: GameRecord | None = field(default=None, repr=False)

    @property
    def batch_fill(self) -> float:
        return self.evaluations / max(self.batch_capacity, 1)


class _Slot:
    def __init__(self, state: State, mcts: MCTS, record: RecordBuilder) -> None:
        self.state = state
        self.mcts = mcts
        self.record = record


class LockstepSelfPlay:
    """Plays games with PUCT MaxN search (SPEC §3), many at a time."""

    def __init__(self, game: Game, evaluator: Evaluator, settings: SelfPlaySettings,
                 seed: int | None = None) -> None:
        self.game = game
        self.evaluator = evaluator
        self.settings = settings
        self.seeds = np.random.SeedSequence(seed)
        self.weights_version = 0

    def _new_slot(self) -> _Slot:
        s = self.settings
        game_seed = int(self.seeds.spawn(1)[0].generate_state(1)[0])
        config = MCTSConfig(tree="maxn", simulations=s.simulations, expand_threshold=0,
                            dirichlet_alpha=s.dirichlet_alpha, dirichlet_epsilon=s.dirichlet_epsilon,
                            virtual_loss=s.leaves_per_tree > 1)
        mcts = MCTS(self.game, config, PUCT(s.c_base, s.c_init, s.q_init), self.evaluator, game_seed)
        return _Slot(self.game.new_initial_state(), mcts, RecordBuilder(game_seed, self.weights_version))

    def play(self, num_games: int, on_game: Callable[[GameRecord], None] | None = None) -> SelfPlayStats:
        """Play ``num_games`` complete games; call ``on_game`` with each as it ends."""
        s = self.settings
        stats = SelfPlayStats()
        start = time.perf_counter()
        slots = [self._new_slot() for _ in range(min(num_games, s.games_in_parallel))]
        started = len(slots)
        rounds = math.ceil(s.simulations / s.leaves_per_tree)
        while slots:
            for slot in slots:
                slot.mcts.begin(slot.state)
            for _ in range(rounds):
                leaves = [(slot, slot.mcts.select_leaf(slot.state)) for slot in slots
                          for _ in range(s.leaves_per_tree)]
                pending = [leaf.state for _, leaf in leaves if leaf.state is not None]
                evaluations = iter(self.evaluator.evaluate(pending) if pending else [])
                for slot, leaf in leaves:
                    slot.mcts.complete(leaf, None if leaf.state is None else next(evaluations))
                stats.evaluations += len(pending)
                stats.batches += 1
                stats.batch_capacity += len(leaves)
            stats.simulations += rounds * s.leaves_per_tree * len(slots)
            still_playing = []
            for slot in slots:
                result = slot.mcts.result(rounds * s.leaves_per_tree)
                moves_so_far = len(slot.record.actions)
                temperature = move_temperature(moves_so_far, s.temperature_moves)
                action = choose_action(result, temperature, slot.mcts.rng)
                player = slot.state.current_player()
                slot.record.add(player, action, result.actions, result.visits)
                slot.state.apply_action(action)
                slot.mcts.advance(action, player)
                stats.positions += 1
                if not slot.state.is_terminal():
                    still_playing.append(slot)
                    continue
                scores = slot.state.scores() if hasattr(slot.state, "scores") else slot.state.returns()
                record = slot.record.finish(slot.state.returns(), scores)
                stats.games += 1
                stats.last_game = record
                if on_game is not None:
                    on_game(record)
                if started < num_games:
                    still_playing.append(self._new_slot())
                    started += 1
            slots = still_playing
        stats.seconds = time.perf_counter() - start
        return stats
