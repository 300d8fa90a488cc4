"""A GGP match as the player keeps it: game, state, player and moves played, and its switch onto the network.

A match starts on the propositional network when it is ready in time, else on the interpreter,
and moves onto the network at the first play after it has been compiled (the moves so far
replayed on it, the player made again). The moves of each play are applied here; while a search
that missed its clock still owns the player's tree, the tree is left alone and restarted later.
"""

from __future__ import annotations

import concurrent.futures
import logging
import threading
from dataclasses import dataclass, field
from typing import Any

from ...games.ggp import GgpGame, GgpState
from ...players.factory import make_player
from .network_compile import NetworkCompile

log = logging.getLogger(__name__)


def on_interpreter(spec: dict) -> dict:
    """``spec`` for a game on the interpreter: without the search experience, whose board
    encodings read the network's base propositions."""
    return {k: v for k, v in spec.items() if k not in ("experience", "switch_time_limit")}


@dataclass
class Match:
    """One match the player plays: its game and state, its player, the moves so far."""

    game: GgpGame
    role: int
    state: GgpState
    player: Any
    play_clock: float
    rules: str
    spec: dict  # the player's spec, to make it again for the network
    seed: int
    pending: NetworkCompile | None = None  # the network still compiling (playing on the interpreter)
    history: list[list[str]] = field(default_factory=list)  # joint moves played, in KIF
    plays: int = 0
    search: concurrent.futures.Future | None = None  # the latest search, maybe still running
    stale: bool = False  # moves were played while a search ran: the player's tree is behind
    lock: threading.Lock = field(default_factory=threading.Lock)


def advance(match: Match, moves: list[str] | None) -> None:
    """Play the joint move ``moves`` (KIF; None before the first play) on ``match``, and tell its
    player, unless a search still owns its tree; ValueError and nothing played if it is wrong."""
    if moves is None:
        if match.plays:
            raise ValueError("moves are nil after the first play (a repeated request?)")
        return
    if not match.plays:
        raise ValueError("the first play of a match carries nil")
    state = match.state
    if len(moves) != match.game.num_players:
        raise ValueError(f"{len(moves)} moves for {match.game.num_players} roles")
    joint = [state.string_to_action(m) for m in moves]
    mover = state.current_player()
    state.apply_joint_action(joint)
    match.history.append([state.action_to_string(a) for a in joint])
    if match.search is not None and not match.search.done():
        match.stale = True  # the searching thread owns the tree: leave it alone
    elif match.stale:
        match.player.reset()  # its next search starts a tree at the current state
        match.stale = False
    elif mover >= 0:
        match.player.inform(joint[mover], mover)  # keeps the searched subtree
    else:
        match.player.inform_joint(joint)


def switch_when_ready(match: Match) -> None:
    """Move ``match`` onto its propositional network if it has been compiled meanwhile:
    the moves so far replayed on it, and the player made again for it."""
    if match.pending is None:
        return
    try:
        network = match.pending.result(0.0)
    except ValueError as err:
        log.warning("match %s: no propositional network (%s); staying on the interpreter",
                    match.game.name, err)
        match.pending = None
        return
    if network is None:
        return
    match.pending = None
    game = GgpGame(match.rules, name=match.game.name, reasoner=network)
    state = game.new_initial_state()
    for joint in match.history:
        state.apply_joint_action([state.string_to_action(m) for m in joint])
    if state.facts() != match.state.facts():
        log.error("match %s: the network's state differs from the interpreter's after %d "
                  "joint moves; staying on the interpreter", game.name, len(match.history))
        return
    # No pre-game time is left for the experience's switching rule: it then picks d = 0.
    spec = {**match.spec, "switch_time_limit": 0.0}
    match.game, match.state = game, state
    match.player = make_player(game, spec, seed=match.seed)
    log.info("match %s: switched to the propositional network after %d joint moves",
             game.name, len(match.history))
