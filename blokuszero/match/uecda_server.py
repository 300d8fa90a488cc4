"""A match server that behaves as the official UECda server ``tndhms`` (UECDA.md §2-4, §6).

It draws seats, first dealers, deals and random ranks from the server's Mersenne Twister
stream (so a seed deals what the official server deals with it), sends the tables in the
official order (built as it builds them: :class:`ServerTables`), judges gifts and submissions
as it does (an invalid gift is replaced by the giver's strongest cards; a rejected submission is
a pass answered 8), and writes the official game record. Players sit behind :class:`Seat`
objects: in-process clients (:class:`LocalSeat`) or network connections
(``blokuszero.protocols.uecda``).
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from ..games.daihinmin import rules as K
from ..games.daihinmin.actions import PASS, chance_action, give_action
from ..games.daihinmin.cards import hand_to_string, hand_to_table, strongest_cards
from ..games.daihinmin.game import NUM_PLAYERS, DaihinminGame, DaihinminState, Rules, submission
from ..games.daihinmin.log import LogWriter, format_cells
from ..games.daihinmin.tables import card_count
from ..protocols.uecda import ACCEPTED, GAME_GOES_ON, GAME_OVER, MATCH_OVER, REJECTED
from .uecda_match import MatchSettings, ServerRandom


class Seat(Protocol):
    """What the server does with one player, in the protocol's order."""

    name: str

    def deal(self, table: np.ndarray) -> None: ...

    def read_gift(self) -> np.ndarray: ...

    def hand(self, table: np.ndarray) -> None: ...

    def read_play(self) -> np.ndarray: ...

    def reply(self, code: int) -> None: ...

    def field(self, table: np.ndarray) -> None: ...

    def end(self, flag: int) -> None: ...


class LocalSeat:
    """An in-process client (``on_deal`` / ``on_hand`` / ``on_field``, as
    :class:`~..players.daihinmin_default_client.DefaultClient`) in a seat."""

    def __init__(self, client, name: str) -> None:
        self.client = client
        self.name = name
        self._answer: np.ndarray | None = None

    def deal(self, table: np.ndarray) -> None:
        self._answer = self.client.on_deal(table)

    def read_gift(self) -> np.ndarray:
        return _table_or_pass(self._answer)

    def hand(self, table: np.ndarray) -> None:
        self._answer = self.client.on_hand(table)

    def read_play(self) -> np.ndarray:
        return _table_or_pass(self._answer)

    def reply(self, code: int) -> None:
        pass

    def field(self, table: np.ndarray) -> None:
        self.client.on_field(table)

    def end(self, flag: int) -> None:
        pass


def _table_or_pass(table: np.ndarray | None) -> np.ndarray:
    return np.zeros((8, 15), np.int64) if table is None else np.asarray(table, np.int64)


@dataclass
class MatchResult:
    """Points per game (rows: games, columns: players) and the names."""

    names: list[str]
    points: list[list[int]] = field(default_factory=list)

    def totals(self) -> np.ndarray:
        return np.sum(self.points, axis=0) if self.points else np.zeros(NUM_PLAYERS, np.int64)


class ServerTables:
    """The tables the server sends, built as it builds them: from one working table that
    also receives every table a client submits, so the cells the server never sets
    ([5][8..14], the rank cell of a player missing from its rank array, row 7 of the field)
    carry what clients last sent, as on the official server. One per match."""

    def __init__(self) -> None:
        self.work = np.zeros((8, 15), dtype=np.int64)

    def fill(self, state: DaihinminState, actor: int, field_empty: bool, lock: int,
             mibun: list[int] | None) -> None:
        """The server's per-turn fill of rows 5-6: actor, field empty, revolution, lock,
        counts, ranks (``mibun``: its rank array, None after a reset: zeros), seats."""
        s = state.s
        self._rows((0, 0, 0, actor, int(field_empty), 0, s[K.S_REVOLUTION], lock),
                   [bin(int(h)).count("1") for h in s[K.S_HAND:K.S_HAND + 5]], mibun,
                   s[K.S_SEAT:K.S_SEAT + 5])

    def _rows(self, row5, counts, mibun: list[int] | None, seats) -> None:
        w = self.work
        w[5, :8] = row5
        w[6, 0:5] = counts
        if mibun is None:
            w[6, 5:10] = 0
        else:
            for rank, p in enumerate(mibun):  # later entries win, as in the server's loop
                w[6, 5 + p] = rank
        w[6, 10:15] = seats

    def deal_tables(self, state: DaihinminState, hands: list[int], mibun: list[int],
                    reset: bool, exchange: bool) -> list[np.ndarray]:
        """Per player the deal table: its hand ([5][0] = 1, [5][1] the cards to give, [5][3]
        = 6, dealt counts) as of the exchange's first step (``hands``)."""
        self._rows((0, 0, 0, 6, 0, 0, 0, 0), [bin(int(h)).count("1") for h in state.dealt],
                   None if reset else mibun, state.s[K.S_SEAT:K.S_SEAT + 5])
        w = self.work
        out = []
        for p in range(5):
            table = hand_to_table(hands[p])
            table[5:7] = w[5:7]
            table[5, 0] = 1
            table[5, 1] = max(2 - mibun.index(p), 0) if exchange else 0
            out.append(table)
        return out

    def hand_table(self, state: DaihinminState, player: int) -> np.ndarray:
        """``player``'s hand with the working rows 5-6; [5][2] = 1 for the player to move."""
        table = hand_to_table(int(state.s[K.S_HAND + player]))
        table[5:7] = self.work[5:7]
        table[5, 2] = int(player == state.s[K.S_PLAYER])
        return table

    def submitted(self, table: np.ndarray) -> None:
        """A client's table arrives in the working table."""
        self.work[:] = table

    def field_table(self, stage: np.ndarray) -> np.ndarray:
        """The last accepted table (zeros after a clear) with the working rows 5-6."""
        table = np.array(stage, dtype=np.int64)
        table[5:7] = self.work[5:7]
        return table


def _valid_gift(hand: int, table: np.ndarray, n: int, strict: bool) -> int | None:
    """The cards of a gift table if the server takes it: exactly ``n`` cards the giver holds
    (the daifugo's table must also be well formed: ``strict``); None otherwise."""
    count, bad = card_count(table)
    if count != n or (strict and bad):
        return None
    cells = np.asarray(table)[:5, :15]
    if (cells == 2).any() and not hand >> 52 & 1:
        return None
    ones = np.argwhere(cells == 1)
    if any(not (r <= 3 and 1 <= c <= 13) for r, c in ones):
        return None
    cards = sum(1 << ((int(c) - 1) * 4 + int(r)) for r, c in ones)
    cards |= (1 << 52) if (cells == 2).any() else 0
    return cards if cards & ~hand == 0 and bin(cards).count("1") == n else None


def run_match(seats: Sequence[Seat], settings: MatchSettings = MatchSettings(),
              rules: Rules = Rules(), seed: int | None = None, log_path: str | None = None,
              port: int = 0, on_game: Callable[[int, list[int]], None] | None = None
              ) -> MatchResult:
    """Play ``settings.games`` games among the 5 seats (player number = index) as the official
    server does; write the record to ``log_path`` if given; ``on_game(n, points)`` after each."""
    if len(seats) != NUM_PLAYERS:
        raise ValueError(f"a match needs {NUM_PLAYERS} players, not {len(seats)}")
    seed = int(time.time()) if seed is None else int(seed)
    rng = ServerRandom(seed)
    game = DaihinminGame(rules)
    names = [s.name[:9] for s in seats]
    writer = None
    if log_path:
        writer = LogWriter(log_path, _header(names, rules, settings, seed, port))
    result = MatchResult(names)
    seat_order = list(range(NUM_PLAYERS))
    previous: list[int] | None = None  # finishing order of the last game
    tables = ServerTables()
    totals = [0] * NUM_PLAYERS
    for n in range(1, settings.games + 1):
        if settings.reseats(n):
            seat_order = rng.seats()
        reset = settings.is_reset(n)
        mibun = previous or list(range(NUM_PLAYERS))  # the server's rank array
        first = rng.first_dealer() if reset else mibun[0]
        hands = rng.deal(seat_order, first)
        exchange = settings.has_exchange(n) and rules.exchange
        ranks = [mibun.index(p) for p in range(NUM_PLAYERS)]
        state = DaihinminState.from_deal(game, hands, seat_order, ranks if exchange else None)
        changes = exchange_phase(state, seats, tables, mibun, exchange, reset)
        order, plays = play_phase(state, seats, tables, rng.finishing_order,
                                  None if reset else mibun, last=n == settings.games)
        points = [0] * NUM_PLAYERS
        for rank, p in enumerate(order):
            points[p] = 5 - rank
            totals[p] += 5 - rank
        result.points.append(points)
        if writer:
            writer.game(n - 1, None if reset else ranks, seat_order,
                        [hand_to_string(h) for h in hands], changes, plays, order, totals)
        previous = order
        if on_game:
            on_game(n, points)
    if writer:
        writer.close([("TIME_END", _now()), ("TOTAL_POINT", " ".join(map(str, totals)))])
    return result


def exchange_phase(state: DaihinminState, seats: Sequence[Seat], tables: ServerTables,
                   mibun: list[int], exchange: bool, reset: bool) -> list[str]:
    """Send the deal tables (daifugo first) and carry out the exchange; the log entries.
    ``mibun``: the server's rank array (players by rank), ``reset``: ranks shown as zeros."""
    s = state.s
    changes = []
    if exchange:
        changes = [f"{mibun[4]}{mibun[0]}{hand_to_string(int(s[K.S_TOOK_DAIFUGO]))}",
                   f"{mibun[3]}{mibun[1]}{hand_to_string(int(s[K.S_TOOK_FUGO]))}"]
    # The hinmin and daihinmin see their hands before their strongest cards left.
    hands = [state.dealt[p] if exchange and mibun.index(p) >= 3 else int(s[K.S_HAND + p])
             for p in range(NUM_PLAYERS)]
    deal = tables.deal_tables(state, hands, mibun, reset, exchange)
    for p in mibun:
        seats[p].deal(deal[p])
    if not exchange:
        return changes
    for rank, n in ((0, 2), (1, 1)):
        giver, taker = mibun[rank], mibun[4 - rank]
        hand = int(s[K.S_HAND + giver])
        table = seats[giver].read_gift()
        tables.submitted(table)
        cards = _valid_gift(hand, table, n, strict=rank == 0)
        if cards is None:
            cards = strongest_cards(hand, n)  # the server gives the strongest instead
        state.apply_action(give_action(cards))
        changes.append(f"{giver}{taker}{hand_to_string(cards)}")
    return changes


def play_phase(state: DaihinminState, seats: Sequence[Seat], tables: ServerTables,
               finish: Callable[[list[int]], list[int]], mibun: list[int] | None,
               last: bool) -> tuple[list[int], list[str]]:
    """The turns of one game; (finishing order, log entries). ``finish`` completes the order
    after 20 stalled turns; ``mibun``: the last game's order (None after a reset: ranks
    shown as zeros)."""
    s = state.s
    plays = []
    stage = np.zeros((8, 15), np.int64)
    tables.work[:] = 0  # the server clears its working table before the first turn

    def rank_array() -> list[int] | None:
        # The server's rank array: the last game's order, its first entries overwritten by
        # the players who went out by playing (the last one is placed after the game).
        if mibun is None:
            return None
        out = [int(p) for p in s[K.S_ORDER:K.S_ORDER + min(int(s[K.S_OUT]), 4)]]
        return out + list(mibun[len(out):])

    while True:
        mover = int(s[K.S_PLAYER])
        tables.fill(state, mover, bool(s[K.S_FIELD] < 0), int(s[K.S_LOCK]), rank_array())
        for p in range(NUM_PLAYERS):
            seats[p].hand(tables.hand_table(state, p))
        table = seats[mover].read_play()
        tables.submitted(table)
        plays.append(f"{mover}{format_cells(table)}")
        action, accepted = submission(state, table)
        seats[mover].reply(ACCEPTED if accepted else REJECTED)
        if accepted and action != PASS:
            stage = np.array(table, np.int64)
        K.apply(s, action)
        tables.fill(state, mover, not stage[:5].any(), int(s[K.S_SHOWN_LOCK]), rank_array())
        shown = tables.field_table(stage)
        for p in range(NUM_PLAYERS):
            seats[p].field(shown)
        if state.current_player() == -3:  # 20 stalled turns: random ranks for the rest
            out = [int(p) for p in s[K.S_ORDER:K.S_ORDER + s[K.S_OUT]]]
            state.apply_action(chance_action(finish(out)))
        if s[K.S_FIELD] < 0:
            stage = np.zeros((8, 15), np.int64)
        flag = (MATCH_OVER if last else GAME_OVER) if state.is_terminal() else GAME_GOES_ON
        for p in range(NUM_PLAYERS):
            seats[p].end(flag)
        if state.is_terminal():
            return [int(p) for p in s[K.S_ORDER:K.S_ORDER + 5]], plays


def _now() -> str:
    return time.strftime("%Y/%m/%d %H:%M:%S")


def _header(names: list[str], rules: Rules, settings: MatchSettings, seed: int,
            port: int) -> list[tuple[str, str]]:
    def yes(flag: bool) -> str:
        return "YES" if flag else "NO"

    return [("hostname", socket.gethostname()), ("TIME_START", _now()),
            ("palyer_name", " ".join(names)), ("WINDOW_TYPE", "CONSOLE"), ("GRAPH_WINDOW", "NO"),
            ("RAND_TYPE", "1"), ("RULE_KAKUMEI", yes(rules.revolution)),
            ("RULE_SHIBARI", yes(rules.lock)), ("RULE_KINSOKU", "NO"),
            ("RULE_KAIDAN", yes(rules.sequences)), ("RULE_CHANGE", yes(rules.exchange)),
            ("RULE_5TOBI", "NO"), ("RULE_6REVERS", "NO"), ("RULE_8GIRI", yes(rules.eight_cut)),
            ("RULE_11BACK", "NO"), ("RULE_SEKIGAE", yes(settings.seat_change)),
            ("RULE_SEKIGAE_NUM", str(settings.seat_change_every)),
            ("GAME_NUMBER", str(settings.games)),
            ("FLASH_MIBUN_NUMBER", str(settings.rank_reset)), ("GAME_PORT", str(port)),
            ("RANDOM_SEED", str(seed))] + ([("RULE_SELF_FOLLOW", "YES")] if rules.self_follow else [])


__all__ = ["LocalSeat", "MatchResult", "Seat", "ServerTables", "run_match"]
