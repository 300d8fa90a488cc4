"""A client's view of a game rebuilt from the UECda table stream (UECDA.md §1-2).

A table client sees only tables: its deal, a hand table before every turn (its own cards, the
player to move, whether the field is empty, revolution, lock, everyone's card count, ranks and
seats) and a field table after every turn (the actor and the combination on the field). From
those :class:`TableTracker` keeps what the engine's position needs besides the other hands
(cards played, who passed, who went out in which order, the field's combination, stalled
turns) and builds a :class:`~.game.DaihinminState` with the client's own hand and the other
hands filled with unseen cards by their counts: a position whose information state is the
client's, from which searches draw determinizations. It keeps what the exchange revealed: the
cards that left the client's hand in it (what it gave as daifugo or fugo, or had taken as
hinmin or daihinmin: its deal table against its first hand table) are held by its partner in
the exchange until played, and the position records them as the engine does
(``S_GAVE_*`` / ``S_TOOK_*``), so determinizations leave them there. A daifugo or fugo is
never shown which cards it received (its deal table already holds them), so that constraint of
the engine's determinizations is not known here.

At the deal a daifugo or fugo, asked for its gift, gets :meth:`TableTracker.gift_state`: the
position at its gift, its hand as dealt to it (with the cards it received), the others' card
counts after the exchange's steps before its gift, the other cards dealt to them by those counts.

It also records every turn (position, mover, action). Once a game is over every hand it was
played from is known (the cards each player went on to play, and the last player's remainder),
which :meth:`TableTracker.finished_game` fills in, for opponent models to learn from.
"""

from __future__ import annotations

import numpy as np

from . import rules as K
from .actions import A_CARDS, A_TYPE, PASS, T_LONE_JOKER
from .cards import FULL_DECK, cards_of, hand_of, table_to_hand
from .determinization import exchange_partner
from .game import DaihinminGame, DaihinminState
from .tables import table_to_action


class TableTracker:
    """Follows one client's table stream (``on_deal`` / ``on_hand`` / ``on_field``)."""

    def __init__(self, game: DaihinminGame | None = None) -> None:
        self.game = game or DaihinminGame()
        self.hand_table: np.ndarray | None = None
        self.deal_table: np.ndarray | None = None
        self._new_game()

    def _new_game(self) -> None:
        self.played = 0
        self.passed = 0
        self.order: list[int] = []
        self.field = -1
        self.last = -1
        self.stall = 0
        self.counts = np.zeros(5, np.int64)
        self.turns: list[np.ndarray] = []  # position before each turn, the mover's hand unset
        self.movers: list[int] = []
        self.actions: list[int] = []
        self.dealt = 0  # the client's deal (before its own gift, or before it was taken from)
        self.exchanged: int | None = None  # cards that left its hand in the exchange
        self.ranks = np.full(5, -1, np.int64)  # from the previous game, as at the deal

    def on_deal(self, table: np.ndarray) -> None:
        """A new game starts."""
        self._new_game()
        self.deal_table = np.asarray(table, np.int64).copy()
        self.dealt = table_to_hand(self.deal_table)

    def on_hand(self, table: np.ndarray) -> None:
        """A hand table: the state before a turn; an empty field means the trick was cleared."""
        t = np.asarray(table, np.int64)
        self.hand_table = t.copy()
        self.counts = t[6, :5].copy()
        if self.exchanged is None:  # the first hand table after the exchange
            self.exchanged = self.dealt & ~table_to_hand(t)
            # Later tables may change a rank while the game goes on (seen in official records).
            ranks = t[6, 5:10]
            if sorted(ranks) == list(range(5)):
                self.ranks = ranks.copy()
        if t[5, 4]:
            self.field, self.passed = -1, 0
            self.last = int(t[5, 3])
        self.turns.append(self._vector([0] * 5))
        self.movers.append(int(t[5, 3]))

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
            action = PASS
            self.passed |= 1 << actor
            self.stall += 1
        self.counts = t[6, :5].copy()
        self.actions.append(action)

    def finished_game(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The turns of the game just played whose mover's hand is now known (positions
        [N, S_SIZE] with that hand, movers [N], actions [N]): the players who went out, and
        the one left with the remaining cards when four did (not after 20 stalled turns)."""
        n = len(self.actions)
        held = [0] * 5  # cards each player plays from the turn being filled on
        known = set(self.order)
        if len(self.order) == 4:
            last = (set(range(5)) - known).pop()
            held[last] = FULL_DECK & ~self.played
            known.add(last)
        keep = []
        for i in range(n - 1, -1, -1):
            p = self.movers[i]
            held[p] |= int(A_CARDS[self.actions[i]])
            if p in known:
                self.turns[i][K.S_HAND + p] = held[p]
                keep.append(i)
        keep.reverse()
        return (np.array([self.turns[i] for i in keep], np.int64).reshape(-1, K.S_SIZE),
                np.array([self.movers[i] for i in keep], np.int64),
                np.array([self.actions[i] for i in keep], np.int64))

    def state(self) -> DaihinminState:
        """The position at this client's turn (the last hand table has [5][2] = 1): its hand
        (rows 0-4 of that table), its exchange partner holding the cards it knows went there,
        and unseen cards for the rest."""
        t = self.hand_table
        if t is None or not t[5, 2]:
            raise ValueError("the position is built on the client's own turn only ([5][2] = 1)")
        me = int(t[5, 3])
        mine = table_to_hand(t)
        s = self._vector([0] * 5)
        partner, field = exchange_partner(s, me)
        known = [0] * 5
        if partner >= 0:
            known[partner] = self.exchanged & ~self.played
        hands = _deal_unseen(me, mine, self.counts, known, FULL_DECK & ~self.played)
        s[K.S_HAND:K.S_HAND + 5] = hands
        if partner >= 0:
            s[field] = self.exchanged
        return DaihinminState(self.game, s, tuple(hands))

    def gift_state(self) -> DaihinminState:
        """The position at this client's gift in the exchange (its deal table asks for [5][1]
        cards: 2 as daifugo, 1 as fugo): its hand as the deal table shows it, each other
        player's dealt count ([6][0..4]) moved by the exchange's steps before this gift (the
        daihinmin's two and the hinmin's one strongest cards up, and before the fugo's gift the
        daifugo's two down), and unseen cards dealt to the others by those counts. Which cards
        it received is never shown, so no card is ruled out of the giver's hand."""
        t = self.deal_table
        n = 0 if t is None else int(t[5, 1])
        if n not in (1, 2):
            raise ValueError(f"the deal table asks for {n} cards: no gift to make (a gift is "
                             f"2 cards from the daifugo, 1 from the fugo)")
        ranks = t[6, 5:10]
        if sorted(ranks) != list(range(5)):
            raise ValueError(f"the deal table's ranks {list(ranks)} are not 0..4 once each")
        by_rank = [int(np.flatnonzero(ranks == r)[0]) for r in range(5)]
        me = by_rank[2 - n]
        counts = t[6, :5].copy()
        counts[by_rank[4]] -= 2
        counts[by_rank[0]] += 2
        counts[by_rank[3]] -= 1
        counts[by_rank[1]] += 1
        if n == 1:  # the daifugo has given the daihinmin two cards
            counts[by_rank[0]] -= 2
            counts[by_rank[4]] += 2
        try:
            hands = _deal_unseen(me, self.dealt, counts, [0] * 5, FULL_DECK)
        except ValueError as err:
            raise ValueError(f"the deal table disagrees with itself: the dealt counts "
                             f"{list(t[6, :5])} after the exchange: {err}") from None
        s = np.zeros(K.S_SIZE, np.int64)
        s[K.S_HAND:K.S_HAND + 5] = hands
        s[K.S_SEAT:K.S_SEAT + 5] = t[6, 10:15]
        s[K.S_RANK:K.S_RANK + 5] = ranks
        s[K.S_ORDER:K.S_ORDER + 5] = -1
        s[K.S_FIELD] = -1
        s[K.S_RULES] = self.game.rules.bits()
        s[K.S_PHASE] = K.P_GIVE_DAIFUGO if n == 2 else K.P_GIVE_FUGO
        return DaihinminState(self.game, s, tuple(hands))

    def _vector(self, hands: list[int]) -> np.ndarray:
        """The engine's position vector before the last hand table's turn, with ``hands``."""
        t = self.hand_table
        mover = int(t[5, 3])
        s = np.zeros(K.S_SIZE, np.int64)
        s[K.S_HAND:K.S_HAND + 5] = hands
        s[K.S_SEAT:K.S_SEAT + 5] = t[6, 10:15]
        s[K.S_RANK:K.S_RANK + 5] = self.ranks
        s[K.S_ORDER:K.S_ORDER + 5] = -1
        s[K.S_ORDER:K.S_ORDER + len(self.order)] = self.order
        s[K.S_OUT] = len(self.order)
        s[K.S_PHASE] = K.P_PLAY
        s[K.S_PLAYER] = mover
        s[K.S_LAST] = self.last if self.last >= 0 else mover
        s[K.S_FIELD] = self.field
        s[K.S_REVOLUTION] = t[5, 6]
        s[K.S_LOCK] = t[5, 7] if self.field >= 0 else 0
        s[K.S_SHOWN_LOCK] = s[K.S_LOCK]
        s[K.S_JOKER_ALONE] = int(self.field >= 0 and A_TYPE[self.field] == T_LONE_JOKER)
        s[K.S_PASSED] = self.passed
        s[K.S_STALL] = self.stall
        s[K.S_PLAYED] = self.played
        s[K.S_RULES] = self.game.rules.bits()
        return s


def _deal_unseen(me: int, mine: int, counts: np.ndarray, known: list[int], cards: int) -> list[int]:
    """Hands [5] by ``counts``: ``me`` holds ``mine``, each other player its ``known`` cards and
    then, in player order, the next of the other ``cards`` (those in no hand above). ValueError
    where the counts, the hands and the cards disagree."""
    if bin(mine).count("1") != counts[me]:
        raise ValueError(f"own hand {bin(mine).count('1')} cards, counted {counts[me]}")
    placed = mine
    for k in known:
        placed |= k
    pool = cards_of(cards & ~placed)
    hands, at = [0] * 5, 0
    for p in range(5):
        if p == me:
            hands[p] = mine
            continue
        n = int(counts[p]) - bin(known[p]).count("1")
        if n < 0:
            raise ValueError(f"player {p} holds {counts[p]} cards, fewer than the "
                             f"{bin(known[p]).count('1')} known to be there from the exchange")
        hands[p] = known[p] | hand_of(pool[at:at + n])
        at += n
    if at != len(pool):
        raise ValueError(f"{len(pool)} unseen cards, {at} in other hands by the counts")
    return hands
