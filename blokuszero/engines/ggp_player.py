"""A General Game Player over HTTP: the GGP match protocol answered by the project's MCTS.

``blokuszero-ggp-player --port 9147`` serves on 127.0.0.1 (``--host`` to change). Each match
compiles its rules at ``start``; each ``play`` applies the previous joint move, then searches
(UCT with uniform, MAST, NST or learned softmax playouts) in a worker thread for the play clock
minus a safety margin; if the search has not answered by then, a legal move is sent anyway (the
most recent search result cannot be late). A role with a single legal move answers at once.
Malformed messages, unknown or finished matches and illegal moves get an ``(error ...)`` reply
and the player keeps serving.

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
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

from ..games.base import SIMULTANEOUS
from ..games.ggp import GgpGame, GgpState
from ..players.factory import make_player, resolve_spec
from ..players.ggp_uct import parse_experience
from ..protocols.ggp_http import Message, ProtocolError, parse_message
from ..search.playout_policies import POLICIES

log = logging.getLogger(__name__)

DEFAULT_SPEC = {"preset": "ggp_uct", "simulations": 10**9}  # bounded by the clock


@dataclass
class _Match:
    game: GgpGame
    role: int
    state: GgpState
    player: Any
    play_clock: float
    plays: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


def _error(text: str) -> str:
    return '(error "' + text.replace('"', "'").replace("\n", " ") + '")'


class GgpPlayerEngine:
    """Answers GGP messages (text in, text out); thread-safe, one search at a time."""

    def __init__(self, spec: dict | None = None, margin: float = 1.0, seed: int = 0,
                 name: str = "blokuszero") -> None:
        """Args:
          spec: the player's spec, of kind ``ggp_uct`` (``players.factory``; checked here):
            ``c`` (UCB1), ``simulations``, ``playout`` and its options, ``experience``; the
            time limits come from each match's clocks.
          margin: seconds kept free of the play clock for the reply to travel.
          seed: the seed of every random choice (searches, fallback moves).
        """
        self.spec = dict(DEFAULT_SPEC if spec is None else spec)
        if resolve_spec(self.spec)["kind"] != "ggp_uct":
            raise ValueError(f"a GGP player's spec is of kind ggp_uct, not {self.spec}")
        self.margin = margin
        self.name = name
        self.rng = np.random.default_rng(seed)
        self.matches: dict[str, _Match] = {}
        self.finished: set[str] = set()
        self.lock = threading.Lock()
        self.worker = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="ggp-search")

    def handle(self, text: str) -> str:
        """The reply to one request."""
        try:
            msg = parse_message(text)
        except ProtocolError as err:
            return _error(str(err))
        try:
            return getattr(self, "_" + msg.command)(msg)
        except ValueError as err:  # bad rules, moves that are not legal, ...
            return _error(f"{msg.command} {msg.match_id or ''}: {err}")

    def _info(self, msg: Message) -> str:
        return f"((name {self.name}) (status available))"

    def _preview(self, msg: Message) -> str:
        return "ready"

    def _start(self, msg: Message) -> str:
        with self.lock:
            if msg.match_id in self.matches or msg.match_id in self.finished:
                return _error(f"match {msg.match_id} was already started")
        game = GgpGame(msg.rules, name=msg.match_id)
        if msg.role not in game.roles:
            raise ValueError(f"role {msg.role} is not in the game's roles {game.roles}")
        # The search stops itself well before the reply is due (its last simulation and the
        # worker hand-over take time); the reply waits for it until the deadline.
        spec = {**self.spec, "time_limit": 0.8 * max(msg.play_clock - self.margin, 0.05),
                "switch_time_limit": 0.5 * max((msg.start_clock or 0.0) - self.margin, 0.0)}
        player = make_player(game, spec, seed=int(self.rng.integers(2**31)))
        with self.lock:
            self.matches[msg.match_id] = _Match(game, game.roles.index(msg.role),
                                                game.new_initial_state(), player, msg.play_clock)
        return "ready"

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
        if mover >= 0:
            match.player.inform(joint[mover], mover)  # keeps the searched subtree
        else:
            match.player.inform_joint(joint)

    def _play(self, msg: Message) -> str:
        match = self._match(msg)
        with match.lock:
            self._advance(match, msg.moves)
            match.plays += 1
            state = match.state
            legal = state.legal_actions(match.role)
            if len(legal) == 0:
                raise ValueError("the game is over")
            fallback = int(self.rng.choice(legal))
            if len(legal) == 1:
                return state.action_to_string(int(legal[0]))
            # At a simultaneous-move state the search's root holds every role's moves.
            role = match.role if state.current_player() == SIMULTANEOUS else None
            future = self.worker.submit(match.player.choose_action, state.clone(), role)
            try:
                action = future.result(timeout=max(match.play_clock - self.margin, 0.05))
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
        with self.lock:
            self.matches.pop(msg.match_id, None)
            self.finished.add(msg.match_id)
        return "done"

    def _abort(self, msg: Message) -> str:
        self._match(msg)
        with self.lock:
            self.matches.pop(msg.match_id, None)
            self.finished.add(msg.match_id)
        return "done"


def serve(engine: GgpPlayerEngine, port: int, host: str = "127.0.0.1") -> ThreadingHTTPServer:
    """An HTTP server (not yet serving: call ``serve_forever``) answering GGP POSTs."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            length = int(self.headers.get("Content-Length") or 0)
            text = self.rfile.read(length).decode("utf-8", errors="replace")
            reply = engine.handle(text).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/acl")
            self.send_header("Content-Length", str(len(reply)))
            self.send_header("Access-Control-Allow-Origin", "*")
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, fmt: str, *args) -> None:
            log.debug(fmt, *args)

    return ThreadingHTTPServer((host, port), Handler)


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
    server.serve_forever()


if __name__ == "__main__":
    main()
