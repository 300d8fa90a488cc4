"""Replaying the official UECda server's records through our server and rules, checking every
detail.

Per game: the seats and ranks against the match so far, the deal against the server's random
stream (when the record has ``RAND_TYPE`` 1 and its seed) or else the dealing order, the
strongest cards moved up, the gifts, the player of every submission and whether the server
accepted it, the finishing order (random ranks after 20 stalled turns drawn as the server
does) and the cumulative points. Optionally clients (one object per player, fed the tables
the server sends, like :class:`~blokuszero.players.daihinmin.default_client.DefaultClient`) are asked
at every decision and their tables compared with the submitted ones.

The games run through the match server's own phases (:mod:`.uecda_server`) with seats that answer
as the record says; that is why this lives beside the server and not with the record format.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol

import numpy as np

from ...games.daihinmin.cards import hand_to_string
from ...games.daihinmin.game import NUM_PLAYERS, DaihinminGame, DaihinminState, Rules, deal_order
from ...games.daihinmin.log import LoggedGame, MatchRecord, format_cells
from .uecda_server import ServerTables, serve_game
from .uecda_settings import MatchSettings, ServerRandom


class TableClient(Protocol):
    """A client that reads the server's tables: the deal (answering with a gift when asked),
    every hand table (answering on its turn) and every field table."""

    def on_deal(self, table: np.ndarray) -> np.ndarray | None: ...

    def on_hand(self, table: np.ndarray) -> np.ndarray | None: ...

    def on_field(self, table: np.ndarray) -> None: ...


class Disagreement(Exception):
    """The record and our rules disagree; the message says where and how."""


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
    line is missing); ValueError for a switch our rules do not play (5-skip, 6-reverse,
    11-back, going-out bans)."""
    for key in ("RULE_5TOBI", "RULE_6REVERS", "RULE_11BACK", "RULE_KINSOKU"):
        if record.setting(key, 0):
            raise ValueError(f"{key} is on in this record; our rules are the UECda rules, "
                             f"where it is off")
    rules = Rules(revolution=bool(record.setting("RULE_KAKUMEI", 1)),
                  lock=bool(record.setting("RULE_SHIBARI", 1)),
                  sequences=bool(record.setting("RULE_KAIDAN", 1)),
                  eight_cut=bool(record.setting("RULE_8GIRI", 1)),
                  exchange=bool(record.setting("RULE_CHANGE", 1)),
                  self_follow=bool(record.setting("RULE_SELF_FOLLOW", 0)))
    games = record.setting("GAME_NUMBER", 100)
    settings = MatchSettings(games=games, rank_reset=record.setting("FLASH_MIBUN_NUMBER", games),
                             seat_change=bool(record.setting("RULE_SEKIGAE", 1)),
                             seat_change_every=record.setting("RULE_SEKIGAE_NUM", 3))
    return rules, settings


def replay_record(record: MatchRecord, make_client: Callable[[], TableClient] | None = None,
                  players: set[int] | None = None) -> ReplayReport:
    """Replay every game of ``record``; with ``make_client``, one client per player of
    ``players`` (default all) follows the match and is checked at each of its decisions.

    The games run through our server's own phases with seats that answer as the record says,
    so the replay judges every table exactly as the server does. After a disagreement it goes
    on from the record's seats, ranks and points; a game cut short before its random ranks
    (20 stalled turns) leaves the server's random stream behind for the games after it."""
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
    previous: list[int] | None = None  # finishing order of the last game
    tables = ServerTables()
    for g in record.games:
        report.games += 1
        try:
            n = g.number + 1
            reset = settings.is_reset(n)
            mibun = previous or list(range(NUM_PLAYERS))
            ranks = [mibun.index(p) for p in range(NUM_PLAYERS)]
            # The server's draws for this game come first, so that a disagreement found in
            # them leaves the stream in step for the next game.
            if settings.reseats(n):
                seats = rng.seats() if rng else g.seats
            first = (rng.first_dealer() if rng else None) if reset else mibun[0]
            dealt = rng.deal(seats, first) if rng else None
            _expect(g.seats == seats, f"seats {g.seats}, expected {seats}")
            _expect(g.ranks == (None if reset else ranks),
                    f"ranks {g.ranks}, expected {None if reset else ranks}")
            _check_deal(g, seats, first, dealt)
            exchange = settings.has_exchange(n) and rules.exchange
            state = DaihinminState.from_deal(game, g.hands, seats, ranks if exchange else None)
            misses: list[str] = []
            cursor = [0]
            record_seats = [RecordSeat(p, g, cursor, clients.get(p), report, misses)
                            for p in range(NUM_PLAYERS)]

            def finish(order: list[int]) -> list[int]:
                full = rng.finishing_order(order) if rng else g.result
                _expect(full[:len(order)] == order,
                        f"result {g.result} after stalling, expected to start {order}")
                return full

            served = serve_game(game, state, record_seats, tables, mibun, exchange, reset, finish, last=False)
            logged = [f"{f}{t}{format_cells(table)}" for f, t, table in g.changes]
            for k, (ours, theirs) in enumerate(zip(served.changes, logged)):
                _expect(ours == theirs, f"exchange entry {k} is {theirs}, expected {ours}")
            _expect(len(served.changes) == len(logged),
                    f"{len(logged)} exchange entries, expected {len(served.changes)}")
            order = served.order()
            left = len(g.plays) - cursor[0]
            _expect(left == 0, f"our rules end the game with {left} submissions unplayed")
            _expect(order == g.result, f"result {g.result}, expected {order}")
            if misses and report.first_decision_miss is None:
                report.first_decision_miss = f"game {g.number}: {misses[0]}"
            for rank, p in enumerate(g.result):
                points[p] += 5 - rank
            _expect(g.points == points, f"points {g.points}, expected {points}")
            report.games_agreed += 1
        except Disagreement as err:
            if report.first_disagreement is None:
                report.first_disagreement = f"game {g.number}: {err}"
            # Carry on from the record's own view, so later games are still checked.
            points = list(g.points)
            seats = list(g.seats)
        previous = list(g.result)
    return report


class RecordSeat:
    """A seat answering with a record's tables, feeding a client under test (if any) what
    the server sends and comparing its answers with the record."""

    def __init__(self, player: int, g: LoggedGame, cursor: list[int],
                 client: TableClient | None, report: ReplayReport, misses: list[str]) -> None:
        self.name = str(player)
        self.player = player
        self.client = client
        self.report = report
        self.misses = misses
        self.gift = next((table for f, _, table in g.changes[2:] if f == player), None)
        self.g = g
        self.cursor = cursor  # shared by the five seats: the next submission of the record
        self.answer: np.ndarray | None = None

    def _check(self, logged: np.ndarray, where: str) -> np.ndarray:
        """Compare in log notation (a record cannot tell a joker at column 0 from one at 14);
        on agreement the client's own table goes on, placing such a joker exactly."""
        if self.client is None:
            return logged
        self.report.decisions += 1
        chosen = np.zeros((8, 15), np.int64) if self.answer is None else self.answer
        if format_cells(chosen) == format_cells(logged):
            self.report.decisions_agreed += 1
            return chosen
        self.misses.append(f"{where}: player {self.player} chose {format_cells(chosen) or 'pass'}"
                           f", the record has {format_cells(logged) or 'pass'}")
        return logged

    def deal(self, table: np.ndarray) -> None:
        if self.client is not None:
            self.answer = self.client.on_deal(table)

    def read_gift(self) -> np.ndarray:
        _expect(self.gift is not None, f"no gift of player {self.player} in the record")
        return self._check(self.gift, "exchange")

    def hand(self, table: np.ndarray) -> None:
        if self.client is not None:
            self.answer = self.client.on_hand(table)

    def read_play(self) -> np.ndarray:
        plays, at = self.g.plays, self.cursor[0]
        _expect(at < len(plays), f"player {self.player} to move after the record's last "
                                 f"submission")
        _expect(plays[at][0] == self.player,
                f"submission {at} by player {plays[at][0]}, expected player {self.player}")
        self.cursor[0] += 1
        return self._check(plays[at][1], f"submission {at}")

    def reply(self, code: int) -> None:
        pass

    def field(self, table: np.ndarray) -> None:
        if self.client is not None:
            self.client.on_field(table)

    def end(self, flag: int) -> None:
        pass


def _expect(ok: bool, message: str) -> None:
    if not ok:
        raise Disagreement(message)


def _check_deal(g: LoggedGame, seats: list[int], first: int | None,
                expected: list[int] | None) -> None:
    """The hands against the server's stream (``expected``) or, without it, the dealing
    order's hand sizes (11, 11, 11, 10, 10 from the first dealer's seat)."""
    if expected is not None:
        for p in range(NUM_PLAYERS):
            _expect(g.hands[p] == expected[p], f"player {p} was dealt "
                    f"{hand_to_string(g.hands[p])}, the server's seed deals "
                    f"{hand_to_string(expected[p])}")
        return
    counts = [bin(h).count("1") for h in g.hands]
    firsts = [first] if first is not None else list(range(NUM_PLAYERS))
    _expect(any([counts[p] for p in deal_order(seats, f)] == [11, 11, 11, 10, 10]
                for f in firsts), f"hand sizes {counts} do not follow the dealing order")


__all__ = ["Disagreement", "RecordSeat", "ReplayReport", "replay_record", "rules_of"]
