"""A small GGP game manager: plays matches between HTTP players (ours or foreign, by URL).

Players are given in role order. Each match sends START to every player, then PLAY with the
previous joint move (nil first) until the game ends, then STOP. A move that is late (past the
play clock), unreadable or illegal is replaced by a random legal move, as the protocol says.
The matches are played by the one game loop (:mod:`blokuszero.referee.game_loop`).
Each match is written (atomically) as JSON: roles, players, moves, replaced moves, each
role's answer times, goals.
"""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ...files import write_atomic
from ...games.base import State
from ...games.ggp import GgpGame
from ...players.base import Player, PlayerFailure
from ...protocols.ggp_http import Message, format_message
from ...referee.game_loop import play


def send(url: str, message: Message, timeout: float) -> tuple[str | None, float]:
    """POST ``message``; (reply text or None if it failed or timed out, seconds taken)."""
    return post(url, format_message(message), timeout)


def post(url: str, text: str, timeout: float) -> tuple[str | None, float]:
    """POST a request's ``text``; (reply text or None if it failed or timed out, seconds taken)."""
    start = time.perf_counter()
    request = urllib.request.Request(url, data=text.encode(), headers={"Content-Type": "text/acl"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            reply = response.read().decode("utf-8", errors="replace").strip()
    except OSError:
        reply = None
    return reply, time.perf_counter() - start


class RemotePlayer(Player):
    """A GGP player at ``url`` as a :class:`Player` of the game loop: START when a match begins
    (:meth:`reset`), PLAY with the previous joint move for each move, STOP at the end
    (:meth:`close`). A reply that is missing, late or unreadable is a :class:`PlayerFailure`."""

    def __init__(self, url: str, match_id: str, role: str, rules: str, start_clock: float,
                 play_clock: float) -> None:
        self.url, self.match_id, self.role, self.rules = url, match_id, role, rules
        self.start_clock, self.play_clock = start_clock, play_clock
        self.previous: list[str] | None = None  # the last joint move, as GDL terms
        self.asked_at: State | None = None  # the state of the last PLAY (names the joint move)
        self.answer_seconds: list[float] = []  # how long each PLAY's reply took, late ones too

    def reset(self) -> None:
        reply, _ = send(self.url, Message("start", self.match_id, self.role, self.rules, self.start_clock,
                                          self.play_clock), self.start_clock + 1.0)
        if reply is None or reply.lower() != "ready":
            print(f"{self.url} ({self.role}) did not answer ready to start: {reply!r}")
        self.previous = None

    def choose_action(self, state: State, player: int | None = None) -> int:
        self.asked_at = state
        reply, took = send(self.url, Message("play", self.match_id, moves=self.previous), self.play_clock + 1.0)
        self.answer_seconds.append(took)
        if reply is None:
            raise PlayerFailure("no reply")
        if took > self.play_clock:
            raise PlayerFailure(f"late ({took:.2f} s for a {self.play_clock:g} s play clock)")
        try:
            return state.string_to_action(reply)
        except ValueError as err:
            raise PlayerFailure(f"unreadable move {reply!r}: {err}") from None

    def inform_joint(self, joint: Sequence[int]) -> None:
        self.previous = [self.asked_at.action_to_string(a) for a in joint]

    def close(self) -> None:
        send(self.url, Message("stop", self.match_id, moves=self.previous), self.play_clock + 1.0)


def manage_match(rules: str, urls: list[str], match_id: str, start_clock: float, play_clock: float,
              seed: int) -> dict:
    """One match through the game loop (every role asked at every step, a failed or illegal
    move replaced by a random legal one); its record."""
    game = GgpGame(rules, name=match_id)
    if len(urls) != game.num_players:
        raise ValueError(f"{game.num_players} roles ({game.roles}) but {len(urls)} players")
    players = [RemotePlayer(url, match_id, role, rules, start_clock, play_clock)
               for url, role in zip(urls, game.roles)]
    state = game.new_initial_state()
    names = [f"{url} ({role})" for url, role in zip(urls, game.roles)]
    try:
        for player in players:
            player.reset()
        played = play(game, state, players, np.random.default_rng(seed), names=names, on_failure="random",
                      every_seat_moves=True)
    finally:
        for player in players:
            player.close()
    replaced = [{"step": r["move"], "role": game.roles[r["seat"]], "why": r["why"], "played": r["played"]}
                for r in played.replaced]
    return {"match_id": match_id, "roles": game.roles, "players": urls, "seed": seed,
            "start_clock": start_clock, "play_clock": play_clock,
            "moves": [texts for _, texts in played.moves], "replaced": replaced,
            "answer_seconds": {p.role: p.answer_seconds for p in players},
            "goals": played.returns.tolist()}


def run_matches(rules_path: str | Path, players: list[str], out: str | Path, *, matches: int = 1,
                rotate: bool = False, seed: int = 0, start_clock: float = 10.0,
                play_clock: float = 5.0) -> dict[str, list[float]]:
    """``matches`` matches (the players' roles rotated per match with ``rotate``), each record
    written to ``out/<match id>.json`` and a line printed; returns each player's goals."""
    rules_path = Path(rules_path)
    rules = rules_path.read_text()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    goals: dict[str, list[float]] = {}
    for m in range(matches):
        k = m % len(players) if rotate else 0
        urls = players[k:] + players[:k]
        match_id = f"{rules_path.stem}.{seed}.{m}"
        record = manage_match(rules, urls, match_id, start_clock, play_clock, seed + m)
        write_atomic(out / f"{match_id}.json", json.dumps(record, indent=1))
        for url, goal in zip(urls, record["goals"]):
            goals.setdefault(url, []).append(goal)
        print(f"{match_id}: " + ", ".join(f"{r}={g:g} ({u})" for r, g, u in
                                          zip(record["roles"], record["goals"], urls))
              + f"; {len(record['moves'])} moves, {len(record['replaced'])} replaced")
    return goals
