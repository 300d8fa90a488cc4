"""A small GGP game manager: plays matches between HTTP players (ours or foreign, by URL).

    python scripts/ggp_match.py RULES.kif URL1 URL2 ... [--start-clock 10] [--play-clock 5]
        [--matches 1] [--out matches/]

Players are given in role order. Each match sends START to every player, then PLAY with the
previous joint move (nil first) until the game ends, then STOP. A move that is late
(past the play clock), unreadable or illegal is replaced by a random legal move, as the
protocol says. Each match is written as JSON (roles, players, moves, replaced moves, goals);
results are printed.
"""

from __future__ import annotations

import argparse
import json
import time
import urllib.request
from pathlib import Path

import numpy as np

from blokuszero.games.ggp import GgpGame
from blokuszero.protocols.ggp_http import Message, format_message


def send(url: str, message: Message, timeout: float) -> tuple[str | None, float]:
    """POST ``message``; (reply text or None if it failed or timed out, seconds taken)."""
    start = time.perf_counter()
    request = urllib.request.Request(url, data=format_message(message).encode(),
                                     headers={"Content-Type": "text/acl"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.read().decode("utf-8", errors="replace").strip(), \
                time.perf_counter() - start
    except OSError:
        return None, time.perf_counter() - start


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
            legal = state.legal_actions(p)
            try:
                if reply is None or took > play_clock:
                    raise ValueError("late" if reply is not None else "no reply")
                action = state.string_to_action(reply)
                if action not in legal:
                    raise ValueError("illegal")
            except ValueError as why:
                action = int(rng.choice(legal))
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rules", help="the game's GDL description (.kif)")
    parser.add_argument("players", nargs="+", help="player URLs in role order")
    parser.add_argument("--start-clock", type=float, default=10.0)
    parser.add_argument("--play-clock", type=float, default=5.0)
    parser.add_argument("--matches", type=int, default=1)
    parser.add_argument("--rotate", action="store_true", help="rotate the players' roles per match")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="ggp_matches", help="folder for the match records")
    args = parser.parse_args()
    rules = Path(args.rules).read_text()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    totals: dict[str, list[float]] = {}
    for m in range(args.matches):
        k = m % len(args.players) if args.rotate else 0
        urls = args.players[k:] + args.players[:k]
        match_id = f"{Path(args.rules).stem}.{args.seed}.{m}"
        record = run_match(rules, urls, match_id, args.start_clock, args.play_clock,
                           args.seed + m)
        (out / f"{match_id}.json").write_text(json.dumps(record, indent=1))
        for url, goal in zip(urls, record["goals"]):
            totals.setdefault(url, []).append(goal)
        print(f"{match_id}: " + ", ".join(f"{r}={g:g} ({u})" for r, g, u in
                                          zip(record["roles"], record["goals"], urls))
              + f"; {len(record['moves'])} moves, {len(record['replaced'])} replaced")
    for url, goals in totals.items():
        print(f"{url}: mean goal {np.mean(goals):.1f} over {len(goals)} matches")


if __name__ == "__main__":
    main()
