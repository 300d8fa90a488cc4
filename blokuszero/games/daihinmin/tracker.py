"""A client's view of a game rebuilt from the UECda table stream (UECDA.md §1-2).

A table client sees only tables: its deal, a hand table before every turn (its own cards, the
player to move, whether the field is empty, revolution, lock, everyone's card count, ranks and
seats) and a field table after every turn (the actor and the combination on the field). From
those :class:`TableTracker` keeps what the engine's position needs besides the other hands
(cards played, who passed, who went out in which order, the field's combination, stalled
turns) and builds a :class:`~.game.DaihinminState` with the client's own hand and the other
hands filled with unseen cards by their counts: a position whose information state is the
client's, from which searches draw determinizations. What the exchange revealed about other
hands is not kept (the determinizations treat those cards as unseen).
"""

from __future__ import annotations

import numpy as np

from . import engine as E
from .actions import A_CARDS, A_TYPE, T_LONE_JOKER
from .cards import FULL_DECK, cards_of, hand_of, table_to_hand
from .game import DaihinminGame, DaihinminState
from .tables import table_to_action


class TableTracker:
    """Follows one client's table stream (``on_deal`` / ``on_hand`` / ``on_field``)."""

    def __init__(self, game: DaihinminGame | None = None) -> None:
        self.game = game or DaihinminGame()
        self.hand_table: np.ndarray | None = None
        self._new_game()

    def _new_game(self) -> None:
        self.played = 0
        self.passed = 0
        self.order: list[int] = []
        self.field = -1
        self.last = -1
        self.stall = 0
        self.counts = np.zeros(5, np.int64)

    def on_deal(self, table: np.ndarray) -> None:
        """A new game starts."""
        self._new_game()

    def on_hand(self, table: np.ndarray) -> None:
        """A hand table: the state before a turn; an empty field means the trick was cleared."""
        t = np.asarray(table, np.int64)
        self.hand_table = t.copy()
        self.counts = t[6, :5].copy()
        if t[5, 4]:
            self.field, self.passed = -1, 0
            self.last = int(t[5, 3])

    def on_field(self, table: np.ndarray) -> None:
        """A field table after a turn: a play if the actor's card count fell, else a pass."""
        t = np.asarray(table, np.int64)
        actor = int(t[5, 3])
        if t[6, actor] < self.counts[actor]:
            action = table_to_action(t)
            self.played |= int(A_CARDS[action])
            self.field, self.last, self.stall = action, actor, 0
            if t[6, actor] == 0:
                self.order.append(actor)
        else:
            self.passed |= 1 << actor
            self.stall += 1
        self.counts = t[6, :5].copy()

    def state(self) -> DaihinminState:
        """The position at this client's turn (the last hand table has [5][2] = 1): its hand
        (rows 0-4 of that table) and unseen cards for the others."""
        t = self.hand_table
        if t is None or not t[5, 2]:
            raise ValueError("the position is built on the client's own turn only ([5][2] = 1)")
        me = mover = int(t[5, 3])
        mine = table_to_hand(t)
        pool = cards_of(FULL_DECK & ~mine & ~self.played)
        hands, at = [0] * 5, 0
        for p in range(5):
            if p == me:
                hands[p] = mine
            else:
                hands[p] = hand_of(pool[at:at + int(self.counts[p])])
                at += int(self.counts[p])
        if at != len(pool) or bin(mine).count("1") != self.counts[me]:
            raise ValueError(f"the tables disagree: {len(pool)} unseen cards, {at} in other "
                             f"hands; own hand {bin(mine).count('1')} cards, counted "
                             f"{self.counts[me]}")
        s = np.zeros(E.S_SIZE, np.int64)
        s[E.S_HAND:E.S_HAND + 5] = hands
        s[E.S_SEAT:E.S_SEAT + 5] = t[6, 10:15]
        ranks = t[6, 5:10]
        s[E.S_RANK:E.S_RANK + 5] = ranks if sorted(ranks) == list(range(5)) else -1
        s[E.S_ORDER:E.S_ORDER + 5] = -1
        s[E.S_ORDER:E.S_ORDER + len(self.order)] = self.order
        s[E.S_OUT] = len(self.order)
        s[E.S_PHASE] = E.P_PLAY
        s[E.S_PLAYER] = mover
        s[E.S_LAST] = self.last if self.last >= 0 else mover
        s[E.S_FIELD] = self.field
        s[E.S_REVOLUTION] = t[5, 6]
        s[E.S_LOCK] = t[5, 7] if self.field >= 0 else 0
        s[E.S_SHOWN_LOCK] = s[E.S_LOCK]
        s[E.S_JOKER_ALONE] = int(self.field >= 0 and A_TYPE[self.field] == T_LONE_JOKER)
        s[E.S_PASSED] = self.passed
        s[E.S_STALL] = self.stall
        s[E.S_PLAYED] = self.played
        s[E.S_RULES] = self.game.rules.bits()
        return DaihinminState(self.game, s, tuple(hands))
