"""The GGP player's command table: each match protocol message answered by the project's MCTS.

The HTTP server around it is :mod:`.http_player`, its command line :mod:`.cli`. Each match
compiles its rules at ``start``; each ``play`` applies the previous joint move, then searches
(UCT with uniform, MAST, NST or learned softmax playouts) in a worker thread until the play
clock, counted from the request's arrival, less a safety margin; if the search has not answered
by then, a legal move is sent anyway (the most recent search result cannot be late). A search
gets only the time left when it starts, and while a search that missed its clock still runs (held
up by numba's compiler, say) the next plays are answered at once with a legal move, so that one
late search never makes the later replies late. A role with a single legal move answers at once.

At ``start`` the rules' propositional network is compiled in a process of its own
(:mod:`.network_compile`; the grounding and numba's compiler would hold this process's
interpreter lock from the searches). If it is not ready within a share of the start clock,
the match starts on the interpreter at once, and switches to the network at the first play
after it is ready (:mod:`.match_state`: the moves so far replayed on it; the search tree starts
afresh). The clocks are read and shared out by :mod:`blokuszero.search.time_manager`. Malformed
messages, unknown or finished matches and illegal moves get an ``(error ...)`` reply and the
player keeps serving.

Simultaneous-move states (two or more roles with a choice) are searched like the others: at a
joint node each role draws its own action by Exp3 (decoupled selection,
:mod:`blokuszero.search.simultaneous`), the joint action leads to the child, and the player
answers its own role's most visited root action (``choose_action(state, role)``); the tree is
kept across joint moves (``inform_joint``). The seeded random legal move is only the fallback
when a search misses the clock or fails.
"""

from __future__ import annotations

import concurrent.futures
import logging
import threading
from collections.abc import Callable

import numpy as np

from ...games.base import SIMULTANEOUS
from ...games.ggp import GgpGame, GgpState, load_description
from ...games.ggp.reasoner import MAX_INSTANCES, TooLarge
from ...players.factory import make_player, resolve_spec
from ...protocols.ggp_http import Message, ProtocolError, parse_message
from ...search.time_manager import WALL_CLOCK, Margins, TimeManager
from .match_state import Match, advance, on_interpreter, switch_when_ready
from .network_compile import NetworkCompile

log = logging.getLogger(__name__)

DEFAULT_SPEC = {"preset": "ggp_uct", "simulations": 10**9}  # bounded by the clock


def _error(text: str) -> str:
    return '(error "' + text.replace('"', "'").replace("\n", " ") + '")'


class GgpPlayerEngine:
    """Answers GGP messages (text in, text out); thread-safe, one search at a time."""

    def __init__(self, spec: dict | None = None, margin: float = 1.0, seed: int = 0,
                 name: str = "blokuszero", network_wait: float = 0.5,
                 max_instances: int = MAX_INSTANCES, inline_instances: int = 50_000,
                 source: Callable[[], float] = WALL_CLOCK) -> None:
        """Args:
          spec: the player's spec, of kind ``ggp_uct`` (``players.factory``; checked here):
            ``c`` (UCB1), ``simulations``, ``playout`` and its options, ``experience``; the
            time limits come from each match's clocks.
          margin: seconds kept free of each clock for the reply to travel (the reply margin of
            the engine's :class:`~blokuszero.search.time_manager.TimeManager`).
          seed: the seed of every random choice (searches, fallback moves).
          network_wait: the share of the start clock (less the margin) spent waiting for the
            propositional network before starting on the interpreter.
          max_instances: the grounding size past which no network is built (the
            interpreter plays the whole match).
          inline_instances: a grounding up to this size is compiled at once in this
            process (about 2 CPU-s here), without starting another.
          source: the clock the clocks are read on (tests drive a still one).
        """
        self.spec = dict(DEFAULT_SPEC if spec is None else spec)
        if resolve_spec(self.spec)["kind"] != "ggp_uct":
            raise ValueError(f"a GGP player's spec is of kind ggp_uct, not {self.spec}")
        self.clock = TimeManager(margins=Margins(reply=margin), source=source)
        self.network_wait = network_wait
        self.max_instances = max_instances
        self.inline_instances = inline_instances
        self.name = name
        self.rng = np.random.default_rng(seed)
        self.matches: dict[str, Match] = {}
        self.finished: set[str] = set()
        self.lock = threading.Lock()
        self.worker = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="ggp-search")

    def handle(self, text: str, received: float | None = None) -> str:
        """The reply to one request; ``received``: when it arrived (on the engine's clock; now if
        not given), from which its play clock runs."""
        received = self.clock.source() if received is None else received
        try:
            msg = parse_message(text)
        except ProtocolError as err:
            return _error(str(err))
        try:
            if msg.command == "play":
                return self._play(msg, received)
            return getattr(self, "_" + msg.command)(msg)
        except ValueError as err:  # bad rules, moves that are not legal, ...
            return _error(f"{msg.command} {msg.match_id or ''}: {err}")

    def _info(self, msg: Message) -> str:
        return f"((name {self.name}) (status available))"

    def _preview(self, msg: Message) -> str:
        return "ready"

    def _start(self, msg: Message) -> str:
        began = self.clock.source()
        with self.lock:
            if msg.match_id in self.matches or msg.match_id in self.finished:
                return _error(f"match {msg.match_id} was already started")
        roles = load_description(msg.rules).roles  # bad rules are named before compiling
        if msg.role not in roles:
            raise ValueError(f"role {msg.role} is not in the game's roles {roles}")
        budget = max(self.clock.deadline(began, msg.start_clock) - began, 0.0)
        game, pending = self._prepare(msg, budget)
        # A play's search gets its share of the time left when it starts (search_move); this
        # limit is the player's own, for a search made without one.
        spec = {**self.spec, "time_limit": self.clock.period_budget(msg.play_clock),
                "switch_time_limit": 0.5 * max(budget - (self.clock.source() - began), 0.0)}
        seed = int(self.rng.integers(2**31))
        interpreted = game.reasoner.kind == "interpreter"
        player = make_player(game, on_interpreter(spec) if interpreted else spec, seed=seed)
        with self.lock:
            self.matches[msg.match_id] = Match(game, game.roles.index(msg.role),
                                               game.new_initial_state(), player, msg.play_clock,
                                               msg.rules, spec, seed, pending)
        return "ready"

    def _prepare(self, msg: Message, budget: float) -> tuple[GgpGame, NetworkCompile | None]:
        """The match's game, and the network's compile still going on if the game is on the
        interpreter until it is ready. A small grounding is compiled here at once; a larger
        one in another process, waited for ``network_wait`` of the ``budget`` seconds."""
        try:
            return GgpGame(msg.rules, name=msg.match_id, reasoner="propnet",
                           max_instances=self.inline_instances), None
        except TooLarge:
            pass
        pending = NetworkCompile(msg.rules, self.max_instances)
        try:
            network = pending.result(self.network_wait * budget)
        except ValueError as err:
            log.warning("match %s: no propositional network (%s); playing on the interpreter",
                        msg.match_id, err)
            return GgpGame(msg.rules, name=msg.match_id, reasoner="interpreter"), None
        if network is not None:
            return GgpGame(msg.rules, name=msg.match_id, reasoner=network), None
        log.warning("match %s: the propositional network is not ready within %.1f s; playing "
                    "on the interpreter until it is", msg.match_id, self.network_wait * budget)
        return GgpGame(msg.rules, name=msg.match_id, reasoner="interpreter"), pending

    def _match(self, msg: Message) -> Match:
        with self.lock:
            if msg.match_id in self.finished:
                raise ValueError(f"match {msg.match_id} is over")
            if msg.match_id not in self.matches:
                raise ValueError(f"unknown match {msg.match_id}")
            return self.matches[msg.match_id]

    def _play(self, msg: Message, received: float) -> str:
        match = self._match(msg)
        with match.lock:
            deadline = self.clock.deadline(received, match.play_clock)
            advance(match, msg.moves)
            match.plays += 1
            if not match.stale:  # a switch replaces the player: not while it searches
                switch_when_ready(match)
            state = match.state
            legal = state.legal_actions(match.role)
            if len(legal) == 0:
                raise ValueError("the game is over")
            fallback = int(self.rng.choice(legal))
            if len(legal) == 1:
                return state.action_to_string(int(legal[0]))
            if match.stale:
                log.warning("match %s: the last search still runs past its clock, playing %s",
                            msg.match_id, state.action_to_string(fallback))
                return state.action_to_string(fallback)
            # At a simultaneous-move state the search's root holds every role's moves.
            role = match.role if state.current_player() == SIMULTANEOUS else None
            future = match.search = self.worker.submit(search_move, match.player, state.clone(),
                                                       role, self.clock, deadline, fallback)
            try:
                action = future.result(timeout=max(deadline - self.clock.source(), 0.0))
            except concurrent.futures.TimeoutError:
                log.warning("match %s: search missed the deadline, playing %s", msg.match_id,
                            state.action_to_string(fallback))
                action = fallback
            except Exception:  # a failed search must not forfeit the match: answer a legal move
                log.exception("match %s: search failed, playing %s", msg.match_id,
                              state.action_to_string(fallback))
                action = fallback
            return state.action_to_string(int(action))

    def _stop(self, msg: Message) -> str:
        self._match(msg)  # the final moves are not needed: the match is over
        self._end(msg.match_id)
        return "done"

    def _end(self, match_id: str) -> None:
        with self.lock:
            match = self.matches.pop(match_id, None)
            self.finished.add(match_id)
        if match is not None and match.pending is not None:
            match.pending.close()

    def _abort(self, msg: Message) -> str:
        self._match(msg)
        self._end(msg.match_id)
        return "done"


def search_move(player, state: GgpState, role: int | None, clock: TimeManager, deadline: float,
                fallback: int) -> int:
    """The searched move, within ``clock``'s share of the time left until ``deadline`` when the
    search starts; ``fallback`` if too little is left to search at all. The search stops itself
    well before the reply is due (its last simulation and the worker's hand-over take time);
    the reply waits for it until the deadline."""
    seconds = clock.search_time(deadline)
    return fallback if seconds is None else player.choose_action(state, role, time_limit=seconds)
