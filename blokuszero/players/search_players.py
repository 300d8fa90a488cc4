"""Players backed by the search core: MCTS (any configuration) and depth-first searches; the
factory's ``mcts`` and ``depth_first`` kinds and the selection rules by name."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..games.abilities import HasDepthFirstHeuristics, HasPassAction, HasPatternNeighbours, implements
from ..games.base import Game, State
from ..search import time_manager
from ..search.depth_first import DepthFirstConfig, DepthFirstSearch, keep_order
from ..search.enhancements import PriorKnowledge
from ..search.evaluators import RolloutEvaluator
from ..search.mcts import MCTS, MCTSConfig, SearchResult
from ..search.rave import RAVE
from ..search.root_policies import choose_action, move_temperature
from ..search.selection import PUCT, UCB1, ProgressiveHistory, UCB1Tuned
from .base import Player, Resign
from .registry import RAVE_OPTIONS, PlayerSpec

#: Selection rules by name, with the options each takes.
SELECTION_RULES = {"ucb1": (UCB1, ("c",)), "ucb1_tuned": (UCB1Tuned, ("c",)),
                   "progressive_history": (ProgressiveHistory, ("c", "w")),
                   "puct": (PUCT, ("c_base", "c_init", "q_init")), "rave": (RAVE, RAVE_OPTIONS)}
_MCTS_FIELDS = frozenset(MCTSConfig.__dataclass_fields__)
_DEPTH_FIRST_FIELDS = frozenset(DepthFirstConfig.__dataclass_fields__)


def make_rule(name: str, options: Mapping[str, Any], game: Game | None = None):
    """A selection rule by name, with the options it takes from ``options``; RAVE also takes
    ``game``'s pattern neighbours and pass action where the game has them."""
    if name not in SELECTION_RULES:
        raise ValueError(f"unknown selection rule {name!r}; known: {sorted(SELECTION_RULES)}")
    cls, params = SELECTION_RULES[name]
    kwargs = {k: options[k] for k in params if k in options}
    if cls is RAVE and game is not None:
        if implements(game, HasPatternNeighbours):
            kwargs["neighbours"] = game.pattern_neighbours()
        kwargs["skip_action"] = game.pass_action if isinstance(game, HasPassAction) else -1
    return cls(**kwargs)


def make_mcts_player(game: Game, spec: PlayerSpec, rng: np.random.Generator) -> MCTSPlayer:
    """The ``mcts`` kind: a selection rule over rollouts, with the game's prior knowledge if asked."""
    s = spec.settings
    rule = make_rule(s.get("selection", "ucb1"), s, game)
    config = MCTSConfig(**{k: v for k, v in s.items() if k in _MCTS_FIELDS})
    evaluator = RolloutEvaluator(s.get("playout", "uniform"), s.get("epsilon", 0.0), rng.spawn(1)[0],
                                 s.get("reward", "win"))
    extra = ([PriorKnowledge(s["n_prior"], s.get("prior", "simple"), s.get("prior_rave", False))]
             if s.get("n_prior", 0) > 0 else [])
    return MCTSPlayer(MCTS(game, config, rule, evaluator, rng.spawn(1)[0], enhancements=extra,
                           clock=time_manager.CPU_CLOCK),
                      temperature_moves=s.get("temperature_moves", 0))


def check_depth_first(options: Mapping[str, Any]) -> None:
    """SettingError where the depth-first options do not go together."""
    DepthFirstConfig(**{k: v for k, v in options.items() if k in _DEPTH_FIRST_FIELDS})


def depth_first_heuristics(game: Game):
    """(evaluation, move ordering, sum bound or None) for the depth-first searches: the game's
    own where it has them (Blokus: squares placed per colour, larger pieces first, SPEC §2);
    else the returns at the end of the game and 0 before it, in the given order."""
    if implements(game, HasDepthFirstHeuristics):
        return game.depth_first_heuristics()
    return (lambda state: np.asarray(state.returns(), dtype=np.float64)), keep_order, None


def make_depth_first_player(game: Game, spec: PlayerSpec, rng: np.random.Generator) -> DepthFirstPlayer:
    """The ``depth_first`` kind: MaxN, Paranoid or BRS with the game's heuristics."""
    config = DepthFirstConfig(**{k: v for k, v in spec.settings.items() if k in _DEPTH_FIRST_FIELDS})
    return DepthFirstPlayer(DepthFirstSearch(game, config, *depth_first_heuristics(game)))


class MCTSPlayer(Player):
    """Plays the most visited move; moves 1..``temperature_moves`` of the game are sampled
    in proportion to visit counts (SPEC §3: 20 in self-play). Reuses its tree between moves."""

    def __init__(self, mcts: MCTS, temperature_moves: int = 0) -> None:
        self.mcts = mcts
        self.temperature_moves = temperature_moves
        self.moves_played = 0
        self.last_result: SearchResult | None = None  # the latest search's root statistics

    def reset(self) -> None:
        self.mcts.tree = None
        self.moves_played = 0

    def choose_action(self, state: State, player: int | None = None,
                      time_limit: float | None = None) -> int:
        """The move at ``state``; at a simultaneous-move state, ``player``'s (its role's) action.
        ``time_limit``: this search's seconds instead of the configured ones (a clock's remainder)."""
        result = self.last_result = self.mcts.search(state, time_limit=time_limit)
        temperature = move_temperature(self.moves_played, self.temperature_moves)
        return choose_action(result, temperature, self.mcts.rng, player=player)

    def inform(self, action: int, player: int) -> None:
        self.moves_played += 1
        self.mcts.advance(action, player)

    def inform_joint(self, joint: Sequence[int]) -> None:
        self.moves_played += 1
        self.mcts.advance_joint(joint)


class DepthFirstPlayer(Player):
    """Plays the move of a MaxN, Paranoid or BRS search."""

    def __init__(self, search: DepthFirstSearch) -> None:
        self.search = search

    def choose_action(self, state: State) -> int:
        return self.search.search(state).action


class Resigning(Player):
    """An :class:`MCTSPlayer` that resigns (raises :class:`Resign`) when, after ``after_moves``
    moves of the game, the value its search gives its chosen move falls below ``threshold``."""

    def __init__(self, player: MCTSPlayer, threshold: float, after_moves: int = 10) -> None:
        self.player, self.threshold, self.after_moves = player, threshold, after_moves
        self.moves = 0

    def reset(self) -> None:
        self.player.reset()
        self.moves = 0

    def choose_action(self, state: State, player: int | None = None) -> int:
        action = self.player.choose_action(state, player)
        result = self.player.last_result
        mover = state.current_player() if player is None else player
        chosen = np.flatnonzero(result.actions == action)
        if self.moves > self.after_moves and chosen.size and result.values[chosen[0], mover] < self.threshold:
            raise Resign(f"the value of its best move is below {self.threshold}")
        return action

    def inform(self, action: int, player: int) -> None:
        self.moves += 1
        self.player.inform(action, player)

    def inform_joint(self, joint: Sequence[int]) -> None:
        self.moves += 1
        self.player.inform_joint(joint)

    def close(self) -> None:
        self.player.close()
