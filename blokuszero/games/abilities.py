"""The optional abilities of a game or state, each a Protocol that search and players test for.

Every game has the :class:`~blokuszero.games.base.State` interface; chance nodes, simultaneous
moves and hidden information are part of it (with defaults for games without them, told apart
by ``current_player()``). The abilities below are extra: a game offers one by having its
methods, and a caller asks with :func:`implements` (``isinstance`` answered once per class).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class HasScores(Protocol):
    """Final scores beside the returns (Blokus: squares; Go: points), stored with each game."""

    def scores(self) -> np.ndarray:
        """One score per player (a final score at a terminal state)."""


@runtime_checkable
class HasPlayouts(Protocol):
    """A fast random playout to the end, which rollout evaluators use instead of Python moves."""

    def playout(self, policy: str, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
        """Play to the end in place with ``policy``; (players, actions) of the moves chosen."""


@runtime_checkable
class HasTracedPlayouts(Protocol):
    """Playouts that also give the positions passed (GDL propnets), for enhancements that learn
    from positions."""

    def traced_playout(self, policy: str, epsilon: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`HasPlayouts.playout` and a row per step, as :meth:`board` gives it."""

    def board(self) -> np.ndarray:
        """This position as one row of the rows :meth:`traced_playout` returns."""


@runtime_checkable
class HasMovesOutOfTurn(Protocol):
    """Moves out of turn, for Best-Reply Search's trees."""

    def apply_action_for(self, player: int, action: int, next_player: int) -> None:
        """Play ``action`` for ``player``, then give the turn to ``next_player``."""


@runtime_checkable
class HasSearchActions(Protocol):
    """The legal moves worth searching, when some are never better (Go: filling one's own eye)."""

    def search_actions(self) -> np.ndarray:
        """The sorted subset of ``legal_actions()`` that MCTS expands."""


@runtime_checkable
class HasCompact(Protocol):
    """Dropping cached data that no longer holds (Blokus: stale candidate moves), so that the
    copies search makes of its root start lean."""

    def compact(self) -> None:
        """Drop the stale data; the position is unchanged."""


@runtime_checkable
class HasNumbaKernels(Protocol):
    """Positions in numba arrays, on which compiled search runs whole simulations (games/kernels.py)."""

    def numba_state(self) -> tuple[object, object]:
        """(state, tables): the position's arrays and the game's fixed data."""

    def playout_code(self, policy: str) -> int:
        """The code of playout policy ``policy`` that the numba playout takes."""


@runtime_checkable
class HasPriorKnowledge(Protocol):
    """Prior knowledge of moves (Go: Fuego's even-game knowledge), which search adds as virtual wins."""

    def prior_knowledge(self, kind: str) -> tuple[np.ndarray, np.ndarray]:
        """Per action a win rate in [0, 1] and a weight (0 where nothing is known)."""


@runtime_checkable
class HasPatternNeighbours(Protocol):
    """Each action's neighbouring actions (Go: the 8 points around), RAVE's local pattern."""

    def pattern_neighbours(self) -> np.ndarray:
        """[A, 8] the actions around each action (-1 off the board)."""


@runtime_checkable
class HasPassAction(Protocol):
    """A pass move (Go's), which RAVE never credits from a playout."""

    pass_action: int


@runtime_checkable
class HasDepthFirstHeuristics(Protocol):
    """A game's own heuristics for the depth-first searches (Blokus: squares placed, larger pieces
    first), in place of the returns at the end of the game."""

    def depth_first_heuristics(self) -> tuple[Callable, Callable, Callable | None]:
        """(evaluation: state -> one value per player, move ordering: (state, player, actions) ->
        actions, the bound on the values' sum at a depth or None)."""


@runtime_checkable
class HasGtpDialect(Protocol):
    """How GTP engines play the game (Go: GTP v2; Blokus: Pentobi's dialect), for a player that
    drives an external engine."""

    def gtp_passes(self) -> bool:
        """Whether an engine may answer ``genmove`` with ``pass`` or ``resign`` (Go). Where not
        (Blokus), only a colour that can move is asked, and none resigns."""

    def gtp_colour(self, player: int) -> str:
        """``player``'s colour as the engine names it (``B``/``W``; ``1``-``4``)."""

    def gtp_setup(self) -> list[str]:
        """The commands that set a new game up before ``clear_board`` (Go: board size, komi)."""


STATE_ABILITIES = (HasScores, HasPlayouts, HasTracedPlayouts, HasMovesOutOfTurn, HasSearchActions,
                   HasCompact, HasNumbaKernels, HasPriorKnowledge)
GAME_ABILITIES = (HasPatternNeighbours, HasPassAction, HasDepthFirstHeuristics, HasGtpDialect)


def implements(obj: object, ability: type) -> bool:
    """``isinstance(obj, ability)`` for an ability of methods only, answered once per class:
    a Protocol's own check costs microseconds, and search asks per node and per playout."""
    return _class_implements(type(obj), ability)


@functools.cache
def _class_implements(cls: type, ability: type) -> bool:
    return issubclass(cls, ability)
