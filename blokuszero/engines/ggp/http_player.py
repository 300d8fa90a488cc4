"""A General Game Player over HTTP: the GGP match protocol answered by the project's MCTS.

``blokuszero-ggp-player --port 9147`` serves on 127.0.0.1 (``--host`` to change). Each match
compiles its rules at ``start``; each ``play`` applies the previous joint move, then searches
(UCT with uniform, MAST, NST or learned softmax playouts) in a worker thread until the play
clock, counted from the request's arrival, less a safety margin; if the search has not answered
by then, a legal move is sent anyway (the most recent search result cannot be late). A search
gets only the time left when it starts, and while a search that missed its clock still runs (held
up by numba's compiler, say) the next plays are answered at once with a legal move, so that one
late search never makes the later replies late. A role with a single legal move answers at once.

At ``start`` the rules' propositional network is compiled in a process of its own (the
grounding and numba's compiler would hold this process's interpreter lock from the searches).
If it is not ready within a share of the start clock, the match starts on the interpreter at
once, and switches to the network at the first play after it is ready (the moves so far
replayed on it; the search tree starts afresh). Malformed messages, unknown or finished
matches and illegal moves get an ``(error ...)`` reply and the player keeps serving.

Simultaneous-move states (two or more roles with a choice) are searched like the others: at a
joint node each role draws its own action by Exp3 (decoupled selection,
:mod:`blokuszero.search.simultaneous`), the joint action leads to the child, and the player
answers its own role's most visited root action (``choose_action(state, role)``); the tree is
kept across joint moves (``inform_joint``). The seeded random legal move is only the fallback
when a search misses the clock or fails.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import logging
import multiprocessing
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

from ...games.base import SIMULTANEOUS
from ...games.ggp import GgpGame, GgpState, load_description
from ...games.ggp.game import build_propnet
from ...games.ggp.reasoner import MAX_INSTANCES, Reasoner, TooLarge
from ...players.factory import make_player, resolve_spec
from ...players.ggp.uct import parse_experience
from ...protocols.ggp_http import Message, ProtocolError, parse_message
from ...search.playout_policies import POLICIES

log = logging.getLogger(__name__)

DEFAULT_SPEC = {"preset": "ggp_uct", "simulations": 10**9}  # bounded by the clock


def _compile_job(rules: str, max_instances: int, conn) -> None:
    """In the compiling process: send (True, the network) or (False, why not)."""
    try:
        reply = (True, build_propnet(rules, max_instances))
    except Exception as err:  # noqa: BLE001 (any failure is reported to the player)
        reply = (False, f"{type(err).__name__}: {err}")
    try:
        conn.send(reply)
    except OSError:  # the match ended meanwhile: nobody is waiting
        pass


class _Compile:
    """The propositional network of a match's rules, compiled in a process of its own."""

    def __init__(self, rules: str, max_instances: int) -> None:
        context = multiprocessing.get_context("spawn")  # a fork of a threaded server is unsafe
        self._conn, child = context.Pipe(duplex=False)
        self._process = context.Process(target=_compile_job, args=(rules, max_instances, child), daemon=True,
                                        name="ggp-compile")
        self._process.start()
        child.close()

    def result(self, timeout: float) -> Reasoner | None:
        """The network if it is ready within ``timeout`` seconds, else None; ValueError if
        it cannot be built (the process is then ended)."""
        if not self._conn.poll(max(timeout, 0.0)):
            return None
        try:
            ok, value = self._conn.recv()
        except EOFError:
            ok, value = False, f"the compiling process ended (exit code {self._process.exitcode})"
        self.close()
        if not ok:
            raise ValueError(value)
        return value

    def close(self) -> None:
        """End the process (if still compiling)."""
        if self._process.is_alive():
            self._process.terminate()
        self._process.join(5.0)
        self._conn.close()


def _on_interpreter(spec: dict) -> dict:
    """``spec`` for a game on the interpreter: without the search experience, whose board
    encodings read the network's base propositions."""
    return {k: v for k, v in spec.items() if k not in ("experience", "switch_time_limit")}


@dataclass
class _Match:
    game: GgpGame
    role: int
    state: GgpState
    player: Any
    play_clock: float
    rules: str
    spec: dict  # the player's spec, to make it again for the network
    seed: int
    pending: _Compile | None = None  # the network still compiling (playing on the interpreter)
    history: list[list[str]] = field(default_factory=list)  # joint moves played, in KIF
    plays: int = 0
    search: concurrent.futures.Future | None = None  # the latest search, maybe still running
    stale: bool = False  # moves were played while a search ran: the player's tree is behind
    lock: threading.Lock = field(default_factory=threading.Lock)


def _error(text: str) -> str:
    return '(error "' + text.replace('"', "'").replace("\n", " ") + '")'


class GgpPlayerEngine:
    """Answers GGP messages (text in, text out); thread-safe, one search at a time."""

    def __init__(self, spec: dict | None = None, margin: float = 1.0, seed: int = 0,
                 name: str = "blokuszero", network_wait: float = 0.5,
                 max_instances: int = MAX_INSTANCES, inline_instances: int = 50_000) -> None:
        """Args:
          spec: the player's spec, of kind ``ggp_uct`` (``players.factory``; checked here):
            ``c`` (UCB1), ``simulations``, ``playout`` and its options, ``experience``; the
            time limits come from each match's clocks.
          margin: seconds kept free of the play clock for the reply to travel.
          seed: the seed of every random choice (searches, fallback moves).
          network_wait: the share of the start clock (less the margin) spent waiting for the
            propositional network before starting on the interpreter.
          max_instances: the grounding size past which no network is built (the
            interpreter plays the whole match).
          inline_instances: a grounding up to this size is compiled at once in this
            process (about 2 CPU-s here), without starting another.
        """
        self.spec = dict(DEFAULT_SPEC if spec is None else spec)
        if resolve_spec(self.spec)["kind"] != "ggp_uct":
            raise ValueError(f"a GGP player's spec is of kind ggp_uct, not {self.spec}")
        self.margin = margin
        self.network_wait = network_wait
        self.max_instances = max_instances
        self.inline_instances = inline_instances
        self.name = name
        self.rng = np.random.default_rng(seed)
        self.matches: dict[str, _Match] = {}
        self.finished: set[str] = set()
        self.lock = threading.Lock()
        self.worker = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="ggp-search")

    def handle(self, text: str, received: float | None = None) -> str:
        """The reply to one request; ``received``: when it arrived (``time.monotonic()``; now if
        not given), from which its play clock runs."""
        received = time.monotonic() if received is None else received
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
        began = time.monotonic()
        with self.lock:
            if msg.match_id in self.matches or msg.match_id in self.finished:
                return _error(f"match {msg.match_id} was already started")
        roles = load_description(msg.rules).roles  # bad rules are named before compiling
        if msg.role not in roles:
            raise ValueError(f"role {msg.role} is not in the game's roles {roles}")
        budget = max(msg.start_clock - self.margin, 0.0)
        game, pending = self._prepare(msg, budget)
        # A play's search gets 0.8 of the time left when it starts (_search); this limit is
        # the player's own, for a search made without one.
        spec = {**self.spec, "time_limit": 0.8 * max(msg.play_clock - self.margin, 0.05),
                "switch_time_limit": 0.5 * max(budget - (time.monotonic() - began), 0.0)}
        seed = int(self.rng.integers(2**31))
        interpreted = game.reasoner.kind == "interpreter"
        player = make_player(game, _on_interpreter(spec) if interpreted else spec, seed=seed)
        with self.lock:
            self.matches[msg.match_id] = _Match(game, game.roles.index(msg.role),
                                                game.new_initial_state(), player, msg.play_clock,
                                                msg.rules, spec, seed, pending)
        return "ready"

    def _prepare(self, msg: Message, budget: float) -> tuple[GgpGame, _Compile | None]:
        """The match's game, and the network's compile still going on if the game is on the
        interpreter until it is ready. A small grounding is compiled here at once; a larger
        one in another process, waited for ``network_wait`` of the ``budget`` seconds."""
        try:
            return GgpGame(msg.rules, name=msg.match_id, reasoner="propnet",
                           max_instances=self.inline_instances), None
        except TooLarge:
            pass
        pending = _Compile(msg.rules, self.max_instances)
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

    def _switch_when_ready(self, match: _Match) -> None:
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

    def _match(self, msg: Message) -> _Match:
        with self.lock:
            if msg.match_id in self.finished:
                raise ValueError(f"match {msg.match_id} is over")
            if msg.match_id not in self.matches:
                raise ValueError(f"unknown match {msg.match_id}")
            return self.matches[msg.match_id]

    def _advance(self, match: _Match, moves: list[str] | None) -> None:
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

    def _play(self, msg: Message, received: float) -> str:
        match = self._match(msg)
        with match.lock:
            deadline = received + match.play_clock - self.margin
            self._advance(match, msg.moves)
            match.plays += 1
            if not match.stale:  # a switch replaces the player: not while it searches
                self._switch_when_ready(match)
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
            future = match.search = self.worker.submit(_search, match.player, state.clone(),
                                                       role, deadline, fallback)
            try:
                action = future.result(timeout=max(deadline - time.monotonic(), 0.0))
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


def _search(player, state: GgpState, role: int | None, deadline: float, fallback: int) -> int:
    """The searched move, within the time left until ``deadline`` (``time.monotonic()``) when
    the search starts; ``fallback`` if too little is left to search at all."""
    left = deadline - time.monotonic()
    if left < 0.05:
        return fallback
    # The search stops itself well before the reply is due (its last simulation and the
    # worker hand-over take time); the reply waits for it until the deadline.
    return player.choose_action(state, role, time_limit=0.8 * left)


def serve(engine: GgpPlayerEngine, port: int, host: str = "127.0.0.1") -> ThreadingHTTPServer:
    """An HTTP server (not yet serving: call ``serve_forever``) answering GGP POSTs."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            received = time.monotonic()
            length = int(self.headers.get("Content-Length") or 0)
            text = self.rfile.read(length).decode("utf-8", errors="replace")
            reply = engine.handle(text, received).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/acl")
            self.send_header("Content-Length", str(len(reply)))
            self.send_header("Access-Control-Allow-Origin", "*")
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, fmt: str, *args) -> None:
            log.debug(fmt, *args)

    return ThreadingHTTPServer((host, port), Handler)


#: A game of two joint moves (both roles choose at once, then one role alone), played at launch.
WARM_UP_RULES = """
(role left) (role right) (number 1) (number 2) (number 3)
(init (phase together))
(<= (legal ?r (pick ?n)) (true (phase together)) (role ?r) (number ?n))
(<= (legal left (pick ?n)) (true (phase left)) (number ?n))
(<= (legal right noop) (true (phase left)))
(<= (next (phase left)) (true (phase together)))
(<= (next (phase over)) (true (phase left)))
(<= (next (picked ?r ?n)) (does ?r (pick ?n)))
(<= (next (picked ?r ?n)) (true (picked ?r ?n)))
(<= same (true (picked right ?n)) (true (picked left ?n)))
(<= terminal (true (phase over)))
(<= (goal left 100) same) (<= (goal left 0) (not same))
(<= (goal right 0) same) (<= (goal right 100) (not same))
"""


def warm_up(spec: dict | None = None, seed: int = 0) -> float:
    """Plays :data:`WARM_UP_RULES` through a throwaway engine with ``spec``, so that numba's
    kernels for the network, the searches and the playouts are compiled (or read from its cache)
    before a real match's clocks run: on a fresh install they take about half a minute, which a
    first match would otherwise lose on its clocks. The kernels are shared by the process.
    Returns the seconds taken; RuntimeError if the engine answers an error."""
    began = time.monotonic()
    engine = GgpPlayerEngine(spec, margin=0.5, seed=seed, name="warm-up")

    def ask(request: str) -> str:
        reply = engine.handle(request)
        if reply.startswith("(error"):
            raise RuntimeError(f"the warm-up match failed: {request!r} got {reply}")
        return reply

    ask(f"(start warm-up left ({WARM_UP_RULES}) 60 2)")
    ask("(play warm-up nil)")
    ask("(play warm-up ((pick 1) (pick 2)))")
    ask("(stop warm-up ((pick 3) noop))")
    engine.worker.submit(lambda: None).result()  # a search still compiling has ended
    engine.worker.shutdown()
    return time.monotonic() - began


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="BlokusZero General Game Player (GGP HTTP)")
    parser.add_argument("--port", type=int, default=9147)
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default local only)")
    parser.add_argument("--margin", type=float, default=1.0, help="seconds kept off the play clock")
    parser.add_argument("--simulations", type=int, default=None,
                        help="playouts per move (default: as many as the clock allows)")
    parser.add_argument("--playout", default="uniform", choices=POLICIES)
    parser.add_argument("--policy-file",
                        help="softmax playouts: weights saved by TrainableSoftmaxPolicy")
    parser.add_argument("--experience", default=None,
                        help="similar-board search experience: ENCODING+D (huffman2, appearance0, "
                             "random2, ...) or 'switch' (the pre-game rule, within the start clock)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if (args.playout == "softmax") != (args.policy_file is not None):
        parser.error("--playout softmax needs --policy-file, and only it")
    logging.basicConfig(level=logging.INFO)
    spec = {**DEFAULT_SPEC, "playout": args.playout}
    if args.policy_file:
        spec["policy_file"] = args.policy_file
    if args.experience:
        spec["experience"] = parse_experience(args.experience)
    if args.simulations:
        spec["simulations"] = args.simulations
    server = serve(GgpPlayerEngine(spec, args.margin, args.seed), args.port, args.host)
    log.info("GGP player on http://%s:%d/", args.host, server.server_address[1])
    # Serving starts at once; a match started during the warm-up waits for the same kernels
    # (numba compiles under one lock) instead of compiling them again.
    threading.Thread(target=lambda: log.info("warm-up done in %.1f s", warm_up(spec, args.seed)),
                     name="ggp-warm-up", daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
