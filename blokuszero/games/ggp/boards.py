"""The board of a GDL game, found from its rules, and its encodings as 64-bit keys whose
Hamming distance measures how alike two boards are (SPEC §5; Uemiya and Yokoyama).

Cells. A GDL state is a set of base facts; some of them are the board. A relation of the base
facts is a board when, for one of its argument positions (the *content*), the other
positions (the *coordinates*) determine it: in every position met in the pre-game
simulations at most one fact holds per coordinate tuple, with at least
:data:`MIN_CELLS` coordinate tuples among the possible facts (fewer is a score or a counter,
not a board) and at least two contents. Of the positions that qualify the content is the
one with the fewest distinct values (the last on a tie: GDL writes ``(cell x y piece)``).
Every qualifying relation is part of the board. The cells are every coordinate tuple of the
possible facts, sorted by relation and coordinates (numbers by value); a cell with no fact
holds the blank ``#``. A game without such a relation has no board: each base proposition
is then a cell of its own, holding ``1`` (true) or ``#`` (false), so the encodings still
work on the whole state.

Encodings (the cells' contents concatenated in cell order):

- ``random``: Zobrist-style, a random 20-bit value per (cell, content), XORed: a 20-bit key;
- ``appearance``: content ``k`` (in order of first appearance in the pre-game positions,
  cell by cell) is ``k`` in binary without leading zeros (``0``, ``1``, ``10``, ``11``, ...);
- ``huffman``: Huffman codes from the contents' frequencies over the cells of every position
  of the pre-game simulations (blanks included).

A bit string is padded with zeros to a multiple of 64 bits, cut into 64-bit words (its first
bit the most significant of the first word) and the words XORed into one key.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numba as nb
import numpy as np

from ..numba_random import seed_numba
from .kif import Term, to_kif

ENCODINGS = ("random", "appearance", "huffman")
BLANK = "#"
MIN_CELLS = 4  # coordinate tuples a board relation has at least
RANDOM_BITS = 20  # the random encoding's key length (the paper's choice, its figure 7)
PREGAME_SIMULATIONS = 10  # random games played before the game to count the pieces


@dataclass(frozen=True)
class CellLayout:
    """Which base propositions are cells, and what each holds."""

    cells: list[tuple]  # (relation, coordinates...) of each cell, in encoding order
    symbols: list[str]  # the contents; symbols[0] is the blank
    cell_of: np.ndarray  # [num_base] int64 the cell a base proposition fills, or -1
    symbol_of: np.ndarray  # [num_base] int64 its content (index into symbols)
    relations: list[tuple[str, int]]  # (relation, content position) of the board; [] if none

    @property
    def has_board(self) -> bool:
        return bool(self.relations)


def _sort_key(arg: Term) -> tuple:
    text = to_kif(arg)
    return (0, int(text), "") if text.lstrip("-").isdigit() else (1, 0, text)


def detect_cells(base: list[Term], boards: np.ndarray) -> CellLayout:
    """The cells of a game with base facts ``base`` (``reasoner.base``), judged on the
    positions ``boards`` ([N, num_base] uint8 rows of base propositions)."""
    boards = np.asarray(boards, dtype=np.uint8)
    if boards.ndim != 2 or boards.shape[1] != len(base):
        raise ValueError(f"boards must be [N, {len(base)}] rows of base propositions, "
                         f"not {boards.shape}")
    by_relation: dict[tuple[str, int], list[int]] = {}
    for j, f in enumerate(base):
        if isinstance(f, tuple) and len(f) >= 3:  # a relation with two arguments or more
            by_relation.setdefault((f[0], len(f)), []).append(j)
    chosen: list[tuple[str, int, int, list[int]]] = []
    for (name, size), facts in sorted(by_relation.items()):
        options = []
        for c in range(1, size):
            coords = [tuple(base[j][k] for k in range(1, size) if k != c) for j in facts]
            contents = {base[j][c] for j in facts}
            tuples = sorted(set(coords))
            if len(tuples) < MIN_CELLS or len(contents) < 2:
                continue
            index = {t: i for i, t in enumerate(tuples)}
            cell = np.array([index[t] for t in coords])
            # Functional: no observed position holds two facts in one cell.
            per_cell = np.zeros((boards.shape[0], len(tuples)), np.int64)
            np.add.at(per_cell.T, cell, boards[:, facts].T.astype(np.int64))
            if per_cell.max(initial=0) <= 1:
                options.append((len(contents), -c, c))
        if options:
            c = min(options)[2]
            chosen.append((name, size, c, facts))
    cell_of = np.full(len(base), -1, np.int64)
    symbol_of = np.zeros(len(base), np.int64)
    if not chosen:  # no board: every base proposition is a cell, true or false
        cells = [(to_kif(f),) for f in base]
        order = sorted(range(len(base)), key=lambda j: cells[j][0])
        cell_of[order] = np.arange(len(base))
        symbol_of[:] = 1
        return CellLayout([cells[j] for j in order], [BLANK, "1"], cell_of, symbol_of, [])
    keys, symbols = [], [BLANK]
    for name, size, c, facts in chosen:
        for j in facts:
            coords = tuple(base[j][k] for k in range(1, size) if k != c)
            keys.append((name, tuple(_sort_key(a) for a in coords), coords, j))
            content = to_kif(base[j][c])
            if content not in symbols:
                symbols.append(content)
    cells: list[tuple] = []
    index: dict[tuple, int] = {}
    for name, _, coords, j in sorted(keys):
        if (name, coords) not in index:
            index[(name, coords)] = len(cells)
            cells.append((name, *map(to_kif, coords)))
        cell_of[j] = index[(name, coords)]
    for name, size, c, facts in chosen:
        for j in facts:
            symbol_of[j] = symbols.index(to_kif(base[j][c]))
    return CellLayout(cells, symbols, cell_of, symbol_of, [(n, c) for n, _, c, _ in chosen])


@nb.njit(cache=True)
def _contents(rows, cell_of, symbol_of, num_cells):
    """[N, num_cells] the symbol in each cell of each row (0, the blank, where none holds)."""
    out = np.zeros((rows.shape[0], num_cells), np.int64)
    for i in range(rows.shape[0]):
        for j in range(cell_of.shape[0]):
            if rows[i, j] != 0 and cell_of[j] >= 0:
                out[i, cell_of[j]] = symbol_of[j]
    return out


@nb.njit(cache=True)
def _encode(rows, cell_of, symbol_of, num_cells, code, code_len, zobrist, out):
    """The key of each row: Zobrist XOR when ``zobrist`` has rows, else the cells' codes
    concatenated, zero-padded to 64-bit words and the words XORed."""
    content = np.zeros(num_cells, np.int64)
    for i in range(rows.shape[0]):
        content[:] = 0
        for j in range(cell_of.shape[0]):
            if rows[i, j] != 0 and cell_of[j] >= 0:
                content[cell_of[j]] = symbol_of[j]
        key = np.uint64(0)
        if zobrist.shape[0] > 0:
            for c in range(num_cells):
                key ^= zobrist[c, content[c]]
        else:
            pos = 0
            for c in range(num_cells):
                s = content[c]
                n = code_len[s]
                for b in range(n):
                    if (code[s] >> np.uint64(n - 1 - b)) & np.uint64(1):
                        key ^= np.uint64(1) << np.uint64(63 - pos % 64)
                    pos += 1
        out[i] = key


def huffman_codes(counts: dict[str, int]) -> dict[str, str]:
    """Huffman codes (bit strings) of symbols with these counts; ties broken by symbol text,
    a lone symbol gets ``0``; symbols never seen (count 0) get the longest codes."""
    if not counts:
        raise ValueError("huffman_codes needs at least one symbol")
    if len(counts) == 1:
        return {next(iter(counts)): "0"}
    heap = [(n, (s,), {s: ""}) for s, n in sorted(counts.items())]
    heapq.heapify(heap)
    while len(heap) > 1:
        n1, k1, c1 = heapq.heappop(heap)
        n2, k2, c2 = heapq.heappop(heap)
        merged = {s: "0" + c for s, c in c1.items()} | {s: "1" + c for s, c in c2.items()}
        heapq.heappush(heap, (n1 + n2, min(k1, k2), merged))
    return heap[0][2]


def appearance_codes(order: list[str]) -> dict[str, str]:
    """Code ``k`` in binary without leading zeros for the ``k``-th symbol to appear."""
    return {s: format(k, "b") for k, s in enumerate(order)}


def pregame_boards(game, simulations: int = PREGAME_SIMULATIONS, seed: int = 0) -> np.ndarray:
    """The positions ([N, num_base] uint8) of ``simulations`` uniformly random games from the
    start (the initial position first): what the encodings learn the pieces from."""
    reasoner = game.reasoner
    if getattr(reasoner, "kind", None) != "propnet":
        raise ValueError(f"{game.name}: board encodings need the propositional network "
                         f"(the rules were too large to compile)")
    if simulations < 1:
        raise ValueError(f"pregame simulations must be >= 1, not {simulations}")
    seed_numba(seed)
    start = reasoner.initial()
    rows = [start[None, :len(reasoner.base)]]
    for _ in range(simulations):
        rows.append(reasoner.playout(start, game.max_game_length, True)[4])
    return np.concatenate(rows)


class BoardEncoder:
    """Keys of a GDL game's boards under one encoding (see the module's docstring)."""

    def __init__(self, game, encoding: str = "huffman", *, boards: np.ndarray | None = None,
                 simulations: int = PREGAME_SIMULATIONS, seed: int = 0) -> None:
        """Args:
          game: a :class:`~blokuszero.games.ggp.GgpGame` compiled to a propositional network.
          encoding: ``random``, ``appearance`` or ``huffman``.
          boards: positions to learn the cells and pieces from (default: the positions of
            ``simulations`` random games, :func:`pregame_boards`, drawn from ``seed``).
          seed: also the seed of the random encoding's values.
        """
        if encoding not in ENCODINGS:
            raise ValueError(f"unknown board encoding {encoding!r}; known: {ENCODINGS}")
        if boards is None:
            boards = pregame_boards(game, simulations, seed)
        self.encoding = encoding
        self.base_count = len(game.reasoner.base)
        self.layout = detect_cells(game.reasoner.base, boards)
        lay = self.layout
        self.num_cells = len(lay.cells)
        contents = _contents(np.asarray(boards, np.uint8), lay.cell_of, lay.symbol_of,
                             self.num_cells)
        k = len(lay.symbols)
        self.zobrist = np.zeros((0, k), np.uint64)
        self.codes: dict[str, str] = {}
        if encoding == "random":
            self.bits = RANDOM_BITS
            self.zobrist = np.random.default_rng(seed).integers(
                0, 2**RANDOM_BITS, size=(self.num_cells, k), dtype=np.int64).astype(np.uint64)
        else:
            self.bits = 64
            if encoding == "huffman":
                counts = np.bincount(contents.ravel(), minlength=k)
                self.codes = huffman_codes({lay.symbols[s]: int(counts[s]) for s in range(k)})
            else:
                _, first = np.unique(contents.ravel(), return_index=True)
                seen = [int(s) for s in np.unique(contents.ravel())[np.argsort(first)]]
                order = seen + [s for s in range(k) if s not in seen]
                self.codes = appearance_codes([lay.symbols[s] for s in order])
        self.code = np.array([int(self.codes.get(s, "0") or "0", 2) for s in lay.symbols],
                             np.uint64)
        self.code_len = np.array([len(self.codes.get(s, "")) for s in lay.symbols], np.int64)

    def encode_boards(self, rows: np.ndarray) -> np.ndarray:
        """The keys ([N] uint64) of positions given as rows of base propositions."""
        rows = np.asarray(rows, dtype=np.uint8)
        if rows.ndim != 2 or rows.shape[1] < self.base_count:
            raise ValueError(f"rows must be [N, >= {self.base_count}] base propositions, "
                             f"not {rows.shape}")
        out = np.empty(rows.shape[0], np.uint64)
        _encode(rows, self.layout.cell_of, self.layout.symbol_of, self.num_cells, self.code,
                self.code_len, self.zobrist, out)
        return out

    def encode(self, state) -> int:
        """The key of a state's board."""
        return int(self.encode_boards(state.board()[None, :])[0])

    def board_string(self, row: np.ndarray) -> str:
        """The preprocessed board of a position: ``(coordinates, content)`` per cell, in
        order (the paper's figure 6)."""
        lay = self.layout
        content = _contents(np.asarray(row, np.uint8)[None, :], lay.cell_of, lay.symbol_of,
                            self.num_cells)[0]
        return ",".join("(" + ",".join(c[1:] + (lay.symbols[s],)) + ")"
                        for c, s in zip(lay.cells, content))

    def bit_string(self, row: np.ndarray) -> str:
        """The concatenated codes of a position's cells, before padding and folding."""
        lay = self.layout
        content = _contents(np.asarray(row, np.uint8)[None, :], lay.cell_of, lay.symbol_of,
                            self.num_cells)[0]
        return "".join(self.codes[lay.symbols[s]] for s in content)


def fold(bits: str) -> int:
    """A bit string zero-padded to a multiple of 64 and its 64-bit words XORed (reference
    implementation of what :class:`BoardEncoder` computes in numba)."""
    if set(bits) - {"0", "1"}:
        raise ValueError("fold takes a string of 0 and 1")
    bits = bits + "0" * (-len(bits) % 64)
    key = 0
    for i in range(0, len(bits), 64):
        key ^= int(bits[i:i + 64], 2)
    return key


def board_row(base: list[Term], facts: set[Term]) -> np.ndarray:
    """The row of base propositions of a hand-made position (its true facts)."""
    index = {f: j for j, f in enumerate(base)}
    unknown = [f for f in facts if f not in index]
    if unknown:
        raise ValueError(f"not base facts of this game: {[to_kif(f) for f in unknown]}")
    row = np.zeros(len(base), np.uint8)
    row[[index[f] for f in facts]] = 1
    return row

