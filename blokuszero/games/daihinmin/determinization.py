"""Determinizations of a Daihinmin position for one player, in numba (a search draws one per
simulation, so this runs thousands of times per decision).

The other players' hands are re-dealt from the cards the player has not seen: each keeps its
card count and the cards the player knows it holds from the exchange (the cards it gave, as
daifugo or fugo, or had taken, as daihinmin or hinmin, that their receiver still holds). When
the player received an opponent's strongest cards in the exchange, that opponent holds none
stronger than the weakest of them, except cards the player gave it back: a deal that breaks this
is drawn again (up to :data:`RETRIES` times), then the restricted cards are placed first among
the players allowed them. The player's own hand and everything but the other hands stay as
they are.

Random numbers come from a SplitMix64 stream of :mod:`..numba_random` started from a seed per
call, so that a caller's ``numpy.random.Generator`` decides every deal (and numba's global
generator, which the playouts use, is left alone).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..numba_random import stream_below
from . import rules as K
from .cards import JOKER, NUM_CARDS

RETRIES = 100

# Exchange strength of each card: the joker highest, then by rank, spades first within a rank
# (the order in which the strongest cards move up in the exchange).
STRENGTH = np.zeros(NUM_CARDS, np.int64)
STRENGTH[JOKER] = 100
for _c in range(52):
    STRENGTH[_c] = (_c // 4) * 4 + (3 - _c % 4)


@nb.njit(cache=True)
def exchange_partner(s: np.ndarray, player: int) -> tuple[int, int]:
    """(the player ``player`` exchanged cards with, the position's field holding the cards
    that left ``player``'s hand: its gift as daifugo or fugo, or those taken from it as
    daihinmin or hinmin), or (-1, -1) for the heimin and positions without ranks."""
    rank = s[K.S_RANK + player]
    if rank == 0:
        return K.player_of_rank(s, 4), K.S_GAVE_DAIFUGO
    if rank == 1:
        return K.player_of_rank(s, 3), K.S_GAVE_FUGO
    if rank == 3:
        return K.player_of_rank(s, 1), K.S_TOOK_FUGO
    if rank == 4:
        return K.player_of_rank(s, 0), K.S_TOOK_DAIFUGO
    return -1, -1


@nb.njit(cache=True)
def known_and_forbidden(s: np.ndarray, player: int) -> tuple[np.ndarray, np.ndarray]:
    """([5] cards ``player`` knows each player holds, [5] cards it knows each cannot hold),
    from its own hand and the exchange (see the module's docstring)."""
    known = np.zeros(5, np.int64)
    forbidden = np.zeros(5, np.int64)
    known[player] = s[K.S_HAND + player]
    rank = s[K.S_RANK + player]
    other, field = exchange_partner(s, player)
    if other >= 0:
        known[other] = s[field] & s[K.S_HAND + other]  # what it still holds
    if (rank == 0 or rank == 1) and s[K.S_TOOK_DAIFUGO + rank] != 0:
        took = s[K.S_TOOK_DAIFUGO + rank]
        giver = K.player_of_rank(s, 4 - rank)
        weakest = 1 << 30
        for c in range(NUM_CARDS):
            if (took >> c) & 1:
                weakest = min(weakest, STRENGTH[c])
        stronger = np.int64(0)
        for c in range(NUM_CARDS):
            if STRENGTH[c] > weakest:
                stronger |= np.int64(1) << c
        forbidden[giver] = stronger & ~s[K.S_GAVE_DAIFUGO + rank]
    return known, forbidden


@nb.njit(cache=True)
def determinize(s: np.ndarray, player: int, out: np.ndarray, seed: int) -> None:
    """Write into ``out`` (a copy of ``s``) the other players' hands of one determinization
    for ``player``, drawn with ``seed``."""
    known, forbidden = known_and_forbidden(s, player)
    mine = np.int64(0)
    for p in range(5):
        mine |= known[p]
    unseen = ((np.int64(1) << NUM_CARDS) - 1) & ~s[K.S_PLAYED] & ~mine
    pool = np.empty(NUM_CARDS, np.int64)
    n = 0
    for c in range(NUM_CARDS):
        if (unseen >> c) & 1:
            pool[n] = c
            n += 1
    need = np.zeros(5, np.int64)
    total = 0
    for p in range(5):
        if p != player:
            need[p] = K.popcount(s[K.S_HAND + p]) - K.popcount(known[p])
            total += need[p]
    if total != n:
        raise ValueError("the other hands' card counts disagree with the unseen cards")
    x = np.uint64(seed)  # the stream's state
    hands = known.copy()
    for _ in range(RETRIES):
        for i in range(n - 1, 0, -1):  # Fisher-Yates
            j, x = stream_below(i + 1, x)
            pool[i], pool[j] = pool[j], pool[i]
        at = 0
        ok = True
        for p in range(5):
            hands[p] = known[p]
            if p == player:
                continue
            for k in range(at, at + need[p]):
                hands[p] |= np.int64(1) << pool[k]
            at += need[p]
            ok = ok and (hands[p] & forbidden[p]) == 0
        if ok:
            for p in range(5):
                out[K.S_HAND + p] = hands[p]
            return
    # Rare: the restricted cards first (most restricted first), each to a random player
    # still short of cards that may hold it.
    order = np.empty(n, np.int64)
    m = 0
    for level in range(4, -1, -1):
        for i in range(n):
            c = pool[i]
            banned = 0
            for p in range(5):
                if p != player and (forbidden[p] >> c) & 1:
                    banned += 1
            if banned == level:
                order[m] = c
                m += 1
    left = need.copy()
    hands = known.copy()
    allowed = np.empty(5, np.int64)
    for i in range(n):
        c = order[i]
        k = 0
        first = -1
        for p in range(5):
            if p == player or left[p] == 0:
                continue
            if first < 0:
                first = p
            if not (forbidden[p] >> c) & 1:
                allowed[k] = p
                k += 1
        if k:
            j, x = stream_below(k, x)
            p = allowed[j]
        else:
            p = first
        hands[p] |= np.int64(1) << c
        left[p] -= 1
    for p in range(5):
        out[K.S_HAND + p] = hands[p]
