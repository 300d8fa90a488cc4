"""A match server that behaves as the official UECda server ``tndhms`` (UECDA.md §2-4, §6).

It draws seats, first dealers, deals and random ranks from the server's Mersenne Twister
stream (so a seed deals what the official server deals with it), sends the tables in the
official order (built as it builds them: :class:`ServerTables`), judges gifts and submissions
as it does (an invalid gift is replaced by the giver's strongest cards; a rejected submission is
a pass answered 8), and writes the official game record. Players sit behind :class:`Seat`
objects: in-process clients (:class:`LocalSeat`) or network connections
(``blokuszero.protocols.uecda``).

Given an official record's ``RANDOM_SEED`` and five default clients, it writes that record again
line for line, header lines aside (``tests/test_daihinmin_replay.py``).
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from ...games.base import CHANCE, State
from ...games.daihinmin import rules as K
from ...games.daihinmin.actions import A_TYPE, PASS, T_GIVE, chance_action, give_action
from ...games.daihinmin.cards import hand_to_string, hand_to_table, strongest_cards
from ...games.daihinmin.game import NUM_PLAYERS, DaihinminGame, DaihinminState, Rules, submission
from ...games.daihinmin.log import LogWriter, format_cells
from ...games.daihinmin.tables import card_count
from ...players.base import Player
from ...protocols.uecda import ACCEPTED, GAME_GOES_ON, GAME_OVER, MATCH_OVER, REJECTED
from ...referee.game_loop import play
from .uecda_settings import MatchSettings, ServerRandom


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
    :class:`~blokuszero.players.daihinmin.default_client.DefaultClient`) in a seat."""

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


def serve_match(seats: Sequence[Seat], settings: MatchSettings = MatchSettings(),
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
        served = serve_game(game, state, seats, tables, mibun, exchange, reset, rng.finishing_order,
                            last=n == settings.games)
        order = served.order()
        points = [0] * NUM_PLAYERS
        for rank, p in enumerate(order):
            points[p] = 5 - rank
            totals[p] += 5 - rank
        result.points.append(points)
        if writer:
            writer.game(n - 1, None if reset else ranks, seat_order,
                        [hand_to_string(h) for h in hands], served.changes, served.plays, order, totals)
        previous = order
        if on_game:
            on_game(n, points)
    if writer:
        writer.close([("TIME_END", _now()), ("TOTAL_POINT", " ".join(map(str, totals)))])
    return result


class ServedGame(Player):
    """The server's side of one game, holding all five seats, for the game loop to play: it
    sends the deal tables, then at each move the tables the server sends, reads the mover's gift
    or submission and judges it as the server does; after each move it sends the field and the
    end flags. ``changes`` and ``plays`` are the record's exchange and play entries."""

    def __init__(self, state: DaihinminState, seats: Sequence[Seat], tables: ServerTables,
                 mibun: list[int], reset: bool, finish: Callable[[list[int]], list[int]],
                 last: bool) -> None:
        """``mibun``: the server's rank array (players by rank); ``reset``: ranks shown as zeros;
        ``finish`` completes the finishing order after 20 stalled turns; ``last``: the match's
        last game."""
        self.state, self.seats, self.tables = state, seats, tables
        self.mibun, self.reset, self.finish, self.last = mibun, reset, finish, last
        self.changes: list[str] = []
        self.plays: list[str] = []
        self._stage = np.zeros((8, 15), np.int64)

    def deal(self, exchange: bool) -> None:
        """Send the deal tables (daifugo first); with ``exchange``, log the two forced gifts."""
        state, mibun = self.state, self.mibun
        s = state.s
        if exchange:
            self.changes = [f"{mibun[4]}{mibun[0]}{hand_to_string(int(s[K.S_TOOK_DAIFUGO]))}",
                            f"{mibun[3]}{mibun[1]}{hand_to_string(int(s[K.S_TOOK_FUGO]))}"]
        # The hinmin and daihinmin see their hands before their strongest cards left.
        hands = [state.dealt[p] if exchange and mibun.index(p) >= 3 else int(s[K.S_HAND + p])
                 for p in range(NUM_PLAYERS)]
        deal = self.tables.deal_tables(state, hands, mibun, self.reset, exchange)
        for p in mibun:
            self.seats[p].deal(deal[p])

    def choose_action(self, state: State, player: int | None = None) -> int:
        phase = int(self.state.s[K.S_PHASE])
        if phase in (K.P_GIVE_DAIFUGO, K.P_GIVE_FUGO):
            return self._read_gift(0 if phase == K.P_GIVE_DAIFUGO else 1)
        return self._read_play()

    def _read_gift(self, rank: int) -> int:
        """The gift of the player of ``rank`` (0 daifugo, 1 fugo); the strongest cards when
        the server refuses the table."""
        giver, taker = self.mibun[rank], self.mibun[4 - rank]
        hand = int(self.state.s[K.S_HAND + giver])
        table = self.seats[giver].read_gift()
        self.tables.submitted(table)
        cards = _valid_gift(hand, table, 2 - rank, strict=rank == 0)
        if cards is None:
            cards = strongest_cards(hand, 2 - rank)
        self.changes.append(f"{giver}{taker}{hand_to_string(cards)}")
        return give_action(cards)

    def _read_play(self) -> int:
        """Send every hand table, read the mover's submission, answer it; the move it plays."""
        s, tables = self.state.s, self.tables
        if not self.plays:
            tables.work[:] = 0  # the server clears its working table before the first turn
        mover = int(s[K.S_PLAYER])
        tables.fill(self.state, mover, bool(s[K.S_FIELD] < 0), int(s[K.S_LOCK]), self._rank_array())
        for p in range(NUM_PLAYERS):
            self.seats[p].hand(tables.hand_table(self.state, p))
        table = self.seats[mover].read_play()
        tables.submitted(table)
        self.plays.append(f"{mover}{format_cells(table)}")
        action, accepted = submission(self.state, table)
        self.seats[mover].reply(ACCEPTED if accepted else REJECTED)
        if accepted and action != PASS:
            self._stage = np.array(table, np.int64)
        return action

    def inform(self, action: int, player: int) -> None:
        if player == CHANCE:  # the random ranks after 20 stalled turns: the game is over
            self._end()
        elif A_TYPE[action] != T_GIVE:  # nothing is sent after a gift
            s = self.state.s
            self.tables.fill(self.state, player, not self._stage[:5].any(), int(s[K.S_SHOWN_LOCK]),
                             self._rank_array())
            shown = self.tables.field_table(self._stage)
            for p in range(NUM_PLAYERS):
                self.seats[p].field(shown)
            if self.state.current_player() != CHANCE:
                self._end()

    def draw_finish(self, state: State) -> int:
        """The chance move after 20 stalled turns: random ranks for the players still in."""
        s = state.s
        return chance_action(self.finish([int(p) for p in s[K.S_ORDER:K.S_ORDER + s[K.S_OUT]]]))

    def order(self) -> list[int]:
        """The finishing order of the game played."""
        return [int(p) for p in self.state.s[K.S_ORDER:K.S_ORDER + NUM_PLAYERS]]

    def _end(self) -> None:
        """Clear the shown field after a clear, send every seat the end flag."""
        if self.state.s[K.S_FIELD] < 0:
            self._stage = np.zeros((8, 15), np.int64)
        over = self.state.is_terminal()
        flag = (MATCH_OVER if self.last else GAME_OVER) if over else GAME_GOES_ON
        for p in range(NUM_PLAYERS):
            self.seats[p].end(flag)

    def _rank_array(self) -> list[int] | None:
        # The server's rank array: the last game's order, its first entries overwritten by the
        # players who went out by playing (the last one is placed after the game); None after
        # a reset (ranks shown as zeros).
        if self.reset:
            return None
        s = self.state.s
        out = [int(p) for p in s[K.S_ORDER:K.S_ORDER + min(int(s[K.S_OUT]), 4)]]
        return out + list(self.mibun[len(out):])


def serve_game(game: DaihinminGame, state: DaihinminState, seats: Sequence[Seat], tables: ServerTables,
               mibun: list[int], exchange: bool, reset: bool, finish: Callable[[list[int]], list[int]],
               last: bool) -> ServedGame:
    """Play one dealt game with ``seats`` as the server does, through the game loop; the
    served game holds the finishing order and the record's entries. Arguments as
    :class:`ServedGame`'s; ``exchange``: the exchange rule applies to this game."""
    host = ServedGame(state, seats, tables, mibun, reset, finish, last)
    host.deal(exchange)
    play(game, state, [host] * NUM_PLAYERS, on_failure="raise", chance=host.draw_finish)
    return host


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


__all__ = ["LocalSeat", "MatchResult", "Seat", "ServedGame", "ServerTables", "serve_match", "serve_game"]
