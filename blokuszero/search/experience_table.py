"""The search experience's table: board key -> per-player summed reward and visits, with lookup
of the boards within Hamming distance 2 (SPEC §5; :mod:`.experience` fills and reads it).

Lookup within distance ``d`` uses multi-index hashing (Norouzi, Punjani and Fleet): the key's
bits are dealt into 3 disjoint blocks (bit ``i`` to block ``i mod 3``), and each block has its
own hash index from the key's bits in that block to the entries sharing them. Two keys within
distance 2 differ in at most 2 bits, so by pigeonhole they agree on at least one of the 3
blocks: the entries found in the query's 3 buckets, checked by popcount, are every stored board
within ``d``, each reported once (from the first block it agrees on). The cost is 3 bucket
reads and the candidates that share a block with the query: how many stored keys share those
21-22 bits, not the table's size as such (for uniform keys, size/2^21 per block). Boards' keys
are far from uniform (long runs of blank cells), so when the query's buckets hold more
candidates than the Hamming ball has keys (2,081 for 64-bit keys), every key of the ball is
probed in the exact table instead: the previous lookup, also :meth:`ExperienceTable.
similar_ball`, the baseline of ``python -m blokuszero.bench ggp_experience``. No lookup costs more than
the ball's 2,081 probes. Hashes are Fibonacci hashing (a multiplication by the golden ratio).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..games.numba_random import GOLDEN

#: Key blocks of the multi-index lookup: d + 1 for the largest d (2).
BLOCKS = 3


@nb.njit(cache=True)
def _slot(slots, keys, key, shift):
    """The slot holding ``key``, or the empty slot where it would go (linear probing)."""
    mask = slots.shape[0] - 1
    h = np.int64((key * GOLDEN) >> np.uint64(shift))
    while True:
        e = slots[h]
        if e < 0 or keys[e] == key:
            return h
        h = (h + 1) & mask


@nb.njit(cache=True)
def _add(slots, keys, wsum, visits, origin, size, shift, new_keys, value, new_origin):
    """Add ``value`` and one visit to each of ``new_keys`` (new keys get entries); the entry's
    origin becomes the latest one given. Returns the new size."""
    for i in range(new_keys.shape[0]):
        k = new_keys[i]
        h = _slot(slots, keys, k, shift)
        e = slots[h]
        if e < 0:
            e = size
            size += 1
            slots[h] = e
            keys[e] = k
            visits[e] = 0
            wsum[e, :] = 0.0
        for p in range(value.shape[0]):
            wsum[e, p] += value[p]
        visits[e] += 1
        origin[e, :] = new_origin[i, :]
    return size


@nb.njit(cache=True)
def _rehash(slots, keys, size, shift):
    slots[:] = -1
    for e in range(size):
        slots[_slot(slots, keys, keys[e], shift)] = e


@nb.njit(cache=True)
def _popcount(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@nb.njit(cache=True)
def _ball(slots, keys, key, bits, d, shift, out):
    """Entries whose key is within Hamming distance ``d`` (0-2) of ``key`` (keys of ``bits``
    bits): every key of the ball is probed. Returns how many were written to ``out``."""
    n = 0
    e = slots[_slot(slots, keys, key, shift)]
    if e >= 0:
        out[n] = e
        n += 1
    if d >= 1:
        for i in range(bits):
            k1 = key ^ (np.uint64(1) << np.uint64(i))
            e = slots[_slot(slots, keys, k1, shift)]
            if e >= 0:
                out[n] = e
                n += 1
            if d >= 2:
                for j in range(i + 1, bits):
                    k2 = k1 ^ (np.uint64(1) << np.uint64(j))
                    e = slots[_slot(slots, keys, k2, shift)]
                    if e >= 0:
                        out[n] = e
                        n += 1
    return n


@nb.njit(cache=True)
def _index(heads, nxt, count, masks, keys, first, size, shift):
    """Push entries ``first .. size-1`` onto their bucket's chain in each block's index."""
    for e in range(first, size):
        for j in range(masks.shape[0]):
            h = np.int64(((keys[e] & masks[j]) * GOLDEN) >> np.uint64(shift))
            nxt[j, e] = heads[j, h]
            heads[j, h] = e
            count[j, h] += 1


@nb.njit(cache=True)
def _near(heads, nxt, count, masks, keys, slots, key, bits, d, shift, out):
    """Entries whose key is within Hamming distance ``d`` of ``key``, by multi-index hashing
    (``d`` + 1 <= blocks: pigeonhole); an entry is reported from the first block where it
    agrees with ``key`` only. When the query's buckets hold more entries than the Hamming
    ball has keys (boards whose keys share long runs of bits), the ball is probed instead, so
    no lookup costs more than the ball. Returns how many were written to ``out``."""
    candidates = 0
    for j in range(masks.shape[0]):
        candidates += count[j, np.int64(((key & masks[j]) * GOLDEN) >> np.uint64(shift))]
    if candidates > out.shape[0]:
        return _ball(slots, keys, key, bits, d, shift, out)
    n = 0
    for j in range(masks.shape[0]):
        h = np.int64(((key & masks[j]) * GOLDEN) >> np.uint64(shift))
        e = heads[j, h]
        while e >= 0:
            x = keys[e] ^ key
            if (x & masks[j]) == 0 and _popcount(x) <= d:
                first = True
                for i in range(j):  # agrees on an earlier block: reported there
                    if (x & masks[i]) == 0:
                        first = False
                        break
                if first:
                    out[n] = e
                    n += 1
            e = nxt[j, e]
    return n


@nb.njit(cache=True)
def _scan(keys, size, key, d):
    """Brute force: every entry within distance ``d`` (the reference the tests hold the ball
    lookup to)."""
    out = np.empty(size, np.int64)
    n = 0
    for e in range(size):
        if _popcount(keys[e] ^ key) <= d:
            out[n] = e
            n += 1
    return out[:n]


class ExperienceTable:
    """Board key -> per-player summed reward and visits, with lookup within Hamming distance 2
    (multi-index hashing over 3 key blocks).

    Each entry also keeps the origin of its latest visit (search generation, tree row, moves
    played past that row by the playout, the playout's first action), which the switching
    rule's distance measurement reads.
    """

    def __init__(self, num_players: int, bits: int = 64, capacity: int = 1024) -> None:
        if not 1 <= bits <= 64:
            raise ValueError(f"keys have 1 to 64 bits, not {bits}")
        self.num_players, self.bits = num_players, bits
        self.size = 0
        # Bit i of a key goes to block i mod 3: consecutive bits of a board's code (one cell's)
        # are spread over the blocks, so no block is a rarely changing region of the board.
        self.masks = np.array([sum(1 << i for i in range(j, bits, BLOCKS)) for j in range(BLOCKS)],
                              np.uint64)
        self._allocate(max(capacity, 16))
        self.ball_size = 1 + bits + bits * (bits - 1) // 2  # keys within distance 2
        self._out = np.empty(self.ball_size, np.int64)

    def _allocate(self, capacity: int) -> None:
        old = (self.keys, self.wsum, self.visits, self.origin) if self.size else None
        self.keys = np.zeros(capacity, np.uint64)
        self.wsum = np.zeros((capacity, self.num_players))
        self.visits = np.zeros(capacity, np.int64)
        self.origin = np.zeros((capacity, 4), np.int64)
        if old:
            for new, o in zip((self.keys, self.wsum, self.visits, self.origin), old):
                new[:self.size] = o[:self.size]
        slots = 1 << int(np.ceil(np.log2(2 * capacity)))  # load <= 1/2
        self.shift = 64 - int(np.log2(slots))
        self.slots = np.full(slots, -1, np.int64)
        _rehash(self.slots, self.keys, self.size, self.shift)
        self.heads = np.full((BLOCKS, slots), -1, np.int32)  # per block: bucket -> first entry
        self.next = np.full((BLOCKS, capacity), -1, np.int32)  # entry -> next in its bucket
        self.count = np.zeros((BLOCKS, slots), np.int32)  # entries per bucket
        _index(self.heads, self.next, self.count, self.masks, self.keys, 0, self.size, self.shift)

    def __len__(self) -> int:
        return self.size

    def add(self, keys: np.ndarray, value: np.ndarray, origin: np.ndarray | None = None) -> None:
        """Credit each board of ``keys`` (repeats count twice) with ``value`` ([P]) and a visit."""
        keys = np.asarray(keys, np.uint64)
        if origin is None:
            origin = np.full((len(keys), 4), -1, np.int64)
        if self.size + len(keys) > len(self.keys):
            self._allocate(max(2 * len(self.keys), self.size + len(keys)))
        first = self.size
        self.size = _add(self.slots, self.keys, self.wsum, self.visits, self.origin, self.size,
                         self.shift, keys, np.asarray(value, np.float64), origin)
        _index(self.heads, self.next, self.count, self.masks, self.keys, first, self.size,
               self.shift)

    def similar(self, key: int, d: int) -> np.ndarray:
        """Entries (indices) whose key is within Hamming distance ``d`` of ``key``."""
        if not 0 <= d <= 2:
            raise ValueError(f"the lookup distance d is 0, 1 or 2, not {d}")
        key = np.uint64(key)
        if d == 0:
            e = self.slots[_slot(self.slots, self.keys, key, self.shift)]
            return np.array([e] if e >= 0 else [], np.int64)
        n = _near(self.heads, self.next, self.count, self.masks, self.keys, self.slots, key,
                  self.bits, d, self.shift, self._out)
        return self._out[:n].copy()

    def candidates(self, keys: np.ndarray) -> np.ndarray:
        """Per key: the entries in its 3 buckets, the multi-index lookup's work (above
        ``ball_size`` the lookup probes the ball instead)."""
        keys = np.asarray(keys, np.uint64)
        return sum(self.count[j][((keys & m) * GOLDEN) >> np.uint64(self.shift)]
                   for j, m in enumerate(self.masks))

    def similar_ball(self, key: int, d: int) -> np.ndarray:
        """:meth:`similar` by probing every key of the Hamming ball (2,081 probes for d = 2 and
        64-bit keys): the previous lookup, the benchmark's baseline."""
        if not 0 <= d <= 2:
            raise ValueError(f"the lookup distance d is 0, 1 or 2, not {d}")
        n = _ball(self.slots, self.keys, np.uint64(key), self.bits, d, self.shift, self._out)
        return self._out[:n].copy()

    def similar_brute_force(self, key: int, d: int) -> np.ndarray:
        """:meth:`similar` by scanning every entry (sorted indices)."""
        return _scan(self.keys, self.size, np.uint64(key), d)

    def totals(self, entries: np.ndarray) -> tuple[np.ndarray, int]:
        """Summed rewards ([P]) and visits of ``entries``."""
        return self.wsum[entries].sum(axis=0), int(self.visits[entries].sum())

    def clear(self) -> None:
        self.size = 0
        self.slots[:] = -1
        self.heads[:] = -1
        self.count[:] = 0
