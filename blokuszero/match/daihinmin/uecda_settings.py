"""A UECda match's settings and the official server's random stream (seats, first dealers, deals,
random ranks; UECDA.md §3-4): what the match server and the replay of records start from.

The server draws every random number from one Mersenne Twister seeded with the
``RANDOM_SEED`` it logs (``RAND_TYPE`` 1), each as ``genrand_int32 / (2**32 - 1)``: five per
re-seating, one for the first dealer after a rank reset, 53 per shuffle, and one per player
ranked at random after 20 stalled turns. :class:`ServerRandom` replays that stream, so a record
can be checked deal by deal and our server deals as the official one would with the same seed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...games.daihinmin.game import NUM_PLAYERS, deal_order

_N, _M = 624, 397


class MersenneTwister:
    """MT19937 (Matsumoto & Nishimura 1998) seeded like the reference ``init_genrand``."""

    def __init__(self, seed: int) -> None:
        mt = [seed & 0xFFFFFFFF]
        for i in range(1, _N):
            mt.append((1812433253 * (mt[-1] ^ (mt[-1] >> 30)) + i) & 0xFFFFFFFF)
        self.mt = np.array(mt, dtype=np.uint64)
        self.index = _N

    def _twist(self) -> None:
        mt = [int(x) for x in self.mt]
        for i in range(_N):
            y = (mt[i] & 0x80000000) | (mt[(i + 1) % _N] & 0x7FFFFFFF)
            mt[i] = mt[(i + _M) % _N] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
        self.mt = np.array(mt, dtype=np.uint64)
        self.index = 0

    def int32(self) -> int:
        """The next 32-bit output (``genrand_int32``)."""
        if self.index >= _N:
            self._twist()
        y = int(self.mt[self.index])
        self.index += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9D2C5680
        y ^= (y << 15) & 0xEFC60000
        return y ^ (y >> 18)

    def real1(self) -> float:
        """A double in [0, 1], both ends included (``genrand_real1``)."""
        return self.int32() * (1.0 / 4294967295.0)


@dataclass(frozen=True)
class MatchSettings:
    """The server's match settings (UECDA.md §3; defaults as FujiGokoro's server and the
    tournaments: 1000 games, ranks reset every 100, seats drawn every 5 games)."""

    games: int = 1000  # GAME_NUMBER
    rank_reset: int = 100  # FLASH_MIBUN_NUMBER
    seat_change: bool = True  # RULE_SEKIGAE
    seat_change_every: int = 5  # RULE_SEKIGAE_NUM

    def is_reset(self, game: int) -> bool:
        """Whether 1-based ``game`` starts without ranks (random first dealer)."""
        return (game - 1) % self.rank_reset == 0

    def has_exchange(self, game: int) -> bool:
        """Whether 1-based ``game`` has the exchange (the server's own test, which differs from
        :meth:`is_reset` only for a reset period of 1)."""
        return game % self.rank_reset != 1

    def reseats(self, game: int) -> bool:
        return self.seat_change and game % self.seat_change_every == 1


class ServerRandom:
    """The official server's random draws, in its order, from its logged seed."""

    def __init__(self, seed: int) -> None:
        self.mt = MersenneTwister(seed)

    def seats(self) -> list[int]:
        """A re-seating: players sorted by a distinct random key each (player per seat)."""
        keys: list[float] = []
        for _ in range(NUM_PLAYERS):
            key = self.mt.real1()
            while key in keys:
                key = self.mt.real1()
            keys.append(key)
        return sorted(range(NUM_PLAYERS), key=lambda p: keys[p])

    def first_dealer(self) -> int:
        return int(self.mt.real1() * NUM_PLAYERS)

    def deal(self, seats: list[int], first_player: int) -> list[int]:
        """53 draws: draw ``i`` picks the k-th card not yet dealt (k = int(r * (53 - i))) for
        the player ``i`` seats after the first; hands (53-bit sets) by player."""
        order = deal_order(seats, first_player)
        left = list(range(53))  # in the server's order: suit by suit, rank by rank, joker
        hands = [0] * NUM_PLAYERS
        for i in range(53):
            k = min(int(self.mt.real1() * (53 - i)), 52 - i)
            j = left.pop(k)
            card = 52 if j == 52 else (j % 13) * 4 + j // 13
            hands[order[i % 5]] |= 1 << card
        return hands

    def finishing_order(self, order: list[int]) -> list[int]:
        """Complete ``order`` (players out so far) at random as the server does after 20
        stalled turns: each next rank goes to the j-th player still in, by player number."""
        order = list(order)
        while len(order) < NUM_PLAYERS - 1:
            left = [p for p in range(NUM_PLAYERS) if p not in order]
            order.append(left[int(self.mt.real1() * len(left))])
        order.extend(p for p in range(NUM_PLAYERS) if p not in order)
        return order
