"""Naive-Bayes opponent models of Daihinmin (SPEC §7, seed 003): which move an opponent makes.

A move's class ``l`` is the strength of its weakest card (3..2 = 1..13, reversed during a
revolution, joker 14). The simple model scores a legal move by
``P(l) prod_i P(d_i | l)`` over the strengths ``d_i`` of the cards in hand; the improved one
uses relative strengths (a rank gains 1 for every stronger rank whose four cards are all
played), adds the field's relative strength ``f`` as one more feature and multiplies by
``P(s)`` (bits: breaks a group, breaks a sequence, locks) and, when leading, ``P(m) P(t)``
(card count, type). Each model keeps two tables, one for sequences and one for groups and
singles (the lone joker included); a move is scored by the table of its own type.

The improved model's additions are four feature groups, bits of ``features`` so that each can be
switched off (an ablation): :data:`F_RELATIVE` (relative strengths for ``l`` and ``d_i``),
:data:`F_FIELD` (``f``), :data:`F_SHAPE` (``P(s)``), :data:`F_LEAD` (``P(m) P(t)``).
:data:`SIMPLE` has none, :data:`IMPROVED` all four.

Counts are learned from whole games (the hands are known once a game is over); every
probability is Laplace-smoothed (add one), so unseen values never score -inf. Learning and
prediction are numba kernels over the rules kernels' position vectors, fast enough for
playouts (the Monte Carlo client's, :mod:`blokuszero.players.daihinmin.playouts`).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ...games.daihinmin import rules as K
from ...games.daihinmin.actions import (
    A_CARDS,
    A_COUNT,
    A_SUIT,
    A_TYPE,
    A_VALUE,
    PASS,
    T_LONE_JOKER,
    T_SEQUENCE,
    chance_action,
)
from ...games.daihinmin.cards import JOKER, table_to_hand
from ...games.daihinmin.game import DaihinminGame, DaihinminState, submission
from ...games.daihinmin.log import LoggedGame

NUM_CLASSES = 15  # strengths 0 (empty field) and 1..14
NUM_BITS = 8  # values of s (3 bits)
MAX_COUNT = 16  # values of m
# Count array layout (one int64 vector so kernels take one argument per model).
_CLS = 0  # [2, 15]       P(l) per table (0 groups and singles, 1 sequences)
_FEAT = _CLS + 2 * NUM_CLASSES  # [2, 15, 15]   P(d_i = v | l)
_FIELD = _FEAT + 2 * NUM_CLASSES * NUM_CLASSES  # [2, 15, 15]   P(f | l) (improved)
_BITS = _FIELD + 2 * NUM_CLASSES * NUM_CLASSES  # [8]           P(s) (improved)
_COUNT = _BITS + NUM_BITS  # [16]          P(m) when leading (improved)
_TYPE = _COUNT + MAX_COUNT  # [2]           P(t) when leading (improved)
_SIZE = _TYPE + 2
NUM_MODEL_ENTRIES = _SIZE  # length of a model's count and log-probability vectors

# Feature groups of the improved model (bits of ``features``).
F_RELATIVE, F_FIELD, F_SHAPE, F_LEAD = 1, 2, 4, 8
SIMPLE = 0
IMPROVED = F_RELATIVE | F_FIELD | F_SHAPE | F_LEAD
FEATURES = {"relative": F_RELATIVE, "field": F_FIELD, "shape": F_SHAPE, "lead": F_LEAD}


@nb.njit(cache=True)
def strengths(s: np.ndarray, relative: bool) -> np.ndarray:
    """[14] strength of each column 0..13 (index 0 unused): 1..13 by the revolution flag,
    plus, if ``relative``, one for every stronger rank whose four cards are all played."""
    out = np.zeros(14, np.int64)
    rev = s[K.S_REVOLUTION]
    played = s[K.S_PLAYED]
    for c in range(1, 14):
        out[c] = 14 - c if rev else c
    if relative:
        base = out.copy()
        for c in range(1, 14):
            if (played >> ((c - 1) * 4)) & 15 == 15:
                for d in range(1, 14):
                    if base[d] < base[c]:
                        out[d] += 1
    return out


@nb.njit(cache=True)
def move_class(action: int, table: np.ndarray) -> int:
    """l: the strength (by ``table``) of the weakest card of ``action``; 14 for the lone joker,
    0 for the pass (when the model learns passes)."""
    if action == PASS:
        return 0
    if A_TYPE[action] == T_LONE_JOKER:
        return 14
    first = A_VALUE[action]
    last = first + A_COUNT[action] - 1 if A_TYPE[action] == T_SEQUENCE else first
    low = 99
    for c in range(max(first, 1), min(last, 13) + 1):
        low = min(low, table[c])
    return low


@nb.njit(cache=True)
def model_table(s: np.ndarray, action: int) -> int:
    """Which of the two tables scores ``action``: 1 for a sequence, else 0; a pass is scored
    by the table of the field it passes on (the paper picks the table by the field)."""
    field = s[K.S_FIELD]
    if action == PASS:
        return 1 if field >= 0 and A_TYPE[field] == T_SEQUENCE else 0
    return 1 if A_TYPE[action] == T_SEQUENCE else 0


@nb.njit(cache=True)
def shape_bits(s: np.ndarray, action: int) -> int:
    """s: bit 0 the move breaks a group in hand (a rank it uses is held more often than it
    plays it, at least twice), bit 1 it breaks a run of 3+ of one suit in hand, bit 2 the
    field is locked after it."""
    p = s[K.S_PLAYER]
    hand = s[K.S_HAND + p]
    cards = A_CARDS[action] & ~(np.int64(1) << JOKER)
    bits = 0
    for c in range(1, 14):
        used = (cards >> ((c - 1) * 4)) & 15
        if used:
            held = K.popcount((hand >> ((c - 1) * 4)) & 15)
            if held >= 2 and held > K.popcount(used):
                bits |= 1
    for card in range(52):
        if not (cards >> card) & 1:
            continue
        row, c = card % 4, card // 4 + 1
        lo, hi = c, c
        while lo > 1 and (hand >> ((lo - 2) * 4 + row)) & 1:
            lo -= 1
        while hi < 13 and (hand >> (hi * 4 + row)) & 1:
            hi += 1
        used = 0
        for k in range(lo, hi + 1):
            used += (cards >> ((k - 1) * 4 + row)) & 1
        if hi - lo + 1 >= 3 and hi - lo + 1 > used:
            bits |= 2
    field = s[K.S_FIELD]
    if (field >= 0 and A_TYPE[action] != T_LONE_JOKER and s[K.S_RULES] & K.R_LOCK
            and (s[K.S_LOCK] or A_SUIT[action] == A_SUIT[field])):
        bits |= 4
    return bits


@nb.njit(cache=True)
def _histogram(hand: int, table: np.ndarray) -> np.ndarray:
    h = np.zeros(NUM_CLASSES, np.int64)
    for c in range(1, 14):
        h[table[c]] += K.popcount((hand >> ((c - 1) * 4)) & 15)
    if (hand >> JOKER) & 1:
        h[14] += 1
    return h


@nb.njit(cache=True)
def learn(counts: np.ndarray, states: np.ndarray, actions: np.ndarray, features: int,
          passes: bool = False) -> None:
    """Add the moves ``actions[i]`` made in positions ``states[i]``, counting the feature
    groups in ``features``; passes are skipped unless ``passes``, and forced ones (no legal
    play) always: they are no choice."""
    buf = np.empty(K.MAX_LEGAL, np.int64)
    for i in range(states.shape[0]):
        a = actions[i]
        s = states[i]
        if a == PASS and (not passes or K.legal_plays(s, buf) < 2):
            continue
        table = strengths(s, features & F_RELATIVE != 0)
        k = model_table(s, a)
        l = move_class(a, table)
        counts[_CLS + k * NUM_CLASSES + l] += 1
        h = _histogram(s[K.S_HAND + s[K.S_PLAYER]], table)
        base = _FEAT + (k * NUM_CLASSES + l) * NUM_CLASSES
        for v in range(NUM_CLASSES):
            counts[base + v] += h[v]
        field = s[K.S_FIELD]
        if features & F_FIELD:
            f = 0 if field < 0 else move_class(field, table)
            counts[_FIELD + (k * NUM_CLASSES + l) * NUM_CLASSES + f] += 1
        if features & F_SHAPE:
            counts[_BITS + shape_bits(s, a)] += 1
        if features & F_LEAD and field < 0:
            counts[_COUNT + min(A_COUNT[a], MAX_COUNT - 1)] += 1
            counts[_TYPE + k] += 1


@nb.njit(cache=True)
def log_probabilities(counts: np.ndarray) -> np.ndarray:
    """The smoothed log-probabilities the scores use, in the counts' layout."""
    out = np.zeros(_SIZE)
    n = NUM_CLASSES
    for k in range(2):
        total = 0
        for l in range(n):
            total += counts[_CLS + k * n + l]
        for l in range(n):
            out[_CLS + k * n + l] = np.log((counts[_CLS + k * n + l] + 1) / (total + n))
            for base in (_FEAT, _FIELD):
                row = base + (k * n + l) * n
                t = 0
                for v in range(n):
                    t += counts[row + v]
                for v in range(n):
                    out[row + v] = np.log((counts[row + v] + 1) / (t + n))
    for base, size in ((_BITS, NUM_BITS), (_COUNT, MAX_COUNT), (_TYPE, 2)):
        t = 0
        for v in range(size):
            t += counts[base + v]
        for v in range(size):
            out[base + v] = np.log((counts[base + v] + 1) / (t + size))
    return out


@nb.njit(cache=True)
def score(logp: np.ndarray, s: np.ndarray, action: int, table: np.ndarray, hist: np.ndarray,
          features: int) -> float:
    """log of the model's score of ``action`` in position ``s`` (``table``: its strengths,
    ``hist``: the mover's hand as a histogram of them) with the feature groups ``features``."""
    n = NUM_CLASSES
    k = model_table(s, action)
    l = move_class(action, table)
    total = logp[_CLS + k * n + l]
    row = _FEAT + (k * n + l) * n
    for v in range(n):
        total += hist[v] * logp[row + v]
    field = s[K.S_FIELD]
    if features & F_FIELD:
        f = 0 if field < 0 else move_class(field, table)
        total += logp[_FIELD + (k * n + l) * n + f]
    if features & F_SHAPE:
        total += logp[_BITS + shape_bits(s, action)]
    if features & F_LEAD and field < 0:
        total += logp[_COUNT + min(A_COUNT[action], MAX_COUNT - 1)] + logp[_TYPE + k]
    return total


@nb.njit(cache=True)
def best_moves(logp: np.ndarray, s: np.ndarray, features: int, buf: np.ndarray,
               passes: bool = False) -> int:
    """The best-scoring legal actions of the player to move in ``s``, all tied ones, the pass
    among the candidates only if ``passes``: written to ``buf[:k]`` in ascending ids, k
    returned (0 when the pass is left out and it can only pass)."""
    n = K.legal_plays(s, buf)
    table = strengths(s, features & F_RELATIVE != 0)
    hist = _histogram(s[K.S_HAND + s[K.S_PLAYER]], table)
    best = -np.inf
    k = 0
    for i in range(n):  # buf[i] is read before buf[k <= i] is written
        a = buf[i]
        if a == PASS and not passes:
            continue
        v = score(logp, s, a, table, hist, features)
        if v > best + 1e-9:
            best, k = v, 0
        if v > best - 1e-9:
            buf[k] = a
            k += 1
    return k


@nb.njit(cache=True)
def choose(logp: np.ndarray, s: np.ndarray, features: int, buf: np.ndarray,
           first: bool = False, passes: bool = False) -> int:
    """The model's move for the player to move in ``s``: the best-scoring legal action (the
    pass a candidate only if ``passes``); among tied ones the lowest id if ``first`` (the
    server's table order: rank, then suit S, H, D, C), else one drawn uniformly with numba's
    generator. PASS if it has nothing else."""
    k = best_moves(logp, s, features, buf, passes)
    if k == 0:
        return PASS
    return buf[0] if first else buf[np.random.randint(k)]


@nb.njit(cache=True)
def sample(logp: np.ndarray, s: np.ndarray, features: int, buf: np.ndarray) -> int:
    """A non-pass legal action drawn with probability proportional to the model's score
    (its posterior over the moves; the paper's "softmax" for diverse playouts); PASS if none."""
    n = K.legal_plays(s, buf)
    table = strengths(s, features & F_RELATIVE != 0)
    hist = _histogram(s[K.S_HAND + s[K.S_PLAYER]], table)
    scores = np.full(n, -np.inf)
    best = -np.inf
    for i in range(n):
        if buf[i] != PASS:
            scores[i] = score(logp, s, buf[i], table, hist, features)
            best = max(best, scores[i])
    if best == -np.inf:
        return PASS
    total = 0.0
    for i in range(n):
        scores[i] = np.exp(scores[i] - best)  # exp(-inf) = 0 for the pass
        total += scores[i]
    u = np.random.random() * total
    chosen = PASS
    for i in range(n):
        if scores[i] > 0.0:
            chosen = buf[i]
            u -= scores[i]
            if u <= 0.0:
                break
    return chosen


class OpponentModel:
    """One opponent's naive-Bayes model with the feature groups ``features`` (:data:`SIMPLE`,
    :data:`IMPROVED` or any other mix of the ``F_*`` bits), learned game by game; with
    ``passes`` the pass is a move it learns (class 0) and predicts."""

    def __init__(self, features: int, passes: bool = False) -> None:
        self.features = features
        self.passes = passes
        self.counts = np.zeros(_SIZE, np.int64)
        self.logp = log_probabilities(self.counts)

    def learn_game(self, states: np.ndarray, actions: np.ndarray) -> None:
        """Learn from a finished game: ``states`` [N, S_SIZE] positions where the modelled
        player moved (its true hand in them) and ``actions`` [N] what it played."""
        states = np.ascontiguousarray(states, np.int64).reshape(-1, K.S_SIZE)
        actions = np.ascontiguousarray(actions, np.int64)
        if len(states) != len(actions):
            raise ValueError(f"{len(states)} positions but {len(actions)} actions")
        learn(self.counts, states, actions, self.features, self.passes)
        self.logp = log_probabilities(self.counts)

    def best(self, s: np.ndarray, buf: np.ndarray | None = None) -> np.ndarray:
        """The model's best moves in position vector ``s``, all tied ones, ascending ids."""
        if s[K.S_PHASE] != K.P_PLAY:
            raise ValueError("the opponent model predicts moves of the play phase only")
        buf = np.empty(K.MAX_LEGAL, np.int64) if buf is None else buf
        return buf[:best_moves(self.logp, s, self.features, buf, self.passes)].copy()

    def predict(self, s: np.ndarray, buf: np.ndarray | None = None, first: bool = False) -> int:
        """The model's move in position vector ``s``: among tied moves the lowest id if
        ``first``, else a uniform draw (seed numba's generator)."""
        if s[K.S_PHASE] != K.P_PLAY:
            raise ValueError("the opponent model predicts moves of the play phase only")
        return int(choose(self.logp, s, self.features,
                          np.empty(K.MAX_LEGAL, np.int64) if buf is None else buf, first,
                          self.passes))


def game_moves(record_game: LoggedGame, game: DaihinminGame
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The play phase of one logged game as (positions [N, S_SIZE] before each turn, player to
    move [N], action [N]), submissions judged as the server judges them (a rejected one is a
    pass). The exchange is taken from the record's entries; the play starts from its result."""
    hands = [int(h) for h in record_game.hands]
    for giver, taker, table in record_game.changes:
        cards = table_to_hand(table)
        if hands[giver] & cards != cards:
            raise ValueError(f"game {record_game.number}: player {giver} gives cards it lacks")
        hands[giver] &= ~cards
        hands[taker] |= cards
    state = DaihinminState.from_deal(game, hands, record_game.seats)
    states, players, actions = [], [], []
    for player, table in record_game.plays:
        if state.current_player() != player:
            raise ValueError(f"game {record_game.number}: player {player} submits out of turn")
        action, _ = submission(state, table)
        states.append(state.s.copy())
        players.append(player)
        actions.append(action)
        K.apply(state.s, action)
        if state.current_player() == -3:  # 20 stalled turns: the record's random ranks
            state.apply_action(chance_action(record_game.result))
    return (np.array(states, np.int64).reshape(-1, K.S_SIZE), np.array(players, np.int64),
            np.array(actions, np.int64))
