"""Summaries of a match's games: wins per player and per seat with Wilson intervals, the equal
seat they are read against, CPU time per move, the console table.

A seat wins a game when its return is above the middle of the game's utility range (0 for
returns in -1..1, 50 for GDL goals 0-100): with Blokus' returns, a shared first place counts as
a win for every colour that shares it; a draw at the middle is no win. The equal seat
(:func:`.stats.equal_seat`) is measured from the same games: mean winning seats per game over
the number of seats (25% for four seats with no shared first place, more with them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..players.factory import player_settings
from .arena import Match
from .stats import decided_share, equal_seat, win_rate

SHARED = "shared"


def summarise(match: Match, records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Per player name: games (seats taken), wins, win rate with Wilson 95% interval, mean score,
    and the same per seat (``by_seat``: Go's Black and White, Blokus' colours); ``equal_seat``:
    the win rate of an equal seat in these games."""

    game = match.make_game()
    middle = (game.min_utility + game.max_utility) / 2

    def rate(results: list[tuple[float, float]]) -> dict[str, Any]:
        return {**win_rate(sum(1 for ret, _ in results if ret > middle), len(results)),
                "mean_score": float(np.mean([s for _, s in results])) if results else 0.0}

    names = list(dict.fromkeys(match.seats))
    players = {}
    for name in names:
        by_seat = [[(r["returns"][i], r["scores"][i]) for r in records if r["seating"][i] == name]
                   for i in range(len(match.seats))]
        players[name] = {"config": player_settings(match.players[name]),
                         **rate([result for seat in by_seat for result in seat]),
                         "by_seat": [rate(seat) for seat in by_seat]}
    return {"game": match.game, "games": len(records), "seats": list(match.seats),
            "random_opening_moves": match.random_opening_moves,
            "game_options": dict(match.game_options), "seating": match.seating, "referee": match.referee,
            "win_rule": f"a seat wins when its return is above {middle:g}, the middle of the game's "
                        f"utility range; shared first places all win",
            "seeds": [r["seed"] for r in records],
            "equal_seat": equal_seat([sum(ret > middle for ret in r["returns"]) for r in records],
                                     len(match.seats)),
            "players": players,
            # the gate's statistic wherever two players hold half the seats each
            "head_to_head": (head_to_head(records, *names) if len(names) == 2
                             and match.seats.count(names[0]) == match.seats.count(names[1]) else None)}


def game_taken_by(record: Mapping[str, Any], a: str, b: str) -> str:
    """``a``, ``b`` or :data:`SHARED`: which player's best seat got the better return in this game
    record (its ``seating`` and ``returns``); with Blokus' returns, the player holding the first
    place alone or sharing it only with its own other seats."""
    best = {name: max(r for seat, r in zip(record["seating"], record["returns"]) if seat == name)
            for name in (a, b)}
    if best[a] == best[b]:
        return SHARED
    return a if best[a] > best[b] else b


def head_to_head(records: Sequence[Mapping[str, Any]], a: str, b: str) -> dict[str, Any]:
    """Two players with half the seats each, per game (:func:`game_taken_by`; games, not seats,
    are independent): games taken by each and shared, ``a``'s share of the decided games with
    its Wilson 95% interval, and the exact two-sided sign test's ``p_value``."""
    taken = [game_taken_by(r, a, b) for r in records]
    wins, losses = taken.count(a), taken.count(b)
    return {"players": [a, b], "taken": [wins, losses], SHARED: taken.count(SHARED),
            **decided_share(wins, losses)}


def cpu_per_move(records: Sequence[Mapping[str, Any]]) -> dict[str, float | None]:
    """Per player name: the CPU seconds of this process per move it chose (random opening
    moves not counted; an external engine's own time is not in it), over ``records``."""
    cpu: dict[str, float] = {}
    moves: dict[str, int] = {}
    for r in records:
        for name, seconds, chosen in zip(r["seating"], r.get("cpu_seconds_by_seat", ()),
                                         r.get("moves_chosen_by_seat", ())):
            cpu[name] = cpu.get(name, 0.0) + seconds
            moves[name] = moves.get(name, 0) + chosen
    return {name: cpu[name] / moves[name] if moves[name] else None for name in cpu}


def format_by_colour(summary: Mapping[str, Any], names: Sequence[str] | None = None) -> str:
    """A two-colour game's summary for the console: each player of ``names`` (all by default)
    as Black, as White and overall, with Wilson intervals, then the equal seat."""
    names = list(summary["players"] if names is None else names)
    width = max(len(name) for name in names)
    lines = []
    for name in names:
        player = summary["players"][name]
        for label, entry in (("as Black", player["by_seat"][0]), ("as White", player["by_seat"][1]),
                             ("overall", player)):
            lines.append(f"{name:{width}s} {label:8s} {entry['wins']:4d}/{entry['games']:4d} = "
                         f"{entry['win_rate']:6.1%} [{entry['ci_low']:.1%}, {entry['ci_high']:.1%}]")
    lines.append(f"equal seat {summary['equal_seat']:.1%} (winning seats per game / seats: the win rate "
                 f"of a player as strong as the other)")
    return "\n".join(lines)


def format_summary(summary: Mapping[str, Any]) -> str:
    """The summary as a table for the console."""
    lines = [f"{summary['game']}: {summary['games']} games, first {summary['random_opening_moves']} "
             f"moves random; equal seat: the win rate of a seat as strong as the others, winning "
             f"seats per game / seats (shared first places all win)",
             f"{'player':20s} {'seats':>6s} {'wins':>6s} {'win rate':>9s}  {'95% interval':>17s} "
             f"{'equal seat':>10s} {'mean score':>10s} {'CPU s/move':>10s}"]
    for name, p in summary["players"].items():
        cpu = (summary.get("speed") or {}).get("cpu_seconds_per_move", {}).get(name)
        lines.append(f"{name:20s} {p['games']:6d} {p['wins']:6d} {p['win_rate']:9.1%}  "
                     f"[{p['ci_low']:6.1%}, {p['ci_high']:6.1%}] {summary['equal_seat']:10.1%} "
                     f"{p['mean_score']:10.2f} "
                     f"{'-' if cpu is None else f'{cpu:.4f}':>10s}")
    duel = summary.get("head_to_head")
    if duel:
        a, b = duel["players"]
        lines.append(f"head to head, per game (the better best seat): {a} {duel['taken'][0]}, {b} "
                     f"{duel['taken'][1]}, shared {duel[SHARED]}; {a}'s share {duel['share']:.1%} "
                     f"[{duel['ci_low']:.1%}, {duel['ci_high']:.1%}], sign test p = {duel['p_value']:.3g}")
    speed = summary.get("speed") or {}
    if speed.get("games_per_hour"):
        lines.append(f"{speed['games_played']} games played here in {speed['wall_seconds']:.0f} s: "
                     f"{speed['games_per_hour']:.1f} games per hour with {speed['workers']} "
                     f"worker(s), {speed['cpu_seconds_per_game']:.1f} CPU seconds per game")
    return "\n".join(lines)
