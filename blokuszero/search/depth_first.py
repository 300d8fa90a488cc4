"""Depth-first searches for multi-player games (SPEC §2): MaxN, Paranoid, Best-Reply Search.

All three search to a fixed depth with iterative deepening under a node and/or time
budget: when the budget runs out mid-iteration, the move of the last finished iteration
is played, and each iteration tries the previous best move first.

- MaxN: the player to move picks the child maximising its own entry of the evaluation
  vector, with Korf's shallow pruning when the evaluation gives a bound on the sum of entries.
- Paranoid: alpha-beta on the root player's entry; every opponent minimises it.
- BRS: alpha-beta where the opponents' turns form one layer of all their moves (the one
  move worst for the root player is chosen) and the root player moves again after it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..games.base import Game, State
from ..settings import Settings, setting
from . import time_manager

ALGORITHMS = ("maxn", "paranoid", "brs")

#: Evaluation of a position: one value per player (e.g. squares placed in Blokus).
EvaluationFn = Callable[[State], np.ndarray]
#: Move ordering: the given actions of ``player`` reordered, most promising first.
OrderingFn = Callable[[State, int, np.ndarray], np.ndarray]


@dataclass(frozen=True)
class DepthFirstConfig(Settings):
    """A depth-first search's settings, each with its range."""

    algorithm: str = setting("brs", choices=ALGORITHMS)  # maxn | paranoid | brs
    max_depth: int = setting(4, low=1)  # plies (BRS: layers) of the deepest iteration
    node_limit: int | None = setting(20_000, low=1)  # positions generated per move (None = no limit)
    time_limit: float | None = setting(None, above=0)  # seconds per move (None = no limit)


class _OutOfBudget(Exception):
    pass


@dataclass(frozen=True)
class DepthFirstResult:
    action: int  # best move of the deepest finished iteration
    value: np.ndarray  # its backed-up evaluation vector
    depth: int  # deepest finished iteration
    nodes: int  # positions generated


def keep_order(state: State, player: int, actions: np.ndarray) -> np.ndarray:
    """The default move ordering: as given."""
    return actions


class DepthFirstSearch:
    """One of MaxN, Paranoid or BRS over any game of the common interface.

    ``max_sum(state, depth)`` (optional) bounds the sum of the evaluation's entries at any
    position within ``depth`` moves of ``state``, with every entry >= 0; MaxN then prunes.
    """

    def __init__(self, game: Game, config: DepthFirstConfig, evaluate: EvaluationFn,
                 order: OrderingFn = keep_order,
                 max_sum: Callable[[State, int], float] | None = None) -> None:
        self.game = game
        self.config = config
        self.evaluate = evaluate
        self.order = order
        self.max_sum = max_sum
        self.nodes = 0
        self._deadline: float | None = None
        self._root = 0

    def search(self, state: State) -> DepthFirstResult:
        """The best move at ``state`` by iterative deepening within the budget."""
        if state.is_terminal():
            raise ValueError("cannot search a terminal state")
        cfg = self.config
        self.nodes = 0
        self._deadline = None if cfg.time_limit is None else time_manager.WALL_CLOCK() + cfg.time_limit
        self._root = state.current_player()
        best: DepthFirstResult | None = None
        first = None
        for depth in range(1, cfg.max_depth + 1):
            try:
                if cfg.algorithm == "maxn":
                    bound = self.max_sum(state, depth) if self.max_sum else None
                    value, action = self._maxn(state, depth, -1, -np.inf, bound, first)
                else:
                    value, action = self._alphabeta(state, depth, -np.inf, np.inf, first)
            except _OutOfBudget:
                break
            best = DepthFirstResult(action, value, depth, self.nodes)
            first = action  # searched first next time: more pruning
        if best is None:  # not even depth 1 finished: play the first ordered move
            first_move = self.order(state, self._root, state.legal_actions())[0]
            return DepthFirstResult(int(first_move), self.evaluate(state), 0, self.nodes)
        return DepthFirstResult(best.action, best.value, best.depth, self.nodes)

    # ------------------------------------------------------------------ helpers
    def _moves(self, state: State, first: int | None) -> list[tuple[int | None, int]]:
        """(out-of-turn player or None, action) pairs to search at ``state``, ordered."""
        p = state.current_player()
        if self.config.algorithm == "brs" and p != self._root:
            # One merged layer of every opponent's moves, played out of turn.
            return [(o, int(a)) for o in range(self.game.num_players) if o != self._root
                    for a in self.order(state, o, state.legal_actions(o))]
        moves = [(None, int(a)) for a in self.order(state, p, state.legal_actions())]
        if first is not None:
            moves.sort(key=lambda m: m[1] != first)  # stable: the rest keep their order
        return moves

    def _child(self, state: State, player: int | None, action: int) -> State:
        self.nodes += 1
        if (self.config.node_limit is not None and self.nodes > self.config.node_limit) or (
                self._deadline is not None and time_manager.WALL_CLOCK() > self._deadline):
            raise _OutOfBudget
        child = state.clone()
        if player is None:
            child.apply_action(action)
        else:
            child.apply_action_for(player, action, self._root)
        return child

    def _maxn(self, state: State, depth: int, parent: int, parent_best: float,
              bound: float | None, first: int | None = None) -> tuple[np.ndarray, int]:
        if depth == 0 or state.is_terminal():
            return self.evaluate(state), -1
        p = state.current_player()
        best, best_action = None, -1
        for player, a in self._moves(state, first):
            v, _ = self._maxn(self._child(state, player, a), depth - 1, p,
                              best[p] if best is not None else -np.inf, bound)
            if best is None or v[p] > best[p]:
                best, best_action = v, a
            # Shallow pruning (Korf): the parent's player can get at most bound - best[p]
            # here, which cannot beat what it already has.
            if bound is not None and parent >= 0 and p != parent and best[p] >= bound - parent_best:
                break
        return best, best_action

    def _alphabeta(self, state: State, depth: int, alpha: float, beta: float,
                   first: int | None = None) -> tuple[np.ndarray, int]:
        """Paranoid, or BRS when the algorithm merges the opponents' layers."""
        if depth == 0 or state.is_terminal():
            return self.evaluate(state), -1
        root = self._root
        maximise = state.current_player() == root
        best, best_action = None, -1
        for player, a in self._moves(state, first):
            v, _ = self._alphabeta(self._child(state, player, a), depth - 1, alpha, beta)
            if best is None or (v[root] > best[root] if maximise else v[root] < best[root]):
                best, best_action = v, a
            if maximise:
                alpha = max(alpha, best[root])
            else:
                beta = min(beta, best[root])
            if alpha >= beta:
                break
        return best, best_action
