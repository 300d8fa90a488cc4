"""A small GGP game manager: plays matches between HTTP players (ours or foreign, by URL).

Players are given in role order. Each match sends START to every player, then PLAY with the
previous joint move (nil first) until the game ends, then STOP. A move that is late (past the
play clock), unreadable or illegal is replaced by a random legal move, as the protocol says.
Each match is written (atomically) as JSON: roles, players, moves, replaced moves, goals.
"""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path

import numpy as np

from ..files import write_atomic
from ..games.ggp import GgpGame, GgpState
from ..protocols.ggp_http import Message, format_message


def send(url: str, message: Message, timeout: float) -> tuple[str | None, float]:
    """POST ``message``; (reply text or None if it failed or timed out, seconds taken)."""
    start = time.perf_counter()
    request = urllib.request.Request(url, data=format_message(message).encode(),
                                     headers={"Content-Type": "text/acl"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            reply = response.read().decode("utf-8", errors="replace").strip()
    except OSError:
        reply = None
    return reply, time.perf_counter() - start


def _read_move(state: GgpState, role: int, reply: str | None, took: float,
               play_clock: float) -> int:
    """The action ``reply`` names for ``role``; ValueError (why) if it is late, unreadable or
    illegal."""
    if reply is None:
        raise ValueError("no reply")
    if took > play_clock:
        raise ValueError("late")
    action = state.string_to_action(reply)
    if action not in state.legal_actions(role):
        raise ValueError("illegal")
    return action


def run_match(rules: str, urls: list[str], match_id: str, start_clock: float, play_clock: float,
              seed: int) -> dict:
    """One match; its record."""
    game = GgpGame(rules, name=match_id)
    if len(urls) != game.num_players:
        raise ValueError(f"{game.num_players} roles ({game.roles}) but {len(urls)} players")
    rng = np.random.default_rng(seed)
    for url, role in zip(urls, game.roles):
        reply, _ = send(url, Message("start", match_id, role, rules, start_clock, play_clock),
                        start_clock + 1.0)
        if reply is None or reply.lower() != "ready":
            print(f"{url} ({role}) did not answer ready to start: {reply!r}")
    state, previous, moves, replaced = game.new_initial_state(), None, [], []
    while not state.is_terminal():
        joint = []
        for p, url in enumerate(urls):
            reply, took = send(url, Message("play", match_id, moves=previous), play_clock + 1.0)
            try:
                action = _read_move(state, p, reply, took, play_clock)
            except ValueError as why:
                action = int(rng.choice(state.legal_actions(p)))
                replaced.append({"step": len(moves), "role": game.roles[p], "reply": reply,
                                 "why": str(why), "played": state.action_to_string(action)})
            joint.append(action)
        previous = [state.action_to_string(a) for a in joint]
        moves.append(previous)
        state.apply_joint_action(joint)
    for url in urls:
        send(url, Message("stop", match_id, moves=previous), play_clock + 1.0)
    return {"match_id": match_id, "roles": game.roles, "players": urls, "seed": seed,
            "start_clock": start_clock, "play_clock": play_clock, "moves": moves,
            "replaced": replaced, "goals": state.returns().tolist()}


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
        record = run_match(rules, urls, match_id, start_clock, play_clock, seed + m)
        write_atomic(out / f"{match_id}.json", json.dumps(record, indent=1))
        for url, goal in zip(urls, record["goals"]):
            goals.setdefault(url, []).append(goal)
        print(f"{match_id}: " + ", ".join(f"{r}={g:g} ({u})" for r, g, u in
                                          zip(record["roles"], record["goals"], urls))
              + f"; {len(record['moves'])} moves, {len(record['replaced'])} replaced")
    return goals
