"""The one game loop: players move a game from a position to its end, every match and experiment.

:func:`play` asks the player to move (every player at a simultaneous-move state, each for its
own action), draws chance outcomes, plays random opening moves, tells every player each move,
and keeps the per-seat CPU clock (:data:`~blokuszero.search.time_manager.CPU_CLOCK` read around each
move a seat chooses: its whole search, the kept subtree's copy and the root's expansion
included; an external engine's own CPU time, as it reports it, added). Hooks for what differs between callers:

- a resignation (:class:`~blokuszero.players.base.Resign`) ends a two-player game;
- a player that fails (:class:`~blokuszero.players.base.PlayerFailure`: an engine that crashes,
  answers nonsense or is late) or answers an illegal move is dealt with by ``on_failure``:
  ``forfeit`` (two-player games: it loses; otherwise the error propagates), ``random`` (a
  uniformly random legal move is played for it and the replacement recorded, as a GGP game
  manager does) or ``raise``;
- a ``referee`` sees every move (a refusal forfeits the mover) and scores the end;
- ``chance`` draws chance outcomes in place of ``rng`` (a server that must draw from its own
  generator, as the UECda server does);
- ``max_moves`` stops a game early (experiments that measure the opening only);
- ``every_seat_moves`` asks every seat at every state, as the GGP protocol does (a seat with one
  legal move answers it), and plays the joint move: the game must take joint moves everywhere.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from ..games.base import CHANCE, SIMULTANEOUS, Game, State
from ..players.base import Player, PlayerFailure, Resign
from ..search import time_manager

ON_FAILURE = ("forfeit", "random", "raise")


class Referee(Protocol):
    """An outside judge of a game (a GTP engine for Go): told each move, scores the end."""

    def play(self, player: int, move: str) -> None:
        """``player`` played ``move``; an exception if the referee's rules refuse it."""

    def result(self) -> tuple[np.ndarray, str]:
        """(returns per player, the result as the referee writes it)."""


class RefereeRefusal(Exception):
    """The referee refused a move (its rules differ from ours: say, superko)."""


@dataclass
class Played:
    """What :func:`play` did: the final state, the moves, and how the game was decided."""

    state: State
    #: (mover, move text): mover CHANCE for a chance outcome; (SIMULTANEOUS, [each seat's move
    #: text]) for a joint move.
    moves: list[tuple[int, str | list[str]]] = field(default_factory=list)
    #: (mover, action) for turn moves and chance outcomes (joint moves are in ``moves`` only).
    actions: list[tuple[int, int]] = field(default_factory=list)
    returns: np.ndarray | None = None
    result: str | None = None  # set when a resignation, a forfeit or the referee decided
    forfeit: str | None = None  # why a player lost by its fault (crash, illegal answer)
    replaced: list[dict] = field(default_factory=list)  # on_failure="random": each substitute
    cpu_by_seat: list[float] = field(default_factory=list)  # CPU s each seat spent choosing
    chosen_by_seat: list[int] = field(default_factory=list)  # moves each seat chose


def _forfeit(game: Game, loser: int, why: str) -> tuple[np.ndarray, str]:
    """Returns and result (``W+R``: Black resigned; ``B+F``: White's move was refused) of a
    two-player game that ``loser`` gave up or forfeited."""
    return np.where(np.arange(2) == loser, -1.0, 1.0), f"{'BW'[1 - loser]}+{why}"


def play(game: Game, state: State, players: Sequence[Player], rng: np.random.Generator | None = None, *,
         names: Sequence[str] | None = None, random_opening_moves: int = 0, max_moves: int | None = None,
         on_failure: str = "forfeit", referee: Referee | None = None, every_seat_moves: bool = False,
         chance: Callable[[State], int] | None = None, on_move: Callable[[int], None] | None = None) -> Played:
    """Play ``state`` (changed in place) to its end, or ``max_moves`` moves, with ``players``
    (one per seat, already reset; one player may hold several seats); ``rng`` draws chance
    outcomes, random opening moves and substitutes (seed 0 when not given); ``names`` name the
    seats in messages; ``on_move`` is told the moves played so far before each move (a
    progress bar's). Returns what happened (:class:`Played`)."""
    rng = np.random.default_rng(0) if rng is None else rng
    if on_failure not in ON_FAILURE:
        raise ValueError(f"on_failure must be one of {ON_FAILURE}, not {on_failure!r}")
    if len(players) != game.num_players:
        raise ValueError(f"{game.name} has {game.num_players} seats, but {len(players)} players were given")
    names = list(names) if names is not None else [f"player {p}" for p in range(game.num_players)]
    # Each player is told a move once, even when it holds several seats (self-play).
    listeners = list({id(player): player for player in players}.values())
    out = Played(state, cpu_by_seat=[0.0] * game.num_players, chosen_by_seat=[0] * game.num_players)

    def fail(p: int, why: str, kind: str) -> int | None:
        """Deal with seat ``p``'s failure: a substitute move, or None when the game ends."""
        if on_failure == "random":
            action = int(rng.choice(state.legal_actions(p)))
            out.replaced.append({"move": len(out.moves), "seat": p, "why": why,
                                 "played": state.action_to_string(action)})
            return action
        if on_failure == "raise" or game.num_players != 2:
            raise ValueError(f"{names[p]} in seat {p}: {why}")
        out.returns, out.result = _forfeit(game, p, kind)
        out.forfeit = f"{names[p]} in seat {p} forfeits: {why}"
        return None

    def choose(p: int, simultaneous: bool) -> int | None:
        """Seat ``p``'s legal move, timed; None when the game ended by its resignation or fault."""
        cpu = time_manager.CPU_CLOCK()
        try:
            action = players[p].choose_action(state, p) if simultaneous else players[p].choose_action(state)
        except Resign:
            if game.num_players != 2:
                raise ValueError(f"{names[p]} in seat {p} resigned, but only two-player games end "
                                 f"by resignation") from None
            out.returns, out.result = _forfeit(game, p, "R")
            return None
        except PlayerFailure as err:
            return fail(p, str(err), "F")
        finally:
            out.cpu_by_seat[p] += time_manager.CPU_CLOCK() - cpu + players[p].outside_cpu()
        out.chosen_by_seat[p] += 1
        if action not in state.legal_actions(p if simultaneous else None):
            text = state.action_to_string(action) if 0 <= action < game.num_actions else str(action)
            return fail(p, f"chose an illegal move: {text}", "F")
        return action

    while not state.is_terminal() and (max_moves is None or len(out.moves) < max_moves):
        if on_move is not None:
            on_move(len(out.moves))
        p = state.current_player()
        if p == CHANCE and chance is not None:
            action = chance(state)
        elif p == CHANCE:
            outcomes, probabilities = state.chance_outcomes()
            action = int(rng.choice(outcomes, p=probabilities))
        elif p == SIMULTANEOUS or every_seat_moves:
            if len(out.moves) < random_opening_moves:
                joint = [int(rng.choice(state.legal_actions(q))) for q in range(game.num_players)]
            else:
                joint = []
                for q in range(game.num_players):
                    action = choose(q, simultaneous=True)
                    if action is None:
                        return _finish(out, state)
                    joint.append(action)
            out.moves.append((SIMULTANEOUS, [state.action_to_string(a) for a in joint]))
            state.apply_joint_action(joint)
            for player in listeners:
                player.inform_joint(joint)
            continue
        elif len(out.moves) < random_opening_moves:
            action = int(rng.choice(state.legal_actions()))
        else:
            action = choose(p, simultaneous=False)
            if action is None:
                return _finish(out, state)
        text = state.action_to_string(action)
        state.apply_action(action)
        out.moves.append((p, text))
        out.actions.append((p, action))
        if referee is not None and p >= 0:
            try:
                referee.play(p, text)
            except RefereeRefusal as err:
                out.returns, out.result = _forfeit(game, p, "F")
                out.forfeit = f"the referee refused {names[p]}'s move {text}: {err}"
                return _finish(out, state)
        for player in listeners:
            player.inform(action, p)
    if referee is not None and state.is_terminal():
        out.returns, out.result = referee.result()
    return _finish(out, state)


def _finish(out: Played, state: State) -> Played:
    if out.returns is None:
        out.returns = state.returns()
    return out
