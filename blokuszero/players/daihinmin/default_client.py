"""The UECda standard ("default") client's strategy, decision for decision (UECDA.md §5, the
[CLI-P] build).

The client keeps one record of what it last read (field rank, size, whether a sequence, suit
flags, lock, revolution, ...) for the whole match, updated from every hand table and every field
table the server sends, including other players' turns; its choices depend on that record,
stale parts included. :class:`DefaultClient` therefore reads the same table stream a TCP
client would: :meth:`on_deal`, then per turn :meth:`on_hand` (answering on its own turn) and
:meth:`on_field`. Tables are [8, 15]; reads past a row's end continue in the next row, as the
C arrays do.
"""

from __future__ import annotations

import numpy as np

_ROWS, _COLS = 8, 15


def _empty() -> np.ndarray:
    return np.zeros((_ROWS, _COLS), dtype=np.int64)


class DefaultClient:
    """The standard client's decision rules over the 8x15 tables it receives."""

    def __init__(self) -> None:
        self.ord = 0  # rank column of the field (its top card, or 14/0 for a lone joker)
        self.sequence = 0
        self.qty = 0
        self.rev = 0
        self.b11 = 0
        self.lock = 0
        self.onset = 0
        # suit flags (5) followed by the fields the C struct lays out after them, which the
        # group filler reads when it runs past row 4: card counts, ranks, seats, joker.
        self.mem = [0] * 21
        self.joker = 0

    # --- the table stream ---

    def on_deal(self, table: np.ndarray) -> np.ndarray | None:
        """The deal table; the cards to give if it asks for some (the lowest ones)."""
        n = int(table[5, 1])
        if not 0 < n < 100:
            return None
        hand = np.array(table, dtype=np.int64)
        out = _empty()
        for _ in range(n):
            one = _solo(hand, 0, low=True)
            hand[:5][one[:5] == 1] = 0
            out[:5][one[:5] > 0] = 1
        return out

    def on_hand(self, table: np.ndarray) -> np.ndarray | None:
        """A hand table; the table to submit when it is this client's turn ([5][2] = 1)."""
        t = np.array(table, dtype=np.int64)
        self._read_state(t)
        if t[5, 2] != 1:
            return None
        return self._lead(t) if self.onset == 1 else self._follow(t)

    def on_field(self, table: np.ndarray) -> None:
        """A field table (the last accepted combination)."""
        self._read_field(np.asarray(table, dtype=np.int64).ravel())

    # --- reading tables ---

    def _read_state(self, t: np.ndarray) -> None:
        self.onset = int(t[5, 4] > 0)
        self.rev = int(t[5, 6] > 0)
        self.b11 = int(t[5, 5] > 0)
        self.lock = int(t[5, 7] > 0)
        if self.onset:
            self.qty = self.ord = self.lock = 0
            self.mem[:5] = [0] * 5
        self.mem[5:20] = [int(x) for x in t[6, :15]]
        self.joker = int(t[4, 1] == 2)
        self.mem[20] = self.joker

    def _read_field(self, f: np.ndarray) -> None:
        suit = self.mem
        i = j = 0
        while j < 15 and f[i * 15 + j] == 0:  # first card, column by column, rows 0-3
            suit[i] = 0
            i += 1
            if i == 4:
                j, i = j + 1, 0
        found_joker = f[i * 15 + j] == 2
        if j < 14:
            self.sequence = int(f[i * 15 + j + 1] > 0)
        count = 0
        if self.sequence == 0:
            for r in range(i, 5):
                hit = f[r * 15 + j] > 0
                count += hit
                suit[r] = int(hit)
            self.ord = (0 if self.rev else 14) if found_joker and count == 1 else j
        else:
            while j + count < 15 and f[i * 15 + j + count] > 0:
                count += 1
            self.ord = j + count - 1 if self.rev == self.b11 else j
            suit[i] = 1
        self.qty = count
        if count > 0:
            self.onset = 0

    # --- decisions ---

    def _lead(self, my: np.ndarray) -> np.ndarray:
        """The longest sequence, else the largest group, else one card: the weakest such
        (in revolution: the highest columns); with the joker, joker-filled ones count."""
        group = _joker_groups(my) if self.joker else _groups(my)
        seq = _joker_runs(my) if self.joker else _runs(my)
        for n in range(15, 2, -1):
            hits = _exactly(seq, n)
            if hits is not None:
                return (_high_sequence if self.rev else _low_sequence)(my, hits)
        for n in range(5, 1, -1):
            hits = _exactly(group, n)
            if hits is not None:
                return (self._high_group if self.rev else self._low_group)(my, hits)
        return _solo(my, self.joker, low=not self.rev)

    def _candidates(self, my: np.ndarray, above: bool) -> np.ndarray:
        temp = _above(my, self.ord) if above else _below(my, self.ord)
        if self.lock == 1:
            temp[:4] *= np.array(self.mem[:4])[:, None]
        return temp

    def _follow(self, my: np.ndarray) -> np.ndarray:
        """The weakest answer of the field's size and kind that keeps groups and sequences
        together for singles and takes exact sizes for groups and sequences; else the joker
        (singles, or as a filler); else pass."""
        above = not self.rev
        if self.qty == 1:
            loose = self._candidates(_loose_singles(my), above)
            return _solo(loose, self.joker, low=above)
        temp = self._candidates(my, above)
        if self.sequence == 0:
            hits = self._matching(temp, _groups, _joker_groups)
            return (self._low_group if above else self._high_group)(my, hits)
        hits = self._matching(temp, _runs, _joker_runs)
        return (_low_sequence if above else _high_sequence)(my, hits)

    def _matching(self, temp: np.ndarray, natural, with_joker) -> np.ndarray:
        """Combinations of exactly the field's size: natural ones, else with the joker."""
        hits = _exactly(natural(temp), self.qty)
        if hits is None and self.joker == 1:
            hits = _exactly(with_joker(temp), self.qty)
        return hits if hits is not None else _empty()

    def _low_group(self, my: np.ndarray, group: np.ndarray) -> np.ndarray:
        return self._group_at(my, group, range(1, 14), 14)

    def _high_group(self, my: np.ndarray, group: np.ndarray) -> np.ndarray:
        return self._group_at(my, group, range(13, 0, -1), 0)

    def _group_at(self, my: np.ndarray, group: np.ndarray, columns, none_column: int
                  ) -> np.ndarray:
        """The first column (in ``columns`` order) with group cells, topped up with the joker
        in the first free rows the lock allows (rows past 4 included, as the C loop runs)."""
        out = _empty()
        count = qty = 0
        j = none_column
        for j in columns:
            for i in range(4):
                if group[i, j] > 1:
                    out[i, j] = 1
                    count += 1
                    qty = int(group[i, j])
            if count > 0:
                break
        else:
            j = none_column
        flat_my, flat_out = my.ravel(), out.ravel()
        i = 0
        while count < qty:
            if flat_my[i * 15 + j] == 0 and (self.lock == 0 or self.mem[i] == 1):
                flat_out[i * 15 + j] = 2
                count += 1
            i += 1
        return out


def _loose_singles(my: np.ndarray) -> np.ndarray:
    """The cards in no natural group or sequence."""
    out = _empty()
    out[:4] = _drop_runs(my, _runs(my))
    out[:4] = (out[:4] == 1) & (_groups(my)[:4] == 0)
    return out


def _above(t: np.ndarray, threshold: int) -> np.ndarray:
    """A copy with rows 0-3 cleared at columns 0..threshold."""
    out = t.copy()
    flat = out.ravel()
    for c in range(threshold + 1):
        for r in range(4):
            flat[r * 15 + c] = 0
    return out


def _below(t: np.ndarray, threshold: int) -> np.ndarray:
    """A copy with rows 0-3 cleared at columns threshold..14."""
    out = t.copy()
    out[:4, threshold:15] = 0
    return out


def _groups(t: np.ndarray) -> np.ndarray:
    """Per card in a rank held 2+ times, that rank's count."""
    out = _empty()
    held = t[:4] == 1
    count = t[:4].sum(axis=0)
    out[:4] = np.where(held & (count > 1), count, 0)
    return out


def _joker_groups(t: np.ndarray) -> np.ndarray:
    """As :func:`_groups` counting the joker in every rank (columns 0..13)."""
    out = _empty()
    count = t[:4, :14].sum(axis=0) + 1
    out[:4, :14] = np.where((t[:4, :14] == 1) & (count > 1), count, 0)
    return out


def _runs(t: np.ndarray) -> np.ndarray:
    """Per card, the length of the natural run from it upward (kept when 3 or more)."""
    out = _empty()
    for r in range(4):
        count = 0
        for c in range(13, 0, -1):
            count = count + 1 if t[r, c] == 1 else 0
            out[r, c] = count if count > 2 else 0
    return out


def _joker_runs(t: np.ndarray) -> np.ndarray:
    """Per cell (columns 0..13), the length of the run upward from it with the joker filling
    one gap (the nearest one above, or the virtual cell above the 2); kept when 3 or more."""
    out = _empty()
    for r in range(4):
        count, natural = 1, 0
        for c in range(13, -1, -1):
            if t[r, c] == 1:
                count += 1
                natural += 1
            else:
                count, natural = natural + 1, 0
            out[r, c] = count if count > 2 else 0
    return out


def _exactly(t: np.ndarray, n: int) -> np.ndarray | None:
    """Cells of rows 0-3 equal to ``n`` (kept as ``n``), None when there are none."""
    out = _empty()
    hits = t[:4] == n
    if not hits.any():
        return None
    out[:4] = np.where(hits, n, 0)
    return out


def _drop_runs(my: np.ndarray, runs: np.ndarray) -> np.ndarray:
    """Rows 0-3 of the hand without the cards of its natural runs."""
    out = np.zeros((4, 15), dtype=np.int64)
    for r in range(4):
        c = 0
        while c < 15:
            if my[r, c] == 1 and runs[r, c] == 0:
                out[r, c] = 1
                c += 1
            elif runs[r, c] > 2:
                c += int(runs[r, c])  # the whole run stays out
            else:
                c += 1
    return out


def _solo(t: np.ndarray, joker: int, low: bool) -> np.ndarray:
    """The lowest (``low``) or highest single card of rows 0-3, else the joker alone (written
    at [0][14] by the low search, [0][0] by the high one), else nothing (a pass)."""
    out = _empty()
    for c in (range(1, 14) if low else range(13, 0, -1)):
        for r in range(4):
            if t[r, c] == 1:
                out[r, c] = 1
                return out
    if joker == 1:
        out[0, 14 if low else 0] = 2
    return out


def _write_run(my: np.ndarray, row: int, start: int, length: int) -> np.ndarray:
    out = _empty()
    for c in range(start, start + length):
        out[row, c] = 1 if my[row, c] == 1 else 2
    return out


def _low_sequence(my: np.ndarray, seq: np.ndarray) -> np.ndarray:
    """The run at the lowest column (longest there, first suit on ties)."""
    for c in range(15):
        best, line = 0, 0
        for r in range(4):
            if seq[r, c] > best:
                best, line = int(seq[r, c]), r
        if best:
            return _write_run(my, line, c, best)
    return _empty()


def _high_sequence(my: np.ndarray, seq: np.ndarray) -> np.ndarray:
    """The run reaching highest: from the highest column holding a run cell and a card, walk
    down that suit while the run values do not shrink; the last largest value wins."""
    flat = seq.ravel()
    best = line = column = 0
    i = 14
    while i > 0 and best == 0:
        for r in range(4):
            if flat[r * 15 + i] != 0 and my[r, i] != 0:
                k = -1  # starts one column above, as the C loop does
                while True:
                    value = flat[r * 15 + i - k]
                    if value >= best:
                        best, line, column = int(value), r, i - k
                    k += 1
                    if not (i - k >= 0 and value <= flat[r * 15 + i - k]):
                        break
        if best == 0:
            i -= 1
    return _write_run(my, line, column, best)


def make_default_client(game: object, spec: object, rng: object) -> DefaultClient:
    """The ``daihinmin_default`` kind: the standard client (it draws nothing and plays any rules
    the table stream shows)."""
    return DefaultClient()
