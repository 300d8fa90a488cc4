"""Self-play of many games in lockstep, their leaves evaluated in one network batch.

Every round, each game's tree gives ``leaves_per_tree`` leaves (virtual loss keeps them
apart); all non-terminal leaves of all games go to the evaluator at once. A game whose search
has run its budget plays its move (search/alphazero.py: PUCT's sampled in proportion to the
visit counts for the first ``temperature_moves`` moves, the most visited after (SPEC §3);
Gumbel's root policy's own) and starts its next search in the same round. With playout cap
randomisation (``fast_simulations > 0``, Wu 2019) each move is a full search with probability
``full_search_fraction`` and a fast one without root noise otherwise; only full searches are
recorded as policy targets. A finished game is handed on and a new one takes its slot.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..games.abilities import HasScores, implements
from ..games.base import Game, State
from ..search.alphazero import network_search
from ..search.evaluators import Evaluator
from ..search.mcts import MCTS
from ..search.root_policies import choose_action, move_temperature, policy_target
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
        for name, budget in (("simulations", self.simulations), ("fast_simulations", self.fast_simulations)):
            if budget and budget <= self.leaves_per_tree:
                raise SettingError(f"search.{name}", f"must be more than selfplay.leaves_per_tree "
                                   f"({self.leaves_per_tree}), not {budget}")


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
    def __init__(self, state: State, mcts: MCTS, fast: MCTS | None, record: RecordBuilder,
                 rng: np.random.Generator) -> None:
        self.state = state
        self.mcts = mcts  # full searches
        self.fast = fast  # fast searches (playout cap randomisation), or None
        self.record = record
        self.rng = rng  # the slot's own draws (full or fast)
        self.search = mcts  # the search of the move under way
        self.budget = 0  # its simulations
        self.done = 0  # simulations run so far


class LockstepSelfPlay:
    """Plays games with MaxN search (SPEC §3: PUCT; or Gumbel), many at a time."""

    def __init__(self, game: Game, evaluator: Evaluator, settings: SelfPlaySettings,
                 seed: int | None = None) -> None:
        if settings.leaf_playouts:
            raise ValueError("search.leaf_playouts is expert iteration's self-play "
                             "(rl/expert_iteration.py), not the lockstep loop's")
        self.game = game
        self.evaluator = evaluator
        self.settings = settings
        self.seeds = np.random.SeedSequence(seed)
        self.weights_version = 0

    def _search(self, seed: int | np.random.SeedSequence, simulations: int, noise: bool) -> MCTS:
        s = self.settings
        config, rule = network_search(
            s.gumbel, c_base=s.c_base, c_init=s.c_init, q_init=s.q_init, tree="maxn",
            simulations=simulations, expand_threshold=0, dirichlet_alpha=s.dirichlet_alpha,
            dirichlet_epsilon=s.dirichlet_epsilon if noise else 0.0,
            virtual_loss=s.leaves_per_tree > 1, gumbel_considered=s.gumbel_considered,
            gumbel_scale=s.gumbel_scale if noise else 0.0, c_visit=s.c_visit, c_scale=s.c_scale)
        return MCTS(self.game, config, rule, self.evaluator, np.random.default_rng(seed))

    def _new_slot(self) -> _Slot:
        s = self.settings
        spawned = self.seeds.spawn(1)[0]
        game_seed = int(spawned.generate_state(1)[0])
        fast_seed, slot_seed = spawned.spawn(2)
        # KataGo's fast searches play without exploration noise: they only move the game on.
        fast = self._search(fast_seed, s.fast_simulations, noise=False) if s.fast_simulations else None
        slot = _Slot(self.game.new_initial_state(), self._search(game_seed, s.simulations, noise=True),
                     fast, RecordBuilder(game_seed, self.weights_version), np.random.default_rng(slot_seed))
        self._begin(slot)
        return slot

    def _begin(self, slot: _Slot) -> None:
        """Start the slot's next search: full, or (with playout cap randomisation) fast with
        probability 1 - full_search_fraction. The other search's tree is dropped (trees are
        reused only between searches of one kind, on the moves actually played)."""
        s = self.settings
        full = slot.fast is None or slot.rng.random() < s.full_search_fraction
        slot.search, other = (slot.mcts, slot.fast) if full else (slot.fast, slot.mcts)
        if other is not None:
            other.tree = None
        slot.budget = s.simulations if full else s.fast_simulations
        slot.done = 0
        slot.search.begin(slot.state)

    def play(self, num_games: int, on_game: Callable[[GameRecord], None] | None = None,
             stop: Callable[[], bool] | None = None) -> SelfPlayStats:
        """Play ``num_games`` complete games; call ``on_game`` with each as it ends. ``stop``, if
        given, is asked before each simulation round: once it answers True the games under way
        are dropped and the statistics so far returned (a benchmark's time limit)."""
        s = self.settings
        stats = SelfPlayStats()
        start = time.perf_counter()
        slots = [self._new_slot() for _ in range(min(num_games, s.games_in_parallel))]
        started = len(slots)
        while slots and not (stop is not None and stop()):
            leaves = [(slot, slot.search.select_leaf(slot.state)) for slot in slots
                      for _ in range(s.leaves_per_tree)]
            pending = [leaf.state for _, leaf in leaves if leaf.state is not None]
            evaluations = iter(self.evaluator.evaluate(pending) if pending else [])
            for slot, leaf in leaves:
                slot.search.complete(leaf, None if leaf.state is None else next(evaluations))
            stats.evaluations += len(pending)
            stats.batches += 1
            stats.batch_capacity += len(leaves)
            stats.simulations += len(leaves)
            still_playing = []
            for slot in slots:
                slot.done += s.leaves_per_tree
                if slot.done < slot.budget:
                    still_playing.append(slot)
                    continue
                if self._move(slot, stats):
                    still_playing.append(slot)
                    continue
                record = finish_game(slot.state, slot.record)
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

    def _move(self, slot: _Slot, stats: SelfPlayStats) -> bool:
        """Play the move of the slot's finished search and record it; start the next search
        unless the game ended (then False)."""
        play_move(slot.state, slot.search, slot.search.result(slot.done), slot.record,
                  self.settings.temperature_moves, full=slot.search is slot.mcts)
        stats.positions += 1
        if slot.state.is_terminal():
            return False
        self._begin(slot)
        return True


def play_move(state: State, search: MCTS, result, record: RecordBuilder, temperature_moves: int,
              full: bool) -> None:
    """Play the move of ``search``'s ``result`` in ``state`` (sampled by visit count for the
    first ``temperature_moves`` moves of the game), record it with its policy target (none for a
    fast search: ``full`` False), and move the search's root along it."""
    action = choose_action(result, move_temperature(len(record.actions), temperature_moves), search.rng)
    player = state.current_player()
    actions, probs = policy_target(result) if full else (np.empty(0, np.int32), np.empty(0))
    record.add(player, action, actions, probs)
    state.apply_action(action)
    search.advance(action, player)


def finish_game(state: State, record: RecordBuilder) -> GameRecord:
    """The record of a game that has ended in ``state``."""
    scores = state.scores() if implements(state, HasScores) else state.returns()
    return record.finish(state.returns(), scores)
