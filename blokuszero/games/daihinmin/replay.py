"""Replaying the official server's records through the engine, checking every detail.

Per game: the seats and ranks against the match so far, the deal against the server's random
stream (when the record has ``RAND_TYPE`` 1 and its seed) or else the dealing order, the
strongest cards moved up, the gifts, the player of every submission and whether the server
accepted it, the finishing order (random ranks after 20 stalled turns drawn as the server
does) and the cumulative points. Optionally clients (one object per player, fed the tables
the server sends, like :class:`.default_client.DefaultClient`) are asked at every decision and
their tables compared with the submitted ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol

import numpy as np

from . import engine as E
from .actions import PASS, chance_action, give_action
from .cards import hand_to_string, table_to_hand
from .game import NUM_PLAYERS, DaihinminGame, DaihinminState, Rules, deal_order, submission
from .log import GameRecord, MatchRecord, format_cells
from .match import MatchSettings, ServerRandom
from .tables import deal_table, field_table, hand_table, rank_row


class TableClient(Protocol):
    """A client that reads the server's tables: the deal (answering with a gift when asked),
    every hand table (answering on its turn) and every field table."""

    def on_deal(self, table: np.ndarray) -> np.ndarray | None: ...

    def on_hand(self, table: np.ndarray) -> np.ndarray | None: ...

    def on_field(self, table: np.ndarray) -> None: ...


class Disagreement(Exception):
    """The record and the engine disagree; the message says where and how."""


@dataclass
class ReplayReport:
    games: int = 0
    games_agreed: int = 0
    decisions: int = 0
    decisions_agreed: int = 0
    first_disagreement: str | None = None
    first_decision_miss: str | None = None

    @property
    def ok(self) -> bool:
        return self.games_agreed == self.games and self.decisions_agreed == self.decisions


def rules_of(record: MatchRecord) -> tuple[Rules, MatchSettings]:
    """The rule switches and match settings a record's header names (server defaults where a
    line is missing); ValueError for a switch our engine does not play (5-skip, 6-reverse,
    11-back, going-out bans)."""
    for key in ("RULE_5TOBI", "RULE_6REVERS", "RULE_11BACK", "RULE_KINSOKU"):
        if record.setting(key, 0):
            raise ValueError(f"{key} is on in this record; the engine plays the UECda rules, "
                             f"where it is off")
    rules = Rules(revolution=bool(record.setting("RULE_KAKUMEI", 1)),
                  lock=bool(record.setting("RULE_SHIBARI", 1)),
                  sequences=bool(record.setting("RULE_KAIDAN", 1)),
                  eight_cut=bool(record.setting("RULE_8GIRI", 1)),
                  exchange=bool(record.setting("RULE_CHANGE", 1)))
    games = record.setting("GAME_NUMBER", 100)
    settings = MatchSettings(games=games, rank_reset=record.setting("FLASH_MIBUN_NUMBER", games),
                             seat_change=bool(record.setting("RULE_SEKIGAE", 1)),
                             seat_change_every=record.setting("RULE_SEKIGAE_NUM", 3))
    return rules, settings


def replay_record(record: MatchRecord, make_client: Callable[[], TableClient] | None = None,
                  players: set[int] | None = None) -> ReplayReport:
    """Replay every game of ``record``; with ``make_client``, one client per player of
    ``players`` (default all) follows the match and is checked at each of its decisions."""
    rules, settings = rules_of(record)
    game = DaihinminGame(rules)
    rng = None
    if record.setting("RAND_TYPE", 0) == 1 and "RANDOM_SEED" in record.header:
        rng = ServerRandom(int(record.header["RANDOM_SEED"]) & 0xFFFFFFFF)
    report = ReplayReport()
    players = set(range(NUM_PLAYERS)) if players is None else players
    clients = {p: make_client() for p in players} if make_client else {}
    points = [0] * NUM_PLAYERS
    seats = list(range(NUM_PLAYERS))
    ranks: list[int] | None = None
    for g in record.games:
        report.games += 1
        try:
            n = g.number + 1
            if settings.reseats(n):
                seats = rng.seats() if rng else g.seats
            _expect(g.seats == seats, f"seats {g.seats}, expected {seats}")
            reset = settings.is_reset(n)
            expected_ranks = None if reset else ranks
            _expect(g.ranks == expected_ranks, f"ranks {g.ranks}, expected {expected_ranks}")
            first = (rng.first_dealer() if rng else None) if reset else ranks.index(0)
            _check_deal(g, seats, first, rng)
            with_exchange = settings.has_exchange(n) and rules.exchange and ranks is not None
            state = DaihinminState.from_deal(game, g.hands, seats, ranks if with_exchange
                                             else None)
            misses = _replay_game(state, g, rng, clients, ranks if not reset else None, report)
            if misses and report.first_decision_miss is None:
                report.first_decision_miss = f"game {g.number}: {misses[0]}"
            for rank, p in enumerate(g.result):
                points[p] += 5 - rank
            _expect(g.points == points, f"points {g.points}, expected {points}")
            ranks = [g.result.index(p) for p in range(NUM_PLAYERS)]
            report.games_agreed += 1
        except Disagreement as err:
            if report.first_disagreement is None:
                report.first_disagreement = f"game {g.number}: {err}"
            # Carry on from the record's own view, so later games are still checked.
            points = list(g.points)
            seats = list(g.seats)
            ranks = [g.result.index(p) for p in range(NUM_PLAYERS)]
    return report


def _expect(ok: bool, message: str) -> None:
    if not ok:
        raise Disagreement(message)


def _check_deal(g: GameRecord, seats: list[int], first: int | None,
                rng: ServerRandom | None) -> None:
    if rng is not None:
        expected = rng.deal(seats, first)
        for p in range(NUM_PLAYERS):
            _expect(g.hands[p] == expected[p], f"player {p} was dealt "
                    f"{hand_to_string(g.hands[p])}, the server's seed deals "
                    f"{hand_to_string(expected[p])}")
        return
    counts = [bin(h).count("1") for h in g.hands]
    firsts = [first] if first is not None else list(range(NUM_PLAYERS))
    _expect(any([counts[p] for p in deal_order(seats, f)] == [11, 11, 11, 10, 10]
                for f in firsts), f"hand sizes {counts} do not follow the dealing order")


def _replay_game(state: DaihinminState, g: GameRecord, rng: ServerRandom | None,
                 clients: dict[int, TableClient], previous: list[int] | None,
                 report: ReplayReport) -> list[str]:
    misses: list[str] = []
    previous_order = None if previous is None else sorted(range(NUM_PLAYERS),
                                                          key=lambda p: previous[p])

    def check(player: int, chosen: np.ndarray | None, logged: np.ndarray, where: str) -> bool:
        """Compare in log notation: the record cannot tell a joker at column 0 from 14."""
        report.decisions += 1
        chosen = np.zeros((8, 15), np.int64) if chosen is None else chosen
        if format_cells(chosen) == format_cells(logged):
            report.decisions_agreed += 1
            return True
        misses.append(f"{where}: player {player} chose {format_cells(chosen) or 'pass'}, "
                      f"the record has {format_cells(logged) or 'pass'}")
        return False

    s = state.s
    ranks_now = rank_row(previous_order, [])
    counts = [bin(h).count("1") for h in g.hands]
    gives = {}
    if s[E.S_PHASE] == E.P_GIVE_DAIFUGO:
        gives = {int(E.player_of_rank(s, 0)): 2, int(E.player_of_rank(s, 1)): 1}
    for p, client in clients.items():
        hand = int(s[E.S_HAND + p]) if p in gives or previous is None or previous[p] <= 2 \
            else g.hands[p]
        answer = client.on_deal(deal_table(hand, gives.get(p, 0), g.seats, counts, ranks_now))
        gives[p] = answer if p in gives else None
    if s[E.S_PHASE] == E.P_GIVE_DAIFUGO:
        _expect(len(g.changes) == 4, f"{len(g.changes)} exchange entries, expected 4")
        by_rank = [int(E.player_of_rank(s, r)) for r in range(NUM_PLAYERS)]
        moved = [(by_rank[4], by_rank[0], int(s[E.S_TOOK_DAIFUGO])),
                 (by_rank[3], by_rank[1], int(s[E.S_TOOK_FUGO]))]
        for (src, dst, cards), (f, t, table) in zip(moved, g.changes[:2]):
            _expect((f, t, table_to_hand(table)) == (src, dst, cards),
                    f"exchange {f}->{t} {format_cells(table)}, expected {src}->{dst} "
                    f"{hand_to_string(cards)}")
        for k, (f, t, table) in enumerate(g.changes[2:]):
            giver, taker = by_rank[k], by_rank[4 - k]
            _expect((f, t) == (giver, taker), f"gift {f}->{t}, expected {giver}->{taker}")
            if giver in clients:
                check(giver, gives[giver], table, "exchange")
            action = give_action(table_to_hand(table))
            _expect(state.s[E.S_PHASE] in (E.P_GIVE_DAIFUGO, E.P_GIVE_FUGO)
                    and action in state.legal_actions(),
                    f"gift {format_cells(table)} by {giver} is not {2 - k} of its cards")
            state.apply_action(action)
    else:
        _expect(not g.changes, "exchange entries in a game without exchange")
    stage = np.zeros((8, 15), np.int64)
    for i, (player, table) in enumerate(g.plays):
        _expect(state.current_player() == player,
                f"submission {i} by player {player}, expected player {state.current_player()}"
                f" ({'game over' if state.is_terminal() else 'to move'})")
        ranks_now = rank_row(previous_order, [int(p) for p in s[E.S_ORDER:E.S_ORDER + s[E.S_OUT]]])
        for p, client in clients.items():
            answer = client.on_hand(hand_table(state, p, ranks_now))
            if p == player and check(player, answer, table, f"submission {i}"):
                table = answer  # the client's own table: it places an x joker exactly
        action, accepted = submission(state, table)
        if accepted and action != PASS:
            stage = table  # the field shows the table as its player wrote it
        E.apply(state.s, action)
        ranks_now = rank_row(previous_order, [int(p) for p in s[E.S_ORDER:E.S_ORDER + s[E.S_OUT]]])
        shown = field_table(state, stage, player, ranks_now)
        for client in clients.values():
            client.on_field(shown)
        if s[E.S_FIELD] < 0:
            stage = np.zeros((8, 15), np.int64)
    if state.current_player() == -3:  # 20 stalled turns: the server ranks the rest at random
        order = [int(p) for p in s[E.S_ORDER:E.S_ORDER + int(s[E.S_OUT])]]
        full = rng.finishing_order(order) if rng else g.result
        _expect(full[:len(order)] == order, f"result {g.result} after stalling, expected "
                                            f"to start {order}")
        state.apply_action(chance_action(full))
    _expect(state.is_terminal(), f"the record ends the game with {len(g.plays)} submissions, "
                                 f"the engine has not finished")
    order = [int(p) for p in s[E.S_ORDER:E.S_ORDER + 5]]
    _expect(order == g.result, f"result {g.result}, expected {order}")
    return misses


__all__ = ["Disagreement", "ReplayReport", "replay_record", "rules_of"]
