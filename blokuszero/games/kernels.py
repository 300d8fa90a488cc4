"""The game interface at the numba level: what compiled search code may call on a position.

A game whose positions live in numba-friendly arrays can let search run whole simulations in
compiled code. It implements the generic functions below for its own state type with
:func:`numba.extending.overload` (resolved by the argument types when the caller compiles, so a
caller knows no particular game), and its Python ``State`` gives the arrays with
``numba_state() -> (state, tables)`` and a playout policy's code with ``playout_code(policy)``.
``state`` is the position (changed in place), ``tables`` the game's fixed data; both opaque here.

Each function must do exactly what the Python interface does on the same position, so that a
compiled search computes what the Python loop computes:

- ``state_copy(dst, src, tables)``: ``dst`` becomes a copy of ``src`` (``State.clone``);
- ``state_to_move(state, tables) -> int``: ``current_player()`` (TERMINAL = -1 at the end);
- ``state_key(state, tables) -> int64``: ``key()``;
- ``state_search_actions(state, tables, out) -> int``: the actions MCTS expands (``search_actions()``
  where the game has it, else ``legal_actions()``), sorted, written to ``out``; how many;
- ``state_apply(state, tables, action)``: ``apply_action`` of a legal action (no check);
- ``state_playout(state, tables, policy, epsilon, players, actions) -> int``: ``playout(policy,
  epsilon)`` (``policy`` as ``playout_code`` gives it), the moves written to ``players`` and
  ``actions``; how many;
- ``state_returns(state, tables, out)``: ``returns()`` into ``out``;
- ``state_scores(state, tables, out)``: ``scores()`` into ``out``, for a game with scores (a search
  whose playouts are rewarded by the scores reads them).
"""

from __future__ import annotations


def _stub(name: str):
    def stub(*args):
        raise NotImplementedError(f"{name} is a numba-level interface: a game implements it with "
                                  f"numba.extending.overload, and only compiled code calls it")
    stub.__name__ = stub.__qualname__ = name
    return stub


state_copy = _stub("state_copy")
state_to_move = _stub("state_to_move")
state_key = _stub("state_key")
state_search_actions = _stub("state_search_actions")
state_apply = _stub("state_apply")
state_playout = _stub("state_playout")
state_returns = _stub("state_returns")
state_scores = _stub("state_scores")
