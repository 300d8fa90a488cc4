"""Search experience: statistics of similar boards seed new nodes (SPEC §5; Uemiya and
Yokoyama, "Towards a universally effective utilization of board similarities in GGP").

A :class:`ExperienceTable` maps a board's key (an unsigned integer from a board encoder;
similar boards have keys at a small Hamming distance) to each player's summed reward and the
visits, and is filled at backup from every board of every simulation: the tree part and the
playout (:class:`SearchExperience` asks the evaluator for the playout's positions). When a
simulation first reaches a node, the node receives the summed rewards and visits of every
stored board within Hamming distance ``d`` of its own (seeded visits, told apart from real
ones: the move played is the one with most real visits).

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
similar_ball`, the baseline of ``scripts/bench_ggp_experience.py``. No lookup costs more than
the ball's 2,081 probes.

The switching rule (:func:`measure_similarity`, :func:`choose_distance`): before the game,
self-play a few short games measuring the tree distance between each reached node and the
similar boards found for it; use ``d = 2`` when the boards found are near in the tree (mean
distance <= 2.92) and their distance profile is stable from game to game (mean per-distance
standard deviation <= 2.6e-2), else ``d = 0`` (the paper's thresholds for 250 playouts).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numba as nb
import numpy as np

from ..games.base import Game
from .enhancements import Enhancement, Simulation
from .tree import ROOT, SEEDED_VISITS, Tree

BOARD_KEY = "board_key"  # per tree row: the key of the node's board (uint64)
BOARD_SEEN = "board_seen"  # per tree row: 1 once the node's board is known
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
#: The paper's thresholds for 250 playouts (its section 5.2).
MAX_MEAN_DISTANCE = 2.92
MAX_MEAN_STD = 2.6e-2
#: Key blocks of the multi-index lookup: d + 1 for the largest d (2).
BLOCKS = 3


@nb.njit(cache=True)
def _slot(slots, keys, key, shift):
    """The slot holding ``key``, or the empty slot where it would go (linear probing)."""
    mask = slots.shape[0] - 1
    h = np.int64((key * _GOLDEN) >> np.uint64(shift))
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
            h = np.int64(((keys[e] & masks[j]) * _GOLDEN) >> np.uint64(shift))
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
        candidates += count[j, np.int64(((key & masks[j]) * _GOLDEN) >> np.uint64(shift))]
    if candidates > out.shape[0]:
        return _ball(slots, keys, key, bits, d, shift, out)
    n = 0
    for j in range(masks.shape[0]):
        h = np.int64(((key & masks[j]) * _GOLDEN) >> np.uint64(shift))
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
        return sum(self.count[j][((keys & m) * _GOLDEN) >> np.uint64(self.shift)]
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


def _depth_and_ancestors(parent: np.ndarray, node: int) -> list[int]:
    chain = [node]
    while parent[chain[-1]] >= 0:
        chain.append(int(parent[chain[-1]]))
    return chain  # node, its parent, ..., the root


def tree_distance(tree: Tree, node: int, origin: np.ndarray) -> int:
    """Edges in the tree between ``node`` and a board of ``origin`` (row, moves past it in
    the playout, the playout's first action): a playout board hangs below the row it left the
    tree from, through the row's child along the playout's first move when that child is on
    ``node``'s path."""
    row, extra, first = int(origin[1]), int(origin[2]), int(origin[3])
    up = _depth_and_ancestors(tree.parent, node)
    where = {n: i for i, n in enumerate(up)}
    steps, n = 0, row
    while n not in where:
        n = int(tree.parent[n])
        steps += 1
    lca_up = where[n]
    if extra >= 1 and steps == 0 and lca_up >= 1 and tree.action[up[lca_up - 1]] == first:
        return (lca_up - 1) + (extra - 1)  # the playout left through node's own path
    return lca_up + steps + extra


class SearchExperience(Enhancement):
    """The search experience as an enhancement of the search core.

    ``encoder`` gives board keys: ``encode(state) -> int`` and ``encode_boards(boards) ->
    uint64 array`` for the positions an evaluator records, and ``bits``, the key length.
    ``distance``: the Hamming distance ``d`` (0, 1, 2) of the boards that seed a node.
    The table lasts for the life of the enhancement (one game): :meth:`reset` empties it.
    With ``measure`` the tree distances of the similar boards found are counted in
    ``distance_counts`` (the switching rule's measurement).
    """

    needs_boards = True

    def __init__(self, encoder, distance: int, measure: bool = False) -> None:
        if distance not in (0, 1, 2):
            raise ValueError(f"the similarity distance d is 0, 1 or 2, not {distance}")
        self.encoder, self.distance, self.measure = encoder, distance, measure
        self.table: ExperienceTable | None = None
        self.generation = 0
        self.distance_counts = np.zeros(0, np.int64)
        self.seeded_nodes = 0
        self.reached_nodes = 0

    def reset(self) -> None:
        """Forget the experience (a new game)."""
        if self.table is not None:
            self.table.clear()
        self.distance_counts = np.zeros(0, np.int64)

    def begin(self, tree, num_players, num_actions, rng) -> None:
        if self.table is None or self.table.num_players != num_players:
            self.table = ExperienceTable(num_players, self.encoder.bits)
        self.generation += 1

    def on_reach(self, tree: Tree, node: int, state) -> None:
        key = self.encoder.encode(state)
        tree.array(BOARD_KEY, np.uint64)[node] = key
        tree.array(BOARD_SEEN, np.uint8)[node] = 1
        if node == ROOT:
            return
        self.reached_nodes += 1
        entries = self.table.similar(key, self.distance)
        if len(entries) == 0:
            return
        wsum, visits = self.table.totals(entries)
        tree.visits[node] += visits
        tree.value_sum[node] += wsum
        tree.array(SEEDED_VISITS, np.int64)[node] += visits
        self.seeded_nodes += 1
        if self.measure:
            origins = self.table.origin[entries]
            live = (origins[:, 0] == self.generation) & (origins[:, 1] < tree.size)
            dist = [tree_distance(tree, node, o) for o in origins[live]]
            if dist:
                counts = np.bincount(dist)
                if len(counts) > len(self.distance_counts):
                    self.distance_counts = np.pad(self.distance_counts,
                                                  (0, len(counts) - len(self.distance_counts)))
                self.distance_counts[:len(counts)] += counts

    def on_backup(self, tree: Tree, simulation: Simulation) -> None:
        path = simulation.path
        rows = path[tree.array(BOARD_SEEN, np.uint8)[path] == 1]
        keys = tree.array(BOARD_KEY, np.uint64)[rows]
        origin = np.empty((len(rows), 4), np.int64)
        origin[:, 0], origin[:, 1], origin[:, 2], origin[:, 3] = self.generation, rows, 0, -1
        if simulation.boards is not None and len(simulation.boards):
            played = self.encoder.encode_boards(simulation.boards)
            leaf = int(path[-1])
            first = (int(simulation.actions[simulation.tree_moves])
                     if len(simulation.actions) > simulation.tree_moves else -1)
            more = np.empty((len(played), 4), np.int64)
            more[:, 0], more[:, 1], more[:, 3] = self.generation, leaf, first
            more[:, 2] = np.arange(1, len(played) + 1)
            keys = np.concatenate([keys, played])
            origin = np.concatenate([origin, more])
        self.table.add(keys, simulation.value, origin)


@dataclass(frozen=True)
class SimilarityReport:
    """The switching rule's measurements over the pre-game self-play games."""

    counts: np.ndarray  # [G, D] similar boards found at each tree distance, per game
    mean_distance: float  # over every similar board found
    mean_std: float  # per distance: the std over games of its share; averaged over distances

    @property
    def games(self) -> int:
        return len(self.counts)


def summarize(counts: list[np.ndarray]) -> SimilarityReport:
    """Mean tree distance and mean per-distance std of the shares, from per-game counts."""
    width = max((len(c) for c in counts), default=0)
    table = np.array([np.pad(c, (0, width - len(c))) for c in counts], np.float64).reshape(
        len(counts), width)
    total = table.sum()
    mean = float((table.sum(axis=0) * np.arange(width)).sum() / total) if total else float("nan")
    games = table[table.sum(axis=1) > 0]
    share = games / games.sum(axis=1, keepdims=True) if len(games) else games
    std = float(share.std(axis=0).mean()) if len(games) and width else float("nan")
    return SimilarityReport(table.astype(np.int64), mean, std)


def choose_distance(report: SimilarityReport, max_mean: float = MAX_MEAN_DISTANCE,
                    max_std: float = MAX_MEAN_STD) -> int:
    """The paper's rule: ``d = 2`` if the similar boards are near (mean distance <=
    ``max_mean``) and stable (mean per-distance std <= ``max_std``), else ``d = 0`` (also when
    nothing similar was found, or fewer than 2 games were measured)."""
    if report.games < 2:
        return 0
    if not (report.mean_distance <= max_mean and report.mean_std <= max_std):
        return 0
    return 2


def measure_similarity(game: Game, make_search: Callable[[int], tuple[object, SearchExperience]],
                       games: int = 10, moves: int = 10, seed: int = 0,
                       time_limit: float | None = None) -> SimilarityReport:
    """Self-play ``games`` games of at most ``moves`` moves, each game played by a fresh
    ``make_search(seed)`` pair (an ``MCTSPlayer``-like object with ``choose_action`` and
    ``inform``, and its measuring :class:`SearchExperience`); counts the tree distances of the
    similar boards found, per game. With ``time_limit`` (seconds: the start clock's share),
    no game starts after it (the report then holds fewer games)."""
    if games < 2:
        raise ValueError("the per-distance std needs at least 2 games")
    rng = np.random.default_rng(seed)
    stop = None if time_limit is None else time.perf_counter() + time_limit
    counts = []
    for _ in range(games):
        if stop is not None and time.perf_counter() > stop:
            break
        player, experience = make_search(int(rng.integers(2**31)))
        if not experience.measure:
            raise ValueError("measure_similarity needs a SearchExperience built with measure=True")
        state = game.new_initial_state()
        for _ in range(moves):
            if state.is_terminal():
                break
            mover = state.current_player()
            if mover < 0:
                raise ValueError("the switching measurement plays turn-taking games only")
            action = player.choose_action(state)
            state.apply_action(action)
            player.inform(action, mover)
        counts.append(experience.distance_counts.copy())
    return summarize(counts)
