"""Tree shapes (SPEC §2): which moves a node has, how a move is played, what value is backed up.

- :class:`MaxN`: each player maximises its own entry of the value vector.
- :class:`Paranoid`: every opponent minimises the root player's value. The backup replaces
  the value vector by ``v'[root] = v[root]`` and ``v'[o] = lo + hi - v[root]`` for the
  opponents, so the MaxN rule on ``v'`` is the paranoid rule.
- :class:`BRS` (Best-Reply Search): paranoid values, and the opponents' turns are merged into
  one layer whose children are the moves of every opponent that can move; after it the
  root player moves again (needs the game's ``apply_action_for``).

A new shape subclasses :class:`TreeShape` and is passed to :class:`~blokuszero.search.MCTS`
(or registered in :data:`TREE_SHAPES` for configuration files); the loop does not change.
At a simultaneous-move node every shape lists each role's actions (decoupled selection).
"""

from __future__ import annotations

import numpy as np

from ..games.abilities import HasSearchActions, implements
from ..games.base import SIMULTANEOUS, State


class TreeShape:
    """MaxN by default; subclasses override what differs."""

    name = "maxn"

    def children(self, state: State, root_player: int, num_players: int) -> tuple[np.ndarray, np.ndarray]:
        """(actions, movers) of the moves at ``state``."""
        p = state.current_player()
        if p == SIMULTANEOUS:
            legal = [state.legal_actions(q) for q in range(num_players)]
            return (np.concatenate(legal),
                    np.concatenate([np.full(len(a), q) for q, a in enumerate(legal)]))
        # A game may narrow the moves worth searching (Go: no filling of one's own eyes).
        actions = state.search_actions() if implements(state, HasSearchActions) else state.legal_actions()
        return actions, np.full(len(actions), p)

    def play(self, state: State, action: int, mover: int, root_player: int) -> None:
        """Play the move of a child (turn-taking nodes; joint actions are the loop's)."""
        state.apply_action(action)

    def shape_value(self, value: np.ndarray, root_player: int, lo: float, hi: float) -> np.ndarray:
        """The value vector to back up, from the evaluator's (on the scale [lo, hi])."""
        return value


class MaxN(TreeShape):
    """Each player maximises its own entry."""


class Paranoid(TreeShape):
    """The opponents minimise the root player's value."""

    name = "paranoid"

    def shape_value(self, value, root_player, lo, hi):
        shaped = np.full_like(value, lo + hi - value[root_player])
        shaped[root_player] = value[root_player]
        return shaped


class BRS(Paranoid):
    """Best-Reply Search: one merged layer of every opponent's moves."""

    name = "brs"

    def children(self, state, root_player, num_players):
        p = state.current_player()
        if p == SIMULTANEOUS or p == root_player:
            return super().children(state, root_player, num_players)
        moves = [(o, state.legal_actions(o)) for o in range(num_players) if o != root_player]
        return (np.concatenate([a for _, a in moves]),
                np.concatenate([np.full(len(a), o) for o, a in moves]))

    def play(self, state, action, mover, root_player):
        if mover != root_player:
            state.apply_action_for(mover, action, root_player)
        else:
            state.apply_action(action)


#: Shapes by the name configuration files use.
TREE_SHAPES: dict[str, TreeShape] = {s.name: s for s in (MaxN(), Paranoid(), BRS())}
