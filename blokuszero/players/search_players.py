"""Players backed by the search core: MCTS (any configuration) and depth-first searches."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..games.base import State
from ..search.depth_first import DepthFirstSearch
from ..search.mcts import MCTS, SearchResult
from ..search.policies import choose_action, move_temperature
from .base import Player, Resign


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
